"""A bystander's latency while one key sends distinct `as_of` moments (issue 81, item 3; `just
bench-as-of`).

Serves the demo lake (played into var/bench-as-of/ once, with its records, or `--lake`) with
`alpha-results serve --workers 1` and two member keys of their own accounts: a bystander asking
`/v1/health` and a week page (`/v1/alphas/{alpha}/rebalances/{date}`) in turn, one request after
another over one keep-alive connection; then, for as long again, an attacker sending a new `as_of`
moment on `/v1/alphas?limit=1` every 40 ms (25 a second, inside its rate limit), each drawn
uniformly between the lake's oldest kept catalogue generation and now (each is looked up among the
generations: the served one, a past one read, or one past the history kept, 410). Prints the bystander's p50 and p95 quiet and attacked, their
ratios (the issue's target: under 3x for `/v1/health`), and the attacker's statuses. `--no-budget`
turns the per-key `as_of` budget off (ALPHA_RESULTS_AS_OF_PER_SECOND/MINUTE=0), to see what the
off-loop resolution and the past-catalogue cache do alone. No assertion: a measurement, recorded in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from access import open_store
from tests.ops.keys import IssuedKey, issue_key
from tests.support.serve_stack import serving

REPO = Path(__file__).resolve().parents[2]
DEFAULT_LAKE = REPO / "var" / "bench-as-of" / "lake"
ALPHA = "momentum_12_1"
RATE = 25.0  # the attacker's requests a second


def demo_lake(lake: Path) -> Path:
    """The small demo's history played into `lake` once (kept between runs)."""
    done = lake.with_name(lake.name + ".built")
    if not done.exists():
        from pipeline.demo_history import play

        lake.mkdir(parents=True, exist_ok=True)
        print(f"playing the demo's history into {lake} ...", flush=True)
        play(str(lake), f"sqlite:///{lake.with_name(lake.name + '.records.sqlite3')}", "small")
        done.touch()
    return lake


def oldest_generation(lake: Path) -> dt.datetime:
    """When the oldest catalogue generation kept was committed."""
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index

    storage = Storage(str(lake))
    known = [
        g.known
        for number, _ in catalogue_index.listed_generations(storage, str(lake))
        if (g := catalogue_index.read_generation(storage, str(lake), number)) is not None
        and g.known is not None
    ]
    return min(known)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bystander(base: str, key: IssuedKey, week: str, seconds: float) -> dict[str, list[float]]:
    """`/v1/health` and the week page in turn, one after another, for `seconds`: their latencies (ms)."""
    paths = {"health": "/v1/health", "week": f"/v1/alphas/{ALPHA}/rebalances/{week}"}
    found: dict[str, list[float]] = {name: [] for name in paths}
    with httpx.Client(base_url=base, headers=key.headers, timeout=60) as client:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for name, path in paths.items():
                started = time.perf_counter()
                answer = client.get(path)
                found[name].append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200, (path, answer.status_code, answer.text[:200])
            time.sleep(0.01)
    return found


def attacker(
    base: str,
    key: IssuedKey,
    oldest: dt.datetime,
    stop: threading.Event,
    statuses: Counter[int],
) -> None:
    rng = random.Random(81)
    seconds = (dt.datetime.now(dt.UTC) - oldest).total_seconds() - 10
    with httpx.Client(base_url=base, headers=key.headers, timeout=60) as client:
        next_at = time.monotonic()
        while not stop.is_set():
            moment = oldest + dt.timedelta(seconds=rng.uniform(0, seconds))
            text = moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            statuses[client.get("/v1/alphas", params={"as_of": text, "limit": 1}).status_code] += 1
            next_at += 1 / RATE
            time.sleep(max(0.0, next_at - time.monotonic()))


def summary(latencies: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {
        name: {"p50": round(statistics.median(v), 2), "p95": round(percentile(v, 0.95), 2), "n": len(v)}
        for name, v in latencies.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--lake", type=Path, default=None, help="a lake to serve (default: the demo's, played once)"
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="seconds of each phase (default 15)")
    parser.add_argument("--no-budget", action="store_true", help="turn the per-key as_of budget off")
    parser.add_argument("--out", type=Path, default=None, help="JSON results")
    args = parser.parse_args(argv)
    lake = args.lake or demo_lake(DEFAULT_LAKE)
    folder = REPO / "var" / "bench-as-of" / "run"
    folder.mkdir(parents=True, exist_ok=True)
    keystore = folder / "keys.sqlite3"
    keystore.unlink(missing_ok=True)
    keystore_url = f"sqlite:///{keystore}"
    store = open_store(keystore_url)
    try:
        quiet_key, attack_key = issue_key(store), issue_key(store)
    finally:
        store.close()
    env = (
        {"ALPHA_RESULTS_AS_OF_PER_SECOND": "0", "ALPHA_RESULTS_AS_OF_PER_MINUTE": "0"}
        if args.no_budget
        else {}
    )
    oldest = oldest_generation(lake)
    with serving(lake, keystore_url, workers=1, env=env) as (port, _):
        base = f"http://127.0.0.1:{port}"
        weeks = httpx.get(
            f"{base}/v1/alphas/{ALPHA}/rebalances", headers=quiet_key.headers, timeout=60
        ).json()
        week = weeks["data"][len(weeks["data"]) // 2]["date"]
        bystander(base, quiet_key, week, 2.0)  # the first requests of each route, not measured
        quiet = bystander(base, quiet_key, week, args.seconds)
        stop, statuses = threading.Event(), Counter[int]()
        thread = threading.Thread(target=attacker, args=(base, attack_key, oldest, stop, statuses))
        thread.start()
        try:
            attacked = bystander(base, quiet_key, week, args.seconds)
        finally:
            stop.set()
            thread.join()
    result: dict[str, Any] = {
        "started_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "lake": str(lake),
        "budget": not args.no_budget,
        "quiet": summary(quiet),
        "attacked": summary(attacked),
        "attacker_statuses": dict(sorted(statuses.items())),
    }
    result["ratio_p50"] = {
        name: round(result["attacked"][name]["p50"] / result["quiet"][name]["p50"], 2) for name in quiet
    }
    print(json.dumps(result, indent=2))
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
