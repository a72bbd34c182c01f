"""Stationary block bootstrap (Politis, D. N. and Romano, J. P. (1994), "The Stationary
Bootstrap", JASA 89(428)) with percentile confidence intervals: the project's one bootstrap
(`/analytics/significance` and `/analytics/uncertainty`).

A resample is blocks of the series laid end to end until it holds n values: each block starts at
a uniform position, has a geometric length of mean `block_length` (p = 1/mean), and wraps around
the end of the series; the last block is cut at n. The mean block length is Politis and White's
(2004) automatic choice for the stationary bootstrap, with Patton, Politis and White's (2009)
correction (`block_length`), at least 1. Each statistic draws from its own stream,
`numpy.random.Generator(PCG64(SeedSequence([seed, stream])))` (`generator`), so the same series,
seed, stream and number of resamples always give the same interval, whatever else is computed.
A stream's first uniforms are kept per process (`kept_stream`, bounded): read as a fresh generator
reads them, so a request's resamples cost no random draw.

A mean, and a mean over a standard deviation, need only each resample's sum and sum of squares,
so those resamples cost one prefix-sum difference per block, not one value per observation: the
blocks are drawn, never the resampled series. A share (the hit rate) is the mean of an indicator.
The maximum drawdown depends on the order of the values: its resamples are laid out (one gather of
count x n values) and compounded row by row.

Those sums carry rounding: a resample that repeats one value (likely on a short series: 1 in 9 of
a 3-value series' resamples) comes out with a sum of squared deviations near 1e-20 instead of 0.
Resamples and the point estimate follow the project's one rule for "no measurable variance"
(`analytics.variance`), over the series' own floor.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analytics.compounding import max_drawdown_fraction
from analytics.returns import mean_over_std
from analytics.variance import variance_floor

RESAMPLES = 2000
SEED = 20261122
CONFIDENCE = 0.95
MIN_OBSERVATIONS = 3
"""Below this, no point and no interval."""


def generator(seed: int, stream: int) -> np.random.Generator:
    """The generator of one statistic: stream `stream` of `seed`."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, stream])))


KEPT_UNIFORMS = 1 << 21
"""Uniforms kept per (seed, stream) by `kept_stream`: 2,097,152 float64 values and as many of their
log1p(-u), 32 MB a stream, at most KEPT_STREAMS streams (128 MB; the uncertainty intervals read two).
A window of up to 1,048 sessions drawn one value a block (the plain bootstrap), or any longer
mean block, reads within it; a draw past it comes from a fresh generator moved there."""
KEPT_STREAMS = 4


class _Prefix:
    """The first uniforms of one stream and their log1p(-u) (a block length's draw), grown on
    demand up to KEPT_UNIFORMS (the generator kept at the end of what is kept: growing continues
    the stream)."""

    def __init__(self, seed: int, stream: int) -> None:
        self.seed, self.stream = seed, stream
        self.rng = generator(seed, stream)
        self.values = np.empty(0)
        self.logs = np.empty(0)
        self.lock = threading.Lock()

    def take(self, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Uniforms start .. start + count of the stream and their log1p(-u) (read-only)."""
        end = start + count
        if end > KEPT_UNIFORMS:  # beyond the bound: from a generator moved to `start` (PCG64
            # gives one 64-bit output per float64 uniform, so `advance(start)` lands there)
            bits = np.random.PCG64(np.random.SeedSequence([self.seed, self.stream]))
            bits.advance(start)
            fresh = np.random.Generator(bits).random(size=count)
            return fresh, np.log1p(-fresh)
        values, logs = self.values, self.logs
        if end > values.size:
            with self.lock:
                values, logs = self.values, self.logs
                if end > values.size:
                    more = self.rng.random(size=min(KEPT_UNIFORMS, max(end, 2 * values.size)) - values.size)
                    values = np.concatenate([values, more])
                    logs = np.concatenate([logs, np.log1p(-more)])
                    values.setflags(write=False)
                    logs.setflags(write=False)
                    self.values, self.logs = values, logs
        return values[start:end], logs[start:end]


@functools.lru_cache(maxsize=KEPT_STREAMS)
def _prefix(seed: int, stream: int) -> _Prefix:
    return _Prefix(seed, stream)


class KeptStream:
    """Stream `stream` of `seed` read as `generator(seed, stream).random(size=...)` reads it, value for
    value, from the stream's first uniforms kept across requests (they depend on the seed and the
    stream alone), with their log1p(-u): a request's resamples then cost no random draw and no
    logarithm. One cursor per use, as one generator per use."""

    def __init__(self, seed: int, stream: int) -> None:
        self._prefix = _prefix(seed, stream)
        self._at = 0

    def random_and_logs(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The next uniforms in `shape` and their log1p(-u)."""
        count = math.prod(shape)
        values, logs = self._prefix.take(self._at, count)
        self._at += count
        return values.reshape(shape), logs.reshape(shape)

    def random(self, size: tuple[int, ...]) -> np.ndarray:
        return self.random_and_logs(size)[0]


