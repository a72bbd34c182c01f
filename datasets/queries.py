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
serve every page, the first included, so 2.9 writes it no more.) A `/scores` row is its date and a
decision row's fields: `fields=all` is the date joined to the decision row's bytes, `fields=core`
the date joined to the row parts the pipeline writes for it (`ROW_PARTS`, pipeline 2.10), by Arrow
compute over the page's rows only.
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

from datasets import spool
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
raw fields) and each book table's. A `/scores` row with `fields=all` is a week row after its date
(`dated_rows`)."""

_SCORE_CORE_AFTER_DATE = {
    raw: tuple(f for f in wire.visible_fields(wire.SCORE_CORE_FIELDS, raw) if f != "date")
    for raw in (False, True)
}

ROW_PARTS: dict[str, dict[str, tuple[str, ...]]] = {
    "decisions": {
        "core": _SCORE_CORE_AFTER_DATE[False],
        "core_raw_only": tuple(
            f for f in _SCORE_CORE_AFTER_DATE[True] if f not in _SCORE_CORE_AFTER_DATE[False]
        ),
    },
}
"""Row parts the pipeline writes beside the row bytes (`serving/<table>_json.arrow`, a binary column
each, pipeline 2.10): each row's members of these fields as a page writes them, a comma before each
(`,"symbol":"AAPL","score":0.5`), no braces. A field set led by `date` whose other fields are parts
in this order is served as the date and the parts joined (`dated_rows`): `/scores`' `core` rows
without raw fields are `core`, with them `core` and `core_raw_only` (`raw_score` is the last core
field, so a raw key's row is the plain row and one member more, not a second copy of the row). A
part holds no field omitted when null (such a part is not used: its rows are made)."""

DATE_MEMBER = b'{"date":"'
ROW_CLOSE = b"}" + ROW_END
TO_THE_END = 1 << 40
"""A stop past any row for `pyarrow.compute.binary_slice`: without one (or with `sys.maxsize`)
pyarrow 26 fails ("Negative buffer resize")."""


def row_json_table(table: str) -> str:
    """The serving file of `table`'s row bytes."""
    return f"{table}_json"


def row_json(table: pa.Table, fields: tuple[str, ...], omit: frozenset[str]) -> pa.Array:
    """Each row of `table` as the JSON a page of `fields` writes of it, followed by `ROW_END`:
    made by the same rows and encoder as a page asked of the server (the pipeline writes them)."""
    encode = msgspec.json.Encoder().encode
    shape = shape_of(fields, omit)

    def made(part: pa.Table) -> pa.Array:
        # 64-bit offsets: a build of 10^4 names over twenty years of weeks holds more than 2 GiB of them.
        return pa.array([encode(row) + ROW_END for row in shape.rows(part)], pa.large_binary())

    return _by_chunk(table, made)


def row_parts(table: pa.Table, fields: tuple[str, ...]) -> pa.Array:
    """Each row of `table` as its members of `fields` (`ROW_PARTS`): the JSON a page writes of the
    row without its braces, a comma before it, by the same rows and encoder as `row_json`."""
    encode = msgspec.json.Encoder().encode
    shape = shape_of(fields)

    def made(part: pa.Table) -> pa.Array:
        return pa.array([b"," + encode(row)[1:-1] for row in shape.rows(part)], pa.large_binary())

    return _by_chunk(table, made)


ROW_BYTES_CHUNK = 65_536
"""Rows made at a time by `row_json` and `row_parts`: the Python objects of a row (its values, its
Struct, its bytes) live for one chunk, not for the whole table (issue 78, item 5)."""


def _by_chunk(table: pa.Table, made: Callable[[pa.Table], pa.Array]) -> pa.Array:
    """`made` of each `ROW_BYTES_CHUNK` rows of `table`, in order, as one array: spooled to a
    temporary file when there is more than one chunk (`datasets.spool`), so the column is never
    held in memory whole."""
    if table.num_rows <= ROW_BYTES_CHUNK:
        return made(table)
    return spool.spooled(
        made(table.slice(start, ROW_BYTES_CHUNK)) for start in range(0, table.num_rows, ROW_BYTES_CHUNK)
    )


def row_bytes_column(view: BuildView, file: str, column: str) -> pa.Array | None:
    """One mapped column of the build's row bytes serving file `file`, one array, kept with the
    build; None when the build has none (a column before the pipeline version that writes it, or a
    file its worker has not derived yet, `datasets.derived`: not remembered, so asked again)."""
    if view.table(file) is None:
        return None

    def read() -> pa.Array | None:
        written = view.table(file)
        if written is None or column not in written.column_names:
            return None
        values = written.column(column)
        return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()

    found: pa.Array | None = view.memo(f"row_json:{file}:{column}", read)
    return found


def _row_json_column(view: BuildView, table: str, column: str) -> pa.Array | None:
    """One mapped column of `table`'s row bytes file (`row_json_table`)."""
    return row_bytes_column(view, row_json_table(table), column)


def _row_bytes(view: BuildView, table: str, fields: tuple[str, ...], omit: frozenset[str]) -> pa.Array | None:
    """The mapped row bytes of `table` for this field set, one array; None when the build has none
    (written before pipeline 2.9.0) or the field set is not one the pipeline writes."""
    column = _whole_rows(table, fields, omit)
    return None if column is None else _row_json_column(view, table, column)


def _whole_rows(table: str, fields: tuple[str, ...], omit: frozenset[str]) -> str | None:
    """The `ROW_JSON` column of `table` holding rows of this field set, if one does."""
    return next((name for name, made in ROW_JSON.get(table, {}).items() if made == (fields, omit)), None)


def _dated_source(
    table: str, fields: tuple[str, ...], omit: frozenset[str]
) -> tuple[tuple[str, ...], bool] | None:
    """What rows of `fields` (`date` and then others) are joined from after their date, and whether
    it is whole rows: one `ROW_JSON` column of the other fields (True), or the `ROW_PARTS` columns
    whose members are the other fields in order (False); None when neither, or not led by `date`."""
    if fields[:1] != ("date",):
        return None
    rest = fields[1:]
    whole = _whole_rows(table, rest, omit)
    if whole is not None:
        return (whole,), True
    parts: list[str] = []
    at = 0
    for name, members in ROW_PARTS.get(table, {}).items():
        if rest[at : at + len(members)] == members and not omit & set(members):
            parts.append(name)
            at += len(members)
    return (tuple(parts), False) if parts and at == len(rest) else None


def large(value: bytes) -> pa.Scalar:
    """`value` as a `large_binary` scalar, for a join with row bytes."""
    return pa.scalar(value, pa.large_binary())


# Made once: a pyarrow scalar costs about 3 µs to make, a tenth of a joined 100-row page.
NOTHING, _COMMA, _ROW_CLOSE = large(b""), large(b","), large(ROW_CLOSE)


def _date_members(view: BuildView, table_name: str, table: pa.Table) -> tuple[int, pa.Array]:
    """`{"date":"YYYY-MM-DD"` for every day from the table's first date to its last (its rows are
    in date order), made by Arrow once per build, and the first day's number: a row's opening is
    the take of its day."""

    def make() -> tuple[int, pa.Array]:
        days = day_numbers(table)
        # The extremes, not the ends: a file out of date order still finds every row's day.
        first, last = (int(days.min()), int(days.max())) if days.size else (0, -1)
        every = pa.array(np.arange(first, last + 1, dtype=np.int32)).cast(pa.date32())
        text = every.cast(pa.string()).cast(pa.large_binary())  # ISO 8601, as rows write a date
        return first, pc.binary_join_element_wise(large(DATE_MEMBER), text, large(b'"'), NOTHING)

    made: tuple[int, pa.Array] = view.memo(f"row_json_dates:{table_name}", make)
    return made


def dated_rows(
    view: BuildView, table_name: str, fields: tuple[str, ...], omit: frozenset[str], rows: np.ndarray | slice
) -> PremadeRows | None:
    """The page's rows of `fields` (`date` first: a `/scores` row) joined by Arrow from the row
    bytes: the row's date, then the stored row after its brace (`ROW_JSON`) or its parts and the
    closing brace (`ROW_PARTS`); None when the build has neither for this field set (its rows are
    made). `rows`: the table's rows in page order (positions, or a range)."""
    source = _dated_source(table_name, fields, omit)
    table = view.table(table_name)
    if source is None or table is None:
        return None
    columns, whole = source
    stored = [_row_json_column(view, table_name, column) for column in columns]
    present = [column for column in stored if column is not None]
    if len(present) < len(stored):
        return None
    if isinstance(rows, slice):
        count = max(0, rows.stop - rows.start)
        chosen = [column.slice(rows.start, count) for column in present]
        days = day_numbers(table, rows.start, rows.start + count)
    else:
        at = pa.array(rows, pa.int64())
        chosen = [column.take(at) for column in present]
        days = day_numbers(table)[rows]
        count = len(rows)
    if count == 0:
        return _premade(present[0], 0, 0)
    first, dates = _date_members(view, table_name, table)
    opening = dates.take(pa.array((days - first).astype(np.int64)))  # numpy's cast: a third of Arrow's
    if whole:  # `{"symbol":...},` after the date
        pieces = [opening, _COMMA, pc.binary_slice(chosen[0], 1, TO_THE_END)]
    else:  # `,"symbol":...` parts, then the brace
        pieces = [opening, *chosen, _ROW_CLOSE]
    joined = pc.binary_join_element_wise(*pieces, NOTHING)
    return _premade(joined, 0, count)


def _premade(chunk: pa.Array, first: int, count: int) -> PremadeRows:
    """`count` rows from row `first` of `chunk` (a large_binary array of rows each ending in
    `ROW_END`) as a page: their bytes in place, no row made."""
    if count == 0:
        return PremadeRows(msgspec.Raw(b"[]"), 0, b"", np.zeros(0, np.int64))
    _, offsets, data = chunk.buffers()
    bounds = np.frombuffer(offsets, np.int64, count + 1, (chunk.offset + first) * 8)  # large_binary
    joined = memoryview(data)[int(bounds[0]) : int(bounds[-1])]
    json = b"".join((b"[", joined[: -len(ROW_END)], b"]"))
    return PremadeRows(msgspec.Raw(json), count, joined, bounds[1:] - bounds[0])


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
        return _premade(made, rows.start, max(0, rows.stop - rows.start))
    return _premade(made.take(pa.array(rows, pa.int64())), 0, len(rows))


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
class WeekFilter:
    """The filters and order of one rebalance week's rows (`week_page`), made from the served
    query (`schemas.query.WeekQuery`) by `datasets.answers.week`."""

    symbols: Sequence[str] | None
    direction: int | None
    min_abs_weight: float | None
    weight_column: str
    sort_column: str  # score | average_rank | symbol | a target-weight column
    order: str  # asc | desc


def _mask(block: pa.Table, query: WeekFilter) -> np.ndarray | None:
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
    query: WeekFilter,
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
        stored = _page_rows(a, b, limit, offset)
        premade = functools.partial(dated_rows, view, "decisions", fields, omit, stored)
        return TablePage(_slice(table, stored), fields, omit, b - a, None, premade)
    keep = pc.is_in(table.slice(a, b - a).column("symbol"), value_set=pa.array(list(symbols), pa.string()))
    chosen = np.flatnonzero(keep.fill_null(False).to_numpy(zero_copy_only=False)) + a
    picked = chosen[offset : offset + limit]
    premade = functools.partial(dated_rows, view, "decisions", fields, omit, picked)
    return TablePage(table, fields, omit, int(chosen.size), picked, premade)


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
