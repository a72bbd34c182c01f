"""Stationary block bootstrap (Politis, D. N. and Romano, J. P. (1994), "The Stationary
Bootstrap", JASA 89(428)) with percentile confidence intervals.

A resample is blocks of the series laid end to end until it holds n values: each block starts at
a uniform position, has a geometric length of mean `block_length` (p = 1/mean), and wraps around
the end of the series; the last block is cut at n. The mean block length follows a stated rule,
n^(1/3) rounded (at least 1). Each statistic draws from its own stream,
`numpy.random.Generator(PCG64(SeedSequence([seed, stream])))` (`generator`), so the same series,
seed, stream and number of resamples always give the same interval, whatever else is computed.

The statistics served (a mean, and mean over standard deviation) need only each resample's sum
and sum of squares, so a resample costs one prefix-sum difference per block, not one value per
observation: the blocks are drawn, never the resampled series.

Those sums carry rounding: a resample that repeats one value (likely on a short series: 1 in 9 of
a 3-value series' resamples) comes out with a sum of squared deviations near 1e-20 instead of 0.
Resamples and the point estimate follow the project's one rule for "no measurable variance"
(`analytics.variance`), over the series' own floor.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from analytics.returns import mean_over_std
from analytics.variance import variance_floor

RESAMPLES = 2000
SEED = 20261122
CONFIDENCE = 0.95

# (sums, sums of squares, n, variance floor) of the resamples -> the statistic of each
Statistic = Callable[[np.ndarray, np.ndarray, int, float], np.ndarray]


def generator(seed: int, stream: int) -> np.random.Generator:
    """The generator of one statistic: stream `stream` of `seed`."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, stream])))


def block_length(n: int) -> int:
    """The mean block length for a series of n values: round(n^(1/3)), at least 1."""
    return max(1, round(n ** (1.0 / 3.0)))


def mean_of_rows(sums: np.ndarray, squares: np.ndarray, n: int, floor: float) -> np.ndarray:
    return sums / n


def ratio_of_rows(sums: np.ndarray, squares: np.ndarray, n: int, floor: float) -> np.ndarray:
    """mean / std(ddof=1) of each resample; NaN where the resample is constant (its sum of squared
    deviations at most `floor`)."""
    mean = sums / n
    deviations = squares - sums * mean
    sd = np.sqrt(np.maximum(deviations, 0.0) / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(deviations > floor, mean / sd, np.nan)


def point(series: np.ndarray, statistic: Statistic) -> float:
    """The statistic of the finite values of `series` themselves, by the rule of its resamples: NaN
    below 3 values (no interval, no point) and, for a ratio, on a constant series."""
    x = series[np.isfinite(series)].astype(np.float64)
    if x.size < 3:
        return math.nan
    return float(np.mean(x)) if statistic is mean_of_rows else mean_over_std(x)


def _blocks(rng: np.random.Generator, n: int, count: int, mean_block: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths), `count` rows of blocks whose lengths add up to n in every row (blocks past
    the n-th value have length 0)."""
    # Blocks a row needs: about n / mean_block; draw that plus 4 standard deviations (a row still
    # short draws again, wider).
    expected = n / mean_block
    width = int(expected + 4 * math.sqrt(expected * mean_block) + 8)
    while True:
        lengths = rng.geometric(1.0 / mean_block, size=(count, width))
        starts = rng.integers(0, n, size=(count, width))
        ends = np.cumsum(lengths, axis=1)
        if np.all(ends[:, -1] >= n):
            break
        width *= 2  # too few blocks drawn for some row: draw again, wider (the stream moves on)
    begins = ends - lengths
    lengths = np.clip(n - begins, 0, lengths)
    return starts, lengths


def resample_moments(
    x: np.ndarray, rng: np.random.Generator, count: int, mean_block: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sum and sum of squares of `count` stationary-bootstrap resamples of x (centred on x's mean,
    which the returned sums add back, so no precision is lost to a large mean)."""
    n = x.size
    centre = float(np.mean(x))
    d = x - centre
    twice = np.concatenate([d, d])
    first = np.concatenate([[0.0], np.cumsum(twice)])
    second = np.concatenate([[0.0], np.cumsum(twice * twice)])
    starts, lengths = _blocks(rng, n, count, mean_block)
    stops = starts + lengths  # <= 2n - 1: a block is at most n long after the cut
    sums = np.sum(first[stops] - first[starts], axis=1)
    squares = np.sum(second[stops] - second[starts], axis=1)
    # Back to x: sum x = sum d + n c; sum x^2 = sum d^2 + 2 c sum d + n c^2.
    return sums + n * centre, squares + 2 * centre * sums + n * centre * centre


def interval(
    series: np.ndarray,
    statistic: Statistic,
    rng: np.random.Generator,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, int]:
    """(lower, upper, mean block length) of the percentile interval of `statistic` over the
    finite values of `series`. NaN bounds when fewer than 3 values."""
    x = series[np.isfinite(series)].astype(np.float64)
    n = x.size
    if n < 3:
        return math.nan, math.nan, 0
    b = block_length(n)
    sums, squares = resample_moments(x, rng, resamples, b)
    draws = statistic(sums, squares, n, variance_floor(x))
    draws = draws[np.isfinite(draws)]
    if draws.size == 0:
        return math.nan, math.nan, b
    tail = (1.0 - confidence) / 2.0
    lower, upper = np.quantile(draws, [tail, 1.0 - tail])
    return float(lower), float(upper), b
