"""The server's rate-limit headers, and a pacer that keeps the client inside them.

Every metered response carries `X-RateLimit-*` and the IETF draft's `RateLimit` header
(docs/limits.md "Headers"). When the binding window is spent, the pacer holds the next request
until that window rolls over, instead of sending it to collect a 429: a refused request costs
nothing on the server, but a client that hammers a full window only adds load. The day and the
month are not waited for here (hours, weeks): their 429 surfaces through the retry policy.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

import httpx
import msgspec

SHORT_WINDOWS = ("second", "minute")
_RATELIMIT_FIELD = re.compile(r";\s*([a-z]+)=([0-9]+)")


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class RateLimitStatus(msgspec.Struct, frozen=True, kw_only=True):
    """The binding window as the last response described it."""

    window: str | None = None
    """`second`, `minute`, `day` or `month`."""
    limit: int | None = None
    remaining: int | None = None
    used: int | None = None
    reset_epoch: int | None = None
    """Unix second at which the window ends (the server's clock)."""
    reset_after: float | None = None
    """Seconds until the window ends, from `RateLimit: ...;t=` (immune to clock skew)."""

    @classmethod
    def from_headers(cls, headers: httpx.Headers) -> RateLimitStatus | None:
        if "x-ratelimit-window" not in headers and "ratelimit" not in headers:
            return None
        draft = dict(_RATELIMIT_FIELD.findall(headers.get("ratelimit", "")))
        reset_after = _int(draft.get("t"))
        return cls(
            window=headers.get("x-ratelimit-window"),
            limit=_int(headers.get("x-ratelimit-limit")),
            remaining=_int(headers.get("x-ratelimit-remaining", draft.get("r"))),
            used=_int(headers.get("x-ratelimit-used")),
            reset_epoch=_int(headers.get("x-ratelimit-reset")),
            reset_after=float(reset_after) if reset_after is not None else None,
        )


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    """`Retry-After` in seconds (this server sends whole seconds; an HTTP date is not expected)."""
    value = _int(headers.get("retry-after"))
    return float(value) if value is not None else None


class Pacer:
    """Holds requests while a short window is known to be spent. Shared by the threads of a client."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._resume_at = 0.0
        self.status: RateLimitStatus | None = None
        """The last rate-limit headers seen (None until a metered response arrived)."""

    def observe(self, headers: httpx.Headers) -> None:
        status = RateLimitStatus.from_headers(headers)
        if status is None:
            return
        with self._lock:
            self.status = status
            spent = status.remaining == 0 and status.window in SHORT_WINDOWS
            if spent and status.reset_after is not None:
                self._resume_at = max(self._resume_at, self._clock() + status.reset_after)

    def hold_until(self, delay: float) -> None:
        """No request before `delay` seconds from now (a 429's `Retry-After`)."""
        with self._lock:
            self._resume_at = max(self._resume_at, self._clock() + delay)

    def wait(self) -> float:
        """Sleep until requests may flow again; the seconds slept."""
        with self._lock:
            delay = self._resume_at - self._clock()
        if delay > 0:
            self._sleep(delay)
            return delay
        return 0.0
