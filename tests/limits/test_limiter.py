"""Exact counting per window on both backends, with an injected clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest

from serve.limits import Limiter, Limits, open_limiter
from tests.limits.conftest import hit

ENVELOPE = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100000)
WIDE = 10**6  # a limit that never binds in these tests


def at(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, microsecond: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, microsecond, tzinfo=UTC)


def epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def hits(limiter: Limiter, limits: Limits, now: datetime, count: int, key: str = "k1") -> list[bool]:
    return [hit(limiter, key, limits, now).allowed for _ in range(count)]


def test_sixth_request_in_one_second_is_refused_and_next_second_admits(limiter: Limiter) -> None:
    now = at(2030, 5, 17, 9, 30, 12) + timedelta(milliseconds=400)
    assert hits(limiter, ENVELOPE, now, 5) == [True] * 5

    refused = hit(limiter, "k1", ENVELOPE, now + timedelta(milliseconds=500))
    assert not refused.allowed
    assert refused.exceeded == "second"
    assert refused.error_code == "rate_limit_second"
    assert refused.retry_after == 1
    assert refused.headers == {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Used": "5",
        "X-RateLimit-Reset": str(epoch(at(2030, 5, 17, 9, 30, 13))),
        "X-RateLimit-Window": "second",
        "Retry-After": "1",
        "RateLimit-Policy": '"second";q=5;w=1, "minute";q=60;w=60, "day";q=5000;w=86400, "month";q=100000;w=2678400',
        "RateLimit": '"second";r=0;t=1',
    }

    admitted = hit(limiter, "k1", ENVELOPE, at(2030, 5, 17, 9, 30, 13))
    assert admitted.allowed
    assert admitted.exceeded is None
    assert admitted.retry_after == 0
    assert "Retry-After" not in admitted.headers
    assert limiter.usage("k1", ENVELOPE, at(2030, 5, 17, 9, 30, 13)) == {
        "second": 1,
        "minute": 6,
        "day": 6,
        "month": 6,
        "remaining_second": 4,
        "remaining_minute": 54,
        "remaining_day": 4994,
        "remaining_month": 99994,
    }


def test_minute_window_refuses_until_the_next_minute(limiter: Limiter) -> None:
    limits = Limits(per_second=WIDE, per_minute=3, per_day=WIDE, monthly_requests=None)
    start = at(2030, 5, 17, 9, 30, 0)
    for offset in (0, 10, 20):
        assert hit(limiter, "k1", limits, start + timedelta(seconds=offset)).allowed

    late = start + timedelta(seconds=41, milliseconds=700)
    refused = hit(limiter, "k1", limits, late)
    assert (refused.allowed, refused.exceeded, refused.error_code) == (False, "minute", "rate_limit_minute")
    assert refused.retry_after == 19  # 18.3 s to 09:31:00, rounded up
    assert refused.headers["X-RateLimit-Window"] == "minute"
    assert refused.headers["X-RateLimit-Reset"] == str(epoch(at(2030, 5, 17, 9, 31, 0)))
    assert refused.headers["Retry-After"] == "19"

    assert not hit(limiter, "k1", limits, at(2030, 5, 17, 9, 30, 59, 999999)).allowed
    assert hit(limiter, "k1", limits, at(2030, 5, 17, 9, 31, 0)).allowed


def test_day_window_refuses_until_midnight_utc(limiter: Limiter) -> None:
    limits = Limits(per_second=WIDE, per_minute=WIDE, per_day=2, monthly_requests=None)
    assert hit(limiter, "k1", limits, at(2030, 5, 17, 0, 0, 0)).allowed
    assert hit(limiter, "k1", limits, at(2030, 5, 17, 13, 0, 0)).allowed

    refused = hit(limiter, "k1", limits, at(2030, 5, 17, 18, 0, 0))
    assert (refused.exceeded, refused.error_code) == ("day", "rate_limit_day")
    assert refused.retry_after == 6 * 3600
    assert refused.headers["X-RateLimit-Reset"] == str(epoch(at(2030, 5, 18)))

    assert hit(limiter, "k1", limits, at(2030, 5, 18, 0, 0, 0)).allowed


def test_monthly_quota_rolls_over_from_december_to_january(limiter: Limiter) -> None:
    limits = Limits(per_second=WIDE, per_minute=WIDE, per_day=WIDE, monthly_requests=3)
    for day in (1, 15, 31):
        assert hit(limiter, "k1", limits, at(2030, 12, day, 12, 0, 0)).allowed

    now = at(2030, 12, 31, 12, 0, 0)
    refused = hit(limiter, "k1", limits, now)
    assert (refused.exceeded, refused.error_code) == ("month", "quota_exceeded")
    next_month = at(2031, 1, 1)
    # Independent check of "seconds to 00:00 UTC on the 1st of next month" with numpy.
    month_end = np.datetime64("2030-12", "M") + np.timedelta64(1, "M")
    expected = int((month_end.astype("datetime64[s]") - np.datetime64("2030-12-31T12:00:00")).astype(int))
    assert refused.retry_after == expected == 12 * 3600
    assert refused.headers["Retry-After"] == str(expected)
    assert refused.headers["X-RateLimit-Window"] == "month"
    assert refused.headers["X-RateLimit-Reset"] == str(epoch(next_month))

    assert not hit(limiter, "k1", limits, at(2030, 12, 31, 23, 59, 59, 999999)).allowed
    assert hit(limiter, "k1", limits, next_month).allowed
    assert limiter.usage("k1", limits, next_month)["month"] == 1


@pytest.mark.parametrize(
    ("now", "first_of_next"),
    [
        (at(2028, 2, 10), at(2028, 3, 1)),  # leap February
        (at(2030, 2, 28, 23, 0, 0), at(2030, 3, 1)),
        (at(2030, 4, 1), at(2030, 5, 1)),
    ],
)
def test_quota_retry_after_points_at_the_first_of_next_month(
    limiter: Limiter, now: datetime, first_of_next: datetime
) -> None:
    limits = Limits(per_second=WIDE, per_minute=WIDE, per_day=WIDE, monthly_requests=1)
    assert hit(limiter, "k1", limits, now).allowed
    refused = hit(limiter, "k1", limits, now)
    assert refused.exceeded == "month"
    assert refused.retry_after == int((first_of_next - now).total_seconds())


def test_null_monthly_quota_is_unlimited(limiter: Limiter) -> None:
    limits = Limits(per_second=WIDE, per_minute=WIDE, per_day=WIDE, monthly_requests=None)
    now = at(2030, 7, 4, 8, 0, 0)
    decisions = [hit(limiter, "k1", limits, now) for _ in range(250)]
    assert all(d.allowed for d in decisions)
    assert all(d.headers["X-RateLimit-Window"] != "month" for d in decisions)
    usage = limiter.usage("k1", limits, now)
    assert usage["month"] == 250  # still counted, so /v1/me reports it
    assert usage["remaining_month"] is None
    assert usage["remaining_second"] == WIDE - 250


def test_refused_requests_do_not_consume_any_window(limiter: Limiter) -> None:
    limits = Limits(per_second=5, per_minute=7, per_day=WIDE, monthly_requests=100)
    first = at(2030, 3, 3, 3, 3, 3)
    outcomes = [hit(limiter, "k1", limits, first) for _ in range(10)]
    assert [d.allowed for d in outcomes] == [True] * 5 + [False] * 5
    assert {d.exceeded for d in outcomes[5:]} == {"second"}

    second = first + timedelta(seconds=1)
    outcomes = [hit(limiter, "k1", limits, second) for _ in range(5)]
    assert [d.allowed for d in outcomes] == [True, True, False, False, False]
    assert {d.exceeded for d in outcomes[2:]} == {"minute"}

    usage = limiter.usage("k1", limits, second)
    assert (usage["second"], usage["minute"], usage["day"], usage["month"]) == (2, 7, 7, 7)
    assert usage["remaining_month"] == 93


def test_shortest_exhausted_window_is_reported_and_retry_waits_for_all(limiter: Limiter) -> None:
    limits = Limits(per_second=2, per_minute=WIDE, per_day=2, monthly_requests=None)
    now = at(2030, 6, 1, 20, 0, 0)
    assert hits(limiter, limits, now, 2) == [True, True]
    refused = hit(limiter, "k1", limits, now)
    assert refused.exceeded == "second"
    assert refused.headers["X-RateLimit-Window"] == "second"
    # Retrying after one second would only meet the day limit, so Retry-After waits for midnight.
    assert refused.retry_after == 4 * 3600
    later = hit(limiter, "k1", limits, now + timedelta(seconds=1))
    assert (later.exceeded, later.retry_after) == ("day", 4 * 3600 - 1)


def test_headers_name_the_window_with_least_remaining(limiter: Limiter) -> None:
    limits = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=3)
    now = at(2030, 1, 20, 10, 0, 0)
    first = hit(limiter, "k1", limits, now)
    assert first.headers == {
        "X-RateLimit-Limit": "3",
        "X-RateLimit-Remaining": "2",
        "X-RateLimit-Used": "1",
        "X-RateLimit-Reset": str(epoch(at(2030, 2, 1))),
        "X-RateLimit-Window": "month",
        "RateLimit-Policy": '"second";q=5;w=1, "minute";q=60;w=60, "day";q=5000;w=86400, "month";q=3;w=2678400',
        "RateLimit": f'"month";r=2;t={epoch(at(2030, 2, 1)) - epoch(now)}',
    }

    envelope_first = hit(limiter, "other", ENVELOPE, now)
    assert envelope_first.headers["X-RateLimit-Window"] == "second"
    assert envelope_first.headers["X-RateLimit-Remaining"] == "4"
    assert envelope_first.headers["X-RateLimit-Reset"] == str(epoch(now) + 1)


def test_windows_roll_independently(limiter: Limiter) -> None:
    now = at(2030, 8, 31, 23, 59, 59)
    assert hits(limiter, ENVELOPE, now, 3) == [True] * 3
    after_minute = at(2030, 9, 1, 0, 0, 30)
    assert hits(limiter, ENVELOPE, after_minute, 2) == [True] * 2
    usage = limiter.usage("k1", ENVELOPE, after_minute)
    assert (usage["second"], usage["minute"], usage["day"], usage["month"]) == (2, 2, 2, 2)

    in_same_day = at(2030, 9, 1, 0, 5, 0)
    assert hit(limiter, "k1", ENVELOPE, in_same_day).allowed
    usage = limiter.usage("k1", ENVELOPE, in_same_day)
    assert (usage["second"], usage["minute"], usage["day"], usage["month"]) == (1, 1, 3, 3)


def test_keys_are_counted_separately(limiter: Limiter) -> None:
    now = at(2030, 2, 2, 2, 2, 2)
    assert hits(limiter, ENVELOPE, now, 6, key="a") == [True] * 5 + [False]
    assert hits(limiter, ENVELOPE, now, 5, key="b") == [True] * 5
    assert limiter.usage("c", ENVELOPE, now) == {
        "second": 0,
        "minute": 0,
        "day": 0,
        "month": 0,
        "remaining_second": 5,
        "remaining_minute": 60,
        "remaining_day": 5000,
        "remaining_month": 100000,
    }


def test_a_zero_limit_refuses_everything(limiter: Limiter) -> None:
    limits = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=0)
    refused = hit(limiter, "k1", limits, at(2030, 2, 2))
    assert (refused.allowed, refused.exceeded) == (False, "month")
    assert limiter.usage("k1", limits, at(2030, 2, 2))["month"] == 0


def test_usage_follows_the_limits_passed_in(limiter: Limiter) -> None:
    now = at(2030, 2, 2, 2, 2, 2)
    hits(limiter, ENVELOPE, now, 4)
    smaller = Limits(per_second=2, per_minute=3, per_day=3, monthly_requests=None)
    usage = limiter.usage("k1", smaller, now)
    assert usage["remaining_second"] == 0  # floored at 0, not -2
    assert usage["remaining_minute"] == 0
    assert usage["remaining_month"] is None


def test_time_zones_are_read_as_utc(limiter: Limiter) -> None:
    limits = Limits(per_second=WIDE, per_minute=WIDE, per_day=WIDE, monthly_requests=1)
    # 02:00 on 1 January in UTC+05:00 is still 31 December in UTC: the December quota applies.
    local = datetime(2031, 1, 1, 2, 0, 0, tzinfo=timezone(timedelta(hours=5)))
    assert hit(limiter, "k1", limits, at(2030, 12, 5)).allowed
    refused = hit(limiter, "k1", limits, local)
    assert refused.exceeded == "month"
    assert refused.retry_after == 3 * 3600
    with pytest.raises(ValueError, match="timezone-aware"):
        hit(limiter, "k1", limits, datetime(2030, 1, 1))


def test_reference_model_agrees_over_a_random_request_stream(limiter: Limiter) -> None:
    """Replay random traffic against an independent numpy model of fixed UTC windows."""
    rng = np.random.default_rng(20240601)
    limits = Limits(per_second=3, per_minute=6, per_day=40, monthly_requests=70)
    gaps_ms = rng.choice(
        [0, 5, 300, 1_500, 8_000, 900_000, 7_200_000], size=400, p=[0.25, 0.15, 0.15, 0.15, 0.15, 0.05, 0.1]
    )
    stamps = np.datetime64("2030-11-28T22:00:00", "ms") + np.cumsum(gaps_ms).astype("timedelta64[ms]")
    units = ("s", "m", "D", "M")
    limit_values = limits.as_tuple()
    admitted: list[np.datetime64] = []
    seen: set[str | None] = set()
    for stamp in stamps:
        now = datetime.fromtimestamp(stamp.astype("int64") / 1000, tz=UTC)
        starts = [stamp.astype(f"datetime64[{unit}]") for unit in units]
        used = [
            sum(1 for a in admitted if a.astype(f"datetime64[{u}]") == s)
            for u, s in zip(units, starts, strict=True)
        ]
        expected_exceeded = next(
            (
                name
                for name, count, limit in zip(
                    ("second", "minute", "day", "month"), used, limit_values, strict=True
                )
                if limit is not None and count >= limit
            ),
            None,
        )
        decision = hit(limiter, "k1", limits, now)
        assert decision.exceeded == expected_exceeded, stamp
        seen.add(decision.exceeded)
        if decision.allowed:
            admitted.append(stamp)
    final = datetime.fromtimestamp(stamps[-1].astype("int64") / 1000, tz=UTC)
    month = stamps[-1].astype("datetime64[M]")
    assert limiter.usage("k1", limits, final)["month"] == sum(
        1 for a in admitted if a.astype("datetime64[M]") == month
    )
    # The stream crosses the November/December boundary and meets every kind of refusal.
    assert seen == {None, "second", "minute", "day", "month"}


def test_unknown_url_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="memory://"):
        open_limiter("memcached://127.0.0.1:11211")


def test_limits_reject_negative_or_non_integer_values() -> None:
    with pytest.raises(ValueError, match="per_second"):
        Limits(per_second=-1, per_minute=1, per_day=1, monthly_requests=None)
    with pytest.raises(ValueError, match="monthly_requests"):
        Limits(per_second=1, per_minute=1, per_day=1, monthly_requests=1.5)  # type: ignore[arg-type]


def test_memory_limiter_forgets_ended_windows() -> None:
    """One process serving for months must not keep every second's counter: ended windows go."""
    from serve.limits.memory import MemoryLimiter

    limiter = MemoryLimiter()
    limits = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100_000)
    start = datetime(2026, 3, 31, 23, 59, 58, tzinfo=UTC)
    for second in range(3):
        assert hit(limiter, "k", limits, start + timedelta(seconds=second)).allowed
    # 3 seconds, 2 minutes, 2 days, 2 months (the last second crossed into April).
    assert limiter.counter_count() == 3 + 2 + 2 + 2
    later = start + timedelta(days=40)
    assert hit(limiter, "k", limits, later).allowed
    # Only the windows of the new request remain.
    assert limiter.counter_count() == 4
    assert limiter.usage("k", limits, later)["month"] == 1
