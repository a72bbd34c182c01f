"""`/analytics/decay`: how fast an alpha's IC decays with the forecast horizon, and its expected
live information ratio (its backtest's, less the haircut the catalogue's own approved alphas
measured, or the literature's), declared for the contract (docs/analytics.md, "Decay and the
expected live haircut").
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, AnalyticsStat
from schemas.bodies.base import Body
from schemas.bodies.figures import figure
from schemas.bodies.live import SplitOrigin
from schemas.checks import LIVE_MIN_SESSIONS

DECAY_HORIZONS = (1, 2, 4, 8)
"""The horizons of the IC term structure the decay is fitted to (`/metrics` panel.ic_term_structure)."""
DECAY_RATE_BOUNDS = (-1.0, 5.0)
"""The range the fitted decay rate (per week) is searched in: from a marginal IC growing by e a week
to one falling by e^5 (a half-life of 0.14 weeks)."""
CALIBRATION_MIN_ALPHAS = 5
"""K: the approved alphas with a live record the catalogue needs before its own haircut replaces the
literature's."""
CALIBRATION_MIN_SESSIONS = LIVE_MIN_SESSIONS
"""M: the sessions first published after its approval an alpha needs to count in the calibration (its decay ratio's)."""
LITERATURE_HAIRCUT = 0.26
"""McLean and Pontiff (2016): anomaly returns are 26% lower out of sample (58% after publication)."""
LITERATURE = (
    "McLean, R. D. and Pontiff, J. (2016), Does Academic Research Destroy Stock Return Predictability?, "
    "Journal of Finance 71(1), 5-32: returns 26% lower out of sample"
)
TERM_SOURCE = "weekly_term"
CALIBRATION_SOURCE = "catalogue_index:live_information_ratio, backtest_information_ratio"

Calibration = Literal["catalogue", "literature"]


class DecayPoint(Body, kw_only=True, frozen=True):
    """An entry of `ic_decay.term_structure`: one horizon, measured and fitted."""

    horizon_weeks: Annotated[int, figure("Horizon h in weeks", term=terms.HORIZON_WEEKS)]
    mean_ic: Annotated[
        float | None,
        figure(
            "Mean over weeks of Spearman(raw_score, prod(1 + r) - 1 over the next h weekly forward returns), as "
            "/metrics panel.ic_term_structure[].mean_ic over the whole history; null when no week has it or for a "
            "key that may not read the rebalance cross-sections",
            source=TERM_SOURCE,
            term=terms.MEAN_IC,
        ),
    ]
    fitted_ic: Annotated[
        float | None,
        figure(
            "The fit's IC at h weeks: the sum of the fitted marginal ICs of weeks 1..h over sqrt(h); null when "
            "the fit is not measurable",
            "ic_1 * sum(exp(-decay_rate * (k - 1)), k = 1..h) / sqrt(h)",
            source=TERM_SOURCE,
            term=terms.FITTED_IC,
        ),
    ]
    marginal_ic: Annotated[
        float | None,
        figure(
            "The fitted IC of the h-th week's return alone (the marginal IC): ic_1 at h = 1; null when the fit is "
            "not measurable",
            "ic_1 * exp(-decay_rate * (h - 1))",
            source=TERM_SOURCE,
            term=terms.MARGINAL_IC,
        ),
    ]


class IcDecay(Body, kw_only=True, frozen=True):
    """The IC's decay with the forecast horizon, fitted to the IC term structure."""

    method: Annotated[
        Literal["nonlinear_least_squares_on_sqrt_h_ic"],
        figure(
            "The fit: the marginal IC of the k-th week's return is ic_1 * exp(-decay_rate * (k - 1)); the h-week IC "
            "(of the compounded h-week return) is then the sum of weeks 1..h over sqrt(h) (weekly returns of equal "
            "variance, uncorrelated); ic_1 and decay_rate minimise the squared error of sqrt(h) * mean_ic over the "
            "measured horizons (ic_1 in closed form for each rate, the rate by bounded Brent search in [-1, 5], then the root of the derivative of the squared error)"
        ),
    ] = "nonlinear_least_squares_on_sqrt_h_ic"
    decay_rate: Annotated[
        AnalyticsStat,
        figure(
            "Fitted decay rate of the marginal IC per week of horizon (lambda); below 0 the marginal IC grows "
            "with the horizon; not measurable with fewer than 3 measured horizons, a 1-week mean IC not positive, "
            "or for a key that may not read the rebalance cross-sections",
            "argmin over lambda of sum_h (sqrt(h) * mean_ic(h) - ic_1(lambda) * g_h(lambda))^2, "
            "g_h = sum(exp(-lambda * (k - 1)), k = 1..h)",
            source=TERM_SOURCE,
            term=terms.DECAY_RATE,
        ),
    ]
    half_life_weeks: Annotated[
        AnalyticsStat,
        figure(
            "Weeks of horizon over which the marginal IC halves; not measurable when decay_rate is, or when it is "
            "not positive (the IC does not decay over 1 to 8 weeks)",
            "ln(2) / decay_rate",
            source=TERM_SOURCE,
            term=terms.HALF_LIFE_WEEKS,
        ),
    ]
    ic_1: Annotated[
        AnalyticsStat,
        figure(
            "The fitted marginal IC of the first week's return (the fit's scale); not measurable with decay_rate",
            "sum_h sqrt(h) * mean_ic(h) * g_h / sum_h g_h^2 at the fitted lambda",
            source=TERM_SOURCE,
            term=terms.IC_1,
        ),
    ]
    term_structure: Annotated[
        list[DecayPoint], figure("The horizons fitted (1, 2, 4, 8 weeks), measured and fitted")
    ]


