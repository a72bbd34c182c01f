"""Issue 63 item 2, measured before building it: a low-rank sketch with a proven bound as a
pre-filter of the correlation index's float32 pass (`python -m tests.bench.sketch_bound --lake L`).

Per basis, once per generation: an orthonormal basis U (dates x k) of the top k principal
directions of a sample of the z rows (`analytics.nearest`), each row's coordinates c = U^T z
(float32, rows x k) and its residual norm rho = ||z - U U^T z|| (float64). For a target a (masked
as `nearest.estimate` masks it), z.a = c.(U^T a) + r.a with |r.a| <= rho ||a - U U^T a|| (plus the
rounding of c to float32 and of the k-term float32 product). Every other sum of the Pearson over
the common dates (counts, the target's sums, the row's sums and squares off the target's run and
at its gaps) is taken exactly as `nearest._estimate_block` takes it: they read the z matrix only
in the columns off the target's run, not the whole row. So each row gets an interval of its
correlation: the float32 estimate's own bound (computed with the interval's largest magnitude)
plus the sketch's error over the root of the variances.

The correlation page (`sketch_page`, as `analytics.correlation._indexed_page`): the sketch pass
over every row; the float32 estimate (`nearest.estimate`, rows=...) of a few rows with the largest
sketch bounds, which raise the floor (the depth-th largest lower bound); every row whose upper
bound is below that floor is dropped; the float32 estimate of the rest (the survivors), and the
exact pass over the rows `Estimate.top` leaves open, as now. The screener's `max_correlation`
(`sketch_within`, as `_within_indexed`): a row whose sketch interval lies on one side of the
bound is decided; the rest get the float32 estimate and, where it is undecided, the exact pass.

Reported per basis: the sketch's cost per generation (seconds, bytes), the share of the allowed
rows dropped by the sketch per target (p10 / p50 / p90), CPU per answer in this thread (p50 / p95)
of the current path and the sketched one, alternating target by target, and whether every page
(alpha ids, rows, total) and every verdict equals the current path's. Targets are rows of the
catalogue drawn at random (those whose dates their z tells). No product code uses it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from analytics import correlation, nearest
from analytics.correlation import _order, pearson_between
from analytics.nearest import DECIDED, ROWS, UNIT, Estimate, Gaps, Spans, _Terms
from analytics.ranks import MIN_PAIRS
from datasets.catalogue_snapshot import Matrix


@dataclass(frozen=True)
class Sketch:
    """A basis's low-rank sketch: `axes` U (dates x k, orthonormal, float64), `coordinates` c
    (rows x k, float32: U^T z rounded), `residual` (rows: an upper bound of ||z - U U^T z||),
    `rounding` (the largest ||U^T z - c|| of a row) and `largest` (the largest ||c||)."""

    axes: np.ndarray
    coordinates: np.ndarray
    residual: np.ndarray
    rounding: float
    largest: float

    @property
    def nbytes(self) -> int:
        return int(self.axes.nbytes + self.coordinates.nbytes + self.residual.nbytes)


SAMPLE = 20_000
"""Rows whose singular vectors give the axes."""


def sketch_of(z: np.ndarray, k: int, seed: int = 0) -> Sketch:
    """The `Sketch` of an index's z rows: the top k right singular vectors of SAMPLE rows drawn at
    random, every row's coordinates and residual norm (float64, a block of rows at a time)."""
    rows, dates = z.shape
    k = min(k, dates)
    picked = np.sort(np.random.default_rng(seed).choice(rows, min(SAMPLE, rows), replace=False))
    _, _, vt = np.linalg.svd(np.asarray(z[picked], dtype=np.float64), full_matrices=False)
    axes = np.ascontiguousarray(vt[:k].T)
    coordinates = np.empty((rows, k), np.float32)
    residual = np.empty(rows)
    rounding, largest = 0.0, 0.0
    for start in range(0, rows, nearest.BLOCK):
        block = np.asarray(z[start : start + nearest.BLOCK], dtype=np.float64)
        projected = block @ axes
        stored = projected.astype(np.float32)
        coordinates[start : start + block.shape[0]] = stored
        rest = block - projected @ axes.T
        residual[start : start + block.shape[0]] = np.sqrt(np.einsum("ij,ij->i", rest, rest))
        lost = projected - stored
        rounding = max(rounding, float(np.sqrt(np.einsum("ij,ij->i", lost, lost)).max(initial=0.0)))
        norms = np.sqrt(np.einsum("ij,ij->i", stored.astype(np.float64), stored.astype(np.float64)))
        largest = max(largest, float(norms.max(initial=0.0)))
    # The residual's own rounding (float64 sums of a few hundred terms; U orthonormal to 1e-15).
    residual = residual * (1 + 1e-9) + 1e-9
    return Sketch(axes, coordinates, residual, rounding, largest)


