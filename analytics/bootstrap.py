"""Stationary block bootstrap (Politis, D. N. and Romano, J. P. (1994), "The Stationary
Bootstrap", JASA 89(428)) with percentile confidence intervals.

Blocks start at uniform positions and have geometric lengths of mean `block_length`, wrapping
around the end of the series. The mean block length follows a stated rule, n^(1/3) rounded (at
least 1). A resample draws from `numpy.random.Generator(PCG64(seed))`, so the same series, seed
and number of resamples always give the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

RESAMPLES = 2000
SEED = 20261122
CONFIDENCE = 0.95
_CHUNK = 250  # resamples per batch: bounds memory at 250 x n indices


def block_length(n: int) -> int:
    """The mean block length for a series of n values: round(n^(1/3)), at least 1."""
    return max(1, round(n ** (1.0 / 3.0)))


def resample_indices(rng: np.random.Generator, n: int, count: int, mean_block: int) -> np.ndarray:
    """`count` rows of n indices into a series of n values."""
    new_block = rng.random((count, n)) < 1.0 / mean_block
    new_block[:, 0] = True
    starts = rng.integers(0, n, size=(count, n))
    positions = np.arange(n)
    block_start = np.maximum.accumulate(np.where(new_block, positions, 0), axis=1)
    first = np.take_along_axis(starts, block_start, axis=1)
    return (first + positions - block_start) % n


def interval(
    series: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    rng: np.random.Generator,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, int]:
    """(lower, upper, mean block length) of the percentile interval of `statistic`, which maps a
    (resamples, n) array to one value per row. NaN bounds when the series has fewer than 3 values."""
    x = series[np.isfinite(series)]
    n = x.size
    if n < 3:
        return math.nan, math.nan, 0
    b = block_length(n)
    values = []
    for done in range(0, resamples, _CHUNK):
        idx = resample_indices(rng, n, min(_CHUNK, resamples - done), b)
        values.append(statistic(x[idx]))
    draws = np.concatenate(values)
    draws = draws[np.isfinite(draws)]
    if draws.size == 0:
        return math.nan, math.nan, b
    tail = (1.0 - confidence) / 2.0
    lower, upper = np.quantile(draws, [tail, 1.0 - tail])
    return float(lower), float(upper), b


def mean_of_rows(samples: np.ndarray) -> np.ndarray:
    return samples.mean(axis=1)


def ratio_of_rows(samples: np.ndarray) -> np.ndarray:
    """mean / std(ddof=1) of each row; NaN where the std is 0."""
    sd = samples.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, samples.mean(axis=1) / sd, np.nan)
