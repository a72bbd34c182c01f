"""Daily returns of a ledger and their mean-over-deviation ratio, as every analytics figure
reads them (the same definitions as the equity curve's `period_return` and `/metrics`'
information ratio)."""

from __future__ import annotations

import math

import numpy as np

from analytics.variance import measurable_std


def daily_returns(starting_equity: np.ndarray, ending_equity: np.ndarray) -> np.ndarray:
    """ending / starting - 1 per session; NaN where the starting equity is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(starting_equity != 0, ending_equity / starting_equity - 1.0, np.nan)


def mean_over_std(values: np.ndarray) -> float:
    """mean / std(ddof=1) of the finite values; NaN below 2 of them or without measurable variance
    (`analytics.variance`)."""
    x = values[np.isfinite(values)]
    sd = measurable_std(x)
    return float(np.mean(x)) / sd if math.isfinite(sd) else math.nan
