"""`/analytics/factors`: factor attribution of one book (pyfolio's perf_attrib, Barra-style) and the
signal's feature-neutral IC beside its IC, declared for the contract (docs/analytics.md, "Factor
attribution").

Each rebalance week the factor returns are estimated by a cross-sectional OLS regression of the
names' forward returns on their loadings (`ESTIMATOR`); the book's exposures are its realised
weights on the first session after the decision times the loadings; each factor's part of the
book's weekly return is exposure x factor return, and the specific part what is left. Figures over
a window are sums of the weekly parts over the window's attributed weeks (`WEEK_RULE`).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.analytics import WEEKS_PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.bodies.formats import SEAL_TEXT

FACTOR_MIN_WEEKS = 2
"""Attributed weeks a window needs for the dispersion figures (a window of the history holding
fewer rebalance weeks with a complete holding period is a 400)."""
MARGIN = 10
"""Residual degrees of freedom a week's regression needs beyond its regressors (`analytics.factor_model`)."""
EXPLAINED = 1e-9
"""A score whose regression on the loadings leaves less than this share of its variance (R^2 above
1 - EXPLAINED) is a combination of them: its neutral IC is not measurable (no residual but rounding)."""

ESTIMATOR = (
    "Each rebalance week, ordinary least squares (equal weights) of the names' forward returns "
    "(decisions.forward_return: next open after the decision to the next open after the next decision) on "
    "one dummy per sector present that week (no intercept: a sector's factor return is its names' return net "
    "of the styles) and the style loadings the seal carries (those not null throughout the build); a name "
    "with a null forward return, sector or loading is left out that week, and a week with fewer names than "
    f"regressors + {MARGIN}, or a rank-deficient design, has no estimate"
)
WEEK_RULE = (
    "a rebalance week is in the window when its decision date is on or after from and its holding period "
    "ends (the next decision date) on or before to"
)
HOLDING_PERIOD = (
    "the book's return compounded over the ledger sessions after the decision up to and including the next "
    "decision session: it differs from the forward return's period (open after the decision to the open "
    "after the next decision) by the decision day's overnight move, which lands in the specific part"
)
BOOK_SOURCE = "portfolio:{book} + positions:{book} + exposures"
FACTOR_SOURCE = "exposures + decisions.forward_return"
IC_SOURCE = "signals:weekly_signal"
FactorType = Literal["sector", "style"]


class FactorFigures(Body, kw_only=True, frozen=True):
    """One factor over the window."""

    factor: Annotated[str, SEAL_TEXT, figure("The factor: a sector's name (as sealed) or a style loading's")]
    type: Annotated[FactorType, figure("sector (a dummy per sector) or style (a loading)")]
    weeks: Annotated[
        int,
        figure(
            "Weeks of the window in which the factor was estimated (a sector: held by the regression's names)",
            term=terms.WEEKS,
        ),
    ]
    mean_exposure: Annotated[
        AnalyticsStat,
        figure(
            "Mean of the book's weekly exposure to the factor over the window's attributed weeks that estimate it: "
            "for a sector the net weight of its names (a fraction of equity), for a style the weight-weighted "
            "loading",
            "mean_t sum_i w_t,i L_t,i,f; w the realised weight (positions.weight) on the first session after the "
            "decision, L the week's loading (a sector: 1 for its names)",
            source=BOOK_SOURCE,
            term=terms.MEAN_EXPOSURE,
        ),
    ]
    factor_return: Annotated[
        AnalyticsStat,
        figure(
            "The factor's return over the window: the sum of its weekly estimates (arithmetic; pyfolio's "
            "perf_attrib summary compounds, cum_returns_final)",
            "sum_t f_t,f over the window's estimated weeks",
            source=FACTOR_SOURCE,
            term=terms.FACTOR_RETURN,
        ),
    ]
    part: Annotated[
        AnalyticsStat,
        figure(
            "The factor's part of the book's return over the window: the sum of its weekly parts",
            "sum_t X_t,f * f_t,f, X the exposure",
            source=BOOK_SOURCE,
            term=terms.PART,
        ),
    ]


