"""The open tables (issue 78): a publish writes only what changed, records the before and after
values of every replaced row in the same commit, and happens or does not: killed before any of
its commits (each table's, then the generation's), readers resolving through the generations read
the previous build's rows, every table of it; the next publish (or, killed after the pointer switch,
the finishing of its intent) makes them the new build's.

The factory seal of 10 weeks, then the same seed's 11 weeks (a weekly run: new sessions, and the
factory's simulation moves some past values, so the second publish appends, replaces and deletes)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable
from polars.testing import assert_frame_equal

from alpha_results_seal.storage import Storage
from datasets import publish_lock, tables
from datasets.pins import Pinned
from pipeline import lake_tables
from pipeline.publish import finish_interrupted_publishes, publish_seal
from schemas import lake
from tests.pipeline.factory import weekly_runs
from tests.support.build_tables import derived_from_seal

ALPHA = "Test_factory"
NAMES = [t.name for t in lake.TABLES]
MOVING = ("build_id", "first_build_id", "previous_build_id", "first_published_at", "restated_at")
"""What differs between two publishes of one seal: the build ids and the times of our clock."""


class Killed(Exception):
    pass


@pytest.fixture(scope="module")
def seals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return weekly_runs(tmp_path_factory.mktemp("seals"), ALPHA)


@pytest.fixture(scope="module")
def first(seals: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lake holding the first run."""
    lake = tmp_path_factory.mktemp("first") / "lake"
    assert publish_seal(str(seals[0]), str(lake)).status == "published"
    return lake


def content(lake: Path, keep_moving: bool = True) -> dict[str, pl.DataFrame]:
    """Every table's rows of the alpha as readers resolve them now, sorted."""
    out = {}
    for name in NAMES:
        frame = tables.scan(str(lake), name, targets=[ALPHA]).collect()
        if not keep_moving:
            frame = frame.drop([c for c in MOVING if c in frame.columns])
        out[name] = frame.sort(frame.columns) if frame.width else frame
    return out


def assert_same(found: dict[str, pl.DataFrame], expected: dict[str, pl.DataFrame]) -> None:
    for name in NAMES:
        if expected[name].height == 0:  # no rows: the table may exist by then, or not
            assert found[name].height == 0, name
            continue
        assert found[name].equals(expected[name]), name


@pytest.fixture(scope="module")
def second(
    seals: tuple[Path, Path], first: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[str]]:
    """The second run published over a copy of `first`, and the commits it made, in order."""
    lake = shutil.copytree(first, tmp_path_factory.mktemp("second") / "lake")
    steps: list[str] = []
    lake_tables.before_commit = steps.append
    try:
        assert publish_seal(str(seals[1]), str(lake)).status == "published"
    finally:
        lake_tables.before_commit = lake_tables._no_step
    return lake, steps


def sealed_rows(seal: Path, table: str) -> pl.DataFrame:
    """The seal's rows of a book table, every book, as a publish derives them from the seal alone
    (`derived_from_seal`: no lake, no diff): what the tables must hold after the incremental publish."""
    frames = dict(lake_tables.alpha_frames(derived_from_seal(seal)))
    found = frames[table]
    assert found is not None, table
    return found


