"""Portfolio: books, the daily ledger, positions, per-symbol P&L, trades and the equity curve."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from datasets import queries, series
from datasets.reader import BuildView
from schemas import wire
from schemas.query import SERIES_DEFAULT_LIMIT
from serve import errors
from serve.envelope import with_warnings
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


def book_parameter(ctx: Context, build: BuildView, kind: str, required: bool = False) -> str:
    """The requested book, checked after every other parameter (unknown_book comes last)."""
    q = ctx.query
    book = q.values.get("book")
    if book is None and required:
        q.fail("book", "is required on this endpoint; pass one of the books in error.details.available")
        q.details["available"] = readable_books(ctx, build, kind)
    q.finish()
    book = book if book is not None else wire.DEFAULT_BOOK
    available = readable_books(ctx, build, kind)
    if book not in available:
        raise errors.UnknownBook(
            f"No book {book!r} of kind {kind} for this key; see error.details.available.",
            details={"book": book, "kind": kind, "available": available},
        )
    return book


def book_page(
    ctx: Context,
    build: BuildView,
    kind: str,
    table: str,
    columns: tuple[str, ...],
    symbol: bool,
    required: bool = False,
) -> Response[bytes]:
    q = ctx.query
    window = q.window()
    symbols = q.symbols() if symbol else None
    limit, offset = q.limit(), q.offset()
    book = book_parameter(ctx, build, kind, required)
    if kind not in build.kinds_present:
        return empty(ctx, build, table, kind, limit, offset, book=book)
    page = queries.book_page(build, table, book, window, symbols, columns, limit, offset)
    if page is None:
        return empty(ctx, build, table, kind, limit, offset, book=book)
    return ctx.collection(page.rows, page.total, limit, offset, ctx.run_meta(build, table, book=book))


@route("portfolio.books")
async def list_books(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    limit, offset = ctx.query.limit(), ctx.query.offset()
    ctx.query.finish()
    rows = queries.all_rows(build, "books", wire.BOOK_FIELDS) or []
    visible = [r for r in rows if ctx.caller.expose_raw_book or not wire.is_raw_book(r["book"])]
    visible.sort(key=lambda r: (wire.book_order_key(r["book"]), wire.kind_rank(r["kind"])))
    page = queries.page_of(visible, limit, offset)
    warnings = [wire.kind_missing(kind) for kind in wire.BOOK_KINDS if kind not in build.kinds_present]
    return ctx.collection(
        page.rows, page.total, limit, offset, with_warnings(ctx.run_meta(build, "books"), warnings)
    )


async def _resolved(request: Request[Any, Any, Any], alpha: str) -> tuple[Context, BuildView]:
    ctx = context(request)
    return ctx, await ctx.open_run(alpha)


@route("portfolio.ledger")
async def get_portfolio(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    if "symbol" in ctx.query.problems:
        ctx.query.problems["symbol"] = (
            "is not accepted on /portfolio (one ledger row per book per session); drop it or use /positions or /pnl"
        )
    return book_page(ctx, build, "portfolio", "portfolio", wire.PORTFOLIO_FIELDS, symbol=False)


@route("portfolio.positions")
async def list_positions(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    return book_page(ctx, build, "positions", "positions", wire.POSITION_FIELDS, symbol=True)


@route("portfolio.pnl")
async def list_pnl(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    return book_page(ctx, build, "pnl", "pnl", wire.PNL_FIELDS, symbol=True)


@route("portfolio.trades")
async def list_trades(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    return book_page(ctx, build, "trades", "trades", wire.TRADE_FIELDS, symbol=True, required=True)


@route("portfolio.equity_curve")
async def get_equity_curve(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx, build = await _resolved(request, alpha)
    q = ctx.query
    window = q.window()
    limit, offset = q.limit(SERIES_DEFAULT_LIMIT), q.offset()
    book = book_parameter(ctx, build, "portfolio")
    result = (
        series.equity_curve(build, book, window, limit, offset)
        if "portfolio" in build.kinds_present
        else None
    )
    if result is None:
        summary = {name: None for name in wire.EQUITY_SUMMARY_FIELDS} | {"book": book, "sessions": 0}
        return empty(ctx, build, "portfolio", "portfolio", limit, offset, book=book, summary=summary)
    page, summary = result
    return ctx.collection(
        page.rows, page.total, limit, offset, ctx.run_meta(build, "portfolio", book=book, summary=summary)
    )


ROUTES = [list_books, get_portfolio, list_positions, list_pnl, list_trades, get_equity_curve]
