"""`/analytics/monitoring`: is it still working? A one-sided lower CUSUM on each live week of the
book's return and of the signal's IC against the level the alpha's approval expects live, with the
chart's false-alarm rate and detection delay stated (docs/analytics.md, "Monitoring: CUSUM and
false discoveries").
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.base import Body
from schemas.bodies.figures import figure
from schemas.bodies.live import SplitDate, SplitFrom

MonitoredSeries = Literal["book_return", "ic"]
ChartState = Literal["in_control", "alarm", "not_measurable"]
ExpectedLevelBasis = Literal["expectation"]
WEEK_RULE = (
    "a week is a calendar week (Monday to Sunday) of the book's sessions, dated by its last session; the live "
    "weeks are those whose sessions all follow the split"
)


class CusumWeek(Body, kw_only=True, frozen=True):
    """One live week of a chart."""

    date: Annotated[dt.date, figure("The week's last session (the IC's: its rebalance date)")]
    weekly_value: Annotated[
        float | None,
        figure(
            "The week's value of the series: the book's compounded return, or the weekly IC; null: skipped",
            term=terms.WEEKLY_VALUE,
        ),
    ]
    cusum_statistic: Annotated[
        float,
        figure("The chart's statistic after the week", "max(0, S_prev - z - k)", term=terms.CUSUM_STATISTIC),
    ]


class CusumChart(Body, kw_only=True, frozen=True):
    """One series watched: its expected level, the chart's parameters, its state and its path."""

    series: Annotated[
        MonitoredSeries,
        figure(
            "book_return: the book's weekly compounded return; ic: the signal's weekly IC (weekly_signal.ic)"
        ),
    ]
    state: Annotated[
        ChartState,
        figure(
            "alarm when the statistic has crossed the threshold in a live week (first_alarm), else in_control; "
            "not_measurable with its reason when the expectation or the series cannot be measured"
        ),
    ]
    withheld_reason: Annotated[str | None, figure("Why the chart is not measurable; null when it is")]
    expected_weekly_mean: Annotated[
        float | None,
        figure(
            "mu0: the level the approval expects live, per week: for book_return the expected live information "
            "ratio (/analytics/decay) over sqrt(weeks a year) times weekly_sd; for ic the backtest's mean weekly IC "
            "times the same retention (expected over backtest information ratio)",
            term=terms.EXPECTED_WEEKLY_MEAN,
        ),
    ]
    weekly_sd: Annotated[
        float | None,
        figure(
            "sigma: the standard deviation (ddof=1) of the backtest's weekly values of the series",
            term=terms.WEEKLY_SD,
        ),
    ]
    live_weeks: Annotated[
        int, figure("The live weeks charted (a skipped week counted)", term=terms.LIVE_WEEKS)
    ]
    cusum_statistic: Annotated[
        float | None,
        figure(
            "The statistic after the last live week; null when not measurable", term=terms.CUSUM_STATISTIC
        ),
    ]
    first_alarm: Annotated[
        dt.date | None, figure("The first live week whose statistic crossed the threshold")
    ]
    alarms: Annotated[
        list[dt.date],
        figure("Every live week that crossed the threshold (the statistic restarts at 0 after each)"),
    ]
    weeks: Annotated[list[CusumWeek], figure("The live weeks, oldest first")]


class Monitoring(Body, kw_only=True, frozen=True):
    """`/analytics/monitoring` of one alpha and book."""

    alpha: Annotated[str, figure("The alpha")]
    book: Annotated[str, figure("The book")]
    split_date: SplitDate
    split_origin: SplitFrom
    live: Annotated[
        bool,
        figure(
            "true when the split is the alpha's approval (the weeks charted were first published after it was "
            "recorded); false: the weeks after another split, out of sample but not live"
        ),
    ]
    expected_level_basis: Annotated[
        ExpectedLevelBasis | None,
        figure(
            "Where the charts' expected levels come from: expectation (/analytics/expectation's expected_live of "
            "each series at the same split: the one expected live information ratio and mean weekly IC, shrunk "
            "toward the alpha's group then cut by /analytics/decay's retention; issue 81, item 4); null when neither "
            "is measurable (a book other than long_short has none)"
        ),
    ]
    expected_live_information_ratio: Annotated[
        float | None,
        figure(
            "The expected live information ratio the book_return chart's level is made from (/analytics/expectation's "
            "information_ratio expected_live at the same split); null when not measurable (the chart says why)",
            term=terms.EXPECTED_LIVE_INFORMATION_RATIO,
        ),
    ]
    week_rule: Annotated[str, figure("What a week is")] = WEEK_RULE
    ir_fall_detected: Annotated[
        float,
        figure(
            "The fall the chart is designed to detect, as an annualised information ratio of the series (the "
            "weekly mean over the weekly sd, times sqrt(weeks a year)): its reference value k is half of it per week",
            term=terms.IR_FALL_DETECTED,
        ),
    ]
    cusum_reference_value: Annotated[
        float,
        figure(
            "k: half the weekly fall to detect, in weekly sd",
            "ir_fall / sqrt(52) / 2",
            term=terms.CUSUM_REFERENCE_VALUE,
        ),
    ]
    cusum_threshold: Annotated[
        float,
        figure(
            "h: the statistic's alarm threshold, for the in-control run length", term=terms.CUSUM_THRESHOLD
        ),
    ]
    arl0_weeks: Annotated[
        float,
        figure(
            "The in-control average run length: the mean weeks between false alarms of an unchanged series",
            term=terms.ARL0_WEEKS,
        ),
    ]
    false_alarm_probability_per_year: Annotated[
        float,
        figure(
            "The probability that an unchanged series raises an alarm within a year",
            "1 - (1 - 1/ARL0)^52",
            term=terms.FALSE_ALARM_PROBABILITY_PER_YEAR,
        ),
    ]
    arl1_weeks: Annotated[
        float,
        figure(
            "The out-of-control average run length: the mean weeks to an alarm once the series has fallen by the "
            "designed fall (from a statistic at 0)",
            term=terms.ARL1_WEEKS,
        ),
    ]
    charts: Annotated[list[CusumChart], figure("The book's weekly return and the signal's weekly IC")]
