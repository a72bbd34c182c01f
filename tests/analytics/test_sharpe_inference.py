"""Sharpe inference to the 2025 standard (analytics/sharpe_inference.py): the paper's numeric
example and Bailey et al. (2014)'s expected maximum as known answers, and equality with the
paper's reference functions (tests/analytics/sharpe_reference.py, copied from
zoonek/2025-sharpe-ratio) on random inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from analytics import sharpe_inference as si
from tests.analytics import sharpe_reference as ref

# The paper's numeric example (a hedge fund's monthly returns): mu 0.036, sigma 0.079, T 24
SR = 0.036 / 0.079
T = 24
SKEW = -2.448
KURT = 10.164


def test_the_papers_numeric_example():
    """The figures the paper states, to the digits it gives (the reference's own tests
    `test_sharpe_ratio_variance`, `test_minimum_track_record_length`,
    `test_probabilistic_sharpe_ratio`, `test_sharpe_ratio_power`: at alpha 0.05 and i.i.d.)."""
    assert round(math.sqrt(float(si.sharpe_variance(SR, T, SKEW, KURT))), 3) == 0.329
    assert round(math.sqrt(float(si.sharpe_variance(SR, T, 0.0, 3.0))), 3) == 0.214  # if normal
    assert round(float(si.min_track_record(SR, 0.0, SKEW, KURT, alpha=0.05)), 3) == 13.029
    assert round(float(si.psr(SR, 0.0, T, SKEW, KURT)), 3) == 0.987
    assert round(float(si.psr(SR, 0.1, T, SKEW, KURT)), 3) == 0.939
    # The 0.315 is beta, the type II error: the reference asserts 1 - power == 0.315
    # (SR0 0, SR1 0.5, alpha 0.05), so the power is 0.685
    assert round(1.0 - float(si.power(0.0, 0.5, T, SKEW, KURT, alpha=0.05)), 3) == 0.315
    assert round(float(si.power(0.0, 0.5, T, SKEW, KURT, alpha=0.05)), 3) == 0.685


def test_the_numeric_example_as_the_reference_prints_it():
    """`test_numeric_example` of the reference (alpha 0.10, rho 0 and 0.2, K = 10 trials of variance
    0.1 for the DSR): the figures it prints, to its three digits."""
    printed = {  # rho: (sd, MinTRL, MinTRL(0.1), PSR(0), PSR(0.1), SR_c, power, E[max], DSR)
        0.0: (0.329, 7.909, 16.456, 0.987, 0.939, 0.262, 0.758, 0.498, 0.416),
        0.2: (0.379, 11.863, 23.899, 0.966, 0.900, 0.320, 0.676, 0.498, 0.427),
    }
    for rho, expected in printed.items():
        got = (
            math.sqrt(float(si.sharpe_variance(SR, T, SKEW, KURT, rho))),
            float(si.min_track_record(SR, 0.0, SKEW, KURT, rho, alpha=0.10)),
            float(si.min_track_record(SR, 0.1, SKEW, KURT, rho, alpha=0.10)),
            float(si.psr(SR, 0.0, T, SKEW, KURT, rho)),
            float(si.psr(SR, 0.1, T, SKEW, KURT, rho)),
            float(si.critical_sharpe(0.0, T, SKEW, KURT, rho, alpha=0.10)),
            float(si.power(0.0, 0.5, T, SKEW, KURT, rho, alpha=0.10)),
            si.expected_max_sharpe(10, 0.1),
            si.dsr(SR, T, SKEW, KURT, rho, 10, 0.1),
        )
        assert tuple(round(g, 3) for g in got) == expected, rho


def test_bailey_2014_expected_maximum():
    """Bailey et al. (2014): the expected maximum of N = 10 standard normal Sharpe ratios (V = 1)
    is 1.575 by the Gumbel approximation (the reference's `expected_maximum_sharpe_ratio`; the
    exact E[M_10] of `moments_Mk` is 1.539)."""
    assert round(si.expected_max_sharpe(10, 1.0), 3) == 1.575
    assert si.expected_max_sharpe(10, 1.0) == pytest.approx(
        ref.expected_maximum_sharpe_ratio(10, 1.0), abs=1e-12
    )
    assert round(si.max_moments(10)[0], 3) == 1.539
    assert math.isnan(si.expected_max_sharpe(1, 1.0))  # one trial has no maximum to deflate by


def _inputs(rng: np.random.Generator) -> tuple[float, float, float, float, float, int]:
    """A random Sharpe ratio, benchmark, skewness, kurtosis (at least skew^2 + 1, as any
    distribution's), rho and T."""
    skew = rng.uniform(-3.0, 1.0)
    return (
        rng.uniform(-0.3, 0.6),
        rng.uniform(-0.2, 0.3),
        skew,
        skew**2 + 1.0 + rng.uniform(0.0, 12.0),
        rng.uniform(-0.6, 0.6),
        int(rng.integers(12, 3000)),
    )


def test_equal_to_the_reference_functions_on_random_inputs():
    rng = np.random.default_rng(62)
    checked = 0
    for _ in range(300):
        sr, sr0, skew, kurt, rho, t = _inputs(rng)
        k = int(rng.integers(1, 60))
        moments = {"gamma3": skew, "gamma4": kurt, "rho": rho}
        if float(si.variance_factor(sr, skew, kurt, rho)) > 0:  # else the reference's variance is < 0
            assert float(si.sharpe_variance(sr, t, skew, kurt, rho, k)) == pytest.approx(
                ref.sharpe_ratio_variance(sr, t, K=k, **moments), rel=1e-8
            )
        if float(si.variance_factor(sr0, skew, kurt, rho)) > 0:
            checked += 1
            assert float(si.psr(sr, sr0, t, skew, kurt, rho, k)) == pytest.approx(
                ref.probabilistic_sharpe_ratio(sr, sr0, T=t, K=k, **moments), rel=1e-8, abs=1e-12
            )
            assert float(si.critical_sharpe(sr0, t, skew, kurt, rho, 0.05, k)) == pytest.approx(
                ref.critical_sharpe_ratio(sr0, t, K=k, **moments), rel=1e-9
            )
            trl = float(si.min_track_record(sr, sr0, skew, kurt, rho))
            if sr > sr0:
                assert trl == pytest.approx(ref.minimum_track_record_length(sr, sr0, **moments), rel=1e-10)
            else:
                assert math.isnan(trl)  # no track record suffices
            sr1 = sr0 + abs(sr) + 0.01
            if float(si.variance_factor(sr1, skew, kurt, rho)) > 0:
                assert float(si.power(sr0, sr1, t, skew, kurt, rho)) == pytest.approx(
                    ref.sharpe_ratio_power(sr0, sr1, t, **moments), rel=1e-8, abs=1e-12
                )
        v = rng.uniform(1e-4, 0.05)
        n = int(rng.integers(2, 100))
        sr0_max = ref.expected_maximum_sharpe_ratio(n, v)
        assert si.expected_max_sharpe(n, v) == pytest.approx(sr0_max, rel=1e-12)
        if float(si.variance_factor(sr0_max, skew, kurt, rho)) > 0:
            assert si.dsr(sr, t, skew, kurt, rho, n, v) == pytest.approx(
                ref.probabilistic_sharpe_ratio(sr, sr0_max, T=t, K=n, **moments), rel=1e-7, abs=1e-12
            )
    assert checked > 200  # the draws mostly have a positive variance factor


def test_vectorised_as_elementwise():
    rng = np.random.default_rng(5520741)
    rows = np.array([_inputs(rng) for _ in range(50)])
    sr, sr0, skew, kurt, rho, t = rows.T
    np.testing.assert_array_equal(
        si.psr(sr, sr0, t, skew, kurt, rho),
        [float(si.psr(a, b, n, g3, g4, r)) for a, b, g3, g4, r, n in rows],
    )
    np.testing.assert_array_equal(
        si.min_track_record(sr, sr0, skew, kurt, rho),
        [float(si.min_track_record(a, b, g3, g4, r)) for a, b, g3, g4, r, _ in rows],
    )


def test_moments_of_the_maximum_as_the_reference_where_its_quadrature_holds():
    """Up to K = 100 the reference's 200-node Gauss-Hermite rule is exact to ~1e-9: equal there."""
    for k in (1, 2, 3, 5, 10, 30, 100):
        mean, variance = si.max_moments(k)
        ez, _, var = ref.moments_Mk(k)
        assert mean == pytest.approx(ez, abs=1e-8)
        assert variance == pytest.approx(var, rel=1e-7)
    # Equicorrelated: the variance as the reference's (its mean scales by 1 - rho, not sqrt(1 - rho))
    assert si.max_moments(10, 0.3)[1] == pytest.approx(ref.moments_Mk(10, rho=0.3)[2], rel=1e-7)
    assert si.max_moments(10, 0.3)[0] == pytest.approx(math.sqrt(0.7) * ref.moments_Mk(10)[0], rel=1e-9)


@pytest.mark.parametrize("k", [10**3, 10**4, 10**5, 10**6])
def test_moments_of_the_maximum_at_a_catalogues_trial_count(k: int):
    """Where the reference's quadrature drifts (3% on the variance at 10^5, 33% at 10^6), the grid
    holds: scipy's adaptive quadrature of k phi Phi^(k-1) as the independent answer."""

    def moment(r: int) -> float:
        def f(x: float) -> float:
            return float(x**r * math.exp(math.log(k) + stats.norm.logpdf(x) + (k - 1) * stats.norm.logcdf(x)))

        mode = math.sqrt(2.0 * math.log(k))
        return float(integrate.quad(f, -12.0, 14.0, points=[mode], limit=500, epsabs=1e-13)[0])

    m1 = moment(1)
    mean, variance = si.max_moments(k)
    assert mean == pytest.approx(m1, rel=1e-9)
    assert variance == pytest.approx(moment(2) - m1 * m1, rel=1e-7)


def test_serial_correlation_as_the_reference_estimates_it():
    rng = np.random.default_rng(1)
    e = rng.standard_normal(4000)
    x = np.empty_like(e)
    x[0] = e[0]
    for i in range(1, x.size):  # AR(1) at 0.3
        x[i] = 0.3 * x[i - 1] + e[i]
    assert si.serial_correlation(x) == pytest.approx(ref.autocorrelation(x), rel=1e-12)
    assert si.serial_correlation(x) == pytest.approx(0.3, abs=0.05)
    assert math.isnan(si.serial_correlation(np.ones(10)))
    assert math.isnan(si.serial_correlation(np.array([0.1, 0.2])))


def test_serial_correlation_widens_the_sharpe_ratios_variance():
    """Positive autocorrelation inflates the variance (a = (1 + rho) / (1 - rho) > 1), negative
    shrinks it; no variance where |rho| >= 1."""
    base = float(si.sharpe_variance(0.1, 252, 0.0, 3.0))
    assert float(si.sharpe_variance(0.1, 252, 0.0, 3.0, 0.3)) > base
    assert base > float(si.sharpe_variance(0.1, 252, 0.0, 3.0, -0.3))
    assert math.isnan(float(si.sharpe_variance(0.1, 252, 0.0, 3.0, 1.0)))


def test_the_minimum_backtest_length_of_bailey_et_al():
    """Bailey, Borwein, López de Prado and Zhu (2014): with 5 years of daily data, no more than 45
    independent configurations should be tried for an annualised Sharpe ratio of 1 (MinBTL about 5
    years at N = 45), and 10^5 trials need about 19 years (issue 62: "a Sharpe of 1.0 needs 19
    years at 10^5 trials"); it scales as 1 / SR^2."""
    assert round(si.min_backtest_length(45, 1.0), 2) == 5.0
    assert round(si.min_backtest_length(100_000, 1.0), 1) == 19.3
    assert math.isclose(si.min_backtest_length(1000, 2.0), si.min_backtest_length(1000, 1.0) / 4)
    assert math.isnan(si.min_backtest_length(1, 1.0)) and math.isnan(si.min_backtest_length(100, -0.5))
