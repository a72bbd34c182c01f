"""The financial series over a window: a book's equity curve and a benchmark's daily series, each
rebased to the window's first session (`/equity-curve`, `/v1/benchmarks/{symbol}/daily`, their
Parquet exports over the whole history, and the market series every figure against a benchmark
reads).

Returns, running peaks and drawdowns (`analytics.compounding`) are computed over the whole window
before paging, so every page shares the window's baseline (the spec's rule). The window is one
slice of a date-sorted serving table (read by the lake), so the work is a few numpy passes over at
most one row per session.

Conventions (docs/api.md): `period_return` is null where the starting equity is missing or zero;
`cumulative_return` is the running product of `1 + period_return` (null returns count as 0)
minus 1, null until the first known return; the peak includes the opening equity; `drawdown_pct`
is null where the peak is not positive. Aggregates of the summary skip nulls.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
import pyarrow as pa

from analytics.compounding import cumulative, drawdown_pct, running_peak
from datasets import answers
from datasets.build_view import BuildView
from datasets.faults import BenchmarkMissing, LakeUnavailable
from datasets.queries import (
    PremadeRows,
    Window,
    day_numbers,
    premade_rows,
    row_bytes_column,
    row_json,
    row_json_table,
    window_bounds,
)
from datasets.rows import date_at, floats
from datasets.windowed_rows import WRITTEN_COLUMNS, Columns, ComputedPage, WindowedShape, columns_table
from schemas import wire
from schemas.query import SeriesQuery


def _last_known(values: np.ndarray) -> float | None:
    known = np.flatnonzero(~np.isnan(values))
    return float(values[known[-1]]) if known.size else None


def _first_known(values: np.ndarray) -> float | None:
    known = np.flatnonzero(~np.isnan(values))
    return float(values[known[0]]) if known.size else None


def _nanmax(values: np.ndarray) -> float | None:
    if values.size == 0 or np.all(np.isnan(values)):
        return None
    return float(np.nanmax(values))


def _deepest(days: np.ndarray, drawdown: np.ndarray) -> date | None:
    """Date of the largest positive drawdown_pct, the earliest on a tie."""
    deep = np.where(drawdown > 0, drawdown, -np.inf)
    if deep.size == 0 or not np.isfinite(deep.max()):
        return None
    return date_at(days, int(np.argmax(deep)))


def _window_summary(days: np.ndarray, cumulative_return: np.ndarray, drawdown: np.ndarray) -> dict[str, Any]:
    """What the equity curve's and the benchmark's summaries share, over the whole window."""
    total_return = _last_known(cumulative_return)
    return {
        "first_date": date_at(days, 0),
        "last_date": date_at(days, days.size - 1),
        "sessions": int(days.size),
        "total_return": total_return,
        "cumulative_return_pct": None if total_return is None else total_return * 100,
        "max_drawdown_pct": _nanmax(drawdown),
        "max_drawdown_date": _deepest(days, drawdown),
    }


EQUITY_CARRIED = ("gross_exposure", "net_exposure", "turnover")
"""Ledger columns the equity curve carries as they are; the others after date and timestamp are
computed over the requested window (`EQUITY_COMPUTED`)."""
EQUITY_COMPUTED = tuple(
    name for name in wire.EQUITY_CURVE_FIELDS if name not in ("date", "timestamp", *EQUITY_CARRIED)
)
BENCHMARK_COMPUTED = ("close", "period_return", "cumulative_return", "drawdown_pct")


def _peak(rows: pa.Table) -> np.ndarray:
    """The running peak of a window of ledger rows: the highest starting or ending equity so far."""
    return running_peak(np.fmax(floats(rows.column("starting_equity")), floats(rows.column("ending_equity"))))


def _equity(rows: pa.Table) -> dict[str, np.ndarray]:
    """The computed columns of the equity curve over a window of ledger rows (`EQUITY_COMPUTED`).
    Of those that restart at the window (`EQUITY_ROWS.windowed`), `drawdown` and `drawdown_pct` are
    functions of the row's `peak_equity` and `ending_equity`: where the window's peak is the book's,
    they are the book's whole curve's (`_equity_page`)."""
    start, end = floats(rows.column("starting_equity")), floats(rows.column("ending_equity"))
    with np.errstate(divide="ignore", invalid="ignore"):
        period = np.where(np.isnan(start) | (start == 0), np.nan, (end - start) / start)
    peak = _peak(rows)
    return {
        "starting_equity": start,
        "ending_equity": end,
        "period_return": period,
        "cumulative_return": cumulative(period),
        "peak_equity": peak,
        "drawdown": peak - end,
        "drawdown_pct": drawdown_pct(peak, end),
    }


EQUITY_ROWS = WindowedShape(
    wire.EQUITY_CURVE_FIELDS, ("cumulative_return", "peak_equity", "drawdown", "drawdown_pct")
)
"""The equity row's fields, of which the running return, peak and drawdown restart at the window's
first session; the others are the same in every window (`datasets.windowed_rows`)."""
EQUITY_ROW_BYTES = row_json_table("equity_curve")
"""The serving file of the equity rows' bytes (`serving/equity_curve_json.arrow`, pipeline 2.10.0),
one row per row of the ledger's (`portfolio`)."""