def _terms(
    z: np.ndarray, spans: Spans, target: np.ndarray, held: np.ndarray, window: tuple[int, int]
) -> _Terms | None:
    """`nearest.estimate`'s per-target terms (None: no date in the window, or a constant target)."""
    return nearest.target_terms(z.shape[1], spans, target, held, window)


def sketch_estimate(
    z: np.ndarray,
    sketch: Sketch,
    spans: Spans,
    target: np.ndarray,
    held: np.ndarray,
    window: tuple[int, int],
    rows: np.ndarray | None,
    gaps: Gaps | None,
) -> Estimate:
    """`nearest.estimate` with each row's z.a taken from the sketch: an `Estimate` whose error
    bounds the distance to the exact correlation as the float32 estimate's does (NaN exactly where
    there is none; inf where the exact pass decides), wider by the sketch's error."""
    size = z.shape[0] if rows is None else rows.size
    value, error = np.full(size, np.nan), np.zeros(size)
    t = _terms(z, spans, target, held, window)
    if t is None or size == 0:
        return Estimate(value, error)
    ua = sketch.axes.T @ t.a
    perpendicular = float(np.sqrt(np.sum((t.a - sketch.axes @ ua) ** 2)))
    k = sketch.axes.shape[1]
    norm_ua = float(np.sqrt(ua @ ua))
    slack = (sketch.rounding + (k + 2) * UNIT * 1.01 * sketch.largest) * norm_ua + 1e-9
    ua32 = ua.astype(np.float32)
    for start in range(0, size, ROWS):
        part = slice(start, min(start + ROWS, size))
        picked = part if rows is None else rows[part]
        dot = (sketch.coordinates[picked] @ ua32).astype(np.float64)
        dot_error = sketch.residual[picked] * perpendicular + slack
        _sketch_block(z, dot, dot_error, spans, picked, t, value[part], error[part], gaps)
    return Estimate(value, error)


def _columns(z: np.ndarray, picked: slice | np.ndarray, columns: slice | np.ndarray) -> np.ndarray:
    """z at `picked` rows and `columns` only (a strided view of a slice of rows, or a gather)."""
    if isinstance(picked, slice):
        return np.asarray(z[picked][:, columns])
    if isinstance(columns, slice):
        return np.asarray(z[picked, columns])
    return np.asarray(z[np.ix_(picked, columns)])


