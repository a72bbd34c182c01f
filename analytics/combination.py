"""A weighted combination of alphas' daily returns, and what adding one alpha does to a set
(docs/analytics.md, "Combination" and "Marginal contribution"). Pure numpy.

Every function takes the returns `R` of the common sessions only (T sessions x n alphas, every
value finite): the sessions on which every alpha of the set has a return. A combination over
sessions some alpha did not trade would weight a missing return as zero, a return it never had.

Weightings (`weights`):
- equal: 1/n each;
- given: as the caller gave them (never renormalised: they are fractions of the book's capital);
- inverse_volatility: w_i = (1/sigma_i) / sum_j (1/sigma_j), sigma the sample std (ddof 1);
- max_ir: w proportional to Sigma_d^-1 mu, Sigma_d = (1 - d) S + d F, S the sample covariance
  (ddof 1), F its diagonal, mu the sample means; d given, or the Ledoit-Wolf intensity toward F
  (`ledoit_wolf_intensity`); then scaled so that sum |w_i| = 1.
"""

from __future__ import annotations

import math

import numpy as np

from analytics.compounding import drawdown_pct, equity_from_one
from analytics.returns import mean_over_std
from analytics.variance import measurable_std
from schemas.query import MIN_SET_SESSIONS

MIN_SESSIONS = MIN_SET_SESSIONS
"""Common sessions a combination needs: its covariance has n(n+1)/2 entries to estimate (declared
with the parameters whose rules state it)."""
MAX_CONDITION = 1e12
"""Above this condition number the shrunk covariance is treated as singular (its inverse is
float rounding, not information)."""


class NotCombinable(ValueError):
    """The set's returns admit no such weights (a series without variance, a singular covariance,
    weights that sum to nothing): the message says which."""


def common_sessions(values: np.ndarray) -> np.ndarray:
    """Which columns of `values` (alphas x sessions) hold a finite value for every alpha."""
    return np.asarray(np.isfinite(values).all(axis=0), dtype=bool)


def equal_weights(n: int) -> np.ndarray:
    return np.full(n, 1.0 / n)


def _stds(returns: np.ndarray) -> np.ndarray:
    """Each column's measurable std (ddof 1); NotCombinable when one has none."""
    stds = np.array([measurable_std(returns[:, i]) for i in range(returns.shape[1])])
    if not np.isfinite(stds).all():
        raise NotCombinable("an alpha's returns have no variance over the common sessions")
    return stds


def inverse_volatility_weights(returns: np.ndarray) -> np.ndarray:
    inverse = 1.0 / _stds(returns)
    return np.asarray(inverse / inverse.sum())


def ledoit_wolf_intensity(returns: np.ndarray) -> float:
    """The Ledoit-Wolf (2004) optimal shrinkage intensity toward the diagonal of the sample
    covariance, in the paper's moments (1/T): with y the centred returns,

      s_ij  = (1/T) sum_t y_ti y_tj
      pi_ij = (1/T) sum_t (y_ti y_tj - s_ij)^2       (asymptotic variance of sqrt(T) s_ij)
      pi    = sum over i != j of pi_ij               (pi - rho of the paper: the target's diagonal
                                                      is S's own, its off-diagonal is 0)
      gamma = sum over i != j of s_ij^2              (squared distance of S to the target)
      delta = min(1, max(0, pi / gamma / T)).

    1 when the off-diagonal covariances are all zero (S is its own target)."""
    t = returns.shape[0]
    y = returns - returns.mean(axis=0)
    s = y.T @ y / t
    squares = y * y
    pi = squares.T @ squares / t - s * s  # mean of (y_i y_j)^2 minus s_ij^2
    off = ~np.eye(s.shape[0], dtype=bool)
    gamma = float(np.sum(s[off] ** 2))
    if not gamma > 0:
        return 1.0
    return float(min(1.0, max(0.0, float(np.sum(pi[off])) / gamma / t)))


def shrunk_covariance(returns: np.ndarray, intensity: float) -> np.ndarray:
    """(1 - d) S + d diag(S), S the sample covariance (ddof 1)."""
    sample = np.atleast_2d(np.cov(returns, rowvar=False, ddof=1))
    return np.asarray((1.0 - intensity) * sample + intensity * np.diag(np.diag(sample)))


