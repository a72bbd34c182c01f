"""`/analytics/drawdown_odds`: is it still working? The odds of a drawdown deeper than x within h
weeks if the book keeps the level its approval expects, and the live path's place in the forward
cone: a Monte Carlo over the stationary block bootstrap of the backtest's weekly returns
(docs/analytics.md, "Drawdown odds and the forward cone").
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.base import Body
from schemas.bodies.figures import figure
from schemas.bodies.live import SplitDate, SplitFrom
from schemas.bodies.monitoring import WEEK_RULE
from schemas.conventions import WEEKS_PER_YEAR

DEFAULT_HORIZON_WEEKS = WEEKS_PER_YEAR
"""h when the request names none: a year of weeks."""
HORIZON_MAX_WEEKS = 5 * WEEKS_PER_YEAR
"""The longest h, and the longest live path given a percentile: five years of weeks (10,000 paths of
260 weeks are about 20 MB of float64 per array while the answer is made)."""
DEFAULT_DEPTHS = (0.05, 0.10, 0.20, 0.30)
"""The depths x asked when the request names none (fractions of the peak)."""
DEPTHS_MAX = 12
"""The most depths one request may ask."""
PATHS = 10_000
"""Simulated paths: a probability's Monte Carlo standard error is at most 0.005 (p = 0.5)."""
QUANTILE_LEVELS = (0.05, 0.25, 0.50, 0.75, 0.95)
"""The quantiles of the simulated maximum drawdown and of the cone (the `_p05` ... `_p95` fields)."""
MIN_BACKTEST_WEEKS = WEEKS_PER_YEAR // 2
"""Below this many backtest weeks with a return there is too little to resample: not measurable."""

OddsState = Literal["measured", "not_measurable"]
METHOD = (
    "stationary block bootstrap (Politis and Romano 1994; mean block length by Politis and White 2004, "
    "as /analytics/significance) of the backtest's weekly compounded returns re-centred on the expected "
    "weekly return, each path compounded from 1.0 at the split"
)
LIVE_RULE = (
    "a live week's percentile is the share of simulated paths whose cumulative return at the same week is "
    "below the live one, ties counted half (0.5: the cone's median; 0.05: its lower edge)"
)


class DepthOdds(Body, kw_only=True, frozen=True):
    """The odds of one depth."""

    depth: Annotated[
        float,
        figure(
            "x: a drawdown's depth, a fraction of the running peak (0.1: a fall of 10%)", term=terms.DEPTH
        ),
    ]
    exceedance_probability: Annotated[
        float,
        figure(
            "The share of simulated paths whose maximum drawdown within horizon_weeks is deeper than depth",
            "mean over paths of (MDD_h > x)",
            term=terms.EXCEEDANCE_PROBABILITY,
        ),
    ]
    exceedance_error: Annotated[
        float,
        figure(
            "The Monte Carlo standard error of exceedance_probability",
            "sqrt(p (1 - p) / paths)",
            term=terms.EXCEEDANCE_ERROR,
        ),
    ]


class ConeWeek(Body, kw_only=True, frozen=True):
    """One week of the cone: quantiles across the simulated paths of the cumulative return."""

    week: Annotated[int, figure("Weeks after the split (1: the first live week)", term=terms.WEEK)]
    cone_p05: Annotated[
        float,
        figure(
            "The 5% quantile across the simulated paths of the cumulative return from the split to the week",
            "quantile(prod(1 + r) - 1, 0.05), numpy's linear rule",
            term=terms.CONE_P05,
        ),
    ]
    cone_p25: Annotated[
        float, figure("The 25% quantile of the same", "quantile(prod(1 + r) - 1, 0.25)", term=terms.CONE_P25)
    ]
    cone_p50: Annotated[
        float, figure("The median of the same", "quantile(prod(1 + r) - 1, 0.5)", term=terms.CONE_P50)
    ]
    cone_p75: Annotated[
        float, figure("The 75% quantile of the same", "quantile(prod(1 + r) - 1, 0.75)", term=terms.CONE_P75)
    ]
    cone_p95: Annotated[
        float, figure("The 95% quantile of the same", "quantile(prod(1 + r) - 1, 0.95)", term=terms.CONE_P95)
    ]


class LiveWeek(Body, kw_only=True, frozen=True):
    """One live week of the book and its place in the cone."""

    week: Annotated[int, figure("Weeks after the split (1: the first live week)", term=terms.WEEK)]
    date: Annotated[dt.date, figure("The week's last session")]
    live_weekly_return: Annotated[
        float | None,
        figure(
            "The book's compounded return over the week; null: no return (the week adds nothing)",
            term=terms.LIVE_WEEKLY_RETURN,
        ),
    ]
    live_cumulative_return: Annotated[
        float,
        figure(
            "The book's compounded return from the split to the week's end",
            "prod(1 + r) - 1",
            term=terms.LIVE_CUMULATIVE_RETURN,
        ),
    ]
    cone_percentile: Annotated[
        float | None,
        figure(
            "The share of simulated paths whose cumulative return at the same week is below the live one, ties "
            "counted half; null after the simulated weeks (more than the longest horizon)",
            "(#(C_sim < C) + #(C_sim = C) / 2) / paths",
            term=terms.CONE_PERCENTILE,
        ),
    ]


