"""SPY's daily total returns, as the analytics that measure a book against the market read them.

The series is `/v1/benchmarks/SPY/daily`'s `period_return` over the whole history (so the first
session of any window has its return): `adjusted_close` when every row has one, else `close`
(`datasets.series`, the one rule). Figures built from it need the key to call `benchmarks.daily`,
as figures built from the ledger need `portfolio.ledger` (docs/analytics.md, Access).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from anyio import to_thread

from datasets import series
from datasets.faults import LakeUnavailable
from datasets.queries import day_numbers
from datasets.reader import LakeReader
from serve import errors

SYMBOL = "SPY"
ENDPOINT = "benchmarks.daily"


@dataclass(frozen=True)
class Benchmark:
    """SPY's sessions (days since 1970, ascending) and daily returns (NaN on its first session)."""

    build_id: str
    basis: str  # adjusted_close or close
    days: np.ndarray
    returns: np.ndarray

    def on(self, days: np.ndarray) -> np.ndarray:
        """The benchmark's return on each of `days` (NaN where it has no session)."""
        at = np.searchsorted(self.days, days)
        inside = at < self.days.size
        found = np.full(days.shape, np.nan)
        hit = inside.copy()
        hit[inside] = self.days[at[inside]] == days[inside]
        found[hit] = self.returns[at[hit]]
        return found


async def benchmark(reader: LakeReader) -> Benchmark:
    """SPY's whole daily series (read once per benchmark build); 503 when it is not configured or
    cannot be read, as on `/v1/benchmarks/SPY/daily`."""
    try:
        build = reader.benchmark(SYMBOL)
        if build is None:
            raise errors.BenchmarkNotConfigured(details={"symbol": SYMBOL})
        view = reader.ready_view(build)
        if view is None:
            view = await to_thread.run_sync(reader.view, build)

        def read() -> Benchmark:
            table = view.table("daily")
            if table is None:
                raise errors.BenchmarkUnavailable(details={"symbol": SYMBOL})
            basis, returns = series.benchmark_returns(table)
            return Benchmark(view.build_id, basis, day_numbers(table), returns)

        return view.memo("analytics:benchmark", read)
    except LakeUnavailable as exc:
        raise errors.BenchmarkUnavailable(details={"symbol": SYMBOL}) from exc
