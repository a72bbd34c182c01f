"""Per-key rate limits and monthly quotas over fixed UTC windows (second, minute, day, month).

`open_limiter(url)` picks the backend: `memory://` (default, one worker process) or
`redis://host:port/db` (shared by every worker and machine). Either keeps day and month counts
durable in a `UsageLedger` (the key store's, in the app). See docs/limits.md.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from serve.limits.ledger import MemoryLedger, UsageLedger
from serve.limits.memory import MemoryLimiter
from serve.limits.model import (
    ERROR_CODES,
    SELF_SERVICE_LIMITS,
    Admission,
    Limiter,
    LimiterUnavailable,
    Limits,
)
from serve.limits.redis_backend import DEFAULT_KEY_PREFIX, DEFAULT_TIMEOUT_SECONDS, RedisLimiter
from serve.limits.windows import WINDOW_NAMES, WindowName

__all__ = [
    "ERROR_CODES",
    "SELF_SERVICE_LIMITS",
    "WINDOW_NAMES",
    "Admission",
    "Limiter",
    "LimiterUnavailable",
    "Limits",
    "MemoryLedger",
    "MemoryLimiter",
    "RedisLimiter",
    "UsageLedger",
    "WindowName",
    "open_limiter",
]

REDIS_SCHEMES = ("redis", "rediss", "unix")


def open_limiter(
    url: str = "memory://",
    *,
    key_prefix: str = DEFAULT_KEY_PREFIX,
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    ledger: UsageLedger | None = None,
) -> Limiter:
    """The limiter named by `url`, keeping durable counts in `ledger` (an in-process one if None).

    The Redis one connects lazily, so call `ping()` to check it."""
    scheme = urlsplit(url).scheme
    if scheme == "memory":
        return MemoryLimiter(ledger)
    if scheme in REDIS_SCHEMES:
        return RedisLimiter(url, key_prefix=key_prefix, timeout_seconds=timeout_seconds, ledger=ledger)
    raise ValueError(f"unknown rate limiter URL scheme {scheme!r}; use memory:// or redis://host:port/db")
