"""The `as_of` budget (issue 81, item 3): how many distinct `as_of` moments one key may ask a worker
to resolve in a second and in a minute.

Why: a past moment is resolved into the catalogue generation served then (`LakeReader.at`: a
listing, a binary search over the generations' files, the pins, and the past index read once per
generation), work that grows with the catalogue and the history. It runs in a worker thread, off
the event loop, and a past catalogue is kept once read (`datasets.reader.PAST_CATALOGUES`), but a
key sending a new moment on every request, well inside its request limits, would still keep the
worker's threads and its GIL busy for every other key. Until past generations are served from
versioned tables (the lake issue), this bounds the work one key may cause.

- **What counts.** A distinct moment (after its conversion to UTC) a key asks, on any route or MCP
  tool that takes `as_of`, including a moment the lake answers 410 `as_of_gone`: the lookup was
  made. A moment the key asked within the last minute is not counted again (a dashboard asking one
  decision's `read.at` for each of its panels is one resolution).
- **When.** Before the moment is resolved, once the request is admitted by the rate limiter: past
  a budget, 429 `as_of_budget_exceeded` with `Retry-After` (the seconds to the next second's or
  minute's window) and `details` `budget` (`second` or `minute`), `limit`, `retry_after`.
- **Where.** In the worker's memory: the cost it bounds is the worker's own (its threads, its
  cache), so each worker counts what it resolves; with N workers a key may cause N times the
  budget, spread over N processes.
- **Whom.** Every key but an administrator's. `ALPHA_RESULTS_AS_OF_PER_SECOND` and
  `ALPHA_RESULTS_AS_OF_PER_MINUTE` (docs/settings.md); 0 turns one off.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from core import errors
from core.context import Caller
from core.settings import Settings

KEYS_KEPT = 10_000
"""Keys whose recent moments a worker remembers, least recently active dropped first: far more
than ask `as_of` in one minute, and a bound on the memory an attacker's many keys could take."""


@dataclass
class _Recent:
    moments: OrderedDict[datetime, float]  # moment -> when first counted (monotonic), oldest first
    second: tuple[int, int] = (0, 0)  # (window start, resolutions counted in it)


class AsOfBudget:
    """Per-key counts of distinct `as_of` moments, in fixed one-second and sliding one-minute windows."""

    def __init__(self, per_second: int, per_minute: int) -> None:
        self.per_second = per_second
        self.per_minute = per_minute
        self._now = time.monotonic
        self._keys: OrderedDict[str, _Recent] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def of(cls, settings: Settings) -> AsOfBudget | None:
        if not settings.as_of_per_second and not settings.as_of_per_minute:
            return None
        return cls(settings.as_of_per_second, settings.as_of_per_minute)

    def admit(self, caller: Caller, moment: datetime) -> None:
        """Counts `moment` for the caller's key, or 429 `as_of_budget_exceeded` (nothing counted)."""
        if caller.is_admin:
            return
        now = self._now()
        with self._lock:
            recent = self._keys.get(caller.key_id)
            if recent is None:
                recent = self._keys[caller.key_id] = _Recent(OrderedDict())
                while len(self._keys) > KEYS_KEPT:
                    self._keys.popitem(last=False)
            else:
                self._keys.move_to_end(caller.key_id)
            moments = recent.moments
            while moments and next(iter(moments.values())) <= now - 60:
                moments.popitem(last=False)
            if moment in moments:
                return
            second = int(now)
            in_second = recent.second[1] if recent.second[0] == second else 0
            if self.per_second and in_second >= self.per_second:
                self._refuse("second", self.per_second, second + 1 - now)
            if self.per_minute and len(moments) >= self.per_minute:
                self._refuse("minute", self.per_minute, next(iter(moments.values())) + 60 - now)
            moments[moment] = now
            recent.second = (second, in_second + 1)

    @staticmethod
    def _refuse(window: str, limit: int, wait_seconds: float) -> None:
        wait = max(1, math.ceil(wait_seconds))
        raise errors.AsOfBudgetExceeded(
            f"This key has asked for {limit:,} distinct as_of moments in a {window}, as many as it may "
            f"(each is resolved into the catalogue generation served then). Retry in {wait} s, or ask a "
            "moment already asked.",
            details={"budget": window, "limit": limit, "retry_after": wait},
            headers={"Retry-After": str(wait)},
        )
