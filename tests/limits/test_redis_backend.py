"""What only the Redis backend has: its key layout, expiries and the script cache fallback."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import redis

from serve.limits import Limits, RedisLimiter, open_limiter, redis_backend
from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS, hit

pytestmark = pytest.mark.redis

ENVELOPE = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100000)


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(redis_url)
    yield connection
    connection.close()


def test_counters_use_documented_key_names_and_expire_after_their_window(
    redis_url: str, client: redis.Redis
) -> None:
    key_id = f"test-{uuid.uuid4().hex}"  # default prefix, so a unique key id keeps tests apart
    now = datetime(2030, 12, 31, 23, 59, 30, tzinfo=UTC)
    names = {
        "second": f"ar:rl:{key_id}:second:{int(datetime(2030, 12, 31, 23, 59, 30, tzinfo=UTC).timestamp())}",
        "minute": f"ar:rl:{key_id}:minute:{int(datetime(2030, 12, 31, 23, 59, tzinfo=UTC).timestamp())}",
        "day": f"ar:rl:{key_id}:day:{int(datetime(2030, 12, 31, tzinfo=UTC).timestamp())}",
        "month": f"ar:rl:{key_id}:month:{int(datetime(2030, 12, 1, tzinfo=UTC).timestamp())}",
    }
    limiter = open_limiter(redis_url, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    try:
        assert hit(limiter, key_id, ENVELOPE, now).allowed
        assert sorted(k.decode() for k in client.scan_iter(match=f"ar:rl:{key_id}:*")) == sorted(
            names.values()
        )
        assert all(client.get(name) == b"1" for name in names.values())
        grace = redis_backend.EXPIRY_GRACE_SECONDS
        # Expiry = time to the end of the window (from `now`) plus the grace.
        expected = {"second": 1 + grace, "minute": 30 + grace, "day": 30 + grace, "month": 30 + grace}
        for window, name in names.items():
            ttl = client.ttl(name)
            assert expected[window] - 2 <= ttl <= expected[window], (window, ttl)
        # A refusal leaves the counters and their expiries as they were.
        hit(limiter, key_id, Limits(1, 1, 1, 1), now)
        assert all(client.get(name) == b"1" for name in names.values())
    finally:
        client.delete(*names.values())
        limiter.close()


def test_script_missing_from_the_cache_falls_back_to_eval(
    redis_url: str, redis_prefix: str, client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An unknown digest is what EVALSHA meets after a restart or SCRIPT FLUSH; flushing the real
    # cache would disturb other tests sharing this Redis.
    monkeypatch.setattr(redis_backend, "ADMIT_SCRIPT_SHA", "0" * 40)
    limiter = RedisLimiter(redis_url, key_prefix=redis_prefix, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    try:
        now = datetime(2030, 1, 1, tzinfo=UTC)
        assert [hit(limiter, "k", Limits(2, 9, 9, 9), now).allowed for _ in range(3)] == [True, True, False]
        # Without the fallback the unknown digest would have surfaced as LimiterUnavailable.
        assert client.script_exists(redis_backend.ADMIT_SCRIPT_SHA) == [False]
    finally:
        limiter.close()


def test_ping_succeeds_on_a_live_redis(redis_url: str) -> None:
    limiter = open_limiter(redis_url, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    try:
        limiter.ping()
    finally:
        limiter.close()