def equity_row_bytes(ledger: pa.Table, books: dict[str, list[int]]) -> pa.Table:
    """The equity rows' bytes of the ledger serving table (`EQUITY_ROWS.written` of each book's
    whole curve, row for row): what the pipeline writes as `EQUITY_ROW_BYTES`."""
    parts = [
        EQUITY_ROWS.written(equity_curve_table(ledger.slice(start, stop - start)))
        for start, stop in sorted(books.values())
    ]
    return pa.table(
        {
            name: pa.concat_arrays([part[name] for part in parts])
            if parts
            else pa.array([], pa.large_binary())
            for name in WRITTEN_COLUMNS
        }
    )


def _written_rows(view: BuildView, name: str) -> dict[str, pa.Array] | None:
    """The mapped row bytes `name` of the build, by column (`WindowedShape.written`'s); None when it
    has them not (built before 2.10.0)."""
    found = {column: row_bytes_column(view, name, column) for column in WRITTEN_COLUMNS}
    present = {column: values for column, values in found.items() if values is not None}
    return present if len(present) == len(found) else None


def _book_window(
    view: BuildView, book: str, window: Window
) -> tuple[pa.Table, tuple[int, int], int, int] | None:
    """The ledger serving table, the rows of `book` in it and the window's row range; None without
    a ledger."""
    table = view.table("portfolio")
    if table is None:
        return None
    low, high = view.book_range("portfolio", book) or (0, 0)
    a, b = window_bounds(day_numbers(table, low, high), window)
    return table, (low, high), low + a, low + b


def _equity_columns(rows: pa.Table, computed: dict[str, np.ndarray]) -> Columns:
    """The columns of `wire.EQUITY_CURVE_FIELDS`: the ledger's `rows`' and those computed over them
    (`_equity`)."""
    return {
        "date": rows.column("date"),
        "timestamp": rows.column("timestamp"),
        **{n: computed[n] for n in EQUITY_COMPUTED},
        **{n: rows.column(n) for n in EQUITY_CARRIED},
    }


def _equity_page(
    view: BuildView,
    ledger: pa.Table,
    book: tuple[int, int],
    window_first: int,
    first: int,
    computed: dict[str, np.ndarray],
) -> PremadeRows | None:
    """The page's rows (`ledger`'s from `first`, their computed columns `computed`; the rows of the
    book and the window's first) out of the row bytes; None when the build has none."""
    written = _written_rows(view, EQUITY_ROW_BYTES)
    if written is None:
        return None
    peak = computed["peak_equity"]
    low, high = book
    if window_first == low:  # the window's values are the book's whole curve's, written once
        return EQUITY_ROWS.whole(written, first, peak.size)
    # From the last row whose running peak differs from the book's whole curve's (bit for bit), the
    # page's peak, drawdown and drawdown_pct are the whole rows': only `cumulative_return` is written.
    book_peak = view.memo(f"equity_peak:{low}:{high}", lambda: _peak(ledger.slice(low, high - low)))
    whole = book_peak[first - low : first - low + peak.size]
    differs = np.flatnonzero(whole.view(np.int64) != peak.view(np.int64))
    settled = int(differs[-1]) + 1 if differs.size else 0
    return EQUITY_ROWS.page(written, first, [computed[n] for n in EQUITY_ROWS.windowed], settled)


