"""Fixtures that run every limiter test on both backends: in-process and Redis (db 15)."""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest
import redis
import redis.asyncio

from serve.limits import Admission, Limiter, Limits, open_limiter
from tests.conftest import backend_unavailable

REDIS_TEST_URL = os.environ.get("ALPHA_RESULTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
COUNTING_TIMEOUT_SECONDS = 10.0
"""Connect and read timeout of the Redis limiters of tests that count admissions (every test but
those of a frozen Redis). The server's 0.08 s bounds what a frozen Redis costs a request; on a
busy machine a Redis that is only waiting for the CPU can take longer, and the limiter would then
count locally (as designed, but not what these tests count)."""


def hits_at_once(
    limiter: Limiter,
    key_id: str,
    limits: Limits,
    now: datetime,
    count: int,
    pool: tuple[str, Limits] | None = None,
) -> list[Admission]:
    """`count` requests counted as the server counts them (`Limiter.hit`, on an event loop), all in
    flight at once as a worker serves them, on a loop of their own; the connections the limiter
    opened on that loop are released after. `pool`: the account's pooled id and envelope."""

    async def counted() -> list[Admission]:
        try:
            return list(await asyncio.gather(*(limiter.hit(key_id, limits, now, pool) for _ in range(count))))
        finally:
            await limiter.detach()

    return asyncio.run(counted())


def hit(
    limiter: Limiter, key_id: str, limits: Limits, now: datetime, pool: tuple[str, Limits] | None = None
) -> Admission:
    """One request counted as the server counts it (`hits_at_once`)."""
    return hits_at_once(limiter, key_id, limits, now, 1, pool)[0]


def redis_or_skip() -> str:
    """The test Redis URL, or skip (fail when ALPHA_RESULTS_REQUIRE_BACKENDS=1) if it is down."""
    try:
        client = redis.Redis.from_url(REDIS_TEST_URL, socket_connect_timeout=0.5, socket_timeout=0.5)
        client.ping()
        client.close()
    except redis.RedisError as error:
        reason = f"Redis not reachable at {REDIS_TEST_URL} ({error}); start redis-server to run these tests"
        backend_unavailable(reason)
    return REDIS_TEST_URL


def delete_prefix(prefix: str) -> None:
    client = redis.Redis.from_url(REDIS_TEST_URL)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture
def redis_url() -> str:
    return redis_or_skip()


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix no other test uses, with its keys deleted afterwards."""
    prefix = f"ar:rltest:{uuid.uuid4().hex}"
    yield prefix
    delete_prefix(prefix)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def make_limiter(request: pytest.FixtureRequest) -> Iterator[Callable[[], Limiter]]:
    """Factory for limiters of one backend that share their counters (same store, same prefix)."""
    opened: list[Limiter] = []
    if request.param == "memory":
        shared = open_limiter("memory://")
        opened.append(shared)

        def factory() -> Limiter:
            return shared

    else:
        url = redis_or_skip()
        prefix = f"ar:rltest:{uuid.uuid4().hex}"
        request.addfinalizer(lambda: delete_prefix(prefix))

        def factory() -> Limiter:
            limiter = open_limiter(url, key_prefix=prefix, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
            opened.append(limiter)
            return limiter

    yield factory
    for limiter in opened:
        limiter.close()


@pytest.fixture
def limiter(make_limiter: Callable[[], Limiter]) -> Limiter:
    return make_limiter()


class RetryClock:
    """Stands in for the `time` module of serve/limits/redis_backend.py, whose one use of it is
    `time.monotonic()`: when Redis was last found failing, and whether `RETRY_SECONDS` have passed
    since. The test moves it on instead of sleeping, so what is counted per retry interval does not
    depend on how fast the machine runs the requests."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def retry_clock(monkeypatch: pytest.MonkeyPatch) -> RetryClock:
    from serve.limits import redis_backend

    clock = RetryClock()
    monkeypatch.setattr(redis_backend, "time", clock)
    return clock


class SilentServer:
    """A TCP port that accepts connections (the kernel's backlog) and never answers, like a frozen
    Redis; counts the connections made to it (each contact of a limiter: redis-py drops a
    connection whose read timed out, so the next contact opens another)."""

    def __init__(self) -> None:
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(1024)
        self._listener.setblocking(False)
        self._held: list[socket.socket] = []
        self.url = f"redis://127.0.0.1:{self._listener.getsockname()[1]}/0"

    def connections(self) -> int:
        """Connections made so far: every connect that returned is in the backlog, so taking
        them all now counts exactly, with no race against a thread."""
        while True:
            try:
                sock, _ = self._listener.accept()
            except BlockingIOError:
                return len(self._held)
            self._held.append(sock)  # held, never answered

    def close(self) -> None:
        for sock in self._held:
            sock.close()
        self._listener.close()


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


class CountedCommands:
    """Counts the commands a limiter sends Redis (each one a contact): requests are counted by
    asyncio clients made per event loop, so every asyncio client is counted; the blocking client
    (usage, ping) by the limiter's own."""

    def __init__(self, limiter: Limiter, monkeypatch: pytest.MonkeyPatch) -> None:
        client = limiter._client  # type: ignore[attr-defined]
        send = client.execute_command
        send_async = redis.asyncio.Redis.execute_command
        self.count = 0

        def counted(*args: Any, **options: Any) -> Any:
            self.count += 1
            return send(*args, **options)

        async def counted_async(self_: redis.asyncio.Redis, *args: Any, **options: Any) -> Any:
            self.count += 1
            return await send_async(self_, *args, **options)

        monkeypatch.setattr(client, "execute_command", counted)
        monkeypatch.setattr(redis.asyncio.Redis, "execute_command", counted_async)
