"""Window maths: the fixed UTC windows a request falls into.

Windows are fixed (aligned to the UTC second, minute, day and calendar month), not sliding: a
counter starts at zero when its window starts and every window rolls over on its own boundary.
Fixed windows need one counter per window, which is what makes the Redis check a single atomic
script and the counts exact; the price is that a client may spend a full window's allowance on
both sides of a boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

WindowName = Literal["second", "minute", "day", "month"]

# Check order when several windows are exhausted: the shortest window is reported.
WINDOW_NAMES: tuple[WindowName, ...] = ("second", "minute", "day", "month")


@dataclass(frozen=True)
class Window:
    name: WindowName
    start: datetime
    reset: datetime

    @property
    def start_epoch(self) -> int:
        return int(self.start.timestamp())

    @property
    def reset_epoch(self) -> int:
        return int(self.reset.timestamp())

    def seconds_until_reset(self, now: datetime) -> int:
        """Whole seconds from `now` until the window rolls over, rounded up and at least 1."""
        return max(1, math.ceil((self.reset - as_utc(now)).total_seconds()))


def as_utc(now: datetime) -> datetime:
    # A naive datetime is refused: silently reading it as local time would shift every window.
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("the limiter needs a timezone-aware datetime")
    return now.astimezone(UTC)


def first_of_next_month(month_start: datetime) -> datetime:
    if month_start.month == 12:
        return month_start.replace(year=month_start.year + 1, month=1)
    return month_start.replace(month=month_start.month + 1)


def current_windows(now: datetime) -> tuple[Window, Window, Window, Window]:
    """The second, minute, day and month windows that contain `now`, in check order."""
    utc = as_utc(now)
    second = utc.replace(microsecond=0)
    minute = second.replace(second=0)
    day = minute.replace(hour=0, minute=0)
    month = day.replace(day=1)
    return (
        Window("second", second, second + timedelta(seconds=1)),
        Window("minute", minute, minute + timedelta(minutes=1)),
        Window("day", day, day + timedelta(days=1)),
        Window("month", month, first_of_next_month(month)),
    )
