"""Probabilistic and Deflated Sharpe ratios and the minimum track record length.

Bailey, D. H. and López de Prado, M. (2012), "The Sharpe Ratio Efficient Frontier", Journal of
Risk 15(2): PSR and MinTRL. Bailey, D. H. and López de Prado, M. (2014), "The Deflated Sharpe
Ratio", Journal of Portfolio Management 40(5): DSR. Sharpe ratios here are per observation
(per session), never annualised; skewness and kurtosis are the sample moments (biased
estimators, kurtosis not in excess), as in the papers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analytics.variance import measurable_std

EULER_GAMMA = 0.5772156649015329
MIN_TRL_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Moments:
    n: int
    sharpe: float  # mean / std(ddof=1), per observation
    skewness: float
    kurtosis: float  # Pearson (3 for a normal distribution)


def moments(returns: np.ndarray) -> Moments | None:
    """The moments of the finite returns; None below 3 values or without measurable variance
    (`analytics.variance`: a near-constant series has no Sharpe ratio, never one of 1e15)."""
    x = returns[np.isfinite(returns)]
    if x.size < 3:
        return None
    sd = measurable_std(x)
    if not math.isfinite(sd):
        return None
    return Moments(
        n=int(x.size),
        sharpe=float(np.mean(x)) / sd,
        skewness=float(stats.skew(x, bias=True)),
        kurtosis=float(stats.kurtosis(x, fisher=False, bias=True)),
    )


def _dispersion(m: Moments) -> float:
    """1 - skew * SR + (kurtosis - 1) / 4 * SR^2: the variance factor of the Sharpe estimate."""
    return 1.0 - m.skewness * m.sharpe + (m.kurtosis - 1.0) / 4.0 * m.sharpe**2


def psr(m: Moments, benchmark: float) -> float:
    """P(true Sharpe > benchmark) = Phi((SR - SR*) sqrt(n - 1) / sqrt(dispersion))."""
    d = _dispersion(m)
    if not d > 0:
        return math.nan
    return float(stats.norm.cdf((m.sharpe - benchmark) * math.sqrt(m.n - 1) / math.sqrt(d)))


def min_track_record(m: Moments, benchmark: float, confidence: float = MIN_TRL_CONFIDENCE) -> float:
    """Observations needed for PSR(benchmark) to reach `confidence`:
    1 + dispersion * (z_confidence / (SR - SR*))^2; NaN when SR <= SR*."""
    if not m.sharpe > benchmark:
        return math.nan
    z = float(stats.norm.ppf(confidence))
    return 1.0 + _dispersion(m) * (z / (m.sharpe - benchmark)) ** 2


def expected_max_sharpe(trials: int, sharpe_variance: float) -> float:
    """E[max of `trials` Sharpe ratios] under the null of no skill:
    sqrt(V) * ((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e)))."""
    if trials < 2 or not sharpe_variance >= 0:
        return math.nan
    n = float(trials)
    return math.sqrt(sharpe_variance) * (
        (1.0 - EULER_GAMMA) * float(stats.norm.ppf(1.0 - 1.0 / n))
        + EULER_GAMMA * float(stats.norm.ppf(1.0 - 1.0 / (n * math.e)))
    )


def dsr(m: Moments, trials: int, sharpe_variance: float) -> float:
    """PSR against the expected maximum Sharpe ratio of `trials` unskilled trials."""
    return psr(m, expected_max_sharpe(trials, sharpe_variance))
