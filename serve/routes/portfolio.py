"""Portfolio: books, the daily ledger, positions, per-symbol P&L, trades and the equity curve."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from datasets import answers
from schemas.query import BookQuery, LedgerQuery, PageQuery, SeriesQuery, TradesQuery
from serve.routes.base import context
from serve.routes.declare import route


@route("portfolio.books")
async def list_books(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.books(build, ctx.args(PageQuery), ctx.raw))


@route("portfolio.ledger")
async def get_portfolio(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.book(build, "portfolio", ctx.args(LedgerQuery), ctx.raw))


@route("portfolio.positions")
async def list_positions(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.book(build, "positions", ctx.args(BookQuery), ctx.raw))


@route("portfolio.pnl")
async def list_pnl(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.book(build, "pnl", ctx.args(BookQuery), ctx.raw))


@route("portfolio.trades")
async def list_trades(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    args = ctx.args(TradesQuery, details=ctx.books_if_missing(build, "trades"))
    return ctx.answer(build, answers.book(build, "trades", args, ctx.raw))


@route("portfolio.equity_curve")
async def get_equity_curve(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.equity_curve(build, ctx.args(SeriesQuery), ctx.raw))


ROUTES = [list_books, get_portfolio, list_positions, list_pnl, list_trades, get_equity_curve]
