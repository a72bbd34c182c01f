"""The identity cache through the real `alpha-results serve --workers 2` (access/cache.py).

PostgreSQL (a private database, whose connections the tests may block) and the Redis limiter:
a suspension, a revocation (with the operator command) and a deactivation reach every worker; a
change made while a worker's change listener is cut is refused at once, since the worker then
reads the store; once it listens again, keys are served from memory (proved with `api_keys`
locked, where a read would wait for the lock). SQLite: a change made by another process reaches
both workers. And a monthly quota is exact under concurrent requests on both workers.

Which worker answered a request is read from its access line (`pid`, by its `X-Request-ID`).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families
from psycopg import sql

from access import RateLimit, open_store
from access.cache import LISTENER_APPLICATION_NAME
from tests.health_wait import wait_until
from tests.ops.keys import IssuedKey, issue_key
from tests.support.serve_stack import serving

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

POSTGRES_URL = os.environ.get("ALPHA_RESULTS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("ALPHA_RESULTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
PATH = "/v1/alphas"


def ask(port: int, key: IssuedKey, n: int) -> list[tuple[str, str]]:
    """`n` requests at once, each on a connection of its own (so they spread over the workers):
    (request id, "ok" or the error code) of each."""
    answers: list[tuple[str, str]] = []

    def one() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", PATH, headers=key.headers)
        response = connection.getresponse()
        body = json.loads(response.read())
        connection.close()
        outcome = "ok" if response.status == 200 else body["error"]["code"]
        answers.append((response.getheader("x-request-id") or "", outcome))

    threads = [threading.Thread(target=one) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def answered(port: int, output: list[str], key: IssuedKey, n: int = 12) -> list[tuple[int, str]]:
    """(worker pid, outcome) of `n` requests at once."""
    answers = ask(port, key, n)
    wanted = {request_id for request_id, _ in answers}

    def pids() -> dict[str, int]:
        found = {}
        for text in list(output):
            if text.startswith("{") and (line := json.loads(text)).get("request_id") in wanted:
                found[line["request_id"]] = line["pid"]
        return found if len(found) == len(wanted) else {}

    pid_of = wait_until(pids, "the access lines of the requests")
    return [(pid_of[request_id], outcome) for request_id, outcome in answers]


def by_worker(port: int, output: list[str], key: IssuedKey, n: int = 12) -> dict[int, set[str]]:
    """Worker pid -> the outcomes of the requests it answered, of `n` requests at once."""
    outcomes: dict[int, set[str]] = {}
    for pid, outcome in answered(port, output, key, n):
        outcomes.setdefault(pid, set()).add(outcome)
    return outcomes


def every_worker_answers(port: int, output: list[str], key: IssuedKey, outcome: str) -> None:
    """Waits until a round of requests reaches both workers and each answers only `outcome`."""

    def holds() -> bool:
        answered = by_worker(port, output, key)
        return len(answered) == 2 and all(outcomes == {outcome} for outcomes in answered.values())

    wait_until(holds, f"both workers answering {outcome}")


def answered_at_once(port: int, output: list[str], key: IssuedKey) -> dict[int, set[str]]:
    """The outcomes of rounds of requests until both workers answered (no waiting for a change)."""
    seen: dict[int, set[str]] = {}
    for _ in range(20):
        for pid, outcomes in by_worker(port, output, key).items():
            seen.setdefault(pid, set()).update(outcomes)
        if len(seen) == 2:
            return seen
    raise AssertionError(f"20 rounds of requests never reached both workers: {seen}")


# -- PostgreSQL ------------------------------------------------------------------------------


def admin_execute(statement: sql.Composable, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=5) as admin:
        cursor = admin.execute(statement, params)
        return cursor.fetchall() if cursor.description is not None else []


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A database of its own (not a schema: the tests close it to new connections)."""
    from tests.identity.conftest import postgres_or_skip

    postgres_or_skip()
    name = f"ar_cache_test_{uuid.uuid4().hex[:10]}"
    admin_execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        admin_execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def deployment(demo_lake: Path, postgres_url: str) -> Iterator[tuple[int, list[str], Any]]:
    """The server, its output, and a store of the test's own (its connection opened now, so it
    still works while the database refuses new connections)."""
    from tests.limits.conftest import redis_or_skip

    redis_or_skip()
    store = open_store(postgres_url)
    env = {"ALPHA_RESULTS_LIMITER_URL": REDIS_URL, "ALPHA_RESULTS_PROMETHEUS": "true"}
    with serving(demo_lake, postgres_url, workers=2, env=env) as (port, output):
        wait_until(lambda: listening_lines(output) >= 2, "both workers' change listeners")
        yield port, output, store
    store.close()


