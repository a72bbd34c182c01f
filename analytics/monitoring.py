"""Is it still working? Sequential monitoring of an approved alpha by a one-sided lower CUSUM.

An approval is a bet that the alpha keeps the level its backtest showed. Each week brings one more
observation of a weekly series x_t (the weekly IC, or the book's weekly return); the question is
whether the series has fallen below the level expected live, asked every week without the
false alarms that re-testing a fixed-sample test every week would accumulate. Page's (1954)
cumulative sum answers it with a known false-alarm rate, as Philips, Yashchin and Stein (2003) use
it to monitor active managers:

    z_t = (x_t - mu0) / sigma
    S_0 = 0,  S_t = max(0, S_{t-1} - z_t - k),  alarm when S_t > h

mu0 is the expected in-control mean per week (the level the approval expects live), sigma the
per-week standard deviation, both given by the caller: sigma is the standard deviation of the
backtest's weekly series (the same series, IC or returns, over the backtest), because the chart's
false-alarm rate is only known for observations standardised by their own spread. k is half the
fall to detect (delta, in sigma units per week) and h the threshold giving a target in-control
average run length ARL0 (the mean number of weeks to a false alarm).

After an alarm the statistic restarts at 0: the alarms of an unchanged series are then a renewal
process whose mean gap is exactly the chart's ARL0, so "one false alarm per ARL0 weeks" is the
long-run alarm rate itself, not only the first alarm's expectation. A week whose value is NaN (no
rebalance, a holiday, a missing IC) is skipped: the statistic carries over unchanged and that week
cannot alarm, since counting it as mu0 or as 0 would invent evidence either way.

The average run lengths are Siegmund's (1985) approximation for normal observations; the tests
check it against a Markov-chain computation (Brook and Evans 1972) and against simulation. The
theory assumes independent weeks: an autocorrelated series (an IC over overlapping horizons)
alarms sooner than ARL0 says.

A caution the numbers make plain: an information ratio of 1 a year is a weekly mean of
1/sqrt(weeks a year), about 0.139 sigma, so a fall from IR 1 to 0 is a weekly shift of 0.139 sigma
and the default chart (ARL0 ten years) takes about 126 weeks on average to see it. No weekly chart
detects such a fall quickly at a tolerable false-alarm rate; a fall of one sigma a week is seen in
about nine weeks (docs/analytics.md, "Monitoring: CUSUM and false discoveries").
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from dataclasses import dataclass

import numpy as np

from analytics import inputs, live
from analytics.access import Access, withheld
from analytics.entries import Warnings
from analytics.expectation import Levels
from analytics.live import Split
from datasets.reader import BuildView
from schemas.bodies.monitoring import CusumChart, CusumWeek, MonitoredSeries, Monitoring
from schemas.conventions import WEEKS_PER_YEAR

SIEGMUND_CORRECTION = 1.166
"""Siegmund's (1985) correction of the threshold for the overshoot of a normal random walk over
its boundary: the approximation uses b = h + 1.166 (2 x 0.583, the expected overshoot)."""

DEFAULT_IR_FALL = 1.0
"""The fall the default chart is designed to detect: an annualised information ratio of 1 to 0."""

DEFAULT_ARL0 = 10.0 * WEEKS_PER_YEAR
"""520 weeks: one false alarm per ten years per alpha on average (about 9.5% a year), the rate a
risk committee can review without the alarms losing their meaning across a catalogue."""

_SERIES_EXPANSION = 1e-3
"""Below this |2 Delta b| the ARL uses its Taylor series: the closed form cancels to noise near
Delta = 0."""


def _finite(name: str, value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return value


def _chart_parameters(k: float, h: float) -> tuple[float, float]:
    k, h = _finite("k", k), _finite("h", h)
    if k < 0:
        raise ValueError(
            f"k (the reference value, half the fall to detect in sigma units) must be >= 0, got {k!r}"
        )
    if h <= 0:
        raise ValueError(f"h (the alarm threshold) must be > 0, got {h!r}")
    return k, h


def _standardisation(mu0: float, sigma: float) -> tuple[float, float]:
    mu0, sigma = _finite("mu0", mu0), _finite("sigma", sigma)
    if sigma <= 0:
        raise ValueError(
            f"sigma (the per-week standard deviation of the backtest's series) must be > 0, got {sigma!r}"
        )
    return mu0, sigma


def weekly_fall(ir_fall: float, periods_per_year: int = WEEKS_PER_YEAR) -> float:
    """The fall per period in sigma units of a fall of the annualised information ratio: a
    period's mean over its standard deviation is IR / sqrt(periods per year)."""
    ir_fall = _finite("ir_fall", ir_fall)
    if ir_fall <= 0:
        raise ValueError(
            f"ir_fall (the fall of the annualised information ratio to detect) must be > 0, got {ir_fall!r}"
        )
    if periods_per_year < 1:
        raise ValueError(f"periods_per_year must be >= 1, got {periods_per_year!r}")
    return ir_fall / math.sqrt(periods_per_year)


