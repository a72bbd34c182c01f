"""The account's pooled envelope (issue 80, item 3), on both backends: every credential of an
account is counted in its own windows and in the account's pooled ones at once, admitted only when
both envelopes admit it, counted in both or in neither; no pooled cap is today's behaviour."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from serve.limits import Admission, Limiter, Limits, MemoryLedger, open_limiter
from serve.limits.model import NO_LIMITS
from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS, delete_prefix, hit, redis_or_skip

KEY = Limits(per_second=100, per_minute=1000, per_day=10_000, monthly_requests=None)
NOW = datetime(2030, 5, 17, 9, 30, 12, tzinfo=UTC)
DAY_START = int(datetime(2030, 5, 17, tzinfo=UTC).timestamp())
MONTH_START = int(datetime(2030, 5, 1, tzinfo=UTC).timestamp())


def counts(used: dict[str, int] | None) -> tuple[int, ...]:
    assert used is not None
    return (used["second"], used["minute"], used["day"], used["month"])


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(backend, Redis key prefix) for limiters made by `open_on`; the prefix's keys go afterwards."""
    if request.param == "memory":
        yield "memory", ""
        return
    redis_or_skip()
    prefix = f"ar:rltest:{uuid.uuid4().hex}"
    yield "redis", prefix
    delete_prefix(prefix)


def open_on(backend: tuple[str, str], ledger: MemoryLedger, prefix: str | None = None) -> Limiter:
    """A limiter of the backend over `ledger` (`prefix`: another Redis key space, as a Redis
    restarted empty)."""
    kind, shared_prefix = backend
    if kind == "memory":
        return open_limiter("memory://", ledger=ledger)
    return open_limiter(
        redis_or_skip(),
        key_prefix=prefix or shared_prefix,
        timeout_seconds=COUNTING_TIMEOUT_SECONDS,
        ledger=ledger,
    )


@pytest.fixture
def limiter(backend: tuple[str, str]) -> Iterator[Limiter]:
    opened = open_on(backend, MemoryLedger())
    yield opened
    opened.close()


def test_two_keys_share_the_accounts_minute(limiter: Limiter) -> None:
    """Two keys of one account, a pooled cap of 4 a minute: the 5th request across both keys is
    refused, naming the minute and the account's envelope, and counted nowhere."""
    pool = ("pool" + "a" * 12, Limits(per_second=None, per_minute=4, per_day=None, monthly_requests=None))
    admitted = [hit(limiter, key, KEY, NOW, pool) for key in ("key_one", "key_two", "key_one", "key_two")]
    assert all(decision.allowed for decision in admitted)
    assert counts(admitted[-1].account_used) == (4, 4, 4, 4)
    assert counts(admitted[-1].used) == (2, 2, 2, 2)  # the key's own windows

    refused = hit(limiter, "key_one", KEY, NOW + timedelta(seconds=1), pool)
    assert (refused.allowed, refused.exceeded, refused.error_code) == (False, "minute", "rate_limit_minute")
    assert refused.refused_by == "account"
    assert refused.retry_after == 47  # to 09:31:00
    assert refused.headers["X-RateLimit-Window"] == "minute"
    assert (refused.headers["X-RateLimit-Limit"], refused.headers["X-RateLimit-Remaining"]) == ("4", "0")
    assert refused.headers["RateLimit"] == '"account-minute";r=0;t=47'
    # The refused request moved neither the first key's own counts nor the pool's.
    later = NOW + timedelta(seconds=1)
    assert counts(refused.used) == (0, 2, 2, 2)
    first = limiter.usage("key_one", KEY, later)
    assert (first["second"], first["minute"], first["day"], first["month"]) == (0, 2, 2, 2)
    pooled = limiter.usage(pool[0], pool[1], later)
    assert pooled == {
        "second": 0,
        "minute": 4,
        "day": 4,
        "month": 4,
        "remaining_second": None,
        "remaining_minute": 0,
        "remaining_day": None,
        "remaining_month": None,
    }
    # The next minute admits again, on either key.
    assert hit(limiter, "key_two", KEY, datetime(2030, 5, 17, 9, 31, tzinfo=UTC), pool).allowed


def test_a_refusal_of_the_credential_counts_nothing_in_the_pool(limiter: Limiter) -> None:
    tight = Limits(per_second=2, per_minute=1000, per_day=10_000, monthly_requests=None)
    pool = ("pool" + "b" * 12, Limits(per_second=None, per_minute=100, per_day=None, monthly_requests=None))
    outcomes = [hit(limiter, "key", tight, NOW, pool) for _ in range(4)]
    assert [d.allowed for d in outcomes] == [True, True, False, False]
    assert {d.refused_by for d in outcomes[2:]} == {"credential"}
    assert limiter.usage(pool[0], pool[1], NOW)["minute"] == 2


def test_no_pooled_cap_is_todays_behaviour(limiter: Limiter) -> None:
    """Without a pooled cap a key is limited exactly as before (the same decisions and headers as a
    key counted alone), and the account's usage is still counted."""
    envelope = Limits(per_second=3, per_minute=60, per_day=5000, monthly_requests=100_000)
    pool = ("pool" + "c" * 12, NO_LIMITS)
    pooled = [hit(limiter, "pooled_key", envelope, NOW, pool) for _ in range(5)]
    alone = [hit(limiter, "lone_key", envelope, NOW) for _ in range(5)]
    assert [(d.allowed, d.exceeded, d.retry_after, d.headers, d.used) for d in pooled] == [
        (d.allowed, d.exceeded, d.retry_after, d.headers, d.used) for d in alone
    ]
    assert alone[-1].account_used is None and pooled[-1].refused_by == "credential"
    assert counts(pooled[-1].account_used) == (3, 3, 3, 3)


