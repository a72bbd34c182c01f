"""What the lake knew when (issue 64, item 1): each session's first publication is kept across
republishes by the lake's own clock; a run that changes a published session is a restatement,
recorded with both values and announced; an older run is refused unless forced; a second publish
of an alpha at the same time loses its race and says so."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from alpha_results_seal.demo.alphas import alpha_spec
from alpha_results_seal.demo.corpus import write_seal
from alpha_results_seal.demo.engine import run_alpha
from alpha_results_seal.demo.market import Market, simulate_market
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.storage import Storage
from datasets import clock, layout, publish_lock
from pipeline.knowledge import ROLLBACK_RULE
from pipeline.publish import publish_seal
from tests.support.build_tables import build_table, has_table

ALPHA = "Test_ledger_only"  # the cheapest demo alpha with ledgers (no cross-sections)
SCORED = "Test_small_universe"  # a small one with weekly scores
T0 = dt.datetime(2022, 1, 10, 6, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Runs:
    market: Market
    folder: Path

    def seal(
        self, alpha: str, week: int, name: str, market: Market | None = None, sealed: str | None = None
    ) -> Path:
        """The run of `alpha` sealed on the `week`-th decision session from the end."""
        end = int(self.market.decision_sessions[-week])
        content = run_alpha(alpha_spec(alpha), market or self.market, "small", 7, end=end)
        if sealed is not None:
            content.manifest["sealed_at"] = sealed
        return write_seal(content, self.folder / name)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return Runs(simulate_market("small", 7), tmp_path_factory.mktemp("runs"))


def _current(lake: Path, alpha: str) -> Path:
    build = json.loads((lake / "alphas" / alpha / "_current.json").read_text())["build_id"]
    return lake / "alphas" / alpha / "builds" / build


def _table(lake: Path, alpha: str, name: str) -> pl.DataFrame:
    """The current build's rows of `name` (from the open tables, as its generation names them)."""
    return build_table(_current(lake, alpha), name)


