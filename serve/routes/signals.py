"""Signals: the rebalance index, one week's cross-section, and the flattened score panel."""

from __future__ import annotations

from datetime import date
from typing import Any

from litestar import Request, Response, get
from litestar.params import FromPath

from datasets.reader import AlphaBuild, Filter, PageQuery
from schemas import wire
from serve import errors
from serve.envelope import collection, with_warnings
from serve.params import parse_date
from serve.resolve import resolve_run
from serve.routes.base import Context, context


def window_filters(window: tuple[date | None, date | None]) -> list[Filter]:
    start, end = window
    filters = []
    if start is not None:
        filters.append(Filter("date", ">=", start))
    if end is not None:
        filters.append(Filter("date", "<=", end))
    return filters


def drop_unsealed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Omit the fields served only when sealed (`entry_at`, `maturity_at`) where the run has none."""
    for row in rows:
        for name in wire.OMIT_WHEN_NULL:
            if name in row and row[name] is None:
                del row[name]
    return rows


def empty(
    ctx: Context, build: AlphaBuild, table: str, kind: str, limit: int, offset: int, **meta: Any
) -> Response[bytes]:
    return collection(
        [], 0, limit, offset, with_warnings(ctx.run_meta(build, table, **meta), [wire.kind_missing(kind)])
    )


@get(
    "/v1/alphas/{alpha:str}/rebalances",
    opt={"endpoint": "signals.rebalances.list"},
    sync_to_thread=True,
    operation_id="listRebalances",
)
def list_rebalances(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = resolve_run(ctx.caller, ctx.reader, alpha)
    window = ctx.query.window()
    limit, offset = ctx.query.limit(), ctx.query.offset()
    ctx.query.finish()
    query = PageQuery(
        "rebalances",
        wire.REBALANCE_INDEX_FIELDS,
        tuple(window_filters(window)),
        wire.ORDER_REBALANCES,
        limit,
        offset,
    )
    page = ctx.reader.page(build, query) if "rebalances" in build.kinds_present else None
    if page is None:
        return empty(ctx, build, "rebalances", "rebalances", limit, offset)
    return collection(page.rows, page.total, limit, offset, ctx.run_meta(build, "rebalances"))


@get(
    "/v1/alphas/{alpha:str}/rebalances/{date:str}",
    opt={"endpoint": "signals.rebalances.get"},
    sync_to_thread=True,
    operation_id="getRebalance",
)
def get_rebalance(
    request: Request[Any, Any, Any], alpha: FromPath[str], date: FromPath[str]
) -> Response[bytes]:
    ctx = context(request)
    build = resolve_run(ctx.caller, ctx.reader, alpha)
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

    week = ctx.reader.rebalance_neighbours(build, day) if "rebalances" in build.kinds_present else None
    if week is None or not week["found"]:
        details = {
            k: (week or {}).get(k)
            for k in ("first_rebalance", "last_rebalance", "previous_rebalance", "next_rebalance")
        }
        raise errors.RebalanceNotFound(
            f"{day.isoformat()} is not a rebalance date of {alpha}.",
            details={k: v.isoformat() if v is not None else None for k, v in details.items()},
        )
    meta = {"book": book, "date": day, "week_status": week["week_status"], "n_symbols": week["n_symbols"]}

    weight_column = wire.WEIGHT_BOOKS[book]
    filters = [Filter("date", "=", day)]
    if symbols is not None:
        filters.append(Filter("symbol", "in", symbols))
    if direction is not None:
        filters.append(Filter("direction", "=", direction))
    if min_abs_weight is not None:
        filters.append(Filter(weight_column, "abs>=", min_abs_weight))
    sort_column = wire.REBALANCE_SORTS[sort] or weight_column
    ordering = (
        ((sort_column, order),) if sort_column == "symbol" else ((sort_column, order), ("symbol", "asc"))
    )
    columns = wire.visible_fields(wire.DECISION_FIELDS, ctx.caller.expose_raw_book)
    query = PageQuery("decisions", columns, tuple(filters), ordering, limit, offset)
    page = ctx.reader.page(build, query) if "decisions" in build.kinds_present else None
    if page is None:
        return empty(ctx, build, "decisions", "decisions", limit, offset, **meta)
    return collection(
        drop_unsealed(page.rows), page.total, limit, offset, ctx.run_meta(build, "decisions", **meta)
    )


@get(
    "/v1/alphas/{alpha:str}/scores",
    opt={"endpoint": "signals.scores"},
    sync_to_thread=True,
    operation_id="listScores",
)
def list_scores(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = resolve_run(ctx.caller, ctx.reader, alpha)
    q = ctx.query
    window = q.window()
    symbols = q.symbols()
    fields = q.choice("fields", wire.SCORE_FIELDS_CHOICES, "core") or "core"
    limit, offset = q.limit(), q.offset()
    q.finish()
    filters = window_filters(window)
    if symbols is not None:
        filters.append(Filter("symbol", "in", symbols))
    columns = wire.visible_fields(wire.SCORE_FIELD_SETS[fields], ctx.caller.expose_raw_book)
    query = PageQuery("decisions", columns, tuple(filters), wire.ORDER_SCORES, limit, offset)
    page = ctx.reader.page(build, query) if "decisions" in build.kinds_present else None
    if page is None:
        return empty(ctx, build, "decisions", "decisions", limit, offset, fields=fields)
    return collection(
        drop_unsealed(page.rows), page.total, limit, offset, ctx.run_meta(build, "decisions", fields=fields)
    )


ROUTES = [list_rebalances, get_rebalance, list_scores]
