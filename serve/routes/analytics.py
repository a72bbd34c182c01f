"""Analytics: significance, correlation to the catalogue, drawdown episodes, rolling and cost views,
and their documentation block (docs/analytics.md).

Each route authorises and resolves the alpha first (as every run-scoped route), then reads its
build; the per-build tables come from the pipeline, the catalogue-wide figures from
`serve.analytics.catalogue`. Work that can take milliseconds runs in a worker thread.
"""

from __future__ import annotations

import hashlib
from functools import partial
from typing import Any, TypeVar

from anyio import to_thread
from litestar import Request, Response
from litestar.params import FromPath

from datasets.queries import Window, day_numbers, page_of, window_bounds
from datasets.reader import BuildView
from datasets.rows import shape_of
from schemas import wire
from schemas.query import (
    BookWindowPageQuery,
    BookWindowQuery,
    CorrelationQuery,
    RollingQuery,
    SignificanceQuery,
)
from serve.analytics import inputs, payloads
from serve.analytics.catalogue import CatalogueFigures, open_builds
from serve.analytics.doc import shared_analytics_doc
from serve.analytics.episodes import drawdown_rows
from serve.auth import services_of
from serve.envelope import single, with_warnings
from serve.routes.base import Context, context, documentation_block
from serve.routes.declare import route
from serve.routes.portfolio import checked_book

BookArgs = TypeVar("BookArgs", BookWindowPageQuery, RollingQuery, BookWindowQuery)


def _catalogue(ctx: Context) -> CatalogueFigures:
    services = services_of(ctx.request)
    if services.catalogue is None:
        services.catalogue = CatalogueFigures()
    catalogue: CatalogueFigures = services.catalogue
    return catalogue


def _validate_with_catalogue(ctx: Context, build: BuildView, builds: frozenset[tuple[str, str]]) -> None:
    """The answer depends on other builds too: its tag names all of them."""
    digest = hashlib.sha256(repr(sorted(builds)).encode()).hexdigest()[:16]
    ctx.validate_with(f"{build.build_id}+{digest}")


BASIS_KIND = {"returns": "portfolio", "ic": "decisions", "scores": "decisions"}
"""The seal kind each correlation basis is built from."""


def _missing(build: BuildView, kind: str, meta: dict[str, Any]) -> dict[str, Any]:
    """`meta` with a `kind_missing` warning when the run never sealed `kind` (its figures are then
    empty or not_measurable, as every route answers a missing kind)."""
    if kind in build.kinds_present:
        return meta
    warning = {
        "code": "kind_missing",
        "kind": kind,
        "message": f"The run did not write the {kind} dataset; what is built from it is empty or null.",
    }
    return with_warnings(meta, [*meta.get("warnings", []), warning])


@route("analytics.significance")
async def get_significance(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    args = ctx.args(SignificanceQuery)
    inputs.require_built(build)
    trials = await to_thread.run_sync(_catalogue(ctx).trials, ctx.reader)
    _validate_with_catalogue(ctx, build, trials.builds)
    window: Window = (args.start, args.end)
    data = await to_thread.run_sync(
        payloads.significance_payload, build, window, args.sr_benchmark, args.trials, trials
    )
    return single(data, _missing(build, "portfolio", ctx.run_meta(build, "analytics_significance")))


@route("analytics.correlation")
async def list_correlation(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    args = ctx.args(CorrelationQuery)
    inputs.require_built(build)
    caller = ctx.caller
    everything = ctx.reader.alphas()
    # Only alphas this key may read, and never the alpha itself: nothing else is counted or named.
    others = [
        everything[a]
        for a in sorted(everything)
        if a != build.alpha_id and caller.may_read_alpha(a) and caller.may_read_run(a)
    ]
    window: Window = (args.start, args.end)
    catalogue = _catalogue(ctx)

    def compute() -> list[dict[str, Any]]:
        views = open_builds(ctx.reader, others)
        return [
            payloads.correlation_row(
                view.alpha_id, args.basis, catalogue.pair(args.basis, build, view, window)
            )
            for view in views
        ]

    rows = payloads.sort_correlations(await to_thread.run_sync(compute))
    _validate_with_catalogue(ctx, build, frozenset((b.alpha_id, b.build_id) for b in others))
    page = page_of(rows, args.limit, args.offset)
    meta = ctx.run_meta(build, "analytics_correlation", basis=args.basis)
    return ctx.collection(
        page.rows, page.total, args.limit, args.offset, _missing(build, BASIS_KIND[args.basis], meta)
    )


async def _book_scoped(ctx: Context, alpha: str, query: type[BookArgs]) -> tuple[BuildView, BookArgs, str]:
    """The build, the parsed parameters and the checked book of a book-scoped analytics route."""
    build = await ctx.open_run(alpha)
    args = ctx.args(query)
    inputs.require_built(build)
    return build, args, checked_book(ctx, build, "portfolio", args.book)


@route("analytics.drawdowns")
async def list_drawdowns(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build, args, book = await _book_scoped(ctx, alpha, BookWindowPageQuery)
    rows = drawdown_rows(build, book, (args.start, args.end))
    page = page_of(rows, args.limit, args.offset)
    meta = ctx.run_meta(build, "analytics_drawdowns", book=book)
    return ctx.collection(page.rows, page.total, args.limit, args.offset, _missing(build, "portfolio", meta))


@route("analytics.rolling")
async def list_rolling(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build, args, book = await _book_scoped(ctx, alpha, RollingQuery)
    window_weeks = int(args.window)
    table = inputs.table_rows(build, "analytics_rolling", book, window_weeks=window_weeks)
    rows: list[Any] = []
    if table is not None:
        a, b = window_bounds(day_numbers(table), (args.start, args.end))
        part = table.slice(a + args.offset, max(0, min(args.limit, b - a - args.offset)))
        rows = shape_of(wire.ROLLING_FIELDS).rows(part)
        total = b - a
    else:
        total = 0
    meta = ctx.run_meta(build, "analytics_rolling", book=book, window_weeks=window_weeks)
    for kind in ("rebalances", "portfolio"):
        meta = _missing(build, kind, meta)
    return ctx.collection(rows, total, args.limit, args.offset, meta)


@route("analytics.costs")
async def get_costs(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build, args, book = await _book_scoped(ctx, alpha, BookWindowQuery)
    data = await to_thread.run_sync(partial(payloads.costs_payload, build, book, (args.start, args.end)))
    return single(data, _missing(build, "portfolio", ctx.run_meta(build, "analytics_costs")))


@route("analytics.doc", sync_to_thread=False)
def get_analytics_doc(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    return documentation_block(request, alpha, shared_analytics_doc())


ROUTES = [get_significance, list_correlation, list_drawdowns, list_rolling, get_costs, get_analytics_doc]
