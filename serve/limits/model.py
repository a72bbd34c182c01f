"""What the limiter takes and answers, and the rules both backends share.

The backends only store counters; deciding which window is exceeded, what `Retry-After` is and
which headers go out happens here, once, so the in-process and Redis limiters cannot drift apart.

A request is counted in one or two envelopes at once (`Envelope`: a counter id and its limits):
its credential's (a key's `key_id`, or an account's tokens' and sessions' `acc...` id) and, when
the caller names one, its account's pooled one (`pool...`, `access.oauth.account_pool_id`). It is
admitted only if every envelope admits it, and then counted in all of them; refused, in none.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

from anyio import to_thread

from serve.limits.ledger import SYNC_SECONDS, MemoryLedger, UsageFloors, UsageLedger
from serve.limits.windows import WINDOW_NAMES, LimitWindow, WindowName, current_windows

log = logging.getLogger(__name__)

Counts = tuple[int, int, int, int]
T = TypeVar("T")

ERROR_CODES: dict[WindowName, str] = {
    "second": "rate_limit_second",
    "minute": "rate_limit_minute",
    "day": "rate_limit_day",
    "month": "quota_exceeded",
}


class LimiterUnavailable(Exception):
    """The counter store cannot be reached (raised by `ping`; counting falls back to `OutageLimits`)."""


@dataclass(frozen=True)
class Limits:
    """An envelope: a limit per window, None where the window has none. A key's limits every
    window but the month (`monthly_requests=None`: no monthly quota); an account's pooled envelope
    may leave any window without a cap (`NO_LIMITS`: none at all, counted but never refused)."""

    per_second: int | None
    per_minute: int | None
    per_day: int | None
    monthly_requests: int | None

    def __post_init__(self) -> None:
        for name in ("per_second", "per_minute", "per_day", "monthly_requests"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer or None, got {value!r}")

    def as_tuple(self) -> tuple[int | None, int | None, int | None, int | None]:
        """Limits in check order (second, minute, day, month)."""
        return (self.per_second, self.per_minute, self.per_day, self.monthly_requests)


SELF_SERVICE_LIMITS = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100000)
NO_LIMITS = Limits(per_second=None, per_minute=None, per_day=None, monthly_requests=None)
"""The pooled envelope of an account without one: its windows are counted, never refused."""

Envelope = tuple[str, Limits]
"""A counter id (a credential's, or an account's pooled id) and the limits enforced on it."""
Exceeded = tuple[int, int]
"""Which envelope (its index in the request's envelopes, 0 the credential's) refused a request, and
in which window (0 second ... 3 month)."""
ENVELOPE_NAMES = ("credential", "account")
"""What the envelopes of a request are, by index: its credential's, then its account's pooled one."""


@dataclass(frozen=True)
class Admission:
    """The limiter's answer to one request: allowed, or refused with the window it exceeded, and
    the rate-limit headers either way."""

    allowed: bool
    exceeded: WindowName | None
    retry_after: int  # 0 when allowed
    headers: dict[str, str]
    used: dict[WindowName, int] = field(default_factory=dict)
    """The credential's counts by window (after this request when admitted)."""
    account_used: dict[WindowName, int] | None = None
    """The account's pooled counts by window, when the request was counted in a pool."""
    refused_by: str | None = None
    """`credential` or `account` (`ENVELOPE_NAMES`): whose envelope refused the request."""

    @property
    def error_code(self) -> str | None:
        """The spec error code of a refusal (`rate_limit_second` ... `quota_exceeded`)."""
        return ERROR_CODES[self.exceeded] if self.exceeded else None


def exceeded_of(counts: Sequence[Counts], limits: Sequence[Limits]) -> Exceeded | None:
    """The envelope and window with no room left for one more request, if any: the shortest such
    window, and on a tie the credential's envelope (the first)."""
    found: Exceeded | None = None
    for envelope, (count, bounds) in enumerate(zip(counts, limits, strict=True)):
        for index, limit in enumerate(bounds.as_tuple()):
            if limit is not None and count[index] >= limit:
                if found is None or index < found[1]:
                    found = (envelope, index)
                break
    return found


