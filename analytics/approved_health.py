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
from schemas.bodies.approved_health import FalseDiscoveryPrior
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
