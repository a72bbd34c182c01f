"""The demo market's trading calendar: US business days without the main exchange holidays.

Session instants are computed from America/New_York wall times (09:30 open, 16:00 close) through
zoneinfo, so daylight-saving changes move the UTC instants as they do on a real exchange.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np

from alpha_results_seal.arrow_schemas import SESSION_TIME_ZONE

NEW_YORK = ZoneInfo(SESSION_TIME_ZONE)
OPEN_TIME = dt.time(9, 30)
CLOSE_TIME = dt.time(16, 0)


def _easter(year: int) -> dt.date:
    # Anonymous Gregorian computus.
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return dt.date(year, month, day + 1)


def nth_weekday(year: int, month: int, weekday: int, n: int) -> dt.date:
    first = dt.date(year, month, 1)
    offset = (weekday - first.weekday()) % 7
    return first + dt.timedelta(days=offset + 7 * (n - 1))


def _last_weekday(year: int, month: int, weekday: int) -> dt.date:
    nxt = dt.date(year + (month == 12), month % 12 + 1, 1)
    last = nxt - dt.timedelta(days=1)
    return last - dt.timedelta(days=(last.weekday() - weekday) % 7)


def _observed(day: dt.date) -> dt.date:
    if day.weekday() == 5:
        return day - dt.timedelta(days=1)
    if day.weekday() == 6:
        return day + dt.timedelta(days=1)
    return day


def us_market_holidays(year: int) -> set[dt.date]:
    """NYSE full-day holidays of one year (New Year, MLK, Presidents, Good Friday, Memorial,
    Juneteenth from 2022, Independence, Labor, Thanksgiving, Christmas)."""
    days = {
        nth_weekday(year, 1, 0, 3),
        nth_weekday(year, 2, 0, 3),
        _easter(year) - dt.timedelta(days=2),
        _last_weekday(year, 5, 0),
        _observed(dt.date(year, 7, 4)),
        nth_weekday(year, 9, 0, 1),
        nth_weekday(year, 11, 3, 4),
        _observed(dt.date(year, 12, 25)),
    }
    new_year = dt.date(year, 1, 1)
    # The exchange does not move New Year's Day back into the previous year.
    if new_year.weekday() != 5:
        days.add(_observed(new_year))
    if year >= 2022:
        days.add(_observed(dt.date(year, 6, 19)))
    return days


def trading_sessions(first: dt.date, count: int) -> list[dt.date]:
    """`count` consecutive sessions starting at `first` (or the next session after it)."""
    sessions: list[dt.date] = []
    holidays: dict[int, set[dt.date]] = {}
    day = first
    while len(sessions) < count:
        if day.weekday() < 5:
            year_holidays = holidays.setdefault(day.year, us_market_holidays(day.year))
            if day not in year_holidays:
                sessions.append(day)
        day += dt.timedelta(days=1)
    return sessions


def sessions_before(first: dt.date, count: int) -> list[dt.date]:
    """The `count` sessions strictly before `first`, ascending."""
    sessions: list[dt.date] = []
    day = first - dt.timedelta(days=1)
    while len(sessions) < count:
        if day.weekday() < 5 and day not in us_market_holidays(day.year):
            sessions.append(day)
        day -= dt.timedelta(days=1)
    return sessions[::-1]


def _utc_micros(days: list[dt.date], wall: dt.time) -> np.ndarray:
    out = np.empty(len(days), dtype="datetime64[us]")
    for i, day in enumerate(days):
        local = dt.datetime.combine(day, wall, tzinfo=NEW_YORK)
        out[i] = np.datetime64(local.astimezone(dt.UTC).replace(tzinfo=None), "us")
    return out


def open_instants(days: list[dt.date]) -> np.ndarray:
    """UTC instants (naive datetime64[us], meaning UTC) of each session's 09:30 New York open."""
    return _utc_micros(days, OPEN_TIME)


def close_instants(days: list[dt.date]) -> np.ndarray:
    """UTC instants of each session's 16:00 New York close."""
    return _utc_micros(days, CLOSE_TIME)


def week_last_sessions(days: list[dt.date]) -> np.ndarray:
    """Indices of the last session of each ISO week (the weekly decision sessions)."""
    keys = [d.isocalendar()[:2] for d in days]
    return np.array(
        [i for i in range(len(days)) if i + 1 == len(days) or keys[i + 1] != keys[i]], dtype=np.int64
    )
