"""Signals: the rebalance index, one week's cross-section, and the flattened score panel."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from datasets import queries
from datasets.reader import BuildView
from schemas import wire
from serve import errors
from serve.envelope import with_warnings
from serve.params import parse_date
from serve.routes.base import Context, context
from serve.routes.declare import route


def empty(
    ctx: Context, build: BuildView, table: str, kind: str, limit: int, offset: int, **meta: Any
) -> Response[bytes]:
    return ctx.collection(
        [], 0, limit, offset, with_warnings(ctx.run_meta(build, table, **meta), [wire.kind_missing(kind)])
    )


@route("signals.rebalances.list")
async def list_rebalances(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    window = ctx.query.window()
    limit, offset = ctx.query.limit(), ctx.query.offset()
    ctx.query.finish()
    page = (
        queries.rebalance_index(build, window, wire.REBALANCE_INDEX_FIELDS, limit, offset)
        if "rebalances" in build.kinds_present
        else None
    )
    if page is None:
        return empty(ctx, build, "rebalances", "rebalances", limit, offset)
    return ctx.collection(page.rows, page.total, limit, offset, ctx.run_meta(build, "rebalances"))


@route("signals.rebalances.get")
async def get_rebalance(
    request: Request[Any, Any, Any], alpha: FromPath[str], date: FromPath[str]
) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    q = ctx.query
    day = parse_date(date)
    if day is None:
        q.fail("date", f"path date must be a calendar date YYYY-MM-DD; got {date!r}")
    symbols = q.symbols()
    direction = q.direction()
    min_abs_weight = q.number("min_abs_weight", minimum=0)
    book = q.choice("book", wire.WEIGHT_BOOKS, wire.DEFAULT_BOOK) or wire.DEFAULT_BOOK
    sort = q.choice("sort", wire.REBALANCE_SORTS, "score") or "score"
    order = q.choice("order", wire.ORDERS, None) or wire.REBALANCE_DEFAULT_ORDER[sort]
    limit, offset = q.limit(), q.offset()
    q.finish()
    assert day is not None

    week = queries.find_week(build, day) if "rebalances" in build.kinds_present else None
    if week is None or not week.found:
        details = {
            name: getattr(week, name) if week is not None else None
            for name in ("first_rebalance", "last_rebalance", "previous_rebalance", "next_rebalance")
        }
        raise errors.RebalanceNotFound(
            f"{day.isoformat()} is not a rebalance date of {alpha}.",
            details={k: v.isoformat() if v is not None else None for k, v in details.items()},
        )
    meta = {"book": book, "date": day, "week_status": week.week_status, "n_symbols": week.n_symbols}

    weight_column = wire.WEIGHT_BOOKS[book]
    query = queries.WeekQuery(
        symbols=symbols,
        direction=direction,
        min_abs_weight=min_abs_weight,
        weight_column=weight_column,
        sort_column=wire.REBALANCE_SORTS[sort] or weight_column,
        order=order,
    )
    columns = wire.visible_fields(wire.DECISION_FIELDS, ctx.caller.expose_raw_book)
    page = (
        queries.week_page(build, week, query, columns, wire.OMIT_WHEN_NULL, limit, offset)
        if "decisions" in build.kinds_present
        else None
    )
    if page is None:
        return empty(ctx, build, "decisions", "decisions", limit, offset, **meta)
    return ctx.collection(page.rows, page.total, limit, offset, ctx.run_meta(build, "decisions", **meta))


@route("signals.scores")
async def list_scores(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    q = ctx.query
    window = q.window()
    symbols = q.symbols()
    fields = q.choice("fields", wire.SCORE_FIELDS_CHOICES, "core") or "core"
    limit, offset = q.limit(), q.offset()
    q.finish()
    columns = wire.visible_fields(wire.SCORE_FIELD_SETS[fields], ctx.caller.expose_raw_book)
    page = (
        queries.scores_page(build, window, symbols, columns, wire.OMIT_WHEN_NULL, limit, offset)
        if "decisions" in build.kinds_present
        else None
    )
    if page is None:
        return empty(ctx, build, "decisions", "decisions", limit, offset, fields=fields)
    return ctx.collection(
        page.rows, page.total, limit, offset, ctx.run_meta(build, "decisions", fields=fields)
    )


ROUTES = [list_rebalances, get_rebalance, list_scores]
