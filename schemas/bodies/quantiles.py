"""`/analytics/quantiles`: the mean forward return by score quantile, each quantile's compounded curve,
the top-minus-bottom spread, and the IC by calendar month, by month of year and by sector (alphalens'
quantile and information tear sheets), declared for the contract (docs/analytics.md, "Quantile
returns").

A week's quantiles are alphalens' (`alphalens.utils.quantize_factor`, `pd.qcut` per date) over the
week's names with both a score and a forward return; a week is bucketed when it holds at least as
many such names as quantiles and its quantile edges are distinct (`ASSIGNMENT`).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from msgspec import UNSET, UnsetType

from schemas import terms
from schemas.bodies.analytics import WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.bodies.formats import SEAL_TEXT
from schemas.bodies.metrics import LAG_RULE, NEWEY_WEST_MIN_N

QUANTILE_SCORES = ("score", "raw_score")
"""The scores a request may bucket: the conditioned score, or the raw score (raw-book keys only)."""
QuantileScore = Literal["score", "raw_score"]
QUANTILES_MIN = 2
QUANTILES_MAX = 10
DEFAULT_QUANTILES = 5
"""alphalens' default (`quantiles=5`)."""

ASSIGNMENT = (
    "per rebalance week, over the names with a finite score and a finite forward return: edges = the "
    "week's linear-interpolation quantiles of the score at k/q (k = 0..q, rounded up to the next float where "
    "k/q is not one, as pandas' qcut does), a name in quantile k when edge_(k-1) < score <= edge_k (the lowest "
    "score in quantile 1): pd.qcut(score, q, labels=False) + 1, alphalens' quantize_factor. A week is bucketed "
    "when it holds at least q such names and its edges are distinct (tied scores across an edge: pandas "
    "refuses, alphalens skips the week with no_raise)"
)
SOURCE = "decisions:{score_field}, forward_return"
"""The decision columns a quantile figure is built from (the request's score)."""
WEEKLY_IC = "signals:weekly_signal.{ic_column}"
"""The weekly IC /metrics uses: `ic` (Spearman of score and forward return) or `raw_ic`."""
SECTOR_SOURCE = "decisions:{score_field}, forward_return; exposures:sector"
PER_WEEK_MEAN = "mean over the window's bucketed weeks of the quantile's equal-weighted mean forward return"


class QuantileBucket(Body, kw_only=True, frozen=True):
    """One score quantile over the window."""

    quantile: Annotated[int, figure("1 (lowest score) .. quantiles (highest score)")]
    label: Annotated[str, figure("Q1 .. Qn")]
    weeks: Annotated[
        int | None,
        figure(
            "Bucketed weeks of the window in which the quantile held names; null when withheld",
            source=SOURCE,
            term=terms.WEEKS,
        ),
    ]
    mean_names: Annotated[
        float | None,
        figure(
            "Mean over those weeks of the names in the quantile; null when it held none or withheld",
            "mean_t n_t",
            source=SOURCE,
            term=terms.MEAN_NAMES,
        ),
    ]
    mean_forward_return: Annotated[
        AnalyticsStat,
        figure(
            "Mean one-week forward return of the quantile, per week: the "
            + PER_WEEK_MEAN
            + " (alphalens mean_return_by_quantile(demeaned=False))",
            "mean_t m_t, m_t = mean_{i in quantile at t} forward_return_i",
            source=SOURCE,
            term=terms.MEAN_FORWARD_RETURN,
        ),
    ]
    standard_error: Annotated[
        AnalyticsStat,
        figure(
            "Standard error of mean_forward_return over the weeks (alphalens' std_error_ret); not measurable "
            "below 2 weeks",
            "std(m_t, ddof=1) / sqrt(weeks)",
            source=SOURCE,
            term=terms.STANDARD_ERROR,
        ),
    ]
    cumulative_return: Annotated[
        list[float] | None,
        figure(
            "The quantile's weekly means compounded, one value per entry of dates: the value at a date includes "
            "that week's forward return (realised by the next rebalance); a week the quantile held no name adds "
            "nothing; null when withheld",
            "prod_{s <= t} (1 + m_s) - 1",
            source=SOURCE,
            term=terms.CUMULATIVE_RETURN,
        ),
    ]


