"""Correlation of two alphas on three bases (docs/analytics.md, "correlation").

- returns: Pearson and Spearman of daily long_short returns over the sessions both have;
- ic: Pearson and Spearman of weekly IC over the weeks both have;
- scores: the mean over common weeks of the cross-sectional Spearman of the two conditioned scores
  over the names both scored that week.

A correlation needs MIN_OVERLAP common observations and variance on both sides; otherwise it is
NaN. Spearman uses average ranks for ties, as every rank correlation of the service does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

MIN_OVERLAP = 3
BASES = ("returns", "ic", "scores")


@dataclass(frozen=True)
class Correlation:
    pearson: float  # NaN on the scores basis
    spearman: float
    overlap: int  # common sessions (returns) or weeks (ic, scores)
    common_names: float  # scores: mean common names per counted week; NaN otherwise


def _both_finite(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


def series_correlation(
    dates_a: np.ndarray, values_a: np.ndarray, dates_b: np.ndarray, values_b: np.ndarray
) -> Correlation:
    """Pearson and Spearman over the dates both series hold a finite value (dates unique, sorted)."""
    _, in_a, in_b = np.intersect1d(dates_a, dates_b, assume_unique=True, return_indices=True)
    x, y = _both_finite(values_a[in_a], values_b[in_b])
    if x.size < MIN_OVERLAP or not (np.ptp(x) > 0 and np.ptp(y) > 0):
        return Correlation(math.nan, math.nan, int(x.size), math.nan)
    pearson = float(np.corrcoef(x, y)[0, 1])
    spearman = float(stats.spearmanr(x, y).statistic)
    return Correlation(pearson, spearman, int(x.size), math.nan)


def scores_correlation(a: pl.DataFrame, b: pl.DataFrame) -> Correlation:
    """`a` and `b`: (date, symbol, score) of each alpha. Weeks count when at least MIN_OVERLAP names
    carry a finite score on both sides and neither side is constant."""
    pairs = (
        a.select("date", "symbol", pl.col("score").alias("_x"))
        .join(b.select("date", "symbol", pl.col("score").alias("_y")), on=["date", "symbol"], how="inner")
        .filter(pl.col("_x").is_finite() & pl.col("_y").is_finite())
    )
    weekly = (
        pairs.with_columns(
            pl.col("_x").rank("average").over("date").alias("_rx"),
            pl.col("_y").rank("average").over("date").alias("_ry"),
        )
        .group_by("date")
        .agg(
            pl.when((pl.len() >= MIN_OVERLAP) & (pl.col("_rx").std() > 0) & (pl.col("_ry").std() > 0))
            .then(pl.corr("_rx", "_ry"))
            .otherwise(None)
            .fill_nan(None)
            .alias("rho"),
            pl.len().alias("n"),
        )
        .drop_nulls("rho")
    )
    if weekly.height == 0:
        return Correlation(math.nan, math.nan, 0, math.nan)
    rho = weekly["rho"].to_numpy()
    return Correlation(math.nan, float(rho.mean()), int(rho.size), float(weekly["n"].mean()))