def arl_siegmund(k: float, h: float, shift: float = 0.0) -> float:
    """Siegmund's (1985) approximation of the average run length of the lower CUSUM for normal
    observations whose mean has fallen by `shift` sigma (shift 0: the in-control ARL0; shift
    delta: the ARL1 of a fall of delta; a negative shift is a rise, which the chart ignores):

        ARL = (exp(-2 Delta b) + 2 Delta b - 1) / (2 Delta^2),  Delta = shift - k,  b = h + 1.166

    and b^2 at Delta = 0. The lower chart adds -z_t - k each week, whose mean is shift - k: a
    fall beyond k makes Delta > 0 and the run short, no fall makes Delta = -k < 0 and it long."""
    k, h = _chart_parameters(k, h)
    shift = _finite("shift", shift)
    delta = shift - k
    b = h + SIEGMUND_CORRECTION
    x = 2.0 * delta * b
    if abs(x) < _SERIES_EXPANSION:
        # exp(-x) + x - 1 = x^2/2 (1 - x/3 + x^2/12 - x^3/60 + ...), over 2 Delta^2 = x^2 / (2 b^2)
        return b * b * (1.0 - x / 3.0 + x * x / 12.0 - x**3 / 60.0)
    if -x > 700.0:  # exp overflows a float: the run is longer than any horizon
        return math.inf
    return (math.expm1(-x) + x) / (2.0 * delta * delta)


def threshold_for(arl0: float, k: float) -> float:
    """The threshold h whose in-control ARL (Siegmund's approximation at shift 0) is `arl0`.
    The ARL rises with h (its derivative in b is (1 - exp(-2 Delta b)) / Delta > 0), so the root
    is unique; Brent's method finds it."""
    from scipy.optimize import brentq  # when used: scipy imports slowly (docs/development.md)

    arl0 = _finite("arl0", arl0)
    k = _finite("k", k)
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k!r}")
    floor = arl_siegmund(k, math.ulp(1.0), 0.0)
    if not arl0 > floor:
        raise ValueError(
            f"arl0 must exceed {floor:.4g} weeks (the ARL0 of h -> 0 at k = {k!r}), got {arl0!r}"
        )
    high = 1.0
    while arl_siegmund(k, high, 0.0) < arl0:
        high *= 2.0
    return float(
        brentq(lambda h: arl_siegmund(k, h, 0.0) - arl0, math.ulp(1.0), high, xtol=1e-12, rtol=1e-14)
    )


@dataclass(frozen=True)
class Design:
    """A chart designed for a fall and an in-control run length; run lengths in periods (weeks)."""

    ir_fall: float  # the fall of the annualised information ratio to detect
    periods_per_year: int
    delta: float  # the same fall per period, in sigma units: ir_fall / sqrt(periods_per_year)
    k: float  # delta / 2
    h: float  # threshold_for(arl0, k)
    arl0: float  # mean periods to a false alarm (Siegmund's approximation at h)
    arl1: float  # mean periods to the alarm once the fall has happened (zero-start chart)
    delay_years: float  # arl1 in years
    false_alarms_per_year: float  # periods_per_year / arl0: the long-run rate (restart at 0)
    false_alarm_probability_per_year: float  # 1 - (1 - 1/arl0)^periods_per_year


