"""Correlation of two alphas on three bases (docs/analytics.md, "Correlation").

- returns: Pearson and Spearman of daily long_short returns over the sessions both have;
- ic: Pearson and Spearman of weekly IC over the weeks both have;
- scores: the mean over common weeks of the cross-sectional Spearman of the two conditioned scores
  over the names both scored that week.

The work splits in two: `align_series` / `weekly_score_spearman` pair the two alphas once (the
dates both have, or each common week's rank correlation), and `correlate` reads a window of
that pairing. A pairing depends only on the two builds, so the server keeps it across requests.

A correlation needs MIN_OVERLAP common observations and variance on both sides; otherwise it is
NaN. Spearman uses average ranks for ties, as every rank correlation of the service does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from analytics.ranks import MIN_PAIRS, spearman_by

MIN_OVERLAP = MIN_PAIRS


@dataclass(frozen=True)
class Correlation:
    pearson: float  # NaN on the scores basis
    spearman: float
    overlap: int  # common sessions (returns) or weeks (ic, scores)
    common_names: float  # scores: mean common names per counted week; NaN otherwise


@dataclass(frozen=True)
class Pairing:
    """Two alphas on one basis, per common date (days since 1970, ascending).

    Series bases: `x` and `y` are the two values. Scores: `x` is the week's rank correlation and
    `y` the number of names behind it."""

    basis: str
    days: np.ndarray
    x: np.ndarray
    y: np.ndarray

    def correlate(self, low: int, high: int) -> Correlation:
        """The correlation over the dates in [low, high] (days since 1970, inclusive)."""
        a, b = np.searchsorted(self.days, low, "left"), np.searchsorted(self.days, high, "right")
        x, y = self.x[a:b], self.y[a:b]
        if self.basis == "scores":
            if x.size == 0:
                return Correlation(math.nan, math.nan, 0, math.nan)
            return Correlation(math.nan, float(np.mean(x)), int(x.size), float(np.mean(y)))
        if x.size < MIN_OVERLAP or not (np.ptp(x) > 0 and np.ptp(y) > 0):
            return Correlation(math.nan, math.nan, int(x.size), math.nan)
        pearson = float(np.corrcoef(x, y)[0, 1])
        # Spearman = Pearson of the average ranks (scipy.stats.spearmanr's definition, without its
        # per-call overhead: a catalogue request correlates against every other alpha).
        spearman = float(np.corrcoef(stats.rankdata(x), stats.rankdata(y))[0, 1])
        return Correlation(pearson, spearman, int(x.size), math.nan)


def align_series(
    basis: str, days_a: np.ndarray, values_a: np.ndarray, days_b: np.ndarray, values_b: np.ndarray
) -> Pairing:
    """The dates both series hold a finite value on (dates unique and ascending on each side)."""
    common, in_a, in_b = np.intersect1d(days_a, days_b, assume_unique=True, return_indices=True)
    x, y = values_a[in_a], values_b[in_b]
    keep = np.isfinite(x) & np.isfinite(y)
    return Pairing(basis, common[keep], x[keep], y[keep])


def weekly_score_spearman(a: pl.DataFrame, b: pl.DataFrame) -> Pairing:
    """`a` and `b`: (date, symbol, score) of each alpha. A week counts when its rank correlation
    exists (`analytics.ranks`: at least 3 names scored on both sides, neither side constant)."""
    pairs = a.select("date", "symbol", pl.col("score").alias("_a")).join(
        b.select("date", "symbol", pl.col("score").alias("_b")), on=["date", "symbol"], how="inner"
    )
    weekly = spearman_by(pairs, ["date"], "_a", "_b").drop_nulls("rho").sort("date")
    days = weekly["date"].cast(pl.Int32).to_numpy()
    return Pairing("scores", days, weekly["rho"].to_numpy(), weekly["n"].cast(pl.Float64).to_numpy())
