"""Limits while Redis is unreachable: enforced, not lifted.

Each worker enforces the per-second and per-minute windows itself, at the key's rates. Day and
month are counted in the ledger (the key store), which every worker shares, one statement per
request that counts only when both windows have room (of the key, and of its account's pool when
the request is counted in one: in all of them, or in none). So during an outage a key may get up to
N times its per-second and per-minute rates from N workers, while its day and month quotas stay
shared (see docs/limits.md for the bounds).
"""

from __future__ import annotations

import threading
from datetime import datetime

from serve.limits.ledger import UsageFloors
from serve.limits.memory import WindowCounters
from serve.limits.model import Counts, Envelope, Exceeded, exceeded_of, four
from serve.limits.windows import LimitWindow, as_utc


class OutageLimits:
    def __init__(self, floors: UsageFloors) -> None:
        self._floors = floors
        self._lock = threading.Lock()
        self._counters = WindowCounters()

    def admit(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[tuple[Counts, ...], Exceeded | None]:
        """Count one request in every envelope (its key's, its account's pool) or in none."""
        short, (day_window, month_window) = windows[:2], windows[2:]
        day_start, month_start = day_window.start_epoch, month_window.start_epoch
        limits = [envelope for _, envelope in envelopes]
        with self._lock:
            self._counters.sweep(as_utc(now).timestamp())
            shorts = [self._counters.counts(key_id, short) for key_id, _ in envelopes]
            if any(
                limit is not None and count >= limit
                for counted, envelope in zip(shorts, limits, strict=True)
                for count, limit in zip(counted, envelope.as_tuple()[:2], strict=True)
            ):
                counts = tuple(
                    four([*counted, *self._floors.get(key_id, day_start, month_start)])
                    for counted, (key_id, _) in zip(shorts, envelopes, strict=True)
                )
                return counts, exceeded_of(counts, limits)
            admitted, recorded = self._floors.ledger.admit(
                [(key_id, envelope.per_day, envelope.monthly_requests) for key_id, envelope in envelopes],
                day_start,
                month_start,
            )
            for (key_id, _), (day, month) in zip(envelopes, recorded, strict=True):
                self._floors.remember(key_id, day_start, month_start, day, month)
            if not admitted:
                counts = tuple(
                    four([*counted, *day_month]) for counted, day_month in zip(shorts, recorded, strict=True)
                )
                # The counts read after the refusal show the full window, unless another worker's
                # statement changed them in between (PostgreSQL): then the credential's day.
                return counts, exceeded_of(counts, limits) or (0, 2)
            for key_id, _ in envelopes:
                self._counters.add(key_id, short)
            return tuple(
                four([counted[0] + 1, counted[1] + 1, *day_month])
                for counted, day_month in zip(shorts, recorded, strict=True)
            ), None

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
