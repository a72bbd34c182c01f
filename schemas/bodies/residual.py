"""`/analytics/residual`: what is new in an alpha against the catalogue, declared for the contract
(docs/analytics.md, "Residual against the catalogue").

The alpha's daily returns regressed by OLS, with an intercept, on the same sessions' daily
long_short returns of a reference set of alphas and SPY's daily returns: what is left (the intercept
plus the residual) is the part of the alpha the set and the market do not explain. Its information
ratio is the appraisal ratio of Treynor and Black; the intercept's t-statistic uses Newey-West
standard errors.
"""

from __future__ import annotations

from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.analytics import PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.decisions import REFERENCE_ALPHAS_FIELD, REFERENCE_EXCLUDED_FIELD, REFERENCE_ORIGIN_FIELD
from schemas.bodies.figures import figure
from schemas.checks import RESIDUAL_MIN_SESSIONS as RESIDUAL_MIN_SESSIONS  # declared with the check
from schemas.checks import RESIDUAL_PER_COEFFICIENT as RESIDUAL_PER_COEFFICIENT

RESIDUAL_MIN_COVERAGE = 0.9
"""A reference alpha stays in the regression when it has a return on at least this share of the
sessions on which the alpha and SPY have one."""
RESIDUAL_MAX_LISTED = 50
"""Dropped reference alphas the answer names (all are counted)."""
RESIDUAL_SOURCE = "portfolio:{book}+catalogue:returns+benchmark:SPY"
"""The `source` of a figure of the regression: the alpha's book, the set's long_short returns (the
catalogue's matrix), SPY's daily series."""
SESSION_RULE = (
    "the window's sessions on which the alpha's book, SPY and every reference alpha kept have a daily return; "
    f"a reference alpha is kept when it has a return on at least {RESIDUAL_MIN_COVERAGE:.0%} of the window's "
    "sessions on which the alpha and SPY have one (else dropped: overlap), and when its returns are not, within "
    "rounding, a linear combination of the intercept, SPY's and the kept reference alphas listed before it "
    "(else dropped: collinear)"
)
MEASURABLE = (
    f"not measurable below {RESIDUAL_MIN_SESSIONS} sessions or below {RESIDUAL_PER_COEFFICIENT} sessions per "
    "coefficient (a set larger than the sessions allow)"
)


class ResidualDrop(Body, kw_only=True, frozen=True):
    """A reference alpha left out of the regression."""

    alpha: Annotated[str, figure("The reference alpha")]
    reason: Annotated[
        Literal["overlap", "collinear"],
        figure(
            f"overlap: a return on fewer than {RESIDUAL_MIN_COVERAGE:.0%} of the sessions on which the alpha and "
            "SPY have one; collinear: its returns are, within rounding, a linear combination of the intercept, "
            "SPY's and the kept reference alphas before it (its beta would not be identified; the intercept and "
            "the residual are the same without it)"
        ),
    ]
    sessions: Annotated[
        int,
        figure(
            "Sessions of base_sessions on which it has a long_short return",
            source="catalogue:returns",
            term=terms.SESSIONS,
        ),
    ]


class ResidualDropped(Body, kw_only=True, frozen=True):
    """The reference alphas left out of the regression."""

    count: Annotated[int, figure("How many (count - regressed)", term=terms.COUNT)]
    alphas: Annotated[
        list[ResidualDrop],
        figure(
            f"Each, in the order of reference.alphas: the first {RESIDUAL_MAX_LISTED} when there are more"
        ),
    ]


class ResidualReference(Body, kw_only=True, frozen=True):
    """`reference` of the residual object: the set the alpha is regressed on."""

    origin: Annotated[
        Literal["given", "approved"],
        REFERENCE_ORIGIN_FIELD,
    ]
    alphas: Annotated[list[str], REFERENCE_ALPHAS_FIELD]
    count: Annotated[int, figure("How many reference alphas the set holds", term=terms.COUNT)]
    empty_reason: Annotated[
        str | None,
        figure(
            "Why the default set is empty (no approved alpha other than this one is readable by this key): the "
            "alpha is then regressed on SPY alone. Null when the set holds an alpha, or was given"
        ),
    ]
    alpha_excluded: Annotated[bool, REFERENCE_EXCLUDED_FIELD]
    regressed: Annotated[
        int,
        figure(
            "How many reference alphas the regression holds (count - dropped.count)", term=terms.REGRESSED
        ),
    ]
    dropped: Annotated[ResidualDropped, figure("The reference alphas left out of the regression, and why")]


class ResidualBenchmark(Body, kw_only=True, frozen=True):
    """The market regressor: SPY."""

    symbol: Annotated[str, figure("The benchmark: SPY")]
    return_basis: Annotated[
        str,
        figure(
            "SPY's return basis: adjusted_close (a total return, dividends reinvested) when every row of its whole "
            "series has one, else close (a price return, without dividends), as /v1/benchmarks/SPY/daily "
            "period_return and /analytics/risk",
            source="benchmark:SPY",
        ),
    ]
    partial_beta: Annotated[
        AnalyticsStat,
        figure(
            "SPY's coefficient in the regression (its partial beta, holding the reference alphas' returns fixed: "
            "not /analytics/risk's benchmark.beta, the slope on SPY alone); " + MEASURABLE,
            "b_SPY of r_t = a + b_SPY m_t + sum_i b_i r_i,t + e_t",
            source=RESIDUAL_SOURCE,
            term=terms.PARTIAL_BETA,
        ),
    ]


