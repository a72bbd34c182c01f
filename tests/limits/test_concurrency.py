"""Exact counts under concurrency: requests in flight together on one worker's event loop (and
in its worker threads when the ledger is behind a network), and two processes against Redis."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from serve.limits import Limiter, Limits, open_limiter
from serve.limits.ledger import MemoryLedger
from tests.health_wait import HANG_LIMIT
from tests.limits.concurrent_workers import burst, hit_from_process
from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS

FIVE_PER_SECOND = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100000)
# Far in the future, so every request falls in the same second whatever the wall clock does.
FIXED_NOW = datetime(2999, 6, 15, 12, 0, 0, tzinfo=UTC)


class NetworkLedger(MemoryLedger):
    """A ledger that says it waits on a socket (as PostgreSQL's does): the in-process limiter then
    counts each request in a worker thread, the path its lock is for (the test holds the count
    exact on that path; a race the lock prevents is too narrow to be drawn on demand)."""

    in_process = False


def test_fifty_requests_at_once_admit_exactly_five(make_limiter: Callable[[], Limiter]) -> None:
    limiter = make_limiter()
    admitted = burst(limiter, FIVE_PER_SECOND, FIXED_NOW, 50)
    assert len(admitted) == 50
    assert sum(admitted) == 5
    assert limiter.usage("shared-key", FIVE_PER_SECOND, FIXED_NOW)["second"] == 5


def test_fifty_requests_in_worker_threads_admit_exactly_five() -> None:
    with open_limiter("memory://", ledger=NetworkLedger()) as limiter:
        assert not limiter.in_process
        admitted = burst(limiter, FIVE_PER_SECOND, FIXED_NOW, 50)
        assert sum(admitted) == 5 and len(admitted) == 50
        assert limiter.usage("shared-key", FIVE_PER_SECOND, FIXED_NOW)["second"] == 5


@pytest.mark.redis
@pytest.mark.slow
def test_fifty_requests_from_two_processes_admit_exactly_five(redis_url: str, redis_prefix: str) -> None:
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    results = context.Queue()
    processes = [
        context.Process(
            target=hit_from_process,
            args=(redis_url, redis_prefix, FIVE_PER_SECOND, FIXED_NOW, 25, start, results),
        )
        for _ in range(2)
    ]
    for process in processes:
        process.start()
    admitted = [allowed for _ in processes for allowed in results.get(timeout=HANG_LIMIT)]
    for process in processes:
        process.join(timeout=HANG_LIMIT)
        assert process.exitcode == 0

    assert len(admitted) == 50
    assert sum(admitted) == 5

    with open_limiter(redis_url, key_prefix=redis_prefix, timeout_seconds=COUNTING_TIMEOUT_SECONDS) as reader:
        usage = reader.usage("shared-key", FIVE_PER_SECOND, FIXED_NOW)
    assert (usage["second"], usage["minute"], usage["day"], usage["month"]) == (5, 5, 5, 5)
