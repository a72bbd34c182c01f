"""Entry point of the worker processes in the concurrency test (importable by spawned children)."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from serve.limits import Limiter, Limits, open_limiter
from tests.health_wait import HANG_LIMIT
from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS


def burst(limiter: Limiter, limits: Limits, now: datetime, threads: int, start: Any) -> list[bool]:
    """`threads` hits on one key, released together by the barrier `start`; whether each was admitted."""
    admitted: list[bool] = []
    lock = threading.Lock()

    def one_request() -> None:
        start.wait(timeout=HANG_LIMIT)  # the other process may still be starting
        allowed = limiter.hit("shared-key", limits, now).allowed
        with lock:
            admitted.append(allowed)

    workers = [threading.Thread(target=one_request) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return admitted


def hit_from_threads(
    url: str, key_prefix: str, limits: Limits, now: datetime, threads: int, start: Any, results: Any
) -> None:
    """A worker process: one burst from `threads` threads, its admissions put on `results`."""
    limiter = open_limiter(url, key_prefix=key_prefix, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    admitted = burst(limiter, limits, now, threads, start)
    limiter.close()
    results.put(admitted)