def _sketch_block(
    z: np.ndarray,
    dot: np.ndarray,
    dot_error: np.ndarray,
    spans: Spans,
    picked: slice | np.ndarray,
    t: _Terms,
    value: np.ndarray,
    error: np.ndarray,
    gaps: Gaps | None,
) -> None:
    """`nearest._estimate_block` with `dot` (z.a) given within `dot_error`: the same sums, the
    row's read only off the target's run and at the target's gaps; a row with gaps its z would be
    needed for (not in `gaps`) is left to the exact pass (inf)."""
    row_low, row_high = spans.low[picked], spans.high[picked]
    start, stop = np.maximum(row_low, t.low), np.minimum(row_high, t.high)
    stop = np.maximum(stop, start)
    n = stop - start
    if t.gaps.size:
        n -= np.searchsorted(t.gaps, stop) - np.searchsorted(t.gaps, start)
    sum_a = t.prefix[stop] - t.prefix[start]
    squares_a = t.prefix_squares[stop] - t.prefix_squares[start]
    sum_b = spans.total[picked].copy()
    squares_b = spans.squares[picked].copy()
    for columns, needed in (
        (slice(0, t.low), row_low < t.low),
        (slice(t.high, t.columns), row_high > t.high),
    ):
        if columns.stop > columns.start and needed.any():
            part = _columns(z, picked, columns)
            sum_b -= (part @ np.ones(part.shape[1], np.float32)).astype(np.float64)
            squares_b -= np.einsum("ij,ij->i", part, part).astype(np.float64)
    if t.gaps.size:
        part64 = _columns(z, picked, t.gaps).astype(np.float64)
        sum_b -= part64.sum(axis=1)
        squares_b -= np.einsum("ij,ij->i", part64, part64)
    held_b = spans.held[picked]
    gapped = np.flatnonzero(held_b != row_high - row_low)
    if gaps is not None and gapped.size:
        listed = gaps.listed[picked][gapped]
        fast = gapped[listed]
        gapped = gapped[~listed]
        counts = gaps.count[picked][fast]
        total = int(counts.sum())
        if total:
            owner = np.repeat(np.arange(fast.size), counts)
            before = np.cumsum(counts) - counts
            where = np.arange(total) - np.repeat(before, counts) + np.repeat(gaps.start[picked][fast], counts)
            column = gaps.columns[where]
            values_a = t.a[column]
            n[fast] -= np.bincount(owner, t.mask[column], fast.size).astype(np.int64)
            sum_a[fast] -= np.bincount(owner, values_a, fast.size)
            squares_a[fast] -= np.bincount(owner, values_a * values_a, fast.size)
    unsure = np.zeros(n.size, dtype=bool)
    unsure[gapped] = True  # their sums need their z: the exact pass
    g, big = t.gamma, t.largest_b
    err_sum_b = g * np.sqrt(2 * t.columns * big)
    err_squares_b = g * big
    err_dot = g * np.sqrt(t.whole_a * big)
    stored = 8 * UNIT * np.sqrt(t.whole_a * (big + err_squares_b))
    with np.errstate(divide="ignore", invalid="ignore"):
        var_a = squares_a - sum_a * sum_a / n
        var_b = squares_b - sum_b * sum_b / n
        root = np.sqrt(var_a * var_b)
        centre = (dot - sum_a * sum_b / n) / root
        widened = (dot_error + err_dot) / root  # |float32 estimate - centre|, at most
        magnitude = np.minimum(np.abs(centre) + widened, 1.0)
        err_var_b = err_squares_b + (2 * err_sum_b * np.abs(sum_b) + err_sum_b**2) / n
        bound = (err_dot + stored + np.abs(sum_a) * (err_sum_b / n)) / root
        bound += magnitude * (err_var_b / var_b)
        bound += magnitude * (4 * UNIT) * (t.whole_a / var_a + (big + err_squares_b) / var_b)
        bound = 2 * bound + DECIDED + widened
        doubtful = (var_b <= 4 * err_var_b) | (var_a <= 1e-9 * squares_a) | ~np.isfinite(bound) | unsure
    measured = (n >= MIN_PAIRS) | unsure
    value[:] = np.where(measured, np.clip(centre, -1.0, 1.0), np.nan)
    error[:] = np.where(measured, np.where(doubtful, np.inf, bound), 0.0)


