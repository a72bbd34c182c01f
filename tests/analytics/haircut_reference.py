"""The reference of analytics/haircut.py: mlfinlab's `CampbellBacktesting.haircut_sharpe_ratios`
(github.com/hudson-and-thames/mlfinlab, mlfinlab/backtest_statistics/backtests.py at commit
03b679cd16dd3b54982d108001a1878600e49df2), itself "based on the code provided by the authors" of
Harvey and Liu (2015), "Backtesting". Transcribed step for step (the same draws in the same order
from numpy's global generator, the same loops, the same quirks: Bonferroni over M, BHY's constant
over M and its largest p-value kept as it is, HLZ's 1,3xx-column multivariate normal of which
columns 1..M are used), not imported: the tests need no network and no mlfinlab (not a
dependency). Only the progress `print` is left out, the class is functions, and the correlated shocks are
drawn by their one-factor form (`equicorrelated_normal` says why).
Its test (tests/test_backtests.py there) is the known answer: SR 1 annualised, 120 monthly
observations, rho_a 0.1, M = 100, rho 0.4, np.random.seed(0), 400 simulations: adjusted p-values
0.465, 0.409, 0.174, 0.348 (Bonferroni, Holm, BHY, average) within 0.01. Nothing here imports
`analytics/`.
"""

from __future__ import annotations

import numpy as np
import scipy.stats as ss
from scipy import linalg

PER_YEAR = {"D": 360, "W": 52, "M": 12, "Q": 4, "A": 1}


def sample_random_multest(rho, n_trails, prob_zero_mean, lambd, n_simulations, annual_vol=0.15, n_obs=240):
    """HLZ's simulated t-statistics: (n_simulations, n_trails)."""
    monthly_volatility = annual_vol / 12 ** (1 / 2)
    correlation_vector = np.insert(rho * np.ones((1, n_trails - 1)), 0, 1)
    correlation_matrix = linalg.toeplitz(correlation_vector)
    mean = np.zeros(n_trails)
    covariance_matrix = correlation_matrix * (monthly_volatility**2 / n_obs)
    shock_mat = equicorrelated_normal(mean, covariance_matrix, n_simulations, rho)
    prob_vec = np.random.uniform(0, 1, (n_simulations, n_trails))
    mean_vec = np.random.exponential(lambd, (n_simulations, n_trails))
    nonzero_mean = prob_vec > prob_zero_mean
    mu_null = np.multiply(nonzero_mean, mean_vec)
    return abs(mu_null + shock_mat) / (monthly_volatility / n_obs ** (1 / 2))


def equicorrelated_normal(mean, covariance_matrix, n_simulations, rho):
    """The one departure from mlfinlab: its `np.random.multivariate_normal(mean, covariance_matrix,
    n_simulations)` factors the covariance by SVD through LAPACK, and this covariance (1 on the
    diagonal, rho elsewhere, times a scale) has one eigenvalue repeated n - 1 times, so the basis
    LAPACK picks in that eigenspace, and with it every draw, depends on the BLAS kernel the CPU
    selects (0.1625 against 0.174 on an AMD EPYC's Haswell kernel). The same distribution drawn
    by its one-factor form, sqrt(rho) z_0 + sqrt(1 - rho) z_i, scaled, takes no decomposition:
    the same draws from numpy's global generator on every x86-64 CPU."""
    scale = float(covariance_matrix[0, 0])
    assert np.allclose(covariance_matrix, scale * ((1 - rho) * np.eye(len(mean)) + rho), rtol=1e-12, atol=0)
    common = np.random.standard_normal((n_simulations, 1))
    own = np.random.standard_normal((n_simulations, len(mean)))
    return mean + np.sqrt(scale) * (np.sqrt(rho) * common + np.sqrt(1 - rho) * own)


def parameter_calculation(rho):
    """[rho, n_simulations, prob_zero_mean, lambd] interpolated in HLZ's table."""
    levels = np.array(
        [
            [0, 1295, 3.9660 * 0.1, 5.4995 * 0.001],
            [0.2, 1377, 4.4589 * 0.1, 5.5508 * 0.001],
            [0.4, 1476, 4.8604 * 0.1, 5.5413 * 0.001],
            [0.6, 1773, 5.9902 * 0.1, 5.5512 * 0.001],
            [0.8, 3109, 8.3901 * 0.1, 5.5956 * 0.001],
        ]
    )
    if rho < 0:
        return levels[1]
    if rho < 0.2:
        return ((0.2 - rho) / 0.2) * levels[0] + ((rho - 0) / 0.2) * levels[1]
    if rho < 0.4:
        return ((0.4 - rho) / 0.2) * levels[1] + ((rho - 0.2) / 0.2) * levels[2]
    if rho < 0.6:
        return ((0.6 - rho) / 0.2) * levels[2] + ((rho - 0.4) / 0.2) * levels[3]
    if rho < 0.8:
        return ((0.8 - rho) / 0.2) * levels[3] + ((rho - 0.6) / 0.2) * levels[4]
    if rho < 1.0:
        return ((0.8 - rho) / 0.2) * levels[3] + ((rho - 0.6) / 0.2) * levels[4]
    return levels[1]


