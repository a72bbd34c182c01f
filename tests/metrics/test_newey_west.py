"""The Newey-West estimator against statsmodels' OLS-on-a-constant with HAC covariance."""

from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm

from analytics.newey_west import (
    MIN_N,
    InsufficientData,
    NonpositiveVariance,
    lag_rule,
    newey_west_mean,
)


def statsmodels_hac(y: np.ndarray, lag: int) -> tuple[float, float, float, float]:
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
    return float(fit.params[0]), float(fit.bse[0]), float(fit.tvalues[0]), float(fit.pvalues[0])


@pytest.mark.parametrize("n", [10, 11, 37, 60, 100, 290, 1450])
@pytest.mark.parametrize("min_lag", [0, 1, 3, 7])
def test_matches_statsmodels_hac(n: int, min_lag: int) -> None:
    rng = np.random.default_rng(n * 10 + min_lag)
    # An AR(1) series so the autocovariance terms matter.
    shocks = rng.normal(0.02, 0.1, n)
    y = np.empty(n, dtype=np.float64)
    y[0] = float(shocks[0])
    for step in range(1, n):
        y[step] = 0.4 * y[step - 1] + shocks[step]
    ours = newey_west_mean(y, min_lag=min_lag)
    mean, se, t, p = statsmodels_hac(y, ours.lag)
    assert ours.n == n
    assert ours.mean == pytest.approx(mean, rel=1e-12)
    assert ours.standard_error == pytest.approx(se, rel=1e-9)
    assert ours.t_statistic == pytest.approx(t, rel=1e-9)
    assert ours.p_value == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize(("n", "expected"), [(10, 2), (50, 3), (100, 4), (290, 5), (1450, 7), (5000, 9)])
def test_lag_rule_is_floor_4_n_over_100_to_2_9(n: int, expected: int) -> None:
    assert lag_rule(n) == expected == math.floor(4 * (n / 100) ** (2 / 9))


def test_lag_rule_respects_overlap_minimum_and_sample_size() -> None:
    assert lag_rule(100, min_lag=7) == 7  # 8-week overlapping horizon needs at least h-1
    assert lag_rule(12, min_lag=20) == 11  # never more lags than observations allow


def test_non_finite_values_are_dropped_not_imputed() -> None:
    rng = np.random.default_rng(1)
    y = rng.normal(0.01, 0.05, 40)
    with_gaps = y.copy()
    with_gaps[[3, 17]] = np.nan
    ours = newey_west_mean(with_gaps)
    assert ours.n == 38
    kept = y[np.isfinite(with_gaps)]
    assert ours.standard_error == pytest.approx(statsmodels_hac(kept, ours.lag)[1], rel=1e-9)


def test_refuses_short_series() -> None:
    with pytest.raises(InsufficientData):
        newey_west_mean(np.arange(MIN_N - 1, dtype=float))
    newey_west_mean(np.arange(MIN_N, dtype=float))  # exactly the minimum is accepted


def test_constant_series_has_no_t_statistic() -> None:
    with pytest.raises(NonpositiveVariance):
        newey_west_mean(np.full(30, 0.02))
