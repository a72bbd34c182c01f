"""Signals: the rebalance index, one week's cross-section, and the flattened score panel."""

from __future__ import annotations

from litestar import Response
from litestar.params import FromPath

from datasets import answers
from schemas.bodies.envelope import Collection
from schemas.bodies.rows import DecisionRow, RebalanceIndexRow, ScoreRow
from schemas.query import ScoresQuery, WeekQuery, WindowPageQuery
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "signals.rebalances.list",
    "/v1/alphas/{alpha:str}/rebalances",
    "Rebalance index",
)
async def list_rebalances(
    ctx: Ctx[WindowPageQuery], alpha: FromPath[str]
) -> Response[Collection[RebalanceIndexRow]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.rebalances(build, ctx.args()))


@route(
    "signals.rebalances.get",
    "/v1/alphas/{alpha:str}/rebalances/{date:str}",
    "Cross-section of one rebalance week",
    meta=("date", "week_status", "n_symbols"),
)
async def get_rebalance(ctx: Ctx[WeekQuery], alpha: FromPath[str]) -> Response[Collection[DecisionRow]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.week(build, ctx.args(), ctx.raw))


@route(
    "signals.scores",
    "/v1/alphas/{alpha:str}/scores",
    "Per-symbol per-week score panel",
    meta=("fields",),
)
async def list_scores(ctx: Ctx[ScoresQuery], alpha: FromPath[str]) -> Response[Collection[ScoreRow]]:
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.scores(build, ctx.args(), ctx.raw))


ROUTES = [list_rebalances, get_rebalance, list_scores]
