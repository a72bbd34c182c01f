"""Compounding, running peaks and drawdowns: the one home of each, which every figure that
compounds a return or measures a fall from a peak calls (the equity curve and the benchmark
series, risk, checks, costs, quantiles, compare, combine, live, drawdown episodes, and the
pipeline's factor tables).

Conventions (docs/api.md): a missing return (NaN) adds nothing to a compounded series (its factor
is 1); a level's running peak skips missing levels; a drawdown is in percentage points of the
peak, positive below it, and null where the peak is not positive.
"""

from __future__ import annotations

import math
import warnings

import numpy as np


def growth(returns: np.ndarray, axis: int = 0) -> np.ndarray:
    """The running growth factor prod_{s<=t} (1 + r_s) along `axis`, a missing return adding
    nothing (empyrical's cum_returns)."""
    return np.cumprod(np.where(np.isnan(returns), 1.0, 1.0 + returns), axis=axis)


def cumulative(returns: np.ndarray) -> np.ndarray:
    """prod_{s<=t} (1 + r_s) - 1 of a 1-d series, a missing return adding nothing, and NaN until
    the first known return (the equity curve's `cumulative_return`)."""
    return np.where(np.cumsum(~np.isnan(returns)) > 0, growth(returns) - 1.0, np.nan)


def total_growth(returns: np.ndarray) -> float:
    """prod(1 + r) over the whole series (1.0 without a return)."""
    return float(np.prod(1.0 + returns))


def log_growth(returns: np.ndarray) -> float:
    """sum(log(1 + r)): the log of the compounded growth, -inf once a return loses everything
    (r <= -1), where the product would be 0 or of no meaning."""
    factors = 1.0 + returns
    return float(np.sum(np.log(factors))) if np.all(factors > 0) else -math.inf


def period_growth(returns: np.ndarray, keys: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(starts, growth): each run of consecutive sessions sharing a key (`keys`, one per return;
    None: each session alone) and its compounded growth prod(1 + r) over the run. The returns
    must all be known (filter the missing ones first)."""
    if returns.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    if keys is None:
        starts = np.arange(returns.size)
    else:
        starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return starts, np.multiply.reduceat(1.0 + returns, starts)


def running_peak(levels: np.ndarray) -> np.ndarray:
    """The running maximum of a level series, skipping missing levels (NaN until the first)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        peak: np.ndarray = np.fmax.accumulate(levels) if levels.size else levels
    return peak


def drawdown_pct(peak: np.ndarray, level: np.ndarray) -> np.ndarray:
    """(peak - level) / peak x 100: the fall below the running peak in percentage points of it,
    NaN where the peak is not positive."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(peak > 0, (peak - level) / peak * 100, np.nan)


def equity_from_one(returns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(level, peak) of a book compounded from 1.0 before its first session: level_t =
    prod_{s<=t} (1 + r_s), peak_t = max(1, level_1..t) (the opening equity counts, as on the
    equity curve)."""
    level = np.cumprod(1.0 + returns)
    peak = np.maximum.accumulate(np.maximum(level, 1.0)) if level.size else level
    return level, peak


def max_drawdown_fraction(returns: np.ndarray) -> float:
    """The deepest fall of the compounded equity from its running peak, as a positive fraction of
    the peak (0.25 = 25%; the server serves it x 100 as `max_drawdown_pct`, percentage points):
    max_t (1 - E_t / max_{s<=t} E_s), E the equity (1 + r).cumprod() with the start at 1.0
    included (a first losing session is a drawdown). NaN without a session; 0 without a fall."""
    if returns.size == 0:
        return math.nan
    equity = np.concatenate([[1.0], np.cumprod(1.0 + returns)])
    return float(np.max(1.0 - equity / np.maximum.accumulate(equity)))
