"""A PostgreSQL that accepts TCP and never answers costs a bounded wait, never a hung request.

`TcpProxy` forwards to the real PostgreSQL until it is frozen (tests/ops/proxy.py). TCP itself
stays healthy then, so neither keepalives nor `statement_timeout` can help; only the store's
client-side deadlines can.
Each call runs in a thread with a hard limit (`returns`), so a regression fails instead of
hanging the suite. What is asserted is the outcome (503 `upstream_unavailable`, health degraded),
never how long it took: a call without a deadline never returns from a frozen database at all,
and the deadlines themselves are the store's settings (`QUERY_DEADLINE_SECONDS`, the connection
wait). That health reads the monitor's state and touches no backend per call is counted in
tests/ops/test_health.py.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from litestar.testing import TestClient

from access import open_store
from access.tokens import generate_token
from core.settings import Settings
from serve.app import create_app
from serve.limits import MemoryLimiter
from tests.health_wait import down_is, health_when, returns, wait_until
from tests.ops.conftest import assert_error
from tests.ops.keys import issue_key
from tests.ops.proxy import TcpProxy
from tests.support.postgres import postgres_or_skip

pytestmark = pytest.mark.postgres


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


def get(client: TestClient[Any], path: str, headers: dict[str, str] | None = None) -> Any:
    """`client.get(path)`, failing instead of hanging when it never returns."""
    return returns(lambda: client.get(path, headers=headers), f"GET {path}")


def health_of(client: TestClient[Any]) -> dict[str, Any]:
    response = get(client, "/v1/health")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


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
        answers: list[Any] = []
        callers = [
            threading.Thread(target=lambda: answers.append(get(client, "/v1/alphas", member.headers)))
            for _ in range(3)
        ]
        for thread in callers:
            thread.start()
        wait_until(lambda: proxy.swallowed > 0, "a statement sent to the frozen database")
        health_when(lambda: get(client, "/v1/health"), down_is("keystore"))  # while the requests wait
        for thread in callers:
            thread.join()  # each request is bounded by `returns`
        assert len(answers) == 3
        for response in answers:
            assert_error(response, 503, "upstream_unavailable")

        # After the abandoned statement, requests fail fast (reconnect back-off, then the connect
        # timeout), and health stays degraded.
        for _ in range(3):
            assert_error(get(client, "/v1/me", member.headers), 503, "upstream_unavailable")
        assert health_of(client)["down"] == ["keystore"]
    proxy.stop()
    returns(store.close, "closing the store")


def test_a_database_that_is_silent_from_the_start(schema_url: tuple[str, TcpProxy], demo_lake: Path) -> None:
    url, proxy = schema_url
    proxy.freeze()
    settings = Settings(lake=str(demo_lake), environment="test", keystore_url=url)
    app = returns(lambda: create_app(settings, limiter=MemoryLimiter()), "create_app")  # store deferred
    token = generate_token("live").token
    with TestClient(app=app) as client:
        for _ in range(3):
            response = get(client, "/v1/alphas", {"Authorization": f"Bearer {token}"})
            assert_error(response, 503, "upstream_unavailable")
            body = health_of(client)
            assert body["status"] == "degraded" and body["down"] == ["keystore"]