def test_a_weekly_run_writes_what_changed_and_its_before_and_after_values(
    seals: tuple[Path, Path], first: Path, second: tuple[Path, list[str]]
) -> None:
    lake, steps = second
    assert steps[-1] == "generation" and len(steps) == len(set(steps))
    # The first build's rows merged with what changed equal the second run's rows derived from its
    # seal alone, every book.
    for table in ("portfolio", "positions", "pnl", "trades"):
        mine = (
            tables.scan(str(lake), table, targets=[ALPHA])
            .collect()
            .drop("alpha", "year", "build_id", strict=False)
        )
        files = sealed_rows(seals[1], table)
        assert mine.height == files.height > 0, table  # a table missing from either is no match
        files = files.select(mine.columns)
        assert mine.sort(mine.columns).equals(files.sort(files.columns)), table
    # Decisions: forward returns of the past weeks moved; the feed holds both values, and the
    # second generation's rows hold the "after", the first's the "before".
    path = tables.table_path(str(lake), "decisions")
    named = tables.versions(str(lake), table="decisions").filter(pl.col("target") == ALPHA)["version"][0]
    before_version = tables.versions(str(first), table="decisions").filter(pl.col("target") == ALPHA)[
        "version"
    ][0]
    assert named > before_version
    feed = pl.from_arrow(
        pa.table(
            DeltaTable(path).load_cdf(starting_version=before_version + 1, ending_version=named).read_all()
        )
    )
    assert isinstance(feed, pl.DataFrame)
    kinds = set(feed["_change_type"])
    assert {"insert", "update_preimage", "update_postimage"} <= kinds
    pre = feed.filter(pl.col("_change_type") == "update_preimage").sort("date", "symbol")
    post = feed.filter(pl.col("_change_type") == "update_postimage").sort("date", "symbol")
    assert pre.height == post.height > 0
    old = tables.scan(str(first), "decisions", targets=[ALPHA]).collect()
    new = tables.scan(str(lake), "decisions", targets=[ALPHA]).collect()
    keys = ["date", "symbol"]
    assert pre.select(old.columns).equals(old.join(pre.select(keys), on=keys, how="semi").sort(keys))
    assert post.select(new.columns).equals(new.join(post.select(keys), on=keys, how="semi").sort(keys))
    # Only what changed was written: inserted rows are the new week's, the rest untouched.
    inserted = feed.filter(pl.col("_change_type") == "insert")
    assert inserted["date"].min() > old["date"].max()  # type: ignore[operator]
    untouched = new.join(feed.select(keys), on=keys, how="anti")
    assert set(untouched["build_id"]) == set(old["build_id"])


@pytest.mark.slow
def test_a_publish_killed_before_any_commit_did_not_happen_and_the_next_one_does(
    seals: tuple[Path, Path], first: Path, second: tuple[Path, list[str]], tmp_path: Path
) -> None:
    before = content(first)
    after = content(second[0], keep_moving=False)
    steps = second[1]
    for kill_at in range(len(steps)):
        lake = shutil.copytree(first, tmp_path / f"k{kill_at}")
        calls: list[str] = []

        def step(name: str, calls: list[str] = calls, kill_at: int = kill_at) -> None:
            if len(calls) == kill_at:
                raise Killed(name)
            calls.append(name)

        lake_tables.before_commit = step
        try:
            with pytest.raises(Killed):
                publish_seal(str(seals[1]), str(lake))
        finally:
            lake_tables.before_commit = lake_tables._no_step
        # Readers through the generations: the first build's rows, every table, byte for byte.
        assert_same(content(lake), before)
        if steps[kill_at] == "generation":
            # Killed after its pointer switch: the intent is finished once it expired.
            intent = publish_lock.intent_path(str(lake), ALPHA)
            document = json.loads(Path(intent).read_text())
            Path(intent).write_text(json.dumps({**document, "expires_at": time.time() - 1}))
            assert finish_interrupted_publishes(str(lake)) == [ALPHA]
        else:
            assert publish_seal(str(seals[1]), str(lake)).status == "published"
        assert_same(content(lake, keep_moving=False), after)
        # The pointer (what the API serves) and every table's generation name one build.
        pointer = json.loads((lake / "alphas" / ALPHA / "_current.json").read_text())["build_id"]
        named = tables.versions(str(lake)).filter(pl.col("target") == ALPHA)
        assert named.height == len(NAMES) and set(named["build_id"]) == {pointer}, kill_at


