"""`/analytics/uncertainty` on the full-size alpha (issue 50, item 4): p50 and p95 of the route served
by one worker (`alpha-results serve --workers 1`), over one keep-alive connection, on random books
and windows (at least 250 sessions each, most of the ~1,400), against the target p50 of 50 ms.

Every request is a different window, so nothing is answered from the whole history's memo: each
draws 2,000 resamples of the window's sessions and of its weeks and computes the seven figures'
intervals. The first call is left out (the worker opening the build). Non-2xx answers are counted,
never skipped, and fail the run. `/analytics/costs` of the same book and window is interleaved, for
scale (a route of under a millisecond, under the same load). Also timed: `uncertainty_payload` in
process (the computation alone; the whole history, which the route memoises, drawn afresh each time).

The lake is the capacity benchmark's (`var/bench-capacity/`, built when missing) or `--lake`.

    python -m tests.bench.uncertainty_bench [--calls 300] [--lake var/lake] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import httpx

from tests.bench.capacity_bench import ALPHA, BOOKS, ensure_lake, sessions_of
from tests.bench.catalogue_bench import machine_facts, timed_get
from tests.bench.harness import (
    REPO,
    Children,
    cli,
    create_admin_key,
    git_revision,
    p95,
    route_report,
    run_checked,
    server_env,
    start_api,
)

TARGET_P50_MS = 50.0
MIN_SESSIONS = 250


def random_window(sessions: list[str], rng: random.Random) -> tuple[str, str]:
    first = rng.randrange(0, len(sessions) - MIN_SESSIONS)
    last = rng.randrange(first + MIN_SESSIONS, len(sessions))
    return sessions[first], sessions[last]


def random_path(sessions: list[str], rng: random.Random) -> str:
    start, end = random_window(sessions, rng)
    params = {"book": rng.choice(BOOKS), "from": start, "to": end}
    return f"/v1/alphas/{ALPHA}/analytics/uncertainty?" + urllib.parse.urlencode(params)


def in_process(lake: Path, sessions: list[str], calls: int, rng: random.Random) -> dict[str, float]:
    """The computation alone: random windows, and the whole history drawn afresh (no memo)."""
    from analytics.access import FULL_ACCESS
    from analytics.entries import Warnings
    from analytics.figures import Figures
    from analytics.uncertainty import uncertainty_payload

    view = Figures.open(str(lake)).build(ALPHA)
    uncertainty_payload(view, "long_short", (None, None), FULL_ACCESS, Warnings())  # opened, memoised
    windows, whole = [], []
    for _ in range(calls):
        start, end = random_window(sessions, rng)
        window = (dt.date.fromisoformat(start), dt.date.fromisoformat(end))
        started = time.perf_counter()
        uncertainty_payload(view, rng.choice(BOOKS), window, FULL_ACCESS, Warnings())
        windows.append((time.perf_counter() - started) * 1000)
    for _ in range(max(10, calls // 10)):
        # The whole history as a window that is not (None, None): the same sessions, no memo.
        window = (dt.date.fromisoformat(sessions[0]), dt.date.fromisoformat(sessions[-1]))
        started = time.perf_counter()
        uncertainty_payload(view, "long_short", window, FULL_ACCESS, Warnings())
        whole.append((time.perf_counter() - started) * 1000)
    return {
        "payload_p50_ms": round(statistics.median(windows), 2),
        "payload_p95_ms": round(sorted(windows)[int(0.95 * len(windows))], 2),
        "whole_history_p50_ms": round(statistics.median(whole), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--cache", type=Path, default=REPO / "var" / "bench-capacity")
    parser.add_argument("--lake", type=Path, help="a lake holding the full-size momentum_12_1 (read only)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    facts = machine_facts()
    lake = args.lake if args.lake is not None else ensure_lake(args.cache, False)
    sessions = sessions_of(lake)
    rng = random.Random(50)
    keystore = f"sqlite:///{args.cache / 'uncertainty-keys.sqlite3'}"
    (args.cache / "uncertainty-keys.sqlite3").unlink(missing_ok=True)
    env = server_env(str(lake), keystore)
    with Children() as children:
        key = create_admin_key(keystore, env)
        run_checked(
            [*cli(), "keys", "--keystore", keystore, "set-raw-book", key.key_id, "on"], env=env, timeout=60
        )
        server = start_api(children, "api", env=env, workers=1, log=args.cache / "uncertainty-server.log")
        headers = {"Authorization": f"Bearer {key.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
            timed_get(client, random_path(sessions, rng))  # the worker opens the build
            took, beside, failed = [], [], []
            for _ in range(args.calls):
                path = random_path(sessions, rng)
                status, ms, text = timed_get(client, path)
                took.append(ms)
                costs = path.replace("/analytics/uncertainty?", "/analytics/costs?")
                status_costs, ms_costs, text_costs = timed_get(client, costs)
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
        **in_process(lake, sessions, 100, rng),
    }
    return route_report(result, failed, args.out)


if __name__ == "__main__":
    sys.exit(main())
