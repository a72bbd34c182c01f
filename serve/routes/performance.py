"""Performance: `/metrics` (computed from the build's materialised series) and `/metrics/_doc`."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from schemas.query import MetricsQuery
from serve.envelope import single, with_warnings
from serve.metrics import Access, compute_metrics, metrics_inputs, shared_metrics_doc
from serve.routes.base import Context, context, documentation_block
from serve.routes.declare import route


def caller_access(ctx: Context) -> Access:
    return Access.of(ctx.caller.may_call)


@route("performance.metrics")
async def get_metrics(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_run(alpha)
    args = ctx.args(MetricsQuery)
    data, warnings = compute_metrics(
        metrics_inputs(build),
        args.granularity,
        args.start,
        args.end,
        args.panel,
        caller_access(ctx),
        doc=args.doc,
    )
    return single(data, with_warnings(ctx.run_meta(build, "metrics"), warnings))


@route("performance.metrics.doc", sync_to_thread=False)
def get_metrics_doc(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    return documentation_block(request, alpha, shared_metrics_doc())


ROUTES = [get_metrics, get_metrics_doc]
