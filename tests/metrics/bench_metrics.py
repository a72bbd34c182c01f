"""Latency of `/metrics?granularity=monthly&panel=1&doc=1` with a random sub-window, against a
running server: `python -m tests.metrics.bench_metrics --url http://127.0.0.1:8000 --token ... \
--alpha momentum_12_1 [--n 200]`. Prints median and p95 in milliseconds."""

from __future__ import annotations

import argparse
import random
import statistics
import time

import httpx


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    headers = {"Authorization": f"Bearer {args.token}"}
    with httpx.Client(base_url=args.url, headers=headers, timeout=30) as client:
        index = client.get(f"/v1/alphas/{args.alpha}/rebalances", params={"limit": 5000}).json()["data"]
        dates = [row["date"] for row in index]
        rng = random.Random(7)
        path = f"/v1/alphas/{args.alpha}/metrics"
        client.get(path).raise_for_status()  # first call loads the build's tables
        timings = []
        for _ in range(args.n):
            start, end = sorted(rng.sample(dates, 2))
            params = {"granularity": "monthly", "panel": 1, "doc": 1, "from": start, "to": end}
            began = time.perf_counter()
            response = client.get(path, params=params)
            timings.append((time.perf_counter() - began) * 1000)
            response.raise_for_status()
    timings.sort()
    print(
        f"{path}?granularity=monthly&panel=1&doc=1&from&to  n={args.n}  "
        f"median={statistics.median(timings):.2f} ms  p95={timings[int(0.95 * len(timings)) - 1]:.2f} ms  "
        f"bytes={len(response.content)}"
    )


if __name__ == "__main__":
    main()