def four(values: Sequence[int]) -> Counts:
    """Four counts (second, minute, day, month) as a `Counts`."""
    second, minute, day, month = values
    return (second, minute, day, month)


def _remaining(count: int, limit: int) -> int:
    return max(0, limit - count)


def build_decision(
    windows: tuple[LimitWindow, ...],
    limits: Sequence[Limits],
    counts: Sequence[Counts],
    exceeded: Exceeded | None,
    now: datetime,
) -> Admission:
    """The answer for one request, given each envelope's limits and counts after it was (or was
    not) counted: the credential's first, then the account's pooled one if it was counted there."""
    # Binding window: least remaining over every envelope; on a tie the shorter window, then the
    # credential's, so a refusal names the same window in the headers as in the error code. (One
    # pass, no key function: every metered request makes one, issue 49.)
    bounds = [envelope.as_tuple() for envelope in limits]
    left, binding, binding_envelope, binding_limit = -1, 3, 0, 0  # left -1: none found yet
    for envelope, bound in enumerate(bounds):
        if bound == _UNLIMITED:  # an account without a pooled cap: counted, never binding
            continue
        counted = counts[envelope]
        for index in range(4):
            limit = bound[index]
            if limit is None:
                continue
            remaining = limit - counted[index] if counted[index] < limit else 0
            if left < 0 or remaining < left or (remaining == left and index < binding):
                left, binding, binding_envelope, binding_limit = remaining, index, envelope, limit
    left = max(left, 0)  # nothing limited at all: the month's window, 0 of 0
    window = windows[binding]
    name = _POLICY_PREFIXES[binding_envelope] + window.name
    headers = {
        "X-RateLimit-Limit": str(binding_limit),
        "X-RateLimit-Remaining": str(left),
        "X-RateLimit-Used": str(counts[binding_envelope][binding]),
        "X-RateLimit-Reset": str(window.reset_epoch),
        "X-RateLimit-Window": window.name,
        "RateLimit-Policy": rate_limit_policy(windows, *limits),
        "RateLimit": f'"{name}";r={left};t={window.seconds_until_reset(now)}',
    }
    retry_after = 0
    if exceeded is not None:
        # The code names the shortest exhausted window, but a retry only succeeds once every
        # exhausted window of every envelope has rolled over, so Retry-After waits for the last.
        retry_after = max(
            windows[i].seconds_until_reset(now)
            for envelope, bound in enumerate(bounds)
            for i, limit in enumerate(bound)
            if limit is not None and counts[envelope][i] >= limit
        )
        headers["Retry-After"] = str(retry_after)
    return Admission(
        allowed=exceeded is None,
        exceeded=WINDOW_NAMES[exceeded[1]] if exceeded is not None else None,
        retry_after=retry_after,
        headers=headers,
        used=dict(zip(WINDOW_NAMES, counts[0], strict=True)),
        account_used=dict(zip(WINDOW_NAMES, counts[1], strict=True)) if len(counts) > 1 else None,
        refused_by=ENVELOPE_NAMES[exceeded[0]] if exceeded is not None else None,
    )


_UNLIMITED = (None, None, None, None)

_POLICY_PREFIXES = ("", "account-")
"""The IETF fields' policy names of an envelope's windows: the credential's are the windows' names
(`"minute"`), the account's pooled ones `"account-minute"`."""


def rate_limit_policy(windows: tuple[LimitWindow, ...], limits: Limits, pooled: Limits = NO_LIMITS) -> str:
    """The IETF draft's `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-10): one policy per
    window the key is limited in, named after it, with its quota `q` and length `w` in seconds (the
    month's is the current calendar month's), then one per window the account's pooled envelope
    caps, named `account-` and the window."""
    month = windows[3]
    return _policy(limits, pooled, month.reset_epoch - month.start_epoch)


