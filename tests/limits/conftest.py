"""Fixtures that run every limiter test on both backends: in-process and Redis (db 15)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis

from serve.limits import Limiter, open_limiter
from tests.conftest import backend_unavailable

REDIS_TEST_URL = os.environ.get("ALPHA_RESULTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


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
            limiter = open_limiter(url, key_prefix=prefix)
            opened.append(limiter)
            return limiter

    yield factory
    for limiter in opened:
        limiter.close()


@pytest.fixture
def limiter(make_limiter: Callable[[], Limiter]) -> Limiter:
    return make_limiter()