def test_vacuum_deletes_what_no_kept_version_reads_and_a_pin_keeps_its_version(
    first: Path, second: tuple[Path, list[str]], tmp_path: Path
) -> None:
    before = content(first)
    then = tables.generations(str(second[0])).filter(pl.col("target") == ALPHA)["committed_at"].min()
    first_build = json.loads((first / "alphas" / ALPHA / "_current.json").read_text())["build_id"]

    # Pinned: the first build's versions stay readable, nothing they read is deleted.
    lake = shutil.copytree(second[0], tmp_path / "pinned")
    pin = Pinned(alphas={ALPHA: frozenset({first_build})})
    assert lake_tables.vacuum(str(lake), 0.0, pin, delete=True, floor_seconds=0.0) == []
    assert_same(content_as_of(lake, then), before)

    # Not pinned, no history kept: the files only the first build's versions read are deleted (a
    # dry run lists them first), the current rows are whole.
    lake = shutil.copytree(second[0], tmp_path / "unpinned")
    listed = lake_tables.vacuum(str(lake), 0.0, Pinned(), delete=False, floor_seconds=0.0)
    assert listed
    deleted = lake_tables.vacuum(str(lake), 0.0, Pinned(), delete=True, floor_seconds=0.0)
    assert sorted(deleted) == sorted(listed)
    assert_same(content(lake), content(second[0]))
    with pytest.raises(Exception):  # noqa: B017 - delta-rs raises its own I/O error for a vacuumed file
        content_as_of(lake, then)


def content_as_of(lake: Path, moment: Any) -> dict[str, pl.DataFrame]:
    out = {}
    for name in NAMES:
        frame = tables.scan(str(lake), name, as_of=moment, targets=[ALPHA]).collect()
        out[name] = frame.sort(frame.columns) if frame.width else frame
    return out


