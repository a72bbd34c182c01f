"""The open tables on S3 (issue 78, item 1): a publish into an object store writes the same Delta
tables as into a folder, a reader travels to an earlier generation there, the change data feed holds
both values of a replaced row, and processes publishing different alphas at once all commit (delta-rs'
conditional PUT, `datasets.tables.storage_options`), against a real S3-compatible server (moto)."""

from __future__ import annotations

import datetime as dt
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable

from alpha_results_seal.storage import Storage
from datasets import clock, layout, tables
from pipeline import lake_tables
from pipeline.lake_convert import convert
from pipeline.publish import publish_seal
from schemas import lake as lake_schema
from tests.health_wait import HANG_LIMIT
from tests.pipeline.factory import weekly_runs, write_factory_seal
from tests.support.build_tables import write_legacy_parquet

pytestmark = pytest.mark.s3

ALPHA = "Test_factory"
MOVING = ("build_id", "first_build_id", "previous_build_id", "first_published_at", "restated_at")
"""What differs between two lakes publishing the same seals: build ids and our clock's times."""
FIRST, SECOND = dt.datetime(2024, 3, 4, 21, tzinfo=dt.UTC), dt.datetime(2024, 3, 11, 21, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def seals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return weekly_runs(tmp_path_factory.mktemp("seals"), ALPHA)


def publish_both(seals: tuple[Path, Path], root: str) -> None:
    for seal, moment in zip(seals, (FIRST, SECOND), strict=True):
        with clock.simulated(moment):
            assert publish_seal(str(seal), root).status == "published"


def content(root: str, as_of: dt.datetime | None = None) -> dict[str, pl.DataFrame]:
    """Every table's rows of the alpha as readers resolve them (now, or at `as_of`), without the
    columns that name builds or our clock's times."""
    out = {}
    for table in (t.name for t in lake_schema.TABLES):
        frame = tables.scan(root, table, as_of=as_of, targets=[ALPHA]).collect()
        frame = frame.drop([c for c in MOVING if c in frame.columns])
        out[table] = frame.sort(frame.columns) if frame.width else frame
    return out


def test_a_publish_into_s3_writes_the_tables_a_folder_gets_and_travels_back(
    s3_bucket: str, seals: tuple[Path, Path], tmp_path: Path
) -> None:
    root, local = f"s3://{s3_bucket}/lake", str(tmp_path / "lake")
    publish_both(seals, root)
    publish_both(seals, local)
    # Every table, now and as of the first publish, row for row what the folder lake holds.
    between = FIRST + dt.timedelta(days=1)
    for moment in (None, between):
        remote, there = content(root, moment), content(local, moment)
        assert {t for t, f in remote.items() if f.height} == {t for t, f in there.items() if f.height}
        for table, frame in there.items():
            assert remote[table].equals(frame), (table, moment)
    assert content(root)["decisions"].height > content(root, between)["decisions"].height > 0
    # What the weekly run replaced is in the change data feed on S3, before and after.
    versions = tables.versions(root, table="decisions").filter(pl.col("target") == ALPHA)["version"]
    earlier = tables.versions(root, between, table="decisions").filter(pl.col("target") == ALPHA)["version"]
    delta = DeltaTable(tables.table_path(root, "decisions"), storage_options=tables.storage_options(root))
    feed = pl.from_arrow(
        pa.table(delta.load_cdf(starting_version=earlier[0] + 1, ending_version=versions[0]).read_all())
    )
    assert isinstance(feed, pl.DataFrame)
    kinds = feed["_change_type"].value_counts()
    counts = dict(zip(kinds["_change_type"], kinds["count"], strict=True))
    assert counts.get("update_preimage", 0) == counts.get("update_postimage", 0) > 0, counts
    assert counts.get("insert", 0) > 0, counts


def publish_one(seal: str, root: str) -> str:
    """One alpha's publish in its own (spawned) process: delta-rs crashes in a forked one."""
    return publish_seal(seal, root).status


def test_processes_publishing_different_alphas_into_s3_at_once_all_commit(
    s3_bucket: str, tmp_path: Path
) -> None:
    root = f"s3://{s3_bucket}/lake"
    alphas = [f"Test_s3_{n}" for n in range(3)]
    seals = [str(write_factory_seal(tmp_path / a, alpha_id=a, weeks=6, seed=n)) for n, a in enumerate(alphas)]
    with ProcessPoolExecutor(len(seals), mp_context=multiprocessing.get_context("spawn")) as pool:
        statuses = list(pool.map(publish_one, seals, [root] * len(seals), timeout=HANG_LIMIT))
    assert statuses == ["published"] * len(seals)
    # Every table holds every alpha's rows (no commit lost to another), and each alpha's newest
    # generation names a version of each table that holds them.
    for table in ("decisions", "positions", "portfolio", "trades", "metrics_stored"):
        held = tables.scan(root, table).select("alpha").unique().collect()["alpha"].to_list()
        assert sorted(held) == alphas, table
    named = tables.versions(root, table="positions")
    assert sorted(named["target"].to_list()) == alphas and named["version"].null_count() == 0
    # The table's log is one line of versions: each commit its own, none overwritten.
    history = DeltaTable(
        tables.table_path(root, "positions"), storage_options=tables.storage_options(root)
    ).history()
    assert sorted(h["version"] for h in history) == list(range(len(history)))
    assert len([h for h in history if h.get("operation") != "CREATE TABLE"]) >= len(alphas) - 1


def test_a_commit_another_process_overtook_on_s3_is_made_over_the_new_version(
    s3_bucket: str, tmp_path: Path
) -> None:
    """A race made certain: just before the first alpha's publish commits to `positions`, a second
    process publishes another alpha whole (its commits take the version the first was about to
    write); the first's commit then lands over the new version, and both alphas' rows are read."""
    root = f"s3://{s3_bucket}/lake"
    first, other = "Test_s3_first", "Test_s3_other"
    seal = write_factory_seal(tmp_path / first, alpha_id=first, weeks=6)
    other_seal = write_factory_seal(tmp_path / other, alpha_id=other, weeks=6, seed=5)
    assert publish_seal(str(write_factory_seal(tmp_path / "base", alpha_id="Test_s3_base")), root).status == (
        "published"
    )
    path = tables.table_path(root, "positions")
    options = tables.storage_options(root)
    overtaken: list[int] = []

    def overtake(table: str) -> None:
        if table != "positions" or overtaken:
            return
        overtaken.append(DeltaTable(path, storage_options=options).version())
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            assert pool.submit(publish_one, str(other_seal), root).result(timeout=HANG_LIMIT) == "published"
        assert DeltaTable(path, storage_options=options).version() > overtaken[0]

    lake_tables.before_commit = overtake
    try:
        assert publish_seal(str(seal), root).status == "published"
    finally:
        lake_tables.before_commit = lake_tables._no_step
    assert overtaken, "the publish made no commit to positions"
    held = tables.scan(root, "positions").select("alpha").unique().collect()["alpha"].to_list()
    assert sorted(held) == sorted(["Test_s3_base", first, other])
    named = tables.versions(root, table="positions").filter(pl.col("target") == first)["version"][0]
    assert named > overtaken[0] + 1  # committed after the other process's version, not over it
    at_named = pl.scan_delta(path, version=named, storage_options=options).select("alpha").unique().collect()
    assert sorted(at_named["alpha"].to_list()) == sorted(["Test_s3_base", first, other])


def test_a_lake_on_s3_whose_tables_are_gone_is_converted_to_the_same_tables(
    s3_bucket: str, seals: tuple[Path, Path]
) -> None:
    """`alpha-results lake convert` on S3 (pipeline/lake_convert.py): the build folders (holding
    their Parquet as a pipeline before 2.12.0 wrote it) and catalogue generations in the bucket give
    back the tables the publishes wrote, now and as of the first."""
    root = f"s3://{s3_bucket}/converted"
    publish_both(seals, root)
    between = SECOND - dt.timedelta(hours=1)
    published = {moment: content(root, moment) for moment in (None, between)}
    assert 0 < published[between]["portfolio"].height < published[None]["portfolio"].height  # two builds
    storage = Storage(root)
    builds = storage.list_names(layout.alpha_builds_dir(root, ALPHA))
    assert len(builds) == 2
    for build_id in builds:
        write_legacy_parquet(layout.alpha_build_dir(root, ALPHA, build_id))
    storage.fs.rm(f"{root}/tables", recursive=True)
    assert tables.generations(root).height == 0
    done = list(convert(root))
    assert [(d.target, len(d.builds)) for d in done] == [(ALPHA, 2)]
    for moment, expected in published.items():
        found = content(root, moment)
        for table, rows in expected.items():
            assert found[table].equals(rows), (table, moment)
