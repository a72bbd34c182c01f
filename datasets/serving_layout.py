"""The serving layout: what the pipeline writes at publish time so a worker answers by slicing.

Every build gets `serving/` (docs/lake.md, "Serving files"):

- `decisions.arrow`: every decision row in `/scores` order (date, then symbol), so a window of
  scores is one contiguous slice and a row's position inside its week is its ticker tiebreak.
  `score_order` holds, for each week's block, the row ids of that week in the default order of
  a week page (`score` descending, nulls last, then `symbol`).
- `rebalances.arrow`: the rebalance index with each week's row range in `decisions.arrow`
  (`decisions_start`, `decisions_stop`); a week's neighbours are its index positions +-1.
- `portfolio|positions|pnl|trades.arrow`: every book's rows, sorted by book and then the
  endpoint's default order (date, symbol; trades: timestamp, symbol, phase, quantity); the
  row range of each book is in `index.json`, and inside it `date` ascends, so a window of
  sessions is two binary searches.
- not in the lake since pipeline 2.11.0: `decisions_json.arrow`, `portfolio|positions|pnl|trades_json.arrow`,
  row bytes, one row per row of the table of that name, a binary column per served field set
  (`datasets.queries.ROW_JSON`): the row's JSON as a page writes it, followed by a comma, so a page
  of any offset, order or filter is a slice or a take of them; and `decisions_json.arrow` a binary
  column per row part (`datasets.queries.ROW_PARTS`: a `/scores` core row's members after its
  date). Each worker derives them from the table by `row_json_serving` (`datasets.derived`);
  builds of pipeline 2.9 and 2.10 hold them in `serving/`, and are served from there.
- `equity_curve_json.arrow`: the equity rows' bytes, one row per row of `portfolio.arrow`
  (`analytics.series.EQUITY_ROWS`): each row's JSON before and after the values that restart at
  the window's first session, and the whole row of the book's whole curve (pipeline 2.10.0); a
  benchmark build's `daily_json.arrow`, each row of its whole daily series (`BENCHMARK_ROW_BYTES`).
- the small tables (`books`, `metrics_stored`, `weekly_*`, `analytics_*`) as they are, and a benchmark's `daily`.

Timestamps are stored as the ISO text the API serves (`YYYY-MM-DDTHH:MM:SSZ`), so no request
formats one. Files are uncompressed Arrow IPC of one record batch: a worker memory-maps them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from datasets import layout, queries
from datasets.writer import BuildWriter
from schemas import choices, lake, wire

WIRE_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

BOOK_TABLE_ORDERS: dict[str, tuple[tuple[str, str], ...]] = {
    "portfolio": wire.ORDER_PORTFOLIO,
    "positions": wire.ORDER_POSITIONS,
    "pnl": wire.ORDER_PNL,
    "trades": wire.ORDER_TRADES,
}
"""Physical order inside one book: the endpoint's default order."""

SMALL_TABLES = tuple(t.name for t in lake.TABLES if t.small)
"""The tables served as they are (`schemas.lake.TABLES`, serving "as_is")."""


def timestamps_as_text(table: pa.Table) -> pa.Table:
    """Every timestamp column as the ISO text the API serves (UTC, whole seconds)."""
    for index, column in enumerate(table.schema):
        if pa.types.is_timestamp(column.type):
            # Whole seconds, truncated, as the API has always served them.
            utc = table.column(index).cast(pa.timestamp("s", tz="UTC"), safe=False)
            text = pc.strftime(utc, format=WIRE_TIME_FORMAT)
            table = table.set_column(index, pa.field(column.name, pa.string()), text)
    return table


def decisions_serving(decisions: pa.Table) -> pa.Table:
    """Decision rows in `/scores` order, with `score_order` (each week's default page order)."""
    frame = pl.from_arrow(decisions)
    assert isinstance(frame, pl.DataFrame)
    ordered = frame.sort([name for name, _ in wire.ORDER_SCORES]).with_row_index("_row")
    # The default week page: `sort=score` in its default direction, ticker tiebreak, nulls last.
    descending = choices.REBALANCE_DEFAULT_ORDER["score"] == "desc"
    by_score = ordered.sort(
        ["date", "score", "symbol"], descending=[False, descending, False], nulls_last=True
    )
    ordered = ordered.drop("_row").with_columns(score_order=by_score["_row"].cast(pl.Int32))
    return timestamps_as_text(ordered.to_arrow())


def rebalances_serving(rebalances: pa.Table, decisions: pa.Table | None) -> pa.Table:
    """The rebalance index (date order) with each week's row range in `decisions.arrow`."""
    rebalances = rebalances.sort_by("date")
    if decisions is None:
        zeros = pa.array([0] * rebalances.num_rows, pa.int64())
        return rebalances.append_column("decisions_start", zeros).append_column("decisions_stop", zeros)
    days = decisions.column("date").cast(pa.int32()).to_numpy()
    wanted = rebalances.column("date").cast(pa.int32()).to_numpy()
    starts = days.searchsorted(wanted, side="left")
    stops = days.searchsorted(wanted, side="right")
    return rebalances.append_column("decisions_start", pa.array(starts, pa.int64())).append_column(
        "decisions_stop", pa.array(stops, pa.int64())
    )


