"""`just bench-ras`: the Rademacher anti-serum's complexity as a catalogue generation computes it
(issue 62, item 4; pipeline/catalogue_bound.py), over the synthetic generator's series.

    python -m tests.bench.ras_bench [--n 10000 100000] [--delta-rows 1 1000] [--repeat 3]

For each N: the series of N synthetic alphas on the demo's 296 sessions and 62 weeks
(`tests.bench.synthetic_catalogue.synthetic_series`: the factor model, 2 % planted
near-duplicates, half the alphas starting at a random week), then the time of
`catalogue_bound.whole` over both matrices (a whole generation: a compaction, `alpha-results lake
index`, a full commit) and of `catalogue_bound.delta` over the rows a delta generation holds (a
publish: its rows changed since the base), each the best of --repeat runs, with the process's CPU
time. Prints a Markdown table (and the complexities, so a run can be compared with the known
answer sqrt(2 ln N / T) of independent columns).
"""

from __future__ import annotations

import argparse
import math
import resource
import time

import numpy as np

from analytics import rademacher
from pipeline import catalogue_bound
from tests.bench.synthetic_catalogue import synthetic_series

SESSIONS, WEEKS = 296, 62


def timed(call: object, repeat: int) -> tuple[float, float, object]:
    """(best wall seconds, its CPU seconds, the result)."""
    best = (math.inf, math.inf)
    result = None
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        result = call()  # type: ignore[operator]
        found = (time.perf_counter() - wall, time.process_time() - cpu)
        best = min(best, found)
    return best[0], best[1], result


def run(n: int, delta_rows: list[int], repeat: int) -> list[str]:
    series = synthetic_series(n, SESSIONS, WEEKS)
    matrices = {"returns": series.returns, "ic": series.ic}
    wall, cpu, whole = timed(lambda: catalogue_bound.whole(matrices), repeat)
    assert isinstance(whole, dict)
    r_sharpe = whole["returns"]["base"][0] / SESSIONS
    r_ic = whole["ic"]["base"][0] / WEEKS
    lines = [
        f"| {n:,} | whole | {n:,} | {wall:.2f} s | {cpu:.2f} s | {wall / n * 1e6:.1f} µs | "
        f"{r_sharpe:.4f} ({math.sqrt(2 * math.log(n) / SESSIONS):.4f}) | {r_ic:.4f} |"
    ]
    for rows in delta_rows:
        own = {"returns": series.returns[:rows], "ic": series.ic[:rows]}
        wall, cpu, _ = timed(lambda own=own: catalogue_bound.delta(whole, own), repeat)
        lines.append(f"| {n:,} | delta | {rows:,} | {wall * 1e3:.1f} ms | {cpu * 1e3:.1f} ms | | | |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--delta-rows", type=int, nargs="+", default=[1, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"draws {rademacher.DRAWS}, {SESSIONS} sessions, {WEEKS} weeks, numpy {np.__version__}")
    print(
        "| N | generation | rows computed | wall | CPU | wall per alpha | R returns (sqrt(2 ln N / T)) | R ic |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in args.n:
        for line in run(n, args.delta_rows, args.repeat):
            print(line, flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
