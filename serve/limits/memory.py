"""In-process limiter: exact within one worker process, meaningless across several.

Counters live in a dict keyed like the Redis keys (key id, window, window start); one lock makes
check-and-count atomic across the threads of the process. Counters whose window ended are
dropped by a sweep that runs at most once a minute of the limiter's clock.
"""

from __future__ import annotations

import threading
from datetime import datetime

from serve.limits.model import Counts, Limiter, Limits, first_exceeded
from serve.limits.windows import Window, as_utc

SWEEP_EVERY_SECONDS = 60


class MemoryLimiter(Limiter):
    in_process = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (key_id, window name, window start epoch) -> [count, window reset epoch]
        self._counters: dict[tuple[str, str, int], list[int]] = {}
        self._last_sweep = 0.0

    def ping(self) -> None:
        return None

    def _admit(
        self, key_id: str, limits: Limits, windows: tuple[Window, ...], now: datetime
    ) -> tuple[Counts, int | None]:
        with self._lock:
            self._sweep(as_utc(now).timestamp())
            counts = self._counts_locked(key_id, windows)
            exceeded = first_exceeded(counts, limits)
            if exceeded is not None:
                return counts, exceeded
            for window in windows:
                slot = self._counters.setdefault(
                    (key_id, window.name, window.start_epoch), [0, window.reset_epoch]
                )
                slot[0] += 1
            return self._counts_locked(key_id, windows), None

    def _read(self, key_id: str, windows: tuple[Window, ...]) -> Counts:
        with self._lock:
            return self._counts_locked(key_id, windows)

    def _counts_locked(self, key_id: str, windows: tuple[Window, ...]) -> Counts:
        second, minute, day, month = (
            self._counters.get((key_id, w.name, w.start_epoch), (0,))[0] for w in windows
        )
        return (second, minute, day, month)

    def _sweep(self, now_epoch: float) -> None:
        # abs(): an injected clock may step backwards; the sweep then simply runs again.
        if abs(now_epoch - self._last_sweep) < SWEEP_EVERY_SECONDS:
            return
        self._last_sweep = now_epoch
        ended = [key for key, (_, reset) in self._counters.items() if reset <= now_epoch]
        for key in ended:
            del self._counters[key]

    def counter_count(self) -> int:
        """How many window counters are held (for tests of the expiry)."""
        with self._lock:
            return len(self._counters)