class ResidualBeta(Body, kw_only=True, frozen=True):
    """One reference alpha's coefficient."""

    alpha: Annotated[str, figure("The reference alpha")]
    partial_beta: Annotated[
        float,
        figure(
            "Its coefficient b_i in the regression (the alpha's exposure to it, holding SPY's and the other "
            "reference alphas' returns fixed)",
            source="catalogue:returns",
            term=terms.REFERENCE_PARTIAL_BETA,
        ),
    ]


class Residual(Body, kw_only=True, frozen=True):
    """The alpha against the catalogue (`/analytics/residual`): its daily returns regressed on a
    reference set's and SPY's."""

    alpha: Annotated[str, figure("The alpha regressed")]
    book: Annotated[
        str,
        figure(
            "The alpha's book regressed (the reference alphas are always their long_short books: the catalogue's "
            "returns matrix holds that book alone)"
        ),
    ]
    window: Annotated[Window, WINDOW_FIELD]
    reference: Annotated[ResidualReference, figure("The reference set")]
    benchmark: Annotated[ResidualBenchmark, figure("The market regressor")]
    base_sessions: Annotated[
        int,
        figure(
            "Sessions of the window on which the alpha's book and SPY both have a daily return: what each "
            "reference alpha's overlap is counted against",
            source="portfolio:{book}+benchmark:SPY",
            term=terms.BASE_SESSIONS,
        ),
    ]
    sessions: Annotated[
        int,
        figure(
            "Sessions the regression is over (see session_rule), or would be when it is not measurable for want "
            "of them; 0 when not counted (too few base_sessions)",
            term=terms.SESSIONS,
        ),
    ]
    session_rule: Annotated[str, figure("Which sessions and which reference alphas the regression holds")]
    newey_west_lag: Annotated[
        int | None,
        figure(
            "Lag L of the Newey-West (Bartlett kernel) standard error of the intercept, from the sessions n of "
            "the regression: L = floor(4 * (n/100)^(2/9)) (Newey and West 1994, the rule of /metrics nwt), capped "
            "at n - 1; null when not measurable",
            term=terms.NEWEY_WEST_LAG,
        ),
    ]
    appraisal_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Annualised information ratio of what the reference set and SPY leave of the alpha's daily returns, the "
            "intercept plus the residual (the appraisal ratio of Treynor and Black): the return the alpha adds, "
            "per unit of the risk it adds, beyond any mix of the set and the market. Adding the alpha at its best "
            "weight to the best mix of the set and SPY lifts that mix's squared Sharpe ratio by its square "
            "(Gibbons, Ross and Shanken 1989), in sample. " + MEASURABLE,
            "mean(a + e) / std(a + e, ddof=1) * sqrt(252) = a / std(e, ddof=1) * sqrt(252), a and e the OLS "
            "intercept and residuals of r_t = a + b_SPY m_t + sum_i b_i r_i,t + e_t",
            source=RESIDUAL_SOURCE,
            keys=PER_YEAR,
            term=terms.APPRAISAL_RATIO,
        ),
    ]
    intercept: Annotated[
        AnalyticsStat,
        figure(
            "The OLS intercept, annualised arithmetically (times 252, not compounded): the return per year the "
            "alpha makes beyond its betas to the set and SPY, not in excess of the risk-free rate",
            "a * 252",
            source=RESIDUAL_SOURCE,
            keys=PER_YEAR,
            term=terms.INTERCEPT,
        ),
    ]
    intercept_t_statistic: Annotated[
        AnalyticsStat,
        figure(
            "t-statistic of the intercept with Newey-West (HAC, Bartlett kernel, lag newey_west_lag, no "
            "small-sample correction) standard errors: is the return beyond the set and the market "
            "distinguishable from 0? As statsmodels OLS(...).fit(cov_type='HAC', cov_kwds={'maxlags': L, "
            "'kernel': 'bartlett', 'use_correction': False}).tvalues[0]",
            "a / sqrt([(X'X)^-1 S (X'X)^-1]_00), S = sum_t u_t u_t' + sum_{j=1..L} (1 - j/(L+1)) sum_t "
            "(u_t u_{t-j}' + u_{t-j} u_t'), u_t = x_t e_t",
            source=RESIDUAL_SOURCE,
            term=terms.INTERCEPT_T_STATISTIC,
        ),
    ]
    intercept_p_value: Annotated[
        AnalyticsStat,
        figure(
            "Two-sided p-value of intercept_t_statistic against the standard normal (statsmodels' default for a HAC "
            "covariance, use_t=False)",
            "erfc(|t| / sqrt(2))",
            source=RESIDUAL_SOURCE,
            term=terms.INTERCEPT_P_VALUE,
        ),
    ]
    r_squared: Annotated[
        AnalyticsStat,
        figure(
            "Share of the variance of the alpha's daily returns the set and SPY explain (centred, with the "
            "intercept), as statsmodels' rsquared",
            "1 - sum(e^2) / sum((r - mean(r))^2)",
            source=RESIDUAL_SOURCE,
            term=terms.R_SQUARED,
        ),
    ]
    betas: Annotated[
        list[ResidualBeta] | None,
        figure(
            "Each reference alpha's coefficient, in the order of reference.alphas, the dropped ones left out; null "
            "when the regression is not measurable"
        ),
    ]