class QuantileSpread(Body, kw_only=True, frozen=True):
    """The top quantile's weekly mean forward return minus the bottom's."""

    top: Annotated[int, figure("The top quantile (the request's quantiles)")]
    bottom: Annotated[int, figure("The bottom quantile (1)")]
    weeks: Annotated[
        int | None,
        figure("Bucketed weeks of the window with both quantiles held; null when withheld", term=terms.WEEKS),
    ]
    mean: Annotated[
        AnalyticsStat,
        figure(
            "Mean weekly top-minus-bottom spread of forward returns, per week: the plain difference of the two "
            "quantiles' weekly means, as /metrics' decile spread (alphalens compute_mean_returns_spread halves it: "
            "a book 50% long, 50% short)",
            "mean_t (m_top,t - m_bottom,t)",
            source=SOURCE,
            term=terms.MEAN_SPREAD,
        ),
    ]
    standard_error: Annotated[
        AnalyticsStat,
        figure(
            "Newey-West (Bartlett kernel) standard error of the mean spread, no small-sample correction "
            f"(statsmodels OLS(s, ones) HAC, maxlags = lag); not measurable below {NEWEY_WEST_MIN_N} weeks",
            "sqrt(sum e_t^2 + 2 sum_j (1 - j/(lag+1)) sum_t e_t e_{t-j}) / n, e = s - mean(s)",
            source=SOURCE,
            term=terms.STANDARD_ERROR,
        ),
    ]
    t_statistic: Annotated[
        AnalyticsStat,
        figure(
            "Newey-West t-statistic of the mean spread (mean / standard_error); not measurable below "
            f"{NEWEY_WEST_MIN_N} weeks or without variance",
            "mean / standard_error",
            source=SOURCE,
            term=terms.T_STATISTIC,
        ),
    ]
    lag: Annotated[int | None, figure("The Newey-West lag; null when not measurable", LAG_RULE)]
    cumulative_return: Annotated[
        list[float] | None,
        figure(
            "The weekly spread compounded (long the top quantile, short the bottom, each week's pair of means), "
            "one value per entry of dates; a week without both adds nothing; null when withheld",
            "prod_{s <= t} (1 + m_top,s - m_bottom,s) - 1",
            source=SOURCE,
            term=terms.CUMULATIVE_RETURN,
        ),
    ]


MEAN_WEEKLY_IC = figure(
    "Mean of those weeks' IC; null when none has one",
    "mean(ic)",
    source=WEEKLY_IC,
    term=terms.REBUILT_MEAN_IC,
)
"""`rebuilt_mean_ic` of a month's and of a month of the year's weeks."""


class MonthIc(Body, kw_only=True, frozen=True):
    """The weekly IC of one calendar month of the window."""

    month: Annotated[str, figure("The calendar month (YYYY-MM) of the weeks' rebalance dates")]
    weeks: Annotated[int, figure("Weeks of the month with a measurable IC", term=terms.WEEKS)]
    rebuilt_mean_ic: Annotated[float | None, MEAN_WEEKLY_IC]


class MonthOfYearIc(Body, kw_only=True, frozen=True):
    """The weekly IC of one month of the year, pooled across the window's years."""

    month: Annotated[int, figure("The month of the year (1 = January .. 12)")]
    years: Annotated[
        int, figure("Calendar years of the window holding a week of that month", term=terms.YEARS)
    ]
    weeks: Annotated[int, figure("Weeks of that month with a measurable IC, every year", term=terms.WEEKS)]
    rebuilt_mean_ic: Annotated[float | None, MEAN_WEEKLY_IC]


