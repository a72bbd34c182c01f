"""`/analytics/regimes` and `/analytics/costs?regime=` on the full-size alpha (issue 50, item 5): p50
and p95 of each route served by one worker (`alpha-results serve --workers 1`), over one
keep-alive connection, on random books, windows and regimes, against the target p50 of 50 ms.

The lake is the full demo (`just demo full && just build`: `momentum_12_1`'s 1,410 sessions and SPY,
its regimes labelled by this tree's pipeline at publish), read from `--lake` (default var/lake).
Every request is a different random path where the parameters allow it; the first call is left
out (the worker opening the alpha's and SPY's builds). Non-2xx answers are counted, never skipped,
and fail the run. Also timed: `regimes_payload` in process (the computation alone) and the
labelling of SPY's whole series (`regime_table`, done once per SPY build by the pipeline).

    python -m tests.bench.regimes_bench [--calls 300] [--lake var/lake] [--out FILE]
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

from schemas.choices import REGIMES
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
BOOKS = ("long_short", "long_only", "raw_long_short", "raw_long_only")
TARGET_P50_MS = 50.0


def sessions_of(lake: Path) -> list[str]:
    from tests.support.build_tables import build_table

    pointer = json.loads((lake / "alphas" / ALPHA / "_current.json").read_text())
    build = lake / "alphas" / ALPHA / "builds" / str(pointer["build_id"])
    ledger = build_table(build, "portfolio", "long_short")
    return [d.isoformat() for d in ledger["date"].sort().to_list()]


def random_params(sessions: list[str], rng: random.Random, regime: bool) -> dict[str, str]:
    params: dict[str, str] = {"book": rng.choice(BOOKS)}
    if rng.random() < 0.6:
        first = rng.randrange(0, len(sessions) - 60)
        last = rng.randrange(first + 40, len(sessions))
        params.update({"from": sessions[first], "to": sessions[last]})
    if regime or rng.random() < 0.3:
        params["regime"] = rng.choice(REGIMES)
    return params


def in_process(lake: Path, sessions: list[str], calls: int, rng: random.Random) -> dict[str, float]:
    import pyarrow as pa

    from analytics.access import FULL_ACCESS
    from analytics.entries import Warnings
    from analytics.figures import Figures
    from analytics.regimes import market_regimes, regime_table, regimes_payload

    figures = Figures.open(str(lake))
    view = figures.build(ALPHA)
    spy = figures.reader.benchmark_view("SPY")
    assert spy is not None
    market = market_regimes(spy, "SPY")
    took = []
    for _ in range(calls):
        first = rng.randrange(0, len(sessions) - 60)
        window = (dt.date.fromisoformat(sessions[first]), dt.date.fromisoformat(sessions[-1]))
        started = time.perf_counter()
        regimes_payload(view, rng.choice(BOOKS), window, None, FULL_ACCESS, market, "SPY", Warnings())
        took.append((time.perf_counter() - started) * 1000)
    daily = spy.table("daily")
    assert isinstance(daily, pa.Table)
    started = time.perf_counter()
    regime_table(daily)
    labelled = (time.perf_counter() - started) * 1000
    return {
        "payload_p50_ms": round(statistics.median(took), 2),
        "payload_p95_ms": round(p95(took), 2),
        "labelling_ms_spy": round(labelled, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--lake", type=Path, default=REPO / "var" / "lake")
    parser.add_argument("--cache", type=Path, default=REPO / "var" / "bench-regimes")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    facts = machine_facts()
    lake = args.lake
    sessions = sessions_of(lake)
    rng = random.Random(50)
    keystore = f"sqlite:///{args.cache / 'keys.sqlite3'}"
    (args.cache / "keys.sqlite3").unlink(missing_ok=True)
    env = server_env(str(lake), keystore)
    routes = {"regimes": False, "costs": True}  # route -> regime always given
    took: dict[str, list[float]] = {name: [] for name in routes}
    failed = []
    with Children() as children:
        key = create_admin_key(keystore, env)
        run_checked(
            [*cli(), "keys", "--keystore", keystore, "set-raw-book", key.key_id, "on"], env=env, timeout=60
        )
        server = start_api(children, "api", env=env, workers=1, log=args.cache / "server.log")
        headers = {"Authorization": f"Bearer {key.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
            for name in routes:  # the worker opens the alpha's build and SPY's
                timed_get(client, f"/v1/alphas/{ALPHA}/analytics/{name}?regime=trend:up")
            for _ in range(args.calls):
                for name, regime in routes.items():
                    query = urllib.parse.urlencode(random_params(sessions, rng, regime))
                    status, ms, text = timed_get(client, f"/v1/alphas/{ALPHA}/analytics/{name}?{query}")
                    took[name].append(ms)
                    if not status.startswith("2"):
                        failed.append((name, status, text[:200]))
    result: dict[str, Any] = {"revision": git_revision(), "machine": facts, "calls": args.calls}
    for name, values in took.items():
        result[f"{name}_p50_ms"] = round(statistics.median(values), 2)
        result[f"{name}_p95_ms"] = round(p95(values), 2)
    result |= {
        "non_2xx": len(failed),
        "target_p50_ms": TARGET_P50_MS,
        "pass": all(statistics.median(v) < TARGET_P50_MS for v in took.values()) and not failed,
        **in_process(lake, sessions, 300, rng),
    }
    return route_report(result, failed, args.out)


if __name__ == "__main__":
    sys.exit(main())
