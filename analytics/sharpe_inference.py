"""Sharpe ratio inference to the 2025 standard: the Sharpe ratio's variance under serial correlation
and non-normality, and the PSR, the minimum track record length, the critical Sharpe ratio, the
power and the deflated Sharpe ratio's moments of the maximum of K Sharpe ratios that rest on it.

López de Prado, M., Lipton, A. and Zoonekynd, V. (2025), "Sharpe Ratio Inference: A New Standard
for Reporting and Decision-Making", SSRN 5520741;
reference code github.com/zoonek/2025-sharpe-ratio, functions.py (`sharpe_ratio_variance`,
`probabilistic_sharpe_ratio`, `minimum_track_record_length`, `critical_sharpe_ratio`,
`sharpe_ratio_power`, `expected_maximum_sharpe_ratio`, `moments_Mk`, `autocorrelation`): each
function below names the one it follows, and tests/analytics/test_sharpe_inference.py holds the
reference's functions (tests/analytics/sharpe_reference.py) and asserts equality with them. The expected maximum is Bailey, D. H. and
López de Prado, M. (2014), "The Deflated Sharpe Ratio", Journal of Portfolio Management 40(5).

Conventions, as the reference's: Sharpe ratios per observation (per session here, never
annualised); skewness and kurtosis the sample moments (kurtosis not in excess: 3 for a normal);
returns an AR(1) process with coefficient rho, estimated as the lag-1 Pearson correlation of the
returns (`serial_correlation`, the reference's `autocorrelation` of one series); the variance of
a test statistic is evaluated under its hypothesis (at SR0 for the PSR, the MinTRL and the
critical value, at SR1 for the power, at the observed SR for the standard error); T observations,
not T - 1. One deliberate difference: the moments of the maximum of K standard normals are
integrated on a fixed grid (`max_moments`), where the reference's 200-node Gauss-Hermite rule
drifts from K ~ 10^3 (3% on the variance at K = 10^5, 33% at 10^6: a catalogue's trial count);
the two agree to 1e-8 up to K = 100 (the tests).

Every function takes numpy arrays or floats and broadcasts (`np.asarray` in, float64 out); NaN
where a figure does not exist (a variance factor that is not positive, |rho| >= 1, SR <= SR0 for
the MinTRL). scipy.special only: no scipy.stats at serve time (development.md: ~1 s to import).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

EULER_GAMMA = 0.5772156649015329

_GRID = np.linspace(-12.0, 14.0, 5201)
"""Where the density of the maximum of K standard normals is integrated: its mass lies within
[-12, 14] for every K from 1 to beyond 10^30 (its mode ~ sqrt(2 ln K), its spread below 1), and a
step of 0.005 makes Simpson's rule exact to ~1e-12 on those smooth densities."""
_SIMPSON = np.where(np.arange(_GRID.size) % 2 == 1, 4.0, 2.0)
_SIMPSON[[0, -1]] = 1.0
_SIMPSON *= (_GRID[1] - _GRID[0]) / 3.0
"""Composite Simpson weights on `_GRID` (an even number of steps): 1, 4, 2, ..., 2, 4, 1 times h / 3."""


SERIAL_CORRELATION_FROM = 4
"""Returns from which the lag-1 correlation is measured: over T returns it is over T - 1 pairs, and
two pairs lie on a line, so over 3 returns it is +-1 by construction whatever they are (issue 81:
-0.9999999999999999 passed the |rho| < 1 guard and served a PSR of 1.0). A count, compared before
anything is computed: no rounding passes it."""
KURTOSIS_FROM = 4
"""Returns from which the sample kurtosis is measured: of 3 returns it is 1.5 whatever they are
(their standardised values have one degree of freedom left), of 2 it is 1."""
SKEWNESS_FROM = 3
"""Returns from which the sample skewness is measured: of 2 returns it is 0 whatever they are."""
INFERENCE_FROM = max(SERIAL_CORRELATION_FROM, KURTOSIS_FROM)
"""Returns from which the Sharpe ratio's variance is measured, and with it every figure of Sharpe
inference resting on it (its standard error, the PSR, the minimum track record, the critical
Sharpe ratio, the power, the DSRs, the t-statistic SR sqrt(T)): the variance factor is a function
of the lag-1 correlation and the kurtosis, each determined by construction below its count. The one
rule those figures ask (`inference_reason`)."""


def inference_reason(observations: int) -> str | None:
    """Why a window of `observations` returns supports no Sharpe inference (None: it does)."""
    if observations >= INFERENCE_FROM:
        return None
    return (
        f"the window holds {observations} daily return(s): the Sharpe ratio's variance needs {INFERENCE_FROM} "
        f"(below, its lag-1 correlation and kurtosis are fixed by construction, not measured)"
    )


