"""In-process limiter: exact within one worker process, meaningless across several.

Counters live in a dict keyed like the Redis keys (key id, window, window start); one lock makes
check-and-count atomic across the threads of the process. Counters whose window ended are
dropped by a sweep that runs at most once a minute of the limiter's clock. Day and month counts
start from the ledger's (`Limiter.floor_of`), so a restarted worker keeps a key's quota.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import datetime

from serve.limits.ledger import UsageLedger
from serve.limits.model import Counts, Envelope, Exceeded, Limiter, exceeded_of
from serve.limits.windows import LimitWindow, as_utc

SWEEP_EVERY_SECONDS = 60


class WindowCounters:
    """Counts by (key id, window, window start); the owner holds the lock."""

    def __init__(self) -> None:
        # (key_id, window name, window start epoch) -> [count, window reset epoch]
        self._counters: dict[tuple[str, str, int], list[int]] = {}
        self._last_sweep = 0.0

    def get(self, key_id: str, name: str, start_epoch: int) -> int:
        return self._counters.get((key_id, name, start_epoch), (0,))[0]

    def counts(self, key_id: str, windows: Iterable[LimitWindow]) -> list[int]:
        return [self.get(key_id, w.name, w.start_epoch) for w in windows]

    def add(self, key_id: str, windows: Iterable[LimitWindow]) -> None:
        for window in windows:
            self.slot(key_id, window)[0] += 1

    def raise_to(self, key_id: str, window: LimitWindow, count: int) -> None:
        slot = self.slot(key_id, window)
        slot[0] = max(slot[0], count)

    def slot(self, key_id: str, window: LimitWindow) -> list[int]:
        """The window's `[count, reset epoch]`, created at zero; the owner may change the count."""
        return self._counters.setdefault((key_id, window.name, window.start_epoch), [0, window.reset_epoch])

    def sweep(self, now_epoch: float) -> None:
        # abs(): an injected clock may step backwards; the sweep then simply runs again.
        if abs(now_epoch - self._last_sweep) < SWEEP_EVERY_SECONDS:
            return
        self._last_sweep = now_epoch
        ended = [key for key, (_, reset) in self._counters.items() if reset <= now_epoch]
        for key in ended:
            del self._counters[key]

    def __len__(self) -> int:
        return len(self._counters)


class MemoryLimiter(Limiter):
    def __init__(self, ledger: UsageLedger | None = None) -> None:
        super().__init__(ledger)
        # The counters are in-process; the day and month floors come from the ledger.
        self.in_process = self.floors.ledger.in_process
        self._lock = threading.Lock()
        self._counters = WindowCounters()

    def ping(self) -> None:
        return None

    async def _admit(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[tuple[Counts, ...], Exceeded | None]:
        # The floors may be read from a key store over the network: then in a worker thread.
        return await self._with_ledger(self._count, envelopes, windows, now)

    def _count(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[tuple[Counts, ...], Exceeded | None]:
        floors = [self.floor_of(key_id, windows) for key_id, _ in envelopes]
        with self._lock:
            self._counters.sweep(as_utc(now).timestamp())
            slots = [
                self._slots_locked(key_id, windows, floor)
                for (key_id, _), floor in zip(envelopes, floors, strict=True)
            ]
            counts = tuple([(s[0][0], s[1][0], s[2][0], s[3][0]) for s in slots])
            exceeded = exceeded_of(counts, [limits for _, limits in envelopes])
            if exceeded is not None:
                return counts, exceeded
            for second, minute, day, month in slots:
                second[0] += 1
                minute[0] += 1
                day[0] += 1
                month[0] += 1
            return tuple([(s[0][0], s[1][0], s[2][0], s[3][0]) for s in slots]), None

    def _read(self, key_id: str, windows: tuple[LimitWindow, ...]) -> Counts:
        floors = self.floor_of(key_id, windows)
        with self._lock:
            second, minute, day, month = (slot[0] for slot in self._slots_locked(key_id, windows, floors))
            return (second, minute, day, month)

    def _slots_locked(
        self, key_id: str, windows: tuple[LimitWindow, ...], floors: tuple[int, int]
    ) -> list[list[int]]:
        """The four counters, day and month raised to the ledger's counts."""
        slots = [self._counters.slot(key_id, window) for window in windows]
        for slot, floor in zip(slots[2:], floors, strict=True):
            if slot[0] < floor:
                slot[0] = floor
        return slots

    def _day_month_counts(self, touched: dict[str, tuple[int, int]]) -> list[tuple[str, int, int, int, int]]:
        get = self._counters.get
        with self._lock:
            return [
                (key_id, day, get(key_id, "day", day), month, get(key_id, "month", month))
                for key_id, (day, month) in touched.items()
            ]

    def counter_count(self) -> int:
        """How many window counters are held (for tests of the expiry)."""
        with self._lock:
            return len(self._counters)