class DrawdownOdds(Body, kw_only=True, frozen=True):
    """`/analytics/drawdown_odds` of one alpha and book."""

    alpha: Annotated[str, figure("The alpha")]
    book: Annotated[str, figure("The book")]
    split_date: SplitDate
    split_origin: SplitFrom
    live: Annotated[
        bool,
        figure(
            "true when the split is the alpha's approval (the weeks after it were first published after it was "
            "recorded); false: the weeks after another split, out of sample but not live"
        ),
    ]
    week_rule: Annotated[str, figure("What a week is")] = WEEK_RULE
    method: Annotated[str, figure("How the paths are simulated")] = METHOD
    live_rule: Annotated[str, figure("What a live week's percentile is")] = LIVE_RULE
    state: Annotated[
        OddsState,
        figure(
            "measured, or not_measurable with its reason when the expectation, the backtest or the ledger "
            "cannot be read (the figures then null and the lists empty)"
        ),
    ]
    withheld_reason: Annotated[str | None, figure("Why the odds are not measurable; null when they are")]
    horizon_weeks: Annotated[
        int, figure("h: the weeks after the split the odds and the cone cover", term=terms.HORIZON_WEEKS)
    ]
    expected_live_information_ratio: Annotated[
        float | None,
        figure(
            "The expected live information ratio at the same split (/analytics/expectation's information_ratio expected_live): the level simulated",
            term=terms.EXPECTED_LIVE_INFORMATION_RATIO,
        ),
    ]
    expected_weekly_return: Annotated[
        float | None,
        figure(
            "mu0: the weekly mean of the re-centred backtest returns the paths are drawn from",
            "expected_live_information_ratio / sqrt(weeks a year) x backtest_weekly_sd",
            term=terms.EXPECTED_WEEKLY_RETURN,
        ),
    ]
    backtest_weekly_sd: Annotated[
        float | None,
        figure(
            "The standard deviation (ddof=1) of the backtest's weekly compounded returns",
            term=terms.BACKTEST_WEEKLY_SD,
        ),
    ]
    backtest_weeks: Annotated[
        int, figure("The backtest weeks with a return that are resampled", term=terms.BACKTEST_WEEKS)
    ]
    paths: Annotated[int, figure("The simulated paths", term=terms.PATHS)]
    block_length: Annotated[
        float | None,
        figure(
            "Mean block length of the resamples (Politis and White's rule, as /analytics/significance)",
            term=terms.BLOCK_LENGTH,
        ),
    ]
    seed: Annotated[
        int, figure("Seed of numpy's PCG64 generator: the same build always gives the same answer")
    ]
    stream: Annotated[int, figure("The generator's stream (PCG64(SeedSequence([seed, stream])))")]
    expected_max_drawdown: Annotated[
        float | None,
        figure(
            "The mean over the simulated paths of the maximum drawdown within horizon_weeks, a fraction of the "
            "running peak (the split's 1.0 counting as a peak)",
            "mean(max_t (1 - W_t / max(1, max_{s<=t} W_s)))",
            term=terms.EXPECTED_MAX_DRAWDOWN,
        ),
    ]
    expected_max_drawdown_error: Annotated[
        float | None,
        figure(
            "The Monte Carlo standard error of expected_max_drawdown",
            "std(MDD_h, ddof=1) / sqrt(paths)",
            term=terms.EXPECTED_MAX_DRAWDOWN_ERROR,
        ),
    ]
    max_drawdown_p05: Annotated[
        float | None,
        figure(
            "The 5% quantile of the simulated maximum drawdown within horizon_weeks",
            term=terms.MAX_DRAWDOWN_P05,
        ),
    ]
    max_drawdown_p25: Annotated[
        float | None, figure("The 25% quantile of the same", term=terms.MAX_DRAWDOWN_P25)
    ]
    max_drawdown_p50: Annotated[float | None, figure("The median of the same", term=terms.MAX_DRAWDOWN_P50)]
    max_drawdown_p75: Annotated[
        float | None, figure("The 75% quantile of the same", term=terms.MAX_DRAWDOWN_P75)
    ]
    max_drawdown_p95: Annotated[
        float | None, figure("The 95% quantile of the same", term=terms.MAX_DRAWDOWN_P95)
    ]
    odds: Annotated[list[DepthOdds], figure("Each depth asked, shallowest first")]
    cone: Annotated[list[ConeWeek], figure("Weeks 1 to horizon_weeks of the forward cone")]
    live_weeks: Annotated[int, figure("The live weeks after the split", term=terms.LIVE_WEEKS)]
    live_max_drawdown: Annotated[
        float | None,
        figure(
            "The live path's maximum drawdown so far, from 1.0 at the split; null without a live week",
            term=terms.LIVE_MAX_DRAWDOWN,
        ),
    ]
    live_max_drawdown_percentile: Annotated[
        float | None,
        figure(
            "The share of simulated paths whose maximum drawdown over as many weeks is below the live one, ties "
            "counted half (many paths have none early on); null without a live week or beyond the longest horizon",
            term=terms.LIVE_MAX_DRAWDOWN_PERCENTILE,
        ),
    ]
    live_path: Annotated[list[LiveWeek], figure("The live weeks, oldest first")]
