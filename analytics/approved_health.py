"""The approved book's health (`/v1/analytics/approved_health`, issue 59 item 4): every approved
alpha the reader may read, its live track against what its approval expects, its CUSUM's state
and last alarm (`analytics.monitoring`), the probability that its approval was a false discovery
(`analytics.false_discovery`), and what it adds to the others (`analytics.mmc`).

The figures are the routes' own answers, asked by `analytics.reading.Reading.approved_health` in
the reader's scope (the expected live ratio, its predictive interval and the live ratio's
percentile in it: `/analytics/expectation`'s); what is computed here is only what no route serves:
the false-discovery probability and this deployment's prior.

The false-discovery prior. López de Prado, Lipton and Zoonekynd (2025) need p, the prior share of
true strategies among those tried, and the Sharpe ratio of a true one. A deployment learns both from
its decisions and live outcomes: of its approved alphas with a measured live ratio, a share s is
positive; a strategy of no skill is positive half the time, so 2 s - 1 of them are true; dividing
the true discoveries by the test's power against the true ratio (the mean of the positive live
ratios, at the median backtest length in sessions) gives the true candidates, and over every
candidate, p. Ratios are per session of each run's own calendar (its `metric_conventions`). Below `DEPLOYMENT_MIN_ALPHAS` such
alphas, the paper's worked example (p = 0.05, a true Sharpe ratio of 0.5 a month) and the answer
says so (`basis`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytics import sharpe_inference, significance
from schemas.bodies.approved_health import (
    FalseDiscoveryPrior,
    HealthSignal,
    HealthVerdict,
    SignalName,
    SignalState,
)
from schemas.bodies.decisions import CheckResult
from schemas.bodies.live import LiveConsistency
from schemas.bodies.monitoring import CusumChart
from schemas.conventions import SESSIONS_PER_YEAR

DEPLOYMENT_MIN_ALPHAS = 10
"""Approved alphas with a measured live ratio below which the paper's prior is used."""

PAPER_PRIOR_TRUE = 0.05
PAPER_TRUE_SHARPE_PER_MONTH = 0.5
MONTHS_PER_YEAR = 12
TEST_LEVEL = 0.05
"""The one-sided level the approval's test is taken to have (the paper's)."""


@dataclass(frozen=True)
class Outcome:
    """One approved alpha's record: its live information ratio (annualised), its backtest's
    sessions and its run's sessions a year (its `metric_conventions`)."""

    live_information_ratio: float
    backtest_sessions: int
    sessions_per_year: int = SESSIONS_PER_YEAR


def prior_of(outcomes: list[Outcome], candidates: int) -> FalseDiscoveryPrior:
    """The false-discovery prior of a deployment whose approved alphas had `outcomes` among
    `candidates` alphas tried (see the module's docstring)."""
    decided = len(outcomes)
    if decided < DEPLOYMENT_MIN_ALPHAS or candidates < 1:
        return FalseDiscoveryPrior(
            basis="paper",
            decided_alphas=decided,
            candidates=candidates,
            prior_true_share=PAPER_PRIOR_TRUE,
            true_information_ratio=PAPER_TRUE_SHARPE_PER_MONTH * math.sqrt(MONTHS_PER_YEAR),
        )
    live = np.array([o.live_information_ratio for o in outcomes])
    share_positive = float(np.mean(live > 0))
    true_ir = float(np.mean(live[live > 0])) if np.any(live > 0) else 0.0
    sessions = int(np.median([o.backtest_sessions for o in outcomes]))
    per_year = float(np.median([o.sessions_per_year for o in outcomes]))
    # The significance route's power (`sharpe_inference.power`: T sessions), of a typical test of
    # the deployment: no one alpha's returns, so normal ones (skewness 0, kurtosis 3, no serial
    # correlation)
    power = (
        float(sharpe_inference.power(0.0, true_ir / math.sqrt(per_year), sessions, 0.0, 3.0, 0.0, TEST_LEVEL))
        if true_ir > 0 and sessions > 1
        else 1.0
    )
    true_discoveries = decided * max(0.0, 2.0 * share_positive - 1.0)
    prior = min(1.0, max(1.0 / candidates, true_discoveries / max(power, 1e-12) / candidates))
    return FalseDiscoveryPrior(
        basis="deployment",
        decided_alphas=decided,
        candidates=candidates,
        prior_true_share=prior,
        true_information_ratio=true_ir,
    )


