"""A PostgreSQL that accepts TCP and never answers costs a bounded wait, never a hung request.

The proxy below forwards to the real PostgreSQL until it is frozen; frozen, it keeps every
connection open and accepts new ones, but passes nothing on: what a hung database server (or a
network path that silently drops packets) looks like to the app. TCP itself stays healthy, so
neither keepalives nor `statement_timeout` can help; only the store's client-side deadlines can.
Each call runs in a thread with a hard limit, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import socket
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
from tests.ops.conftest import assert_error
from tests.ops.keys import issue_key
from tests.ops.test_faults import postgres_or_skip

pytestmark = pytest.mark.postgres

HEALTH_BOUND = 2.5
"""Health answers within ~1.5 s whatever its probes do (serve/routes/meta.py)."""
REQUEST_BOUND = 4.5
"""A keyed request: the 3 s statement deadline, or the 2 s wait for the connection, plus slack."""


class FreezableProxy:
    """Forwards 127.0.0.1:<port> to `target` until `freeze()`; frozen, it accepts and stays silent."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.frozen = threading.Event()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = int(self._listener.getsockname()[1])
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def freeze(self) -> None:
        self.frozen.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self._sockets.append(client)
            if self.frozen.is_set():
                continue  # accepted, never answered
            upstream = socket.create_connection(self.target, timeout=5)
            self._sockets.append(upstream)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if self.frozen.is_set():
                    continue  # swallow: the peer waits for an answer that never comes
                sink.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        self._listener.close()
        for sock in self._sockets:
            try:
                sock.close()
            except OSError:
                pass


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
def schema_url() -> Iterator[tuple[str, FreezableProxy]]:
    """A fresh schema reached through a `FreezableProxy`."""
    base = postgres_or_skip()
    schema = f"ar_hang_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    proxy = FreezableProxy(("127.0.0.1", 5432))
    try:
        yield f"postgresql://postgres@127.0.0.1:{proxy.port}/test?options=-csearch_path%3D{schema}", proxy
    finally:
        proxy.close()
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


def health_of(client: TestClient[Any]) -> dict[str, Any]:
    response, elapsed = within(HEALTH_BOUND + 2, lambda: client.get("/v1/health"))
    assert response.status_code == 200
    assert elapsed < HEALTH_BOUND, elapsed
    body: dict[str, Any] = response.json()
    return body


def test_a_database_that_goes_silent_while_serving(
    schema_url: tuple[str, FreezableProxy], demo_lake: Path
) -> None:
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
        body = health_of(client)  # while the requests wait
        assert body["status"] == "degraded" and body["down"] == ["keystore"]
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
    proxy.close()
    within(REQUEST_BOUND, store.close)


def test_a_database_that_is_silent_from_the_start(
    schema_url: tuple[str, FreezableProxy], demo_lake: Path
) -> None:
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
