"""A publish reads the build it replaces from the open tables (issue 78: the build's own Parquet is
no longer what knowledge time depends on), and from the build's Parquet only where the tables do not
hold that build (a lake published before them, whose builds held their Parquet: made here with
`write_legacy_parquet`): both give the same `known_sessions` and `restatements`, row for row and in
the same order."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import time
from pathlib import Path

import polars as pl
import pytest

from alpha_results_seal.demo.alphas import alpha_spec
from alpha_results_seal.demo.corpus import write_seal
from alpha_results_seal.demo.engine import run_alpha
from alpha_results_seal.demo.market import Market, simulate_market
from datasets import clock, publish_lock, tables
from pipeline import knowledge, lake_tables
from pipeline.publish import publish_seal
from schemas.lake import ROW_KEYS
from tests.support.build_tables import build_table, derived_from_seal, open_table_rows, write_legacy_parquet

SCORED = "Test_small_universe"  # a small demo alpha with ledgers and weekly scores
T0 = dt.datetime(2022, 1, 10, 6, tzinfo=dt.UTC)


def _build(lake: Path) -> Path:
    build = json.loads((lake / "alphas" / SCORED / "_current.json").read_text())["build_id"]
    return lake / "alphas" / SCORED / "builds" / build


def _no_parquet(build: Path) -> None:
    """The build holds no Parquet of its own rows (pipeline 2.12.0): only its serving files,
    exports and JSON; the next publish can read it from the open tables alone."""
    assert {p.name for p in build.iterdir() if p.is_dir()} <= {"serving", "exports"}, build
    assert not [p for p in build.iterdir() if p.suffix == ".parquet"], build


def _ordinal(frame: pl.DataFrame, builds: dict[str, str]) -> pl.DataFrame:
    """Build ids (random per publish) replaced by the publish's ordinal, so two lakes compare."""
    columns = [c for c in ("build_id", "previous_build_id", "first_build_id") if c in frame.columns]
    return frame.with_columns(pl.col(c).replace_strict(builds, default=None) for c in columns)