def false_discovery_probability(
    backtest: significance.Moments | None, sessions_per_year: int, prior: FalseDiscoveryPrior
) -> float | None:
    """The paper's oFDR of an approval whose backtest's daily returns have the moments `backtest`
    (`significance.moments` of the in-sample part): asked of the significance route's formula
    (`significance.ofdr`: its sample moments, T and AR(1)), per-session ratios, H0 no skill, H1 the
    prior's true ratio; None where that route's Sharpe inference is not measurable."""
    if backtest is None or sharpe_inference.inference_reason(backtest.n) is not None:
        return None
    if not prior.true_information_ratio > 0:
        return None
    found = significance.ofdr(
        backtest, 0.0, prior.true_information_ratio / math.sqrt(sessions_per_year), prior.prior_true_share
    )
    return found if math.isfinite(found) else None


# -- is it still working? The one verdict (issue 81, item 5) -----------------------------------------


def check_signal(check: CheckResult) -> HealthSignal:
    """A live check of /analytics/checks as a signal: its verdict, its value, its reason."""
    state: SignalState = (
        "pass" if check.verdict == "pass" else "fail" if check.verdict == "fail" else "not_measurable"
    )
    name: SignalName = "live_information_ratio" if check.id == "live_information_ratio" else "decay_ratio"
    return HealthSignal(
        signal=name, state=state, value=check.value, reason=None if state == "pass" else check.reason
    )


def consistency_signal(consistency: LiveConsistency) -> HealthSignal:
    """/analytics/live's consistency test as a signal: inconsistent fails."""
    psr = consistency.probability
    if consistency.verdict == "consistent":
        return HealthSignal(signal="consistency", state="pass", value=psr.value, reason=None)
    if consistency.verdict == "inconsistent":
        reason = f"the live part is inconsistent with the backtest: PSR below {consistency.level:g}"
        return HealthSignal(signal="consistency", state="fail", value=psr.value, reason=reason)
    return HealthSignal(
        signal="consistency",
        state="not_measurable",
        value=None,
        reason=psr.withheld_reason or "not measurable",
    )


def chart_signal(chart: CusumChart) -> HealthSignal:
    """A CUSUM chart of /analytics/monitoring as a signal: in alarm fails."""
    name: SignalName = "book_return_cusum" if chart.series == "book_return" else "ic_cusum"
    if chart.state == "alarm":
        reason = f"in alarm since {chart.alarms[-1].isoformat()}" if chart.alarms else "in alarm"
        return HealthSignal(signal=name, state="fail", value=chart.cusum_statistic, reason=reason)
    if chart.state == "in_control":
        return HealthSignal(signal=name, state="pass", value=chart.cusum_statistic, reason=None)
    return HealthSignal(
        signal=name, state="not_measurable", value=None, reason=chart.withheld_reason or "not measurable"
    )


def unmeasured_signal(name: SignalName, reason: str) -> HealthSignal:
    return HealthSignal(signal=name, state="not_measurable", value=None, reason=reason)


def verdict(signals: list[HealthSignal], arl1_weeks: float, ir_fall: float) -> tuple[HealthVerdict, str]:
    """The one verdict of a row and its words, by `VERDICT_RULE` (declared with the schema, served in
    every answer): failing when any signal fails, in_control when none fails and one is measured,
    else not_measurable."""
    failing = [s for s in signals if s.state == "fail"]
    if failing:
        return "failing", "; ".join(f"{s.signal}: {s.reason}" for s in failing)
    passed = [s.signal for s in signals if s.state == "pass"]
    if passed:
        return "in_control", (
            f"no signal fails ({', '.join(passed)} pass; the others are not measurable yet); a fall of the "
            f"information ratio by {ir_fall:g} takes the CUSUM {arl1_weeks:.0f} weeks on average to see"
        )
    return "not_measurable", "no signal is measured yet"
