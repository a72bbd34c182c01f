"""Daily returns of a ledger and their mean-over-deviation ratio, as every analytics figure
reads them (the same definitions as the equity curve's `period_return` and `/metrics`'
information ratio)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytics.compounding import max_drawdown_fraction
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


def information_ratio(returns: np.ndarray, periods_per_year: int) -> float:
    """mean / std(ddof=1) of the finite returns times sqrt(periods_per_year) (the costs route's, and
    every route's that serves an information ratio of daily returns)."""
    return mean_over_std(returns) * math.sqrt(periods_per_year)


@dataclass(frozen=True)
class BookFigures:
    """A book's figures over the common sessions (NaN: not measurable)."""

    information_ratio: float  # mean / std (ddof 1) x sqrt(per_year)
    excess_sharpe: float  # the same of r - rf; NaN without a risk-free series
    max_drawdown_pct: float  # percentage points of the peak (25.0 = 25%), as /metrics serves it
    annualised_return: float  # mean x per_year
    volatility: float  # std (ddof 1) x sqrt(per_year)


def book_figures(returns: np.ndarray, risk_free: np.ndarray | None, per_year: int) -> BookFigures:
    root = math.sqrt(per_year)
    excess = math.nan if risk_free is None else mean_over_std(returns - risk_free) * root
    std = float(np.std(returns, ddof=1)) if returns.size >= 2 else math.nan
    return BookFigures(
        information_ratio=mean_over_std(returns) * root,
        excess_sharpe=excess,
        max_drawdown_pct=max_drawdown_fraction(returns) * 100.0,
        annualised_return=float(np.mean(returns)) * per_year if returns.size else math.nan,
        volatility=std * root,
    )
