"""Signals: the rebalance index, one week's cross-section, and the flattened score panel."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from datasets import answers
from schemas.query import ScoresQuery, WeekQuery, WindowPageQuery
from serve.params import parse_date
from serve.routes.base import context
from serve.routes.declare import route


@route("signals.rebalances.list")
async def list_rebalances(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.rebalances(build, ctx.args(WindowPageQuery)))


@route("signals.rebalances.get")
async def get_rebalance(
    request: Request[Any, Any, Any], alpha: FromPath[str], date: FromPath[str]
) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    day = parse_date(date)
    bad_date = f"path date must be a calendar date YYYY-MM-DD; got {date!r}"
    args = ctx.args(WeekQuery, problems={"date": bad_date} if day is None else None)
    assert day is not None
    return ctx.answer(build, answers.week(build, day, args, ctx.raw))


@route("signals.scores")
async def list_scores(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    return ctx.answer(build, answers.scores(build, ctx.args(ScoresQuery), ctx.raw))


ROUTES = [list_rebalances, get_rebalance, list_scores]