SEED_ROWS = 4
"""Times the page's depth: rows of the largest sketch bounds given the float32 estimate first,
to raise the floor the sketch's upper bounds are held to."""
SEED_BY = 0.0
"""The seeds are the rows of the largest |centre| + SEED_BY * error (0: the largest centres, which
raised the floor more than the largest upper bounds did: 58 % of the rows dropped at p50 against 50 %)."""
SURVIVORS_FROM_SHARE = 0.5
"""The share of the catalogue left by the sketch from which the float32 pass over every row is
made instead of gathering the survivors."""

GATHERED = 2_048
"""Survivors gathered at once for the float32 estimate (2.4 MB of returns rows: the copy is read
again from the cache, not from memory)."""


@dataclass
class PageCost:
    """What `sketch_page` did: the allowed rows, those the sketch dropped, the exact pass's rows."""

    allowed: int = 0
    dropped: int = 0
    exact: int = 0
    fell_back: str = ""
    sketch_pass: float = 0.0  # CPU seconds of the sketch's pass over every row
    survivors_pass: float = 0.0  # of the float32 estimate of the seeds and the survivors


def sketch_page(
    matrix: Matrix,
    sketch: Sketch,
    target: int,
    readable: np.ndarray,
    first: int,
    last: int,
    limit: int,
    offset: int,
    cost: PageCost,
) -> tuple[list[str], np.ndarray, int] | None:
    """`correlation._indexed_page` with the sketch in front of the float32 pass."""
    z, listed = matrix.z, matrix.listed
    count = matrix.values.shape[0]
    if z is None or listed is None or count < nearest.APPROXIMATE_FROM:
        return None
    spans = correlation._spans(matrix)
    if spans is None or offset + limit > correlation.TOP or (listed < 0).any():
        return None
    held = nearest.dates_held(z, spans, target)
    if held is None:
        return None
    gaps = correlation._gaps(matrix)
    allowed = np.zeros(count, dtype=bool)
    allowed[listed[np.asarray(readable, dtype=bool)]] = True
    allowed[target] = False
    total = int(np.count_nonzero(allowed))
    depth = min(offset + limit, total)
    cost.allowed = total
    clock = time.thread_time()
    found = sketch_estimate(z, sketch, spans, z[target], held, (first, last), None, gaps)
    cost.sketch_pass = time.thread_time() - clock
    clock = time.thread_time()
    value, error = found.value, found.error
    # Raise the floor: the float32 estimate of the rows the sketch ranks highest.
    ranked = np.where(
        allowed & np.isfinite(value) & np.isfinite(error), np.abs(value) + SEED_BY * error, -np.inf
    )
    seeds = min(SEED_ROWS * depth, int(np.count_nonzero(np.isfinite(ranked))))
    if seeds:
        seeded = np.sort(np.argpartition(-ranked, seeds - 1)[:seeds])
        exact32 = nearest.estimate(z, spans, z[target], held, (first, last), seeded, gaps)
        value[seeded], error[seeded] = exact32.value, exact32.error
    survivors = Estimate(value, error).top(allowed, depth)
    if survivors is None:
        cost.fell_back = "too few rows with a correlation"
        return correlation._indexed_page(matrix, target, readable, first, last, limit, offset)
    cost.dropped = total - survivors.size
    if survivors.size > SURVIVORS_FROM_SHARE * count:
        cost.fell_back = "survivors"
        full = nearest.estimate(z, spans, z[target], held, (first, last), None, gaps)
        value, error = full.value, full.error
    else:
        survivors = survivors[np.isin(survivors, seeded, invert=True)] if seeds else survivors
        for start in range(0, survivors.size, GATHERED):  # each gather within the CPU's cache
            some = survivors[start : start + GATHERED]
            exact32 = nearest.estimate(z, spans, z[target], held, (first, last), some, gaps)
            value[some], error[some] = exact32.value, exact32.error
    cost.survivors_pass = time.thread_time() - clock
    candidates = Estimate(value, error).top(allowed, depth)
    if candidates is None or candidates.size > correlation.PASS_FROM_SHARE * count:
        return None
    cost.exact = candidates.size
    window = matrix.values[:, first:last]
    exact, _ = pearson_between(np.asarray(window[candidates]), np.asarray(window[[target]]))
    correlations = exact[:, 0]
    if np.count_nonzero(np.isfinite(correlations)) < depth:
        return None
    ids = matrix.ids.take(pa.array(candidates))
    page = _order(ids, correlations)[offset : offset + limit]
    return ids.take(pa.array(page)).to_pylist(), candidates[page], total


