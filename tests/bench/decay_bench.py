"""`/analytics/decay` on the full demo alpha (issue 50, item 7): p50 and p95 of the route served by
one worker (`alpha-results serve --workers 1`), over one keep-alive connection, on random books and
splits, against the target p50 of 50 ms.

The lake is the full demo's (`just demo full && just build`: `var/lake`, or `--lake` another, read
only). Every request is a different random path (a book, and a split at a random session or none),
so nothing is answered from a cache; the first call is left out (the worker opening the build).
Non-2xx answers are counted, never skipped, and fail the run. Also timed: `Figures.decay` in process
(the computation alone, the catalogue snapshot taken once per call as a request takes it).

    python -m tests.bench.decay_bench [--calls 300] [--lake var/lake] [--cache var/bench-decay] [--out FILE]
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

from tests.bench.capacity_bench import BOOKS, sessions_of
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

ALPHA = "momentum_12_1"
TARGET_P50_MS = 50.0


def random_path(sessions: list[str], rng: random.Random) -> str:
    params: dict[str, str] = {"book": rng.choice(BOOKS)}
    if rng.random() < 0.7:
        params["split"] = rng.choice(sessions)
    return f"/v1/alphas/{ALPHA}/analytics/decay?" + urllib.parse.urlencode(params)


def in_process(lake: Path, sessions: list[str], calls: int, rng: random.Random) -> dict[str, float]:
    from analytics.figures import Figures

    figures = Figures.open(str(lake))
    figures.decay(ALPHA)  # the build opened, its tables memoised
    took = []
    for _ in range(calls):
        split = dt.date.fromisoformat(rng.choice(sessions))
        started = time.perf_counter()
        figures.decay(ALPHA, book=rng.choice(BOOKS), split=split)
        took.append((time.perf_counter() - started) * 1000)
    return {
        "in_process_p50_ms": round(statistics.median(took), 2),
        "in_process_p95_ms": round(p95(took), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--lake", type=Path, default=REPO / "var" / "lake")
    parser.add_argument("--cache", type=Path, default=REPO / "var" / "bench-decay")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    facts = machine_facts()
    sessions = sessions_of(args.lake)
    rng = random.Random(50)
    keystore = f"sqlite:///{args.cache / 'keys.sqlite3'}"
    (args.cache / "keys.sqlite3").unlink(missing_ok=True)
    env = server_env(str(args.lake), keystore)
    with Children() as children:
        key = create_admin_key(keystore, env)
        run_checked(
            [*cli(), "keys", "--keystore", keystore, "set-raw-book", key.key_id, "on"], env=env, timeout=60
        )
        server = start_api(children, "api", env=env, workers=1, log=args.cache / "server.log")
        headers = {"Authorization": f"Bearer {key.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
            timed_get(client, random_path(sessions, rng))  # the worker opens the build
            took, failed = [], []
            for _ in range(args.calls):
                status, ms, text = timed_get(client, random_path(sessions, rng))
                took.append(ms)
                if not status.startswith("2"):
                    failed.append((status, text[:200]))
    p50 = statistics.median(took)
    result: dict[str, Any] = {
        "revision": git_revision(),
        "machine": facts,
        "lake": str(args.lake),
        "calls": args.calls,
        "non_2xx": len(failed),
        "p50_ms": round(p50, 2),
        "p95_ms": round(p95(took), 2),
        "target_p50_ms": TARGET_P50_MS,
        "pass": p50 < TARGET_P50_MS and not failed,
        **in_process(args.lake, sessions, 300, rng),
    }
    return route_report(result, failed, args.out)


if __name__ == "__main__":
    sys.exit(main())
