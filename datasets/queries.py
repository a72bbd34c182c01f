"""Pages of one build by slicing its serving files: no statement, no scan of rows not asked for.

Every table is sorted by the keys requests select on (`datasets.serving_layout`), so a window of
dates is two binary searches, a week is its recorded row range, a book its recorded range, and a
page is a slice (or, for a filter or another order, a take of at most one week's rows or one
window's row ids). A page leaves as a `TablePage`: its Arrow columns, which the columnar
representations write as they are, and its rows as msgspec Structs (`datasets.rows`), made only
when asked for (JSON), encoded once by the caller.

A week's first page of default fields in its default order, the page most asked (a dashboard asks
it of each week), is written by the pipeline as its JSON bytes (`serving/first_pages.arrow`,
`first_page_data`) and served from the mapped file without a row made or encoded
(`PremadeRows`; issue 49, item 2).
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
from schemas.query import DEFAULT_LIMIT

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
    """A page's rows as the JSON the pipeline wrote (`first_page_data`): `json` goes into the
    envelope's `data` as it is (a view of the mapped file), `count` is how many rows it holds."""

    json: msgspec.Raw
    count: int

    def __len__(self) -> int:
        return self.count


FIRST_PAGE_LIMIT = DEFAULT_LIMIT
FIRST_PAGE_FIELDS = wire.visible_fields(wire.DECISION_FIELDS, False)
"""The page the pipeline writes for each week: the first `FIRST_PAGE_LIMIT` rows of the fields a
key without raw fields sees, in the default order (score descending, ticker tiebreak)."""
FIRST_PAGES = "first_pages"


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

    @property
    def envelope_rows(self) -> list[Any] | PremadeRows:
        """What the JSON envelope's `data` holds: the JSON the pipeline wrote of this page when it
        did (a week's first page), else the rows."""
        made = self._premade() if self._premade is not None else None
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


def _page_slice(table: pa.Table, start: int, stop: int, limit: int, offset: int) -> pa.Table:
    first = start + offset
    return table.slice(first, max(0, min(limit, stop - first)))


# -- signals --------------------------------------------------------------------------------------


def rebalance_index(
    view: BuildView, window: Window, fields: tuple[str, ...], limit: int, offset: int
) -> TablePage | None:
    table = view.table("rebalances")
    if table is None:
        return None
    a, b = window_bounds(day_numbers(table), window)
    return TablePage(_page_slice(table, a, b, limit, offset), fields, frozenset(), b - a)


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
    position: int | None = None  # row in rebalances.arrow (and first_pages.arrow) when found


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
        position=i if found else None,
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
    premade = None
    if (
        mask is None
        and offset == 0
        and limit == FIRST_PAGE_LIMIT
        and fields == FIRST_PAGE_FIELDS
        and omit == wire.OMIT_WHEN_NULL
        and query.sort_column == "score"
        and query.order == "desc"
    ):
        premade = functools.partial(_first_page, view, week, int(picked.size))
    return TablePage(block, fields, omit, int(chosen.size), picked, premade)


def first_page_data(decisions: pa.Table, rows: tuple[int, int]) -> bytes:
    """The JSON `data` of a week's first page (`FIRST_PAGE_FIELDS`, default order), made by the same
    rows and encoder as a page asked of the server: the pipeline writes it (`first_pages.arrow`)."""
    start, stop = rows
    block = decisions.slice(start, stop - start)
    picked = block.column("score_order").to_numpy()[:FIRST_PAGE_LIMIT] - start
    page = TablePage(block, FIRST_PAGE_FIELDS, wire.OMIT_WHEN_NULL, stop - start, picked)
    return msgspec.json.encode(page.rows)


def _first_page(view: BuildView, week: Week, count: int) -> PremadeRows | None:
    """The week's first page as the pipeline wrote it, a view of the mapped file; None for a build
    written before it (or a week without one): the rows are made as before."""
    table = view.table(FIRST_PAGES)
    if table is None or week.position is None or week.position >= table.num_rows:
        return None
    column = table.column("data")
    chunk = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if chunk.null_count and not chunk[week.position].is_valid:
        return None
    _, offsets, data = chunk.buffers()
    bounds = np.frombuffer(offsets, np.int32, 2, (chunk.offset + week.position) * 4)
    return PremadeRows(msgspec.Raw(memoryview(data)[int(bounds[0]) : int(bounds[1])]), count)


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
        return TablePage(_page_slice(table, a, b, limit, offset), fields, omit, b - a)
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
        return TablePage(_page_slice(table, a, b, limit, offset), fields, frozenset(), b - a)
    keep = pc.is_in(table.slice(a, b - a).column("symbol"), value_set=pa.array(list(symbols), pa.string()))
    chosen = np.flatnonzero(keep.fill_null(False).to_numpy(zero_copy_only=False)) + a
    picked = chosen[offset : offset + limit]
    return TablePage(table, fields, frozenset(), int(chosen.size), picked)


def all_rows(view: BuildView, table_name: str, fields: tuple[str, ...]) -> list[dict[str, Any]] | None:
    """Every row of a small table as dicts (books); None when absent."""
    table = view.table(table_name)
    if table is None:
        return None
    return shape_of(fields).dicts(table)


def page_of(rows: Sequence[Any] | np.ndarray, limit: int, offset: int) -> Page:
    """Page a sequence already in memory (catalogue, books) with the same rules as any page."""
    return Page(rows=list(rows[offset : offset + limit]), total=len(rows))
