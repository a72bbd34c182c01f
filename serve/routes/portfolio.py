"""Portfolio: books, the daily ledger, positions, per-symbol P&L, trades and the equity curve."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from datasets import queries, series
from datasets.reader import BuildView
from schemas import wire
from schemas.query import BookQuery, LedgerQuery, PageQuery, SeriesQuery, TradesQuery
from serve import errors
from serve.envelope import with_warnings
from serve.params import tickers
from serve.routes.base import Context, context
from serve.routes.declare import route
from serve.routes.signals import empty


def readable_books(ctx: Context, build: BuildView, kind: str) -> list[str]:
    """Books of `kind` the caller may see; `raw_` books do not exist for keys without raw access.

    A kind the run never wrote is still addressed by the books the run simulated (its page is empty
    with a `kind_missing` warning), so `book` is checked the same way whether or not data exists.
    """
    books: tuple[str, ...] | list[str] = build.books_of(kind)
    if kind not in build.kinds_present:
        simulated = {b for k in wire.BOOK_KINDS for b in build.books_of(k)}
        books = [b for b in simulated if kind == "trades" or b in wire.BASE_BOOKS] or list(wire.BASE_BOOKS)
    return wire.books_in_order([b for b in books if ctx.caller.expose_raw_book or not wire.is_raw_book(b)])


def checked_book(ctx: Context, build: BuildView, kind: str, book: str) -> str:
    """The requested book, checked after every parameter (unknown_book comes after a 400)."""
    available = readable_books(ctx, build, kind)
    if book not in available:
        raise errors.UnknownBook(
            f"No book {book!r} of kind {kind} for this key; see error.details.available.",
            details={"book": book, "kind": kind, "available": available},
        )
    return book


def books_if_missing(ctx: Context, build: BuildView, kind: str) -> dict[str, Any] | None:
    """The `error.details` a missing required `book` adds to the 400: the books it may name (read
    only then, not on every request)."""
    return None if "book" in ctx.query.values else {"available": readable_books(ctx, build, kind)}


BookArgs = BookQuery | LedgerQuery | TradesQuery


def book_page(
    ctx: Context, build: BuildView, kind: str, args: BookArgs, columns: tuple[str, ...]
) -> Response[bytes]:
    table, limit, offset = kind, args.limit, args.offset
    book = checked_book(ctx, build, kind, args.book)
    if kind not in build.kinds_present:
        return empty(ctx, build, table, kind, limit, offset, book=book)
    symbols = tickers(args.symbol) if not isinstance(args, LedgerQuery) else None
    page = queries.book_page(build, table, book, (args.start, args.end), symbols, columns, limit, offset)
    if page is None:
        return empty(ctx, build, table, kind, limit, offset, book=book)
    return ctx.collection(page, limit, offset, ctx.run_meta(build, table, book=book))


@route("portfolio.books")
async def list_books(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    args = ctx.args(PageQuery)
    limit, offset = args.limit, args.offset
    rows = queries.all_rows(build, "books", wire.BOOK_FIELDS) or []
    visible = [r for r in rows if ctx.caller.expose_raw_book or not wire.is_raw_book(r["book"])]
    visible.sort(key=lambda r: (wire.book_order_key(r["book"]), wire.kind_rank(r["kind"])))
    page = queries.page_of(visible, limit, offset)
    warnings = [wire.kind_missing(kind) for kind in wire.BOOK_KINDS if kind not in build.kinds_present]
    return ctx.collection(page, limit, offset, with_warnings(ctx.run_meta(build, "books"), warnings))


async def _resolved(request: Request[Any, Any, Any], alpha: str) -> tuple[Context, BuildView]:
    ctx = context(request)
    return ctx, await ctx.open_run(alpha)


@route("portfolio.ledger")
async def get_portfolio(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    return book_page(ctx, build, "portfolio", ctx.args(LedgerQuery), wire.PORTFOLIO_FIELDS)


@route("portfolio.positions")
async def list_positions(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    return book_page(ctx, build, "positions", ctx.args(BookQuery), wire.POSITION_FIELDS)


@route("portfolio.pnl")
async def list_pnl(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    return book_page(ctx, build, "pnl", ctx.args(BookQuery), wire.PNL_FIELDS)


@route("portfolio.trades")
async def list_trades(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    args = ctx.args(TradesQuery, details=books_if_missing(ctx, build, "trades"))
    return book_page(ctx, build, "trades", args, wire.TRADE_FIELDS)


@route("portfolio.equity_curve")
async def get_equity_curve(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    args = ctx.args(SeriesQuery)
    window, limit, offset = (args.start, args.end), args.limit, args.offset
    book = checked_book(ctx, build, "portfolio", args.book)
    result = (
        series.equity_curve(build, book, window, limit, offset)
        if "portfolio" in build.kinds_present
        else None
    )
    if result is None:
        summary = {name: None for name in wire.EQUITY_SUMMARY_FIELDS} | {"book": book, "sessions": 0}
        return empty(ctx, build, "portfolio", "portfolio", limit, offset, book=book, summary=summary)
    page, summary = result
    return ctx.collection(page, limit, offset, ctx.run_meta(build, "portfolio", book=book, summary=summary))


ROUTES = [list_books, get_portfolio, list_positions, list_pnl, list_trades, get_equity_curve]
