"""`/analytics/overfitting` on the full demo lake (issue 50, items 1 and 2): p50 and p95 of the
route answered in process (Litestar's TestClient over the app `alpha-results serve` makes), for
each demo family's members at S = 16 and 8, warm (CSCV kept for the generation, members and S:
what every request after the first asks) and cold (the kept results dropped before each request:
the first request of a generation and scope), an alpha without a family for scale, and `cscv`
alone over the family's matrix. Non-200 answers fail the run.

The lake is the full demo corpus built into `var/lake` (`just demo full && just build`: the two
trial families are in it).

    python -m tests.bench.overfitting_bench [--lake var/lake] [--calls 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

FAMILIES = {"planted_latent": "Test_family_planted", "pure_noise": "Test_family_noise"}
TARGET_P50_MS = 50.0


def quantiles(took: list[float]) -> tuple[float, float]:
    ordered = sorted(took)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lake", default="var/lake")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)
    import numpy as np

    from analytics import overfitting
    from tests.analytics.conftest import CALLERS, serving

    lake = Path(args.lake)
    rows: list[tuple[str, float, float]] = []
    with serving(lake, CALLERS) as api:

        def timed(path: str, params: dict[str, int], before: Callable[[], None] | None = None) -> None:
            assert api.get(path, **params).status_code == 200  # the build opened, the matrix mapped
            took = []
            for _ in range(args.calls):
                if before is not None:
                    before()
                started = time.perf_counter()
                response = api.get(path, **params)
                took.append((time.perf_counter() - started) * 1000)
                if response.status_code != 200:
                    raise SystemExit(f"{path} {params}: {response.status_code} {response.text[:300]}")
            p50, p95 = quantiles(took)
            rows.append((f"{path} {params}{' cold' if before else ''}", p50, p95))

        for prefix in FAMILIES.values():
            path = f"/v1/alphas/{prefix}_01/analytics/overfitting"
            for splits in (16, 8):
                timed(path, {"splits": splits})
                timed(path, {"splits": splits}, overfitting._kept.clear)
        timed("/v1/alphas/momentum_12_1/analytics/overfitting", {})
    rng = np.random.default_rng(7)
    returns = rng.standard_normal((1392, 16)) * 0.01
    took = []
    for _ in range(args.calls):
        started = time.perf_counter()
        overfitting.cscv(returns, 16)
        took.append((time.perf_counter() - started) * 1000)
    rows.append(("cscv alone, 1,392 sessions x 16 trials, S = 16", *quantiles(took)))
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs, {args.calls} calls each")
    for name, p50, p95 in rows:
        print(f"{name}: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    warm = [p50 for name, p50, _ in rows if "cold" not in name and "cscv" not in name]
    return 0 if max(warm) < TARGET_P50_MS else 1


if __name__ == "__main__":
    sys.exit(main())
