"""The probability of backtest overfitting of a trial family by combinatorially symmetric
cross-validation (Bailey, Borwein, López de Prado and Zhu 2015, "The probability of backtest
overfitting", Journal of Computational Finance 20(4); docs/analytics.md "Overfitting").

The family's members are the trials: a matrix M of T sessions by N trials (each member's daily
long_short returns on the sessions every member has). M's rows are cut into S contiguous blocks of
equal size (the first T mod S sessions left out, so that every block holds T // S); each of the
C(S, S/2) ways of taking S/2 blocks as the in-sample set J (its complement J' out of sample):

- the trial n* with the highest in-sample Sharpe ratio is the one a researcher would pick;
- ω = its rank out of sample among the N (1 the worst, N the best) / (N + 1), λ = ln(ω / (1 - ω));
- PBO = the share of splits whose λ ≤ 0 (the pick below the out-of-sample median);
- performance degradation: the OLS slope of the pick's out-of-sample Sharpe on its in-sample one
  over the splits (a negative slope: the better it looked, the worse it did);
- the probability of loss: the share of splits whose pick has an out-of-sample Sharpe below 0.

A split's Sharpe ratio is the mean of the daily returns of its blocks over their standard
deviation (ddof 1), per session (not annualised: only its rank and sign are used, and the slope
is the same). Ties in the out-of-sample ranks take their average rank; a tie in sample the first
trial in the family's order.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics.entries import declared_stat
from analytics.errors import BadParameters
from analytics.flight import SingleFlight, heavy
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.overfitting import (
    MEASURE,
    FamilyMember,
    FamilyMemberRow,
    LogitBin,
    Overfitting,
)

MIN_TRIALS = 6
"""Members below which no figure is given: PBO over fewer trials is unstable (the paper's
simulations use N of 10 and more; with 5 the median rank leaves 2 places either side)."""
NO_FAMILY = "the seal of {alpha} names no trial family"
"""Why an alpha outside any trial family has no figure (the route's reason)."""
NOT_IN_A_FAMILY = "not_applicable: " + NO_FAMILY
"""The same as a figure of the family that does not apply to it (the pbo check, dsr_family)."""
SPLITS_DEFAULT = 16
SPLITS_MIN = 4
SPLITS_MAX = 16
"""S is even, 4 to 16: C(16, 8) = 12,870 splits, each a few vector operations over N trials."""
MIN_BLOCK_SESSIONS = 5
"""Sessions each block must hold (a week): a Sharpe ratio of fewer is mostly noise."""
KEPT = 64
"""CSCV results a worker keeps (`kept_cscv`): a family's answer is asked again and again (every member's
page, the tear sheet, the checks) and is the same for one catalogue generation, members and S."""
LOGIT_BINS = 20
"""Bins of the logit's histogram, over [-LOGIT_RANGE, LOGIT_RANGE]."""
LOGIT_RANGE = 4.0
LOGIT_EDGES = np.linspace(-LOGIT_RANGE, LOGIT_RANGE, LOGIT_BINS + 1)


@dataclass(frozen=True)
class Cscv:
    """The figures of one CSCV over a family's returns: a few numbers and two short arrays, so a
    worker may keep many (`kept_cscv`)."""

    splits: int  # C(S, S/2)
    sessions: int  # T // S * S: the sessions used
    pbo: float
    logit_counts: np.ndarray  # the logits' histogram (`histogram`: LOGIT_BINS counts)
    pick_shares: np.ndarray  # per trial (column of M), the share of splits that picked it in sample
    slope: float  # OLS of the pick's out-of-sample Sharpe ratio on its in-sample one
    intercept: float
    probability_of_loss: float


@functools.cache
def splits_of(blocks: int) -> np.ndarray:
    """(C(S, S/2), S) 0/1 floats: the in-sample blocks of each split, in combinations order (made
    once per S and kept, read-only)."""
    combos = np.array(list(itertools.combinations(range(blocks), blocks // 2)), dtype=np.int64)
    chosen = np.zeros((len(combos), blocks))
    np.put_along_axis(chosen, combos, 1.0, axis=1)
    chosen.setflags(write=False)
    return chosen


CHUNK_CELLS = 1 << 18
"""Split x trial cells computed at once (2 MiB per array of float64): CSCV runs over the splits in
chunks of this many cells, so its memory is bounded whatever the family's size (issue 60: 592 MB at
1,000 members and 5.9 GB at 10^4 when every split was one array)."""


def cscv(returns: np.ndarray, blocks: int) -> Cscv:
    """CSCV over `returns` (T sessions x N trials, every value finite) cut into `blocks` (even)."""
    t, n = returns.shape
    size = t // blocks
    used = returns[t - size * blocks :]  # the most recent sessions, each block `size` long
    by_block = used.reshape(blocks, size, n)
    # Per block: the count, the sum and the sum of squares, so a split's moments are sums over its blocks.
    sums = by_block.sum(axis=1)
    squares = (by_block**2).sum(axis=1)
    whole_sums, whole_squares = sums.sum(axis=0), squares.sum(axis=0)
    chosen = splits_of(blocks)
    half = size * (blocks // 2)
    step = max(1, CHUNK_CELLS // max(n, 1))
    picks = np.empty(len(chosen), dtype=np.int64)
    picked_out = np.empty(len(chosen))
    picked_in = np.empty(len(chosen))
    rank = np.empty(len(chosen))
    for start in range(0, len(chosen), step):
        part = chosen[start : start + step]
        in_sums, in_squares = part @ sums, part @ squares
        # Out of sample: the complement's sums, the whole's less the split's.
        outside = _sharpe(whole_sums - in_sums, whole_squares - in_squares, half)
        inside = _sharpe(in_sums, in_squares, half)  # last: it overwrites in_squares
        found = np.argmax(np.where(np.isfinite(inside), inside, -np.inf), axis=1)
        rows = np.arange(found.size)
        out = outside[rows, found]
        # The pick's average rank out of sample (1 the worst): below + (equal + 1) / 2.
        below = (outside < out[:, None]).sum(axis=1)
        equal = (outside == out[:, None]).sum(axis=1)
        where = slice(start, start + found.size)
        picks[where], picked_out[where], picked_in[where] = found, out, inside[rows, found]
        rank[where] = below + (equal + 1) / 2.0
    omega = rank / (n + 1)
    logits = np.log(omega / (1.0 - omega))
    slope, intercept = _ols(picked_in, picked_out)
    return Cscv(
        splits=int(picks.size),
        sessions=size * blocks,
        pbo=float(np.mean(logits <= 0.0)),
        logit_counts=histogram(logits),
        pick_shares=np.bincount(picks, minlength=n) / picks.size,
        slope=slope,
        intercept=intercept,
        probability_of_loss=float(np.mean(picked_out < 0.0)),
    )


_kept: OrderedDict[tuple[str, tuple[str, ...], int], tuple[Cscv | None, int]] = OrderedDict()
_flights: SingleFlight[tuple[Cscv | None, int]] = SingleFlight()


def kept_cscv(
    version: str, members: tuple[str, ...], values: Callable[[], np.ndarray], blocks: int
) -> tuple[Cscv | None, int]:
    """CSCV of `members`' common sessions (`values()`: their rows of the catalogue's returns matrix of
    generation `version`), made once per (version, members, S) and kept (KEPT, least recently asked
    dropped), with the common sessions' count; None when they are fewer than S blocks of
    MIN_BLOCK_SESSIONS. The members are the reader's, so an entry never serves another scope.

    Single flight, and heavy (`analytics.flight`): while one thread computes an entry, the others
    asking for it wait for its answer instead of computing it too (issue 60: four first asks of one
    family all computed, 1 GB at 500 members), and it waits for the worker's place for heavy work."""
    key = (version, members, blocks)

    def kept() -> tuple[Cscv | None, int] | None:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
        return None

    def keep(found: tuple[Cscv | None, int]) -> None:
        _kept[key] = found
        while len(_kept) > KEPT:
            _kept.popitem(last=False)

    def compute() -> tuple[Cscv | None, int]:
        returns = common_sessions(values())
        found = cscv(returns, blocks) if returns.shape[0] >= blocks * MIN_BLOCK_SESSIONS else None
        return found, returns.shape[0]

    return _flights.run(key, lambda: heavy(compute), kept, keep)


def _sharpe(total: np.ndarray, total_sq: np.ndarray, count: int) -> np.ndarray:
    """mean / std (ddof 1) of `count` values from their sum and sum of squares, NaN when they do not
    vary; `total_sq` is overwritten (one temporary fewer over 12,870 x N)."""
    mean = total / count
    variance = total_sq
    variance -= count * mean * mean
    variance /= count - 1
    np.maximum(variance, 0.0, out=variance)
    np.sqrt(variance, out=variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean /= variance
    return mean


def _ols(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of y on x (NaN when x does not vary)."""
    dx = x - x.mean()
    ss = float(dx @ dx)
    if ss == 0.0 or not math.isfinite(ss):
        return math.nan, math.nan
    slope = float(dx @ (y - y.mean())) / ss
    return slope, float(y.mean() - slope * x.mean())


def histogram(logits: np.ndarray) -> np.ndarray:
    """The logits' counts in the LOGIT_BINS equal bins of [-LOGIT_RANGE, LOGIT_RANGE] (LOGIT_EDGES),
    the values beyond either end counted in the end bin."""
    counts, _ = np.histogram(np.clip(logits, -LOGIT_RANGE, LOGIT_RANGE), bins=LOGIT_EDGES)
    return counts


# --- the answer ------------------------------------------------------------------------------------


def splits_checked(splits: int) -> int:
    """S, even (its bounds are the query's); a 400 naming `splits` otherwise."""
    if splits % 2:
        raise BadParameters({"splits": f"must be even (S/2 blocks in sample, S/2 out), got {splits}"})
    return splits


def common_sessions(values: np.ndarray) -> np.ndarray:
    """(T, N): the columns (sessions) of `values` (N members x days) where every member has a finite
    return, transposed."""
    if values.size == 0:
        return np.empty((0, values.shape[0]))
    every = np.isfinite(values).all(axis=0)
    return np.ascontiguousarray(values[:, every].T)


def overfitting_payload(
    family: str | None,
    members: list[tuple[str, dict[str, Any]]],
    computed: tuple[Cscv | None, int] | None,
    splits: int,
    withheld_reason: str | None,
) -> Overfitting:
    """The answer over `members` (the family's members the reader may read, with their parameters)
    and `computed` (`kept_cscv` over their returns: None when not computed, for fewer than
    MIN_TRIALS members or a reason); `withheld_reason`: why no figure is given before any is
    computed (access, no family)."""
    reason = withheld_reason
    found = None if computed is None else computed[0]
    n = len(members)
    if reason is None and n < MIN_TRIALS:
        reason = (
            f"the probability of backtest overfitting needs at least {MIN_TRIALS} trials: this key may read "
            f"{n} member(s) of family {family} with daily returns"
        )
    if reason is None and computed is not None and found is None:
        reason = (
            f"the members share {computed[1]} sessions with a return, fewer than {splits} blocks of "
            f"{MIN_BLOCK_SESSIONS}"
        )
    if reason is not None:
        found = None
    reason = reason or "not measurable"

    def stat(name: str, value: float | None) -> AnalyticsStat:
        return declared_stat(Overfitting, name, value, reason)

    picks = np.zeros(n) if found is None else found.pick_shares
    bins: list[LogitBin] = []
    if found is not None:
        edges, counts = LOGIT_EDGES, found.logit_counts
        bins = [
            LogitBin(logit_from=float(edges[i]), logit_to=float(edges[i + 1]), splits_in_bin=int(counts[i]))
            for i in range(counts.size)
        ]
    return Overfitting(
        family=family,
        measure=MEASURE,
        family_trials=n,
        splits=splits,
        combinations=math.comb(splits, splits // 2),
        cscv_sessions=0 if found is None else found.sessions,
        pbo=stat("pbo", None if found is None else found.pbo),
        degradation_slope=stat("degradation_slope", None if found is None else found.slope),
        degradation_intercept=stat("degradation_intercept", None if found is None else found.intercept),
        probability_of_loss=stat("probability_of_loss", None if found is None else found.probability_of_loss),
        logit_distribution=bins,
        members=[
            FamilyMember(
                alpha_id=alpha,
                parameters=parameters,
                pick_share=None if found is None else float(picks[i]),
            )
            for i, (alpha, parameters) in enumerate(members)
        ],
    )


def family_of(index: pa.Table, alpha: str) -> str | None:
    """The trial family the alpha's indexed seal names (None: none, or not indexed)."""
    if "family" not in index.column_names:
        return None
    row = index.filter(pc.equal(index.column("alpha_id"), alpha)).column("family").to_pylist()
    return row[0] if row else None


def family_members(
    index: pa.Table, listed: pa.Array, readable: np.ndarray, family: str
) -> list[tuple[str, dict[str, Any]]]:
    """The members of `family` the reader may read (`readable`: a mask over `listed`, the listing's
    alpha ids in catalogue order), in that order, with their seals' parameters."""
    rows = index.filter(pc.equal(index.column("family"), family))
    parameters = dict(
        zip(rows.column("alpha_id").to_pylist(), rows.column("parameters").to_pylist(), strict=True)
    )
    found = []
    for alpha, may in zip(listed.to_pylist(), readable.tolist(), strict=True):
        if may and alpha in parameters:
            text = parameters[alpha]
            found.append((alpha, {} if text is None else dict(json.loads(text))))
    return found


@dataclass(frozen=True)
class FamilyOrder:
    """The catalogue's family members of one index generation in `/v1/families`' order (family slug,
    then catalogue position): made once per generation and kept, so a page costs a mask and a slice,
    and only its own rows' parameters are decoded (issue 60: the whole listing, 50,000 members,
    took 3.7 s and 119 MB on the event loop)."""

    families: np.ndarray  # object: each row's family slug
    alphas: np.ndarray  # object: each row's alpha id
    parameters: np.ndarray  # object: each row's parameters as its seal wrote them (JSON text or None)
    positions: np.ndarray  # int64: each row's position in the listing (the readable mask's index)


_orders: OrderedDict[tuple[str, int], FamilyOrder] = OrderedDict()
_orders_lock = threading.Lock()


def family_order(version: str, index: pa.Table | None, listed: pa.Array) -> FamilyOrder:
    """`FamilyOrder` of catalogue generation `version` (its index and listing), kept for the last
    four generations asked."""
    key = (version, len(listed))
    with _orders_lock:
        if key in _orders:
            _orders.move_to_end(key)
            return _orders[key]
    empty = np.array([], dtype=object)
    if index is None or "family" not in index.column_names:
        found = FamilyOrder(empty, empty, empty, np.array([], dtype=np.int64))
    else:
        # Arrow's kernels throughout (no Python loop over the catalogue, which held the GIL from the
        # event loop: 56 ms of a health answer at 10^5 alphas).
        named = index.filter(pc.is_valid(index.column("family"))).select(["alpha_id", "family", "parameters"])
        at = pc.index_in(named.column("alpha_id"), value_set=listed)
        named = named.append_column("position", at).filter(pc.is_valid(at))
        named = named.take(pc.sort_indices(named, [("family", "ascending"), ("position", "ascending")]))
        found = FamilyOrder(
            np.asarray(named.column("family").to_numpy(zero_copy_only=False), dtype=object),
            np.asarray(named.column("alpha_id").to_numpy(zero_copy_only=False), dtype=object),
            np.asarray(named.column("parameters").to_numpy(zero_copy_only=False), dtype=object),
            named.column("position").to_numpy(zero_copy_only=False).astype(np.int64),
        )
    with _orders_lock:
        _orders[key] = found
        while len(_orders) > 4:
            _orders.popitem(last=False)
    return found


def families_page(
    order: FamilyOrder, readable: np.ndarray, family: str | None, limit: int, offset: int
) -> tuple[list[FamilyMemberRow], int]:
    """A page of `/v1/families`: the members the reader may read (`readable`, a mask over the
    listing), of `family` when given, and how many there are in all."""
    keep = readable[order.positions] if order.positions.size else np.zeros(0, dtype=bool)
    if family is not None:
        keep = keep & (order.families == family)
    rows = np.flatnonzero(keep)
    page = rows[offset : offset + limit]
    return [
        FamilyMemberRow(
            family=str(order.families[i]),
            alpha_id=str(order.alphas[i]),
            parameters={} if order.parameters[i] is None else dict(json.loads(order.parameters[i])),
        )
        for i in page
    ], int(rows.size)
