"""Pages of one build by slicing its serving files: no statement, no scan of rows not asked for.

Every table is sorted by the keys requests select on (`datasets.serving_layout`), so a window of
dates is two binary searches, a week is its recorded row range, a book its recorded range, and a
page is a slice (or, for a filter or another order, a take of at most one week's rows or one
window's row ids). A page leaves as a `TablePage`: its Arrow columns, which the columnar
representations write as they are, and its rows as msgspec Structs (`datasets.rows`), made only
when asked for (JSON), encoded once by the caller.

A page of a table the pipeline also wrote as row bytes (`ROW_JSON`: each row's JSON for each served
field set, in `serving/<table>_json.arrow`; issue 61, item 1) is one slice or one `take` of those
bytes and one join (`PremadeRows`): no Python object per row, for the JSON envelope and NDJSON
alike. (Pipeline 2.4 to 2.8 wrote each week's first page whole, `first_pages.arrow`; the row bytes
serve every page, the first included, so 2.9 writes it no more.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from datasets.build_view import BuildView
from datasets.rows import date_at, day_number, floats, shape_of
from schemas import wire

Window = tuple[date | None, date | None]


class Paged(Protocol):
    """What a collection answer is made of: its rows and the total the window holds."""

    @property
    def rows(self) -> list[Any]: ...

    @property
    def total(self) -> int: ...


@dataclass(frozen=True)
class Page:
    rows: list[Any]
    total: int
    fields: tuple[str, ...] | None = None  # the columns of an empty page, when not the endpoint's


@dataclass(frozen=True, slots=True)
class PremadeRows:
    """A page's rows out of the row bytes the pipeline wrote (`ROW_JSON`): `json` goes into the
    envelope's `data` as it is, `count` is how many rows it holds, `lines()` the same rows as
    NDJSON."""

    json: msgspec.Raw
    count: int
    joined: bytes | memoryview  # each row's JSON followed by ROW_END
    ends: np.ndarray  # the position after each row's ROW_END in `joined`

    def __len__(self) -> int:
        return self.count

    def lines(self) -> bytes:
        """The rows as NDJSON (a newline after each)."""
        text = np.frombuffer(self.joined, np.uint8).copy()
        text[self.ends - 1] = ord("\n")
        return text.tobytes()


ROW_END = b","
"""What follows each row's JSON in the row bytes: the separator of the envelope's array, so the
bytes of consecutive rows are already a JSON array's inside."""

ROW_JSON: dict[str, dict[str, tuple[tuple[str, ...], frozenset[str]]]] = {
    "decisions": {
        "plain": (wire.visible_fields(wire.DECISION_FIELDS, False), wire.OMIT_WHEN_NULL),
        "raw": (wire.visible_fields(wire.DECISION_FIELDS, True), wire.OMIT_WHEN_NULL),
    },
    **{
        table: {"rows": (fields, frozenset())}
        for table, fields in (
            ("portfolio", wire.PORTFOLIO_FIELDS),
            ("positions", wire.POSITION_FIELDS),
            ("pnl", wire.PNL_FIELDS),
            ("trades", wire.TRADE_FIELDS),
        )
    },
}
"""The row bytes the pipeline writes (`serving/<table>_json.arrow`, a binary column per served
field set: its fields and those omitted when null): a week page's two field sets (with and without
raw fields) and each book table's. A page of another field set (`/scores`' `fields`) is made from
its rows."""


def row_json_table(table: str) -> str:
    """The serving file of `table`'s row bytes."""
    return f"{table}_json"


def row_json(table: pa.Table, fields: tuple[str, ...], omit: frozenset[str]) -> pa.Array:
    """Each row of `table` as the JSON a page of `fields` writes of it, followed by `ROW_END`:
    made by the same rows and encoder as a page asked of the server (the pipeline writes them)."""
    encode = msgspec.json.Encoder().encode
    made = [encode(row) + ROW_END for row in shape_of(fields, omit).rows(table)]
    # 64-bit offsets: a build of 10^4 names over twenty years of weeks holds more than 2 GiB of them.
    return pa.array(made, pa.large_binary())


