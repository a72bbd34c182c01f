"""`/v1/analytics/combine` (a weighted book of alphas) and
`/v1/alphas/{alpha}/analytics/contribution` (what adding the alpha does to a reference set),
docs/analytics.md "Combination" and "Marginal contribution".

Both read the set's daily long_short returns from the catalogue's returns matrix (one row per
alpha, one column per session: a set of 50 among 10,000 alphas is 50 rows of a memory-mapped
file), never opening a build. The set's rules are one (`analytics.sets`): the list, then
authorisation of every id before any lookup, then lookup, then data. The returns are the ledger's,
so a key that may not read the ledger gets 403 naming the route it needs, as every collection
built from it. The handlers parse, authorise and ask: the parameters' rules and the answers are
`analytics.combined`'s and `analytics.contribution`'s, as a notebook's
(`analytics.figures.Figures.combine`, `.contribution`).

Combine is JSON only (its Struct has no `format`): its meta holds the weights, the figures and
the correlation matrix, which a columnar page could only carry in headers.
"""

from __future__ import annotations

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics.entries import window_echo
from datasets.queries import Page, Window
from schemas import choices
from schemas.bodies.analytics import SET_SESSIONS
from schemas.bodies.decisions import Contribution
from schemas.bodies.envelope import Collection, Single
from schemas.bodies.rows import CombinedRow
from schemas.query import CombineQuery, ContributionQuery
from serve.envelope import single, with_warnings
from serve.routes.base import Ctx
from serve.routes.declare import route

BOOK = choices.DEFAULT_BOOK


@route(
    "analytics.combine",
    "/v1/analytics/combine",
    "A weighted combination of alphas: its daily series, figures, weights and correlations",
    meta=(
        "window",
        "benchmark",
        "alphas",
        "weighting",
        "shrinkage",
        "weights",
        "fit",
        "sessions",
        "session_rule",
        "figures",
        "correlation",
    ),
    documented="One row per session of the combined long_short book, " + SET_SESSIONS,
)
async def combine_alphas(ctx: Ctx[CombineQuery]) -> Response[Collection[CombinedRow]]:
    args = ctx.args()
    reading = ctx.reading()
    answer = await to_thread.run_sync(reading.combine, args)
    ctx.validate_with("combine:" + answer.version)
    found = answer.data
    window: Window = (args.start, args.end)
    meta = ctx.meta(source=f"lake:catalogue_index@{answer.version}", book=BOOK, window=window_echo(window))
    page = Page(found.rows(args.limit, args.offset), int(found.days.size))
    return ctx.collection(page, args.limit, args.offset, with_warnings(found.meta(meta), answer.warnings))


# -- contribution ---------------------------------------------------------------------------------


@route(
    "analytics.contribution",
    "/v1/alphas/{alpha:str}/analytics/contribution",
    "What adding the alpha does to a reference set's figures",
    documented=(
        "A reference set's equally weighted long_short book before and after adding the alpha at weight w, "
        "over the window's sessions on which the alpha has a return and at least one reference alpha does; on "
        "each, the reference book holds the reference alphas with a return that session (the book as it grew). "
        "With a weighting, the reference book is instead the set combined as /analytics/combine combines it"
    ),
)
async def get_contribution(
    ctx: Ctx[ContributionQuery], alpha: FromPath[str]
) -> Response[Single[Contribution]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    reading = ctx.reading()
    answer = await to_thread.run_sync(reading.contribution, build, args)
    ctx.validate_with("contribution:" + answer.version)
    meta = ctx.run_meta(build, "catalogue_index", source=f"lake:catalogue_index@{answer.version}")
    return single(answer.data, with_warnings(meta, answer.warnings))


ROUTES = [combine_alphas, get_contribution]
