"""`/analytics/monitoring` (issue 59, item 1; the route issue 58's declaration made): each chart
recomputed from the lake's Parquet files with pandas and a plain loop, against the served answer.

- the book's weekly returns: the daily returns compounded by calendar week (pandas' `W-SUN`
  resample), the weeks after the split (the served `split_date`, which is /analytics/live's);
- the IC's live weeks: those whose forward return is realised after the split (the next IC's date);
- the expected levels (issue 81, item 4: the one expected live level): /analytics/expectation's
  expected live information ratio over sqrt(52) times the backtest's weekly standard deviation, and
  its expected live mean weekly IC;
- the CUSUM, S = max(0, S - (x - mu0) / sigma - k), restarted at 0 after an alarm, a NaN skipped;
- the chart's design from `analytics.monitoring.design()` (its run lengths are tested by simulation
  in tests/analytics/test_monitoring.py);
- the charts withheld from a key without the ledger or the cross-sections, with the warning.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analytics.monitoring import design
from tests.analytics.conftest import ALPHAS, Api
from tests.analytics.reference import Lake

TOLERANCE = 1e-9


def cusum(
    values: list[float | None], mu0: float, sigma: float, k: float, h: float
) -> tuple[list[float], list[int]]:
    statistic, path, alarms = 0.0, [], []
    for week, value in enumerate(values):
        if value is not None:
            statistic = max(0.0, statistic - (value - mu0) / sigma - k)
            if statistic > h:
                alarms.append(week)
        path.append(statistic)
        if alarms and alarms[-1] == week:
            statistic = 0.0
    return path, alarms


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=1e-12)


def chart(answer: dict[str, Any], series: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in answer["charts"] if c["series"] == series)
    return found


def check_path(served: dict[str, Any], values: list[float | None], mu0: float, sd: float) -> None:
    chosen = design()
    path, alarms = cusum(values, mu0, sd, chosen.k, chosen.h)
    assert len(served["weeks"]) == len(values)
    for week, value, statistic in zip(served["weeks"], values, path, strict=True):
        assert close(week["weekly_value"], value), (week, value)
        assert close(week["cusum_statistic"], statistic), (week, statistic)
    assert served["alarms"] == [served["weeks"][i]["date"] for i in alarms]
    assert served["state"] == ("alarm" if alarms else "in_control")
    assert served["live_weeks"] == len(values)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_each_chart_is_recomputed(api: Api, lake: Lake, alpha: str) -> None:
    base = f"/v1/alphas/{alpha}/analytics"
    answer = api.ok(f"{base}/monitoring")["data"]
    decay = api.ok(f"{base}/decay")["data"]
    chosen = design()
    assert answer["cusum_threshold"] == pytest.approx(chosen.h, rel=TOLERANCE)
    assert answer["arl0_weeks"] == pytest.approx(chosen.arl0, rel=TOLERANCE)
    assert answer["arl1_weeks"] == pytest.approx(chosen.arl1, rel=TOLERANCE)
    assert answer["split_date"] == decay["split_date"] and answer["split_origin"] == decay["split_origin"]
    assert answer["live"] is (answer["split_origin"] == "approval")
    # The one expected live level (issue 81, item 4): /analytics/expectation's expected_live of each series.
    series = {s["series"]: s for s in api.ok(f"{base}/expectation")["data"]["series"]}
    expected = series["information_ratio"]["expected_live"]
    expected_ic = series["rebuilt_mean_ic"]["expected_live"]
    assert answer["expected_live_information_ratio"] == expected
    assert answer["expected_level_basis"] == (
        None if expected is None and expected_ic is None else "expectation"
    )
    returns, ic = chart(answer, "book_return"), chart(answer, "ic")
    if expected is None or answer["split_date"] is None:
        assert returns["state"] == "not_measurable" and returns["weeks"] == []
        return
    split = answer["split_date"]

    daily = lake.returns(alpha, "long_short", (None, None))
    daily.index = pd.to_datetime(daily.index)
    backtest = daily[daily.index <= pd.Timestamp(split)]
    after = daily[daily.index > pd.Timestamp(split)]
    weekly_backtest = (1 + backtest).resample("W-SUN").prod() - 1
    weekly_backtest = weekly_backtest[backtest.resample("W-SUN").size() > 0]
    sessions = after.resample("W-SUN")
    weekly_after = ((1 + after).resample("W-SUN").prod() - 1)[sessions.size() > 0]
    last_days = sessions.apply(lambda s: s.index.max() if len(s) else pd.NaT).dropna()
    dates = [d.date().isoformat() for d in last_days]
    served_dates = [w["date"] for w in returns["weeks"]]
    assert served_dates == dates[: len(served_dates)]  # a retirement ends the live part
    sd = float(np.std(weekly_backtest.to_numpy(), ddof=1))
    assert close(returns["weekly_sd"], sd)
    mu0 = expected / math.sqrt(52) * sd
    assert close(returns["expected_weekly_mean"], mu0)
    check_path(returns, weekly_after.to_numpy()[: len(served_dates)].tolist(), mu0, sd)

    weeks = lake.ic(alpha, (None, None))
    if weeks.empty:
        assert ic["state"] == "not_measurable"
        return
    days = pd.to_datetime(pd.Series(weeks.index))
    realised = days.shift(-1).fillna(days.iloc[-1] + timedelta(days=7))
    in_sample = (realised <= pd.Timestamp(split)).to_numpy()
    values = weeks.to_numpy(float)
    ic_sd = float(np.nanstd(values[in_sample], ddof=1))
    assert expected_ic is not None
    ic_mu0 = expected_ic
    assert close(ic["weekly_sd"], ic_sd) and close(ic["expected_weekly_mean"], ic_mu0)
    live_ic = values[~in_sample][: ic["live_weeks"]]
    check_path(ic, [None if math.isnan(v) else float(v) for v in live_ic], ic_mu0, ic_sd)
    assert [w["date"] for w in ic["weeks"]] == [
        d.date().isoformat() for d in days[~in_sample][: ic["live_weeks"]]
    ]


def test_a_key_without_the_ledger_or_the_cross_sections_is_told_why(api: Api) -> None:
    path = "/v1/alphas/momentum_12_1/analytics/monitoring"
    body = api.ok(path, "no_signals")
    assert chart(body["data"], "ic")["state"] == "not_measurable"
    assert "access_limited" in chart(body["data"], "ic")["withheld_reason"]
    assert any(w["code"] == "access_limited" for w in body["meta"]["warnings"])
    assert chart(body["data"], "book_return")["state"] != "not_measurable"
    withheld = api.ok(path, "no_portfolio")["data"]
    assert all(c["state"] == "not_measurable" and c["weeks"] == [] for c in withheld["charts"])


def test_an_unknown_or_forbidden_alpha_is_refused_as_on_every_route(api: Api) -> None:
    assert api.get("/v1/alphas/momentum_12_1/analytics/monitoring", "testonly").status_code == 403
    assert api.get("/v1/alphas/Test_nope/analytics/monitoring", "testonly").status_code == 404
    assert api.get("/v1/alphas/momentum_12_1/analytics/monitoring", "raw", book="nope").status_code == 400


def test_the_dates_are_calendar_weeks() -> None:
    """`_weeks_of`'s week (Monday to Sunday, from days since 1970) is pandas' W-SUN."""
    from analytics.monitoring import _weeks_of

    days = np.array([(date(2021, 1, 4) + timedelta(days=i) - date(1970, 1, 1)).days for i in range(0, 40, 1)])
    days = days[[(date(1970, 1, 1) + timedelta(days=int(d))).weekday() < 5 for d in days]]
    returns = np.linspace(-0.01, 0.01, days.size)
    ends, weekly = _weeks_of(days, returns)
    index = pd.to_datetime([date(1970, 1, 1) + timedelta(days=int(d)) for d in days])
    frame = pd.Series(returns, index=index)
    expected = (1 + frame).resample("W-SUN").prod() - 1
    assert weekly == pytest.approx(expected.to_numpy(), rel=1e-12)
    assert [date(1970, 1, 1) + timedelta(days=int(d)) for d in ends] == [
        frame[frame.index <= week].index.max().date() for week in expected.index
    ]


def test_the_demo_charts_live_weeks(api: Api) -> None:
    """The recomputation above is not vacuous: the demo's approved alphas chart live weeks of both
    series (the played history approves momentum_12_1 and value_composite_legacy)."""
    charted = {
        alpha: api.ok(f"/v1/alphas/{alpha}/analytics/monitoring")["data"]
        for alpha in ("momentum_12_1", "value_composite_legacy")
    }
    for answer in charted.values():
        assert answer["live"] is True
        assert all(c["state"] != "not_measurable" and c["live_weeks"] > 4 for c in answer["charts"])