class FactorWeekExposure(Body, kw_only=True, frozen=True):
    """One factor in one attributed week (a chart draws exposure by date and factor)."""

    date: Annotated[dt.date, figure("The rebalance week's decision date")]
    factor: Annotated[str, SEAL_TEXT, figure("The factor")]
    type: Annotated[FactorType, figure("sector or style")]
    exposure: Annotated[
        float | None,
        figure("The book's exposure that week", "sum_i w_i L_i,f", source=BOOK_SOURCE, term=terms.EXPOSURE),
    ]
    factor_return: Annotated[
        float | None,
        figure(
            "The factor's return that week (the OLS estimate)", source=FACTOR_SOURCE, term=terms.FACTOR_RETURN
        ),
    ]
    part: Annotated[
        float | None,
        figure(
            "The factor's part of the book's return that week", "exposure * factor_return", term=terms.PART
        ),
    ]


class FactorWeek(Body, kw_only=True, frozen=True):
    """One attributed week of the book."""

    date: Annotated[dt.date, figure("The rebalance week's decision date")]
    next_date: Annotated[dt.date, figure("The next decision date: the holding period ends at its close")]
    sessions: Annotated[int, figure("Ledger sessions of the holding period", term=terms.SESSIONS)]
    names: Annotated[int, figure("Names in the week's regression", term=terms.NAMES)]
    r_squared: Annotated[
        float | None,
        figure(
            "Centred R^2 of the week's regression (the sector dummies span the constant)",
            "1 - SSR / sum (r - mean r)^2",
            source=FACTOR_SOURCE,
            term=terms.R_SQUARED,
        ),
    ]
    book_return: Annotated[
        float | None,
        figure("The book's return that week: " + HOLDING_PERIOD, "prod(1 + r) - 1", term=terms.BOOK_RETURN),
    ]
    common_return: Annotated[
        float | None,
        figure(
            "The factors' parts that week", "sum_f exposure_f * factor_return_f", term=terms.COMMON_RETURN
        ),
    ]
    specific_return: Annotated[
        float | None,
        figure("What the factors leave of it", "book_return - common_return", term=terms.SPECIFIC_RETURN),
    ]


class FactorRunningSums(Body, kw_only=True, frozen=True):
    """The window's weekly returns summed up to and including one attributed week (the last week's are
    the window's sums)."""

    date: Annotated[dt.date, figure("The attributed week's decision date (weekly[].date)")]
    sum_of_weekly_returns: Annotated[
        float | None,
        figure(
            "The book's weekly returns summed over the window's attributed weeks up to and including this one "
            "(arithmetic, as the route's sum_of_weekly_returns; a week without a return adds nothing); null "
            "when this week has none",
            "sum_{s <= t} book_return_s",
            source=BOOK_SOURCE,
            term=terms.SUM_OF_WEEKLY_RETURNS,
        ),
    ]
    sum_of_weekly_common_returns: Annotated[
        float | None,
        figure(
            "The factors' parts summed the same way (sum_of_weekly_common_returns up to this week)",
            "sum_{s <= t} common_return_s",
            source=BOOK_SOURCE,
            term=terms.SUM_OF_WEEKLY_COMMON_RETURNS,
        ),
    ]
    sum_of_weekly_specific_returns: Annotated[
        float | None,
        figure(
            "The specific returns summed the same way (sum_of_weekly_specific_returns up to this week)",
            "sum_{s <= t} specific_return_s",
            source=BOOK_SOURCE,
            term=terms.SUM_OF_WEEKLY_SPECIFIC_RETURNS,
        ),
    ]


class NeutralIcWeek(Body, kw_only=True, frozen=True):
    """One week's IC and feature-neutral IC."""

    date: Annotated[dt.date, figure("The rebalance week's decision date")]
    ic: Annotated[
        float | None,
        figure(
            "The week's rank IC (weekly_signal ic, raw_ic for raw books)", source=IC_SOURCE, term=terms.IC
        ),
    ]
    neutral_ic: Annotated[
        float | None,
        figure(
            "The week's feature-neutral IC: Spearman of the score residualised on the week's loadings with the "
            "forward return",
            "spearman(s - X b, forward_return), b the OLS of s on X (sector dummies + styles)",
            source=FACTOR_SOURCE,
            term=terms.NEUTRAL_IC,
        ),
    ]
    names: Annotated[
        int | None,
        figure("Names the neutral IC ranks (residual and forward return both present)", term=terms.NAMES),
    ]


