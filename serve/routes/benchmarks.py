"""`/v1/benchmarks/{symbol}/daily`: the market index series to compare an equity curve against."""

from __future__ import annotations

from litestar import Response

from analytics import series
from datasets.faults import BenchmarkMissing, LakeUnavailable
from schemas.bodies.envelope import Series
from schemas.bodies.rows import BenchmarkRow, BenchmarkSummary
from schemas.query import BenchmarkQuery
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "benchmarks.daily",
    "/v1/benchmarks/{symbol:str}/daily",
    "Daily benchmark series",
    meta=("symbol",),
)
async def get_benchmark_daily(ctx: Ctx[BenchmarkQuery]) -> Response[Series[BenchmarkRow, BenchmarkSummary]]:
    args = ctx.args()  # the path's `symbol` is one of the served benchmarks (BenchmarkQuery), else 400
    symbol = args.symbol
    window, limit, offset = (args.start, args.end), args.limit, args.offset
    # Market data lives in the lake; a failure to read it affects only this route (503 benchmark_*).
    view = await ctx.open_benchmark(symbol)
    ctx.validate_with(f"benchmarks/{symbol}@{view.build_id}")
    name = view.entry.get("name") or symbol
    try:
        page, summary = series.benchmark_daily(view, symbol, name, window, limit, offset)
    except LakeUnavailable as exc:
        raise BenchmarkMissing(symbol, configured=True) from exc
    meta = ctx.meta(symbol=symbol, summary=summary, source=f"lake:benchmarks/{symbol}@{view.build_id}")
    return ctx.collection(page, limit, offset, meta)


ROUTES = [get_benchmark_daily]
