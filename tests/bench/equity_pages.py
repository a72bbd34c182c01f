"""`python -m tests.bench.equity_pages --lake LAKE`: CPU per `/equity-curve` request in process
(docs/benchmarks.md "Issue 61: /equity-curve without a row per object"): each GET handed straight
to the app's ASGI callable (the answer cache off, a raw key, the work a handler sends to a worker
thread run inline, as `tests.bench.page_profile` does), for three families of requests over a
book's ledger of `--alpha`:

- `window500`: a random window of at least 500 sessions (`from`, `to`), its first 500 rows;
- `whole500`: the whole curve from the book's first session (no `from`), 500 rows at a random offset;
- `window100`: a random window, 100 rows at a random offset.

Each round asks `--requests` random requests of every family with the row bytes on and then off
(`analytics.series.EQUITY_ROW_BYTES` pointed at no file: the rows made, as for a build before
pipeline 2.10.0), alternating; prints the median over `--rounds` of each round's CPU per request.
Another checkout is measured as it is by putting it first on the path and running this file by its
path: `PYTHONPATH=/path/to/checkout python tests/bench/equity_pages.py --lake LAKE`.

`--data` measures the data work alone, in this tree: `analytics.series.equity_curve` and the page's
JSON (the envelope's `data`) and its summary's, against the page made as main made it before the row bytes (at
f2b37cc: the window's columns as Python lists, a row Struct each by `RowShape.from_columns`, one
msgspec encode; the same summary; `_rows_as_before`, kept here only to compare), alternating request by request, so
a busy neighbour weighs on both alike. `--data --benchmark SPY`: the same of a benchmark's daily
series (`series.benchmark_daily`; `whole500` is then the series from its first session)."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from typing import Any
from urllib.parse import urlencode

import anyio.to_thread
import msgspec

from analytics import series
from core.settings import Settings
from datasets.queries import day_numbers, window_bounds
from datasets.reader import LakeReader
from datasets.rows import column_values, date_at, shape_of
from schemas import wire
from serve.app import create_app
from tests.callers import authenticator_for, make_caller
from tests.raw_asgi import exchange

_encode = msgspec.json.Encoder().encode


def _families(sessions: list[Any], rng: random.Random, count: int) -> dict[str, list[dict[str, Any]]]:
    last = len(sessions) - 1
    window500 = []
    for _ in range(count):
        start = rng.randrange(1, max(2, last - 500))
        window500.append(
            {"from": sessions[start], "to": sessions[rng.randrange(min(start + 500, last), last + 1)]}
        )
    whole500 = [{"offset": rng.randrange(0, max(1, last - 500))} for _ in range(count)]
    window100 = []
    for _ in range(count):
        start, end = sorted(rng.sample(range(1, last + 1), 2))
        offset = rng.randrange(0, max(1, end - start - 100))
        window100.append({"from": sessions[start], "to": sessions[end], "limit": 100, "offset": offset})
    return {"window500": window500, "whole500": whole500, "window100": window100}


async def _inline(fn: Any, *args: Any, **kwargs: Any) -> Any:  # thread work timed on this thread
    return fn(*args)


def _get(app: Any, path: str, query: dict[str, Any]) -> tuple[int, bytes]:
    """The status and body of a GET handed to the app's ASGI callable."""
    head = [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer raw"), (b"accept", b"*/*")]
    status, _, body = _loop.run_until_complete(
        exchange(app, "GET", path, head, query=urlencode(query).encode())
    )
    return status, body


_loop = asyncio.new_event_loop()


def _cpu_per_request(app: Any, path: str, queries: list[dict[str, Any]], book: str) -> float:
    started = time.process_time()
    for query in queries:
        status, body = _get(app, path, {"book": book, **query})
        assert status == 200, body[:300]
    return (time.process_time() - started) / len(queries) * 1e6


def _rows_as_before(view: Any, book: str, window: Any, limit: int, offset: int) -> bytes:
    """The page's JSON as main made it before the row bytes (f2b37cc `analytics.series.equity_curve`)."""
    table, found = view.table("portfolio"), view.book_range("portfolio", book)
    assert table is not None and found is not None
    low, high = found
    a, b = window_bounds(day_numbers(table, low, high), window)
    rows = table.slice(low + a, b - a)
    computed = series._equity(rows)
    page = slice(offset, offset + limit)
    text = [column_values(rows.column(n).slice(offset, limit)) for n in ("date", "timestamp")]
    carried = [column_values(rows.column(n).slice(offset, limit)) for n in series.EQUITY_CARRIED]
    made = shape_of(wire.EQUITY_CURVE_FIELDS).from_columns(
        [*text, *[computed[n][page].tolist() for n in series.EQUITY_COMPUTED], *carried]
    )
    days = day_numbers(rows)
    summary = series._window_summary(days, computed["cumulative_return"], computed["drawdown_pct"]) | {
        "book": book,
        "starting_equity": series._first_known(computed["starting_equity"]),
        "ending_equity": series._last_known(computed["ending_equity"]),
        "peak_equity": series._nanmax(computed["peak_equity"]),
        "max_drawdown": series._nanmax(computed["drawdown"]),
    }
    _encode(summary)
    return _encode(made)


def _row_bytes(view: Any, book: str, window: Any, limit: int, offset: int) -> bytes:
    answer = series.equity_curve(view, book, window, limit, offset)
    assert answer is not None
    made = answer[0].envelope_rows
    _encode(answer[1])
    assert not isinstance(made, list), "the build has no equity row bytes"
    return bytes(made.json)


def _benchmark_rows_as_before(view: Any, symbol: str, window: Any, limit: int, offset: int) -> bytes:
    """A benchmark page's JSON as main made it before the row bytes (f2b37cc `series.benchmark_daily`)."""
    table = view.table("daily")
    a, b = window_bounds(day_numbers(table), window)
    rows = table.slice(a, b - a)
    days = day_numbers(rows)
    basis, computed = series._benchmark(rows)
    page = slice(offset, offset + limit)
    dates = column_values(rows.column("date").slice(offset, limit))
    made = shape_of(wire.BENCHMARK_FIELDS).from_columns(
        [dates, *[computed[n][page].tolist() for n in series.BENCHMARK_COMPUTED]]
    )
    summary = series._window_summary(days, computed["cumulative_return"], computed["drawdown_pct"]) | {
        "symbol": symbol,
        "name": symbol,
        "return_basis": basis,
        "first_close": series._first_known(computed["close"]),
        "last_close": series._last_known(computed["close"]),
    }
    _encode(summary)
    return _encode(made)


def _benchmark_row_bytes(view: Any, symbol: str, window: Any, limit: int, offset: int) -> bytes:
    page, summary = series.benchmark_daily(view, symbol, symbol, window, limit, offset)
    made = page.envelope_rows
    _encode(summary)
    # A window that does not start at the series' first session is made from its rows (as before).
    return _encode(made) if isinstance(made, list) else bytes(made.json)


def data_work(args: argparse.Namespace) -> None:
    reader = LakeReader(args.lake, 60.0)
    makers: tuple[tuple[str, Any], tuple[str, Any]]
    if args.benchmark:
        view = reader.benchmark_view(args.benchmark)
        assert view is not None
        table = view.table("daily")
        assert table is not None
        days, subject = day_numbers(table), args.benchmark
        makers = (("rows as before", _benchmark_rows_as_before), ("row bytes", _benchmark_row_bytes))
    else:
        found = reader.alpha(args.alpha)
        assert found is not None
        view = reader.view(found)
        table, book = view.table("portfolio"), view.book_range("portfolio", args.book)
        assert table is not None and book is not None
        days, subject = day_numbers(table, *book), args.book
        makers = (("rows as before", _rows_as_before), ("row bytes", _row_bytes))
    sessions = [date_at(days, index) for index in range(days.size)]
    rng = random.Random(61)
    measured: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds + 1):  # the first round warms up, uncounted
        families = _families(sessions, rng, args.requests)
        for family, queries in families.items():
            spent = {"rows as before": 0.0, "row bytes": 0.0}
            for query in queries:
                window = (query.get("from"), query.get("to"))
                limit, offset = query.get("limit", 500), query.get("offset", 0)
                pages = []
                for way, make in makers:
                    started = time.process_time()
                    pages.append(make(view, subject, window, limit, offset))
                    spent[way] += time.process_time() - started
                assert pages[0] == pages[1], query
            if round_:
                for way, total in spent.items():
                    measured.setdefault((family, way), []).append(total / len(queries) * 1e6)
    for (family, way), values in sorted(measured.items()):
        rounds = ", ".join(f"{value:.0f}" for value in values)
        print(
            f"{family:10s} {way:15s} CPU µs/page median {statistics.median(values):6.0f}  (rounds {rounds})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lake", required=True)
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--book", default="long_short")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--data", action="store_true", help="the data work alone (see above)")
    parser.add_argument("--benchmark", help="with --data: this benchmark's daily series instead of a book's")
    args = parser.parse_args()
    if args.data:
        data_work(args)
        return
    anyio.to_thread.run_sync = _inline  # type: ignore[assignment]
    settings = Settings(lake=args.lake, environment="test", answer_cache_bytes=0)
    app = create_app(
        settings, authenticate=authenticator_for({"raw": make_caller(expose_raw_book=True)}), limiter=None
    )
    path = f"/v1/alphas/{args.alpha}/equity-curve"
    written = getattr(series, "EQUITY_ROW_BYTES", None)
    ways = {"row bytes": written, "rows made": "no_such_serving_file"} if written else {"as is": None}
    rng = random.Random(61)
    status, body = _get(app, path, {"book": args.book, "limit": 5000})
    assert status == 200, body[:300]
    sessions = [row["date"] for row in json.loads(body)["data"]]
    print(f"{args.alpha} {args.book}: {len(sessions)} sessions")
    measured: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds + 1):  # the first round warms up, uncounted
        families = _families(sessions, rng, args.requests)
        for way, name in ways.items():
            if name is not None:
                series.EQUITY_ROW_BYTES = name
            for family, queries in families.items():
                cpu = _cpu_per_request(app, path, queries, args.book)
                if round_:
                    measured.setdefault((family, way), []).append(cpu)
    if written:
        series.EQUITY_ROW_BYTES = written
    for (family, way), values in sorted(measured.items()):
        rounds = ", ".join(f"{value:.0f}" for value in values)
        print(
            f"{family:10s} {way:10s} CPU µs/request median {statistics.median(values):6.0f}  (rounds {rounds})"
        )


if __name__ == "__main__":
    main()
