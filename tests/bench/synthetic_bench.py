"""Issue 51 at scale, in one process: `just bench-synthetic --n 100000`.

Over the synthetic catalogue of `tests/bench/synthetic_catalogue.py` (written when absent), with
the worker's own reader (`datasets.reader.LakeReader`: the index, the listing, the matrices
mapped, the screener's DuckDB database), p50 / p95 of the catalogue-wide answers as a route
computes them (the HTTP request around them adds about 0.4 ms, docs/benchmarks.md): the listing
page with a search, the screener with three filters and a sort, the screener with
`max_correlation` to an alpha, and the correlation of an alpha to the catalogue, top 50 (whole
history, returns and ic; and over a random window); the recall of the
true top 50 against brute force (every row correlated), the planted near-duplicates found, the
`max_correlation` filter against the exact one, and the process's resident memory.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

from tests.bench.synthetic_catalogue import lake_of


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(1000 * ordered[len(ordered) // 2], 2),
        "p95_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "first_ms": round(1000 * values[0], 2),
        "calls": len(values),
    }


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--recall-queries", type=int, default=30)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--flattering", action="store_true", help="over issue 51's catalogue (no gaps, no families)"
    )
    args = parser.parse_args(argv)
    lake = lake_of(args.n, args.flattering)
    if not lake.is_dir():
        from tests.bench import synthetic_catalogue

        synthetic_catalogue.main(["--n", str(args.n), *(["--flattering"] if args.flattering else [])])
    from analytics import correlation, nearest
    from analytics.correlation import (
        correlation_page,
        pearson_between,
        within_correlation,
        within_correlation_rows,
    )
    from datasets.catalogue_snapshot import Matrix
    from datasets.reader import LakeReader
    from datasets.screener import Screen

    rng = random.Random(args.seed)
    result: dict[str, object] = {
        "n_synthetic": args.n,
        "model": "flattering" if args.flattering else "realistic",
        "rss_start_mib": round(_rss_mib()),
        "load_average_at_start": Path("/proc/loadavg").read_text().split()[:3],
    }
    started = time.perf_counter()
    reader = LakeReader(str(lake))
    reader.refresh()
    snapshot = reader.snapshot()
    catalogue = snapshot.catalogue
    listing = catalogue.listing
    assert listing is not None and catalogue.index is not None
    result["catalogue_read_seconds"] = round(time.perf_counter() - started, 2)
    result["alphas"] = len(listing.ids)
    ids = listing.ids.to_pylist()
    readable = np.ones(len(ids), dtype=bool)
    timings: dict[str, list[float]] = {}

    def timed(name: str, call) -> object:  # type: ignore[no-untyped-def]
        clock, cpu, process = time.perf_counter(), time.thread_time(), time.process_time()
        found = call()
        timings.setdefault(name, []).append(time.perf_counter() - clock)
        timings.setdefault(name + " [CPU]", []).append(time.thread_time() - cpu)
        timings.setdefault(name + " [process CPU]", []).append(time.process_time() - process)
        return found

    words = ["momentum", "value", "carry", "cluster 1", "syn00012", "reversal", "#99"]
    index = catalogue.index
    sorts = ["information_ratio", "-excess_sharpe", "ic", "-icir", "-max_drawdown_pct"]
    targets = [rng.choice(ids) for _ in range(args.calls)]
    for call, alpha in enumerate(targets):
        needle = rng.choice(words)
        timed(
            "alphas?limit=100&search",
            lambda needle=needle: listing.rows(listing.select(None, False, needle)[:100]),
        )
        timed("alphas?limit=100", lambda: listing.rows(listing.select(None, False, None)[:100]))
        sort = rng.choice(sorts)
        screen = Screen(
            candidates=None,
            complete_only=True,
            ranges=(
                ("information_ratio", rng.uniform(-1, 0.5), None),
                ("ic", None, rng.uniform(0.0, 0.03)),
            ),
            sort=sort.removeprefix("-"),
            descending=sort.startswith("-"),
        )
        timed(
            "screen, three filters and a sort",
            lambda screen=screen: snapshot.screener.page(catalogue.version, index, screen),
        )
        bound = rng.choice([0.2, 0.3, 0.5])

        def screened(screen=screen, alpha=alpha, bound=bound):  # type: ignore[no-untyped-def]
            matched = snapshot.screener.matching(catalogue.version, index, screen)
            kept = within_correlation_rows(matched, snapshot.matrix("returns"), [alpha], bound)
            return snapshot.screener.rows_at(catalogue.version, index, kept[:100])

        timed("screen with max_correlation to an alpha (returns)", screened)
        for basis in ("returns", "ic"):
            timed(
                f"correlation top 50, whole history ({basis})",
                lambda alpha=alpha, basis=basis: correlation_page(
                    snapshot, alpha, readable, basis, (None, None), 50, 0
                ),
            )
        if call < 30:
            matrix = snapshot.matrix("returns")
            days = matrix.days
            a = rng.randrange(0, days.size // 2)
            b = rng.randrange(a + 20, days.size)
            window = (
                np.datetime64(int(days[a]), "D").item(),
                np.datetime64(int(days[b]), "D").item(),
            )
            timed(
                "correlation top 50, random window (returns)",
                lambda alpha=alpha, window=window: correlation_page(
                    snapshot, alpha, readable, "returns", window, 50, 0
                ),
            )
    result["routes"] = {name: _percentiles(values) for name, values in timings.items()}
    result["load_average_after_routes"] = Path("/proc/loadavg").read_text().split()[:3]
    result["rss_after_routes_mib"] = round(_rss_mib())
    result["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)

    # Recall of the true top 50 against brute force, the values exact, the planted duplicates.
    for basis in ("returns", "ic"):
        matrix = snapshot.matrix(basis)
        exact_matrix = Matrix(matrix.version, matrix.rows, matrix.ids, matrix.days, matrix.values)
        recalls, same_values = [], 0
        for alpha in [rng.choice(ids) for _ in range(args.recall_queries)]:
            target = matrix.rows[alpha]
            found, _ = pearson_between(matrix.values, matrix.values[[target]])
            magnitude = np.nan_to_num(np.abs(found[:, 0]), nan=-1.0)
            magnitude[target] = -2.0
            truth = set(matrix.ids.take(np.argsort(-magnitude, kind="stable")[:50]).to_pylist())
            page = correlation_page(snapshot, alpha, readable, basis, (None, None), 50, 0)
            served = {row.alpha for row in page.rows}
            recalls.append(len(served & truth) / 50)
            exact = correlation._series_page(
                exact_matrix, listing.ids, alpha, readable, basis, -(2**31), 2**31 - 1, 50, 0
            )
            by_alpha = {row.alpha: row for row in exact.rows}
            same_values += all(by_alpha[row.alpha] == row for row in page.rows if row.alpha in by_alpha)
        result[f"recall_top50_{basis}"] = {
            "mean": round(float(np.mean(recalls)), 4),
            "min": round(float(np.min(recalls)), 4),
            "queries": len(recalls),
            "pages_whose_rows_equal_the_exact_rows": same_values,
        }
    matrix = snapshot.matrix("returns")
    exact_matrix = Matrix(matrix.version, matrix.rows, matrix.ids, matrix.days, matrix.values)
    facts = json.loads((lake.parent / "synthetic.json").read_text())
    hits = 0
    planted = facts["planted"][:50]
    for copy, source in planted:  # top 10: a realistic cluster holds up to 7 other copies
        page = correlation_page(snapshot, copy, readable, "returns", (None, None), 10, 0)
        hits += source in {row.alpha for row in page.rows}
    result["planted_found_in_top10"] = f"{hits} of {len(planted)}"
    disagreements, checked = 0, 0
    for alpha in [rng.choice(ids) for _ in range(10)]:
        bound = rng.choice([0.2, 0.3, 0.5])
        candidates = ids
        indexed = within_correlation(candidates, matrix, [alpha], bound)
        kept = within_correlation(candidates, exact_matrix, [alpha], bound)
        disagreements += len(set(indexed) ^ set(kept))
        checked += len(candidates)
    result["max_correlation_vs_exact"] = {"verdicts_differing": disagreements, "verdicts": checked}
    z = snapshot.matrix("returns").z
    result["index"] = {
        "approximate_from": nearest.APPROXIMATE_FROM,
        "returns_z_mib": None if z is None else round(z.nbytes / 2**20),
    }
    out = lake.parent / "bench.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    reader.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
