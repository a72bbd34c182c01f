"""`/analytics/expectation`: what the alpha is expected to do live, with its uncertainty (issue 59,
item 2): its backtest information ratio and mean IC shrunk toward its trial family's (else the
catalogue's) mean by their own standard errors (empirical Bayes), the expected live level after
/analytics/decay's retention with a credible interval, and each live week's percentile in the
predictive distribution (docs/analytics.md, "Expectation: empirical Bayes shrinkage").
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.base import Body
from schemas.bodies.decay import LiveHaircut
from schemas.bodies.figures import figure
from schemas.bodies.live import SplitDate, SplitFrom

MIN_GROUP_MEMBERS = 3
"""Members with a measured figure a group needs for its mean and spread to be estimated: a trial
family with fewer readable members gives way to the catalogue, a catalogue with fewer is no
shrinkage at all (the alpha's own figure and standard error)."""
CREDIBLE_LEVEL = 0.9
"""The mass of the served intervals (normal, equal tails)."""

GroupKind = Literal["family", "catalogue"]
ExpectedSeriesName = Literal["information_ratio", "rebuilt_mean_ic"]
Shrinkage = Literal["empirical_bayes", "none"]

METHOD = (
    "Each readable member of the group has a backtest figure x_i (information ratio of its long_short daily "
    "returns, or mean weekly IC, over the sessions up to its own split) and an iid standard error s_i (Lo 2002 / "
    "Mertens: sqrt((1 + SR^2 / 2) / (n - 1)) per session, times sqrt(sessions a year), for the information ratio; "
    "sd(ddof=1) / sqrt(weeks) for the IC). The group's mean m and between-alpha variance tau^2 are estimated by "
    "DerSimonian and Laird's method of moments (tau^2 >= 0); the alpha's figure is shrunk toward m: posterior "
    "mean m + B (x - m), B = tau^2 / (tau^2 + s^2), posterior variance B s^2 + (1 - B)^2 var(m) (Morris 1983). The "
    "expected live figure is the posterior times /analytics/decay's retention (a posterior not above 0 is kept as "
    "it is: the retention is fitted on positive backtests). Intervals are normal"
)


class ExpectedWeek(Body, kw_only=True, frozen=True):
    """One live week of a series: the live figure to date and where it falls."""

    date: Annotated[
        dt.date,
        figure("The week's last session (information_ratio) or the weekly IC's date (rebuilt_mean_ic)"),
    ]
    observations_to_date: Annotated[
        int,
        figure(
            "The live observations up to this week: sessions (information_ratio) or weekly ICs (rebuilt_mean_ic)",
            term=terms.OBSERVATIONS_TO_DATE,
        ),
    ]
    live_to_date: Annotated[
        float | None,
        figure(
            "The live figure over the live observations up to this week: the information ratio of the daily "
            "returns, or the mean weekly IC; null below 2 observations (the information ratio's)",
            term=terms.LIVE_TO_DATE,
        ),
    ]
    predictive_lower: Annotated[
        float | None,
        figure(
            "Lower bound of the credible interval of the live figure over this many observations",
            "expected_live - z * sqrt(expected_live_sd^2 + sampling variance over observations_to_date)",
            term=terms.PREDICTIVE_LOWER,
        ),
    ]
    predictive_upper: Annotated[
        float | None,
        figure(
            "Upper bound of the same interval",
            "expected_live + z * sqrt(expected_live_sd^2 + sampling variance over observations_to_date)",
            term=terms.PREDICTIVE_UPPER,
        ),
    ]
    percentile: Annotated[
        float | None,
        figure(
            "Where live_to_date falls in the predictive distribution of the live figure over this many "
            "observations (50: as expected; below 5 or above 95: outside the 90% interval)",
            "100 * Phi((live_to_date - expected_live) / sqrt(expected_live_sd^2 + v_k)), v_k = (1 + SR^2 / 2) / "
            "(k - 1) * sessions a year at SR = expected_live / sqrt(sessions a year) (information_ratio), or the "
            "backtest's weekly IC variance / k (rebuilt_mean_ic)",
            term=terms.PERCENTILE,
        ),
    ]


class ExpectedSeries(Body, kw_only=True, frozen=True):
    """One figure expected: its backtest value, the group it is shrunk toward, the posterior, the
    expected live figure and the live weeks against it."""

    series: Annotated[
        ExpectedSeriesName,
        figure(
            "information_ratio: the long_short book's annualised information ratio of daily returns; rebuilt_mean_ic: "
            "the mean of the weekly conditioned IC rebuilt from the cross-sections (weekly_signal.ic), /analytics/live's "
            "in_sample.rebuilt_mean_ic over the backtest (served as mean_ic before issue 65, item 3: the IC term "
            "structure's name)"
        ),
    ]
    withheld_reason: Annotated[str | None, figure("Why the series is not measurable; null when it is")]
    shrinkage: Annotated[
        Shrinkage | None,
        figure(
            f"empirical_bayes when at least {MIN_GROUP_MEMBERS} members of the group have the figure measured; "
            "none below (the posterior is the alpha's own figure and standard error, with an insufficient_data "
            "warning); null when not measurable"
        ),
    ]
    measured_members: Annotated[
        int,
        figure(
            "The group's members the key may read with the figure measured (at least 3 observations), the alpha's "
            "own included: those the group's mean and spread are estimated from",
            term=terms.MEASURED_MEMBERS,
        ),
    ]
    backtest_value: Annotated[
        float | None,
        figure(
            "The alpha's figure over its backtest (sessions, or weekly ICs realised, on or before split_date): "
            "for information_ratio /analytics/decay backtest_information_ratio",
            "mean(r) / std(r, ddof=1) * sqrt(252); mean(ic)",
            term=terms.BACKTEST_VALUE,
        ),
    ]
    backtest_observations: Annotated[
        int,
        figure(
            "The backtest's observations: sessions (information_ratio) or weekly ICs (rebuilt_mean_ic)",
            term=terms.BACKTEST_OBSERVATIONS,
        ),
    ]
    backtest_standard_error: Annotated[
        float | None,
        figure(
            "The iid standard error of backtest_value",
            "sqrt((1 + SR^2 / 2) / (n - 1)) * sqrt(252), SR the per-session Sharpe ratio; std(ic, ddof=1) / sqrt(n)",
            term=terms.BACKTEST_STANDARD_ERROR,
        ),
    ]
    group_mean: Annotated[
        float | None,
        figure(
            "m: the group's mean figure, each member weighted by its precision under the fitted spread",
            "sum(w_i x_i) / sum(w_i), w_i = 1 / (s_i^2 + tau^2)",
            term=terms.GROUP_MEAN,
        ),
    ]
    group_mean_standard_error: Annotated[
        float | None,
        figure(
            "The standard error of group_mean", "1 / sqrt(sum(w_i))", term=terms.GROUP_MEAN_STANDARD_ERROR
        ),
    ]
    between_alpha_sd: Annotated[
        float | None,
        figure(
            "tau: the spread of the members' true figures (DerSimonian and Laird's moment estimate, 0 when the "
            "figures spread no more than their standard errors say)",
            "sqrt(max(0, (Q - (k - 1)) / (sum(v_i) - sum(v_i^2) / sum(v_i)))), v_i = 1 / s_i^2, "
            "Q = sum(v_i (x_i - sum(v_i x_i) / sum(v_i))^2)",
            term=terms.BETWEEN_ALPHA_SD,
        ),
    ]
    shrinkage_weight: Annotated[
        float | None,
        figure(
            "B: the weight the alpha's own figure keeps (1: none shrunk; 0: the group's mean)",
            "tau^2 / (tau^2 + s^2)",
            term=terms.SHRINKAGE_WEIGHT,
        ),
    ]
    posterior_mean: Annotated[
        float | None,
        figure(
            "The figure's posterior mean over the backtest",
            "m + B * (backtest_value - m)",
            term=terms.POSTERIOR_MEAN,
        ),
    ]
    posterior_sd: Annotated[
        float | None,
        figure(
            "The posterior standard deviation",
            "sqrt(B * s^2 + (1 - B)^2 * group_mean_standard_error^2)",
            term=terms.POSTERIOR_SD,
        ),
    ]
    posterior_lower: Annotated[
        float | None,
        figure(
            "Lower bound of the posterior credible interval",
            "posterior_mean - z * posterior_sd",
            term=terms.POSTERIOR_LOWER,
        ),
    ]
    posterior_upper: Annotated[
        float | None,
        figure(
            "Upper bound of the posterior credible interval",
            "posterior_mean + z * posterior_sd",
            term=terms.POSTERIOR_UPPER,
        ),
    ]
    expected_live: Annotated[
        float | None,
        figure(
            "The figure expected live: the posterior times the retention (live_haircut.retention); a posterior mean not "
            "above 0 is kept as it is; not measurable without the retention (a key that may not read the ledger)",
            "retention * posterior_mean",
            term=terms.EXPECTED_LIVE,
        ),
    ]
    expected_live_sd: Annotated[
        float | None,
        figure(
            "Its standard deviation, the retention's standard error included when the catalogue calibrates it",
            "sqrt(retention^2 * posterior_sd^2 + (posterior_mean^2 + posterior_sd^2) * se(retention)^2)",
            term=terms.EXPECTED_LIVE_SD,
        ),
    ]
    expected_live_lower: Annotated[
        float | None,
        figure(
            "Lower bound of its credible interval",
            "expected_live - z * expected_live_sd",
            term=terms.EXPECTED_LIVE_LOWER,
        ),
    ]
    expected_live_upper: Annotated[
        float | None,
        figure(
            "Upper bound of its credible interval",
            "expected_live + z * expected_live_sd",
            term=terms.EXPECTED_LIVE_UPPER,
        ),
    ]
    weeks: Annotated[
        list[ExpectedWeek],
        figure(
            "The live weeks after the split, oldest first: calendar weeks of the live sessions (information_ratio), "
            "or the weekly ICs realised after the split (rebuilt_mean_ic); empty without a split or a live week"
        ),
    ]


class Expectation(Body, kw_only=True, frozen=True):
    """`/analytics/expectation` of one alpha."""

    alpha: Annotated[str, figure("The alpha")]
    split_date: SplitDate
    split_origin: SplitFrom
    live: Annotated[
        bool,
        figure(
            "true when the split is the alpha's approval (the weeks after it were first published after it was "
            "recorded); false: out of sample but not live"
        ),
    ]
    group: Annotated[
        str | None, figure("The trial family the alpha is shrunk toward (its seal's); null for the catalogue")
    ]
    group_kind: Annotated[
        GroupKind,
        figure(
            f"family when the alpha's seal names a trial family of which the key may read at least {MIN_GROUP_MEMBERS} "
            "members; else catalogue: every alpha the key may read"
        ),
    ]
    group_members: Annotated[
        int,
        figure(
            "The group's alphas the key may read, the alpha included (never one it may not read)",
            term=terms.GROUP_MEMBERS,
        ),
    ]
    min_group_members: Annotated[
        int, figure("The measured members a group needs to be estimated", term=terms.MIN_GROUP_MEMBERS)
    ] = MIN_GROUP_MEMBERS
    credible_level: Annotated[
        float, figure("The mass of every interval served", term=terms.CREDIBLE_LEVEL)
    ] = CREDIBLE_LEVEL
    method: Annotated[str, figure("How the figures are made")] = METHOD
    live_haircut: Annotated[
        LiveHaircut, figure("/analytics/decay's haircut from backtest to live, whose retention is applied")
    ]
    series: Annotated[list[ExpectedSeries], figure("The information ratio and the mean IC")]