def equity_curve(
    view: BuildView, book: str, window: Window, limit: int, offset: int
) -> tuple[ComputedPage, dict[str, Any]] | None:
    """The equity rows of `book` in the window and the window's summary; None without a ledger.

    The page is the row bytes the pipeline wrote and the window's values written into them when the
    build has them (`EQUITY_ROWS`), else its rows made from the columns; its Arrow columns are made
    only for a columnar representation."""
    found = _book_window(view, book, window)
    if found is None:
        return None
    ledger, book_rows, first, stop = found
    rows = ledger.slice(first, stop - first)
    days = day_numbers(rows)
    computed = _equity(rows)

    page = slice(offset, offset + limit)
    on_page = {name: values[page] for name, values in computed.items()}
    count = on_page["cumulative_return"].size
    page_rows = ComputedPage(
        functools.partial(_equity_columns, rows.slice(offset, limit), on_page),
        wire.EQUITY_CURVE_FIELDS,
        count,
        int(days.size),
        functools.partial(_equity_page, view, ledger, book_rows, first, first + offset, on_page),
    )

    summary = _window_summary(days, computed["cumulative_return"], computed["drawdown_pct"]) | {
        "book": book,
        "starting_equity": _first_known(computed["starting_equity"]),
        "ending_equity": _last_known(computed["ending_equity"]),
        "peak_equity": _nanmax(computed["peak_equity"]),
        "max_drawdown": _nanmax(computed["drawdown"]),
    }
    return page_rows, {name: summary[name] for name in wire.EQUITY_SUMMARY_FIELDS}


def equity_curve_answer(build: BuildView, args: SeriesQuery, raw: bool) -> answers.RunPage:
    """`/equity-curve`: the book's equity series in the window, with the window's summary in
    `meta.summary` (a run without a ledger: an empty page that says so)."""
    name = answers.checked_book(build, "portfolio", args.book, raw)
    result = (
        equity_curve(build, name, (args.start, args.end), args.limit, args.offset)
        if "portfolio" in build.kinds_present
        else None
    )
    if result is None:
        summary = {key: None for key in wire.EQUITY_SUMMARY_FIELDS} | {"book": name, "sessions": 0}
        return answers.page_answer(
            None, "portfolio", args, wire.EQUITY_CURVE_FIELDS, book=name, summary=summary
        )
    page, summary = result
    return answers.page_answer(page, "portfolio", args, wire.EQUITY_CURVE_FIELDS, book=name, summary=summary)


def equity_curve_table(ledger: pa.Table) -> pa.Table:
    """The whole equity curve of one book's ledger rows (date order) as an Arrow table of
    `wire.EQUITY_CURVE_FIELDS`: what `equity_curve` pages over the book's whole window."""
    return columns_table(wire.EQUITY_CURVE_FIELDS, _equity_columns(ledger, _equity(ledger)))


COMPUTED_EXPORTS = {"equity-curve": equity_curve_table}
"""The alpha exports that are a figure of one book's serving rows, by dataset: what the pipeline
hands `datasets.export_files.AlphaExports` and the server `made_export` (the lake computes none)."""


def _basis(rows: pa.Table) -> str:
    """The return basis of a window of daily rows: `adjusted_close` only when every row of the
    window has one (never mixed), else `close`."""
    return (
        "adjusted_close" if rows.num_rows > 0 and rows.column("adjusted_close").null_count == 0 else "close"
    )


def _benchmark(rows: pa.Table) -> tuple[str, dict[str, np.ndarray]]:
    """The return basis (`_basis`) and the computed columns (`BENCHMARK_COMPUTED`) of a window of
    daily rows."""
    close = floats(rows.column("close"))
    basis = _basis(rows)
    price = close if basis == "close" else floats(rows.column("adjusted_close"))
    with np.errstate(divide="ignore", invalid="ignore"):
        period = np.concatenate([[np.nan], (price[1:] - price[:-1]) / price[:-1]]) if price.size else price
        rebased = price / price[0] - 1 if price.size else price
    return basis, {
        "close": close,
        "period_return": period,
        "cumulative_return": rebased,
        "drawdown_pct": drawdown_pct(running_peak(price), price),
    }


BENCHMARK_ROW_BYTES = row_json_table("daily")
"""The serving file of a benchmark build's row bytes (`serving/daily_json.arrow`, pipeline 2.10.0):
`whole`, each row of `daily` as the window from the series' first session writes it. Only those
pages are made from it: a page of another window is made from its rows, which costs less there
than writing three of its five values per request and joining (docs/benchmarks.md "Issue 61:
/equity-curve without a row per object")."""


def benchmark_row_bytes(daily: pa.Table) -> pa.Table:
    """The row bytes of a benchmark's served daily table (its whole series' rows): what the pipeline
    writes as `BENCHMARK_ROW_BYTES`."""
    return pa.table({"whole": row_json(benchmark_table(daily), wire.BENCHMARK_FIELDS, frozenset())})