@functools.lru_cache(maxsize=64)  # a root-find per design: the policy's is asked on every answer
def design(
    ir_fall: float = DEFAULT_IR_FALL,
    arl0: float = DEFAULT_ARL0,
    *,
    periods_per_year: int = WEEKS_PER_YEAR,
) -> Design:
    """The chart detecting a fall of the annualised information ratio by `ir_fall` with an
    in-control ARL of `arl0` periods: delta = ir_fall / sqrt(periods_per_year) sigma per period,
    k = delta / 2 (the reference value that minimises the delay to a fall of delta for a given
    ARL0, Lorden 1971), h from `threshold_for`. A fall of one sigma a week is
    `ir_fall=sqrt(WEEKS_PER_YEAR)`. The yearly false-alarm probability treats the
    run length as geometric with mean arl0 (near enough at these lengths: the chart forgets its
    start within a few dozen weeks)."""
    delta = weekly_fall(ir_fall, periods_per_year)
    k = delta / 2.0
    h = threshold_for(arl0, k)
    arl1 = arl_siegmund(k, h, delta)
    return Design(
        ir_fall=float(ir_fall),
        periods_per_year=periods_per_year,
        delta=delta,
        k=k,
        h=h,
        arl0=arl_siegmund(k, h, 0.0),
        arl1=arl1,
        delay_years=arl1 / periods_per_year,
        false_alarms_per_year=periods_per_year / arl0,
        false_alarm_probability_per_year=-math.expm1(periods_per_year * math.log1p(-1.0 / arl0)),
    )


def _series(x: np.ndarray | list[float], ndim: int) -> np.ndarray:
    values = np.asarray(x, dtype=float)
    if values.ndim != ndim:
        raise ValueError(f"the series must have {ndim} dimension(s), got shape {values.shape}")
    if values.shape[0] == 0:
        raise ValueError("the series is empty: there is no week to monitor")
    if np.isinf(values).any():
        raise ValueError("the series holds an infinite value (NaN marks a missing week, never inf)")
    return values


