"""A split that falls mid-week (issue 81, item 7 b): /analytics/monitoring and
/analytics/drawdown_odds count as live weeks only "weeks whose sessions all follow the split", their
own rule (`monitoring.live_weeks`, declared once): the split's own calendar week, whose sessions
after the split are a part of a week that began before it, is not live week 1. Checked against
pandas' W-SUN weeks of the lake's ledger."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from tests.analytics.conftest import Api
from tests.analytics.reference import Lake

ALPHA = "momentum_12_1"


def expected_weeks(lake: Lake, split: str) -> pd.Series:
    """The live weeks by pandas: the sessions after the split compounded by calendar week (W-SUN),
    dated by their last session, only the weeks whose every session (from Monday) follows it."""
    ledger = lake.ledger(ALPHA, "long_short")
    assert ledger is not None
    days = pd.to_datetime(ledger["date"].astype(str).str[:10])
    returns = pd.Series((ledger["ending_equity"] / ledger["starting_equity"] - 1).to_numpy(), index=days)
    after = returns[returns.index > pd.Timestamp(split)]
    groups = after.groupby(after.index.to_period("W-SUN"))
    weekly = groups.apply(lambda x: float(np.prod(1 + x) - 1))
    weekly.index = [group.index.max() for _, group in groups]
    monday = pd.Timestamp(split) - pd.Timedelta(days=pd.Timestamp(split).weekday())
    return weekly[[d - pd.Timedelta(days=d.weekday()) > monday for d in weekly.index]]


@pytest.mark.parametrize("split", ["2021-12-15", "2021-12-17", "2021-12-13"])  # Wednesday, Friday, Monday
def test_live_weeks_all_follow_the_split(api: Api, lake: Lake, split: str) -> None:
    assert dt.date.fromisoformat(split).weekday() in (0, 2, 4)
    expected = expected_weeks(lake, split)
    watched = api.ok(f"/v1/alphas/{ALPHA}/analytics/monitoring", split=split)["data"]
    [chart] = [c for c in watched["charts"] if c["series"] == "book_return"]
    dates = [w["date"] for w in chart["weeks"]]
    assert dates == [d.date().isoformat() for d in expected.index]
    assert chart["live_weeks"] == len(expected)
    assert np.allclose(
        [w["weekly_value"] for w in chart["weeks"]], expected.to_numpy(), rtol=1e-12, atol=1e-15
    )
    odds = api.ok(f"/v1/alphas/{ALPHA}/analytics/drawdown_odds", split=split)["data"]
    assert odds["live_weeks"] == len(expected)
    assert [w["date"] for w in odds["live_path"]] == dates
    # The split's own week is never a live week: its first live week starts on a later Monday
    first = dt.date.fromisoformat(dates[0])
    split_day = dt.date.fromisoformat(split)
    assert first - dt.timedelta(days=first.weekday()) > split_day - dt.timedelta(days=split_day.weekday())
