from __future__ import annotations

import datetime as dt

import numpy as np

from alpha_results_seal.demo import calendar


def test_sessions_skip_weekends_and_exchange_holidays() -> None:
    days = calendar.trading_sessions(dt.date(2021, 1, 4), 600)
    assert days[0] == dt.date(2021, 1, 4)
    for holiday in (
        dt.date(2021, 4, 2),
        dt.date(2021, 12, 24),
        dt.date(2022, 6, 20),
        dt.date(2022, 12, 26),
        dt.date(2022, 11, 24),
        dt.date(2023, 1, 16),
    ):
        assert holiday not in days
    assert dt.date(2021, 12, 31) in days  # New Year 2022 fell on a Saturday: no Friday holiday
    assert all(d.weekday() < 5 for d in days)
    assert calendar.sessions_before(dt.date(2021, 1, 4), 3) == [
        dt.date(2020, 12, 29),
        dt.date(2020, 12, 30),
        dt.date(2020, 12, 31),
    ]


def test_session_instants_follow_new_york_daylight_saving() -> None:
    days = [dt.date(2021, 1, 4), dt.date(2021, 7, 6)]
    assert calendar.open_instants(days).tolist() == [
        dt.datetime(2021, 1, 4, 14, 30),
        dt.datetime(2021, 7, 6, 13, 30),
    ]
    assert calendar.close_instants(days).tolist() == [
        dt.datetime(2021, 1, 4, 21, 0),
        dt.datetime(2021, 7, 6, 20, 0),
    ]


def test_decision_is_last_session_of_each_week() -> None:
    days = calendar.trading_sessions(dt.date(2021, 3, 29), 9)  # Good Friday 2021-04-02 is closed
    idx = calendar.week_last_sessions(days)
    assert [days[i] for i in idx] == [dt.date(2021, 4, 1), dt.date(2021, 4, 9)]
    assert np.all(np.diff(idx) > 0)