def _benchmark_page(
    view: BuildView, daily: pa.Table, window_first: int, first: int, basis: str, count: int
) -> PremadeRows | None:
    """The page's rows (`daily`'s from `first`, of the window from `window_first` on, whose basis is
    `basis`) out of the row bytes when the window's values are the whole series' (it starts at the
    first session, on the same basis); None otherwise, or when the build has none."""
    if window_first != 0 or basis != _basis(daily):
        return None
    whole = row_bytes_column(view, BENCHMARK_ROW_BYTES, "whole")
    return None if whole is None else premade_rows(whole, slice(first, first + count))


def _benchmark_columns(rows: pa.Table, computed: dict[str, np.ndarray]) -> Columns:
    """The columns of `wire.BENCHMARK_FIELDS`: the daily `rows`' date and those computed over them."""
    return {"date": rows.column("date"), **{n: computed[n] for n in BENCHMARK_COMPUTED}}


def benchmark_daily(
    view: BuildView, symbol: str, name: str, window: Window, limit: int, offset: int
) -> tuple[ComputedPage, dict[str, Any]]:
    """Benchmark rows in the window, returns and drawdown from the window's first row; the summary
    reports the return basis (`_benchmark`). A page of the series from its first session is the row
    bytes the pipeline wrote (`BENCHMARK_ROW_BYTES`)."""
    table = view.table("daily")
    if table is None:
        raise FileNotFoundError("the benchmark build has no daily series")
    a, b = window_bounds(day_numbers(table), window)
    rows = table.slice(a, b - a)
    days = day_numbers(rows)
    basis, computed = _benchmark(rows)

    page = slice(offset, offset + limit)
    on_page = {column: values[page] for column, values in computed.items()}
    page_rows = ComputedPage(
        functools.partial(_benchmark_columns, rows.slice(offset, limit), on_page),
        wire.BENCHMARK_FIELDS,
        on_page["cumulative_return"].size,
        int(days.size),
        functools.partial(
            _benchmark_page, view, table, a, a + offset, basis, on_page["cumulative_return"].size
        ),
    )
    summary = _window_summary(days, computed["cumulative_return"], computed["drawdown_pct"]) | {
        "symbol": symbol,
        "name": name,
        "return_basis": basis,
        "first_close": _first_known(computed["close"]),
        "last_close": _last_known(computed["close"]),
    }
    return page_rows, {name: summary[name] for name in wire.BENCHMARK_SUMMARY_FIELDS}


def benchmark_returns(daily: pa.Table) -> tuple[str, np.ndarray]:
    """The return basis and the daily returns of the whole series (NaN on its first row), as
    `/benchmarks/{symbol}/daily` serves `period_return` over the whole history."""
    basis, computed = _benchmark(daily)
    return basis, computed["period_return"]


def benchmark_table(daily: pa.Table) -> pa.Table:
    """The whole benchmark series (date order) as an Arrow table of `wire.BENCHMARK_FIELDS`: what
    `benchmark_daily` pages over the whole window."""
    return columns_table(wire.BENCHMARK_FIELDS, _benchmark_columns(daily, _benchmark(daily)[1]))


@dataclass(frozen=True)
class BenchmarkSeries:
    """A benchmark's sessions (days since 1970, ascending) and daily total returns (NaN on its first
    session), as `/benchmarks/{symbol}/daily` serves `period_return` over the whole history."""

    symbol: str
    build_id: str
    basis: str  # adjusted_close or close
    days: np.ndarray
    returns: np.ndarray

    def on(self, days: np.ndarray) -> np.ndarray:
        """The benchmark's return on each of `days` (NaN where it has no session)."""
        at = np.searchsorted(self.days, days)
        inside = at < self.days.size
        found = np.full(days.shape, np.nan)
        hit = inside.copy()
        hit[inside] = self.days[at[inside]] == days[inside]
        found[hit] = self.returns[at[hit]]
        return found


def benchmark_series(view: BuildView, symbol: str) -> BenchmarkSeries:
    """The whole daily series of a benchmark's build view, read once per build; `BenchmarkMissing`
    (configured) when the build cannot be read."""

    def read() -> BenchmarkSeries:
        table = view.table("daily")
        if table is None:
            raise BenchmarkMissing(symbol, configured=True)
        basis, returns = benchmark_returns(table)
        return BenchmarkSeries(symbol, view.build_id, basis, day_numbers(table), returns)

    try:
        return view.memo("benchmark:series", read)
    except LakeUnavailable as exc:
        raise BenchmarkMissing(symbol, configured=True) from exc