def row_json_serving(table: str, served: pa.Table) -> pa.Table:
    """The row bytes of the serving table `table` (`<table>_json.arrow`), a column per field set
    and per row part."""
    return pa.table(
        {
            **{
                column: queries.row_json(served, fields, omit)
                for column, (fields, omit) in queries.ROW_JSON[table].items()
            },
            **{
                column: queries.row_parts(served, fields)
                for column, fields in queries.ROW_PARTS.get(table, {}).items()
            },
        }
    )


def book_table_serving(table: str, books: dict[str, pa.Table]) -> tuple[pa.Table, dict[str, list[int]]]:
    """All books of one table in one file (book by book, each in its default order), with the
    row range of each book."""
    order = [(name, "ascending" if way == "asc" else "descending") for name, way in BOOK_TABLE_ORDERS[table]]
    parts, ranges, start = [], {}, 0
    for book in sorted(books):
        part = books[book].sort_by(order)
        part = part.add_column(
            0, pa.field("book", pa.string()), pa.array([book] * part.num_rows, pa.string())
        )
        parts.append(part)
        ranges[book] = [start, start + part.num_rows]
        start += part.num_rows
    return timestamps_as_text(pa.concat_tables(parts)), ranges


ComputedServing = tuple[str, Callable[[pa.Table, dict[str, list[int]]], pa.Table]]
"""A serving file computed from a book table as written: the table's name, and the function of
its rows and book ranges that makes the file (the equity rows' bytes:
`analytics.series.equity_row_bytes` of `portfolio`)."""


class AlphaServing:
    """Writes `serving/` of one alpha build a table at a time (issue 78, item 5: a table's served
    rows are made, written and dropped before the next table's are made), from its
    published tables (cast to `schemas.lake`): `decisions` (with `rebalances`, whose index needs
    the decisions' rows), then each book table (`books`), then `finish` (the small tables and
    `index.json`). Each of `decisions` and `books` returns the tables it wrote (by name) and each
    book table's row ranges, from which the exports are written (`datasets.export_files.AlphaExports`);
    `computed` names each file made from a table the build has."""

    def __init__(
        self,
        writer: BuildWriter,
        build_dir: str,
        single: dict[str, pa.Table],
        computed: Mapping[str, ComputedServing] | None = None,
    ) -> None:
        self.writer, self.build_dir, self.single = writer, build_dir, single
        self.computed = dict(computed or {})
        self.index: dict[str, Any] = {"format": layout.SERVING_FORMAT, "tables": {}}

    def _write(self, name: str, table: pa.Table) -> None:
        self.writer.write_arrow(layout.serving_path(self.build_dir, name), table)
        self.index["tables"][name] = {"rows": table.num_rows}

    def _served(self, table: str, served: pa.Table, ranges: dict[str, list[int]] | None = None) -> None:
        """`table`'s serving file as written and the files computed from it."""
        self._write(table, served)
        if ranges is not None:
            self.index["tables"][table]["books"] = ranges
        for name, (source, make) in self.computed.items():
            if source == table:
                self._write(name, make(served, ranges or {}))

    def decisions(self, decisions: pa.Table | None) -> dict[str, pa.Table]:
        """`decisions.arrow` (when the build has decisions) and `rebalances.arrow`."""
        written: dict[str, pa.Table] = {}
        if decisions is not None:
            written["decisions"] = decisions_serving(decisions)
        if "rebalances" in self.single:
            written["rebalances"] = rebalances_serving(self.single["rebalances"], decisions)
        for table, served in written.items():
            self._served(table, served)
        return written

    def books(self, table: str, by_book: dict[str, pa.Table]) -> tuple[pa.Table, dict[str, list[int]]]:
        """One book table's file (every book) and what is made of it."""
        served, ranges = book_table_serving(table, by_book)
        self._served(table, served, ranges)
        return served, ranges

    def finish(self) -> None:
        for name in SMALL_TABLES:
            if name in self.single:
                self._write(name, self.single[name])
        self.writer.write_json(layout.serving_path(self.build_dir, layout.SERVING_INDEX), self.index)


def write_benchmark_serving(
    writer: BuildWriter,
    build_dir: str,
    daily: pa.Table,
    regimes: Callable[[pa.Table], pa.Table] | None = None,
    computed: Mapping[str, Callable[[pa.Table], pa.Table]] | None = None,
) -> pa.Table:
    """Writes `serving/` of one benchmark build; returns the daily table as written. `regimes`: the
    regimes of the served daily table (`schemas.lake.BENCHMARK_REGIMES`), written beside it;
    `computed`: each file (by name) a function of the served daily table makes (its row bytes:
    `analytics.series.benchmark_row_bytes`)."""
    served = daily.select(lake.BENCHMARK_DAILY.names).cast(lake.BENCHMARK_DAILY).sort_by("date")
    writer.write_arrow(layout.serving_path(build_dir, "daily"), served)
    tables = {"daily": {"rows": served.num_rows}}
    if regimes is not None:
        labelled = regimes(served).cast(lake.BENCHMARK_REGIMES)
        writer.write_arrow(layout.serving_path(build_dir, "regimes"), labelled)
        tables["regimes"] = {"rows": labelled.num_rows}
    for name, make in (computed or {}).items():
        made = make(served)
        writer.write_arrow(layout.serving_path(build_dir, name), made)
        tables[name] = {"rows": made.num_rows}
    index = {"format": layout.SERVING_FORMAT, "tables": tables}
    writer.write_json(layout.serving_path(build_dir, layout.SERVING_INDEX), index)
    return served
