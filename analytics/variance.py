"""The one rule for "this series has no measurable variance", for every ratio over a standard
deviation: significance's Sharpe ratio and moments, costs' information ratios (through
`analytics.returns.mean_over_std`), and the bootstrap's point estimates and resamples.

Float sums carry rounding: a series that repeats one value, or whose values differ only in their
last bits (a ledger whose equity grows by a fixed rate), comes out with a sum of squared
deviations of rounding size instead of 0, and its mean over that "standard deviation" anywhere
from 1e8 to 1e15. A sum of squared deviations at most `ROUNDING` times n mean(x^2) counts as zero:
measured over every 3- to 8-value window of the demo's daily returns and weekly IC, a constant
resample's came out at most 5.5 eps n mean(x^2), and any other's at least 5e7 times that. Put
as a ratio: a series has a measurable standard deviation only while |mean| / sd stays below about
1 / sqrt(ROUNDING) = 8.4e6 per observation, so no ratio served exceeds that.
"""

from __future__ import annotations

import math

import numpy as np

ROUNDING = 64 * float(np.finfo(np.float64).eps)
"""A sum of squared deviations at most ROUNDING x n mean(x^2) of the series is rounding: zero."""


def variance_floor(x: np.ndarray) -> float:
    """The sum of squared deviations at or below which the series x (or a resample of it) has no
    measurable variance."""
    return ROUNDING * x.size * float(np.mean(x * x))


def measurable_std(x: np.ndarray) -> float:
    """std(ddof=1) of the finite series x; NaN below 2 values or when its variance is rounding
    (`variance_floor`)."""
    if x.size < 2:
        return math.nan
    sd = float(np.std(x, ddof=1))
    return sd if sd * sd * (x.size - 1) > variance_floor(x) else math.nan
