"""The probability that an approval was a false discovery: the posterior false discovery rates of
López de Prado, Lipton and Zoonekynd (2025), "How to Use the Sharpe Ratio".

A p-value is P(data | no skill), not the probability that an approved alpha has no skill. That one
needs the prior share of true strategies among those tried and the test's power, by Bayes:

    pFDR(p, alpha, beta) = (1 - p) alpha / ((1 - p) alpha + p (1 - beta))

p the prior probability that a candidate is true (H1), alpha the test's level (its type I error),
beta its type II error (1 - beta its power against the alternative's Sharpe ratio). With the
paper's example, p = 0.05, alpha = 0.05 and beta = 0.315, pFDR = 0.581: more than half of the
alphas a 5% test approves are false when one candidate in twenty is true. pFDR is over every
approval the test makes at level alpha; `ofdr` is the paper's observed variant, the same posterior
for the strategies whose estimated Sharpe ratio is at least the one observed (a tail area:
P(SR_hat >= SR_obs | H0) in place of alpha and P(SR_hat >= SR_obs | H1) in place of 1 - beta).

The power uses the normal approximation of the estimated Sharpe ratio with the standard error of
Mertens (2002) (Lo 2002 for normal returns; Bailey and López de Prado 2012):

    sd(SR_hat) = sqrt((1 - skew SR + (kurt - 1) / 4 SR^2) / (T - ddof))

at the Sharpe ratio of the hypothesis (the null's for the critical value, the alternative's for
the power), skew and kurt (Pearson, 3 for a normal) the returns'. Sharpe ratios are per
observation (per week for weekly returns: an annualised IR over sqrt(weeks a year)), never
annualised. ddof 1 (T - 1) is the form `analytics.significance` used for the PSR before issue 62 (it now
follows the paper's 2025 variance with serial correlation: `analytics.sharpe_inference`); the paper's
companion code (github.com/zoonek/2025-sharpe-ratio, `functions.py`) divides by T, ddof 0, which
its worked example (T = 24 monthly returns) needs to give beta = 0.315 and oFDR = 0.306. The
tests check the power against a Monte Carlo of the test on normal returns and the exact
non-central t power.
"""

from __future__ import annotations

import math

from analytics.sharpe_inference import variance_factor


def _probability(name: str, value: float, *, open_low: bool = False, open_high: bool = False) -> float:
    value = float(value)
    low_ok = value > 0.0 if open_low else value >= 0.0
    high_ok = value < 1.0 if open_high else value <= 1.0
    if not (math.isfinite(value) and low_ok and high_ok):
        bounds = f"{'(' if open_low else '['}0, 1{')' if open_high else ']'}"
        raise ValueError(f"{name} must be a probability in {bounds}, got {value!r}")
    return value