def fill_kept(seed: int, stream: int) -> None:
    """Stream `stream` of `seed`'s whole kept prefix (KEPT_UNIFORMS uniforms and their logs, 32
    MiB) drawn now: a server worker's warm-up (serve/warm.py) pays what the first request over a
    long history would, which grows the prefix to this bound anyway."""
    _prefix(seed, stream).take(0, KEPT_UNIFORMS)


def kept_stream(seed: int, stream: int) -> KeptStream:
    """`generator(seed, stream)`'s uniforms, from the kept prefix (`KeptStream`)."""
    return KeptStream(seed, stream)


def block_length(x: np.ndarray) -> float:
    """Politis and White's (2004) optimal mean block length of the stationary bootstrap for the
    series x, with Patton, Politis and White's (2009) correction (D_SB = 2 sigma^4), at least 1.

    b = (2 G^2 / D_SB)^(1/3) n^(1/3), G = sum_{|k|<=M} h(k/M) |k| R(k), sigma^2 = sum_{|k|<=M}
    h(k/M) R(k), h the flat-top (trapezoid) kernel min(1, 2(1 - |x|)), R(k) the autocovariance
    (divided by n). M = 2 m_hat, m_hat the first lag after which K_N = max(5, floor(log10 n))
    autocorrelations all lie within +-2 sqrt(log10(n) / n); at most ceil(sqrt(n)) + K_N; b at
    most ceil(min(3 sqrt(n), n / 3)). The tuning constants are Patton's MATLAB program's, as
    `arch.bootstrap.optimal_block_length` takes them (the tests compare the two)."""
    n = x.size
    eps = x - np.mean(x)
    b_max = math.ceil(min(3 * math.sqrt(n), n / 3))
    kn = max(5, int(math.log10(n)))
    m_max = math.ceil(math.sqrt(n)) + kn
    cv = 2 * math.sqrt(math.log10(n) / n)
    acv = np.zeros(m_max + 1)
    acorr = np.zeros(m_max + 1)
    squares = np.concatenate([[0.0], np.cumsum(eps * eps)])
    m_hat: int | None = None
    for i in range(m_max + 1):
        cross = float(eps[i:] @ eps[: n - i]) if i < n else 0.0
        acv[i] = cross / n
        # the two sums of squares of the lag's overlapping parts, as arch pairs them
        head = squares[n] - squares[min(i + 1, n)]
        tail = squares[max(n - i - 1, 0)]
        with np.errstate(divide="ignore", invalid="ignore"):
            acorr[i] = abs(cross) / math.sqrt(head * tail) if head * tail > 0 else math.nan
        if m_hat is None and i >= kn and bool(np.all(acorr[i - kn : i] < cv)):
            m_hat = i - kn
    m = min(2 * max(m_hat, 1) if m_hat is not None else m_max, m_max)
    k = np.arange(1, m + 1)
    kernel = np.where(k / m <= 0.5, 1.0, 2.0 * (1.0 - k / m))
    g = float(np.sum(2.0 * kernel * k * acv[1 : m + 1]))
    sigma2 = float(acv[0]) + float(np.sum(2.0 * kernel * acv[1 : m + 1]))
    if not math.isfinite(sigma2) or acv[0] == 0:
        return 1.0  # a constant series: no variance to estimate a block length from
    # A series so short that every lag has full weight: its autocovariances add up to (the sum of
    # its deviations)^2 / n, zero in exact arithmetic, so b is unbounded and capped at b_max (as
    # arch's formula gives); its last bits (+-1e-20, by CPU) must not choose the answer.
    if abs(sigma2) <= 1e-12 * float(acv[0]):
        return float(b_max)
    b = (2.0 * g * g / (2.0 * sigma2 * sigma2)) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
    return float(max(1.0, min(b, float(b_max))))


