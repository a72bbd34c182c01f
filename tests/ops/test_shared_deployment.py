"""`alpha-results serve --workers 2` over the shared backends: PostgreSQL keys, the Redis limiter,
an S3 lake (moto). Real processes, real HTTP, exact rate limiting across the two workers."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import psycopg
import pytest

from access import RateLimit, open_store
from tests.health_wait import wait_for_start, wait_until, workers_ready
from tests.ops.keys import IssuedKey, issue_key
from tests.ops.proxy import closed_port

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis, pytest.mark.s3, pytest.mark.slow]

POSTGRES_URL = os.environ.get("ALPHA_RESULTS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("ALPHA_RESULTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture(scope="module")
def postgres_schema() -> Iterator[str]:
    from tests.support.postgres import postgres_or_skip

    postgres_or_skip()
    schema = f"ar_shared_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{POSTGRES_URL}?options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(scope="module")
def deployment(
    s3_demo_lake: str, postgres_schema: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    from tests.limits.conftest import redis_or_skip

    redis_or_skip()
    store = open_store(postgres_schema)
    keys = {
        "admin": issue_key(store, role="admin"),
        "member": issue_key(store),
    }
    store.close()
    port = closed_port()
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    env = {
        **os.environ,  # carries the AWS_* variables of the moto server
        "ALPHA_RESULTS_KEYSTORE_URL": postgres_schema,
        "ALPHA_RESULTS_LIMITER_URL": REDIS_URL,
        "ALPHA_RESULTS_LAKE": s3_demo_lake,
        "ALPHA_RESULTS_ENVIRONMENT": "shared-test",
    }
    command = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--workers", "2"]
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(command, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        """Both workers started (each logs its ready line) and health says ok (every backend up)."""
        if not workers_ready(log_path.read_text().splitlines(), 2):
            return False
        try:
            return bool(httpx.get(f"{base}/v1/health", timeout=30).json()["status"] == "ok")
        except (httpx.TransportError, ValueError):
            return False

    try:
        wait_for_start(process, ready, log_path.read_text, "alpha-results serve --workers 2")
        yield {"base": base, "keys": keys, "log": log_path, "store_url": postgres_schema}
    finally:
        process.terminate()
        process.wait(timeout=20)


def access_lines(log: Path) -> list[dict[str, Any]]:
    lines = []
    for text in log.read_text().splitlines():
        if text.startswith("{"):
            try:
                lines.append(json.loads(text))
            except ValueError:
                continue  # the last line, still being written
    return lines


def burst(base: str, key: IssuedKey, n: int) -> list[httpx.Response]:
    """`n` requests released together on pre-opened connections, just after a second starts."""
    clients = [httpx.Client(base_url=base, timeout=10) for _ in range(n)]
    for client in clients:
        client.get("/v1/health")  # opens the connection (unmetered), so the burst is only requests
    barrier = threading.Barrier(n)
    responses: list[httpx.Response | None] = [None] * n
    start_at = math.ceil(time.time()) + 0.1

    def fire(i: int) -> None:
        barrier.wait()
        time.sleep(max(0.0, start_at - time.time()))
        responses[i] = clients[i].get("/v1/alphas", headers=key.headers)

    threads = [threading.Thread(target=fire, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for client in clients:
        client.close()
    assert all(r is not None for r in responses)
    return [r for r in responses if r is not None]


def test_exactly_the_limit_passes_across_two_workers(deployment: dict[str, Any]) -> None:
    store = open_store(deployment["store_url"])
    key = issue_key(
        store, rate_limit=RateLimit(per_second=5, per_minute=10_000, per_day=100_000, monthly_requests=None)
    )
    store.close()
    # A burst counts when it fell inside one second and the kernel handed its connections to
    # both workers (beside busy loops it may give every connection to one): bursts are sent until
    # one does, each checked whole.
    for _attempt in range(30):
        responses = burst(deployment["base"], key, 50)
        statuses = sorted(r.status_code for r in responses)
        assert set(statuses) <= {200, 429}, statuses
        assert all(
            r.json()["error"]["code"] == "rate_limit_second" for r in responses if r.status_code == 429
        )
        by_second: dict[str, list[int]] = {}
        for r in responses:
            assert r.headers["x-ratelimit-window"] == "second"
            by_second.setdefault(r.headers["x-ratelimit-reset"], []).append(r.status_code)
        for codes in by_second.values():
            assert codes.count(200) <= 5, by_second  # never more than the limit in any second
        if len(by_second) > 1:
            continue  # straddled a second boundary (more often on a busy machine)
        assert statuses.count(200) == 5 and statuses.count(429) == 45  # exactly the limit
        ids = {r.headers["x-request-id"] for r in responses}
        mine = wait_until(
            lambda ids=ids: (
                (lines := [line for line in access_lines(deployment["log"]) if line["request_id"] in ids])
                and len(lines) == len(ids)
                and lines
            ),
            "an access line for every request of the burst",
        )
        if len({line["pid"] for line in mine}) == 2:
            return
    pytest.fail("no burst inside one second reached both worker processes in 30 attempts")


def test_source_download_presigned_from_the_s3_lake(deployment: dict[str, Any]) -> None:
    headers = deployment["keys"]["member"].headers
    # The first request for the alpha opens its build from S3 (moto): seconds on a busy runner,
    # more than httpx's default 5 s.
    response = httpx.get(
        f"{deployment['base']}/v1/alphas/Test_planted_factor/source/download", headers=headers, timeout=60
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    archive = httpx.get(data["url"], timeout=60)
    assert archive.status_code == 200
    assert hashlib.sha256(archive.content).hexdigest() == data["sha256"]
    assert len(archive.content) == data["size_bytes"]


def test_usage_and_access_logs_are_shared(deployment: dict[str, Any]) -> None:
    base, keys = deployment["base"], deployment["keys"]
    store = open_store(deployment["store_url"])
    key = issue_key(store)
    store.close()
    for _ in range(6):
        assert (
            httpx.get(f"{base}/v1/alphas/momentum_12_1/books", headers=key.headers, timeout=60).status_code
            == 200
        )
    usage = httpx.get(f"{base}/v1/admin/keys/{key.key_id}/usage", headers=keys["admin"].headers, timeout=60)
    assert usage.status_code == 200, usage.text
    assert usage.json()["data"]["usage"]["day"] == 6  # counted in Redis whichever worker served
    mine = wait_until(
        lambda: (
            (lines := [line for line in access_lines(deployment["log"]) if line["key_id"] == key.key_id])
            and len(lines) == 6
            and lines
        ),
        "an access line for each of the 6 requests",
    )
    text = deployment["log"].read_text()
    assert key.token not in text and keys["admin"].token not in text
    assert {(line["route"], line["status"], line["method"]) for line in mine} == {
        ("portfolio.books", 200, "GET")
    }
    assert all(line["request_id"].startswith("req_") and line["duration_ms"] >= 0 for line in mine)
