"""A Redis that is down, silent or frozen never lifts the limits and never stalls every request.

While Redis fails, each limiter (worker) enforces the per-second and per-minute windows itself
and counts day and month in the ledger that all workers share; Redis is asked again no sooner
than `RETRY_SECONDS` later, so a frozen Redis costs one timeout per interval, not per request.
The limits themselves are only checked against a dead port here; tests/limits/test_redis_restart.py
kills and freezes a private Redis.
"""

from __future__ import annotations

import logging
import socket
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis.connection

from serve.limits import Limiter, LimiterUnavailable, Limits, MemoryLedger, open_limiter
from serve.limits.redis_backend import DEFAULT_TIMEOUT_SECONDS, RETRY_SECONDS
from tests.health_wait import returns
from tests.limits.conftest import RetryClock, SilentServer, hit

ENVELOPE = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100000)
NOW = datetime(2030, 1, 1, 0, 0, 30, tzinfo=UTC)
START_OF_2030 = 1_893_456_000


class ConnectAttempts:
    """Counts the sockets redis-py opens (one per attempt to reach Redis), through the `socket`
    module its connection code uses."""

    def __init__(self) -> None:
        self.opened = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(socket, name)

    def socket(self, *args: Any, **kwargs: Any) -> socket.socket:
        self.opened += 1
        return socket.socket(*args, **kwargs)


def test_ping_of_a_closed_port_fails_at_once_without_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused connection is not retried (no backoff ladder): one attempt, then the error."""
    attempts = ConnectAttempts()
    monkeypatch.setattr(redis.connection, "socket", attempts)
    limiter = open_limiter("redis://:secret-password@127.0.0.1:1/0")
    with pytest.raises(LimiterUnavailable) as caught:
        returns(limiter.ping, "a ping of a closed port")
    assert attempts.opened == 1
    assert "127.0.0.1:1" in str(caught.value)
    assert "secret-password" not in str(caught.value)


def test_ping_of_a_silent_server_waits_one_timeout(silent_server: SilentServer) -> None:
    """The client's connect and read timeouts are the short `DEFAULT_TIMEOUT_SECONDS` (0.08 s; it
    was 0.25 s), and a ping that meets a silent server fails by that timeout, once, not retried."""
    limiter = open_limiter(silent_server.url)
    options = limiter._client.connection_pool.connection_kwargs  # type: ignore[attr-defined]
    assert options["socket_timeout"] == options["socket_connect_timeout"] == DEFAULT_TIMEOUT_SECONDS < 0.25
    with pytest.raises(LimiterUnavailable) as caught:
        returns(limiter.ping, "a ping of a silent server")
    assert "Timeout" in str(caught.value), caught.value
    assert silent_server.connections() == 1


def hits(limiter: Limiter, limits: Limits, moments: list[datetime]) -> list[str | None]:
    """The error code of each hit (None when admitted)."""
    return [hit(limiter, "k", limits, moment).error_code for moment in moments]


def test_a_dead_redis_still_enforces_second_and_minute_windows(caplog: pytest.LogCaptureFixture) -> None:
    limiter = open_limiter("redis://127.0.0.1:1/0")
    with caplog.at_level(logging.WARNING, logger="serve.limits"):
        codes = hits(limiter, ENVELOPE, [NOW] * 20)
    assert codes == [None] * 5 + ["rate_limit_second"] * 15  # was: 20 of 20 admitted
    decision = hit(limiter, "k", ENVELOPE, NOW)
    assert decision.headers["X-RateLimit-Remaining"] == "0" and decision.retry_after == 1
    # 12 more seconds at 5/s reach the minute's 60; the refused ones were not counted.
    later = [NOW + timedelta(seconds=s) for s in range(1, 13) for _ in range(6)]
    codes = hits(limiter, ENVELOPE, later)
    assert codes.count(None) == 55 and codes[-1] == "rate_limit_minute"
    usage = limiter.usage("k", ENVELOPE, NOW + timedelta(seconds=12))
    assert usage["minute"] == 60 and usage["day"] == 60 and usage["month"] == 60
    outage_logs = [r for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(outage_logs) == 1  # once per outage, not once per request


def test_a_dead_redis_counts_day_and_month_in_the_shared_ledger() -> None:
    ledger = MemoryLedger()
    workers = [open_limiter("redis://127.0.0.1:1/0", ledger=ledger) for _ in range(2)]
    tight = Limits(per_second=100, per_minute=1000, per_day=7, monthly_requests=None)
    codes = [hit(workers[i % 2], "k", tight, NOW).error_code for i in range(12)]
    assert codes == [None] * 7 + ["rate_limit_day"] * 5  # 7 in all, not 7 per worker
    assert ledger.read("k", START_OF_2030, START_OF_2030) == (7, 7)  # day and month of NOW
    monthly = Limits(per_second=100, per_minute=1000, per_day=1000, monthly_requests=9)
    codes = [hit(workers[i % 2], "m", monthly, NOW).error_code for i in range(12)]
    assert codes == [None] * 9 + ["quota_exceeded"] * 3


def test_a_frozen_redis_is_asked_once_per_retry_interval(
    silent_server: SilentServer, retry_clock: RetryClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The defect: every request waited the timeout of a frozen Redis. Now the first request of
    each `RETRY_SECONDS` interval meets it (one timeout); the others are counted locally at once.
    Counted at the silent server, with the limiter's clock moved on by the test."""
    limiter = open_limiter(silent_server.url)
    roomy = Limits(per_second=10**9, per_minute=10**9, per_day=10**9, monthly_requests=None)
    with caplog.at_level(logging.WARNING, logger="serve.limits"):
        for interval in range(1, 5):
            assert all(hit(limiter, "k", roomy, NOW).allowed for _ in range(50))
            assert silent_server.connections() == interval  # one contact for 50 requests
            retry_clock.advance(RETRY_SECONDS * 0.9)
            assert hit(limiter, "k", roomy, NOW).allowed
            assert silent_server.connections() == interval  # not yet: still within the interval
            retry_clock.advance(RETRY_SECONDS * 0.1 + 0.001)
    assert limiter.in_outage  # type: ignore[attr-defined]
    outage_logs = [r for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(outage_logs) == 1  # once per outage, not once per interval
