"""Window maths: the fixed UTC windows a request falls into.

Windows are fixed (aligned to the UTC second, minute, day and calendar month), not sliding: a
counter starts at zero when its window starts and every window rolls over on its own boundary.
Fixed windows need one counter per window, which is what makes the Redis check a single atomic
script and the counts exact; the price is that a client may spend a full window's allowance on
both sides of a boundary.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal

WindowName = Literal["second", "minute", "day", "month"]

# Check order when several windows are exhausted: the shortest window is reported.
WINDOW_NAMES: tuple[WindowName, ...] = ("second", "minute", "day", "month")


@dataclass(frozen=True)
class LimitWindow:
    """One window as epoch seconds (what counters are keyed by and `X-RateLimit-Reset` carries)."""

    name: WindowName
    start_epoch: int
    reset_epoch: int

    @property
    def start(self) -> datetime:
        return datetime.fromtimestamp(self.start_epoch, UTC)

    @property
    def reset(self) -> datetime:
        return datetime.fromtimestamp(self.reset_epoch, UTC)

    def seconds_until_reset(self, now: datetime) -> int:
        """Whole seconds from `now` until the window rolls over, rounded up and at least 1. In exact
        timedelta arithmetic: a float timestamp drops microseconds far from 1970 (0.999999 s before a
        reset in 2515 came out as a whole second)."""
        remaining = self.reset - as_utc(now)
        return max(1, -(-remaining // ONE_SECOND))


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_SECOND = timedelta(seconds=1)


def as_utc(now: datetime) -> datetime:
    # A naive datetime is refused: silently reading it as local time would shift every window.
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("the limiter needs a timezone-aware datetime")
    return now.astimezone(UTC)


def first_of_next_month(month_start: datetime) -> datetime:
    if month_start.month == 12:
        return month_start.replace(year=month_start.year + 1, month=1)
    return month_start.replace(month=month_start.month + 1)


@lru_cache(maxsize=64)
def month_bounds(year: int, month: int) -> tuple[int, int]:
    """Epoch seconds of the first instant of the UTC calendar month and of the next one."""
    start = datetime(year, month, 1, tzinfo=UTC)
    return int(start.timestamp()), int(first_of_next_month(start).timestamp())


def current_windows(now: datetime) -> tuple[LimitWindow, LimitWindow, LimitWindow, LimitWindow]:
    """The second, minute, day and month windows that contain `now`, in check order.

    Integer arithmetic on epoch seconds (exact: timedelta floor division), so this costs a few
    microseconds on every metered request rather than a dozen datetime constructions.
    """
    utc = as_utc(now)
    return _windows_at((utc - EPOCH) // ONE_SECOND, utc.year, utc.month)


@lru_cache(maxsize=8)
def _windows_at(
    second: int, year: int, month: int
) -> tuple[LimitWindow, LimitWindow, LimitWindow, LimitWindow]:
    """The windows of one second (made once per second: every request in it asks the same)."""
    minute = second - second % 60
    day = second - second % 86_400
    month_start, month_reset = month_bounds(year, month)
    return (
        LimitWindow("second", second, second + 1),
        LimitWindow("minute", minute, minute + 60),
        LimitWindow("day", day, day + 86_400),
        LimitWindow("month", month_start, month_reset),
    )
