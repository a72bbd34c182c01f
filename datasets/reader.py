"""The DuckDB reader: the one module that filters windows, orders, pages and counts lake rows.

Handlers describe a query (table, columns, filters, order, limit, offset); this module runs it.
Each (alpha, build, table) is loaded once into an in-memory DuckDB table on first use (an
in-memory table answers a page with its count in ~2 ms, a Parquet scan in 4-6 ms; DESIGN.md).
Tables are keyed by build id, and the alpha pointers are re-read at most every
`refresh_seconds`, so a newly published build is served without a restart while a request that
started on the old build finishes on it (a query whose table was dropped meanwhile reloads it).

One thread re-reads the catalogue while the others keep answering from the current one; a failed
re-read answers `LakeUnavailable` and is retried `retry_seconds` later, not on every request. One
alpha whose pointer or alpha.json is corrupt (`catalog.CorruptLakeFile`) does not fail the re-read:
it is left out of the catalogue, logged at ERROR once per re-read, and only its own lookups answer
`LakeUnavailable` (never "not found"); `ping` fails while any such alpha remains. A
first table load reads the lake under a lock of its own (alpha, build, table), never the
reader's global lock, so one slow load does not stall other tables.

Identifiers in SQL come only from `schemas.lake` (checked here); values are always parameters.
Every failure to read the lake (`STORE_ERRORS`) surfaces as `LakeUnavailable`, which serve maps
to 503; anything else is a bug and stays one (500).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, TypeVar

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from datasets import catalog, layout
from datasets.storage import Storage
from schemas import lake

log = logging.getLogger("datasets.reader")

T = TypeVar("T")

FilterOp = Literal["=", ">=", "<=", "in", "abs>="]
FILTER_OPS: tuple[str, ...] = ("=", ">=", "<=", "in", "abs>=")


class LakeUnavailable(Exception):
    """The lake (local folder or object store) could not be read."""


def _store_errors() -> tuple[type[BaseException], ...]:
    # s3fs lets botocore's connection errors (refused, timed out, DNS) through untranslated.
    try:
        from botocore.exceptions import BotoCoreError
    except ImportError:  # a local-only install without the S3 extras
        return ()
    return (BotoCoreError,)


# What reading the lake raises when the lake (not this code) is at fault: unreachable or missing
# files, unreadable Parquet, unparsable JSON. ValueError and KeyError are not here: from this code
# they are bugs, and a bug must be a 500, not a 503 that invites a retry.
STORE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    pa.ArrowException,
    duckdb.IOException,
    catalog.CorruptLakeFile,
    *_store_errors(),
)


@contextmanager
def lake_errors(root: str) -> Iterator[None]:
    """Turn a failure to read the lake under `root` into `LakeUnavailable` (logged, no detail)."""
    try:
        yield
    except STORE_ERRORS as exc:
        log.warning("lake read failed under %s: %s", root, exc)
        raise LakeUnavailable(str(exc)) from exc


@dataclass(frozen=True)
class Filter:
    column: str
    op: FilterOp
    value: Any


@dataclass(frozen=True)
class PageQuery:
    table: str
    columns: tuple[str, ...]
    filters: tuple[Filter, ...] = ()
    order: tuple[tuple[str, str], ...] = ()
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True)
class Page:
    rows: list[dict[str, Any]]
    total: int


@dataclass(frozen=True)
class AlphaBuild:
    """The served build of one alpha and its catalogue entry (alpha.json)."""

    alpha_id: str
    build_id: str
    build_dir: str
    entry: dict[str, Any] = field(hash=False, compare=False)

    @property
    def kinds_present(self) -> frozenset[str]:
        return frozenset(self.entry.get("kinds_present") or ())

    def books_of(self, kind: str) -> tuple[str, ...]:
        books = self.entry.get("books") or {}
        if isinstance(books, dict):
            return tuple(books.get(kind) or ())
        return ()


@dataclass(frozen=True)
class BenchmarkBuild:
    symbol: str
    build_id: str
    build_dir: str
    entry: dict[str, Any] = field(hash=False, compare=False)


def _columns_of(table: str) -> dict[str, pa.DataType]:
    schema = lake.TABLE_SCHEMAS.get(table) if table != "benchmark_daily" else lake.BENCHMARK_DAILY
    if schema is None:
        raise ValueError(f"unknown lake table {table!r}")
    columns = {f.name: f.type for f in schema}
    if table in layout.BOOK_PARTITIONED_TABLES:
        columns = {"book": pa.string(), **columns}
    return columns


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _select_expr(column: str, dtype: pa.DataType) -> str:
    # Timestamps leave DuckDB as ISO strings: cheaper than datetime objects and no pytz needed.
    if pa.types.is_timestamp(dtype):
        return f"strftime({_ident(column)}, '%Y-%m-%dT%H:%M:%SZ') AS {_ident(column)}"
    return _ident(column)


def _where(filters: Sequence[Filter], columns: dict[str, pa.DataType]) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for f in filters:
        if f.column not in columns:
            raise ValueError(f"column {f.column!r} is not in this table")
        if f.op not in FILTER_OPS:
            raise ValueError(f"unknown filter operator {f.op!r}")
        col = _ident(f.column)
        if f.op == "in":
            values = list(f.value)
            if not values:
                clauses.append("FALSE")
                continue
            clauses.append(f"{col} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
        elif f.op == "abs>=":
            clauses.append(f"abs({col}) >= ?")
            params.append(f.value)
        else:
            clauses.append(f"{col} {f.op} ?")
            params.append(f.value)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _order_by(order: Sequence[tuple[str, str]], columns: dict[str, pa.DataType]) -> str:
    parts = []
    for column, direction in order:
        if column not in columns or direction not in ("asc", "desc"):
            raise ValueError(f"cannot order by {column!r} {direction!r}")
        parts.append(f"{_ident(column)} {direction.upper()} NULLS LAST")
    return (" ORDER BY " + ", ".join(parts)) if parts else ""


def page_of(rows: Sequence[dict[str, Any]], limit: int, offset: int) -> Page:
    """Page a small list already in memory (catalogue, books) with the same rules as SQL pages."""
    return Page(rows=list(rows[offset : offset + limit]), total=len(rows))


class LakeReader:
    def __init__(
        self,
        root: str,
        refresh_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        retry_seconds: float = 1.0,
    ) -> None:
        self.root = root
        self.refresh_seconds = refresh_seconds
        self.retry_seconds = retry_seconds
        self._clock = clock
        self._storage = Storage(root)
        self._db = duckdb.connect(":memory:")
        self._db.execute("SET TimeZone = 'UTC'")
        # Guards the dictionaries below, held only for memory work, never across lake I/O.
        self._lock = threading.RLock()
        self._refresh_lock = threading.Lock()
        self._alphas: dict[str, AlphaBuild] = {}
        self._alphas_read_at: float | None = None  # time of the last attempt, good or failed
        self._alphas_failure: str | None = None  # why the last attempt failed, None when it did not
        # Published alphas the last good re-read could not understand: alpha_id -> why.
        self._unreadable: dict[str, str] = {}
        self._benchmarks: dict[str, tuple[float, BenchmarkBuild | None]] = {}
        self._tables: dict[tuple[str, str, str], str | None] = {}
        self._load_locks: dict[tuple[str, str, str], threading.Lock] = {}
        self._json: dict[tuple[str, str], dict[str, Any] | None] = {}
        self._served_builds: dict[str, list[str]] = {}
        self._table_numbers = itertools.count(1)

    @property
    def storage(self) -> Storage:
        return self._storage

    # -- catalogue ------------------------------------------------------------------------------

    def alphas(self) -> dict[str, AlphaBuild]:
        """Every published alpha's current build, re-read at most every `refresh_seconds`.

        Raises LakeUnavailable when the last re-read failed; the next attempt is `retry_seconds`
        after it, so an outage costs the lake one attempt per interval, not one per request.
        An alpha that is published but cannot be read (`unreadable_alphas`) is not in the result.
        """
        return self._catalogue()[0]

    def unreadable_alphas(self) -> dict[str, str]:
        """Published alphas whose pointer or catalogue entry is corrupt, with the reason (same
        refresh rules as `alphas`)."""
        return dict(self._catalogue()[1])

    def _catalogue(self) -> tuple[dict[str, AlphaBuild], dict[str, str]]:
        if self._catalogue_due():
            # One thread re-reads; the others answer from the current catalogue meanwhile, or wait
            # when there is none yet.
            if self._refresh_lock.acquire(blocking=self._alphas_read_at is None):
                try:
                    if self._catalogue_due():
                        self._refresh_catalogue()
                finally:
                    self._refresh_lock.release()
        with self._lock:
            if self._alphas_failure is not None:
                raise LakeUnavailable(self._alphas_failure)
            return self._alphas, self._unreadable

    def _catalogue_due(self) -> bool:
        with self._lock:
            if self._alphas_read_at is None:
                return True
            wait = self.retry_seconds if self._alphas_failure is not None else self.refresh_seconds
            return self._clock() - self._alphas_read_at >= wait

    def _refresh_catalogue(self) -> None:
        attempted_at = self._clock()
        try:
            found, unreadable = self._read_catalogue()
        except LakeUnavailable as exc:
            with self._lock:
                self._alphas_read_at, self._alphas_failure = attempted_at, str(exc) or "lake unavailable"
            return
        for alpha_id, reason in unreadable.items():
            log.error("alpha %s is published but unreadable, not served: %s", alpha_id, reason)
        with self._lock:
            for alpha_id, build in found.items():
                self._note_served(alpha_id, build.build_id)
            self._alphas, self._unreadable = found, unreadable
            self._alphas_read_at, self._alphas_failure = attempted_at, None

    def alpha(self, alpha_id: str) -> AlphaBuild | None:
        """The served build of `alpha_id`; None when nothing is published under it. Raises
        LakeUnavailable when it is published but unreadable: it exists, so it is not "not found"."""
        build = self.alphas().get(alpha_id)
        if build is None:
            with self._lock:
                reason = self._unreadable.get(alpha_id)
            if reason is not None:
                raise LakeUnavailable(reason)
        return build

    def _check_root(self) -> None:
        # A missing local root would otherwise read as an empty lake (every alpha 404).
        if self._storage.is_local and not self._storage.is_dir(self.root):
            raise FileNotFoundError(f"the lake root {self.root} is not a folder")

    def _read_catalogue(self) -> tuple[dict[str, AlphaBuild], dict[str, str]]:
        """The served alphas, and the published ones whose pointer or alpha.json is corrupt.

        A corrupt file is one alpha's fault and costs only that alpha; any other failure (the
        store unreachable, a file unreadable) fails the whole re-read, as the lake is then down.
        """
        found: dict[str, AlphaBuild] = {}
        unreadable: dict[str, str] = {}
        with self._lake_errors():
            self._check_root()
            for alpha_id in catalog.published_alpha_ids(self.root, self._storage):
                try:
                    published = catalog.current_build(self.root, alpha_id, self._storage)
                    if published is None:
                        continue  # pointer removed since the listing
                    entry = self._json_cached(published.build_dir, layout.ALPHA_JSON) or {}
                except catalog.CorruptLakeFile as exc:
                    unreadable[alpha_id] = str(exc)
                    continue
                found[alpha_id] = AlphaBuild(alpha_id, published.build_id, published.build_dir, entry)
        return found, unreadable

    def _note_served(self, alpha_id: str, build_id: str) -> None:
        # Keep the current and the previous build's tables (requests in flight may still read
        # the previous one); drop anything older. A query that still reaches a dropped table
        # reloads it (`_on_table`). Called under `_lock`.
        builds = self._served_builds.setdefault(alpha_id, [])
        if builds and builds[-1] == build_id:
            return
        builds.append(build_id)
        for old in builds[:-2]:
            self._drop_build(alpha_id, old)
        del builds[:-2]

    def _drop_build(self, alpha_id: str, build_id: str) -> None:
        with self._lock:
            names = [self._tables.pop(k) for k in list(self._tables) if k[0] == alpha_id and k[1] == build_id]
        with self._cursor() as cur:
            for name in names:
                if name is not None:
                    cur.execute(f"DROP TABLE IF EXISTS {_ident(name)}")

    def description(self, build: AlphaBuild) -> dict[str, Any] | None:
        return self._read_json_cached(build.build_dir, layout.DESCRIPTION_JSON)

    def source_record(self, build: AlphaBuild) -> dict[str, Any] | None:
        return self._read_json_cached(build.build_dir, layout.SOURCE_JSON)

    def _read_json_cached(self, build_dir: str, name: str) -> dict[str, Any] | None:
        with self._lake_errors():
            return self._json_cached(build_dir, name)

    def _json_cached(self, build_dir: str, name: str) -> dict[str, Any] | None:
        """A JSON file of an immutable build, read once; lake errors are the caller's to map."""
        key = (build_dir, name)
        with self._lock:
            if key in self._json:
                return self._json[key]
        value = catalog.read_json(self._storage, layout.join(build_dir, name))
        with self._lock:
            self._json[key] = value
        return value

    # -- benchmarks -----------------------------------------------------------------------------

    def benchmark(self, symbol: str) -> BenchmarkBuild | None:
        now = self._clock()
        with self._lock:
            cached = self._benchmarks.get(symbol)
            if cached is not None and now - cached[0] < self.refresh_seconds:
                return cached[1]
        with self._lake_errors():
            self._check_root()
            published = catalog.current_benchmark(self.root, symbol, self._storage)
            found: BenchmarkBuild | None = None
            if published is not None:
                entry = self._read_json_cached(published.build_dir, layout.BENCHMARK_JSON) or {}
                found = BenchmarkBuild(symbol, published.build_id, published.build_dir, entry)
        with self._lock:
            self._benchmarks[symbol] = (now, found)
        return found

    def builds(self) -> list[dict[str, Any]]:
        """Every build kept in the lake (`catalog.list_builds`), read now, not cached."""
        with self._lake_errors():
            self._check_root()
            return catalog.list_builds(self.root, self._storage)

    # -- queries ----------------------------------------------------------------------------------

    def page(self, build: AlphaBuild, query: PageQuery) -> Page | None:
        """One page and the total across pages, in one query; None when the table is absent."""
        columns = _columns_of(query.table)
        return self._on_table(build, query.table, lambda table: self._run_page(table, columns, query))

    def _run_page(self, table: str, columns: dict[str, pa.DataType], query: PageQuery) -> Page:
        for column in query.columns:
            if column not in columns:
                raise ValueError(f"column {column!r} is not in {query.table}")
        select = ", ".join(_select_expr(c, columns[c]) for c in query.columns)
        where, params = _where(query.filters, columns)
        # Page and count are two statements on the same immutable table: `count(*) OVER ()` in the
        # page query would stop DuckDB's top-N and sort every matching row (measured ~2x slower).
        sql = (
            f"SELECT {select} FROM {_ident(table)}{where}"  # noqa: S608
            f"{_order_by(query.order, columns)} LIMIT ? OFFSET ?"
        )
        with self._cursor() as cur:
            rows = cur.execute(sql, [*params, query.limit, query.offset]).fetchall()
            if rows and len(rows) < query.limit:
                total = query.offset + len(rows)  # the last page tells the total by itself
            else:
                count_sql = f"SELECT count(*) FROM {_ident(table)}{where}"  # noqa: S608
                total = int(cur.execute(count_sql, params).fetchone()[0])  # type: ignore[index]
        names = query.columns
        return Page(rows=[dict(zip(names, row, strict=True)) for row in rows], total=total)

    def rows(
        self, build: AlphaBuild, table_name: str, columns: tuple[str, ...]
    ) -> list[dict[str, Any]] | None:
        """Every row of a small table (books, rebalances index), unordered; None when absent."""
        types = _columns_of(table_name)
        select = ", ".join(_select_expr(c, types[c]) for c in columns)

        def run(table: str) -> list[dict[str, Any]]:
            with self._cursor() as cur:
                fetched = cur.execute(f"SELECT {select} FROM {_ident(table)}").fetchall()  # noqa: S608
            return [dict(zip(columns, row, strict=True)) for row in fetched]

        return self._on_table(build, table_name, run)

    def rebalance_neighbours(self, build: AlphaBuild, day: date) -> dict[str, Any] | None:
        """The index row of `day` (or None) and the first, last, previous and next rebalance dates.

        None when the run has no rebalance index at all.
        """
        return self._on_table(build, "rebalances", lambda table: self._neighbours(table, day))

    def _neighbours(self, table: str, day: date) -> dict[str, Any]:
        t = _ident(table)
        sql = (
            f"SELECT (SELECT min(date) FROM {t}), (SELECT max(date) FROM {t}),"  # noqa: S608
            f" (SELECT max(date) FROM {t} WHERE date < ?), (SELECT min(date) FROM {t} WHERE date > ?),"
            f" (SELECT week_status FROM {t} WHERE date = ?), (SELECT n_symbols FROM {t} WHERE date = ?),"
            f" (SELECT count(*) FROM {t} WHERE date = ?)"
        )
        with self._cursor() as cur:
            first, last, previous, following, status, n_symbols, found = cur.execute(
                sql, [day, day, day, day, day]
            ).fetchone()  # type: ignore[misc]
        return {
            "found": bool(found),
            "week_status": status,
            "n_symbols": n_symbols,
            "first_rebalance": first,
            "last_rebalance": last,
            "previous_rebalance": previous,
            "next_rebalance": following,
        }

    def equity_curve(
        self,
        build: AlphaBuild,
        book: str,
        window: tuple[date | None, date | None],
        limit: int,
        offset: int,
    ) -> tuple[Page, dict[str, Any]] | None:
        """Equity rows of `book` in the window and the summary of the whole window.

        Returns, peak and drawdown run over the whole window before paging, so every page shares
        the window's baseline: the opening equity of its first session counts toward the peak
        and is the base of `cumulative_return`.
        """
        return self._on_table(
            build, "portfolio", lambda table: self._equity_curve(table, book, window, limit, offset)
        )

    def _equity_curve(
        self, table: str, book: str, window: tuple[date | None, date | None], limit: int, offset: int
    ) -> tuple[Page, dict[str, Any]]:
        where, params = _where(_window_filters(window, Filter("book", "=", book)), _columns_of("portfolio"))
        ctes = f"""
            w AS (
                SELECT date, timestamp, starting_equity, ending_equity, gross_exposure, net_exposure, turnover,
                       CASE WHEN starting_equity IS NULL OR starting_equity = 0 THEN NULL
                            ELSE (ending_equity - starting_equity) / starting_equity END AS period_return
                FROM {_ident(table)}{where}
            ), c AS (
                SELECT *,
                       product(1 + period_return) OVER running - 1 AS cumulative_return,
                       max(greatest(starting_equity, ending_equity)) OVER running AS peak_equity
                FROM w
                WINDOW running AS (ORDER BY date ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            ), s AS (
                SELECT *, peak_equity - ending_equity AS drawdown,
                       CASE WHEN peak_equity > 0 THEN (peak_equity - ending_equity) / peak_equity * 100 END
                           AS drawdown_pct
                FROM c
            )
        """  # noqa: S608
        page_sql = f"""
            WITH {ctes}
            SELECT date, strftime(timestamp, '%Y-%m-%dT%H:%M:%SZ'), starting_equity, ending_equity, period_return,
                   cumulative_return, peak_equity, drawdown, drawdown_pct, gross_exposure, net_exposure, turnover
            FROM s ORDER BY date LIMIT ? OFFSET ?
        """  # noqa: S608
        summary_sql = f"""
            WITH {ctes}
            SELECT min(date), max(date), count(*), arg_min(starting_equity, date), arg_max(ending_equity, date),
                   max(peak_equity), arg_max(cumulative_return, date), max(drawdown), max(drawdown_pct),
                   (SELECT date FROM s WHERE drawdown_pct > 0 ORDER BY drawdown_pct DESC, date LIMIT 1)
            FROM s
        """  # noqa: S608
        names = (
            "date", "timestamp", "starting_equity", "ending_equity", "period_return", "cumulative_return",
            "peak_equity", "drawdown", "drawdown_pct", "gross_exposure", "net_exposure", "turnover",
        )  # fmt: skip
        with self._cursor() as cur:
            fetched = cur.execute(page_sql, [*params, limit, offset]).fetchall()
            summary_row = cur.execute(summary_sql, params).fetchone()
        rows = [dict(zip(names, raw, strict=True)) for raw in fetched]
        assert summary_row is not None
        first, last, sessions, start_eq, end_eq, peak, total_return, max_dd, max_dd_pct, dd_date = summary_row
        summary = {
            "book": book,
            "first_date": first,
            "last_date": last,
            "sessions": int(sessions),
            "starting_equity": start_eq,
            "ending_equity": end_eq,
            "peak_equity": peak,
            "total_return": total_return,
            "cumulative_return_pct": None if total_return is None else total_return * 100,
            "max_drawdown": max_dd,
            "max_drawdown_pct": max_dd_pct,
            "max_drawdown_date": dd_date,
        }
        # The window's row count is the summary's `sessions`: no `count(*) OVER ()` on the page,
        # which would stop DuckDB's top-N and sort every row of the window.
        return Page(rows=rows, total=int(sessions)), summary

    def benchmark_daily(
        self, bench: BenchmarkBuild, window: tuple[date | None, date | None], limit: int, offset: int
    ) -> tuple[Page, dict[str, Any]]:
        """Benchmark rows in the window with returns and drawdown from the window's first row.

        Returns use `adjusted_close` only when every row of the window has one (never mixed),
        else `close`; the basis is reported in the summary.
        """
        table = self._benchmark_table(bench)
        where, params = _where(_window_filters(window), _columns_of("benchmark_daily"))
        with self._cursor() as cur:
            n_rows, n_adjusted = cur.execute(
                f"SELECT count(*), count(adjusted_close) FROM {_ident(table)}{where}",  # noqa: S608
                params,
            ).fetchone()  # type: ignore[misc]
            basis = "adjusted_close" if n_rows > 0 and n_adjusted == n_rows else "close"
            price = _ident(basis)
            ctes = f"""
                w AS (SELECT date, close, {price} AS price FROM {_ident(table)}{where}),
                r AS (
                    SELECT date, close, price,
                           (price - lag(price) OVER (ORDER BY date)) / lag(price) OVER (ORDER BY date)
                               AS period_return,
                           price / first_value(price) OVER (ORDER BY date) - 1 AS cumulative_return,
                           max(price) OVER (ORDER BY date ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
                               AS peak
                    FROM w
                ),
                s AS (
                    SELECT date, close, period_return, cumulative_return,
                           CASE WHEN peak > 0 THEN (peak - price) / peak * 100 END AS drawdown_pct
                    FROM r
                )
            """  # noqa: S608
            fetched = cur.execute(
                f"WITH {ctes} SELECT * FROM s ORDER BY date LIMIT ? OFFSET ?",  # noqa: S608
                [*params, limit, offset],
            ).fetchall()
            summary_row = cur.execute(
                f"""WITH {ctes}
                    SELECT min(date), max(date), count(*), arg_min(close, date), arg_max(close, date),
                           arg_max(cumulative_return, date), max(drawdown_pct),
                           (SELECT date FROM s WHERE drawdown_pct > 0 ORDER BY drawdown_pct DESC, date LIMIT 1)
                    FROM s""",  # noqa: S608
                params,
            ).fetchone()
        names = ("date", "close", "period_return", "cumulative_return", "drawdown_pct")
        rows = [dict(zip(names, raw, strict=True)) for raw in fetched]
        assert summary_row is not None
        first, last, sessions, first_close, last_close, total_return, max_dd_pct, dd_date = summary_row
        summary = {
            "symbol": bench.symbol,
            "name": bench.entry.get("name") or bench.symbol,
            "return_basis": basis,
            "first_date": first,
            "last_date": last,
            "sessions": int(sessions),
            "first_close": first_close,
            "last_close": last_close,
            "total_return": total_return,
            "cumulative_return_pct": None if total_return is None else total_return * 100,
            "max_drawdown_pct": max_dd_pct,
            "max_drawdown_date": dd_date,
        }
        return Page(rows=rows, total=int(sessions)), summary

    def ping(self) -> None:
        """Raise LakeUnavailable when the lake root cannot be listed, or when a published alpha
        cannot be read (as of the catalogue's last re-read, `unreadable_alphas`)."""
        with self._lake_errors():
            self._check_root()
            self._storage.list_names(layout.alphas_dir(self.root))
        unreadable = self.unreadable_alphas()
        if unreadable:
            raise LakeUnavailable(f"published alphas cannot be read: {', '.join(sorted(unreadable))}")

    # -- loading ----------------------------------------------------------------------------------

    @contextmanager
    def _cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        # One cursor per call: cursors on one in-memory database are safe to use from many threads.
        cur = self._db.cursor()
        try:
            yield cur
        finally:
            cur.close()

    def _lake_errors(self) -> AbstractContextManager[None]:
        return lake_errors(self.root)

    def _on_table(self, build: AlphaBuild, table_name: str, run: Callable[[str], T]) -> T | None:
        """`run` on the build's table, loading it on first use; None when the table is absent.

        A catalogue refresh may drop an old build's tables between the lookup and the query; the
        query then reloads the table and runs once more. A second CatalogException right after a
        reload is a bug in the SQL, and is raised as one.
        """
        key = (build.alpha_id, build.build_id, table_name)
        table = self._table(*key[:2], build.build_dir, table_name)
        if table is None:
            return None
        try:
            return run(table)
        except duckdb.CatalogException:
            with self._lock:
                if self._tables.get(key) == table:
                    del self._tables[key]
            log.info("table %s of %s@%s was dropped mid-query; reloading", table_name, *key[:2])
        table = self._table(*key[:2], build.build_dir, table_name)
        return None if table is None else run(table)

    def _load(self, key: tuple[str, str, str], read: Callable[[], pa.Table | None]) -> str | None:
        """The DuckDB table of `key`, read and materialised once under a lock of its own."""
        with self._lock:
            if key in self._tables:
                return self._tables[key]
            load_lock = self._load_locks.setdefault(key, threading.Lock())
        with load_lock:
            with self._lock:
                if key in self._tables:  # loaded by the thread this one waited for
                    return self._tables[key]
            arrow = read()
            name = None if arrow is None else self._materialise(arrow, key[2])
            with self._lock:
                self._tables[key] = name
                self._load_locks.pop(key, None)
            return name

    def _table(self, alpha_id: str, build_id: str, build_dir: str, table: str) -> str | None:
        return self._load((alpha_id, build_id, table), lambda: self._read_arrow(build_dir, table))

    def _benchmark_table(self, bench: BenchmarkBuild) -> str:
        def read() -> pa.Table:
            path = layout.join(bench.build_dir, layout.BENCHMARK_DAILY)
            with self._lake_errors():
                return pq.read_table(path, filesystem=self._storage.fs)

        name = self._load(("benchmark:" + bench.symbol, bench.build_id, "benchmark_daily"), read)
        assert name is not None
        return name

    def _read_arrow(self, build_dir: str, table: str) -> pa.Table | None:
        fs = self._storage.fs
        with self._lake_errors():
            if table in layout.SINGLE_FILE_TABLES:
                path = layout.table_path(build_dir, table)
                return pq.read_table(path, filesystem=fs) if self._storage.exists(path) else None
            folder = layout.join(build_dir, table)
            if not self._storage.exists(folder):
                return None
            parts = []
            for partition in self._storage.list_names(folder):
                name, _, value = partition.partition("=")
                path = layout.join(folder, partition, layout.PART_FILE)
                if not self._storage.exists(path):
                    continue
                part = pq.read_table(path, filesystem=fs)
                if table in layout.BOOK_PARTITIONED_TABLES and name == "book":
                    part = part.append_column("book", pa.array([value] * part.num_rows, pa.string()))
                parts.append(part.select([c for c in _columns_of(table) if c in part.column_names]))
            if not parts:
                return None
            return pa.concat_tables(parts, promote_options="default")

    def _materialise(self, arrow: pa.Table, table: str) -> str:
        # The DuckDB name is derived from a counter, never from request values.
        name = f"t{next(self._table_numbers)}"
        view = f"{name}_arrow"
        timestamps = [f.name for f in arrow.schema if pa.types.is_timestamp(f.type)]
        replace = ", ".join(f"{_ident(c)}::TIMESTAMP AS {_ident(c)}" for c in timestamps)
        select = f"* REPLACE ({replace})" if replace else "*"
        order = {
            "decisions": "date, symbol",
            "positions": "book, date, symbol",
            "pnl": "book, date, symbol",
            "trades": "book, timestamp, symbol",
            "portfolio": "book, date",
        }.get(table, "")
        order_sql = f" ORDER BY {order}" if order else ""
        # On a cursor of its own: loads of different tables run in parallel threads.
        with self._lake_errors(), self._cursor() as cur:
            cur.register(view, arrow)
            try:
                cur.execute(
                    f"CREATE OR REPLACE TABLE {_ident(name)} AS SELECT {select} FROM {_ident(view)}{order_sql}"  # noqa: S608
                )
            finally:
                cur.unregister(view)
        return name


def _window_filters(window: tuple[date | None, date | None], *filters: Filter) -> list[Filter]:
    start, end = window
    found = list(filters)
    if start is not None:
        found.append(Filter("date", ">=", start))
    if end is not None:
        found.append(Filter("date", "<=", end))
    return found
