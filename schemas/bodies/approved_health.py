"""`/v1/analytics/approved_health`: is every approved alpha still working? One row per approved
alpha the key may read: its live track against what its approval expects, its CUSUM's state and
last alarm, the probability that its approval was a false discovery, and what it adds to the
others (docs/analytics.md, "The approved book's health").
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.base import Body
from schemas.bodies.figures import figure
from schemas.bodies.monitoring import ChartState

DiscoveryBasis = Literal["deployment", "paper"]
HealthVerdict = Literal["failing", "in_control", "not_measurable"]
SignalName = Literal["live_information_ratio", "decay_ratio", "consistency", "book_return_cusum", "ic_cusum"]
SignalState = Literal["pass", "fail", "not_measurable"]

VERDICT_RULE = (
    "failing when any signal the tear sheet reads fails: a live check of /analytics/checks (live_information_ratio, "
    "decay_ratio) fails the policy, the live part is inconsistent with the backtest (/analytics/live consistency: "
    "its PSR below its level), or a CUSUM chart of /analytics/monitoring (book return, IC) is in alarm; in_control "
    "when none fails and at least one is measured (a CUSUM in control sees a fall only after arl1_weeks on "
    "average); not_measurable when none is measured"
)
"""The one rule of a row's verdict (`analytics.approved_health.verdict` applies it; issue 81, item 5)."""

LIVE_ROUTE, EXPECTATION_ROUTE, MONITORING_ROUTE, MMC_ROUTE, CHECKS_ROUTE = (
    "analytics.live",
    "analytics.expectation",
    "analytics.monitoring",
    "analytics.mmc",
    "analytics.checks",
)
VERDICT_FIELDS = ("signals", "verdict", "verdict_reason")
"""A row's verdict and its signals: made of the live checks, /analytics/live and /analytics/monitoring."""
FROM_ROUTES: dict[str, tuple[str, ...]] = {
    CHECKS_ROUTE: VERDICT_FIELDS,
    LIVE_ROUTE: (
        "sessions_since_approval",
        "live_information_ratio",
        "false_discovery_probability",
        *VERDICT_FIELDS,
    ),
    EXPECTATION_ROUTE: (
        "expected_live_information_ratio",
        "live_to_date",
        "predictive_lower",
        "predictive_upper",
        "percentile",
    ),
    MONITORING_ROUTE: (
        "live_weeks",
        "cusum_state",
        "ic_cusum_state",
        "cusum_statistic",
        "last_alarm",
        *VERDICT_FIELDS,
    ),
    MMC_ROUTE: ("mmc_mean", "correlation_to_combined_mean"),
}
"""The route each figure of a row is that route's answer of: a key that may not call it gets the
figures null (`Reading.approved_health`, and an `alpha.health` as delivered)."""
FROM_CROSS_SECTIONS = (
    "ic_cusum_state",
    "last_alarm",
    "mmc_mean",
    "correlation_to_combined_mean",
    *VERDICT_FIELDS,
)
"""The figures of a row built from the cross-sections (the IC chart, the scores)."""


class FalseDiscoveryPrior(Body, kw_only=True, frozen=True):
    """What the false-discovery probabilities are computed with."""

    basis: Annotated[
        DiscoveryBasis,
        figure(
            "deployment: estimated from this deployment's decisions and live outcomes (the approved alphas the key "
            "may read with a measured live information ratio); paper: too few of them, the worked example of López "
            "de Prado, Lipton and Zoonekynd (2025)"
        ),
    ]
    decided_alphas: Annotated[
        int,
        figure(
            "The approved alphas (in force or retired since) with a measured live information ratio, of those the key may read",
            term=terms.DECIDED_ALPHAS,
        ),
    ]
    candidates: Annotated[
        int,
        figure("The alphas of the catalogue the key may read: the candidates tried", term=terms.CANDIDATES),
    ]
    prior_true_share: Annotated[
        float,
        figure(
            "p: the prior share of true strategies among the candidates: the approved alphas true by their live "
            "tracks (2 x the share with a positive live information ratio - 1, at least 0), over the test's power "
            "against true_information_ratio, over the candidates; kept within 1/candidates and 1",
            "decided * max(0, 2 s - 1) / power / candidates",
            term=terms.PRIOR_TRUE_SHARE,
        ),
    ]
    true_information_ratio: Annotated[
        float,
        figure(
            "The annualised information ratio of a true strategy (the alternative the power is computed against): "
            "the mean live information ratio of those with a positive one",
            term=terms.TRUE_INFORMATION_RATIO,
        ),
    ]


