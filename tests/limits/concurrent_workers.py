"""Entry point of the worker processes in the concurrency test (importable by spawned children)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from serve.limits import Limiter, Limits, open_limiter
from tests.health_wait import HANG_LIMIT
from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS


def burst(limiter: Limiter, limits: Limits, now: datetime, requests: int, start: Any) -> list[bool]:
    """`requests` hits on one key, all in flight at once on one event loop, as a worker serves
    them, after the barrier `start` (the other process may still be starting); whether each was
    admitted."""

    async def all_at_once() -> list[bool]:
        try:
            decisions = await asyncio.gather(
                *(limiter.hit("shared-key", limits, now) for _ in range(requests))
            )
        finally:
            await limiter.detach()
        return [decision.allowed for decision in decisions]

    start.wait(timeout=HANG_LIMIT)
    return asyncio.run(all_at_once())


def hit_from_process(
    url: str, key_prefix: str, limits: Limits, now: datetime, requests: int, start: Any, results: Any
) -> None:
    """A worker process: one burst of `requests`, its admissions put on `results`."""
    limiter = open_limiter(url, key_prefix=key_prefix, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    admitted = burst(limiter, limits, now, requests, start)
    limiter.close()
    results.put(admitted)
