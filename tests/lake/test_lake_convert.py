"""`alpha-results lake convert` (issue 78, item 7): a lake whose open tables are gone (as one
published before them has none) gets them back from its build folders and catalogue generations,
every table of every target row for row what its publishes wrote, now and as of every moment the
catalogue kept; the change data feed records what each replayed build changed; a second run changes
nothing; a build retention removed starts the target's history after it.

The factory alpha's two weekly runs and a benchmark, published as `tests/lake/test_open_tables.py`
publishes them."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import shutil
from collections import Counter
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable

from alpha_results_seal.storage import Storage
from cli.main import main
from datasets import catalogue_index, layout, tables
from pipeline import lake_tables
from pipeline.publish import publish_seal
from schemas import lake
from tests.pipeline.factory import weekly_runs, write_benchmark_seal
from tests.support.build_tables import build_table, write_legacy_parquet

ALPHA = "Test_convert"
TARGETS = [ALPHA, "benchmark:SPY"]
NAMES = [*(t.name for t in lake.TABLES), tables.BENCHMARK_DAILY]


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lake holding the benchmark and both runs, published with the open tables; the alpha's
    build folders also hold the Parquet a pipeline before 2.12.0 wrote of their rows (what `lake
    convert` replays once the tables are gone)."""
    seals = tmp_path_factory.mktemp("seals")
    first, second = weekly_runs(seals, ALPHA)
    root = tmp_path_factory.mktemp("published") / "lake"
    for seal in (write_benchmark_seal(seals / "spy"), first, second):
        assert publish_seal(str(seal), str(root)).status == "published"
    builds = sorted(Path(layout.alpha_builds_dir(str(root), ALPHA)).iterdir())
    assert len(builds) == 2
    for build in builds:
        write_legacy_parquet(build)
    return root


def moments(root: Path) -> list:
    """Each catalogue generation's moment: when the API began serving what it names."""
    storage = Storage(str(root))
    found = [
        catalogue_index.read_generation(storage, str(root), number)
        for number, _ in catalogue_index.listed_generations(storage, str(root))
    ]
    return [g.known for g in found if g is not None]


def rows(root: Path, table: str, as_of=None) -> pl.DataFrame:
    frame = tables.scan(str(root), table, as_of, targets=TARGETS).collect()
    return frame.sort(frame.columns) if frame.width else frame


def converted(published: Path, into: Path) -> tuple[Path, str]:
    """A copy of the lake without its open tables, then `lake convert` run on it; its output."""
    root = Path(shutil.copytree(published, into))
    shutil.rmtree(root / "tables")
    return root, run_convert(root)