def sketch_within(
    matrix: Matrix, sketch: Sketch, rows: np.ndarray, columns: list[int], bound: float, cost: PageCost
) -> np.ndarray:
    """`correlation._within_indexed` with the sketch in front of the float32 pass: the verdicts."""
    spans = correlation._spans(matrix)
    assert matrix.z is not None and spans is not None
    count, dates = matrix.z.shape
    gaps = correlation._gaps(matrix)
    gather = rows.size * 4 < count
    largest = np.full(rows.size, np.nan)
    for column in columns:
        held = nearest.dates_held(matrix.z, spans, column)
        if held is None:
            magnitude = np.abs(correlation._against_rows(matrix.values, rows, column))
        else:
            found = sketch_estimate(
                matrix.z, sketch, spans, matrix.z[column], held, (0, dates), rows if gather else None, gaps
            )
            value, undecided = found.value, found.undecided(bound)
            if not gather:
                value, undecided = value[rows], undecided[rows]
            cost.allowed += rows.size
            cost.dropped += rows.size - int(np.count_nonzero(undecided))
            magnitude = np.abs(value)
            if undecided.any():
                open_rows = rows[undecided]
                again = nearest.estimate(matrix.z, spans, matrix.z[column], held, (0, dates), open_rows, gaps)
                still = again.undecided(bound)
                opened = np.abs(again.value)
                if still.any():
                    opened[still] = np.abs(correlation._against_rows(matrix.values, open_rows[still], column))
                    cost.exact += int(np.count_nonzero(still))
                magnitude[undecided] = opened
        magnitude[rows == column] = np.nan
        largest = np.fmax(largest, magnitude)
    with np.errstate(invalid="ignore"):
        kept: np.ndarray = largest <= bound
    return kept


