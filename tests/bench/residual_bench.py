"""Issue 36, item 4: `/analytics/residual` on the full-size alpha, and the catalogue index's residual
figure over a catalogue of N alphas (default 1,000), in process (`just bench-residual`).

    python -m tests.bench.residual_bench [--full-lake var/full-lake] [--n 1000] [--calls 100] [--out FILE]

1. **The route on the full-size alpha**: one app over the full demo lake (`alpha-results demo
   --size full` built into `--full-lake`), a key that may read everything, `momentum_12_1` (1,406
   sessions): `--calls` requests through the app (routing, authentication, the computation, JSON),
   each a different path: a random book, a random window of at least 63 sessions or none, and a
   random set of 1 to 6 other alphas or the default set; the first call is left out. p50 / p95.
2. **The catalogue figure over N alphas**: `just bench-catalogue`'s corpus (`var/bench-catalogue/N/`,
   built through the real pipeline when missing), its newest generation's returns matrix and
   index as the pipeline holds them in a commit. For 100 random alphas, one call of
   `analytics.residual.index_figures` on that alpha's row (what a commit pays per row) with the
   default set as the corpus has it (every alpha production, nothing approved: 999 reference
   alphas, which its histories cannot hold: not measurable, so the cost is the overlap rule), then
   with 20 and with 50 random alphas approved (the default set the approved ones); p50 / p95 per
   alpha, and the whole column (every row, what a commit pays when the set moves).
   The same over a synthetic catalogue of N alphas of 1,410 sessions each (the full-size alpha's
   length), with 20, 50 and 100 approved: the regression's cost grows with the sessions.
3. **The route over N alphas**, in process: `/analytics/residual` of a random alpha with a set of
   20 random others and a random window; the first call left out. p50 / p95.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tests.bench.catalogue_bench import DEFAULT_CACHE, ensure_corpus, machine_facts
from tests.bench.harness import REPO, git_revision

FULL_ALPHA = "momentum_12_1"
MIN_SESSIONS = 63


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "max_ms": round(ordered[-1], 2),
    }


def client_over(lake: Path) -> Any:
    from litestar.testing import TestClient

    from core.settings import Settings
    from serve.app import create_app
    from tests.callers import authenticator_for, make_caller

    app = create_app(
        Settings(lake=str(lake), environment="test"),
        authenticate=authenticator_for({"bench": make_caller(expose_raw_book=True)}),
        limiter=None,
    )
    return TestClient(app=app)


def timed_calls(client: Any, paths: list[str]) -> dict[str, Any]:
    """Each path once (the first left out of the figures); every answer must be a 200."""
    times, errors = [], []
    for n, path in enumerate(paths):
        started = time.perf_counter()
        response = client.get(path, headers={"Authorization": "Bearer bench"})
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            errors.append(f"{response.status_code} {path}: {response.text[:200]}")
        elif n:
            times.append(elapsed)
    if errors:
        raise SystemExit("non-200 answers:\n" + "\n".join(errors[:10]))
    return percentiles(times)


def window_of(days: list[str], rng: random.Random) -> dict[str, str]:
    if rng.random() < 0.2:
        return {}
    i = rng.randrange(len(days) - MIN_SESSIONS)
    j = rng.randrange(i + MIN_SESSIONS - 1, len(days))
    return {"from": days[i], "to": days[j]}


def route_on_full(lake: Path, calls: int, rng: random.Random) -> dict[str, Any]:
    import urllib.parse

    with client_over(lake) as client:
        ids = [
            row["alpha_id"]
            for row in client.get("/v1/alphas?limit=100", headers={"Authorization": "Bearer bench"}).json()[
                "data"
            ]
        ]
        others = [a for a in ids if a != FULL_ALPHA]
        ledger = client.get(
            f"/v1/alphas/{FULL_ALPHA}/portfolio?book=long_short&limit=5000",
            headers={"Authorization": "Bearer bench"},
        ).json()["data"]
        days = [row["date"] for row in ledger]
        paths = []
        for _ in range(calls + 1):
            params: dict[str, str] = {"book": rng.choice(("long_short", "long_only", "raw_long_short"))}
            params |= window_of(days, rng)
            if rng.random() < 0.7:
                params["reference"] = ",".join(rng.sample(others, rng.randint(1, len(others))))
            paths.append(f"/v1/alphas/{FULL_ALPHA}/analytics/residual?{urllib.parse.urlencode(params)}")
        return {"sessions": len(days), **timed_calls(client, paths)}


def catalogue_figure(lake: Path, rng: random.Random, approved: int) -> dict[str, Any]:
    """`index_figures` per alpha (100 random ones) and over every row of the corpus's newest
    generation, with `approved` random alphas approved (0: the corpus's own default, every
    production alpha)."""
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index
    from datasets.catalogue_snapshot import Matrix
    from pipeline.catalogue_residual import _sessions_per_year, market_series

    storage = Storage(str(lake))
    generation = catalogue_index.newest(storage, str(lake))
    assert generation is not None
    index = catalogue_index.read_index(storage, str(lake), generation)
    days = catalogue_index.read_matrix(storage, str(lake), generation, "returns_days", mmap=False)
    values = catalogue_index.read_matrix(storage, str(lake), generation, "returns", mmap=False)
    assert days is not None and values is not None
    ids = index.column("alpha_id").to_pylist()
    matrix = Matrix(
        "", {a: r for r, a in enumerate(ids)}, index.column("alpha_id"), np.asarray(days), np.asarray(values)
    )
    production = np.asarray(
        index.column("production").fill_null(False).to_numpy(zero_copy_only=False), dtype=bool
    )
    market = market_series(storage, str(lake), generation.benchmarks.get("SPY"))
    assert market is not None
    return timed_figures(matrix, production, _sessions_per_year(index), market, rng, approved)


def synthetic_figure(n: int, sessions: int, rng: random.Random, approved: int) -> dict[str, Any]:
    """The same over a synthetic catalogue of `n` alphas on `sessions` sessions (the full-size
    alpha's length; the corpus's are 300): each alpha starts at a random session of the first 40%
    and returns 0.3 SPY plus noise; every alpha production."""
    import pyarrow as pa

    from analytics.series import BenchmarkSeries
    from datasets.catalogue_snapshot import Matrix

    gen = np.random.default_rng(rng.randrange(2**32))
    days = np.arange(18_000, 18_000 + sessions, dtype=np.int32)
    spy = gen.normal(0.0004, 0.01, sessions)
    values = 0.3 * spy + gen.normal(0.0002, 0.01, (n, sessions))
    for row, start in enumerate(gen.integers(0, int(0.4 * sessions), n)):
        values[row, :start] = np.nan
    ids = [f"synthetic_{i:05d}" for i in range(n)]
    matrix = Matrix("", {a: r for r, a in enumerate(ids)}, pa.array(ids), days, values)
    market = BenchmarkSeries("SPY", "synthetic", "adjusted_close", days, spy)
    return timed_figures(matrix, np.ones(n, dtype=bool), np.full(n, 252), market, rng, approved)


def timed_figures(
    matrix: Any, production: np.ndarray, per_year: np.ndarray, market: Any, rng: random.Random, approved: int
) -> dict[str, Any]:
    from analytics.residual import index_figures

    ids = list(matrix.rows)
    chosen = np.zeros(len(ids), dtype=bool)
    chosen[rng.sample(range(len(ids)), approved)] = True
    rows = rng.sample(range(len(ids)), min(100, len(ids)))
    times, measured = [], 0
    for row in rows:
        started = time.perf_counter()
        found = index_figures(matrix, chosen, production, per_year, market, [row])
        times.append((time.perf_counter() - started) * 1000)
        measured += found[row][0] is not None
    started = time.perf_counter()
    every = index_figures(matrix, chosen, production, per_year, market, range(len(ids)))
    whole = time.perf_counter() - started
    return {
        "approved": approved,
        "alphas": len(ids),
        "sessions": int(matrix.days.size),
        "measured_of_100": measured,
        "measured_of_all": sum(v[0] is not None for v in every.values()),
        "whole_column_s": round(whole, 2),
        **percentiles(times),
    }


def route_over_catalogue(lake: Path, calls: int, rng: random.Random, facts: dict[str, Any]) -> dict[str, Any]:
    import urllib.parse

    ids = list(facts["alphas"])
    paths = []
    for _ in range(calls + 1):
        alpha = rng.choice(ids)
        weeks = facts["alphas"][alpha]["weeks"]
        params = {"reference": ",".join(rng.sample([a for a in ids if a != alpha], 20))}
        if rng.random() < 0.8 and len(weeks) > 20:
            i = rng.randrange(len(weeks) - 14)
            params |= {"from": weeks[i], "to": weeks[rng.randrange(i + 13, len(weeks))]}
        paths.append(f"/v1/alphas/{alpha}/analytics/residual?{urllib.parse.urlencode(params)}")
    with client_over(lake) as client:
        return timed_calls(client, paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--full-lake", type=Path, default=REPO / "var" / "full-lake")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    result: dict[str, Any] = {"commit": git_revision(), "machine": machine_facts(), "load_at_start": load}
    print("the route on the full-size alpha ...", flush=True)
    result["route_full"] = route_on_full(args.full_lake, args.calls, rng)
    print(json.dumps(result["route_full"]), flush=True)
    result["synthetic_figure"] = []
    for approved in (20, 50, 100):
        print(
            f"the catalogue figure over {args.n} synthetic alphas of 1,410 sessions, {approved} approved ..."
        )
        found = synthetic_figure(args.n, 1410, rng, approved)
        print(json.dumps(found), flush=True)
        result["synthetic_figure"].append(found)
    corpus = ensure_corpus(args.n, 1, 2, False, args.cache)
    result["catalogue_figure"] = []
    for approved in (0, 20, 50):
        print(f"the catalogue figure over {args.n} alphas, {approved} approved ...", flush=True)
        found = catalogue_figure(corpus.lake, rng, approved)
        print(json.dumps(found), flush=True)
        result["catalogue_figure"].append(found)
    print(f"the route over {args.n} alphas, a set of 20 ...", flush=True)
    result["route_catalogue"] = route_over_catalogue(corpus.lake, args.calls, rng, corpus.facts)
    print(json.dumps(result["route_catalogue"]), flush=True)
    out = args.out or args.cache / str(args.n) / "result-residual.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"JSON written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
