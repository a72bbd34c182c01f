"""analytics/false_discovery.py against the paper's worked example and independent computations.

- The known answers of López de Prado, Lipton and Zoonekynd (2025) and their companion code
  (github.com/zoonek/2025-sharpe-ratio, `functions.py`'s tests): pFDR(0.05, 0.05, 0.315) = 0.581;
  for the hedge fund of their example (SR 0.036 / 0.079 a month over T = 24 months, skewness
  -2.448, kurtosis 10.164) the Sharpe ratio's standard error 0.329 (0.214 for normal returns),
  beta = 0.315 against SR1 = 0.5, oFDR = 0.306 at p = 0.05; with the code's divisor T (ddof 0).
- The power against a Monte Carlo of the test on normal returns (numpy, fixed seeds) within four
  standard errors, and against the exact power of the equivalent t-test (scipy's non-central t);
  the size at the null; the standard error against skewed (exponential) returns' Monte Carlo.
- pFDR against a simulated population of candidates, a share p of them true: the share of the
  approved that are false.
- Limits, monotonicity and refusals.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analytics.false_discovery import (
    approval_pfdr,
    critical_sharpe_ratio,
    ofdr,
    pfdr,
    sharpe_power,
    sharpe_ratio_sd,
)
from analytics.monitoring import WEEKS_PER_YEAR

SE_BOUND = 4.0
HEDGE_FUND = {"skewness": -2.448, "kurtosis": 10.164, "ddof": 0}
HEDGE_FUND_SHARPE = 0.036 / 0.079


# -- the paper's known answers -------------------------------------------------------------------


def test_pfdr_known_answer() -> None:
    assert round(pfdr(prior_true=0.05, alpha=0.05, beta=0.315), 3) == 0.581
    # by hand: 0.95 * 0.05 / (0.95 * 0.05 + 0.05 * 0.685) = 0.0475 / 0.08175
    assert pfdr(0.05, 0.05, 0.315) == pytest.approx(0.0475 / 0.08175, rel=1e-12)
    # the other reading of p (a prior of no skill) gives 0.004, not the paper's number
    assert pfdr(0.95, 0.05, 0.315) == pytest.approx(0.0025 / (0.0025 + 0.95 * 0.685), rel=1e-12)


def test_the_papers_worked_example() -> None:
    assert round(sharpe_ratio_sd(HEDGE_FUND_SHARPE, 24, **HEDGE_FUND), 3) == 0.329
    assert round(sharpe_ratio_sd(HEDGE_FUND_SHARPE, 24, ddof=0), 3) == 0.214
    beta = 1.0 - sharpe_power(0.0, 0.5, 24, **HEDGE_FUND)
    assert round(beta, 3) == 0.315
    assert round(approval_pfdr(0.05, 0.0, 0.5, 24, **HEDGE_FUND), 3) == 0.581
    assert round(ofdr(HEDGE_FUND_SHARPE, 0.0, 0.5, 24, 0.05, **HEDGE_FUND), 3) == 0.306
    # the T - 1 divisor (ddof 1, the project's PSR) moves beta to 0.326: the example needs T
    assert round(1.0 - sharpe_power(0.0, 0.5, 24, skewness=-2.448, kurtosis=10.164), 3) == 0.326


def test_the_standard_error_by_hand() -> None:
    # normal returns: (1 + SR^2 / 2) / (T - 1)
    assert sharpe_ratio_sd(0.2, 101) == pytest.approx(math.sqrt(1.02 / 100), rel=1e-14)
    assert sharpe_ratio_sd(0.2, 101, ddof=0) == pytest.approx(math.sqrt(1.02 / 101), rel=1e-14)
    # skewness 2, kurtosis 9 (exponential): 1 - 2 SR + 2 SR^2
    assert sharpe_ratio_sd(0.2, 101, skewness=2.0, kurtosis=9.0) == pytest.approx(
        math.sqrt(0.68 / 100), rel=1e-14
    )
    assert critical_sharpe_ratio(0.0, 101) == pytest.approx(stats.norm.ppf(0.95) / 10.0, rel=1e-12)


# -- limits and monotonicity ---------------------------------------------------------------------


def test_limits() -> None:
    for alpha, beta in ((0.05, 0.315), (0.01, 0.9), (0.5, 0.0), (0.05, 1.0)):
        assert pfdr(0.0, alpha, beta) == 1.0
    for alpha, beta in ((0.05, 0.315), (0.01, 0.9), (0.5, 0.0)):
        assert pfdr(1.0, alpha, beta) == 0.0
    assert pfdr(0.3, 0.05, 1.0) == 1.0  # a test without power approves only false candidates
    assert ofdr(0.3, 0.0, 0.5, 100, 0.0) == 1.0
    assert ofdr(0.3, 0.0, 0.5, 100, 1.0) == 0.0
    # far in both tails the logarithms still answer: H1's tail is the thicker, odds -> H1
    assert 0.0 <= ofdr(5.0, 0.0, 0.5, 1000, 0.05) < 1e-12
    assert ofdr(-5.0, 0.0, 0.5, 1000, 0.05) == pytest.approx(0.95, abs=1e-12)  # both tails ~ 1: the prior


def test_monotonicity() -> None:
    priors = np.linspace(0.0, 1.0, 21)
    assert np.all(np.diff([pfdr(p, 0.05, 0.3) for p in priors]) < 0)
    assert np.all(np.diff([pfdr(0.1, a, 0.3) for a in (0.001, 0.01, 0.05, 0.1, 0.5)]) > 0)
    assert np.all(np.diff([pfdr(0.1, 0.05, b) for b in np.linspace(0.0, 0.99, 12)]) > 0)
    sharpe = 1.0 / math.sqrt(WEEKS_PER_YEAR)
    assert np.all(np.diff([sharpe_power(0.0, sharpe, t) for t in (26, 52, 104, 260, 520)]) > 0)
    assert np.all(np.diff([sharpe_power(0.0, s, 156) for s in (0.05, 0.1, 0.2, 0.4)]) > 0)
    assert np.all(np.diff([sharpe_power(0.0, sharpe, 156, alpha=a) for a in (0.001, 0.01, 0.05, 0.1)]) > 0)
    observed = [ofdr(s, 0.0, 0.5, 24, 0.05, **HEDGE_FUND) for s in (0.1, 0.3, 0.456, 0.6, 1.0)]
    assert np.all(np.diff(observed) < 0)
    # at the null the power is the level
    assert sharpe_power(0.0, 0.0, 156, alpha=0.05) == pytest.approx(0.05, rel=1e-12)


# -- simulation ----------------------------------------------------------------------------------


def rejections(
    rng: np.random.Generator, sharpe: float, observations: int, paths: int, critical: float
) -> np.ndarray:
    """Normal returns of weekly Sharpe ratio `sharpe` (volatility 2% a week): whether each path's
    estimated Sharpe ratio (mean / std, ddof 1) exceeds the critical value."""
    returns = 0.02 * (sharpe + rng.standard_normal((paths, observations)))
    estimated = returns.mean(axis=1) / returns.std(axis=1, ddof=1)
    return estimated > critical


@pytest.mark.parametrize(("observations", "sharpe"), [(156, 1.0 / math.sqrt(WEEKS_PER_YEAR)), (104, 0.2)])
def test_power_against_monte_carlo_and_the_t_test(observations: int, sharpe: float) -> None:
    """Three years of weekly returns at IR 1 (power 0.53), two years at 0.2 a week (0.65)."""
    paths = 20_000
    rng = np.random.default_rng(observations)
    critical = critical_sharpe_ratio(0.0, observations, alpha=0.05)
    power = sharpe_power(0.0, sharpe, observations, alpha=0.05)
    found = rejections(rng, sharpe, observations, paths, critical).mean()
    assert abs(found - power) <= SE_BOUND * math.sqrt(power * (1 - power) / paths), (found, power)
    # exact: SR_hat sqrt(T) is non-central t with T - 1 degrees of freedom and non-centrality SR sqrt(T)
    root = math.sqrt(observations)
    exact = stats.nct.sf(critical * root, observations - 1, sharpe * root)
    assert power == pytest.approx(exact, abs=0.005)
    # the size at the null: about alpha (exactly, the t-test's tail beyond critical sqrt(T))
    size = rejections(rng, 0.0, observations, paths, critical).mean()
    assert abs(size - 0.05) <= SE_BOUND * math.sqrt(0.05 * 0.95 / paths), size
    assert stats.t.sf(critical * root, observations - 1) == pytest.approx(0.05, abs=0.001)


def test_the_standard_error_with_skewed_returns() -> None:
    """Exponential returns (skewness 2, kurtosis 9) at SR 0.2 over 520 weeks: Mertens's standard
    error, not the normal one (22% larger), is the spread of the estimates."""
    rng = np.random.default_rng(9)
    paths, observations, sharpe = 10_000, 520, 0.2
    returns = sharpe + rng.standard_exponential((paths, observations)) - 1.0
    estimated = returns.mean(axis=1) / returns.std(axis=1, ddof=1)
    spread = estimated.std(ddof=1)
    error = spread / math.sqrt(2 * (paths - 1))  # the standard error of a standard deviation
    expected = sharpe_ratio_sd(sharpe, observations, skewness=2.0, kurtosis=9.0)
    assert abs(spread - expected) <= SE_BOUND * error, (spread, expected)
    assert abs(spread - sharpe_ratio_sd(sharpe, observations)) > 20 * error


def test_pfdr_against_a_simulated_population() -> None:
    """20,000 candidates, 10% with a weekly Sharpe ratio of 0.2 and the rest none, each tested on
    two years of weekly returns at 5%: the share of false among the approved is approval_pfdr."""
    rng = np.random.default_rng(2025)
    candidates, prior, sharpe, observations = 20_000, 0.1, 0.2, 104
    true = rng.random(candidates) < prior
    critical = critical_sharpe_ratio(0.0, observations)
    returns = 0.02 * (np.where(true, sharpe, 0.0)[:, None] + rng.standard_normal((candidates, observations)))
    approved = returns.mean(axis=1) / returns.std(axis=1, ddof=1) > critical
    found = float(np.mean(~true[approved]))
    # the candidates' true share is itself drawn: condition on it
    expected = approval_pfdr(float(true.mean()), 0.0, sharpe, observations)
    assert expected == pytest.approx(approval_pfdr(prior, 0.0, sharpe, observations), abs=0.02)
    assert abs(found - expected) <= SE_BOUND * math.sqrt(expected * (1 - expected) / approved.sum()), (
        found,
        expected,
    )


def test_ofdr_by_hand() -> None:
    """p0 and p1 from scipy.stats.norm's tails at each hypothesis's standard error."""
    observed, null, alternative, observations, prior = 0.25, 0.0, 0.2, 104, 0.1
    sd0, sd1 = math.sqrt(1.0 / 103), math.sqrt(1.02 / 103)
    p0, p1 = stats.norm.sf(observed, null, sd0), stats.norm.sf(observed, alternative, sd1)
    expected = p0 * (1 - prior) / (p0 * (1 - prior) + p1 * prior)
    assert ofdr(observed, null, alternative, observations, prior) == pytest.approx(expected, rel=1e-10)


# -- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prior_true", "alpha", "beta", "message"),
    [
        (-0.1, 0.05, 0.3, "prior_true"),
        (1.1, 0.05, 0.3, "prior_true"),
        (math.nan, 0.05, 0.3, "prior_true"),
        (0.1, 0.0, 0.3, "alpha"),
        (0.1, 1.0, 0.3, "alpha"),
        (0.1, math.inf, 0.3, "alpha"),
        (0.1, 0.05, -0.01, "beta"),
        (0.1, 0.05, 1.5, "beta"),
        (1.0, 0.05, 1.0, "undefined"),
    ],
)
def test_pfdr_refuses_out_of_range(prior_true: float, alpha: float, beta: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pfdr(prior_true, alpha, beta)


def test_the_sharpe_functions_refuse_bad_inputs() -> None:
    with pytest.raises(ValueError, match="observations"):
        sharpe_ratio_sd(0.1, 1)
    with pytest.raises(ValueError, match="ddof"):
        sharpe_ratio_sd(0.1, 100, ddof=2)
    with pytest.raises(ValueError, match="kurtosis"):
        sharpe_ratio_sd(0.1, 100, skewness=2.0, kurtosis=3.0)
    # kurtosis 1 + skewness^2 (a two-point law): the factor (1 - skew SR / 2)^2 vanishes at SR = 2 / skew
    with pytest.raises(ValueError, match="variance factor"):
        sharpe_ratio_sd(1.0, 100, skewness=2.0, kurtosis=5.0)
    with pytest.raises(ValueError, match="sharpe"):
        sharpe_ratio_sd(math.nan, 100)
    with pytest.raises(ValueError, match="alpha"):
        sharpe_power(0.0, 0.1, 100, alpha=1.0)
    with pytest.raises(ValueError, match="true_sharpe"):
        sharpe_power(0.0, math.inf, 100)
    with pytest.raises(ValueError, match="must exceed"):
        ofdr(0.3, 0.5, 0.5, 100, 0.1)
    with pytest.raises(ValueError, match="prior_true"):
        ofdr(0.3, 0.0, 0.5, 100, 1.5)
    with pytest.raises(ValueError, match="prior_true"):
        approval_pfdr(-1.0, 0.0, 0.5, 100)
