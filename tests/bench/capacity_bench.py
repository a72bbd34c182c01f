"""`/analytics/capacity` on the full-size alpha (issue 36): p50 and p95 of the route served by one
worker (`alpha-results serve --workers 1`), over one keep-alive connection, on random books,
windows, reference capitals and grids, against the target p50 of 50 ms.

The lake is the full-size `momentum_12_1` (500 names, 1,410 sessions, 146,500 decision rows),
written by the demo engine and built by the real pipeline into `var/bench-capacity/` (kept;
`--rebuild` writes and builds it again). Every request is a different random path, so nothing is
answered from a cache; the first call is left out (the worker opening the build). Non-2xx answers
are counted, never skipped, and fail the run. `/analytics/costs` of the same book and window is
interleaved with each request, for scale (a route of under a millisecond of numpy, under the same
load). Also timed: `capacity_payload` in process (the
computation alone) and the per-fill table's share of the build (`capacity_frame`, per book).

    python -m tests.bench.capacity_bench [--calls 300] [--cache var/bench-capacity] [--rebuild] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import httpx

from tests.bench.catalogue_bench import machine_facts, timed_get
from tests.bench.harness import (
    REPO,
    Children,
    bench_env,
    cli,
    create_admin_key,
    git_revision,
    p95,
    route_report,
    run_checked,
    server_env,
    start_api,
)

ALPHA = "momentum_12_1"
BOOKS = ("long_short", "long_only", "raw_long_short", "raw_long_only")
TARGET_P50_MS = 50.0


def ensure_lake(cache: Path, rebuild: bool) -> Path:
    """The full-size alpha's lake, built by this tree's pipeline when missing (or `rebuild`: after a
    change to the pipeline or the demo engine)."""
    lake, marker = cache / "lake", cache / "built"
    if marker.exists() and not rebuild and (lake / "alphas" / ALPHA).exists():
        return lake
    env = bench_env()
    seals = cache / "seals"
    if rebuild or not (seals / ALPHA / "manifest.json").exists():
        run_checked(
            [*cli(), "demo", "--out", str(seals), "--size", "full", "--only", ALPHA], env=env, timeout=1800
        )
    keystore = f"sqlite:///{cache / 'build-keys.sqlite3'}"
    run_checked(
        [*cli(), "build", str(seals / ALPHA), "--lake", str(lake), "--jobs", "1", "--keystore", keystore],
        env=env,
        timeout=1800,
    )
    marker.write_text(git_revision())
    return lake


def sessions_of(lake: Path) -> list[str]:
    from tests.support.build_tables import build_table

    pointer = json.loads((lake / "alphas" / ALPHA / "_current.json").read_text())
    build = lake / "alphas" / ALPHA / "builds" / str(pointer["build_id"])
    ledger = build_table(build, "portfolio", "long_short")
    return [d.isoformat() for d in ledger["date"].sort().to_list()]


def random_path(sessions: list[str], rng: random.Random) -> str:
    params: dict[str, str] = {"book": rng.choice(BOOKS)}
    if rng.random() < 0.6:
        first = rng.randrange(0, len(sessions) - 60)
        last = rng.randrange(first + 40, len(sessions))
        params.update({"from": sessions[first], "to": sessions[last]})
    if rng.random() < 0.5:
        params["capital"] = f"{rng.uniform(1e6, 1e9):.4g}"
    if rng.random() < 0.4:
        params["grid"] = ",".join(f"{rng.uniform(1e5, 1e11):.3g}" for _ in range(rng.randint(1, 25)))
    return f"/v1/alphas/{ALPHA}/analytics/capacity?" + urllib.parse.urlencode(params, safe=",")


def in_process(lake: Path, sessions: list[str], calls: int, rng: random.Random) -> dict[str, float]:
    """The computation alone, and the per-fill table of each book as the pipeline builds it."""
    from analytics.access import FULL_ACCESS
    from analytics.capacity import capacity_payload
    from analytics.entries import Warnings
    from analytics.figures import Figures
    from pipeline.analytics_tables import capacity_frame
    from tests.support.build_tables import build_table

    view = Figures.open(str(lake)).build(ALPHA)
    capacity_payload(view, "long_short", (None, None), FULL_ACCESS, Warnings())  # opened, memoised
    took = []
    for _ in range(calls):
        book = rng.choice(BOOKS)
        first = rng.randrange(0, len(sessions) - 60)
        window = (dt.date.fromisoformat(sessions[first]), dt.date.fromisoformat(sessions[-1]))
        started = time.perf_counter()
        capacity_payload(view, book, window, FULL_ACCESS, Warnings())
        took.append((time.perf_counter() - started) * 1000)
    build = Path(view.folder)
    exposures = build_table(build, "exposures")
    frames = []
    for book in BOOKS:
        trades = build_table(build, "trades", book)
        ledger = build_table(build, "portfolio", book)
        started = time.perf_counter()
        capacity_frame(book, trades, ledger, exposures)
        frames.append((time.perf_counter() - started) * 1000)
    return {
        "payload_p50_ms": round(statistics.median(took), 2),
        "payload_p95_ms": round(p95(took), 2),
        "table_ms_all_books": round(sum(frames), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--cache", type=Path, default=REPO / "var" / "bench-capacity")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--rebuild", action="store_true", help="write and build the alpha again")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    facts = machine_facts()
    lake = ensure_lake(args.cache, args.rebuild)
    sessions = sessions_of(lake)
    rng = random.Random(36)
    keystore = f"sqlite:///{args.cache / 'keys.sqlite3'}"
    (args.cache / "keys.sqlite3").unlink(missing_ok=True)
    env = server_env(str(lake), keystore)
    with Children() as children:
        key = create_admin_key(keystore, env)
        # The raw books too (every key starts without them).
        run_checked(
            [*cli(), "keys", "--keystore", keystore, "set-raw-book", key.key_id, "on"], env=env, timeout=60
        )
        server = start_api(children, "api", env=env, workers=1, log=args.cache / "server.log")
        headers = {"Authorization": f"Bearer {key.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
            timed_get(client, random_path(sessions, rng))  # the worker opens the build
            took, beside, failed = [], [], []
            for _ in range(args.calls):
                path = random_path(sessions, rng)
                status, ms, text = timed_get(client, path)
                took.append(ms)
                # /analytics/costs of the same book and window, interleaved: what the machine's load
                # does to a route of under a millisecond of numpy, for scale.
                costs = "/analytics/costs?" + "&".join(
                    p for p in path.split("?", 1)[1].split("&") if p.split("=")[0] in ("book", "from", "to")
                )
                status_costs, ms_costs, text_costs = timed_get(client, path.split("/analytics/")[0] + costs)
                beside.append(ms_costs)
                for got, said in ((status, text), (status_costs, text_costs)):
                    if not got.startswith("2"):
                        failed.append((got, said[:200]))
    p50 = statistics.median(took)
    result: dict[str, Any] = {
        "revision": git_revision(),
        "machine": facts,
        "calls": args.calls,
        "non_2xx": len(failed),
        "p50_ms": round(p50, 2),
        "p95_ms": round(p95(took), 2),
        "target_p50_ms": TARGET_P50_MS,
        "costs_p50_ms": round(statistics.median(beside), 2),
        "costs_p95_ms": round(p95(beside), 2),
        "pass": p50 < TARGET_P50_MS and not failed,
        **in_process(lake, sessions, 300, rng),
    }
    return route_report(result, failed, args.out)


if __name__ == "__main__":
    sys.exit(main())
