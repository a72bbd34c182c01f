"""What a book's modelled execution costs take, and at what cost level it stops paying.

Additive over the window's sessions, in units of capital (`equity_basis` times equity):
- net P&L = sum of (ending_equity - starting_equity) * equity_basis, every flow included;
- execution cost = -sum of execution_cost (the ledger books costs as negative flows);
- gross P&L = net P&L + execution cost;
- break-even multiple m* = gross / cost: net P&L with costs scaled by m is gross - m * cost, zero
  at m*; the break-even cost in basis points of traded notional is gross / sum(turnover_notional)
  * 10^4, the modelled cost's rate is cost / sum(turnover_notional) * 10^4, and their ratio is m*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BPS = 10_000.0


@dataclass(frozen=True)
class CostFigures:
    sessions: int
    net_pnl: float
    execution_cost: float
    gross_pnl: float
    traded_notional: float
    break_even_multiple: float  # NaN when not measurable (see `why_not`)
    break_even_bps: float
    modelled_cost_bps: float
    net_information_ratio: float
    gross_information_ratio: float
    why_not: str | None  # why the break-even figures are not measurable


def information_ratio(returns: np.ndarray, periods_per_year: int) -> float:
    """mean / std(ddof=1) of the finite returns times sqrt(periods_per_year); NaN below 2 values."""
    x = returns[np.isfinite(returns)]
    if x.size < 2:
        return math.nan
    sd = float(np.std(x, ddof=1))
    return float(np.mean(x)) / sd * math.sqrt(periods_per_year) if sd > 0 else math.nan


def cost_figures(
    starting_equity: np.ndarray,
    ending_equity: np.ndarray,
    equity_basis: np.ndarray,
    execution_cost: np.ndarray,
    turnover_notional: np.ndarray,
    periods_per_year: int,
) -> CostFigures:
    flows = np.nan_to_num
    net = float(np.sum(flows((ending_equity - starting_equity) * equity_basis)))
    cost = -float(np.sum(flows(execution_cost)))
    gross = net + cost
    traded = float(np.sum(flows(turnover_notional)))
    with np.errstate(divide="ignore", invalid="ignore"):
        capital = starting_equity * equity_basis
        net_returns = np.where(starting_equity != 0, ending_equity / starting_equity - 1.0, np.nan)
        gross_returns = net_returns - np.where(capital != 0, execution_cost / capital, np.nan)
    why_not = None
    if ending_equity.size == 0:
        why_not = "the window holds no session of this book"
    elif not cost > 0:
        why_not = "the book paid no modelled execution cost in the window"
    elif not gross > 0:
        why_not = "the book loses before costs in the window: no cost level makes it pay"
    multiple = gross / cost if why_not is None else math.nan
    return CostFigures(
        sessions=int(ending_equity.size),
        net_pnl=net,
        execution_cost=cost,
        gross_pnl=gross,
        traded_notional=traded,
        break_even_multiple=multiple,
        break_even_bps=gross / traded * BPS if why_not is None and traded > 0 else math.nan,
        modelled_cost_bps=cost / traded * BPS if traded > 0 else math.nan,
        net_information_ratio=information_ratio(net_returns, periods_per_year),
        gross_information_ratio=information_ratio(gross_returns, periods_per_year),
        why_not=why_not,
    )


def holding_period_weeks(gross_weight: np.ndarray, turnover: np.ndarray) -> float:
    """Mean gross weight over mean one-way weekly turnover (weeks a position is held on average);
    NaN without turnover."""
    if turnover.size == 0:
        return math.nan
    mean_turnover = float(np.mean(turnover))
    return float(np.mean(gross_weight)) / mean_turnover if mean_turnover > 0 else math.nan
