"""The analytics of one alpha (`/v1/alphas/{alpha}/analytics/<name>`): one route per served answer,
derived from its declaration (`analytics.answer.served` on a `Reading` method), and the analytics'
documentation block (docs/analytics.md).

A derived route does what every run-scoped route does, in this order: authorise and find the alpha
(403, then 404), parse its query (a 400 before a 503 about the build's age, which the answer
checks), ask `Reading.<name>` in the key's scope (in a worker thread unless the declaration says the
work is cheaper than the hop), validate the response with the answer's version (its ETag), and
answer its `data` with the run's identity, the declared `meta`, the answer's warnings and a
`kind_missing` warning for each kind the run never sealed. A figure built from data the key may not
read is not_measurable with an `access_limited` warning in a single object, and a 403 naming the
route it lacks for a collection built from it (the answer raises it). Nothing here is about one
figure: a new figure of one alpha is a new declaration, not a new handler.
"""

from __future__ import annotations

import typing
from typing import Any

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics.answer import Served
from analytics.reading import SERVED, Reading
from datasets import answers
from schemas.bodies.docs import AnalyticsDoc
from schemas.bodies.envelope import Collection, Single
from schemas.query import NoQuery
from serve.envelope import single, with_warnings
from serve.routes.base import Context, Ctx, documentation_block
from serve.routes.declare import route


def _served_route(served: Served) -> Any:
    """The handler of `served`, its signature (query, path, answer) read off the `Reading` method."""
    hints = typing.get_type_hints(getattr(Reading, served.name))
    # The types are built at run time from the declaration: values here, hence Any for mypy.
    query: Any = hints["q"]
    envelope: Any = Single if served.rows is None else Collection
    answered = envelope[served.rows or typing.get_args(hints["return"])[0]]
    context: Any = Ctx
    response: Any = Response

    async def handler(ctx: Context[Any], alpha: str) -> Any:
        build = await ctx.open_run(alpha)
        args = ctx.args()
        ask = getattr(ctx.reading(), served.name)
        on_loop = served.on_loop(args) if callable(served.on_loop) else served.on_loop
        answer = ask(build, args) if on_loop else await to_thread.run_sync(ask, build, args)
        extra = dict(served.meta(args))
        if served.over_catalogue:
            # Of the catalogue index of one generation: its version names the builds it read.
            ctx.validate_with(f"{served.name}:{answer.version}")
            table = "catalogue_index"
            extra["source"] = f"lake:catalogue_index@{answer.version}"
        else:
            ctx.validate_with(answer.version)
            table = served.table(args) if callable(served.table) else served.table
        kinds = served.kinds(args) if callable(served.kinds) else served.kinds
        missing = answers.missing_kinds(build, kinds, answers.BUILT_EMPTY)
        meta = with_warnings(ctx.run_meta(build, table, **extra), [*answer.warnings, *missing])
        if served.rows is not None:
            return ctx.collection(answer.data, args.limit, args.offset, meta)
        return single(answer.data, meta)

    handler.__name__ = handler.__qualname__ = f"analytics_{served.name}"
    handler.__annotations__ = {"ctx": context[query], "alpha": FromPath[str], "return": response[answered]}
    path = f"/v1/alphas/{{alpha:str}}/analytics/{served.name}"
    return route(served.endpoint, path, served.summary, meta=served.meta_keys, documented=served.documented)(
        handler
    )


@route(
    "analytics.doc",
    "/v1/alphas/{alpha:str}/analytics/_doc",
    "Analytics documentation block",
    sync_to_thread=False,
)
def get_analytics_doc(ctx: Ctx[NoQuery], alpha: FromPath[str]) -> Response[Single[AnalyticsDoc]]:
    return documentation_block(ctx, alpha, ctx.analytics_doc)


ROUTES = [*(_served_route(served) for served in SERVED.values()), get_analytics_doc]
