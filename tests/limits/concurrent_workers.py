"""Entry point of the worker processes in the concurrency test (importable by spawned children)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from serve.limits import Limiter, Limits, open_limiter
from tests.health_wait import HANG_LIMIT
from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS, hits_at_once


def burst(limiter: Limiter, limits: Limits, now: datetime, requests: int, start: Any = None) -> list[bool]:
    """`requests` hits on one key, all in flight at once, after the barrier `start` if given (the
    other process may still be starting); whether each was admitted."""
    if start is not None:
        start.wait(timeout=HANG_LIMIT)
    return [d.allowed for d in hits_at_once(limiter, "shared-key", limits, now, requests)]


def hit_from_process(
    url: str, key_prefix: str, limits: Limits, now: datetime, requests: int, start: Any, results: Any
) -> None:
    """A worker process: one burst of `requests`, its admissions put on `results`."""
    limiter = open_limiter(url, key_prefix=key_prefix, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    admitted = burst(limiter, limits, now, requests, start)
    limiter.close()
    results.put(admitted)