def test_vacuum_keeps_what_the_generation_reads_after_a_publish_failed_before_its_switch(
    seals: tuple[Path, Path], first: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A publish that fails (or is killed) after its table commits and before its pointer switch
    leaves commits no generation names, which replaced files the alpha's generation still reads:
    the vacuum keeps them, whatever the history retention, until a publish of the alpha names a
    newer version."""
    before = content(first)
    lake = shutil.copytree(first, tmp_path / "lake")

    def killed(*_: Any, **__: Any) -> None:
        raise Killed("switch")

    monkeypatch.setattr("pipeline.publish.switch_pointer", killed)
    with pytest.raises(Killed):
        publish_seal(str(seals[1]), str(lake))
    monkeypatch.undo()
    # The failed publish replaced rows: the decisions' head is past the version its generation names.
    named = tables.versions(str(lake), table="decisions").filter(pl.col("target") == ALPHA)["version"][0]
    assert DeltaTable(tables.table_path(str(lake), "decisions")).version() > named
    lake_tables.vacuum(str(lake), 0.0, Pinned(), delete=True, floor_seconds=0.0)
    assert_same(content(lake), before)
    # The next publish names the newer versions: what only the failed one's commits replaced goes.
    assert publish_seal(str(seals[1]), str(lake)).status == "published"
    assert lake_tables.vacuum(str(lake), 0.0, Pinned(), delete=True, floor_seconds=0.0)
    assert_same(content(lake, keep_moving=False), content(publish_second(seals, first, tmp_path), False))


def publish_second(seals: tuple[Path, Path], first: Path, tmp_path: Path) -> Path:
    lake = shutil.copytree(first, tmp_path / "again")
    assert publish_seal(str(seals[1]), str(lake)).status == "published"
    return lake


def test_a_benchmark_publish_killed_after_its_switch_is_finished_by_its_next_run(tmp_path: Path) -> None:
    """A benchmark's publish has no intent to finish: killed between its pointer switch and its
    generation, the next run of the same seal (served unchanged) commits the generation, so the
    tables' readers and the pointer name one build."""
    from tests.pipeline.factory import write_benchmark_seal

    lake = tmp_path / "lake"
    assert (
        publish_seal(str(write_benchmark_seal(tmp_path / "v1", sessions=30)), str(lake)).status == "published"
    )
    seal = write_benchmark_seal(tmp_path / "v2", sessions=31)

    def step(name: str) -> None:
        if name == "generation":
            raise Killed(name)

    lake_tables.before_commit = step
    try:
        with pytest.raises(Killed):
            publish_seal(str(seal), str(lake))
    finally:
        lake_tables.before_commit = lake_tables._no_step
    pointer = json.loads((lake / "benchmarks" / "SPY" / "_current.json").read_text())["build_id"]
    named = tables.versions(str(lake), table=tables.BENCHMARK_DAILY).filter(
        pl.col("target") == "benchmark:SPY"
    )
    assert named["build_id"].to_list() != [pointer]  # killed: the generation names the first build
    publish_seal(str(seal), str(lake))
    named = tables.versions(str(lake), table=tables.BENCHMARK_DAILY).filter(
        pl.col("target") == "benchmark:SPY"
    )
    assert named["build_id"].to_list() == [pointer]
    daily = tables.scan(str(lake), tables.BENCHMARK_DAILY, targets=["benchmark:SPY"]).collect()
    assert daily.height == 31


def test_a_second_publish_of_a_benchmark_stops_before_it_writes(tmp_path: Path) -> None:
    """A benchmark's publish holds the symbol's publish lock, as an alpha's holds the alpha's: a
    second publish of SPY while one runs is `lost_race` and writes nothing (no build folder, no
    table commit, the pointer unchanged), instead of failing on the open tables' commit conflict."""
    from tests.pipeline.factory import write_benchmark_seal

    lake = tmp_path / "lake"
    first = publish_seal(str(write_benchmark_seal(tmp_path / "v1", sessions=30)), str(lake))
    assert first.status == "published"
    pointer = (lake / "benchmarks" / "SPY" / "_current.json").read_text()
    builds = sorted(p.name for p in (lake / "benchmarks" / "SPY" / "builds").iterdir())
    versions = tables.versions(str(lake), table=tables.BENCHMARK_DAILY)
    storage = Storage(str(lake))
    path = publish_lock.benchmark_intent_path(str(lake), "SPY")
    with publish_lock.hold(storage, str(lake), "benchmark:SPY", "running", path=path):
        second = publish_seal(str(write_benchmark_seal(tmp_path / "v2", sessions=31)), str(lake))
    assert second.status == "lost_race", second
    assert "another publish" in (second.detail or "")
    assert (lake / "benchmarks" / "SPY" / "_current.json").read_text() == pointer
    assert sorted(p.name for p in (lake / "benchmarks" / "SPY" / "builds").iterdir()) == builds
    assert_frame_equal(tables.versions(str(lake), table=tables.BENCHMARK_DAILY), versions)
    assert not (lake / "publishing" / "benchmarks" / "SPY.json").exists()  # released
    assert (
        publish_seal(str(write_benchmark_seal(tmp_path / "v3", sessions=31)), str(lake)).status == "published"
    )


def test_the_demo_lake_s_tables_open_from_a_checkpoint_and_still_travel_to_every_version(
    demo_lake: Path,
) -> None:
    """The demo's 56 publishes: every table of ten commits or more has a checkpoint (a reader opens
    it and the commits after it), no commit was dropped from the log (`as_of` reads any version),
    and every version of the portfolio reads the rows its commit wrote: a checkpoint changes no
    answer."""
    checkpointed = 0
    for path in sorted((demo_lake / "tables").iterdir()):
        delta = DeltaTable(str(path))
        log = path / "_delta_log"
        commits = sorted(log.glob("*.json"))
        assert [int(c.stem) for c in commits] == list(range(delta.version() + 1)), path.name
        if delta.version() >= 9:
            assert (log / "_last_checkpoint").exists(), path.name
            checkpointed += 1
    assert checkpointed >= 20  # the alpha tables (at least one commit per publish of most alphas)
    portfolio = str(demo_lake / "tables" / "portfolio")
    rows = [pl.read_delta(portfolio, version=v).height for v in range(DeltaTable(portfolio).version() + 1)]
    history = DeltaTable(portfolio).history()
    written = {h["version"]: h.get("operationMetrics", {}) for h in history}
    for version in range(1, len(rows)):
        metrics = written[version]
        added = int(metrics.get("num_added_rows", metrics.get("num_target_rows_inserted", 0)) or 0)
        removed = int(metrics.get("num_target_rows_deleted", 0) or 0)
        assert rows[version] == rows[version - 1] + added - removed, version