class NeutralIc(Body, kw_only=True, frozen=True):
    """The signal's IC and feature-neutral IC over the window."""

    signal: Annotated[
        Literal["score", "raw_score"], figure("The score ranked: score, or raw_score for a raw_ book")
    ]
    attributed_mean_ic: Annotated[
        AnalyticsStat,
        figure(
            "Mean weekly rank IC over the window's weeks with a measurable IC, as /metrics rank_ic",
            "mean(ic)",
            source=IC_SOURCE,
            term=terms.ATTRIBUTED_MEAN_IC,
        ),
    ]
    mean_neutral_ic: Annotated[
        AnalyticsStat,
        figure(
            "Mean weekly feature-neutral IC over the window's weeks with a measurable one: what the score "
            "predicts beyond the sectors and styles (Numerai's feature-neutral correlation, but fully neutralised "
            "and ranked with Spearman)",
            "mean_t spearman(s_t - X_t b_t, forward_return_t)",
            source=FACTOR_SOURCE,
            term=terms.MEAN_NEUTRAL_IC,
        ),
    ]
    weeks: Annotated[list[NeutralIcWeek], figure("The window's weeks, in date order")]


class Factors(Body, kw_only=True, frozen=True):
    """Factor attribution of a book (`/analytics/factors`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    estimator: Annotated[str, figure("How the factor returns are estimated each week")] = ESTIMATOR
    weeks: Annotated[
        int | None,
        figure(
            "Attributed weeks of the window ("
            + WEEK_RULE
            + ", with a factor estimate and a holding period in the "
            "ledger); null when not measurable",
            term=terms.WEEKS,
        ),
    ]
    sum_of_weekly_returns: Annotated[
        AnalyticsStat,
        figure(
            "The book's weekly returns over the window's attributed weeks, summed (arithmetic, as the parts are; not "
            "compounded, and not the daily returns summed, /analytics/attribution totals.sum_of_daily_returns): each "
            "week " + HOLDING_PERIOD,
            "sum_t (prod(1 + r) - 1)",
            source=BOOK_SOURCE,
            term=terms.SUM_OF_WEEKLY_RETURNS,
        ),
    ]
    sum_of_weekly_common_returns: Annotated[
        AnalyticsStat,
        figure(
            "The factors' part of it (the sum of every factor's part)",
            "sum_t sum_f X_t,f * f_t,f",
            source=BOOK_SOURCE,
            term=terms.SUM_OF_WEEKLY_COMMON_RETURNS,
        ),
    ]
    sum_of_weekly_specific_returns: Annotated[
        AnalyticsStat,
        figure(
            "What the factors leave of it: the return of what the loadings do not describe",
            "sum_of_weekly_returns - sum_of_weekly_common_returns",
            source=BOOK_SOURCE,
            term=terms.SUM_OF_WEEKLY_SPECIFIC_RETURNS,
        ),
    ]
    specific_information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the weekly specific returns, annualised (pyfolio's perf_attrib summary shows "
            "empyrical's sharpe_ratio of them, which annualises with sqrt(252) whatever their frequency)",
            "mean(s) / std(s, ddof=1) * sqrt(52)",
            source=BOOK_SOURCE,
            keys=WEEKS_PER_YEAR,
            term=terms.SPECIFIC_INFORMATION_RATIO,
        ),
    ]
    variance_explained: Annotated[
        AnalyticsStat,
        figure(
            "Share of the variance of the book's weekly returns the factors explain (below 0 when the specific "
            "returns vary more than the book's)",
            "1 - var(specific_return) / var(book_return), over the attributed weeks",
            source=BOOK_SOURCE,
            term=terms.VARIANCE_EXPLAINED,
        ),
    ]
    factors: Annotated[
        list[FactorFigures],
        figure(
            "One entry per factor estimated in the window: sectors by name, then size, value, momentum, beta, volatility"
        ),
    ]
    weekly: Annotated[list[FactorWeek], figure("The attributed weeks, in date order")]
    running_sums: Annotated[
        list[FactorRunningSums],
        figure(
            "The book's, common and specific weekly returns summed from the window's first attributed week up to "
            "each one, a row per week of weekly (what the dashboard draws as the summed returns)"
        ),
    ]
    exposures: Annotated[
        list[FactorWeekExposure],
        figure("The weekly exposures and parts, by date then factor (the factors' order)"),
    ]
    ic: Annotated[NeutralIc, figure("The signal's IC and feature-neutral IC")]