def check_bound(matrix: Matrix, sketch: Sketch, targets: list[int], seed: int) -> dict[str, object]:
    """Every row's sketch interval against `pearson_between` (every row computed exactly), for each
    target over its whole history and over a random window of at least 20 dates: the rows whose
    exact correlation lies outside the interval (none, if the bound holds), and the rows where NaN
    (no correlation) is said wrongly: where the exact pass has one, or missed where it has none and
    the interval is finite (a constant side is left to the exact pass, inf)."""
    assert matrix.z is not None
    spans = correlation._spans(matrix)
    gaps = correlation._gaps(matrix)
    assert spans is not None
    rng = random.Random(seed)
    dates = matrix.z.shape[1]
    outside, checked, nan_differs, largest_share = 0, 0, 0, 0.0
    for row in targets:
        held = nearest.dates_held(matrix.z, spans, row)
        assert held is not None
        first = rng.randrange(0, dates // 2)
        for window in ((0, dates), (first, rng.randrange(first + 20, dates + 1))):
            found = sketch_estimate(matrix.z, sketch, spans, matrix.z[row], held, window, None, gaps)
            values = matrix.values[:, window[0] : window[1]]
            exact, _ = pearson_between(values, values[[row]])
            truth = exact[:, 0]
            none, exactly_none = np.isnan(found.value), np.isnan(truth)
            nan_differs += int(np.count_nonzero(none & ~exactly_none))
            nan_differs += int(np.count_nonzero(~none & exactly_none & np.isfinite(found.error)))
            known = np.isfinite(found.value) & np.isfinite(found.error) & np.isfinite(truth)
            gap = np.abs(truth[known] - found.value[known])
            outside += int(np.count_nonzero(gap > found.error[known]))
            checked += int(np.count_nonzero(known))
            if gap.size:
                largest_share = max(largest_share, float(np.max(gap / found.error[known])))
    return {
        "rows_checked": checked,
        "outside_their_interval": outside,
        "largest_error_share_of_its_bound": round(largest_share, 4),
        "nan_where_the_exact_pass_has_none_or_not": nan_differs,
    }


def _percentiles(values: list[float], scale: float = 1000.0) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {}
    return {
        "p10": round(scale * ordered[int(0.1 * (len(ordered) - 1))], 3),
        "p50": round(scale * ordered[len(ordered) // 2], 3),
        "p90": round(scale * ordered[int(0.9 * (len(ordered) - 1))], 3),
        "p95": round(scale * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


def opened(lake: str) -> tuple[Any, Any, np.ndarray]:
    """A reader of `lake` (the caller closes it), its catalogue snapshot and a mask letting every
    listed alpha be read."""
    from datasets.reader import LakeReader

    reader = LakeReader(lake)
    reader.refresh()
    snapshot = reader.snapshot()
    listing = snapshot.catalogue.listing
    assert listing is not None
    return reader, snapshot, np.ones(len(listing.ids), dtype=bool)


def finished(result: dict[str, object], out: str | None, reader: Any) -> None:
    """The run's last figure (the load average at its end), its JSON written to `out`, the reader
    `opened` gave closed."""
    result["load_average_at_end"] = Path("/proc/loadavg").read_text().split()[:3]
    if out:
        Path(out).write_text(json.dumps(result, indent=1) + "\n")
    reader.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lake", required=True)
    parser.add_argument("--k", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--targets", type=int, default=50)
    parser.add_argument("--screens", type=int, default=20)
    parser.add_argument("--bases", nargs="+", default=["returns", "ic"])
    parser.add_argument("--seed", type=int, default=63)
    parser.add_argument("--out", default=None, help="JSON written here too")
    parser.add_argument(
        "--check", type=int, default=0, help="targets whose every row's interval is checked exactly"
    )
    args = parser.parse_args(argv)
    reader, snapshot, readable = opened(args.lake)
    rng = random.Random(args.seed)
    result: dict[str, object] = {
        "lake": args.lake,
        "alphas": readable.size,
        "load_average_at_start": Path("/proc/loadavg").read_text().split()[:3],
    }
    for basis in args.bases:
        matrix = snapshot.matrix(basis)
        assert matrix.z is not None
        spans = correlation._spans(matrix)
        assert spans is not None
        correlation._gaps(matrix)
        count, dates = matrix.z.shape
        targets: list[int] = []
        while len(targets) < args.targets:
            row = rng.randrange(count)
            if nearest.dates_held(matrix.z, spans, row) is not None:
                targets.append(row)
        # The current path, warmed once.
        correlation._indexed_page(matrix, targets[0], readable, 0, dates, 50, 0)
        for k in args.k:
            clock, cpu = time.perf_counter(), time.process_time()
            sketch = sketch_of(matrix.z, k)
            made: dict[str, object] = {
                "seconds": round(time.perf_counter() - clock, 2),
                "cpu_seconds": round(time.process_time() - cpu, 2),
            }
            made["bytes"] = sketch.nbytes
            made["residual_p10_p50_p90"] = [
                round(float(x), 3) for x in np.percentile(sketch.residual, [10, 50, 90])
            ]
            sketch_page(matrix, sketch, targets[0], readable, 0, dates, 50, 0, PageCost())
            before: list[float] = []
            after: list[float] = []
            dropped: list[float] = []
            exact_rows: list[int] = []
            sketch_passes: list[float] = []
            survivor_passes: list[float] = []
            float32_passes: list[float] = []
            products: list[float] = []
            equal, fell_back = 0, []
            for row in targets:
                cost = PageCost()
                c0 = time.thread_time()
                current = correlation._indexed_page(matrix, row, readable, 0, dates, 50, 0)
                c1 = time.thread_time()
                sketched = sketch_page(matrix, sketch, row, readable, 0, dates, 50, 0, cost)
                c2 = time.thread_time()
                before.append(c1 - c0)
                after.append(c2 - c1)
                dropped.append(cost.dropped / max(cost.allowed, 1))
                exact_rows.append(cost.exact)
                sketch_passes.append(cost.sketch_pass)
                survivor_passes.append(cost.survivors_pass)
                held = nearest.dates_held(matrix.z, spans, row)
                assert held is not None
                c3 = time.thread_time()
                nearest.estimate(
                    matrix.z, spans, matrix.z[row], held, (0, dates), None, correlation._gaps(matrix)
                )
                float32_passes.append(time.thread_time() - c3)
                a32 = np.asarray(matrix.z[row])
                c4 = time.thread_time()
                for start in range(0, count, ROWS):  # the pass's float32 product alone
                    np.asarray(matrix.z[start : start + ROWS]) @ a32
                products.append(time.thread_time() - c4)
                if cost.fell_back:
                    fell_back.append(cost.fell_back)
                same = (current is None and sketched is None) or (
                    current is not None
                    and sketched is not None
                    and current[0] == sketched[0]
                    and np.array_equal(current[1], sketched[1])
                    and current[2] == sketched[2]
                )
                equal += bool(same)
            figures: dict[str, object] = {
                "sketch": made,
                "correlation_top50": {
                    "targets": len(targets),
                    "dropped_by_sketch_share": _percentiles(dropped, 1.0),
                    "current_cpu_ms": _percentiles(before),
                    "sketched_cpu_ms": _percentiles(after),
                    "float32_pass_alone_cpu_ms": _percentiles(float32_passes),
                    "float32_product_alone_cpu_ms": _percentiles(products),
                    "sketch_pass_cpu_ms": _percentiles(sketch_passes),
                    "seeds_and_survivors_cpu_ms": _percentiles(survivor_passes),
                    "exact_rows_p50": int(np.median(exact_rows)),
                    "pages_equal": f"{equal} of {len(targets)}",
                    "fell_back": {reason: fell_back.count(reason) for reason in set(fell_back)},
                },
            }
            if basis == "returns" and args.screens:
                screen_before: list[float] = []
                screen_after: list[float] = []
                screen_dropped: list[float] = []
                same_verdicts, verdicts = 0, 0
                for call in range(args.screens):
                    alpha_row = targets[call % len(targets)]
                    bound = rng.choice([0.2, 0.3, 0.5])
                    share = rng.choice([0.3, 0.6, 1.0])
                    rows = np.flatnonzero(np.random.default_rng(call).random(count) < share)
                    cost = PageCost()
                    c0 = time.thread_time()
                    kept = correlation._within_indexed(matrix, rows, [alpha_row], bound)
                    c1 = time.thread_time()
                    sketched_kept = sketch_within(matrix, sketch, rows, [alpha_row], bound, cost)
                    c2 = time.thread_time()
                    screen_before.append(c1 - c0)
                    screen_after.append(c2 - c1)
                    screen_dropped.append(cost.dropped / max(cost.allowed, 1))
                    same_verdicts += int(np.count_nonzero(kept == sketched_kept))
                    verdicts += rows.size
                figures["max_correlation"] = {
                    "calls": args.screens,
                    "decided_by_sketch_share": _percentiles(screen_dropped, 1.0),
                    "current_cpu_ms": _percentiles(screen_before),
                    "sketched_cpu_ms": _percentiles(screen_after),
                    "verdicts_equal": f"{same_verdicts} of {verdicts}",
                }
            if args.check:
                figures["bound_against_pearson_between"] = check_bound(
                    matrix, sketch, targets[: args.check], args.seed
                )
            result[f"{basis} k={k}"] = figures
            print(json.dumps({f"{basis} k={k}": figures}), flush=True)
    finished(result, args.out, reader)
    return 0


if __name__ == "__main__":
    sys.exit(main())
