"""Newey-West (Bartlett kernel) standard error of the mean of one series.

What it matches: statsmodels `OLS(y, ones).fit(cov_type="HAC", cov_kwds={"maxlags": lag})` with
its defaults, i.e. no small-sample correction (`use_correction=False`) and a two-sided p-value
from the standard normal (`use_t=False`). For a constant regressor the sandwich reduces to

    S = sum_t e_t^2 + 2 * sum_{j=1..L} (1 - j/(L+1)) * sum_{t>j} e_t e_{t-j},   e = y - mean(y)
    standard_error = sqrt(S) / n

Lag rule: L = floor(4 * (n/100)^(2/9)) (Newey and West 1994), raised to at least `min_lag` (h-1
for a series of overlapping h-week returns) and capped at n-1. Series shorter than `MIN_N`
observations are refused: the estimate is meaningless there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from schemas.bodies.metrics import NEWEY_WEST_MIN_N

MIN_N = NEWEY_WEST_MIN_N


def lag_rule(n: int, min_lag: int = 0) -> int:
    lag = math.floor(4.0 * (n / 100.0) ** (2.0 / 9.0))
    return max(0, min(max(lag, min_lag), n - 1))


@dataclass(frozen=True)
class NeweyWest:
    lag: int
    n: int
    mean: float
    standard_error: float
    t_statistic: float
    p_value: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "lag": self.lag,
            "n": self.n,
            "mean": self.mean,
            "standard_error": self.standard_error,
            "t_statistic": self.t_statistic,
            "p_value": self.p_value,
        }


def long_run_sum(u: np.ndarray, lag: int) -> float:
    """The Bartlett-weighted sum of `u`'s autocovariances up to `lag` (not divided by n):
    sum_t u_t^2 + 2 * sum_{j=1..lag} (1 - j/(lag+1)) * sum_{t>j} u_t u_{t-j}. With u = e, the
    deviations from the mean, it is the long-run variance of the mean times n^2; with u_t = (a'x_t) e_t,
    a the intercept's row of (X'X)^-1, the Newey-West variance of an OLS intercept
    (`analytics.residual`), statsmodels' `S_hac_simple` taken in the direction a."""
    total = float(u @ u)
    for j in range(1, lag + 1):
        total += 2.0 * (1.0 - j / (lag + 1.0)) * float(u[j:] @ u[:-j])
    return total


class InsufficientData(ValueError):
    """Fewer than MIN_N finite observations."""


class NonpositiveVariance(ValueError):
    """The long-run variance is zero (a constant series): no t statistic exists."""


def newey_west_mean(values: np.ndarray, min_lag: int = 0) -> NeweyWest:
    """HAC inference on the mean of `values`, which must already be in date order.

    Non-finite values are dropped first (null weeks are never imputed).
    """
    y = np.asarray(values, dtype=np.float64)
    y = y[np.isfinite(y)]
    n = int(y.size)
    if n < MIN_N:
        raise InsufficientData(f"{n} observations; Newey-West needs at least {MIN_N}")
    lag = lag_rule(n, min_lag)
    mean = float(y.mean())
    e = y - mean
    return estimate(n, lag, mean, long_run_sum(e, lag), float(np.ptp(y)) == 0.0)


def estimate(n: int, lag: int, mean: float, long_run: float, constant: bool) -> NeweyWest:
    """The test from its sums: `long_run` is `long_run_sum` of the deviations from `mean` (however
    it was summed: `analytics.windows` sums it from prefix sums); `constant`, whether every value
    was the same."""
    # A constant series leaves only rounding noise in e; treat it as the zero it is.
    if not long_run > 0.0 or constant:
        raise NonpositiveVariance(f"long-run variance {long_run!r} over {n} observations")
    standard_error = math.sqrt(long_run) / n
    t_statistic = mean / standard_error
    p_value = math.erfc(abs(t_statistic) / math.sqrt(2.0))
    return NeweyWest(lag, n, mean, standard_error, t_statistic, p_value)
