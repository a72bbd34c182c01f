"""The engine's decision layer: week status, target weights and decision reasons per week.

long_short holds floor(10%) of the scored tradeable names on each side at equal weight (+1 long,
-1 short: gross 2.0, dollar neutral); long_only holds floor(20%) at equal weight summing to 1. A
hold buffer keeps turnover realistic: a name the book already holds on a side stays selected while
it still ranks within twice the tail (top or bottom 20% for long_short, top 40% for long_only) of
the eligible names; the places left go to the best-ranked names not held on that side. The raw
twins select on the pre-smoothing score with their own holdings. Ties at a tail boundary are
broken by universe order so a run is reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alpha_results_seal.ranking import average_rank

LONG_SHORT_TAIL = 0.10
LONG_ONLY_TAIL = 0.20
HOLD_BUFFER = 2.0  # a held name stays selected while it ranks within HOLD_BUFFER x the tail
MIN_SCORED_TRADEABLE_SHARE = 0.10
MIN_SCORED_TRADEABLE_NAMES = 10

# Decision reason codes (0 = null).
REASON_NAMES = (
    None,
    "entered_selection",
    "exited_below_threshold",
    "carried_by_smoothing",
    "gated_untradeable",
    "exited_untradeable",
)
ENTERED, EXITED, CARRIED, GATED, EXITED_UNTRADEABLE = 1, 2, 3, 4, 5


@dataclass(frozen=True)
class Decisions:
    week_status: list[str]
    average_rank: np.ndarray  # (W, n), NaN where no score
    raw_average_rank: np.ndarray
    long_short: np.ndarray  # (W, n) target weights
    long_only: np.ndarray
    raw_long_short: np.ndarray
    raw_long_only: np.ndarray
    decision_reason: np.ndarray  # (W, n) int8 codes into REASON_NAMES
    raw_decision_reason: np.ndarray


def minimum_scored_tradeable(universe_size: int) -> int:
    return max(MIN_SCORED_TRADEABLE_NAMES, int(np.ceil(MIN_SCORED_TRADEABLE_SHARE * universe_size)))


def descending_average_rank(values: np.ndarray) -> np.ndarray:
    """1 = highest value; ties share the average of their ranks; NaN stays NaN."""
    out = np.full(values.shape, np.nan)
    ok = ~np.isnan(values)
    out[ok] = average_rank(-values[ok])
    return out


def tail_sides(values: np.ndarray, eligible: np.ndarray, share: float, both: bool) -> np.ndarray:
    """+1 for the top `share` of eligible names, -1 for the bottom share (when `both`), else 0."""
    side = np.zeros(values.shape, dtype=np.int8)
    idx = np.flatnonzero(eligible)
    k = int(np.floor(share * len(idx)))
    if k == 0:
        return side
    order = idx[np.lexsort((idx, -values[idx]))]
    side[order[:k]] = 1
    if both:
        bottom = idx[np.lexsort((-idx, values[idx]))]
        side[bottom[:k]] = -1
    return side


def buffered_sides(
    values: np.ndarray, eligible: np.ndarray, share: float, held: np.ndarray, both: bool
) -> np.ndarray:
    """Like `tail_sides` with the hold buffer: per side floor(share x eligible) names, first the
    names already `held` on that side (+1/-1) that rank within HOLD_BUFFER x share of the eligible
    names, then the best-ranked names not held there."""
    side = np.zeros(values.shape, dtype=np.int8)
    idx = np.flatnonzero(eligible)
    k = int(np.floor(share * len(idx)))
    if k == 0:
        return side
    hold_k = min(len(idx), int(np.floor(HOLD_BUFFER * share * len(idx))))
    orders = [(1, idx[np.lexsort((idx, -values[idx]))])]
    if both:
        orders.append((-1, idx[np.lexsort((-idx, values[idx]))]))
    for sign, order in orders:
        free = side[order] == 0
        kept = order[:hold_k][(held[order[:hold_k]] == sign) & free[:hold_k]][:k]
        side[kept] = sign
        fill = order[(side[order] == 0) & free][: k - len(kept)]
        side[fill] = sign
    return side


def _weights(side: np.ndarray) -> np.ndarray:
    w = np.zeros(side.shape)
    longs, shorts = side > 0, side < 0
    if longs.any():
        w[longs] = 1.0 / longs.sum()
    if shorts.any():
        w[shorts] = -1.0 / shorts.sum()
    return w


def _reasons(
    side: np.ndarray,
    prev_side: np.ndarray,
    would: np.ndarray,
    tradeable: np.ndarray,
    other_side: np.ndarray | None,
) -> np.ndarray:
    code = np.zeros(side.shape, dtype=np.int8)
    held = prev_side != 0
    code[tradeable & (side != 0) & (side != prev_side)] = ENTERED
    code[tradeable & (side == 0) & held] = EXITED
    if other_side is not None:
        code[tradeable & (side != 0) & (side == prev_side) & (other_side != side)] = CARRIED
    code[~tradeable & ~held & (would != 0)] = GATED
    code[~tradeable & held] = EXITED_UNTRADEABLE
    return code


def decide(score: np.ndarray, raw: np.ndarray, unavailable: np.ndarray, universe_size: int) -> Decisions:
    """Run the decision layer over all weeks. `unavailable` holds reason codes (0 = tradeable).
    The last week is `pending`: it is assigned like any week but never filled."""
    n_weeks, n = score.shape
    shape = (n_weeks, n)
    out = {k: np.zeros(shape) for k in ("long_short", "long_only", "raw_long_short", "raw_long_only")}
    reason = np.zeros(shape, dtype=np.int8)
    raw_reason = np.zeros(shape, dtype=np.int8)
    rank = np.full(shape, np.nan)
    raw_rank = np.full(shape, np.nan)
    status: list[str] = []
    held = np.zeros(n, dtype=np.int8)
    raw_held = np.zeros(n, dtype=np.int8)
    long_only_held = np.zeros(n, dtype=np.int8)
    raw_long_only_held = np.zeros(n, dtype=np.int8)
    minimum = minimum_scored_tradeable(universe_size)
    for w in range(n_weeks):
        s, r = score[w], raw[w]
        rank[w] = descending_average_rank(s)
        raw_rank[w] = descending_average_rank(r)
        scored = ~np.isnan(s)
        tradeable = unavailable[w] == 0
        eligible = scored & tradeable
        if scored.any() and np.nanmax(s) == np.nanmin(s):
            status.append("constant_scores")
            continue
        if eligible.sum() < minimum:
            status.append("insufficient_scored_tradeable_names")
            continue
        status.append("pending" if w == n_weeks - 1 else "traded")
        raw_eligible = ~np.isnan(r) & tradeable
        side = buffered_sides(s, eligible, LONG_SHORT_TAIL, held, both=True)
        raw_side = buffered_sides(r, raw_eligible, LONG_SHORT_TAIL, raw_held, both=True)
        long_only = buffered_sides(s, eligible, LONG_ONLY_TAIL, long_only_held, both=False)
        raw_long_only = buffered_sides(r, raw_eligible, LONG_ONLY_TAIL, raw_long_only_held, both=False)
        out["long_short"][w] = _weights(side)
        out["raw_long_short"][w] = _weights(raw_side)
        out["long_only"][w] = _weights(long_only)
        out["raw_long_only"][w] = _weights(raw_long_only)
        would = tail_sides(s, scored, LONG_SHORT_TAIL, both=True)
        raw_would = tail_sides(r, ~np.isnan(r), LONG_SHORT_TAIL, both=True)
        reason[w] = _reasons(side, held, would, tradeable, raw_side)
        raw_reason[w] = _reasons(raw_side, raw_held, raw_would, tradeable, None)
        # An untradeable name stays in the book until it can be traded again.
        held = np.where(tradeable, side, held)
        raw_held = np.where(tradeable, raw_side, raw_held)
        long_only_held = np.where(tradeable, long_only, long_only_held)
        raw_long_only_held = np.where(tradeable, raw_long_only, raw_long_only_held)
    return Decisions(
        week_status=status,
        average_rank=rank,
        raw_average_rank=raw_rank,
        long_short=out["long_short"],
        long_only=out["long_only"],
        raw_long_short=out["raw_long_short"],
        raw_long_only=out["raw_long_only"],
        decision_reason=reason,
        raw_decision_reason=raw_reason,
    )
