"""TEMPORARY (issue 34, until combine moves to `analytics/`): the market benchmark as the combination
reads it, through the one benchmark read (`Context.open_benchmark`, `datasets.series.benchmark_series`)."""

from __future__ import annotations

from typing import Any

from datasets.series import BenchmarkSeries, benchmark_series
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK

Benchmark = BenchmarkSeries
SYMBOL = MARKET_BENCHMARK
ENDPOINT = BENCHMARK_ENDPOINT


async def benchmark(ctx: Any) -> BenchmarkSeries:
    return benchmark_series(await ctx.open_benchmark(SYMBOL), SYMBOL)
