"""Median latency of representative requests against a running server (`just bench-api`),
including `/metrics?granularity=monthly&panel=1&doc=1` with a random sub-window per request.

    ALPHA_RESULTS_BENCH_URL    base URL (default http://127.0.0.1:8000)
    ALPHA_RESULTS_BENCH_TOKEN  an API key that may read the alpha with room in its rate envelope; when
                               unset, a bench key with a high envelope is created in the key store
                               named by ALPHA_RESULTS_KEYSTORE_URL (the server's)
    ALPHA_RESULTS_BENCH_ALPHA  alpha to read (default momentum_12_1, the full-size demo alpha)
    ALPHA_RESULTS_BENCH_N      requests per case (default 200)

Each case is requested sequentially over one keep-alive connection after a warm-up request (the
first request of a build loads its table into memory), so the figures are per-request latency.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable

import httpx

Params = dict[str, int | str]


def measure(
    client: httpx.Client, path: str, params: Callable[[], Params], n: int
) -> tuple[float, float, int]:
    warm = client.get(path, params=params())
    warm.raise_for_status()
    timings = []
    for _ in range(n):
        query = params()
        start = time.perf_counter()
        response = client.get(path, params=query)
        timings.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
    timings.sort()
    data = warm.json()["data"]
    rows = len(data) if isinstance(data, list) else 1
    return statistics.median(timings), timings[int(0.95 * (len(timings) - 1))], rows


def bench_token() -> str:
    """A fresh admin key whose rate envelope does not throttle the measurement."""
    import uuid

    from access import ADMIN_CEILING, RateLimit, open_store
    from core.settings import Settings

    store = open_store(Settings.from_env().keystore_url)
    account = store.create_account(f"bench-{uuid.uuid4().hex[:8]}@example.com", role="admin")
    key, token = store.create_key(account.user_id, "api bench", grants=ADMIN_CEILING)
    store.set_key_limits(key.key_id, RateLimit(100_000, 1_000_000, 100_000_000, None))
    return str(token)


def main() -> int:
    base = os.environ.get("ALPHA_RESULTS_BENCH_URL", "http://127.0.0.1:8000")
    token = os.environ.get("ALPHA_RESULTS_BENCH_TOKEN") or bench_token()
    alpha = os.environ.get("ALPHA_RESULTS_BENCH_ALPHA", "momentum_12_1")
    n = int(os.environ.get("ALPHA_RESULTS_BENCH_N", "200"))
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        index = client.get(f"/v1/alphas/{alpha}/rebalances", params={"limit": 5000})
        index.raise_for_status()
        dates = [r["date"] for r in index.json()["data"] if r["week_status"] == "traded"]
        week = dates[len(dates) // 2]
        rng = random.Random(7)

        def fixed(params: Params) -> Callable[[], Params]:
            return lambda: params

        def metrics_window() -> Params:
            start, end = sorted(rng.sample(dates, 2))
            return {"granularity": "monthly", "panel": 1, "doc": 1, "from": start, "to": end}

        cases = [
            (
                "100-row page of /rebalances/{date}",
                f"/v1/alphas/{alpha}/rebalances/{week}",
                fixed({"limit": 100}),
            ),
            (
                "100-row page of /positions",
                f"/v1/alphas/{alpha}/positions",
                fixed({"limit": 100, "offset": 1000}),
            ),
            ("5000-row page of /scores", f"/v1/alphas/{alpha}/scores", fixed({"limit": 5000})),
            ("5000-row page of /positions", f"/v1/alphas/{alpha}/positions", fixed({"limit": 5000})),
            ("/metrics monthly+panel+doc, random window", f"/v1/alphas/{alpha}/metrics", metrics_window),
        ]
        print(f"{base}  alpha {alpha}  {n} sequential requests per case (ms)")
        print(f"{'case':<40} {'rows':>5} {'p50':>8} {'p95':>8}")
        for label, path, params in cases:
            p50, p95, rows = measure(client, path, params, n)
            print(f"{label:<40} {rows:>5} {p50:>8.2f} {p95:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