class HealthSignal(Body, kw_only=True, frozen=True):
    """One signal of "is it still working?", as the route that serves it answers."""

    signal: Annotated[
        SignalName,
        figure(
            "live_information_ratio, decay_ratio: the live checks of /analytics/checks (the book at its approval); "
            "consistency: /analytics/live's consistency test; book_return_cusum, ic_cusum: /analytics/monitoring's charts"
        ),
    ]
    state: Annotated[
        SignalState,
        figure(
            "pass or fail (a check's verdict; consistent or inconsistent; in control or in alarm), not_measurable "
            "with its reason"
        ),
    ]
    value: Annotated[
        float | None,
        figure(
            "The check's value, the consistency test's PSR, or the chart's CUSUM statistic after its last live week; "
            "null when not measurable"
        ),
    ]
    reason: Annotated[
        str | None, figure("Why it fails or is not measurable (the route's words); null when it passes")
    ]


class AlphaHealth(Body, kw_only=True, frozen=True):
    """One approved alpha."""

    alpha: Annotated[str, figure("The alpha")]
    approved_at: Annotated[dt.datetime, figure("When its approval in force was recorded, by our clock (UTC)")]
    split_date: Annotated[dt.date | None, figure("The last session before its live part (the approval's)")]
    sessions_since_approval: Annotated[
        int | None,
        figure(
            "Sessions of the book first published after the approval was recorded; null: /analytics/live withheld",
            term=terms.SESSIONS_SINCE_APPROVAL,
        ),
    ]
    live_weeks: Annotated[
        int | None,
        figure(
            "The live weeks its CUSUM charted; null: /analytics/monitoring withheld", term=terms.LIVE_WEEKS
        ),
    ]
    live_information_ratio: Annotated[
        float | None,
        figure(
            "/analytics/live out_of_sample.information_ratio at the approval; null below 63 sessions",
            term=terms.LIVE_INFORMATION_RATIO,
        ),
    ]
    expected_live_information_ratio: Annotated[
        float | None,
        figure(
            "/analytics/expectation's expected live information ratio: its backtest's shrunk toward its family's "
            "(empirical Bayes) times decay's retention; null for a book other than long_short",
            term=terms.EXPECTED_LIVE_INFORMATION_RATIO,
        ),
    ]
    live_to_date: Annotated[
        float | None,
        figure(
            "/analytics/expectation's live information ratio to the last live week", term=terms.LIVE_TO_DATE
        ),
    ]
    predictive_lower: Annotated[
        float | None,
        figure(
            "/analytics/expectation's lower bound of the 90% interval of the live figure over as many sessions",
            term=terms.PREDICTIVE_LOWER,
        ),
    ]
    predictive_upper: Annotated[float | None, figure("Its upper bound", term=terms.PREDICTIVE_UPPER)]
    percentile: Annotated[
        float | None,
        figure(
            "/analytics/expectation's percentile of live_to_date in that predictive distribution (0 to 100)",
            term=terms.PERCENTILE,
        ),
    ]
    cusum_state: Annotated[ChartState, figure("The book return chart's state, as /analytics/monitoring")]
    ic_cusum_state: Annotated[ChartState, figure("The IC chart's state, as /analytics/monitoring")]
    cusum_statistic: Annotated[
        float | None,
        figure("The book return chart's statistic after the last live week", term=terms.CUSUM_STATISTIC),
    ]
    last_alarm: Annotated[dt.date | None, figure("The latest live week either chart crossed its threshold")]
    false_discovery_probability: Annotated[
        float | None,
        figure(
            "The posterior probability that the approval was a false discovery (the paper's oFDR): of no skill, "
            "given a backtest information ratio at least the one observed over its backtest sessions (per-session "
            "ratios)",
            "p0 (1 - p) / (p0 (1 - p) + p1 p)",
            term=terms.FALSE_DISCOVERY_PROBABILITY,
        ),
    ]
    mmc_mean: Annotated[
        float | None,
        figure("/analytics/mmc mmc_mean, whole history: what it adds to the others", term=terms.MMC_MEAN),
    ]
    correlation_to_combined_mean: Annotated[
        float | None,
        figure(
            "/analytics/mmc correlation_to_combined_mean, whole history: how crowded its scores are with the others'",
            term=terms.CORRELATION_TO_COMBINED_MEAN,
        ),
    ]
    signals: Annotated[
        list[HealthSignal] | None,
        figure(
            "Every signal the verdict is made of, in the order of SignalName; null for an event's reader that may "
            "not read one of them"
        ),
    ]
    verdict: Annotated[HealthVerdict | None, figure(f"Is it still working? The one verdict: {VERDICT_RULE}")]
    verdict_reason: Annotated[
        str | None, figure("The verdict in words: the signals that fail, or what in_control rests on")
    ]
    withheld_reason: Annotated[
        str | None,
        figure("Why some of its figures are null for this key (a route or a kind it may not read)"),
    ]