def _play(seals: list[Path], folder: Path, source: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Publishes `seals` a day apart, each predecessor read from `source` only ("tables": the
    build holds no Parquet; "parquet": its Parquet written as a pipeline before 2.12.0 wrote it,
    then the open tables removed); returns the last build's `known_sessions` and `restatements`,
    build ids as ordinals."""
    lake = folder / source
    builds: dict[str, str] = {}
    for day, seal in enumerate(seals):
        if day:
            if source == "tables":
                _no_parquet(_build(lake))
            else:
                write_legacy_parquet(_build(lake))
                shutil.rmtree(lake / tables.TABLES_DIR)
        with clock.simulated(T0 + dt.timedelta(days=day)):
            outcome = publish_seal(str(seal), str(lake))
        assert outcome.status == "published", outcome.line()
        builds[str(outcome.build_id)] = f"build {day}"
    last = _build(lake)
    known = build_table(last, "known_sessions")
    restated = build_table(last, "restatements")
    return _ordinal(known, builds), _ordinal(restated, builds)


@pytest.fixture(scope="module")
def seals(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three runs of one alpha: the first, a rerun over corrected closes a month back (scores and
    returns restated), then a week later over other corrections (restated again, on top)."""
    market: Market = simulate_market("small", 7)
    folder = tmp_path_factory.mktemp("seals")
    end = int(market.decision_sessions[-5])
    once = market.corrected(tuple(range(end - 260, end - 250)), 1.05)
    twice = once.corrected((end - 8, end - 7, end - 6), 1.01)
    runs = [(market, 5), (once, 5), (twice, 4)]
    return [
        write_seal(
            run_alpha(alpha_spec(SCORED), m, "small", 7, end=int(market.decision_sessions[-week])),
            folder / f"run{i}",
        )
        for i, (m, week) in enumerate(runs)
    ]


def test_the_predecessor_read_from_the_open_tables_is_the_one_its_parquet_holds(
    seals: list[Path], tmp_path: Path
) -> None:
    known_tables, restated_tables = _play(seals, tmp_path, "tables")
    known_parquet, restated_parquet = _play(seals, tmp_path, "parquet")
    # Restated twice: the second run's rows are carried by the third build, beside its own.
    assert restated_tables["build_id"].unique().sort().to_list() == ["build 1", "build 2"]
    assert set(restated_tables["field"]) >= {"return", "scores"}
    # Sessions keep the first build's time: read from the tables, not dated anew.
    assert known_tables["first_build_id"].value_counts().height >= 2
    assert known_tables.filter(pl.col("first_build_id") == "build 0").height > 0
    assert known_tables.equals(known_parquet)
    assert restated_tables.equals(restated_parquet)
    assert restated_tables.equals(restated_tables.sort(knowledge.RESTATEMENT_ORDER, nulls_last=False))


def test_the_tables_give_a_build_s_rows_only_for_the_build_their_generation_names(
    seals: list[Path], tmp_path: Path
) -> None:
    """The rows the tables give for the build their generation names are the build's rows there
    (read apart, with polars, at the versions its generation names), table by table, in the row
    key's order; for any other build name they give none (the caller then reads that build's
    Parquet)."""
    lake = tmp_path / "lake"
    with clock.simulated(T0):
        first = publish_seal(str(seals[0]), str(lake))
    assert knowledge.predecessor_rows(str(lake), SCORED, "0" * 20) is None
    found = knowledge.predecessor_rows(str(lake), SCORED, str(first.build_id))
    build = _build(lake)
    on_disk = {spec.name: open_table_rows(build, spec.name) for spec in knowledge.PREDECESSOR_SPECS}
    assert found is not None and found.decisions is not None and on_disk["decisions"].height
    keys = list(ROW_KEYS["decisions"])
    assert found.decisions.equals(on_disk["decisions"].select(found.decisions.columns).sort(keys))
    portfolio = on_disk["portfolio"].partition_by("book", as_dict=True, include_key=False)
    assert sorted(found.books["portfolio"]) == sorted(book for (book,) in portfolio)
    for book, frame in found.books["portfolio"].items():
        assert frame.equals(portfolio[(book,)].select(frame.columns).sort("date")), book
    # A table with no rows of the build (its first publish restated nothing) is absent, not empty.
    held = sorted(
        name for name, frame in on_disk.items() if frame.height and name not in ("decisions", "portfolio")
    )
    assert sorted(found.single) == held == ["known_sessions", "metrics_stored"]
    for name, frame in found.single.items():
        keys = list(ROW_KEYS[name])
        expected = on_disk[name].select(frame.columns)
        assert frame.equals(expected.sort(keys, nulls_last=False)), name


def test_a_publish_that_breaks_a_killed_publish_s_expired_intent_reads_that_build_from_the_tables(
    seals: list[Path], tmp_path: Path
) -> None:
    """A publish killed after its pointer switch, before its generation; its intent expires and
    the next publish of the alpha breaks it: that publish names the killed build's generation
    first, then reads the killed build (from the tables) as the one it replaces."""
    lake = tmp_path / "lake"
    root = str(lake)
    _, killed = _killed_after_switch(seals, root)
    assert killed not in set(tables.generations(root)["build_id"])
    with clock.simulated(T0 + dt.timedelta(days=2)):
        outcome = publish_seal(str(seals[2]), root)
    assert outcome.status == "published", outcome.line()
    assert killed in set(tables.generations(root)["build_id"])
    restated = build_table(_build(lake), "restatements")
    ours = restated.filter(pl.col("build_id") == str(outcome.build_id))
    assert ours.height and set(ours["previous_build_id"]) == {killed}


class _Killed(Exception):
    """A publish stopped before a commit (`lake_tables.before_commit`)."""


def _killed_after_switch(seals: list[Path], root: str) -> tuple[str, str]:
    """The first seal published, the second killed after its pointer switch, before its generation,
    its intent expired: (the served build, the killed build the pointer names)."""
    with clock.simulated(T0):
        served = str(publish_seal(str(seals[0]), root).build_id)

    def killed_at_generation(name: str) -> None:
        if name == "generation":
            raise _Killed(name)

    lake_tables.before_commit = killed_at_generation
    try:
        with clock.simulated(T0 + dt.timedelta(days=1)), pytest.raises(_Killed):
            publish_seal(str(seals[1]), root)
    finally:
        lake_tables.before_commit = lake_tables._no_step
    intent = Path(publish_lock.intent_path(root, SCORED))
    intent.write_text(json.dumps({**json.loads(intent.read_text()), "expires_at": time.time() - 1}))
    return served, _build(Path(root)).name


def test_a_killed_build_no_generation_could_name_is_replaced_as_the_served_build(
    seals: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed publish's build that its finish cannot name (`lake_tables._holds` refuses: its
    commits are not the tables' newest) was never served, and holds no rows of its own (pipeline
    2.12.0): the next publish replaces the build the newest generation names, the one the API
    served. Its sessions keep their first times and its restatements name that build; before the
    mend the predecessor read from the killed build's folder was empty, so every session was dated
    anew and nothing was restated."""
    root = str(tmp_path / "lake")
    served, killed = _killed_after_switch(seals, root)
    monkeypatch.setattr(lake_tables, "finish_generation", lambda *_: False)
    with clock.simulated(T0 + dt.timedelta(days=2)):
        outcome = publish_seal(str(seals[2]), root)
    assert outcome.status == "published", outcome.line()
    assert killed not in set(tables.generations(root)["build_id"])
    last = _build(tmp_path / "lake")
    known = build_table(last, "known_sessions")
    assert known.filter(pl.col("first_build_id") == served).height > 0
    assert killed not in set(known["first_build_id"])
    restated = build_table(last, "restatements")
    ours = restated.filter(pl.col("build_id") == str(outcome.build_id))
    assert ours.height and set(ours["previous_build_id"]) == {served}


def test_a_publish_over_lost_tables_fails_loud(seals: list[Path], tmp_path: Path) -> None:
    """The pointer names a build whose rows are in the open tables only, and the tables are gone:
    the publish stops with the reason, rather than carry nothing of the build it replaces."""
    lake = tmp_path / "lake"
    with clock.simulated(T0):
        publish_seal(str(seals[0]), str(lake))
    shutil.rmtree(lake / tables.TABLES_DIR)
    with (
        clock.simulated(T0 + dt.timedelta(days=1)),
        pytest.raises(knowledge.PredecessorUnreadable) as refused,
    ):
        publish_seal(str(seals[1]), str(lake))
    assert "tables/ folder is missing or damaged" in str(refused.value)


def test_a_generation_is_named_for_a_build_only_when_the_tables_hold_its_commits(
    seals: list[Path], tmp_path: Path
) -> None:
    """Finishing a publish killed after its switch names the tables' current versions for its
    build: only when the alpha's newest commits are that build's. Another build's name, or an alpha
    the tables never held (published before them), gets no generation, so a publish never reads
    another build's rows as the one it replaces."""
    lake = tmp_path / "lake"
    root = str(lake)
    with clock.simulated(T0):
        assert publish_seal(str(seals[0]), root).status == "published"
    count = tables.generations(root).height
    assert not lake_tables.finish_generation(root, SCORED, "f" * 20)
    assert not lake_tables.finish_generation(root, "Test_never_published", "e" * 20)
    assert tables.generations(root).height == count
    # A publish's table commits with no generation (killed after its switch): named by a finish.
    killed = "d" * 20
    lake_tables.publish_alpha(root, SCORED, killed, derived_from_seal(seals[1]))
    # Another publish's commits since (it broke the killed one's expired intent, then failed): the
    # current versions hold its rows, not the killed build's.
    on_disk = tmp_path / "before_other"
    shutil.copytree(lake, on_disk)
    lake_tables.publish_alpha(root, SCORED, "c" * 20, derived_from_seal(seals[2]))
    assert not lake_tables.finish_generation(root, SCORED, killed)
    shutil.rmtree(lake)
    shutil.copytree(on_disk, lake)
    assert lake_tables.finish_generation(root, SCORED, killed)
    assert set(tables.versions(root).filter(pl.col("target") == SCORED)["build_id"]) == {killed}
    found = knowledge.predecessor_rows(root, SCORED, killed)
    assert found is not None and found.books["portfolio"] and found.decisions is not None
    assert found.decisions.height == derived_from_seal(seals[1]).decisions.height  # type: ignore[union-attr]


def test_the_generations_stay_few_files_with_every_row(tmp_path: Path) -> None:
    """Every publish appends a file to `_generations`, which every publish reads whole: past
    `OPEN_FILES` they are compacted, the rows (and so every moment's versions) unchanged."""
    from deltalake import DeltaTable

    root = str(tmp_path / "lake")
    for n in range(lake_tables.OPEN_FILES + 3):
        written = lake_tables.Written(versions={"decisions": n, "portfolio": None})
        lake_tables.commit_generation(
            root, f"alpha_{n % 5}", f"{n:020x}", written, T0 + dt.timedelta(hours=n)
        )
    files = DeltaTable(tables.generations_path(root)).file_uris()
    assert len(files) <= lake_tables.OPEN_FILES
    rows = tables.generations(root).sort("committed_at", "table")
    assert rows.height == 2 * (lake_tables.OPEN_FILES + 3)
    assert rows.filter(pl.col("table") == "decisions")["version"].to_list() == list(
        range(lake_tables.OPEN_FILES + 3)
    )
    moment = T0 + dt.timedelta(hours=10, minutes=30)
    at = tables.versions(root, moment, "decisions").sort("target")
    assert at["build_id"].to_list() == [f"{n:020x}" for n in (10, 6, 7, 8, 9)]