def _run(
    x: np.ndarray, mu0: float, sigma: float, k: float, h: float, start: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The chart over x (weeks along axis 0, series along axis 1): each week's statistic, whether
    it alarmed, and the statistic the next week starts from. One pass over the weeks, each week
    a vector operation over the series (a panel of alphas, or of simulated paths)."""
    statistic = np.empty_like(x)
    alarmed = np.zeros(x.shape, dtype=bool)
    state = start.astype(float, copy=True)
    steps = (mu0 - x) / sigma - k
    for t in range(x.shape[0]):
        step = steps[t]
        # A NaN week leaves the statistic as it was (and cannot alarm: it was <= h, or restarted)
        moved = np.where(np.isnan(step), state, np.maximum(0.0, state + step))
        statistic[t] = moved
        alarmed[t] = moved > h
        state = np.where(alarmed[t], 0.0, moved)
    return statistic, alarmed, state


@dataclass(frozen=True, eq=False)
class Cusum:
    """The chart over one series (arrays read-only)."""

    statistic: np.ndarray  # S_t for every week (the value that alarmed, > h, on an alarm week)
    alarms: np.ndarray  # the weeks (indices into x) whose S_t > h
    first_alarm: int | None  # the first of them, None without an alarm
    state: float  # the statistic the next week starts from (0 after an alarm on the last week)
    skipped: np.ndarray  # the weeks whose x was NaN (skipped: the statistic carried over)
    k: float
    h: float


def cusum(x: np.ndarray | list[float], mu0: float, sigma: float, k: float, h: float) -> Cusum:
    """The lower CUSUM S_t = max(0, S_{t-1} + (mu0 - x_t) / sigma - k), S_0 = 0, over the weekly
    series x; an alarm when S_t > h, after which S restarts at 0. NaN weeks are skipped."""
    mu0, sigma = _standardisation(mu0, sigma)
    k, h = _chart_parameters(k, h)
    values = _series(x, 1)
    statistic, alarmed, state = _run(values[:, None], mu0, sigma, k, h, np.zeros(1))
    alarms = np.flatnonzero(alarmed[:, 0])
    skipped = np.flatnonzero(np.isnan(values))
    path = statistic[:, 0].copy()
    for array in (path, alarms, skipped):
        array.setflags(write=False)
    return Cusum(
        statistic=path,
        alarms=alarms,
        first_alarm=int(alarms[0]) if alarms.size else None,
        state=float(state[0]),
        skipped=skipped,
        k=k,
        h=h,
    )


@dataclass(frozen=True, eq=False)
class FirstAlarms:
    """The chart over a panel of series: each series' first alarm and its state."""

    first_alarm: np.ndarray  # per series, the week of its first alarm; -1 without one
    state: np.ndarray  # per series, the statistic its next week starts from


def first_alarms(
    x: np.ndarray,
    mu0: float,
    sigma: float,
    k: float,
    h: float,
    start: np.ndarray | float = 0.0,
) -> FirstAlarms:
    """The same chart over a panel x of weeks (rows) by series (columns): for every series the
    week of its first alarm (-1 if none) and the statistic its next week starts from. Series
    continue across calls: `start` takes the previous call's `state` (a panel arriving week by
    week, or a simulation run in chunks, gives what one call over all the weeks gives)."""
    mu0, sigma = _standardisation(mu0, sigma)
    k, h = _chart_parameters(k, h)
    values = _series(x, 2)
    starts = np.broadcast_to(np.asarray(start, dtype=float), values.shape[1:])
    if not (np.isfinite(starts).all() and (starts >= 0).all()):
        raise ValueError("start must be finite and >= 0 (a CUSUM statistic)")
    _, alarmed, state = _run(values, mu0, sigma, k, h, starts)
    any_alarm = alarmed.any(axis=0)
    first = np.where(any_alarm, alarmed.argmax(axis=0), -1)
    return FirstAlarms(first_alarm=first.astype(np.int64), state=state)


# -- the served answer (`/analytics/monitoring`, `Reading.monitoring`) -------------------------------


def monitoring_payload(
    view: BuildView,
    book: str,
    split: Split,
    levels: Levels,
    access: Access,
    warnings: Warnings,
    chart: Design,
) -> Monitoring:
    """`chart` (the operator's policy's: `analytics.policy.Policy.chart`, `design()` by default)
    over the live weeks of the book's return and of the signal's IC, each against the level the
    alpha is expected to show live (`levels`: `analytics.expectation.expected_levels`, the one
    expected live information ratio and mean weekly IC, at the same split)."""
    no_split = "the alpha has no split: no backtest to expect a level from" if split.date is None else None
    ir_reason = no_split or (
        None
        if levels.information_ratio is not None
        else f"no expected live level: {levels.information_ratio_reason}"
    )
    ic_reason = no_split or (
        None if levels.mean_ic is not None else f"no expected live level: {levels.mean_ic_reason}"
    )
    returns = _returns_chart(view, book, split, chart, levels.information_ratio, ir_reason, access, warnings)
    ic = _ic_chart(view, split, chart, levels.mean_ic, ic_reason, access, warnings)
    measured = levels.information_ratio is not None or levels.mean_ic is not None
    return Monitoring(
        alpha=view.alpha_id,
        book=book,
        split_date=split.date,
        split_origin=split.origin,
        live=split.origin == "approval",
        expected_level_basis="expectation" if measured else None,
        expected_live_information_ratio=levels.information_ratio,
        ir_fall_detected=chart.ir_fall,
        cusum_reference_value=chart.k,
        cusum_threshold=chart.h,
        arl0_weeks=chart.arl0,
        false_alarm_probability_per_year=chart.false_alarm_probability_per_year,
        arl1_weeks=chart.arl1,
        charts=[returns, ic],
    )


def _weeks_of(days: np.ndarray, returns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sessions' returns compounded by calendar week (Monday to Sunday), each week dated by its
    last session; a session without a return (NaN) makes its week's NaN."""
    if days.size == 0:
        return days, returns
    week = (days.astype(np.int64) + 3) // 7  # 1970-01-01 was a Thursday: Monday starts a week
    starts = np.flatnonzero(np.r_[True, week[1:] != week[:-1]])
    ends = np.r_[starts[1:], days.size] - 1
    growth = np.multiply.reduceat(1.0 + returns, starts) - 1.0
    return days[ends], growth


def live_weeks(split: dt.date, days: np.ndarray, returns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The live weeks of the sessions after `split` (`days`, `returns`): compounded by calendar week
    (`_weeks_of`), the weeks whose sessions all follow the split. When the split falls mid-week, the
    sessions after it in the split's own week are a part of a week that began before the split: not
    a live week (issue 81, item 7: they were counted as live week 1). The one rule: monitoring and
    drawdown_odds ask it."""
    week_days, growth = _weeks_of(days, returns)
    split_week = ((split - dt.date(1970, 1, 1)).days + 3) // 7
    keep = (week_days.astype(np.int64) + 3) // 7 > split_week
    return week_days[keep], growth[keep]


def _returns_chart(
    view: BuildView,
    book: str,
    split: Split,
    chart: Design,
    expected_ir: float | None,
    reason: str | None,
    access: Access,
    warnings: Warnings,
) -> CusumChart:
    if not access.ledger:
        return _unmeasured("book_return", withheld("ledger", "monitoring.charts[book_return]", warnings))
    found = inputs.ledger(view, book)
    if found is None:
        return _unmeasured("book_return", "the run sealed no ledger for this book")
    if reason is not None or split.date is None or expected_ir is None:
        return _unmeasured("book_return", reason or "not measurable")
    backtest, after = found.split(split.date)
    if split.end is not None:
        after = after.window((None, split.end))
    _, backtest_weeks = _weeks_of(backtest.days, backtest.returns)
    live_days, live_growth = live_weeks(split.date, after.days, after.returns)
    sd = _sd(backtest_weeks)
    if sd is None:
        return _unmeasured("book_return", "fewer than 2 backtest weeks with a return, or no spread")
    return _charted(
        "book_return", expected_ir / math.sqrt(WEEKS_PER_YEAR) * sd, sd, live_days, live_growth, chart
    )


def _ic_chart(
    view: BuildView,
    split: Split,
    chart: Design,
    expected_ic: float | None,
    reason: str | None,
    access: Access,
    warnings: Warnings,
) -> CusumChart:
    if not access.cross_sections:
        return _unmeasured("ic", withheld("cross_sections", "monitoring.charts[ic]", warnings))
    found = inputs.weekly_ic(view)
    if found is None:
        return _unmeasured("ic", "the run sealed no rebalance cross-sections")
    if reason is not None or split.date is None or expected_ic is None:
        return _unmeasured("ic", reason or "no expected live level")
    split_day = (split.date - dt.date(1970, 1, 1)).days
    backtest = live.in_sample_weeks(found.days, split_day)
    after = ~backtest
    if split.end is not None:
        after &= live.realised_days(found.days) <= (split.end - dt.date(1970, 1, 1)).days
    sd = _sd(found.values[backtest])
    if sd is None:
        return _unmeasured("ic", "fewer than 2 backtest weeks with an IC, or no spread")
    return _charted("ic", expected_ic, sd, found.days[after], found.values[after], chart)


def _sd(values: np.ndarray) -> float | None:
    kept = values[np.isfinite(values)]
    if kept.size < 2:
        return None
    sd = float(np.std(kept, ddof=1))
    return sd if sd > 0 else None


def _charted(
    series: MonitoredSeries, mu0: float, sd: float, days: np.ndarray, values: np.ndarray, chart: Design
) -> CusumChart:
    dates = [dt.date(1970, 1, 1) + dt.timedelta(days=int(day)) for day in days]
    if values.size == 0:
        path, alarms, state = np.zeros(0), np.zeros(0, dtype=np.int64), 0.0
    else:
        run = cusum(values, mu0, sd, chart.k, chart.h)
        path, alarms, state = run.statistic, run.alarms, run.state
    weeks = [
        CusumWeek(
            date=date,
            weekly_value=None if not math.isfinite(value) else float(value),
            cusum_statistic=float(statistic),
        )
        for date, value, statistic in zip(dates, values.tolist(), path.tolist(), strict=True)
    ]
    alarmed = [dates[i] for i in alarms.tolist()]
    return CusumChart(
        series=series,
        state="alarm" if alarmed else "in_control",
        withheld_reason=None,
        expected_weekly_mean=mu0,
        weekly_sd=sd,
        live_weeks=len(weeks),
        cusum_statistic=state,
        first_alarm=alarmed[0] if alarmed else None,
        alarms=alarmed,
        weeks=weeks,
    )


def _unmeasured(series: MonitoredSeries, reason: str) -> CusumChart:
    return CusumChart(
        series=series,
        state="not_measurable",
        withheld_reason=reason,
        expected_weekly_mean=None,
        weekly_sd=None,
        live_weeks=0,
        cusum_statistic=None,
        first_alarm=None,
        alarms=[],
        weeks=[],
    )