class ApprovedHealth(Body, kw_only=True, frozen=True):
    """`/v1/analytics/approved_health`."""

    book: Annotated[str, figure("The book watched")]
    approved_count: Annotated[
        int, figure("The approved alphas in force the key may read", term=terms.APPROVED_COUNT)
    ]
    alarm_count: Annotated[int, figure("Of those, how many have a chart in alarm", term=terms.ALARM_COUNT)]
    failing_count: Annotated[int, figure("Of those, how many the verdict calls failing (verdict_rule)")]
    verdict_rule: Annotated[str, figure("The one rule each row's verdict follows")] = VERDICT_RULE
    ir_fall_detected: Annotated[
        float,
        figure(
            "The fall the charts are designed to detect (the operator's policy)", term=terms.IR_FALL_DETECTED
        ),
    ]
    arl0_weeks: Annotated[
        float,
        figure("The charts' in-control average run length (the operator's policy)", term=terms.ARL0_WEEKS),
    ]
    arl1_weeks: Annotated[
        float,
        figure(
            "The detection delay: the expected weeks a chart takes to alarm once the information ratio has fallen by "
            "ir_fall_detected (Siegmund's approximation, as /analytics/monitoring arl1_weeks)",
            term=terms.ARL1_WEEKS,
        ),
    ]
    false_alarm_probability_per_year: Annotated[
        float,
        figure(
            "The probability that one unchanged alpha's chart alarms within a year",
            term=terms.FALSE_ALARM_PROBABILITY_PER_YEAR,
        ),
    ]
    expected_false_alarms_per_year: Annotated[
        float,
        figure(
            "The false alarms a year the book's return charts raise on average if every approved alpha still works",
            "approved_count * 52 / arl0_weeks",
            term=terms.EXPECTED_FALSE_ALARMS_PER_YEAR,
        ),
    ]
    false_discovery: Annotated[
        FalseDiscoveryPrior, figure("What the false-discovery probabilities are computed with")
    ]
    alphas: Annotated[
        list[AlphaHealth],
        figure("Every approved alpha in force the key may read, failing first, then in alarm, then by id"),
    ]