def annualized_sharpe_ratio(
    sharpe_ratio, sampling_frequency="A", rho=0, annualized=False, autocorr_adjusted=False
):
    times_per_year = PER_YEAR.get(sampling_frequency, 1)
    annual_multiplier = 1 if annualized else times_per_year ** (1 / 2)
    if not autocorr_adjusted:
        autocorr_multiplier = (
            1 + (2 * rho / (1 - rho)) * (1 - ((1 - rho ** (times_per_year)) / (times_per_year * (1 - rho))))
        ) ** (-0.5)
    else:
        autocorr_multiplier = 1
    return sharpe_ratio * annual_multiplier * autocorr_multiplier


def monthly_observations(num_obs, sampling_frequency):
    if sampling_frequency in PER_YEAR:
        return np.floor(num_obs * 12 / PER_YEAR[sampling_frequency])
    return np.floor(num_obs)


def holm_method_sharpe(all_p_values, num_mult_test, p_val):
    p_holm_values = np.array([])
    for i in range(1, (num_mult_test + 2)):
        p_adjusted_holm = np.array([])
        for j in range(1, i + 1):
            p_adjusted_holm = np.append(p_adjusted_holm, (num_mult_test + 1 - j + 1) * all_p_values[j - 1])
        p_holm_values = np.append(p_holm_values, min(max(p_adjusted_holm), 1))
    return p_holm_values[all_p_values == p_val][0]


def bhy_method_sharpe(all_p_values, num_mult_test, p_val):
    p_bhy_values = np.array([])
    c_constant = sum(1 / np.arange(1, num_mult_test + 1))
    p_previous = None
    for i in range(num_mult_test + 1, 0, -1):
        if i == (num_mult_test + 1):
            p_adjusted = all_p_values[-1]
        else:
            p_adjusted = min(((num_mult_test + 1) * c_constant / i) * all_p_values[i - 1], p_previous)
        p_bhy_values = np.append(p_adjusted, p_bhy_values)
        p_previous = p_adjusted
    return p_bhy_values[all_p_values == p_val]


def sharpe_ratio_haircut(p_val, monthly_obs, sr_annual):
    z_score = ss.t.ppf(1 - p_val / 2, monthly_obs - 1)
    sr_adjusted = (z_score / monthly_obs ** (1 / 2)) * 12 ** (1 / 2)
    haircut = (sr_annual - sr_adjusted) / sr_annual * 100
    return (sr_adjusted, haircut)


def haircut_sharpe_ratios(
    sampling_frequency,
    num_obs,
    sharpe_ratio,
    annualized,
    autocorr_adjusted,
    rho_a,
    num_mult_test,
    rho,
    simulations=2000,
):
    """Rows: adjusted p-values, haircut Sharpe ratios, haircuts in percent; columns: Bonferroni,
    Holm, BHY, average. Draws from numpy's global generator (seed it first)."""
    sr_annual = annualized_sharpe_ratio(
        sharpe_ratio, sampling_frequency, rho_a, annualized, autocorr_adjusted
    )
    parameters = parameter_calculation(rho)
    monthly_obs = monthly_observations(num_obs, sampling_frequency)
    num_trails = int((np.floor(num_mult_test / parameters[1]) + 1) * np.floor(parameters[1] + 1))
    t_sample = sample_random_multest(parameters[0], num_trails, parameters[2], parameters[3], simulations)
    sr_monthly = sr_annual / 12 ** (1 / 2)
    t_ratio = sr_monthly * monthly_obs ** (1 / 2)
    p_val = 2 * (1 - ss.t.cdf(t_ratio, monthly_obs - 1))
    p_holm = np.ones(simulations)
    p_bhy = np.ones(simulations)
    for simulation_number in range(1, simulations + 1):
        t_values_simulation = t_sample[simulation_number - 1, 1 : (num_mult_test + 1)]
        p_values_simulation = 2 * (1 - ss.norm.cdf(t_values_simulation, 0, 1))
        all_p_values = np.sort(np.append(p_values_simulation, p_val))
        p_holm[simulation_number - 1] = holm_method_sharpe(all_p_values, num_mult_test, p_val)
        p_bhy[simulation_number - 1] = bhy_method_sharpe(all_p_values, num_mult_test, p_val)[0]
    p_val_adj = np.array([np.minimum(num_mult_test * p_val, 1), np.median(p_holm), np.median(p_bhy)])
    p_val_adj = np.append(p_val_adj, (p_val_adj[0] + p_val_adj[1] + p_val_adj[2]) / 3)
    sr_adj = np.zeros(4)
    haircut = np.zeros(4)
    for i in range(4):
        sr_adj[i], haircut[i] = sharpe_ratio_haircut(p_val_adj[i], monthly_obs, sr_annual)
    return np.array([p_val_adj, sr_adj, haircut])