def draw_blocks(
    rng: np.random.Generator | KeptStream, n: int, count: int, mean_block: float, length: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths), `count` rows of blocks whose lengths add up to `length` (default n, a
    resample as long as the series) in every row (blocks past the last value have length 0; columns
    where every row's block has length 0 are cut off). Starts lie in [0, n); a resample longer than
    the series (a simulated path, `analytics.drawdown_odds`) may hold a block longer than n, which
    its reader wraps around the series as often as it needs (positions modulo n)."""
    size = n if length is None else length
    if mean_block <= 1.0:  # every block one value long: the plain bootstrap, no lengths to draw
        return (rng.random(size=(count, size)) * n).astype(np.int64), np.ones((count, size), dtype=np.int64)
    # Blocks a row needs: about size / b (blocks start at each value with probability 1 / b), whose
    # standard deviation is at most sqrt(size / b); draw 5 of them more (a row still short draws
    # again, wider).
    expected = size / mean_block
    width = int(expected + 5 * math.sqrt(expected) + 8)
    # Geometric lengths of mean b by inversion, 1 + floor(log(1 - u) / log(1 - 1/b)) (numpy's
    # `geometric` draws one at a time for p > 1/3 and is several times slower); starts floor(u n).
    log_stay = math.log1p(-1.0 / mean_block)
    while True:
        if isinstance(rng, KeptStream):
            uniform, logs = rng.random_and_logs((2, count, width))
            log_leave = logs[0]
        else:
            uniform = rng.random(size=(2, count, width))
            log_leave = np.log1p(-uniform[0])
        starts = (uniform[1] * n).astype(np.int64)
        lengths = (np.floor(log_leave / log_stay) + 1).astype(np.int64)
        ends = np.cumsum(lengths, axis=1)
        if np.all(ends[:, -1] >= size):
            break
        width *= 2  # too few blocks drawn for some row: draw again, wider (the stream moves on)
    begins = ends - lengths
    lengths = np.maximum(np.minimum(size - begins, lengths), 0)  # the last block cut, those after it empty
    used = int(np.max(np.count_nonzero(lengths, axis=1)))  # a row's empty blocks are its last
    return starts[:, :used], lengths[:, :used]


def blocks_of_indices(indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths) of resamples given as rows of positions into a series of n values (as
    `arch.bootstrap.StationaryBootstrap` draws them): a block runs while each position follows the
    one before (n - 1 followed by 0). So any stationary-bootstrap draw feeds the same statistics."""
    count, n = indices.shape
    follows = np.zeros_like(indices, dtype=bool)
    follows[:, 1:] = indices[:, 1:] == (indices[:, :-1] + 1) % n
    rows, cols = np.nonzero(~follows)
    widths = np.bincount(rows, minlength=count)
    slot = np.arange(rows.size) - np.repeat(np.cumsum(widths) - widths, widths)
    starts = np.zeros((count, int(widths.max())), dtype=np.int64)
    lengths = np.zeros_like(starts)
    starts[rows, slot] = indices[rows, cols]
    ends = np.append(cols[1:], n)
    ends[np.cumsum(widths) - 1] = n  # a row's last block runs to its end
    lengths[rows, slot] = ends - cols
    return starts, lengths


Moments = tuple[np.ndarray, np.ndarray, np.ndarray]
"""(sum, sum of squares, count) of each resample's finite values."""


def moments_of(
    series: list[np.ndarray], starts: np.ndarray, lengths: np.ndarray, squared: list[bool] | None = None
) -> list[Moments]:
    """The moments of each series (all of the same n values) over the resamples (starts, lengths): a
    block's sum is two prefix sums of (x, x) apart, gathered by flat positions computed once (one
    1-d gather per column: numpy's gathers of rows of a 2-d array are several times slower); blocks
    all one value long (the plain bootstrap) gather the values themselves. Each series is centred on
    the mean of its finite values, which the sums add back, so no precision is lost to a large mean;
    a value that is not finite counts as no value. `squared`: whether each series' sums of squares
    are read (NaN where not: a mean needs none)."""
    n = series[0].size
    shape = starts.shape
    first, last = starts.ravel(), (starts + lengths).ravel()  # <= 2n - 1: a block is at most n long
    plain = shape[1] == n and int(lengths.max(initial=0)) == 1

    def summed(values: np.ndarray) -> np.ndarray:
        if plain:
            return np.sum(values.take(first).reshape(shape), axis=1)
        prefix = np.concatenate([[0.0], np.cumsum(np.concatenate([values, values]))])
        return np.sum((prefix.take(last) - prefix.take(first)).reshape(shape), axis=1)

    out: list[Moments] = []
    for x, square in zip(series, squared or [True] * len(series), strict=True):
        finite = np.isfinite(x)
        centre = float(np.mean(x[finite])) if finite.any() else 0.0
        d = np.where(finite, x - centre, 0.0)
        sums = summed(d)
        squares = summed(d * d) if square else np.full(shape[0], np.nan)
        counts = np.full(shape[0], float(n)) if finite.all() else summed(finite.astype(np.float64))
        # Back to x: sum x = sum d + k c; sum x^2 = sum d^2 + 2 c sum d + k c^2 (k values).
        out.append((sums + counts * centre, squares + 2 * centre * sums + counts * centre * centre, counts))
    return out


@dataclass(frozen=True)
class Resamples:
    """`count` stationary-bootstrap resamples of x, held as their blocks: rows of (start, length),
    each row's lengths adding up to n (a block wraps past x's end). A value of x that is not finite
    is in the resamples but left out of their moments (each resample counts its own). `known`: the
    moments, when computed with other series' (`moments_of`)."""

    x: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    known: Moments | None = None

    @property
    def n(self) -> int:
        return int(self.x.size)

    @property
    def moments(self) -> Moments:
        return self.known if self.known is not None else moments_of([self.x], self.starts, self.lengths)[0]

    def positions(self) -> np.ndarray:
        """(count, n) positions into x twice over (x, x): each resample's values in order."""
        count = self.starts.shape[0]
        lengths = self.lengths.ravel()
        begins = np.cumsum(lengths) - lengths  # where each block begins in the flat layout
        return (np.repeat(self.starts.ravel() - begins, lengths) + np.arange(count * self.n)).reshape(
            count, self.n
        )


@dataclass(frozen=True)
class Statistic:
    """A statistic of a series: of its resamples (one value per row, NaN where not measurable) and of
    the series' finite values (the point: the served figure's own function)."""

    of_resamples: Callable[[Resamples], np.ndarray]
    of_series: Callable[[np.ndarray], float]
    name: str
    moments: bool = True  # reads the resamples' moments only
    squares: bool = True  # and of them the sums of squares


def _mean_rows(r: Resamples) -> np.ndarray:
    sums, _, counts = r.moments
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > 0, sums / counts, np.nan)


