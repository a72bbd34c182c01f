"""Quotas survive a private Redis being killed, restarted empty, or frozen (never the shared one).

The defect: a Redis restart without persistence reset every month counter, and an outage
admitted everything. Now day and month live in the key store's ledger: a restarted Redis starts
each counter from it, and during the outage the ledger counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from access import open_store
from access.usage_ledger import SqlUsageLedger
from serve.limits import Limiter, Limits, open_limiter
from serve.limits.redis_backend import RETRY_SECONDS
from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS, CountedCommands, RetryClock, hit
from tests.private_redis import PrivateRedis

NOW = datetime(2030, 1, 15, 12, 0, 30, tzinfo=UTC)
ROOMY_RATES = {"per_second": 10_000, "per_minute": 100_000}


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[SqlUsageLedger]:
    store = open_store(f"sqlite:///{tmp_path}/keys.sqlite3")
    yield SqlUsageLedger(store)
    store.close()


def admitted(limiter: Limiter, limits: Limits, count: int, key: str = "k") -> int:
    return sum(hit(limiter, key, limits, NOW).allowed for _ in range(count))


def test_a_restarted_redis_keeps_the_month(private_redis: PrivateRedis, ledger: SqlUsageLedger) -> None:
    monthly = Limits(**ROOMY_RATES, per_day=1000, monthly_requests=30)
    limiter = open_limiter(private_redis.url, ledger=ledger, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    assert admitted(limiter, monthly, 20) == 20
    limiter.sync()  # what the sync thread does every second
    private_redis.kill()
    private_redis.start()  # empty: no persistence
    assert admitted(limiter, monthly, 20) == 10  # was 20: the month had been reset to 0
    assert hit(limiter, "k", monthly, NOW).error_code == "quota_exceeded"
    # A worker started after the restart (no copy of the floors) reads the ledger.
    fresh = open_limiter(private_redis.url, ledger=ledger, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    assert fresh.usage("k", monthly, NOW)["month"] == 30
    assert admitted(fresh, monthly, 5) == 0


def test_a_restart_nobody_saw_starts_from_the_ledger_not_a_workers_old_copy(
    private_redis: PrivateRedis, ledger: SqlUsageLedger
) -> None:
    """Worker A's copy of the ledger predates worker B's counts; after an empty restart that no
    call saw fail, A must not restore Redis from its copy (the script asks for the ledger afresh)."""
    monthly = Limits(**ROOMY_RATES, per_day=1000, monthly_requests=12)
    a, b = (
        open_limiter(private_redis.url, ledger=ledger, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
        for _ in range(2)
    )
    assert admitted(a, monthly, 2) == 2
    a.sync()  # A's copy: 2
    assert admitted(b, monthly, 6) == 6
    b.sync()  # the ledger: 8
    private_redis.kill()
    private_redis.start()
    assert admitted(a, monthly, 10) == 4  # 12 - 8, not 12 - 2
    assert not a.in_outage  # type: ignore[attr-defined]


def test_counts_not_yet_synced_are_the_documented_bound(
    private_redis: PrivateRedis, ledger: SqlUsageLedger
) -> None:
    """Requests admitted after the last sync are lost with Redis: at most one sync interval's."""
    monthly = Limits(**ROOMY_RATES, per_day=1000, monthly_requests=30)
    limiter = open_limiter(private_redis.url, ledger=ledger, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    assert admitted(limiter, monthly, 12) == 12
    limiter.sync()
    assert admitted(limiter, monthly, 3) == 3  # not synced when Redis dies
    private_redis.kill()
    private_redis.start()
    assert admitted(limiter, monthly, 30) == 18  # 30 - 12: the 3 unsynced ones are the bound


def test_a_failure_writes_what_redis_last_said_before_counting_locally(
    private_redis: PrivateRedis, ledger: SqlUsageLedger
) -> None:
    """Admissions since the last sync are not lost when Redis dies: the worker writes Redis's last
    answer to the ledger before its first local count, and counts the second on from it."""
    limits = Limits(per_second=8, per_minute=100_000, per_day=1000, monthly_requests=30)
    limiter = open_limiter(private_redis.url, ledger=ledger, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    assert admitted(limiter, limits, 6) == 6  # never synced
    private_redis.kill()
    # Same second: 2 more, not 8 more; then the month ends at exactly 30.
    assert admitted(limiter, limits, 8) == 2
    later = [datetime(2030, 1, 15, 12, 0, 31 + s, tzinfo=UTC) for s in range(5)]
    total = 8 + sum(sum(hit(limiter, "k", limits, t).allowed for _ in range(8)) for t in later)
    assert total == 30
    assert ledger.read("k", 1_894_665_600, 1_893_456_000) == (30, 30)


def test_an_outage_counts_in_the_ledger_and_redis_resumes_from_it(
    private_redis: PrivateRedis, ledger: SqlUsageLedger, retry_clock: RetryClock
) -> None:
    daily = Limits(**ROOMY_RATES, per_day=40, monthly_requests=None)
    workers = [
        open_limiter(private_redis.url, ledger=ledger, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
        for _ in range(2)
    ]
    assert sum(admitted(worker, daily, 5) for worker in workers) == 10
    for worker in workers:
        worker.sync()
    private_redis.kill()
    # Both workers count in the shared ledger: 10 + 20 = 30 of the day's 40.
    assert sum(admitted(worker, daily, 10) for worker in workers) == 20
    assert workers[0].usage("k", daily, NOW)["day"] == 30  # usage answers during the outage
    private_redis.start()
    retry_clock.advance(RETRY_SECONDS)
    # Redis is asked again; it starts from the ledger's 30, so 10 more are admitted in all.
    assert sum(admitted(worker, daily, 10) for worker in workers) == 10
    assert workers[1].usage("k", daily, NOW)["remaining_day"] == 0


def test_a_frozen_redis_enforces_locally_then_resumes(
    private_redis: PrivateRedis,
    ledger: SqlUsageLedger,
    retry_clock: RetryClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = Limits(per_second=5, per_minute=1000, per_day=1000, monthly_requests=None)
    limiter = open_limiter(private_redis.url, ledger=ledger)
    commands = CountedCommands(limiter, monkeypatch)
    private_redis.freeze()
    try:
        codes = [hit(limiter, "k", limits, NOW).error_code for _ in range(20)]
    finally:
        private_redis.thaw()
    assert codes == [None] * 5 + ["rate_limit_second"] * 15
    # One timeout for the first request (the one command sent to the frozen Redis), none for the
    # 19 others: they are counted locally until the retry interval has passed.
    assert commands.count == 1
    assert limiter.in_outage  # type: ignore[attr-defined]
    retry_clock.advance(RETRY_SECONDS)
    later = datetime(2030, 1, 15, 12, 0, 31, tzinfo=UTC)
    assert hit(limiter, "k", limits, later).allowed
    assert commands.count >= 2  # Redis asked again
    assert not limiter.in_outage  # type: ignore[attr-defined]