class LiveHaircut(Body, kw_only=True, frozen=True):
    """How much of the backtest's information ratio the live book keeps, calibrated."""

    calibration: Annotated[
        Calibration | None,
        figure(
            f"catalogue when at least {CALIBRATION_MIN_ALPHAS} alphas the key may read (this one excepted) were "
            f"approved and hold {CALIBRATION_MIN_SESSIONS} sessions after the approval with a positive backtest "
            f"information ratio; else literature ({LITERATURE}); null for a key that may not read the ledger"
        ),
    ]
    calibration_alphas: Annotated[
        int,
        figure(
            "The alphas the calibration is over: those the key may read, this one excepted, approved (in force "
            f"or retired since) with at least {CALIBRATION_MIN_SESSIONS} sessions after their approval and a "
            "positive backtest information ratio (null figures of their index rows left out); counted, not used, "
            "under literature; 0 for a key that may not read the ledger",
            term=terms.CALIBRATION_ALPHAS,
        ),
    ]
    min_alphas: Annotated[
        int,
        figure("K: the alphas the catalogue needs before its own calibration is used", term=terms.MIN_ALPHAS),
    ] = CALIBRATION_MIN_ALPHAS
    min_live_sessions: Annotated[
        int,
        figure(
            "M: the sessions first published after its approval an alpha needs to count in the calibration",
            term=terms.MIN_LIVE_SESSIONS,
        ),
    ] = CALIBRATION_MIN_SESSIONS
    retention: Annotated[
        AnalyticsStat,
        figure(
            "Share of the backtest information ratio the live book keeps: the least-squares slope through the "
            "origin of the calibration alphas' live information ratios on their backtest ones (catalogue), or "
            f"1 - {LITERATURE_HAIRCUT} (literature)",
            "sum(b * l) / sum(b^2), b = backtest_information_ratio, l = live_information_ratio of the catalogue index",
            source=CALIBRATION_SOURCE,
            term=terms.RETENTION,
        ),
    ]
    haircut: Annotated[
        AnalyticsStat,
        figure(
            "Share of the backtest information ratio lost live",
            "1 - retention",
            source=CALIBRATION_SOURCE,
            term=terms.HAIRCUT,
        ),
    ]
    haircut_standard_error: Annotated[
        AnalyticsStat,
        figure(
            "Standard error of the haircut (of the slope) across the calibration alphas; not measurable under "
            "literature (the prior is not fitted to this catalogue)",
            "sqrt(sum((l - retention * b)^2) / (n - 1) / sum(b^2))",
            source=CALIBRATION_SOURCE,
            term=terms.HAIRCUT_STANDARD_ERROR,
        ),
    ]
    calibration_rmse: Annotated[
        AnalyticsStat,
        figure(
            "Root mean squared error of the expected live information ratio against the realised one over the "
            "calibration alphas, each predicted out of sample: by the slope fitted without it (leave-one-out, "
            "catalogue) or by the prior (literature); not measurable without a calibration alpha",
            "sqrt(mean((l_i - retention_(-i) * b_i)^2)), retention_(-i) the slope without alpha i (the prior under "
            "literature)",
            source=CALIBRATION_SOURCE,
            term=terms.CALIBRATION_RMSE,
        ),
    ]


class Decay(Body, kw_only=True, frozen=True):
    """The IC's decay by horizon and the expected live information ratio (`/analytics/decay`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book whose expected live information ratio is served")]
    split_date: Annotated[
        dt.date | None,
        figure(
            "The split its backtest ends at, as /analytics/live: sessions on or before it are the backtest; null "
            "when the alpha has none (the whole history is the backtest)"
        ),
    ]
    split_origin: Annotated[
        SplitOrigin | None, figure("Where the split comes from, as /analytics/live split_origin")
    ]
    ic_decay: Annotated[IcDecay, figure("The IC's decay with the forecast horizon")]
    live_haircut: Annotated[LiveHaircut, figure("The haircut from backtest to live and its calibration")]
    backtest_information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the book's daily returns over its backtest: /analytics/live "
            "in_sample.information_ratio at the same split",
            "mean(r) / std(r, ddof=1) * sqrt(252), sessions on or before split_date",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.BACKTEST_INFORMATION_RATIO,
        ),
    ]
    haircut_information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "The book's backtest information ratio less the haircut, not shrunk toward its group: what the haircut "
            "alone leaves (calibration says from where); not the expected live information ratio, which is "
            "/analytics/expectation's (shrunk, then cut: issue 81, item 4). Not measurable with either, or when the "
            "backtest information ratio is not positive (the haircut is calibrated on positive backtests)",
            "backtest_information_ratio * live_haircut.retention",
            source=BOOK_LEDGER + ", " + CALIBRATION_SOURCE,
            keys=PER_YEAR,
            term=terms.HAIRCUT_INFORMATION_RATIO,
        ),
    ]