def max_ir_weights(returns: np.ndarray, intensity: float) -> np.ndarray:
    """Sigma_d^-1 mu scaled to sum |w| = 1 (the maximum information ratio under the shrunk
    covariance; its sign kept, so a set whose best book is short an alpha says so)."""
    _stds(returns)
    sigma = shrunk_covariance(returns, intensity)
    if not np.linalg.cond(sigma) < MAX_CONDITION:
        raise NotCombinable(
            "the covariance of the alphas' returns is singular over the common sessions (an alpha is a "
            "combination of others); pass shrinkage above 0"
        )
    raw = np.linalg.solve(sigma, returns.mean(axis=0))
    scale = float(np.sum(np.abs(raw)))
    if not scale > 0 or not math.isfinite(scale):
        raise NotCombinable(
            "every alpha's mean return is zero over the common sessions: no weight is preferred"
        )
    return np.asarray(raw / scale)


# -- the combined book ----------------------------------------------------------------------------


def equity(returns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cumulative return, drawdown in percentage points) of the book compounded from 1.0 before
    the first session: level_t = prod_{s<=t} (1 + r_s), peak_t = max(1, level_1..t) (the opening
    equity counts, as on the equity curve), drawdown_pct_t = (peak_t - level_t) / peak_t x 100
    (positive below the peak, as the equity curve's)."""
    level, peak = equity_from_one(returns)
    return level - 1.0, drawdown_pct(peak, level)


def first_wipeout(returns: np.ndarray) -> int | None:
    """The first session on which the combined book's daily return is <= -1 (it loses all its
    equity: every later level is 0 or negative, so no cumulative return or drawdown means
    anything after it), or None."""
    lost = np.flatnonzero(returns <= -1.0)
    return int(lost[0]) if lost.size else None


def correlation_matrix(returns: np.ndarray) -> np.ndarray:
    """Pearson correlation of every pair of columns (NaN where a side is constant)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        found = np.atleast_2d(np.corrcoef(returns, rowvar=False))
    stds = np.array([measurable_std(returns[:, i]) for i in range(returns.shape[1])])
    found[~np.isfinite(stds), :] = math.nan
    found[:, ~np.isfinite(stds)] = math.nan
    # A series' correlation with itself is 1 by definition; corrcoef's rounding gives 0.9999999999999998.
    diagonal = np.diag_indices_from(found)
    found[diagonal] = np.where(np.isfinite(found[diagonal]), 1.0, math.nan)
    return np.asarray(found)


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation of two series (NaN when either is constant)."""
    if not (math.isfinite(measurable_std(x)) and math.isfinite(measurable_std(y))):
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def diversification_ratio(returns: np.ndarray, weights: np.ndarray, combined: np.ndarray) -> float:
    """sum |w_i| sigma_i / sigma_c (std ddof 1): 1 for perfectly correlated alphas, above 1 the
    more their risks offset."""
    spread = measurable_std(combined)
    if not math.isfinite(spread):
        return math.nan
    stds = np.std(returns, axis=0, ddof=1)
    return float(np.sum(np.abs(weights) * stds) / spread)


# -- contribution ---------------------------------------------------------------------------------


def mix_information_ratio(before: np.ndarray, alpha: np.ndarray, weight: float) -> float:
    """The information ratio (per session) of (1 - w) before + w alpha."""
    return mean_over_std((1.0 - weight) * before + weight * alpha)


def optimal_weight(before: np.ndarray, alpha: np.ndarray) -> float:
    """The w in [0, 1] maximising the information ratio of (1 - w) b + w a (NaN when no w gives
    a measurable one).

    On the line of two-asset books, the ratio m(w) / s(w) has one stationary point, the tangency
    weight of Sigma^-1 mu normalised to sum 1:
      u_b = var_a mu_b - cov mu_a,  u_a = var_b mu_a - cov mu_b,  w* = u_a / (u_a + u_b),
    a maximum or a minimum. So the maximum over [0, 1] is at w* when it lies inside, or at an
    end: the candidates are compared (a minimum is never chosen, and a plain clip of w* would
    choose one when the tangency book has a negative mean)."""
    mu_a, mu_b = float(np.mean(alpha)), float(np.mean(before))
    var_a, var_b = float(np.var(alpha, ddof=1)), float(np.var(before, ddof=1))
    cov = float(np.cov(alpha, before, ddof=1)[0, 1])
    u_a, u_b = var_b * mu_a - cov * mu_b, var_a * mu_b - cov * mu_a
    candidates = [0.0, 1.0]
    total = u_a + u_b
    if total != 0 and math.isfinite(total):
        tangency = u_a / total
        if 0.0 < tangency < 1.0:
            candidates.insert(0, tangency)
    best, best_ratio = math.nan, -math.inf
    for weight in candidates:
        ratio = mix_information_ratio(before, alpha, weight)
        if math.isfinite(ratio) and ratio > best_ratio:
            best, best_ratio = weight, ratio
    return best