def _finite(name: str, value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return value


def pfdr(prior_true: float, alpha: float, beta: float) -> float:
    """The paper's pFDR(p, alpha, beta): the posterior probability that an alpha approved by a
    test of level `alpha` and type II error `beta` has no skill, when a share `prior_true` of the
    candidates tested have it. 1 when none has (p = 0), 0 when all have (p = 1)."""
    p = _probability("prior_true", prior_true)
    alpha = _probability("alpha", alpha, open_low=True, open_high=True)
    beta = _probability("beta", beta)
    false = (1.0 - p) * alpha
    true = p * (1.0 - beta)
    if false + true == 0.0:
        raise ValueError("no candidate is ever approved (prior_true = 1 and beta = 1): pFDR is undefined")
    return false / (false + true)


def sharpe_ratio_sd(
    sharpe: float,
    observations: int,
    *,
    skewness: float = 0.0,
    kurtosis: float = 3.0,
    ddof: int = 1,
) -> float:
    """The standard error of the estimated Sharpe ratio (per observation) at the true `sharpe`
    over `observations` returns of the given skewness and (Pearson) kurtosis: Mertens's
    sqrt((1 - skew SR + (kurt - 1) / 4 SR^2) / (T - ddof)), the factor
    `analytics.sharpe_inference.variance_factor` at no serial correlation."""
    sharpe = _finite("sharpe", sharpe)
    skewness, kurtosis = _finite("skewness", skewness), _finite("kurtosis", kurtosis)
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (the paper's code: T) or 1 (T - 1), got {ddof!r}")
    if observations < 2:
        raise ValueError(f"observations must be >= 2 for a Sharpe ratio, got {observations!r}")
    if kurtosis < 1.0 + skewness**2:
        raise ValueError(
            f"no distribution has kurtosis {kurtosis!r} with skewness {skewness!r} (kurtosis >= 1 + skewness^2)"
        )
    # The i.i.d. case of the one variance factor (rho = 0): the same arithmetic, to the bit.
    dispersion = float(variance_factor(sharpe, skewness, kurtosis))
    if not dispersion > 0.0:
        raise ValueError(f"the Sharpe ratio's variance factor is {dispersion!r} <= 0 at sharpe {sharpe!r}")
    return math.sqrt(dispersion / (observations - ddof))


def critical_sharpe_ratio(
    null_sharpe: float,
    observations: int,
    *,
    alpha: float = 0.05,
    skewness: float = 0.0,
    kurtosis: float = 3.0,
    ddof: int = 1,
) -> float:
    """The estimated Sharpe ratio above which the one-sided test of H0: SR = `null_sharpe`
    rejects at level `alpha`: SR0 + z_(1-alpha) sd(SR_hat | SR0)."""
    from scipy.special import ndtri  # when used: scipy imports slowly (docs/development.md)

    alpha = _probability("alpha", alpha, open_low=True, open_high=True)
    sd = sharpe_ratio_sd(null_sharpe, observations, skewness=skewness, kurtosis=kurtosis, ddof=ddof)
    return float(null_sharpe) - float(ndtri(alpha)) * sd


def sharpe_power(
    null_sharpe: float,
    true_sharpe: float,
    observations: int,
    *,
    alpha: float = 0.05,
    skewness: float = 0.0,
    kurtosis: float = 3.0,
    ddof: int = 1,
) -> float:
    """The power 1 - beta of the one-sided test of H0: SR = `null_sharpe` at level `alpha` over
    `observations` returns when the true Sharpe ratio is `true_sharpe` (per observation): the
    probability that the estimate, normal about `true_sharpe` with its own standard error,
    exceeds the critical value."""
    from scipy.special import ndtr  # when used: scipy imports slowly (docs/development.md)

    true_sharpe = _finite("true_sharpe", true_sharpe)
    critical = critical_sharpe_ratio(
        null_sharpe, observations, alpha=alpha, skewness=skewness, kurtosis=kurtosis, ddof=ddof
    )
    sd = sharpe_ratio_sd(true_sharpe, observations, skewness=skewness, kurtosis=kurtosis, ddof=ddof)
    return float(ndtr((true_sharpe - critical) / sd))


def approval_pfdr(
    prior_true: float,
    null_sharpe: float,
    true_sharpe: float,
    observations: int,
    *,
    alpha: float = 0.05,
    skewness: float = 0.0,
    kurtosis: float = 3.0,
    ddof: int = 1,
) -> float:
    """pFDR of a Sharpe-ratio test at level `alpha` whose power is `sharpe_power` against
    `true_sharpe`: the probability that an alpha this test approved is a false discovery."""
    power = sharpe_power(
        null_sharpe, true_sharpe, observations, alpha=alpha, skewness=skewness, kurtosis=kurtosis, ddof=ddof
    )
    return pfdr(prior_true, alpha, 1.0 - power)


def ofdr(
    observed_sharpe: float,
    null_sharpe: float,
    true_sharpe: float,
    observations: int,
    prior_true: float,
    *,
    skewness: float = 0.0,
    kurtosis: float = 3.0,
    ddof: int = 1,
) -> float:
    """The paper's observed oFDR: the posterior probability of H0 (SR = `null_sharpe`) against H1
    (SR = `true_sharpe`) for a strategy whose estimated Sharpe ratio is at least `observed_sharpe`:
    p0 (1 - p) / (p0 (1 - p) + p1 p), p0 = P(SR_hat >= SR_obs | H0), p1 = P(SR_hat >= SR_obs | H1),
    each normal with its hypothesis's standard error. Computed from the tails' logarithms, so an
    observation far in both tails still has an answer."""

    observed_sharpe = _finite("observed_sharpe", observed_sharpe)
    null_sharpe, true_sharpe = _finite("null_sharpe", null_sharpe), _finite("true_sharpe", true_sharpe)
    if not true_sharpe > null_sharpe:
        raise ValueError(f"true_sharpe ({true_sharpe!r}) must exceed null_sharpe ({null_sharpe!r})")
    p = _probability("prior_true", prior_true)
    sd0 = sharpe_ratio_sd(null_sharpe, observations, skewness=skewness, kurtosis=kurtosis, ddof=ddof)
    sd1 = sharpe_ratio_sd(true_sharpe, observations, skewness=skewness, kurtosis=kurtosis, ddof=ddof)
    return posterior_null(observed_sharpe, null_sharpe, true_sharpe, sd0, sd1, p)


def posterior_null(
    observed_sharpe: float, null_sharpe: float, true_sharpe: float, sd0: float, sd1: float, p: float
) -> float:
    """oFDR's posterior of H0 given SR_hat >= `observed_sharpe`, each hypothesis's estimate normal
    with its standard error (`sd0` under H0, `sd1` under H1), `p` the prior share of true
    strategies: whoever measures the standard errors (`ofdr` as Mertens; `analytics.significance.ofdr`
    as the significance route's one variance) shares this arithmetic."""
    from scipy.special import log_ndtr  # when used: scipy imports slowly (docs/development.md)

    if p == 0.0:
        return 1.0
    if p == 1.0:
        return 0.0
    log_tail0 = float(log_ndtr((null_sharpe - observed_sharpe) / sd0))
    log_tail1 = float(log_ndtr((true_sharpe - observed_sharpe) / sd1))
    # odds of H1 against H0 given SR_hat >= SR_obs
    log_odds = math.log(p) + log_tail1 - math.log1p(-p) - log_tail0
    if log_odds > 700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(log_odds))
