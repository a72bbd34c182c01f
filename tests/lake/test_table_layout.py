"""How an alpha's rows lie in the open tables' files (issue 78; `pipeline.lake_tables.FILE_BYTES`):
every file of every alpha is in every reader's and writer's log of a table, so an alpha's files must
stay few: a closed year is one file, the open partition (the latest year; the whole alpha in a
table without years) holds at most `OPEN_FILES`, and compacting them changes no row and records no
change. The factory alpha, run weekly across a year's end."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable
from deltalake.exceptions import CommitFailedError
from polars.testing import assert_frame_equal

from datasets import tables
from pipeline import lake_tables
from pipeline.publish import publish_seal
from tests.pipeline.factory import write_factory_seal

ALPHA = "Test_layout"
YEAR = re.compile(r"/year=(\d+)/")


def files(root: Path, table: str, alpha: str = ALPHA) -> Counter[int | None]:
    """The alpha's files of `table` at its current version, counted by year (None: no years)."""
    delta = DeltaTable(tables.table_path(str(root), table))
    found = delta.file_uris(file_pruning_predicate=f"alpha = '{alpha}'")
    if table not in tables.YEAR_TABLES:
        return Counter({None: len(found)})
    return Counter(int(m.group(1)) for f in found if (m := YEAR.search(f)))


def stored(root: Path, table: str) -> pl.DataFrame:
    frame = tables.scan(str(root), table, targets=[ALPHA]).collect().drop(tables.BUILD_COLUMN)
    return frame.sort(frame.columns)


def publish(root: Path, seals: Path, weeks: int) -> None:
    seal = write_factory_seal(seals / f"w{weeks}", alpha_id=ALPHA, weeks=weeks)
    assert publish_seal(str(seal), str(root)).status == "published"


def test_a_closed_year_is_one_file_for_the_first_alpha_of_a_table_and_the_next(tmp_path: Path) -> None:
    root = tmp_path / "lake"
    other = write_factory_seal(tmp_path / "other", alpha_id="Test_layout_first", weeks=60)
    assert publish_seal(str(other), str(root)).status == "published"  # creates every table
    publish(root, tmp_path, 60)  # 2023-01-06 to 2024-02-23: appended to tables that exist
    laid = 0
    for table in sorted(tables.YEAR_TABLES):
        for alpha in (ALPHA, "Test_layout_first"):
            counts = files(root, table, alpha)
            if not counts:
                continue
            for year in counts:
                if year is not None and year < max(y for y in counts if y is not None):
                    assert counts[year] == 1, (table, alpha, counts)
            laid += set(counts) == {2023, 2024}
    assert laid >= 8  # decisions, positions, pnl, trades, attribution at least, for both alphas


def test_weekly_appends_across_a_years_end_keep_the_files_few_and_the_rows_and_changes_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The positions of a 60-week alpha appended a few weeks at a time, as weekly runs that move no
    past value append them."""
    monkeypatch.setattr(lake_tables, "OPEN_FILES", 3)  # a few weekly appends reach it
    publish(tmp_path / "built", tmp_path, 60)
    positions = stored(tmp_path / "built", "positions").drop(tables.ALPHA_COLUMN, tables.YEAR_COLUMN)
    root = str(tmp_path / "lake")
    cuts = sorted(positions["date"].unique().to_list())[::5][1:] + [positions["date"].max()]
    seen: list[Counter[int | None]] = []
    for n, cut in enumerate(cuts):
        rows = positions.filter(pl.col("date") <= cut)
        written = lake_tables.Written()
        lake_tables.publish_target(root, "positions", ALPHA, f"build-{n}", rows, written)
        assert written.changed["positions"]["updated"] == written.changed["positions"]["deleted"] == 0
        counts = files(Path(root), "positions")
        seen.append(counts)
        latest = max(y for y in counts if y is not None)
        assert counts[latest] <= 3, (cut, counts)  # the open year: compacted past OPEN_FILES
        assert all(c == 1 for y, c in counts.items() if y is not None and y < latest), (cut, counts)
    assert any(max(c.values()) == 3 for c in seen)  # it did grow to the bound before compacting
    history = DeltaTable(tables.table_path(root, "positions")).history()
    assert sum(commit["operation"] == "OPTIMIZE" for commit in history) >= 2  # within 2023, and at its end
    assert seen[-1][2023] == 1 and seen[-1][2024] >= 1
    # The rows are every appended row, once; compacting recorded no change.
    found = pl.read_delta(tables.table_path(root, "positions")).drop(
        tables.ALPHA_COLUMN, tables.YEAR_COLUMN, tables.BUILD_COLUMN
    )
    # No generation names these commits: the table is read at its latest version.
    expected = positions.sort(positions.columns)
    assert_frame_equal(found.select(positions.columns).sort(positions.columns), expected)
    delta = DeltaTable(tables.table_path(root, "positions"))
    feed = pl.from_arrow(pa.table(delta.load_cdf(starting_version=0).read_all()))
    assert isinstance(feed, pl.DataFrame)
    assert feed["_change_type"].unique().to_list() == ["insert"]
    assert feed.height == positions.height


def test_a_compaction_that_meets_a_concurrent_commit_is_left_to_the_next_publish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compaction is housekeeping: a conflict skips it, the publish's rows are committed and named."""
    publish(tmp_path / "built", tmp_path, 12)
    positions = stored(tmp_path / "built", "positions").drop(tables.ALPHA_COLUMN, tables.YEAR_COLUMN)
    root = str(tmp_path / "lake")
    monkeypatch.setattr(lake_tables, "OPEN_FILES", 1)
    first = lake_tables.Written()
    lake_tables.publish_target(root, "positions", ALPHA, "b0", positions.head(100), first)

    def conflict(*_: object) -> bool:
        raise CommitFailedError("a concurrent commit")

    monkeypatch.setattr(lake_tables, "_compact", conflict)
    written = lake_tables.Written()
    lake_tables.publish_target(root, "positions", ALPHA, "b1", positions, written)
    assert written.changed["positions"]["inserted"] == positions.height - 100
    named = pl.read_delta(tables.table_path(root, "positions"), version=written.versions["positions"])
    assert named.height == positions.height  # the version named holds every row, compacted or not
    assert files(Path(root), "positions")[2023] == 2  # left for the next publish
