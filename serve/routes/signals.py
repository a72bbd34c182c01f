"""Signals: the rebalance index, one week's cross-section, and the flattened score panel."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from datasets import queries
from datasets.queries import Page
from datasets.reader import BuildView
from schemas import choices, wire
from schemas.query import ScoresQuery, WeekQuery, WindowPageQuery
from serve import errors
from serve.envelope import with_warnings
from serve.params import parse_date, tickers
from serve.routes.base import Context, context
from serve.routes.declare import route


def empty(
    ctx: Context,
    build: BuildView,
    table: str,
    kind: str,
    limit: int,
    offset: int,
    columns: tuple[str, ...] | None = None,
    **meta: Any,
) -> Response[bytes]:
    """An empty page of a run without `kind`; `columns`, when not the endpoint's row fields."""
    return ctx.collection(
        Page([], 0, columns),
        limit,
        offset,
        with_warnings(ctx.run_meta(build, table, **meta), [wire.kind_missing(kind)]),
    )


@route("signals.rebalances.list")
async def list_rebalances(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    args = ctx.args(WindowPageQuery)
    window, limit, offset = (args.start, args.end), args.limit, args.offset
    page = (
        queries.rebalance_index(build, window, wire.REBALANCE_INDEX_FIELDS, limit, offset)
        if "rebalances" in build.kinds_present
        else None
    )
    if page is None:
        return empty(ctx, build, "rebalances", "rebalances", limit, offset)
    return ctx.collection(page, limit, offset, ctx.run_meta(build, "rebalances"))


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
    book, sort, limit, offset = args.book, args.sort, args.limit, args.offset
    order = args.order or choices.REBALANCE_DEFAULT_ORDER[sort]

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
    meta: dict[str, Any] = {
        "book": book,
        "date": day,
        "week_status": week.week_status,
        "n_symbols": week.n_symbols,
    }

    weight_column = choices.WEIGHT_BOOKS[book]
    query = queries.WeekQuery(
        symbols=tickers(args.symbol),
        direction=choices.DIRECTIONS[args.direction] if args.direction is not None else None,
        min_abs_weight=args.min_abs_weight,
        weight_column=weight_column,
        sort_column=choices.REBALANCE_SORTS[sort] or weight_column,
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
    return ctx.collection(page, limit, offset, ctx.run_meta(build, "decisions", **meta))


@route("signals.scores")
async def list_scores(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    args = ctx.args(ScoresQuery)
    window, symbols = (args.start, args.end), tickers(args.symbol)
    fields, limit, offset = args.fields, args.limit, args.offset
    columns = wire.visible_fields(wire.SCORE_FIELD_SETS[fields], ctx.caller.expose_raw_book)
    page = (
        queries.scores_page(build, window, symbols, columns, wire.OMIT_WHEN_NULL, limit, offset)
        if "decisions" in build.kinds_present
        else None
    )
    if page is None:
        return empty(ctx, build, "decisions", "decisions", limit, offset, columns, fields=fields)
    return ctx.collection(page, limit, offset, ctx.run_meta(build, "decisions", fields=fields))


ROUTES = [list_rebalances, get_rebalance, list_scores]
