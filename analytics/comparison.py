"""Two alphas side by side (docs/analytics.md, "Comparison"): their figures over the dates both
hold, the paired tests of the differences, and rolling correlations.

Everything is measured on the common observations only (the sessions, or weeks, where both series
have a finite value), each side's figures included, so a difference compares like with like.
Every figure, test and correlation needs MIN_OBSERVATIONS of them; below that it is NaN.

The tests, each two-sided at LEVEL:

- paired t-test of the mean difference (as `scipy.stats.ttest_rel`): d = a - b,
  t = mean(d) / (std(d, ddof=1) / sqrt(n)), n - 1 degrees of freedom;
- Jobson and Korkie (1981) with Memmel's (2003) correction, for the difference of two Sharpe
  ratios on paired returns: SR per observation (mean / std, ddof=1), rho the Pearson correlation,
  V = (2 - 2 rho + (SR_a^2 + SR_b^2) / 2 - SR_a SR_b rho^2) / n, z = (SR_a - SR_b) / sqrt(V),
  p = 2 (1 - Phi(|z|)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analytics.ic import annualised_icir
from analytics.returns import BookFigures, book_figures, mean_over_std
from analytics.variance import measurable_std

MIN_OBSERVATIONS = 3
LEVEL = 0.05
WEEKS_OF_SESSIONS = {21: 4, 63: 13, 126: 26, 252: 52}
"""The rolling window in weeks of weekly IC for each rolling window in sessions: the same span."""

PAIRED_T = "paired t-test"
JOBSON_KORKIE_MEMMEL = "Jobson-Korkie test with Memmel's correction"

WINDOWS_PER_BLOCK = 1024
"""Trailing windows `rolling_pearson` works on at once (its temporaries are that many windows)."""


@dataclass(frozen=True)
class Paired:
    """Two series on the dates both hold a finite value (days since 1970, ascending)."""

    days: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @property
    def size(self) -> int:
        return int(self.days.size)


def paired(days_a: np.ndarray, a: np.ndarray, days_b: np.ndarray, b: np.ndarray) -> Paired:
    """The common observations of two dated series (each date once per series, ascending)."""
    days, at_a, at_b = np.intersect1d(days_a, days_b, assume_unique=True, return_indices=True)
    x, y = a[at_a].astype(np.float64), b[at_b].astype(np.float64)
    keep = np.isfinite(x) & np.isfinite(y)
    return Paired(days[keep], x[keep], y[keep])


@dataclass(frozen=True)
class DifferenceTest:
    """A two-sided test of a difference; statistic and p-value NaN with `why_not` when it cannot run."""

    name: str
    statistic: float
    p_value: float
    why_not: str | None = None

    @property
    def significant(self) -> bool | None:
        return None if not math.isfinite(self.p_value) else bool(self.p_value < LEVEL)


def _too_few(name: str, n: int, unit: str) -> DifferenceTest | None:
    if n < MIN_OBSERVATIONS:
        return DifferenceTest(name, math.nan, math.nan, f"fewer than {MIN_OBSERVATIONS} common {unit} ({n})")
    return None


def paired_t_test(p: Paired, unit: str) -> DifferenceTest:
    """The paired t-test of mean(a - b) = 0 (the `scipy.stats.ttest_rel` statistic and p-value)."""
    short = _too_few(PAIRED_T, p.size, unit)
    if short is not None:
        return short
    d = p.a - p.b
    sd = measurable_std(d)
    if not math.isfinite(sd):
        return DifferenceTest(
            PAIRED_T, math.nan, math.nan, "the paired differences have no measurable variance"
        )
    t = float(np.mean(d)) / (sd / math.sqrt(d.size))
    return DifferenceTest(PAIRED_T, t, float(2.0 * stats.t.sf(abs(t), d.size - 1)))


def sharpe_difference_test(p: Paired, unit: str) -> DifferenceTest:
    """Jobson-Korkie with Memmel's correction of SR_a = SR_b, Sharpe ratios per observation."""
    short = _too_few(JOBSON_KORKIE_MEMMEL, p.size, unit)
    if short is not None:
        return short
    sd_a, sd_b = measurable_std(p.a), measurable_std(p.b)
    if not (math.isfinite(sd_a) and math.isfinite(sd_b)):
        return DifferenceTest(JOBSON_KORKIE_MEMMEL, math.nan, math.nan, "a side has no measurable variance")
    n = p.size
    sr_a, sr_b = float(np.mean(p.a)) / sd_a, float(np.mean(p.b)) / sd_b
    rho = pearson(p.a, p.b)
    variance = (2.0 - 2.0 * rho + (sr_a**2 + sr_b**2) / 2.0 - sr_a * sr_b * rho**2) / n
    if not variance > 0:
        return DifferenceTest(JOBSON_KORKIE_MEMMEL, math.nan, math.nan, "the difference has no variance")
    z = (sr_a - sr_b) / math.sqrt(variance)
    return DifferenceTest(JOBSON_KORKIE_MEMMEL, z, float(2.0 * stats.norm.sf(abs(z))))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation (two-pass centred sums); NaN below MIN_OBSERVATIONS or with a constant side."""
    if x.size < MIN_OBSERVATIONS or not (np.ptp(x) > 0 and np.ptp(y) > 0):
        return math.nan
    dx, dy = x - np.mean(x), y - np.mean(y)
    return float(np.clip(np.sum(dx * dy) / math.sqrt(np.sum(dx * dx) * np.sum(dy * dy)), -1.0, 1.0))


def rolling_pearson(x: np.ndarray, y: np.ndarray, window: int) -> np.ndarray:
    """Pearson over each trailing `window` observations, one value per observation: NaN until the
    window is full and where a side is constant over it."""
    out = np.full(x.size, np.nan)
    if x.size < window:
        return out
    xs = np.lib.stride_tricks.sliding_window_view(x, window)
    ys = np.lib.stride_tricks.sliding_window_view(y, window)
    for start in range(0, xs.shape[0], WINDOWS_PER_BLOCK):
        bx, by = xs[start : start + WINDOWS_PER_BLOCK], ys[start : start + WINDOWS_PER_BLOCK]
        dx = bx - bx.mean(axis=1, keepdims=True)
        dy = by - by.mean(axis=1, keepdims=True)
        varies = (np.ptp(bx, axis=1) > 0) & (np.ptp(by, axis=1) > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            found = np.sum(dx * dy, axis=1) / np.sqrt(np.sum(dx * dx, axis=1) * np.sum(dy * dy, axis=1))
        found = np.where(varies, np.clip(found, -1.0, 1.0), np.nan)
        out[window - 1 + start : window - 1 + start + found.size] = found
    return out


def cumulative_returns(r: np.ndarray) -> np.ndarray:
    """prod(1 + r) - 1 from the first observation to each one."""
    return np.cumprod(1.0 + r) - 1.0


def return_figures(r: np.ndarray, per_year: int) -> BookFigures:
    """The headline figures of daily returns (`analytics.returns.book_figures`, NaN below
    MIN_OBSERVATIONS; no excess Sharpe: a comparison is of total returns)."""
    if r.size < MIN_OBSERVATIONS:
        return book_figures(np.empty(0), None, per_year)
    return book_figures(r, None, per_year)


@dataclass(frozen=True)
class IcFigures:
    mean_ic: float  # per week
    icir: float  # mean / std(ddof=1), annualised (analytics.ic: the one basis an ICIR is compared on)


def ic_figures(ic: np.ndarray, weeks_per_year: int) -> IcFigures:
    if ic.size < MIN_OBSERVATIONS:
        return IcFigures(math.nan, math.nan)
    return IcFigures(float(np.mean(ic)), annualised_icir(mean_over_std(ic), weeks_per_year))