@pytest.fixture(scope="module")
def republished(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """ALPHA published at T0 up to 6 weeks before the end, then a run two weeks later at T0 + 14 days."""
    lake = tmp_path_factory.mktemp("knowledge") / "lake"
    with clock.simulated(T0):
        assert publish_seal(str(runs.seal(ALPHA, 6, "first")), str(lake)).status == "published"
    with clock.simulated(T0 + dt.timedelta(days=14)):
        later = publish_seal(str(runs.seal(ALPHA, 4, "second")), str(lake))
    assert later.status == "published" and later.restated == 0
    yield lake


def test_a_session_keeps_the_time_it_was_first_published_across_republishes(
    republished: Path, runs: Runs
) -> None:
    known = _table(republished, ALPHA, "known_sessions").filter(pl.col("dataset") == "portfolio")
    first_end = runs.market.dates[int(runs.market.decision_sessions[-6])]
    times = known.group_by(pl.col("date") <= first_end).agg(pl.col("first_published_at").unique())
    by_part = {row[0]: row[1] for row in times.iter_rows()}
    # Every session of the first run: the first publish's time; every later one: the second's (the
    # simulated clock runs on from the time set while a publish derives its tables).
    [first], [second] = by_part[True], by_part[False]
    assert T0 <= first.replace(tzinfo=dt.UTC) < T0 + dt.timedelta(minutes=10)
    assert (
        T0 + dt.timedelta(days=14) <= second.replace(tzinfo=dt.UTC) < T0 + dt.timedelta(days=14, minutes=10)
    )
    assert not has_table(_current(republished, ALPHA), "restatements")  # no restatement rows


def test_a_rerun_that_changes_published_sessions_is_a_restatement_with_both_values(
    republished: Path, runs: Runs, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    subprocess.run(["cp", "-r", str(republished), str(lake)], check=True)
    end = int(runs.market.decision_sessions[-4])
    corrected = runs.market.corrected((end - 8, end - 7, end - 6), 1.01)  # a vendor's three corrected closes
    before = _table(lake, ALPHA, "known_sessions")
    with clock.simulated(T0 + dt.timedelta(days=15)):
        outcome = publish_seal(str(runs.seal(ALPHA, 4, "corrected", corrected)), str(lake))
    assert outcome.status == "published" and outcome.restated > 0
    assert "RESTATED" in outcome.line()
    rows = _table(lake, ALPHA, "restatements")
    returns = rows.filter(pl.col("field") == "return")
    assert returns.height > 0 and returns["date"].min() == runs.market.dates[end - 8]
    assert (returns["before"] != returns["after"]).all()  # both values kept, and they differ
    assert set(returns["previous_build_id"]) == {_current(republished, ALPHA).name}
    [restated_at] = set(rows["restated_at"])
    assert (
        T0 + dt.timedelta(days=15)
        <= restated_at.replace(tzinfo=dt.UTC)
        < T0 + dt.timedelta(days=15, minutes=10)
    )
    # The restated sessions keep the time they were first published: a restatement is not news.
    after = _table(lake, ALPHA, "known_sessions")
    assert after.select("dataset", "book", "date", "first_published_at").equals(
        before.select("dataset", "book", "date", "first_published_at")
    )


def test_an_older_run_is_refused_unless_forced_and_then_every_dropped_session_is_restated(
    republished: Path, runs: Runs, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    subprocess.run(["cp", "-r", str(republished), str(lake)], check=True)
    older = runs.seal(ALPHA, 6, "retried")  # yesterday's run, retried by a scheduler
    with pytest.raises(SealRejected) as refused:
        publish_seal(str(older), str(lake))
    assert refused.value.rule == ROLLBACK_RULE and "--allow-rollback" in refused.value.message
    served = _current(lake, ALPHA).name
    assert served == _current(republished, ALPHA).name  # nothing moved
    forced = publish_seal(str(older), str(lake), allow_rollback=True)
    assert forced.status == "published" and forced.detail and "allow-rollback" in forced.detail
    dropped = _table(lake, ALPHA, "restatements").filter(
        pl.col("after").is_null() & (pl.col("field") == "return")
    )
    first_end = runs.market.dates[int(runs.market.decision_sessions[-6])]
    assert dropped.height > 0 and dropped["date"].min() > first_end


def test_a_run_sealed_before_the_published_one_is_refused(
    republished: Path, runs: Runs, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    subprocess.run(["cp", "-r", str(republished), str(lake)], check=True)
    entry = json.loads((_current(lake, ALPHA) / "alpha.json").read_text())
    sealed = (dt.datetime.fromisoformat(entry["sealed_at"]) - dt.timedelta(days=1)).isoformat()
    with pytest.raises(SealRejected) as refused:
        publish_seal(str(runs.seal(ALPHA, 3, "early", sealed=sealed)), str(lake))
    assert refused.value.rule == ROLLBACK_RULE and "sealed at" in refused.value.message


def test_a_second_publish_of_the_alpha_at_the_same_time_loses_its_race(
    republished: Path, runs: Runs, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    subprocess.run(["cp", "-r", str(republished), str(lake)], check=True)
    storage = Storage(str(lake))
    with publish_lock.hold(storage, str(lake), ALPHA, "another-build"):
        outcome = publish_seal(str(runs.seal(ALPHA, 3, "racing")), str(lake))
    assert outcome.status == "lost_race" and "another-build" in (outcome.detail or "")
    assert _current(lake, ALPHA).name == _current(republished, ALPHA).name
    assert not (lake / "alphas" / ALPHA / "builds" / (outcome.build_id or "none")).exists()
    # The command line says so with its own exit code.
    with publish_lock.hold(storage, str(lake), ALPHA, "another-build"):
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", "build", str(runs.folder / "racing"), "--lake", str(lake)],
            capture_output=True,
            text=True,
        )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "lost race" in done.stdout


def served_build(lake: Path, alpha: str) -> str:
    """The build the catalogue index's newest generation serves for `alpha` (what the API reads)."""
    from pipeline.index_rows import current_rows

    rows = current_rows(str(lake))
    assert rows is not None
    return dict(zip(rows.column("alpha_id").to_pylist(), rows.column("build_id").to_pylist(), strict=True))[
        alpha
    ]


def killed_after_switch(republished: Path, runs: Runs, lake: Path) -> str:
    """A copy of `republished` at `lake` in which a publish of ALPHA was killed between its pointer
    switch and its catalogue commit (a deferred index, then the expired intent such a kill leaves):
    the switched build's id."""
    subprocess.run(["cp", "-r", str(republished), str(lake)], check=True)
    switched = publish_seal(str(runs.seal(ALPHA, 3, "killed")), str(lake), indexed=False)
    assert switched.status == "published" and switched.build_id is not None
    intent = {
        "alpha_id": ALPHA,
        "build_id": switched.build_id,
        "token": "killed",
        "state": "switched",
        "started_at": T0.isoformat(),
        "expires_at": 0.0,
    }
    (lake / "publishing").mkdir(exist_ok=True)
    (lake / "publishing" / f"{ALPHA}.json").write_text(json.dumps(intent))
    return switched.build_id


@pytest.mark.parametrize("command", [("lake", "gc", "--apply"), ("lake", "index")])
def test_a_publish_killed_after_its_switch_is_finished_by_gc_and_index(
    republished: Path, runs: Runs, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Finding 9: a publish killed between its pointer switch and the catalogue commit left the
    pointer naming a build the API did not serve. Its intent (expired, `switched`) is finished by
    `lake gc --apply` and by `lake index`: the catalogue then serves the pointer's build."""
    lake = tmp_path / "lake"
    before = served_build(republished, ALPHA)
    switched = killed_after_switch(republished, runs, lake)
    assert _current(lake, ALPHA).name == switched != served_build(lake, ALPHA) == before
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *command, "--lake", str(lake)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert served_build(lake, ALPHA) == _current(lake, ALPHA).name == switched
    assert not (lake / "publishing" / f"{ALPHA}.json").exists()


def test_a_week_of_scores_changed_by_a_rerun_is_restated_with_the_names_that_moved(
    runs: Runs, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    with clock.simulated(T0):
        publish_seal(str(runs.seal(SCORED, 5, "scored")), str(lake))
    end = int(runs.market.decision_sessions[-5])
    # A correction of the closes a month back moves the 1-month-skip momentum's scores since.
    corrected = runs.market.corrected(tuple(range(end - 260, end - 250)), 1.05)
    with clock.simulated(T0 + dt.timedelta(days=1)):
        outcome = publish_seal(str(runs.seal(SCORED, 5, "rescored", corrected)), str(lake))
    scores = _table(lake, SCORED, "restatements").filter(pl.col("field") == "scores")
    assert outcome.restated and scores.height > 0
    assert (scores["names_changed"] > 0).all() and scores["symbol"].is_not_null().all()
    assert layout.ALPHA_ID_PATTERN.fullmatch(SCORED)


def test_lake_gc_s_dry_run_lists_the_interrupted_publish_apply_finishes(
    republished: Path, runs: Runs, tmp_path: Path
) -> None:
    """Issue 81, item 9: `lake gc` without `--apply` names the interrupted publish `--apply` would
    finish (and finishes nothing)."""
    lake = tmp_path / "lake"
    switched = killed_after_switch(republished, runs, lake)
    served = served_build(lake, ALPHA)
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "lake", "gc", "--lake", str(lake)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"interrupted  the publish of {ALPHA} (build {switched}, started {T0.isoformat()}): "
        "--apply finishes it: the catalogue then serves its pointer's build"
    ) in done.stdout
    assert (lake / "publishing" / f"{ALPHA}.json").exists() and served_build(lake, ALPHA) == served