def run_convert(root: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["lake", "convert", "--lake", str(root)]) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def replayed(published: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return converted(published, tmp_path_factory.mktemp("converted") / "lake")


def test_every_table_is_what_the_publishes_wrote_now_and_at_every_kept_moment(
    published: Path, replayed: tuple[Path, str]
) -> None:
    root, output = replayed
    assert f"converted  {ALPHA}:" in output and "converted  benchmark:SPY:" in output
    assert "3 builds replayed" in output  # the benchmark's, then the alpha's two
    kept = moments(published)
    assert len(kept) >= 3
    compared = 0
    for as_of in [None, *kept]:
        for table in NAMES:
            expected = rows(published, table, as_of)
            found = rows(root, table, as_of)
            assert found.height == expected.height, (table, as_of)
            if expected.height:
                assert found.equals(expected), (table, as_of)
                compared += expected.height
    assert compared > 10_000
    # Before the first generation the catalogue kept, the API answers nothing: neither do the tables.
    assert rows(root, "portfolio", kept[0] - dt.timedelta(microseconds=1)).height == 0


def test_the_generations_are_dated_when_the_api_served_each_build(replayed: tuple[Path, str]) -> None:
    root, _ = replayed
    generations = tables.generations(str(root)).filter(pl.col("target") == ALPHA)
    dated = generations.group_by("build_id").agg(pl.col("committed_at").first()).sort("committed_at")
    storage = Storage(str(root))
    starts: dict[str, object] = {}
    for number, _ in catalogue_index.listed_generations(storage, str(root)):
        generation = catalogue_index.read_generation(storage, str(root), number)
        assert generation is not None
        index = catalogue_index.read_index(storage, str(root), generation, ["alpha_id", "build_id"])
        for alpha, build in zip(index["alpha_id"].to_pylist(), index["build_id"].to_pylist(), strict=True):
            if alpha == ALPHA:
                starts.setdefault(build, generation.known)
    assert dict(zip(dated["build_id"], dated["committed_at"], strict=True)) == starts
    assert dated.height == 2


def test_the_change_data_feed_records_what_the_second_build_changed(
    published: Path, replayed: tuple[Path, str]
) -> None:
    root, _ = replayed
    changed = 0
    for table in NAMES:
        path = tables.table_path(str(root), table)
        original = tables.table_path(str(published), table)
        if not Path(path).exists():
            assert not Path(original).exists(), table
            continue

        found = change_kinds(path, table)
        assert found == change_kinds(original, table), table
        changed += found["update_postimage"] + found["delete"]
    assert changed > 0  # the factory's second run moves past values: replayed, they are recorded


def change_kinds(path: str, table: str) -> Counter:
    """How many rows of each change type the table's change data feed holds for the targets."""
    feed = pl.from_arrow(pa.table(DeltaTable(path).load_cdf(starting_version=0).read_all()))
    assert isinstance(feed, pl.DataFrame)
    feed = feed.filter(pl.col(tables.partition_column(table)).is_in([ALPHA, "SPY"]))
    return Counter(feed["_change_type"].to_list())


def test_a_second_run_changes_nothing(replayed: tuple[Path, str]) -> None:
    root, _ = replayed
    before = {t: DeltaTable(tables.table_path(str(root), t)).version() for t in ("positions", "_generations")}
    output = run_convert(root)
    assert f"skipped    {ALPHA}: the open tables know every build of it" in output
    assert "0 builds replayed" in output
    after = {t: DeltaTable(tables.table_path(str(root), t)).version() for t in ("positions", "_generations")}
    assert after == before


def test_a_build_retention_removed_starts_the_history_after_it(
    published: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    copy = Path(shutil.copytree(published, tmp_path_factory.mktemp("retained") / "lake"))
    shutil.rmtree(copy / "tables")
    first = tables.generations(str(published)).filter(pl.col("target") == ALPHA).sort("committed_at")
    shutil.rmtree(layout.alpha_build_dir(str(copy), ALPHA, first["build_id"][0]))
    output = run_convert(copy)
    assert "2 builds replayed" in output  # the benchmark's, and the alpha's second
    kept = moments(published)
    # While the removed build was served, the tables do not know the alpha; then its second build.
    second = tables.versions(str(copy)).filter(pl.col("target") == ALPHA)["committed_at"][0]
    served_first = [m for m in kept if m < second]
    assert served_first
    assert rows(copy, "portfolio", served_first[-1]).filter(pl.col("alpha") == ALPHA).height == 0
    assert rows(copy, "portfolio").equals(rows(published, "portfolio"))


class Killed(Exception):
    pass


def test_a_conversion_killed_between_two_builds_finishes_by_running_it_again(
    published: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = Path(shutil.copytree(published, tmp_path_factory.mktemp("killed") / "lake"))
    shutil.rmtree(copy / "tables")
    generations = 0

    def kill_at_the_second_generation(what: str) -> None:  # the alpha's first build's, then its second's
        nonlocal generations
        generations += what == "generation"
        if generations == 2:
            raise Killed

    monkeypatch.setattr(lake_tables, "before_commit", kill_at_the_second_generation)
    with pytest.raises(Killed):
        run_convert(copy)
    monkeypatch.setattr(lake_tables, "before_commit", lambda _: None)
    # Killed there, the tables serve the alpha's first build as its current one: not yet converted.
    assert set(tables.versions(str(copy)).filter(pl.col("target") == ALPHA)["build_id"]) != set(
        tables.versions(str(published)).filter(pl.col("target") == ALPHA)["build_id"]
    )
    assert "2 builds replayed" in run_convert(copy)  # the alpha's second, the benchmark's
    for as_of in [None, *moments(published)]:
        for table in NAMES:
            assert rows(copy, table, as_of).equals(rows(published, table, as_of)), (table, as_of)


def test_builds_served_before_the_open_tables_are_replayed_behind_the_publishes_since(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """An alpha published once before the open tables (its tables gone), then again with them: the
    conversion adds the first build's history; what is served now stays the second publish's."""
    seals = tmp_path_factory.mktemp("seals_before")
    first, second = weekly_runs(seals, ALPHA)
    root = tmp_path_factory.mktemp("before") / "lake"
    assert publish_seal(str(first), str(root)).status == "published"
    (first_folder,) = Path(layout.alpha_builds_dir(str(root), ALPHA)).iterdir()
    expected = build_table(first_folder, "portfolio")  # what the first publish wrote, every book
    write_legacy_parquet(first_folder)  # a build of a pipeline before the open tables
    shutil.rmtree(root / "tables")
    assert publish_seal(str(second), str(root)).status == "published"
    now = rows(root, "portfolio")
    output = run_convert(root)
    assert "1 build replayed" in output
    served = tables.generations(str(root)).filter(pl.col("target") == ALPHA).sort("committed_at")
    assert served.group_by("build_id").len().height == 2
    first_build, first_moment = served["build_id"][0], served["committed_at"][0]
    assert first_build == first_folder.name
    assert rows(root, "portfolio").equals(now)
    at_first = rows(root, "portfolio", first_moment).drop("alpha", "build_id")
    expected = expected.select(at_first.columns)
    assert at_first.height > 0
    assert at_first.equals(expected.sort(expected.columns))


def test_a_build_whose_rows_are_in_the_lost_tables_only_is_refused(published: Path, tmp_path: Path) -> None:
    """A build of pipeline 2.12.0 on holds no rows of its own: with the tables lost, its target is
    refused (the command fails, saying why), never replayed empty; the other targets convert."""
    root = Path(shutil.copytree(published, tmp_path / "lake"))
    shutil.rmtree(root / "tables")
    pointer = json.loads(Path(layout.alpha_pointer(str(root), ALPHA)).read_text())
    newest = Path(layout.alpha_build_dir(str(root), ALPHA, pointer["build_id"]))
    entry = newest / layout.ALPHA_JSON
    entry.write_text(
        entry.read_text().replace('"pipeline_version": "2.11.0"', '"pipeline_version": "2.12.0"')
    )
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["lake", "convert", "--lake", str(root)]) == 1
    assert f"refused    {ALPHA}: build {newest.name} was published by pipeline 2.12.0" in err.getvalue()
    assert "converted  benchmark:SPY:" in out.getvalue()
    assert ALPHA not in set(tables.generations(str(root))["target"])
