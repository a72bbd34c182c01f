"""What a book's modelled execution costs take, and at what cost level it stops paying.

Ledger flows (`execution_cost`, the equity columns) are in normalised equity (1.0 = the book's
equity at inception); notional columns are in base currency, and `equity_basis` converts them
(notional / equity_basis is in equity units). Over the window's sessions t:

- daily net return r_t = ending_t / starting_t - 1; the cost rate k_t = -execution_cost_t /
  starting_t (the ledger books costs as negative flows); the gross return g_t = r_t + k_t;
- net P&L = sum(ending - starting), execution cost = -sum(execution_cost), gross = net + cost;
- break-even multiple m*: the multiple of the modelled cost at which the window's compounded net
  return is zero, prod(1 + g_t - m* k_t) = 1 (the root of a decreasing function of m, found by
  Brent's method); in basis points of traded notional, m* times the modelled rate
  cost / (sum(turnover_notional / equity_basis)) * 10^4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from analytics.returns import daily_returns, mean_over_std

BPS = 10_000.0
MAX_MULTIPLE = 1e6  # beyond this, costs are immaterial: reported as not measurable


@dataclass(frozen=True)
class CostFigures:
    sessions: int
    net_pnl: float
    execution_cost: float
    gross_pnl: float
    traded_notional: float  # in equity units
    break_even_multiple: float  # NaN when not measurable (see `why_not`)
    break_even_bps: float
    modelled_cost_bps: float
    net_information_ratio: float
    gross_information_ratio: float
    why_not: str | None  # why the break-even figures are not measurable


def information_ratio(returns: np.ndarray, periods_per_year: int) -> float:
    """mean / std(ddof=1) of the finite returns times sqrt(periods_per_year)."""
    return mean_over_std(returns) * math.sqrt(periods_per_year)


def compounded_growth(gross: np.ndarray, cost_rate: np.ndarray, multiple: float) -> float:
    """log of prod(1 + g_t - m k_t); -inf once a session loses everything."""
    factors = 1.0 + gross - multiple * cost_rate
    return float(np.sum(np.log(factors))) if np.all(factors > 0) else -math.inf


def break_even_multiple(gross: np.ndarray, cost_rate: np.ndarray) -> float:
    """m* with prod(1 + g_t - m* k_t) = 1, for a window that pays before costs (log growth at
    m = 0 above 0) and has costs (k_t >= 0, not all 0); NaN beyond MAX_MULTIPLE."""
    high = 1.0
    while compounded_growth(gross, cost_rate, high) > 0:
        high *= 2.0
        if high > MAX_MULTIPLE:
            return math.nan

    def growth(m: float) -> float:
        value = compounded_growth(gross, cost_rate, m)
        return value if math.isfinite(value) else -1e300

    return float(optimize.brentq(growth, 0.0, high, xtol=1e-14, rtol=4 * np.finfo(float).eps))


def cost_figures(
    starting_equity: np.ndarray,
    ending_equity: np.ndarray,
    equity_basis: np.ndarray,
    execution_cost: np.ndarray,
    turnover_notional: np.ndarray,
    periods_per_year: int,
) -> CostFigures:
    """The figures of the window's sessions (every column in date order, one value per session)."""
    net_returns = daily_returns(starting_equity, ending_equity)
    with np.errstate(divide="ignore", invalid="ignore"):
        cost_rate = np.where(starting_equity != 0, -execution_cost / starting_equity, np.nan)
        traded_per_session = turnover_notional / equity_basis
    gross_returns = net_returns + cost_rate
    net = float(np.sum(ending_equity - starting_equity))
    cost = -float(np.sum(execution_cost))
    traded = float(np.sum(traded_per_session))
    usable = np.isfinite(gross_returns) & np.isfinite(cost_rate)
    why_not = None
    if not cost > 0:
        why_not = "the book paid no modelled execution cost in the window"
    elif not np.all(usable):
        why_not = "a session of the window has no starting equity, so its return is undefined"
    elif not compounded_growth(gross_returns, cost_rate, 0.0) > 0:
        why_not = "the book loses before costs in the window: no cost level makes it pay"
    multiple = math.nan if why_not is not None else break_even_multiple(gross_returns, cost_rate)
    if why_not is None and not math.isfinite(multiple):
        why_not = f"the book still pays at {MAX_MULTIPLE:g} times its modelled costs"
    modelled_bps = cost / traded * BPS if traded > 0 and cost >= 0 else math.nan
    return CostFigures(
        sessions=int(ending_equity.size),
        net_pnl=net,
        execution_cost=cost,
        gross_pnl=net + cost,
        traded_notional=traded,
        break_even_multiple=multiple,
        break_even_bps=multiple * modelled_bps if why_not is None else math.nan,
        modelled_cost_bps=modelled_bps,
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
