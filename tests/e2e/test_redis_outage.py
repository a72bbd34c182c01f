"""Through the real `alpha-results serve` with two workers and a private Redis (never the shared
one): killing Redis no longer lifts a key's limits, and restarting it empty keeps the month.

The defect: on a 5/s key with Redis killed, 100 of 100 requests were admitted at 20/s, and a Redis
restart without persistence reset the month counters.
"""

from __future__ import annotations

import http.client
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from serve.identity import RateLimit, open_store
from tests.e2e.test_serve_stack import serving
from tests.ops.keys import issue_key
from tests.private_redis import PrivateRedis

pytestmark = pytest.mark.e2e

WORKERS = 2
SYNC_WAIT_SECONDS = 2.5  # the sync interval (1 s) with room for a loaded machine


def call(port: int, path: str, token: str) -> tuple[int, dict[str, Any]]:
    # A new connection per request, so requests spread over both workers.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    return response.status, body


def test_a_killed_redis_keeps_the_per_second_limit_per_worker(
    demo_lake: Path, tmp_path: Path, private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    key = issue_key(
        open_store(url),
        rate_limit=RateLimit(per_second=5, per_minute=1000, per_day=10_000, monthly_requests=None),
    )
    monkeypatch.setenv("ALPHA_RESULTS_LIMITER_URL", private_redis.url)
    with serving(demo_lake, url, workers=WORKERS) as (port, _):
        assert call(port, "/v1/alphas", key.token)[0] == 200
        private_redis.kill()
        admitted_per_second: Counter[int] = Counter()
        codes: Counter[str] = Counter()
        admitted = 0
        started = time.monotonic()
        for i in range(100):  # 20/s for 5 s
            time.sleep(max(0.0, started + i * 0.05 - time.monotonic()))
            second = int(time.time())
            status, body = call(port, "/v1/alphas", key.token)
            if status != 200:
                codes[body["error"]["code"]] += 1
                continue
            admitted += 1
            if int(time.time()) == second:
                # Placed in a second only when sent and answered within it: one that straddles a
                # boundary may have been counted by its worker in either second.
                admitted_per_second[second] += 1
        # Each worker enforces 5/s on its own during the outage: at most 10 in any second, but for
        # the second of the kill, where what Redis admitted stands beside the workers' local
        # counts: at most (workers + 1) x 5 (docs/limits.md).
        first, *rest = sorted(admitted_per_second)
        assert admitted_per_second[first] <= 5 * (WORKERS + 1), admitted_per_second
        assert all(admitted_per_second[s] <= 5 * WORKERS for s in rest), admitted_per_second
        assert admitted <= 5 * WORKERS * 6
        assert set(codes) == {"rate_limit_second"}, codes
        time.sleep(1.1)  # a second of its own, so /v1/me itself is admitted
        status, body = call(port, "/v1/me", key.token)  # usage answers during the outage
        assert status == 200, body
        # The request before the kill was counted in Redis by one worker; if the other began
        # counting in the ledger before that worker wrote it there, it is the one admission the
        # documented bound allows to be lost (docs/limits.md "Bound").
        counted = 1 + admitted + 1
        assert counted - 1 <= body["data"]["usage"]["day"] <= counted


def test_a_restarted_redis_keeps_the_monthly_quota(
    demo_lake: Path, tmp_path: Path, private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    rate = RateLimit(per_second=1000, per_minute=10_000, per_day=10_000, monthly_requests=40)
    key = issue_key(open_store(url), rate_limit=rate)
    monkeypatch.setenv("ALPHA_RESULTS_LIMITER_URL", private_redis.url)
    with serving(demo_lake, url, workers=WORKERS) as (port, _):
        assert [call(port, "/v1/alphas", key.token)[0] for _ in range(25)] == [200] * 25
        time.sleep(SYNC_WAIT_SECONDS)  # each worker has written its counts to the key store
        private_redis.kill()
        private_redis.start()  # empty: no persistence
        statuses = [call(port, "/v1/alphas", key.token) for _ in range(30)]
        assert [status for status, _ in statuses] == [200] * 15 + [429] * 15  # was 30 x 200
        assert {body["error"]["code"] for status, body in statuses if status == 429} == {"quota_exceeded"}
    # The count outlives the server too: it is in the key store.
    store = open_store(url)
    rows, _ = store._execute(
        "SELECT requests FROM key_usage WHERE key_id = ? AND period = 'month'", (key.key_id,)
    )
    assert rows == [(40,)]
