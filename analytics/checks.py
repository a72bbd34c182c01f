"""The figures of `/analytics/checks` that no other route serves (docs/analytics.md "Checks"):
the information ratio of a book's recent sessions, the share of its calendar years that made
money, its information ratio with the modelled execution cost doubled and the largest weight it
held; and each check's verdict with its reason in words.

Returns and cost rates are as `analytics.costs` defines them: the daily net return r_t =
ending_t / starting_t - 1 (after the modelled costs), the cost rate k_t = -execution_cost_t /
starting_t (the ledger books costs as negative flows), the gross return g_t = r_t + k_t.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from analytics.returns import daily_returns
from schemas.checks import MAX, MIN, MIN_YEAR_SESSIONS, PERCENT_UNITS, RECENT_SESSIONS, STRESS_MULTIPLE, Check

MAX_DIGITS = 17
"""Significant digits that tell any two distinct doubles apart (`verdict`'s numbers stop there)."""


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


def largest_weight(weights: np.ndarray) -> int | None:
    """The index of the largest |weight| (the first on a tie), ignoring non-finite ones; None when
    there is none."""
    magnitude = np.abs(weights)
    finite = np.isfinite(magnitude)
    if not finite.any():
        return None
    return int(np.argmax(np.where(finite, magnitude, -1.0)))


def verdict(
    check: Check, value: float | None, bound: Mapping[str, float], context: Mapping[str, object]
) -> tuple[str, str | None]:
    """(pass, fail or not_measurable; the reason of a pass or a fail): the comparison that decided
    it, then what the value means (the check's `meaning` filled with `context`), e.g.
    "0.744 < 0.95: the probability that ...". A pass needs min <= value <= max on the sides
    `bound` has. None for not_measurable: its reason is why there is no value."""
    if value is None:
        return "not_measurable", None
    low, high = bound.get(MIN), bound.get(MAX)
    shown, lower, upper = numbers((value, low, high), check.unit)
    if low is not None and value < low:
        found, comparison = "fail", f"{shown} < {lower}"
    elif high is not None and value > high:
        found, comparison = "fail", f"{shown} > {upper}"
    elif low is not None and high is not None:
        found, comparison = "pass", f"{lower} <= {shown} <= {upper}"
    else:
        found, comparison = "pass", f"{shown} >= {lower}" if low is not None else f"{shown} <= {upper}"
    # Counts read as counts elsewhere on the site: 1,406 sessions
    named = {k: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else v for k, v in context.items()}
    return found, f"{comparison}: {check.meaning.format(**named)}"


def numbers(values: tuple[float | None, ...], unit: str) -> list[str]:
    """`values` as a reason writes them (None as ""): in percent for PERCENT_UNITS, with the
    fewest significant digits (3 at least) that keep distinct values distinct, so 0.9496 against
    0.95 never reads "0.95 < 0.95"."""
    scale, suffix = (100.0, "%") if unit in PERCENT_UNITS else (1.0, "")
    given = [v * scale for v in values if v is not None]
    for digits in range(3, MAX_DIGITS + 1):
        texts = [f"{v:.{digits}g}" for v in given]
        if len(set(texts)) == len(set(given)):
            break
    out = iter(texts)
    return ["" if v is None else next(out) + suffix for v in values]
