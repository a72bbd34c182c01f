"""The figures of `/analytics/checks` that no other route serves (docs/analytics.md "Checks"):
the information ratio of a book's recent sessions, the share of its calendar years that made
money, and its information ratio with the modelled execution cost doubled.

Returns and cost rates are as `analytics.costs` defines them: the daily net return r_t =
ending_t / starting_t - 1 (after the modelled costs), the cost rate k_t = -execution_cost_t /
starting_t (the ledger books costs as negative flows), the gross return g_t = r_t + k_t.
"""

from __future__ import annotations

import math

import numpy as np

from analytics.returns import daily_returns
from schemas.checks import MIN_YEAR_SESSIONS, RECENT_SESSIONS, STRESS_MULTIPLE


def recent(values: np.ndarray, sessions: int = RECENT_SESSIONS) -> np.ndarray:
    """The last `sessions` values (all of them when there are fewer)."""
    return values[-sessions:] if values.size > sessions else values


def stressed_returns(
    starting_equity: np.ndarray,
    ending_equity: np.ndarray,
    execution_cost: np.ndarray,
    multiple: float = STRESS_MULTIPLE,
) -> np.ndarray:
    """Daily returns paying `multiple` times the modelled cost: g_t - multiple k_t, i.e. the net
    return r_t less (multiple - 1) more cost k_t; NaN where the starting equity is 0."""
    net = daily_returns(starting_equity, ending_equity)
    with np.errstate(divide="ignore", invalid="ignore"):
        cost_rate = np.where(starting_equity != 0, -execution_cost / starting_equity, np.nan)
    return net - (multiple - 1.0) * cost_rate


def positive_years(
    days: np.ndarray, returns: np.ndarray, min_sessions: int = MIN_YEAR_SESSIONS
) -> tuple[int, int]:
    """(calendar years whose compounded return prod(1 + r_t) - 1 is above 0, years counted): a
    year counts when it holds at least `min_sessions` sessions with a finite return. `days`: days
    since 1970, ascending, one per return."""
    finite = np.isfinite(returns)
    years = days[finite].astype("datetime64[D]").astype("datetime64[Y]").astype(np.int64)
    growth = np.log1p(returns[finite])
    labels, index, counts = np.unique(years, return_inverse=True, return_counts=True)
    log_growth = np.bincount(index, weights=growth, minlength=labels.size)
    counted = counts >= min_sessions
    return int(np.count_nonzero(log_growth[counted] > 0)), int(np.count_nonzero(counted))


def share(part: int, whole: int) -> float:
    return part / whole if whole else math.nan