def _row_bytes(view: BuildView, table: str, fields: tuple[str, ...], omit: frozenset[str]) -> pa.Array | None:
    """The mapped row bytes of `table` for this field set, one array; None when the build has none
    (written before pipeline 2.9.0) or the field set is not one the pipeline writes."""
    column = next((name for name, made in ROW_JSON.get(table, {}).items() if made == (fields, omit)), None)
    if column is None:
        return None

    def read() -> pa.Array | None:
        written = view.table(row_json_table(table))
        if written is None or column not in written.column_names:
            return None
        values = written.column(column)
        return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()

    found: pa.Array | None = view.memo(f"row_json:{table}:{column}", read)
    return found


def _made_once(
    view: BuildView, table: str, fields: tuple[str, ...], omit: frozenset[str], rows: np.ndarray | slice
) -> PremadeRows | None:
    """The page's rows out of the row bytes: `rows` the table's rows in page order (positions, or
    a range); None when the build has no row bytes for this field set."""
    made = _row_bytes(view, table, fields, omit)
    return None if made is None else premade_rows(made, rows)


def premade_rows(made: pa.Array, rows: np.ndarray | slice) -> PremadeRows:
    """The rows `rows` (positions in page order, or a range) of `made`, a `large_binary` array of
    row bytes each followed by `ROW_END`, as a page: one slice or one `take`, and one join."""
    if isinstance(rows, slice):
        start, stop = rows.start, max(rows.start, rows.stop)
        chunk = made
        first = start
    else:
        chunk = made.take(pa.array(rows, pa.int64()))
        start, stop, first = 0, len(rows), 0
    count = stop - start
    if count == 0:
        return PremadeRows(msgspec.Raw(b"[]"), 0, b"", np.zeros(0, np.int64))
    _, offsets, data = chunk.buffers()
    bounds = np.frombuffer(offsets, np.int64, count + 1, (chunk.offset + first) * 8)  # large_binary
    joined = memoryview(data)[int(bounds[0]) : int(bounds[-1])]
    json = b"".join((b"[", joined[: -len(ROW_END)], b"]"))
    return PremadeRows(msgspec.Raw(json), count, joined, bounds[1:] - bounds[0])


class TablePage:
    """A page cut from a serving table: `rows`, the page for JSON, made by the same column
    conversions as always; `table`, the same rows as the Arrow columns the lake stores, for the
    columnar representations. Each is made on first use only, so a JSON page never gathers Arrow
    columns and an Arrow page never makes a Python object per row."""

    def __init__(
        self,
        source: pa.Table,
        fields: tuple[str, ...],
        omit: frozenset[str],
        total: int,
        positions: np.ndarray | None = None,
        premade: Callable[[], PremadeRows | None] | None = None,
    ) -> None:
        self._source, self._positions = source, positions  # the page: `positions` of `source`, or all of it
        self._shape = shape_of(fields, omit)
        self.total = total
        self._premade = premade

    @functools.cached_property
    def rows(self) -> list[Any]:
        return self._shape.rows(self._source, self._positions)

    @property
    def returned(self) -> int:
        """The page's rows, counted without making them."""
        return self._source.num_rows if self._positions is None else len(self._positions)

    @functools.cached_property
    def made_once(self) -> PremadeRows | None:
        """The page out of the row bytes the pipeline wrote, when it did; None when its rows must
        be made."""
        return self._premade() if self._premade is not None else None

    @property
    def envelope_rows(self) -> list[Any] | PremadeRows:
        """What the JSON envelope's `data` holds: the JSON the pipeline wrote of this page when it
        did, else the rows."""
        made = self.made_once
        return self.rows if made is None else made

    @functools.cached_property
    def table(self) -> pa.Table:
        chosen = self._source.select(list(self._shape.fields))
        if self._positions is not None:
            chosen = chosen.take(pa.array(self._positions, pa.int64()))
        return chosen


def day_numbers(table: pa.Table, start: int = 0, stop: int | None = None) -> np.ndarray:
    """The `date` column of rows [start, stop) as days since 1970 (zero-copy over the mapping)."""
    column = table.column("date")
    chunk = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    days: np.ndarray = chunk.view(pa.int32()).to_numpy(zero_copy_only=chunk.null_count == 0)
    return days[start:stop]


