"""`/analytics/compare`: this alpha against another over one book and window (docs/analytics.md,
"Comparison").

Both alphas are authorised before either is looked up: the path alpha as on every run-scoped route
(403, then 404), the other (`with`) as a parameter: 403 `run_not_allowed` when the key may not read
it, whether it exists or not, and a 400 naming `with` when the key may read it but there is no such
alpha (or it is the path alpha). The book must exist in both builds.
"""

from __future__ import annotations

from typing import Any

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics.comparison import require_other
from core import errors
from datasets import answers
from datasets.reader import BuildView
from schemas.bodies.analytics import WINDOW
from schemas.bodies.comparison import Comparison
from schemas.bodies.envelope import EnvelopeMeta, Single
from schemas.bodies.service import Warning
from schemas.query import CompareQuery
from serve.envelope import single, with_warnings
from serve.routes.base import Context, Ctx
from serve.routes.declare import route
from serve.scope import resolve

KINDS = ("portfolio", "decisions")


async def _other(ctx: Context, alpha: str, other: str) -> BuildView:
    """The build of `with`: authorised before lookup, as the path alpha is."""
    require_other(alpha, other)
    try:
        found = resolve.resolve_run(ctx.caller, ctx.reader, other)
    except errors.RunNotAllowed as refused:
        refused.details["parameter"] = "with"  # as a set's member is named (analytics.sets)
        raise
    except errors.RunNotFound:
        raise errors.bad_parameters({"with": f"no alpha {other!r}"}) from None
    return await resolve.open_view(ctx.reader, found)


def _meta(ctx: Context, a: BuildView, b: BuildView, book: str, warnings: list[Warning]) -> EnvelopeMeta[Any]:
    """`meta` with a `kind_missing` warning for each kind either run never sealed (what is built
    from it is empty or null), after the warnings the body raised."""
    entries = [
        *warnings,
        *answers.missing_kinds(a, KINDS, answers.BUILT_EMPTY),
        *answers.missing_kinds(b, KINDS, answers.BUILT_EMPTY, about=f"{b.alpha_id} (with): "),
    ]
    meta = ctx.run_meta(a, "portfolio", book=book, with_source=f"lake:portfolio@{b.build_id}")
    return with_warnings(meta, entries)


@route(
    "analytics.compare",
    "/v1/alphas/{alpha:str}/analytics/compare",
    "Two alphas side by side: curves, rolling correlations and the significance of differences",
    meta=("with_source",),
    documented=(
        "This alpha against another (with) over one book and "
        + WINDOW
        + ": compounded curves, rolling correlations, and each headline figure's difference with its paired "
        "test"
    ),
)
async def get_compare(ctx: Ctx[CompareQuery], alpha: FromPath[str]) -> Response[Single[Comparison]]:
    a = await ctx.open_run(alpha)
    args = ctx.args()
    b = await _other(ctx, a.alpha_id, args.other)
    # A row per common session in three series: milliseconds over a long history, so in a worker
    # thread, as significance's bootstrap.
    answer = await to_thread.run_sync(ctx.reading().compare, a, b, args)
    # The answer depends on both builds (and the query and key, which the tag includes).
    ctx.validate_with(answer.version)
    return single(answer.data, _meta(ctx, a, b, args.book, answer.warnings))


ROUTES: list[Any] = [get_compare]