def cache_live(port: int) -> float | None:
    """`alpha_results_identity_cache_live` as a scrape reads it (the workers' minimum)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", "/metrics")
    body = connection.getresponse().read().decode()
    connection.close()
    families = text_string_to_metric_families(body)
    found = [s.value for f in families for s in f.samples if s.name == "alpha_results_identity_cache_live"]
    return found[0] if found else None


def listening_lines(output: list[str]) -> int:
    return sum("identity cache on:" in line for line in list(output))


def off_lines(output: list[str]) -> int:
    return sum("identity cache off:" in line for line in list(output))


@pytest.mark.postgres
@pytest.mark.redis
def test_a_change_reaches_every_worker(deployment: tuple[int, list[str], Any], postgres_url: str) -> None:
    port, output, store = deployment
    suspended, revoked, deactivated = issue_key(store), issue_key(store), issue_key(store)
    for key in (suspended, revoked, deactivated):
        every_worker_answers(port, output, key, "ok")

    store.set_key_status(suspended.key_id, "suspended")
    command = [sys.executable, "-m", "cli.main", "keys", "revoke", revoked.key_id, "--keystore", postgres_url]
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    store.set_account_status(deactivated.user_id, "deactivated")

    every_worker_answers(port, output, suspended, "key_suspended")
    every_worker_answers(port, output, revoked, "key_revoked")
    every_worker_answers(port, output, deactivated, "account_inactive")
    store.set_key_status(suspended.key_id, "active")
    every_worker_answers(port, output, suspended, "ok")


@pytest.mark.postgres
@pytest.mark.redis
def test_a_change_made_while_the_listener_is_cut_is_refused_at_once(
    deployment: tuple[int, list[str], Any], postgres_url: str
) -> None:
    port, output, store = deployment
    key, kept = issue_key(store), issue_key(store)
    every_worker_answers(port, output, key, "ok")
    database = sql.Identifier(postgres_url.rsplit("/", 1)[1])
    off_before, on_before = off_lines(output), listening_lines(output)
    # No new connection (the listeners' reconnection) until the change is made and checked.
    admin_execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS false").format(database))
    try:
        admin_execute(
            sql.SQL(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND application_name = %s"
            ),
            (postgres_url.rsplit("/", 1)[1], LISTENER_APPLICATION_NAME),
        )
        wait_until(lambda: off_lines(output) >= off_before + 2, "both workers' listeners seen cut")
        # What an operator's alert reads (docs/operations.md): a worker reads the store on every request.
        wait_until(lambda: cache_live(port) == 0, "the cache gauge at 0")
        # Served meanwhile by reading the store, and kept nowhere: nothing would tell of a change.
        every_worker_answers(port, output, key, "ok")
        store.set_key_status(key.key_id, "suspended")  # its notification reaches no worker
        assert answered_at_once(port, output, key) == {pid: {"key_suspended"} for pid in worker_pids(output)}
    finally:
        admin_execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true").format(database))
    wait_until(lambda: listening_lines(output) >= on_before + 2, "both workers listening again")
    wait_until(lambda: cache_live(port) == 1, "the cache gauge at 1 again")

    # From memory again: with `api_keys` locked, a worker that read the store would wait for the
    # lock until its statement timeout (503); both answer.
    every_worker_answers(port, output, kept, "ok")
    with psycopg.connect(postgres_url, autocommit=False) as locker:
        locker.execute("LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE")
        assert answered_at_once(port, output, kept) == {pid: {"ok"} for pid in worker_pids(output)}
        locker.rollback()


def worker_pids(output: list[str]) -> set[int]:
    """The pids of the access lines so far (every test reached both workers first)."""
    return {json.loads(text)["pid"] for text in list(output) if text.startswith("{")}


@pytest.mark.postgres
@pytest.mark.redis
def test_a_monthly_quota_is_exact_across_two_workers(deployment: tuple[int, list[str], Any]) -> None:
    port, output, store = deployment
    quota = RateLimit(per_second=1000, per_minute=100_000, per_day=100_000, monthly_requests=10)
    key = issue_key(store, rate_limit=quota)
    answers = answered(port, output, key, n=30)
    assert len({pid for pid, _ in answers}) == 2, "the requests did not reach both workers"
    assert Counter(outcome for _, outcome in answers) == {"ok": 10, "quota_exceeded": 20}


# -- SQLite ----------------------------------------------------------------------------------


def test_sqlite_a_change_by_another_process_reaches_both_workers(demo_lake: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    store = open_store(url)
    key = issue_key(store)
    with serving(demo_lake, url, workers=2) as (port, output):
        every_worker_answers(port, output, key, "ok")
        store.set_key_status(key.key_id, "suspended")
        every_worker_answers(port, output, key, "key_suspended")
    store.close()