def window_bounds(days: np.ndarray, window: Window) -> tuple[int, int]:
    """Positions [a, b) of the ascending `days` inside the inclusive window."""
    start, end = window
    a = 0 if start is None else int(np.searchsorted(days, day_number(start), side="left"))
    b = days.size if end is None else int(np.searchsorted(days, day_number(end), side="right"))
    return a, max(a, b)


def _page_rows(start: int, stop: int, limit: int, offset: int) -> slice:
    """The rows of a page of the range [start, stop) of a table in its stored order."""
    first = start + offset
    return slice(first, first + max(0, min(limit, stop - first)))


def _slice(table: pa.Table, rows: slice) -> pa.Table:
    return table.slice(rows.start, rows.stop - rows.start)


# -- signals --------------------------------------------------------------------------------------


def rebalance_index(
    view: BuildView, window: Window, fields: tuple[str, ...], limit: int, offset: int
) -> TablePage | None:
    table = view.table("rebalances")
    if table is None:
        return None
    a, b = window_bounds(day_numbers(table), window)
    return TablePage(_slice(table, _page_rows(a, b, limit, offset)), fields, frozenset(), b - a)


@dataclass(frozen=True)
class Week:
    """A rebalance date looked up in the index, with its neighbours (dates or None)."""

    found: bool
    week_status: str | None
    n_symbols: int | None
    first_rebalance: date | None
    last_rebalance: date | None
    previous_rebalance: date | None
    next_rebalance: date | None
    rows: tuple[int, int]  # row range in decisions.arrow


@dataclass(frozen=True)
class _Index:
    """The rebalance index of one build as Python values (a few hundred weeks), kept on its view."""

    days: np.ndarray
    week_status: list[str | None]
    n_symbols: list[int | None]
    starts: list[int]
    stops: list[int]


def _index(view: BuildView) -> _Index | None:
    def read() -> _Index | None:
        table = view.table("rebalances")
        if table is None:
            return None
        return _Index(
            days=day_numbers(table).copy(),
            week_status=table.column("week_status").to_pylist(),
            n_symbols=table.column("n_symbols").to_pylist(),
            starts=table.column("decisions_start").to_pylist(),
            stops=table.column("decisions_stop").to_pylist(),
        )

    return view.memo("rebalance_index", read)


def find_week(view: BuildView, day: date) -> Week | None:
    """`day` in the rebalance index; None when the build has no index."""
    index = _index(view)
    if index is None:
        return None
    days = index.days
    wanted = day_number(day)
    i = int(np.searchsorted(days, wanted, side="left"))
    found = i < days.size and int(days[i]) == wanted
    return Week(
        found=found,
        week_status=index.week_status[i] if found else None,
        n_symbols=index.n_symbols[i] if found else None,
        first_rebalance=date_at(days, 0),
        last_rebalance=date_at(days, days.size - 1),
        previous_rebalance=date_at(days, i - 1),
        next_rebalance=date_at(days, i + 1 if found else i),
        rows=(index.starts[i], index.stops[i]) if found else (0, 0),
    )


@dataclass(frozen=True)
class WeekQuery:
    symbols: Sequence[str] | None
    direction: int | None
    min_abs_weight: float | None
    weight_column: str
    sort_column: str  # score | average_rank | symbol | a target-weight column
    order: str  # asc | desc


def _mask(block: pa.Table, query: WeekQuery) -> np.ndarray | None:
    conditions = []
    if query.symbols is not None:
        conditions.append(
            pc.is_in(block.column("symbol"), value_set=pa.array(list(query.symbols), pa.string()))
        )
    if query.direction is not None:
        conditions.append(pc.equal(block.column("direction"), query.direction))
    if query.min_abs_weight is not None:
        conditions.append(pc.greater_equal(pc.abs(block.column(query.weight_column)), query.min_abs_weight))
    if not conditions:
        return None
    keep = conditions[0]
    for condition in conditions[1:]:
        keep = pc.and_kleene(keep, condition)
    mask: np.ndarray = keep.fill_null(False).to_numpy(zero_copy_only=False)
    return mask