def _ratio_rows(r: Resamples) -> np.ndarray:
    """mean / std(ddof=1) of each resample; NaN where the resample is constant (its sum of squared
    deviations at most the series' variance floor) or holds fewer than 2 values."""
    sums, squares, counts = r.moments
    floor = variance_floor(r.x[np.isfinite(r.x)])
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = sums / counts
        deviations = squares - sums * mean
        sd = np.sqrt(np.maximum(deviations, 0.0) / (counts - 1))
        return np.where((deviations > floor) & (counts >= 2), mean / sd, np.nan)


class _RangeTable:
    """Sparse tables over a level series P: its maximum, minimum and largest fall (max over i <= t
    of P_i - P_t) on any range [lo, hi], each answered from two overlapping power-of-two ranges (a
    fall across them from a third pair of ranges), in O(1) gathers for any number of ranges."""

    def __init__(self, level: np.ndarray) -> None:
        m = level.size
        depth = max(1, int(m).bit_length())
        self.high = np.zeros((depth, m))
        self.low = np.zeros((depth, m))
        self.fall = np.zeros((depth, m))
        self.high[0], self.low[0] = level, level
        for j in range(1, depth):
            h = 1 << (j - 1)
            width = m - (1 << j) + 1
            if width <= 0:
                break
            a, b = slice(0, width), slice(h, h + width)
            self.high[j, a] = np.maximum(self.high[j - 1, a], self.high[j - 1, b])
            self.low[j, a] = np.minimum(self.low[j - 1, a], self.low[j - 1, b])
            self.fall[j, a] = np.maximum(
                np.maximum(self.fall[j - 1, a], self.fall[j - 1, b]), self.high[j - 1, a] - self.low[j - 1, b]
            )
        self.log2 = np.zeros(m + 1, dtype=np.int64)
        self.log2[2:] = np.floor(np.log2(np.arange(2, m + 1))).astype(np.int64)

    def _two(
        self, table: np.ndarray, lo: np.ndarray, hi: np.ndarray, k: np.ndarray, pick: Callable
    ) -> np.ndarray:
        row = k * table.shape[1]  # flat positions: one gather each, not numpy's (row, column) indexing
        flat = table.ravel()
        return pick(flat[row + lo], flat[row + hi - (1 << k) + 1])

    def query(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(max, min, largest fall) of P over each [lo, hi] (inclusive, lo <= hi)."""
        k = self.log2[hi - lo + 1]
        high = self._two(self.high, lo, hi, k, np.maximum)
        low = self._two(self.low, lo, hi, k, np.minimum)
        fall = self._two(self.fall, lo, hi, k, np.maximum)
        # A fall from a peak only in the left range to a trough only in the right one:
        # peak in [lo, hi - 2^k], trough in [lo + 2^k, hi] (two ranges of the same width).
        span = 1 << k
        rest = hi - lo + 1 - span
        has = rest > 0
        r = np.maximum(rest, 1)
        k2 = self.log2[r]
        left_hi = np.where(has, hi - span, lo)
        right_lo = np.where(has, lo + span, hi)
        across = self._two(self.high, lo, left_hi, k2, np.maximum) - self._two(
            self.low, right_lo, hi, k2, np.minimum
        )
        return high, low, np.where(has, np.maximum(fall, across), fall)


def _short_paths(level: np.ndarray, n: int, longest: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rise, dip, fall), each (longest + 1, n): over the levels level[s .. s + L] of every start s
    < n and length L <= longest, the highest less the first, the lowest less the first, and the
    largest fall (max over i <= t of level_i - level_t); one pass per length."""
    base = level[:n]
    rise, dip, fall = (np.zeros((longest + 1, n)) for _ in range(3))
    for length in range(1, longest + 1):
        v = level[length : length + n] - base
        fall[length] = np.maximum(fall[length - 1], rise[length - 1] - v)
        rise[length] = np.maximum(rise[length - 1], v)
        dip[length] = np.minimum(dip[length - 1], v)
    return rise, dip, fall


def _max_drawdown_rows(r: Resamples) -> np.ndarray:
    """`analytics.compounding.max_drawdown_fraction` of each resample of daily returns (the equity
    (1 + r).cumprod() from 1.0, its deepest fall below the running peak, 1.0 counting), never laid
    out: in log equity a block is a range of the prefix sums of log(1 + r) over (x, x), whose rise,
    dip and largest fall are looked up (tabled once for every start and every length up to 8 mean
    block lengths; a sparse table answers the rare longer block); the blocks then chain by a running
    sum (the level each starts at) and a running maximum (the peak before it)."""
    x = r.x
    n = r.n
    if not np.all(np.isfinite(x) & (x > -1.0)):
        return _max_drawdown_laid_out(r)  # a session that loses everything: no log equity
    log_growth = np.log1p(x)
    level = np.concatenate([[0.0], np.cumsum(np.concatenate([log_growth, log_growth]))])
    mean_length = float(np.sum(r.lengths)) / max(1, int(np.count_nonzero(r.lengths)))
    longest = min(n, math.ceil(8 * mean_length))
    rise_of, dip_of, fall_of = _short_paths(level, n, longest)
    starts, lengths = r.starts, r.lengths
    short = np.minimum(lengths, longest)
    at = (short * n + starts).ravel()  # flat positions in the (length, start) tables
    rise, dip, fall = (table.ravel().take(at).reshape(starts.shape) for table in (rise_of, dip_of, fall_of))
    long = np.nonzero(lengths > longest)
    if long[0].size:
        lo = starts[long]
        high, low, deep = _RangeTable(level).query(lo, lo + lengths[long])
        rise[long], dip[long], fall[long] = high - level[lo], low - level[lo], deep
    gain = (level.take((starts + lengths).ravel()) - level.take(starts.ravel())).reshape(
        starts.shape
    )  # 0 if empty
    before = np.cumsum(gain, axis=1) - gain  # the log equity each block starts at
    peak = np.maximum.accumulate(before + rise, axis=1)
    peak_before = np.maximum(np.concatenate([np.zeros((peak.shape[0], 1)), peak[:, :-1]], axis=1), 0.0)
    deepest = np.max(np.maximum(fall, peak_before - (before + dip)), axis=1)
    return -np.expm1(-np.maximum(deepest, 0.0))


def _max_drawdown_laid_out(r: Resamples) -> np.ndarray:
    """The same, each resample laid out and compounded (for a series with a return of -100% or
    below, or not finite)."""
    growth = np.concatenate([1.0 + r.x, 1.0 + r.x])[r.positions()]
    equity = np.cumprod(growth, axis=1)
    peak = np.maximum(np.maximum.accumulate(equity, axis=1), 1.0)
    return np.maximum(np.max(1.0 - equity / peak, axis=1), 0.0)


MEAN = Statistic(_mean_rows, lambda x: float(np.mean(x)), "mean", squares=False)
RATIO = Statistic(_ratio_rows, mean_over_std, "mean / std(ddof=1)")
MAX_DRAWDOWN = Statistic(_max_drawdown_rows, max_drawdown_fraction, "max drawdown fraction", moments=False)
# The names significance has always used
mean_of_rows, ratio_of_rows = MEAN, RATIO


def finite(series: np.ndarray) -> np.ndarray:
    return series[np.isfinite(series)].astype(np.float64)


def point(series: np.ndarray, statistic: Statistic) -> float:
    """The statistic of the finite values of `series` themselves: NaN below MIN_OBSERVATIONS (no
    interval, no point) and, for a ratio, on a constant series."""
    x = finite(series)
    return math.nan if x.size < MIN_OBSERVATIONS else statistic.of_series(x)


def resamples_of(x: np.ndarray, rng: np.random.Generator, count: int, mean_block: float) -> Resamples:
    return Resamples(x, *draw_blocks(rng, x.size, count, mean_block))


def percentile_interval(draws: np.ndarray, confidence: float) -> tuple[float, float]:
    """The (1 - confidence) / 2 and (1 + confidence) / 2 quantiles (numpy's linear rule, as arch's
    percentile interval) of the measurable draws; NaN without one."""
    draws = draws[np.isfinite(draws)]
    if draws.size == 0:
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2.0
    lower, upper = np.quantile(draws, [tail, 1.0 - tail])
    return float(lower), float(upper)


def interval(
    series: np.ndarray,
    statistic: Statistic,
    rng: np.random.Generator,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """(lower, upper, mean block length) of the percentile interval of `statistic` over the
    finite values of `series`. NaN bounds (block length 0) below MIN_OBSERVATIONS values."""
    x = finite(series)
    if x.size < MIN_OBSERVATIONS:
        return math.nan, math.nan, 0.0
    b = block_length(x)
    lower, upper = percentile_interval(statistic.of_resamples(resamples_of(x, rng, resamples, b)), confidence)
    return lower, upper, b
