"""Performance: `/metrics` (computed from the build's materialised series) and `/metrics/_doc`."""

from __future__ import annotations

import msgspec
from litestar import Response
from litestar.params import FromPath

from schemas.bodies.docs import MetricsDoc
from schemas.bodies.envelope import Single
from schemas.bodies.metrics import Metrics
from schemas.query import MetricsQuery, NoQuery
from serve.envelope import single, with_warnings
from serve.routes.base import Ctx, documentation_block
from serve.routes.declare import route


@route(
    "performance.metrics",
    "/v1/alphas/{alpha:str}/metrics",
    "Metrics",
)
async def get_metrics(ctx: Ctx[MetricsQuery], alpha: FromPath[str]) -> Response[Single[Metrics]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    answer = ctx.reading().metrics(build, args)
    data = msgspec.structs.replace(answer.data, doc=ctx.metrics_doc) if args.doc else answer.data
    return single(data, with_warnings(ctx.run_meta(build, "metrics"), answer.warnings))


@route(
    "performance.metrics.doc",
    "/v1/alphas/{alpha:str}/metrics/_doc",
    "Metrics documentation block",
    sync_to_thread=False,
)
def get_metrics_doc(ctx: Ctx[NoQuery], alpha: FromPath[str]) -> Response[Single[MetricsDoc]]:
    return documentation_block(ctx, alpha, ctx.metrics_doc)


ROUTES = [get_metrics, get_metrics_doc]
