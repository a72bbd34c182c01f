"""A PostgreSQL that accepts TCP and never answers costs a bounded wait, never a hung request.

`TcpProxy` forwards to the real PostgreSQL until it is frozen (tests/ops/proxy.py). TCP itself
stays healthy then, so neither keepalives nor `statement_timeout` can help; only the store's
client-side deadlines can.
Each call runs in a thread with a hard limit, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from litestar.testing import TestClient

from serve.app import create_app
from serve.identity import open_store
from serve.identity.tokens import generate_token
from serve.limits import MemoryLimiter
from serve.settings import Settings
from tests.health_wait import down_is, health_when
from tests.ops.conftest import assert_error
from tests.ops.keys import issue_key
from tests.ops.proxy import TcpProxy
from tests.ops.test_faults import postgres_or_skip

pytestmark = pytest.mark.postgres

HEALTH_BOUND = 0.5
"""Health answers at once whatever its probes do: it reads the monitor's state (serve/health.py)."""
REQUEST_BOUND = 4.5
"""A keyed request: the 3 s statement deadline, or the 2 s wait for the connection, plus slack."""


def within(seconds: float, call: Callable[[], Any]) -> tuple[Any, float]:
    """`call()`'s result and duration; fails (instead of hanging) when it takes longer than `seconds`."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    started = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    elapsed = time.monotonic() - started
    if worker.is_alive():
        pytest.fail(f"no answer within {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"], elapsed


@pytest.fixture
def schema_url() -> Iterator[tuple[str, TcpProxy]]:
    """A fresh schema reached through a `TcpProxy`."""
    base = postgres_or_skip()
    schema = f"ar_hang_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    proxy = TcpProxy("127.0.0.1", 5432)
    try:
        yield f"postgresql://postgres@127.0.0.1:{proxy.port}/test?options=-csearch_path%3D{schema}", proxy
    finally:
        proxy.stop()
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


def health_of(client: TestClient[Any]) -> dict[str, Any]:
    response, elapsed = within(HEALTH_BOUND + 2, lambda: client.get("/v1/health"))
    assert response.status_code == 200
    assert elapsed < HEALTH_BOUND, elapsed
    body: dict[str, Any] = response.json()
    return body


class Health:
    """`health_of` as a response, for `health_when` (every call still bounded)."""

    def __init__(self, client: TestClient[Any]) -> None:
        self.client = client

    def __call__(self) -> Any:
        response, elapsed = within(HEALTH_BOUND + 2, lambda: self.client.get("/v1/health"))
        assert elapsed < HEALTH_BOUND, elapsed
        return response


def test_a_database_that_goes_silent_while_serving(schema_url: tuple[str, TcpProxy], demo_lake: Path) -> None:
    url, proxy = schema_url
    store = open_store(url)
    member = issue_key(store)
    app = create_app(Settings(lake=str(demo_lake), environment="test"), store=store, limiter=MemoryLimiter())
    with TestClient(app=app) as client:
        assert client.get("/v1/alphas", headers=member.headers).status_code == 200
        assert health_of(client)["status"] == "ok"
        proxy.freeze()

        # Several requests at once: one holds the connection until its statement deadline, the
        # others give up waiting for it; all answer 503, none hangs.
        answers: list[tuple[Any, float]] = []
        callers = [
            threading.Thread(
                target=lambda: answers.append(
                    within(REQUEST_BOUND + 5, lambda: client.get("/v1/alphas", headers=member.headers))
                )
            )
            for _ in range(3)
        ]
        for thread in callers:
            thread.start()
        time.sleep(0.2)
        health_when(Health(client), down_is("keystore"))  # while the requests wait
        for thread in callers:
            thread.join(REQUEST_BOUND + 6)
        assert len(answers) == 3
        for response, elapsed in answers:
            assert_error(response, 503, "upstream_unavailable")
            assert elapsed < REQUEST_BOUND, elapsed

        # After the abandoned statement, requests fail fast (reconnect back-off, then the connect
        # timeout), and health stays bounded.
        for _ in range(3):
            response, elapsed = within(
                REQUEST_BOUND + 5, lambda: client.get("/v1/me", headers=member.headers)
            )
            assert_error(response, 503, "upstream_unavailable")
            assert elapsed < REQUEST_BOUND, elapsed
        assert health_of(client)["down"] == ["keystore"]
    proxy.stop()
    within(REQUEST_BOUND, store.close)


def test_a_database_that_is_silent_from_the_start(schema_url: tuple[str, TcpProxy], demo_lake: Path) -> None:
    url, proxy = schema_url
    proxy.freeze()
    settings = Settings(lake=str(demo_lake), environment="test", keystore_url=url)
    app, _ = within(10, lambda: create_app(settings, limiter=MemoryLimiter()))  # starts, store deferred
    token = generate_token("live").token
    with TestClient(app=app) as client:
        for _ in range(3):
            response, elapsed = within(
                REQUEST_BOUND + 5,
                lambda: client.get("/v1/alphas", headers={"Authorization": f"Bearer {token}"}),
            )
            assert_error(response, 503, "upstream_unavailable")
            assert elapsed < REQUEST_BOUND, elapsed
            body = health_of(client)
            assert body["status"] == "degraded" and body["down"] == ["keystore"]
