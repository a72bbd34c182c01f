"""The reference code of López de Prado, Lipton and Zoonekynd (2025), "Sharpe Ratio Inference: A New
Standard for Reporting and Decision-Making" (SSRN 5520741): the functions of
github.com/zoonek/2025-sharpe-ratio, functions.py at commit 6199ecb1c84da7eee7bd81d9a017cf12b8ff0e0d,
copied as written (code by Vincent Zoonekynd; only the type hints' `float = None` and the
`autocorrelation` of one series instead of a matrix's mean are adapted), so the tests need no
network and no import of the reference's plotting and clustering dependencies. The independent
reference of analytics/sharpe_inference.py and of the significance route's PSR, MinTRL and DSR
(tests/analytics/reference.py): nothing here imports `analytics/`.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.stats


def make_expectation_gh(n_nodes=200):
    """E[g(Z)], Z ~ N(0, 1), by Gauss-Hermite: (1/sqrt(pi)) sum w_i g(sqrt(2) t_i)."""
    nodes, weights = np.polynomial.hermite.hermgauss(n_nodes)
    scale = np.sqrt(2.0)
    norm = 1.0 / np.sqrt(np.pi)
    x = scale * nodes

    def E(g):
        vals = g(x)
        return norm * np.dot(weights, vals)

    return E


E_under_normal = make_expectation_gh(n_nodes=200)


def moments_Mk(k, *, rho=0):
    """Moments of M_k = Max(Z_1, ..., Z_k), the Z_i N(0, 1), equicorrelated at rho: (E, E^2, Var)."""
    Phi = scipy.stats.norm.cdf
    Ez = E_under_normal(lambda z: k * z * (Phi(z) ** (k - 1)))
    Ez2 = E_under_normal(lambda z: k * z * z * (Phi(z) ** (k - 1)))
    var = Ez2 - Ez**2

    Ez = (1 - rho) * Ez
    var = rho + (1 - rho) * var
    Ez2 = var + Ez**2

    return Ez, Ez2, var


def autocorrelation(x):
    """The lag-1 autocorrelation of one series (the reference's `autocorrelation` of a matrix is the
    mean of this over its columns)."""
    return np.corrcoef(x[1:], x[:-1])[0, 1]


def sharpe_ratio_variance(SR, T, *, gamma3=0.0, gamma4=3.0, rho=0.0, K=1):
    A = 1
    B = rho / (1 - rho)
    C = rho**2 / (1 - rho**2)
    a = A + 2 * B
    b = A + B + C
    c = A + 2 * C
    V = (a * 1 - b * gamma3 * SR + c * (gamma4 - 1) / 4 * SR**2) / T
    return V * moments_Mk(K)[2]


def minimum_track_record_length(SR, SR0, *, gamma3=0.0, gamma4=3.0, rho=0.0, alpha=0.05):
    return (
        sharpe_ratio_variance(SR0, T=1, gamma3=gamma3, gamma4=gamma4, rho=rho, K=1)
        * (scipy.stats.norm.ppf(1 - alpha) / (SR - SR0)) ** 2
    )


def probabilistic_sharpe_ratio(SR, SR0, *, variance=None, T=None, gamma3=0.0, gamma4=3.0, rho=0.0, K=1):
    if variance is None:
        variance = sharpe_ratio_variance(SR0, T, gamma3=gamma3, gamma4=gamma4, rho=rho, K=K)
    else:
        assert T is None, "Provide either the variance or (T, gamma3, gamma4, rho)"
    return scipy.stats.norm.cdf((SR - SR0) / math.sqrt(variance))


def critical_sharpe_ratio(SR0, T, *, gamma3=0.0, gamma4=3.0, rho=0.0, alpha=0.05, K=1):
    variance = sharpe_ratio_variance(SR0, T, gamma3=gamma3, gamma4=gamma4, rho=rho, K=K)
    return SR0 + scipy.stats.norm.ppf(1 - alpha) * math.sqrt(variance)


def sharpe_ratio_power(SR0, SR1, T, *, gamma3=0.0, gamma4=3.0, rho=0.0, alpha=0.05, K=1):
    critical_SR = critical_sharpe_ratio(SR0, T, gamma3=gamma3, gamma4=gamma4, rho=rho, alpha=alpha)
    variance = sharpe_ratio_variance(SR1, T, gamma3=gamma3, gamma4=gamma4, rho=rho, K=K)
    beta = scipy.stats.norm.cdf((critical_SR - SR1) / math.sqrt(variance))
    return 1 - beta


def expected_maximum_sharpe_ratio(number_of_trials, variance, SR0=0):
    return SR0 + (
        np.sqrt(variance)
        * (
            (1 - np.euler_gamma) * scipy.stats.norm.ppf(1 - 1 / number_of_trials)
            + np.euler_gamma * scipy.stats.norm.ppf(1 - 1 / number_of_trials / np.exp(1))
        )
    )