class SectorIc(Body, kw_only=True, frozen=True):
    """The IC of the score within one sector."""

    sector: Annotated[str, SEAL_TEXT, figure("The sector, as the seal's exposures name it")]
    weeks: Annotated[
        int, figure("Weeks of the window with a measurable IC within the sector", term=terms.WEEKS)
    ]
    sector_mean_names: Annotated[
        float | None,
        figure(
            "Mean over those weeks of the sector's names with a score and a forward return; null without a week",
            source=SECTOR_SOURCE,
            term=terms.SECTOR_MEAN_NAMES,
        ),
    ]
    sector_mean_ic: Annotated[
        AnalyticsStat,
        figure(
            "Mean over the window's weeks of the rank IC within the sector (alphalens mean_information_coefficient "
            "(by_group=True, group_adjust=False))",
            "mean_t Spearman(score, forward_return | sector, week t)",
            source=SECTOR_SOURCE,
            term=terms.SECTOR_MEAN_IC,
        ),
    ]


class IcBySector(Body, kw_only=True, frozen=True):
    """The IC by sector, or why it is not measurable."""

    status: Annotated[
        Literal["available", "not_measurable"],
        figure("available, or not_measurable (then sectors is null and withheld_reason says why)"),
    ]
    withheld_reason: (
        Annotated[
            str,
            figure(
                "Why the IC by sector is not measurable (present only then): missing_kind (the run sealed no "
                "exposures), access_limited (the key may not read the rebalance cross-sections), or the run sealed "
                "no decisions"
            ),
        ]
        | UnsetType
    ) = UNSET
    sectors: Annotated[list[SectorIc] | None, figure("One entry per sector of the window, by name")]


class Quantiles(Body, kw_only=True, frozen=True):
    """Quantile returns and the IC by month and sector (`/analytics/quantiles`)."""

    alpha: Annotated[str, figure("The alpha served")]
    score_field: Annotated[
        QuantileScore, figure("The score bucketed: score (conditioned) or raw_score (raw-book keys only)")
    ]
    signal: Annotated[Literal["conditioned", "raw"], figure("conditioned for score, raw for raw_score")]
    quantiles: Annotated[int, figure("Number of quantiles (the request's)")]
    assignment: Annotated[str, figure("How a week's names are assigned their quantile")]
    window: Annotated[Window, WINDOW_FIELD]
    weeks: Annotated[
        int | None,
        figure(
            "Rebalance weeks of the window with at least one name holding a score and a forward return; null "
            "when withheld",
            source=SOURCE,
            term=terms.WEEKS,
        ),
    ]
    bucketed_weeks: Annotated[
        int | None,
        figure(
            "Of them, the weeks bucketed (see assignment); null when withheld",
            source=SOURCE,
            term=terms.BUCKETED_WEEKS,
        ),
    ]
    skipped_weeks: Annotated[
        int | None,
        figure(
            "Of them, the weeks not bucketed: fewer names than quantiles, or tied scores across an edge; null when "
            "withheld",
            source=SOURCE,
            term=terms.SKIPPED_WEEKS,
        ),
    ]
    dates: Annotated[
        list[dt.date] | None,
        figure("The bucketed weeks' rebalance dates, in order: the curves' time axis; null when withheld"),
    ]
    buckets: Annotated[list[QuantileBucket], figure("Q1 (lowest score) .. Qn (highest)")]
    spread: Annotated[QuantileSpread, figure("Top quantile minus bottom quantile")]
    ic_by_month: Annotated[
        list[MonthIc] | None,
        figure(
            "The weekly IC /metrics uses (score: rank_ic.conditioned; raw_score: rank_ic.raw) grouped by the "
            "calendar month of the week's date, one entry per month of the window holding a week; null when "
            "withheld"
        ),
    ]
    ic_by_month_of_year: Annotated[
        list[MonthOfYearIc] | None,
        figure(
            "The same weekly IC pooled by month of the year across years (seasonality); null when withheld"
        ),
    ]
    ic_by_sector: Annotated[
        IcBySector,
        figure(
            "The rank IC of the score within each sector of the seal's exposures, averaged over the weeks"
        ),
    ]