def serial_correlation(returns: ArrayLike) -> float:
    """rho: the lag-1 Pearson correlation of the finite returns, np.corrcoef(x[1:], x[:-1]) as the
    reference's `autocorrelation` (one series); NaN below SERIAL_CORRELATION_FROM values or without
    variance."""
    x = np.asarray(returns, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < SERIAL_CORRELATION_FROM:
        return math.nan
    a, b = x[1:], x[:-1]
    da, db = a - a.mean(), b - b.mean()
    denominator = math.sqrt(float(np.dot(da, da)) * float(np.dot(db, db)))
    if not denominator > 0:
        return math.nan
    return float(np.dot(da, db)) / denominator


def variance_factor(sr: ArrayLike, skewness: ArrayLike, kurtosis: ArrayLike, rho: ArrayLike = 0.0) -> NDArray:
    """T times the variance of the Sharpe ratio estimate at Sharpe ratio `sr`:
    a - b skew SR + c (kurt - 1) / 4 SR^2 with a = (1 + rho) / (1 - rho), b = 1 + rho / (1 - rho) +
    rho^2 / (1 - rho^2), c = (1 + rho^2) / (1 - rho^2) (the reference's `sharpe_ratio_variance`
    with T = 1, K = 1: at rho = 0 the i.i.d. factor 1 - skew SR + (kurt - 1) / 4 SR^2 of Mertens
    2002). NaN where |rho| >= 1 or the factor is not positive."""
    sr, g3, g4, r = (np.asarray(v, dtype=np.float64) for v in (sr, skewness, kurtosis, rho))
    with np.errstate(divide="ignore", invalid="ignore"):
        a = 1.0 + 2.0 * r / (1.0 - r)
        b = 1.0 + r / (1.0 - r) + r**2 / (1.0 - r**2)
        c = 1.0 + 2.0 * r**2 / (1.0 - r**2)
        factor = a - b * g3 * sr + c * (g4 - 1.0) / 4.0 * sr**2
    return np.where((np.abs(r) < 1.0) & (factor > 0.0), factor, np.nan)


@functools.lru_cache(maxsize=256)
def _max_moments(k: int) -> tuple[float, float]:
    from scipy.special import log_ndtr

    x = _GRID
    # k phi(x) Phi(x)^(k-1) in logs: Phi^(k-1) underflows for a large k long before the product does
    log_density = math.log(k) - 0.5 * x * x - 0.5 * math.log(2.0 * math.pi) + (k - 1) * log_ndtr(x)
    weighted = _SIMPSON * np.exp(log_density)
    mean = float(np.dot(weighted, x))
    second = float(np.dot(weighted, x * x))
    return mean, second - mean * mean


def max_moments(k: int, rho: float = 0.0) -> tuple[float, float]:
    """(E[M_K], Var[M_K]) of M_K the maximum of K standard normals, equicorrelated at `rho`:
    M = sqrt(rho) X + sqrt(1 - rho) max(Y_i), so E = sqrt(1 - rho) E[max Y], Var = rho + (1 - rho)
    Var[max Y] (the reference's `moments_Mk`, whose variance this is; its mean scales by 1 - rho,
    not by the sqrt(1 - rho) the decomposition gives: no figure here uses the mean at rho != 0).
    The moments of k phi Phi^(k-1) on a fixed grid (the module's docstring says why not
    Gauss-Hermite). NaN below K = 1."""
    if not k >= 1:
        return math.nan, math.nan
    mean, variance = _max_moments(int(k))
    return math.sqrt(1.0 - rho) * mean, rho + (1.0 - rho) * variance


def sharpe_variance(
    sr: ArrayLike,
    observations: ArrayLike,
    skewness: ArrayLike,
    kurtosis: ArrayLike,
    rho: ArrayLike = 0.0,
    k: int = 1,
) -> NDArray:
    """The variance of the Sharpe ratio estimate over T `observations` at Sharpe ratio `sr`, of the
    maximum of `k` of them: variance_factor / T * Var[M_K] (the reference's `sharpe_ratio_variance`;
    Var[M_1] = 1)."""
    factor = variance_factor(sr, skewness, kurtosis, rho) / np.asarray(observations, dtype=np.float64)
    return factor if k == 1 else factor * max_moments(k)[1]


def psr(
    sr: ArrayLike,
    sr0: ArrayLike,
    observations: ArrayLike,
    skewness: ArrayLike,
    kurtosis: ArrayLike,
    rho: ArrayLike = 0.0,
    k: int = 1,
) -> NDArray:
    """The probabilistic Sharpe ratio, 1 - the p-value of H0: SR = SR0 against SR > SR0:
    Phi((SR - SR0) / sigma(SR0)), sigma^2 = sharpe_variance at SR0 (under H0), of the maximum of
    `k` Sharpe ratios for the deflated Sharpe ratio (the reference's `probabilistic_sharpe_ratio`)."""
    from scipy.special import ndtr

    variance = sharpe_variance(sr0, observations, skewness, kurtosis, rho, k)
    difference = np.asarray(sr, dtype=np.float64) - np.asarray(sr0, dtype=np.float64)
    return np.asarray(ndtr(difference / np.sqrt(variance)))


def min_track_record(
    sr: ArrayLike,
    sr0: ArrayLike,
    skewness: ArrayLike,
    kurtosis: ArrayLike,
    rho: ArrayLike = 0.0,
    alpha: float = 0.05,
) -> NDArray:
    """The observations needed for the PSR against SR0 to reach 1 - alpha:
    variance_factor(SR0) (z_(1 - alpha) / (SR - SR0))^2 (the reference's
    `minimum_track_record_length`); NaN where SR <= SR0 (no track record suffices)."""
    from scipy.special import ndtri

    sr, sr0 = np.asarray(sr, dtype=np.float64), np.asarray(sr0, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        trl = variance_factor(sr0, skewness, kurtosis, rho) * (ndtri(1.0 - alpha) / (sr - sr0)) ** 2
    return np.where(sr > sr0, trl, np.nan)


def critical_sharpe(
    sr0: ArrayLike,
    observations: ArrayLike,
    skewness: ArrayLike,
    kurtosis: ArrayLike,
    rho: ArrayLike = 0.0,
    alpha: float = 0.05,
    k: int = 1,
) -> NDArray:
    """The Sharpe ratio an estimate over T observations must exceed to reject H0: SR = SR0 at level
    alpha: SR0 + z_(1 - alpha) sigma(SR0) (the reference's `critical_sharpe_ratio`)."""
    from scipy.special import ndtri

    return np.asarray(sr0, dtype=np.float64) + ndtri(1.0 - alpha) * np.sqrt(
        sharpe_variance(sr0, observations, skewness, kurtosis, rho, k)
    )


def power(
    sr0: ArrayLike,
    sr1: ArrayLike,
    observations: ArrayLike,
    skewness: ArrayLike,
    kurtosis: ArrayLike,
    rho: ArrayLike = 0.0,
    alpha: float = 0.05,
) -> NDArray:
    """The power 1 - beta of the test of H0: SR = SR0 at level alpha when the true Sharpe ratio is
    SR1: 1 - Phi((SR_c - SR1) / sigma(SR1)), SR_c the critical Sharpe ratio (the reference's
    `sharpe_ratio_power` with K = 1)."""
    from scipy.special import ndtr

    critical = critical_sharpe(sr0, observations, skewness, kurtosis, rho, alpha)
    variance = sharpe_variance(sr1, observations, skewness, kurtosis, rho)
    return np.asarray(1.0 - ndtr((critical - np.asarray(sr1, dtype=np.float64)) / np.sqrt(variance)))


def expected_max_sharpe(trials: int, sharpe_variance: float) -> float:
    """E[max of `trials` Sharpe ratios] under the null of no skill (Bailey and López de Prado 2014;
    the reference's `expected_maximum_sharpe_ratio` with SR0 = 0):
    sqrt(V) ((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e))), gamma the Euler-Mascheroni
    constant; NaN below 2 trials or without a variance."""
    from scipy.special import ndtri

    if trials < 2 or not sharpe_variance >= 0:
        return math.nan
    n = float(trials)
    return math.sqrt(sharpe_variance) * (
        (1.0 - EULER_GAMMA) * float(ndtri(1.0 - 1.0 / n))
        + EULER_GAMMA * float(ndtri(1.0 - 1.0 / (n * math.e)))
    )


def min_backtest_length(trials: int, sharpe: float) -> float:
    """The minimum backtest length, in the periods `sharpe` is per (years for an annualised Sharpe
    ratio), below which the best of `trials` independent skill-less configurations is expected to
    show at least `sharpe` (Bailey, Borwein, López de Prado and Zhu 2014, "Pseudo-mathematics and
    financial charlatanism", MinBTL): (E[max of N standard normals] / SR)^2, the expected maximum
    `expected_max_sharpe(N, 1)`. 45 trials at an annualised Sharpe ratio of 1.0 need 5.3 years,
    10^5 trials 19.2 years. NaN below 2 trials or when `sharpe` is not positive."""
    if trials < 2 or not sharpe > 0:
        return math.nan
    return (expected_max_sharpe(trials, 1.0) / sharpe) ** 2


def dsr(
    sr: float,
    observations: int,
    skewness: float,
    kurtosis: float,
    rho: float,
    trials: int,
    sharpe_variance: float,
) -> float:
    """The deflated Sharpe ratio: the PSR against SR0 = the expected maximum Sharpe ratio of
    `trials` unskilled trials whose Sharpe ratios vary by `sharpe_variance`, its variance that of
    the maximum of `trials` Sharpe ratios (sharpe_variance at SR0 times Var[M_N]), as the reference's
    numeric example computes it (`probabilistic_sharpe_ratio(SR, SR0_adj, ..., K=N)`)."""
    sr0 = expected_max_sharpe(trials, sharpe_variance)
    if not math.isfinite(sr0):
        return math.nan
    return float(psr(sr, sr0, observations, skewness, kurtosis, rho, trials))