@lru_cache(maxsize=1024)
def _policy(limits: Limits, pooled: Limits, month_seconds: int) -> str:
    lengths = (1, 60, 86_400, month_seconds)
    return ", ".join(
        f'"{prefix}{name}";q={limit};w={length}'
        for prefix, envelope in zip(_POLICY_PREFIXES, (limits, pooled), strict=True)
        for name, limit, length in zip(WINDOW_NAMES, envelope.as_tuple(), lengths, strict=True)
        if limit is not None
    )


def build_usage(limits: Limits, counts: Counts) -> dict[str, int | None]:
    usage: dict[str, int | None] = dict(zip(WINDOW_NAMES, counts, strict=True))
    for name, count, limit in zip(WINDOW_NAMES, counts, limits.as_tuple(), strict=True):
        usage[f"remaining_{name}"] = None if limit is None else _remaining(count, limit)
    return usage


class Limiter(ABC):
    """Counts requests per key in fixed UTC windows; a refused request is not counted.

    Day and month counts never go below the key's durable counts in the ledger (`UsageFloors`),
    and `sync()` writes what was enforced back to it; `start_sync()` runs that every
    `SYNC_SECONDS` in a daemon thread, and `close()` syncs one last time.
    """

    in_process: bool = False
    """True when counting needs no network I/O (the in-process limiter over an in-process ledger),
    so `usage` may run on the event loop; False means it may wait on a socket (`hit` never blocks
    the loop either way)."""

    outages: int = 0
    """Times the shared store failed and this worker began counting locally (Redis only; the
    server's metrics read it, `alpha_results_limiter_outages_total`)."""

    def __init__(self, ledger: UsageLedger | None = None) -> None:
        self.floors = UsageFloors(ledger if ledger is not None else MemoryLedger())
        self._stop = threading.Event()
        self._sync_thread: threading.Thread | None = None
        # Egress (issue 60): key_id -> (day start, rows, bytes) as this worker last knew them.
        self._egress: dict[str, tuple[int, int, int]] = {}
        self._egress_lock = threading.Lock()

    # -- egress: rows and bytes a key (and its account's pool) took today (serve/limits/egress.py) -

    def egress_spent(self, key_id: str, day_start: int) -> tuple[int, int]:
        """Rows and bytes `key_id` (a key's id, or an account's pooled id) took in the UTC day
        starting at `day_start`, as this worker knows them (no I/O: the shared store's totals come
        back with each `egress_add`)."""
        known = self._egress.get(key_id)
        return (known[1], known[2]) if known is not None and known[0] == day_start else (0, 0)

    async def egress_add(self, key_ids: Sequence[str], day_start: int, rows: int, size: int) -> None:
        """Add an answer's rows and bytes to the day of each of `key_ids` (the key's, and its
        account's pooled id): the memory backend counts in this process."""
        self._egress_add_here(key_ids, day_start, rows, size)

    def egress_add_sync(self, key_ids: Sequence[str], day_start: int, rows: int, size: int) -> None:
        """`egress_add` from a worker thread (a download's bytes)."""
        self._egress_add_here(key_ids, day_start, rows, size)

    def _egress_add_here(self, key_ids: Sequence[str], day_start: int, rows: int, size: int) -> None:
        with self._egress_lock:
            for key_id in key_ids:
                spent = self.egress_spent(key_id, day_start)
                self._egress[key_id] = (day_start, spent[0] + rows, spent[1] + size)

    def _egress_known(self, key_id: str, day_start: int, rows: int, size: int) -> None:
        """The shared store's totals for the key's day, as it answered them."""
        with self._egress_lock:
            self._egress[key_id] = (day_start, rows, size)

    async def hit(
        self, key_id: str, limits: Limits, now: datetime, pool: Envelope | None = None
    ) -> Admission:
        """Admit or refuse one request of `key_id` at `now`, counting it only if admitted. With
        `pool` (the account's pooled id and envelope, `NO_LIMITS` when it has none) the request is
        also counted there, atomically with the key's windows: admitted only if both envelopes
        admit it, counted in both or neither. On the event loop, never blocking it on a socket: the
        one way a request is counted (the server's guard, and the tests, which run it on a loop of
        their own)."""
        windows = current_windows(now)
        envelopes: tuple[Envelope, ...] = ((key_id, limits),) if pool is None else ((key_id, limits), pool)
        counts, exceeded = await self._admit(envelopes, windows, now)
        if exceeded is None:
            for counted_id, _ in envelopes:
                self.floors.touch(counted_id, windows[2].start_epoch, windows[3].start_epoch)
        return build_decision(windows, [envelope[1] for envelope in envelopes], counts, exceeded, now)

    async def _with_ledger(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)`, which reads or writes the ledger: on the event loop when the ledger
        answers in-process, else in a worker thread."""
        if self.floors.ledger.in_process:
            return function(*args)
        return await to_thread.run_sync(function, *args)

    async def detach(self) -> None:  # noqa: B027 - only the Redis limiter holds a loop's connections
        """Release what the limiter holds on the running event loop (the app's shutdown calls it)."""

    def usage(self, key_id: str, limits: Limits, now: datetime) -> dict[str, int | None]:
        """Requests counted in the windows containing `now`, and what is left of each."""
        return build_usage(limits, self._read(key_id, current_windows(now)))

    def floor_of(self, key_id: str, windows: tuple[LimitWindow, ...]) -> tuple[int, int]:
        """The ledger's day and month counts of `key_id` for these windows."""
        return self.floors.get(key_id, windows[2].start_epoch, windows[3].start_epoch)

    def sync(self) -> None:
        """Record in the ledger the day and month counts of the keys admitted since the last sync."""
        touched = self.floors.take_touched()
        if not touched:
            return
        try:
            recorded = self.floors.ledger.raise_to(self._day_month_counts(touched))
        except Exception:
            for key_id, (day_start, month_start) in touched.items():  # the next sync tries again
                self.floors.touch(key_id, day_start, month_start)
            raise
        for key_id, (day, month) in recorded.items():
            day_start, month_start = touched[key_id]
            self.floors.remember(key_id, day_start, month_start, day, month)

    def start_sync(self) -> None:
        if self._sync_thread is None:
            self._stop.clear()
            self._sync_thread = threading.Thread(target=self._sync_loop, name="usage-sync", daemon=True)
            self._sync_thread.start()

    def _sync_loop(self) -> None:
        while not self._stop.wait(SYNC_SECONDS):
            try:
                self.sync()
            except Exception:  # an unreachable key store; health reports it, the next round retries
                log.warning("usage counts could not be written to the key store; retrying")

    @abstractmethod
    def ping(self) -> None:
        """Raise LimiterUnavailable when the counter store cannot be reached."""

    def close(self) -> None:
        """Stop the sync thread, record the last counts, and release the backend's connections."""
        self._stop.set()
        if self._sync_thread is not None:
            self._sync_thread.join()
            self._sync_thread = None
            try:
                self.sync()
            except Exception:
                log.warning("usage counts could not be written to the key store at shutdown")
        self._release()

    def _release(self) -> None:  # noqa: B027 - the memory backend holds nothing to release
        """Release connections held by the backend."""

    @abstractmethod
    async def _admit(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[tuple[Counts, ...], Exceeded | None]:
        """Atomically check every window of every envelope and count the request in all of them
        only if all admit it; never blocks the event loop on a socket.

        Each envelope's day and month start from at least `floor_of(its id, windows)`. Returns the
        counts of each envelope after the request (unchanged when refused) and which envelope and
        window refused it (`exceeded_of`), or None when admitted.
        """

    @abstractmethod
    def _read(self, key_id: str, windows: tuple[LimitWindow, ...]) -> Counts:
        """Current counts of the four windows (day and month at least the floor), counting nothing."""

    @abstractmethod
    def _day_month_counts(self, touched: dict[str, tuple[int, int]]) -> list[tuple[str, int, int, int, int]]:
        """`(key_id, day_start, day, month_start, month)` of the touched keys, as counted now."""

    def __enter__(self) -> Limiter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