def week_page(
    view: BuildView,
    week: Week,
    query: WeekQuery,
    fields: tuple[str, ...],
    omit: frozenset[str],
    limit: int,
    offset: int,
) -> TablePage | None:
    """A page of one week in `query`'s order, with a ticker tiebreak; None without decisions.

    Rows of a week are stored in ticker order, so a row's position in the week is its tiebreak."""
    table = view.table("decisions")
    if table is None:
        return None
    start, stop = week.rows
    block = table.slice(start, stop - start)
    mask = _mask(block, query)
    if query.sort_column == "score" and query.order == "desc":  # the default, precomputed
        chosen = block.column("score_order").to_numpy() - start
    elif query.sort_column == "symbol":
        chosen = np.arange(block.num_rows) if query.order == "asc" else np.arange(block.num_rows)[::-1]
    else:
        values = floats(block.column(query.sort_column))
        # Nulls (NaN) sort last in both directions, as NULLS LAST does; ties by ticker.
        keys = values if query.order == "asc" else -values
        chosen = np.lexsort((np.arange(block.num_rows), keys))
    if mask is not None:
        chosen = chosen[mask[chosen]]
    picked = chosen[offset : offset + limit]
    premade = functools.partial(_made_once, view, "decisions", fields, omit, picked + start)
    return TablePage(block, fields, omit, int(chosen.size), picked, premade)


def scores_page(
    view: BuildView,
    window: Window,
    symbols: Sequence[str] | None,
    fields: tuple[str, ...],
    omit: frozenset[str],
    limit: int,
    offset: int,
) -> TablePage | None:
    """Decision rows of a window in (date, symbol) order, the stored order; None without decisions."""
    table = view.table("decisions")
    if table is None:
        return None
    a, b = window_bounds(day_numbers(table), window)
    if symbols is None:
        return TablePage(_slice(table, _page_rows(a, b, limit, offset)), fields, omit, b - a)
    keep = pc.is_in(table.slice(a, b - a).column("symbol"), value_set=pa.array(list(symbols), pa.string()))
    chosen = np.flatnonzero(keep.fill_null(False).to_numpy(zero_copy_only=False)) + a
    picked = chosen[offset : offset + limit]
    return TablePage(table, fields, omit, int(chosen.size), picked)


# -- books ----------------------------------------------------------------------------------------


def book_page(
    view: BuildView,
    table_name: str,
    book: str,
    window: Window,
    symbols: Sequence[str] | None,
    fields: tuple[str, ...],
    limit: int,
    offset: int,
) -> TablePage | None:
    """Rows of one book in a window, in the table's default order; None when the table is absent."""
    table = view.table(table_name)
    if table is None:
        return None
    found = view.book_range(table_name, book)
    if found is None:
        return TablePage(table.slice(0, 0), fields, frozenset(), 0)
    low, high = found
    a, b = window_bounds(day_numbers(table, low, high), window)
    a, b = a + low, b + low
    if symbols is None:
        stored = _page_rows(a, b, limit, offset)
        rows: np.ndarray | slice = stored
        total, source, picked = b - a, _slice(table, stored), None
    else:
        keep = pc.is_in(
            table.slice(a, b - a).column("symbol"), value_set=pa.array(list(symbols), pa.string())
        )
        chosen = np.flatnonzero(keep.fill_null(False).to_numpy(zero_copy_only=False)) + a
        rows = picked = chosen[offset : offset + limit]
        total, source = int(chosen.size), table
    premade = functools.partial(_made_once, view, table_name, fields, frozenset(), rows)
    return TablePage(source, fields, frozenset(), total, picked, premade)


def all_rows(view: BuildView, table_name: str, fields: tuple[str, ...]) -> list[dict[str, Any]] | None:
    """Every row of a small table as dicts (books); None when absent."""
    table = view.table(table_name)
    if table is None:
        return None
    return shape_of(fields).dicts(table)


def page_of(rows: Sequence[Any] | np.ndarray, limit: int, offset: int) -> Page:
    """Page a sequence already in memory (catalogue, books) with the same rules as any page."""
    return Page(rows=list(rows[offset : offset + limit]), total=len(rows))
