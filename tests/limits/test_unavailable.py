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
import statistics
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from serve.limits import Limiter, LimiterUnavailable, Limits, MemoryLedger, open_limiter
from serve.limits.redis_backend import DEFAULT_TIMEOUT_SECONDS, RETRY_SECONDS

ENVELOPE = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100000)
NOW = datetime(2030, 1, 1, 0, 0, 30, tzinfo=UTC)
START_OF_2030 = 1_893_456_000


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP port that accepts connections (kernel backlog) but never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    listener.close()


def test_ping_of_a_closed_port_fails_fast_without_the_password() -> None:
    limiter = open_limiter("redis://:secret-password@127.0.0.1:1/0")
    started = time.monotonic()
    with pytest.raises(LimiterUnavailable) as caught:
        limiter.ping()
    assert time.monotonic() - started < 0.5
    assert "127.0.0.1:1" in str(caught.value)
    assert "secret-password" not in str(caught.value)


def test_ping_of_a_silent_server_waits_one_timeout(silent_server: str) -> None:
    limiter = open_limiter(silent_server)
    started = time.monotonic()
    with pytest.raises(LimiterUnavailable):
        limiter.ping()
    elapsed = time.monotonic() - started
    assert DEFAULT_TIMEOUT_SECONDS * 0.9 <= elapsed < 0.25  # the read timeout, well under the old 0.25 s


def hits(limiter: Limiter, limits: Limits, moments: list[datetime]) -> list[str | None]:
    """The error code of each hit (None when admitted)."""
    return [limiter.hit("k", limits, moment).error_code for moment in moments]


def test_a_dead_redis_still_enforces_second_and_minute_windows(caplog: pytest.LogCaptureFixture) -> None:
    limiter = open_limiter("redis://127.0.0.1:1/0")
    with caplog.at_level(logging.WARNING, logger="serve.limits"):
        codes = hits(limiter, ENVELOPE, [NOW] * 20)
    assert codes == [None] * 5 + ["rate_limit_second"] * 15  # was: 20 of 20 admitted
    decision = limiter.hit("k", ENVELOPE, NOW)
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
    codes = [workers[i % 2].hit("k", tight, NOW).error_code for i in range(12)]
    assert codes == [None] * 7 + ["rate_limit_day"] * 5  # 7 in all, not 7 per worker
    assert ledger.read("k", START_OF_2030, START_OF_2030) == (7, 7)  # day and month of NOW
    monthly = Limits(per_second=100, per_minute=1000, per_day=1000, monthly_requests=9)
    codes = [workers[i % 2].hit("m", monthly, NOW).error_code for i in range(12)]
    assert codes == [None] * 9 + ["quota_exceeded"] * 3


def test_a_frozen_redis_costs_one_timeout_per_retry_interval(silent_server: str) -> None:
    """The defect: every request waited the 0.25 s timeout. Now the first request of each
    `RETRY_SECONDS` interval waits at most the 0.08 s timeout; the others go on at once."""
    limiter = open_limiter(silent_server)
    roomy = Limits(per_second=10**9, per_minute=10**9, per_day=10**9, monthly_requests=None)
    durations = []
    started = time.monotonic()
    while time.monotonic() - started < 2.2:
        begun = time.perf_counter()
        assert limiter.hit("k", roomy, datetime.now(UTC)).allowed
        durations.append(time.perf_counter() - begun)
    slow = [d for d in durations if d > DEFAULT_TIMEOUT_SECONDS * 0.9]
    intervals = 2.2 / RETRY_SECONDS
    # One timeout per interval (a loaded machine may add a stray slow hit or two), never one per hit.
    assert 1 <= len(slow) <= intervals + 3, (len(slow), len(durations))
    assert statistics.median(slow) < 0.1  # a request that meets the frozen Redis: at most 100 ms added
    assert statistics.median(durations) < 0.005
    assert len(durations) > 100
