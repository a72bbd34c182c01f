"""Durable day and month usage: what survives a restart or an outage of the counter store.

The counters that enforce the limits (in-process or Redis) are fast and volatile. The ledger
keeps each key's (and each account's pooled, `access.oauth.account_pool_id`) day and month counts where credentials already live (the key store, see
`access.usage_ledger`), so that:
- a restarted Redis (or worker) starts each counter from the ledger instead of from zero;
- while Redis is unreachable, day and month admissions are counted in the ledger itself, shared
  by every worker;
- `/v1/me` can answer usage during an outage from the same numbers.

`UsageFloors` is a worker's view of the ledger: counts read at most `FLOOR_SECONDS` ago, which the
counters never go below. `MemoryLedger` is the in-process ledger for tests and for apps built
without a key store.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

DayMonth = tuple[int, int]
"""Counts of the day and month windows, in that order."""
DayMonthLimits = tuple[str, int | None, int | None]
"""A counter id (a key's, or an account's pooled id) and its day and month limits (None: none)."""

FLOOR_SECONDS = 2.0
"""How old a worker's copy of a key's ledger counts may be before a request reads them again.
The sync loop (every `SYNC_SECONDS`) refreshes the keys in use, so only idle keys pay a read."""

SYNC_SECONDS = 1.0
"""How often a worker writes the counts it enforced to the ledger, and reads them back."""


class UsageLedger(Protocol):
    @property
    def in_process(self) -> bool:
        """True when its statements run in this process without network I/O (in memory, SQLite),
        so the event loop may call it; False (PostgreSQL) means a worker thread must."""

    def read(self, key_id: str, day_start: int, month_start: int) -> DayMonth:
        """The recorded counts of the day and month starting at those epochs (0 when none)."""

    def raise_to(self, rows: Iterable[tuple[str, int, int, int, int]]) -> dict[str, DayMonth]:
        """Record `(key_id, day_start, day, month_start, month)`, never lowering a count; answer
        the counts recorded afterwards, by key."""

    def admit(
        self, envelopes: Sequence[DayMonthLimits], day_start: int, month_start: int
    ) -> tuple[bool, list[DayMonth]]:
        """Count one request in the day and month of every `(key_id, per_day, per_month)` (None:
        no limit) if each has room, else in none; `(admitted, [(day, month) of each])`."""


class MemoryLedger:
    """The ledger of one process: durable for as long as the process lives."""

    in_process = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, str, int], int] = {}

    def read(self, key_id: str, day_start: int, month_start: int) -> DayMonth:
        with self._lock:
            return self._get(key_id, day_start, month_start)

    def raise_to(self, rows: Iterable[tuple[str, int, int, int, int]]) -> dict[str, DayMonth]:
        recorded: dict[str, DayMonth] = {}
        with self._lock:
            for key_id, day_start, day, month_start, month in rows:
                for period, start, count in (("day", day_start, day), ("month", month_start, month)):
                    slot = (key_id, period, start)
                    self._counts[slot] = max(self._counts.get(slot, 0), count)
                recorded[key_id] = self._get(key_id, day_start, month_start)
        return recorded

    def admit(
        self, envelopes: Sequence[DayMonthLimits], day_start: int, month_start: int
    ) -> tuple[bool, list[DayMonth]]:
        with self._lock:
            counts = [self._get(key_id, day_start, month_start) for key_id, _, _ in envelopes]
            if any(
                (per_day is not None and day >= per_day) or (per_month is not None and month >= per_month)
                for (_, per_day, per_month), (day, month) in zip(envelopes, counts, strict=True)
            ):
                return False, counts
            for (key_id, _, _), (day, month) in zip(envelopes, counts, strict=True):
                self._counts[(key_id, "day", day_start)] = day + 1
                self._counts[(key_id, "month", month_start)] = month + 1
            return True, [(day + 1, month + 1) for day, month in counts]

    def _get(self, key_id: str, day_start: int, month_start: int) -> DayMonth:
        return self._counts.get((key_id, "day", day_start), 0), self._counts.get(
            (key_id, "month", month_start), 0
        )


class UsageFloors:
    """A worker's recent copy of the ledger, by key, and which keys it counted since the last sync."""

    def __init__(self, ledger: UsageLedger, clock: Callable[[], float] = time.monotonic) -> None:
        self.ledger = ledger
        self._clock = clock
        self._lock = threading.Lock()
        # key_id -> (day_start, month_start, day, month, read at)
        self._known: dict[str, tuple[int, int, int, int, float]] = {}
        self._touched: dict[str, tuple[int, int]] = {}

    def get(self, key_id: str, day_start: int, month_start: int) -> DayMonth:
        """The key's ledger counts for these windows, read again when the copy is old."""
        known = self.known(key_id, day_start, month_start)
        return known if known is not None else self.read_now(key_id, day_start, month_start)

    def known(self, key_id: str, day_start: int, month_start: int) -> DayMonth | None:
        """The copy of the key's counts for these windows, None when there is none this recent
        (then `read_now`): what `get` answers without reading the ledger."""
        known = self._known.get(key_id)
        if (
            known is not None
            and known[0] == day_start
            and known[1] == month_start
            and self._clock() - known[4] < FLOOR_SECONDS
        ):
            return known[2], known[3]
        return None

    def read_now(self, key_id: str, day_start: int, month_start: int) -> DayMonth:
        """The key's ledger counts read now, whatever the copy holds (and kept as the copy)."""
        day, month = self.ledger.read(key_id, day_start, month_start)
        self.remember(key_id, day_start, month_start, day, month)
        return day, month

    def remember(self, key_id: str, day_start: int, month_start: int, day: int, month: int) -> None:
        with self._lock:
            self._known[key_id] = (day_start, month_start, day, month, self._clock())

    def touch(self, key_id: str, day_start: int, month_start: int) -> None:
        self._touched[key_id] = (day_start, month_start)

    def take_touched(self) -> dict[str, tuple[int, int]]:
        with self._lock:
            touched, self._touched = self._touched, {}
        return touched

    def forget_all(self) -> None:
        """Read every key from the ledger again (after an outage, others counted meanwhile)."""
        with self._lock:
            self._known.clear()
