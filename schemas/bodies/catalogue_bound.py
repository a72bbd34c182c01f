"""`/analytics/catalogue_bound`: the Rademacher anti-serum over the whole catalogue (issue 62, item 4;
docs/analytics.md, "A bound over the whole catalogue")."""

from __future__ import annotations

from typing import Annotated

from schemas import terms
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.base import Body
from schemas.bodies.figures import figure

RAS = "Paleologo (2024), The Elements of Quantitative Investing, section 8.3, Procedures 8.1 and 8.2"
RAS_WINDOW = (
    "the dates on which an alpha the key may read has a value in the catalogue's matrix (from/to do not narrow "
    "them), a date the alpha has no value on counted as flat (0)"
)


class CatalogueBound(Body, kw_only=True, frozen=True):
    """`/analytics/catalogue_bound`: the Rademacher anti-serum over the alphas the key may read
    (docs/analytics.md, "A bound over the whole catalogue"): a lower bound on each such alpha's
    Sharpe ratio and mean IC at once, with probability ras_confidence. The complexity is computed
    exactly over their rows (issue 81, item 7: nothing another team publishes moves it). The returns
    side (ras_sharpe_*, ras_sessions) is null for a key that may not read the ledger, the IC side
    (ras_ic_*, ras_weeks) for one that may not read the cross-sections."""

    alpha: Annotated[str, figure("The alpha served (meta.run)")]
    ras_confidence: Annotated[
        float,
        figure("1 - delta: the probability that every bound holds at once (0.95)", term=terms.RAS_CONFIDENCE),
    ]
    ras_draws: Annotated[
        int,
        figure(
            "Monte Carlo draws of the Rademacher signs behind each complexity (seeded)", term=terms.RAS_DRAWS
        ),
    ]
    ras_sharpe_observed: Annotated[
        AnalyticsStat,
        figure(
            "The alpha's per-session Sharpe ratio as the bound reads it: its daily long_short returns (the "
            "catalogue's returns matrix) divided by their standard deviation (ddof 1), summed over "
            + RAS_WINDOW,
            "theta_hat = (1/T) sum_t r_t / sd(r), T ras_sessions",
            source="catalogue",
            term=terms.RAS_SHARPE_OBSERVED,
        ),
    ]
    ras_sharpe_lower_bound: Annotated[
        AnalyticsStat,
        figure(
            "Lower bound on the alpha's true per-session Sharpe ratio (as ras_sharpe_observed reads it), holding "
            "for every alpha the key may read at once with probability ras_confidence: the sub-Gaussian form of "
            "the Rademacher anti-serum, " + RAS,
            "theta_hat - 2 R_hat - 3 sqrt(2 ln(2/delta) / T) - sqrt(2 ln(2N/delta) / T), R_hat "
            "ras_sharpe_complexity, T ras_sessions, N ras_sharpe_alphas",
            source="catalogue",
            term=terms.RAS_SHARPE_LOWER_BOUND,
        ),
    ]
    ras_sharpe_complexity: Annotated[
        float | None,
        figure(
            "Empirical Rademacher complexity of the daily returns of the alphas the key may read, each at unit "
            "variance, computed exactly over their rows",
            "R_hat = E_eps[max_n |(1/T) sum_t eps_t x_(t,n)|], eps_t independent signs, by Monte Carlo",
            term=terms.RAS_SHARPE_COMPLEXITY,
        ),
    ]
    ras_sharpe_complexity_error: Annotated[
        float | None,
        figure(
            "Monte Carlo standard error of ras_sharpe_complexity",
            "sd of the draws' maxima / sqrt(draws)",
            term=terms.RAS_SHARPE_COMPLEXITY_ERROR,
        ),
    ]
    ras_sessions: Annotated[
        int | None,
        figure(
            "T: the dates (sessions) of the catalogue's returns matrix on which an alpha the key may read has one",
            term=terms.RAS_SESSIONS,
        ),
    ]
    ras_sharpe_alphas: Annotated[
        int | None,
        figure(
            "N: the alphas the key may read with a returns series (3 or more sessions with variance) the complexity "
            "is over",
            term=terms.RAS_SHARPE_ALPHAS,
        ),
    ]
    ras_ic_observed: Annotated[
        AnalyticsStat,
        figure(
            "The alpha's mean weekly conditioned IC as the bound reads it (the catalogue's IC matrix, each value "
            "within [-1, 1]), summed over " + RAS_WINDOW,
            "theta_hat = (1/T) sum_t ic_t, T ras_weeks",
            source="catalogue",
            term=terms.RAS_IC_OBSERVED,
        ),
    ]
    ras_ic_lower_bound: Annotated[
        AnalyticsStat,
        figure(
            "Lower bound on the alpha's true mean weekly IC (as ras_ic_observed reads it), holding for every "
            "alpha the key may read at once with probability ras_confidence: the bounded form (|IC| <= 1) of "
            "the Rademacher anti-serum, " + RAS,
            "theta_hat - 2 R_hat - 3 sqrt(2 ln(2/delta) / T), R_hat ras_ic_complexity, T ras_weeks",
            source="catalogue",
            term=terms.RAS_IC_LOWER_BOUND,
        ),
    ]
    ras_ic_complexity: Annotated[
        float | None,
        figure(
            "Empirical Rademacher complexity of the weekly IC of the alphas the key may read, computed exactly over "
            "their rows",
            "R_hat = E_eps[max_n |(1/T) sum_t eps_t ic_(t,n)|], by Monte Carlo",
            term=terms.RAS_IC_COMPLEXITY,
        ),
    ]
    ras_ic_complexity_error: Annotated[
        float | None,
        figure(
            "Monte Carlo standard error of ras_ic_complexity",
            "sd of the draws' maxima / sqrt(draws)",
            term=terms.RAS_IC_COMPLEXITY_ERROR,
        ),
    ]
    ras_weeks: Annotated[
        int | None,
        figure(
            "T: the dates (weeks) of the catalogue's IC matrix on which an alpha the key may read has one",
            term=terms.RAS_WEEKS,
        ),
    ]
    ras_ic_alphas: Annotated[
        int | None,
        figure(
            "N: the alphas the key may read with a weekly IC the complexity is over", term=terms.RAS_IC_ALPHAS
        ),
    ]
