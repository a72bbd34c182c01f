"""Average ranks and correlations in numpy: the kit installs without scipy (the server's
dependency). `average_rank` is `scipy.stats.rankdata(method="average")`; `pearson` is the
correlation of the centred, normalised vectors, as `scipy.stats.pearsonr` computes it;
tests/sealkit/test_ranking.py holds both equal to scipy's."""

from __future__ import annotations

import numpy as np


def average_rank(values: np.ndarray) -> np.ndarray:
    """1 = lowest; ties share the average of their ranks (float64, exact halves)."""
    values = np.asarray(values)
    n = values.size
    if n == 0:
        return np.empty(0, dtype=np.float64)
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    # a new tie group starts where the sorted value changes
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], n]  # exclusive
    # the group [s, e) holds ranks s+1 .. e: their average is (s + 1 + e) / 2
    group_rank = (starts + 1 + ends) / 2.0
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat(group_rank, ends - starts)
    return ranks


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two equal-length vectors (NaN when either is constant)."""
    xm = np.asarray(x, dtype=np.float64) - np.mean(x)
    ym = np.asarray(y, dtype=np.float64) - np.mean(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        xmax, ymax = np.max(np.abs(xm)), np.max(np.abs(ym))
        normx = xmax * np.linalg.norm(xm / xmax)
        normy = ymax * np.linalg.norm(ym / ymax)
        r = float(np.dot(xm / normx, ym / normy))
    return float(np.clip(r, -1.0, 1.0)) if np.isfinite(r) else float("nan")


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of the average ranks."""
    return pearson(average_rank(x), average_rank(y))
