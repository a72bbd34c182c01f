"""Limits while Redis is unreachable: enforced, not lifted.

Each worker enforces the per-second and per-minute windows itself, at the key's rates. Day and
month are counted in the ledger (the key store), which every worker shares, one statement per
request that counts only when both windows have room. So during an outage a key may get up to
N times its per-second and per-minute rates from N workers, while its day and month quotas stay
shared (see docs/limits.md for the bounds).
"""

from __future__ import annotations

import threading
from datetime import datetime

from serve.limits.ledger import UsageFloors
from serve.limits.memory import WindowCounters
from serve.limits.model import Counts, Limits
from serve.limits.windows import LimitWindow, as_utc


class OutageLimits:
    def __init__(self, floors: UsageFloors) -> None:
        self._floors = floors
        self._lock = threading.Lock()
        self._counters = WindowCounters()

    def admit(
        self, key_id: str, limits: Limits, windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[Counts, int | None]:
        short, (day_window, month_window) = windows[:2], windows[2:]
        with self._lock:
            self._counters.sweep(as_utc(now).timestamp())
            second, minute = self._counters.counts(key_id, short)
            for index, (count, limit) in enumerate(
                ((second, limits.per_second), (minute, limits.per_minute))
            ):
                if count >= limit:
                    day, month = self._floors.get(key_id, day_window.start_epoch, month_window.start_epoch)
                    return (second, minute, day, month), index
            admitted, day, month = self._floors.ledger.admit(
                key_id,
                day_window.start_epoch,
                month_window.start_epoch,
                limits.per_day,
                limits.monthly_requests,
            )
            self._floors.remember(key_id, day_window.start_epoch, month_window.start_epoch, day, month)
            if not admitted:
                return (second, minute, day, month), (2 if day >= limits.per_day else 3)
            self._counters.add(key_id, short)
            return (second + 1, minute + 1, day, month), None

    def start_from(self, key_id: str, windows: tuple[LimitWindow, ...], counts: Counts) -> None:
        """Count on from Redis's last answer (its windows may have ended: then nothing changes)."""
        with self._lock:
            for window, count in zip(windows[:2], counts[:2], strict=True):
                self._counters.raise_to(key_id, window, count)

    def read(self, key_id: str, windows: tuple[LimitWindow, ...]) -> Counts:
        with self._lock:
            second, minute = self._counters.counts(key_id, windows[:2])
        day, month = self._floors.ledger.read(key_id, windows[2].start_epoch, windows[3].start_epoch)
        return (second, minute, day, month)