def test_headers_describe_the_binding_envelope(limiter: Limiter) -> None:
    """The binding window is the least remaining over both envelopes; `RateLimit-Policy` lists the
    key's windows, then the account's capped ones named `account-`."""
    envelope = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=None)
    pool = ("pool" + "d" * 12, Limits(per_second=None, per_minute=None, per_day=3, monthly_requests=None))
    first = hit(limiter, "key", envelope, NOW, pool)
    assert first.headers["X-RateLimit-Window"] == "day"
    assert (first.headers["X-RateLimit-Limit"], first.headers["X-RateLimit-Remaining"]) == ("3", "2")
    assert first.headers["RateLimit-Policy"] == (
        '"second";q=5;w=1, "minute";q=60;w=60, "day";q=5000;w=86400, "account-day";q=3;w=86400'
    )
    assert first.headers["RateLimit"].startswith('"account-day";r=2;')
    # Both the key's second and the account's day exhausted: the code names the shorter window
    # (the key's second), and Retry-After waits for the account's day too.
    tight = Limits(per_second=2, per_minute=60, per_day=5000, monthly_requests=None)
    hit(limiter, "key_b", tight, NOW, pool)
    hit(limiter, "key_b", tight, NOW, pool)
    refused = hit(limiter, "key_b", tight, NOW, pool)
    assert (refused.exceeded, refused.refused_by) == ("second", "credential")
    midnight = datetime(2030, 5, 18, tzinfo=UTC)
    assert refused.retry_after == int((midnight - NOW).total_seconds())


def test_concurrent_requests_of_two_keys_admit_exactly_the_pooled_cap(limiter: Limiter) -> None:
    """50 requests in flight at once, half on each of two keys, against a pooled 5 a second."""
    pool = ("pool" + "e" * 12, Limits(per_second=5, per_minute=None, per_day=None, monthly_requests=None))

    async def burst() -> list[Admission]:
        try:
            return list(
                await asyncio.gather(
                    *(limiter.hit(("key_x", "key_y")[i % 2], KEY, NOW, pool) for i in range(50))
                )
            )
        finally:
            await limiter.detach()

    decisions = asyncio.run(burst())
    assert sum(d.allowed for d in decisions) == 5
    assert {d.refused_by for d in decisions if not d.allowed} == {"account"}
    assert limiter.usage(pool[0], pool[1], NOW)["second"] == 5
    key_seconds = limiter.usage("key_x", KEY, NOW)["second"] + limiter.usage("key_y", KEY, NOW)["second"]
    assert key_seconds == 5  # the refused 45 were counted on neither key


def test_the_pooled_day_and_month_survive_a_restart_through_the_ledger(backend: tuple[str, str]) -> None:
    """The pooled day and month are written to the ledger as a key's are, and a new limiter (a
    restarted worker, a Redis restarted empty) starts the pool's counters from it."""
    ledger = MemoryLedger()
    pool = ("pool" + "f" * 12, Limits(per_second=None, per_minute=None, per_day=5, monthly_requests=None))
    first = open_on(backend, ledger)
    try:
        for key in ("key_one", "key_two", "key_one"):
            assert hit(first, key, KEY, NOW, pool).allowed
        first.sync()
    finally:
        first.close()
    assert ledger.read(pool[0], DAY_START, MONTH_START) == (3, 3)
    assert ledger.read("key_one", DAY_START, MONTH_START) == (2, 2)

    restarted_prefix = f"{backend[1]}:restarted" if backend[0] == "redis" else None
    second = open_on(backend, ledger, prefix=restarted_prefix)
    try:
        later = NOW + timedelta(hours=1)
        assert [hit(second, "key_two", KEY, later, pool).allowed for _ in range(3)] == [True, True, False]
        assert second.usage(pool[0], pool[1], later)["day"] == 5
        assert second.usage("key_two", KEY, later)["day"] == 3  # its own 1 before, 2 now
    finally:
        second.close()
        if restarted_prefix:
            delete_prefix(restarted_prefix)


def test_an_outage_counts_both_envelopes_in_the_shared_ledger() -> None:
    """Redis unreachable: two workers count the pool's day in the ledger they share, as a key's."""
    ledger = MemoryLedger()
    workers = [open_limiter("redis://127.0.0.1:1/0", ledger=ledger) for _ in range(2)]
    pool = ("pool" + "9" * 12, Limits(per_second=None, per_minute=None, per_day=6, monthly_requests=None))
    try:
        decisions = [hit(workers[i % 2], ("key_one", "key_two")[i % 2], KEY, NOW, pool) for i in range(9)]
        assert [d.allowed for d in decisions] == [True] * 6 + [False] * 3
        assert {(d.exceeded, d.refused_by) for d in decisions[6:]} == {("day", "account")}
        assert ledger.read(pool[0], DAY_START, MONTH_START) == (6, 6)
        assert ledger.read("key_one", DAY_START, MONTH_START) == (3, 3)  # not the refused requests
        assert ledger.read("key_two", DAY_START, MONTH_START) == (3, 3)
        # A pooled per-minute cap is enforced by each worker locally, as a key's is.
        minute_pool = ("pool" + "8" * 12, Limits(None, 2, None, None))
        codes = [hit(workers[0], "key_three", KEY, NOW, minute_pool).error_code for _ in range(3)]
        assert codes == [None, None, "rate_limit_minute"]
    finally:
        for worker in workers:
            worker.close()
