"""Portfolio: books, the daily ledger, positions, per-symbol P&L, trades and the equity curve."""

from __future__ import annotations

from litestar import Response
from litestar.params import FromPath

from analytics import series
from datasets import answers
from schemas.bodies.envelope import Collection, Series
from schemas.bodies.rows import BookRow, EquityRow, EquitySummary, LedgerRow, PnlRow, PositionRow, TradeRow
from schemas.query import BookQuery, BuildPageQuery, LedgerQuery, SeriesQuery, TradesQuery
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "portfolio.books",
    "/v1/alphas/{alpha:str}/books",
    "Books and kinds written",
)
async def list_books(ctx: Ctx[BuildPageQuery], alpha: FromPath[str]) -> Response[Collection[BookRow]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.books(build, ctx.args(), ctx.raw))


@route(
    "portfolio.ledger",
    "/v1/alphas/{alpha:str}/portfolio",
    "Daily ledger of a book",
)
async def get_portfolio(ctx: Ctx[LedgerQuery], alpha: FromPath[str]) -> Response[Collection[LedgerRow]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.book(build, "portfolio", ctx.args(), ctx.raw))


@route(
    "portfolio.positions",
    "/v1/alphas/{alpha:str}/positions",
    "Daily positions",
)
async def list_positions(ctx: Ctx[BookQuery], alpha: FromPath[str]) -> Response[Collection[PositionRow]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.book(build, "positions", ctx.args(), ctx.raw))


@route(
    "portfolio.pnl",
    "/v1/alphas/{alpha:str}/pnl",
    "Daily per-symbol P&L",
)
async def list_pnl(ctx: Ctx[BookQuery], alpha: FromPath[str]) -> Response[Collection[PnlRow]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.book(build, "pnl", ctx.args(), ctx.raw))


@route(
    "portfolio.trades",
    "/v1/alphas/{alpha:str}/trades",
    "Fills of a book",
)
async def list_trades(ctx: Ctx[TradesQuery], alpha: FromPath[str]) -> Response[Collection[TradeRow]]:
    build = await ctx.open_run(alpha)
    args = ctx.args(details=ctx.books_if_missing(build, "trades"))
    return ctx.answer(build, answers.book(build, "trades", args, ctx.raw))


@route(
    "portfolio.equity_curve",
    "/v1/alphas/{alpha:str}/equity-curve",
    "Equity curve of a book",
)
async def get_equity_curve(
    ctx: Ctx[SeriesQuery], alpha: FromPath[str]
) -> Response[Series[EquityRow, EquitySummary]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, series.equity_curve_answer(build, ctx.args(), ctx.raw))


ROUTES = [list_books, get_portfolio, list_positions, list_pnl, list_trades, get_equity_curve]
