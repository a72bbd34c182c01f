"""Correlation of two alphas on three bases (docs/analytics.md, "Correlation").

- returns: Pearson and Spearman of daily long_short returns over the sessions both have;
- ic: Pearson and Spearman of weekly IC over the weeks both have;
- scores: the mean over common weeks of the cross-sectional Spearman of the two conditioned scores
  over the names both scored that week.

Series bases (returns, ic): the catalogue holds every alpha's series on one date axis, so the
server correlates one alpha with all others as masked matrix products (`pearson_between`) and a
page of rows exactly (`correlate_rows`). Scores: `weekly_score_spearman_against` pairs two alphas
once (each common week's rank correlation), and `Pairing.correlate` reads a window of it; the
pipeline keeps the pairings of each alpha's nearest neighbours.

A correlation needs MIN_OVERLAP common observations and variance on both sides; otherwise it is
NaN. Spearman uses average ranks for ties, as every rank correlation of the service does.

`correlation_page` is `/analytics/correlation`: one row per other alpha the caller may read (on the
scores basis, per score neighbour it may read), from one catalogue snapshot's matrices and
neighbour lists (`datasets.catalogue_snapshot`), sorted by absolute correlation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from analytics import nearest
from analytics.entries import day_bounds
from analytics.ranks import MIN_PAIRS, spearman_by
from datasets.catalogue_snapshot import CatalogueSnapshot, Matrix
from datasets.faults import CatalogueIncomplete
from datasets.queries import Page, Window, page_of
from schemas import choices
from schemas.bodies.rows import CorrelationRow

MIN_OVERLAP = MIN_PAIRS


@dataclass(frozen=True)
class Correlation:
    pearson: float  # NaN on the scores basis
    spearman: float
    overlap: int  # common sessions (returns) or weeks (ic, scores)
    common_names: float  # scores: mean common names per counted week; NaN otherwise


@dataclass(frozen=True)
class Pairing:
    """Two alphas on the scores basis, per common week (days since 1970, ascending): `x` is the
    week's rank correlation and `y` the number of names behind it."""

    days: np.ndarray
    x: np.ndarray
    y: np.ndarray

    def correlate(self, low: int, high: int) -> Correlation:
        """The correlation over the weeks in [low, high] (days since 1970, inclusive): the mean of
        the weekly rank correlations, over the weeks counted, and their mean names."""
        a, b = np.searchsorted(self.days, low, "left"), np.searchsorted(self.days, high, "right")
        x, y = self.x[a:b], self.y[a:b]
        if x.size == 0:
            return Correlation(math.nan, math.nan, 0, math.nan)
        return Correlation(math.nan, float(np.mean(x)), int(x.size), float(np.mean(y)))


def weekly_score_spearman_against(a: pl.DataFrame, others: list[pl.DataFrame]) -> list[Pairing]:
    """The pairing of `a` with each of `others`, each (date, symbol, score) of an alpha, in one
    grouped pass: the pipeline pairs a newly published alpha with many candidates at once. Each
    (other, week) group is ranked and correlated on its own, exactly as a pair alone: a week counts
    when its rank correlation exists (`analytics.ranks`: at least 3 names scored on both sides,
    neither side constant)."""
    if not others:
        return []
    stacked = pl.concat(
        [
            other.select(
                pl.lit(position, pl.Int32).alias("_other"), "date", "symbol", pl.col("score").alias("_b")
            )
            for position, other in enumerate(others)
        ]
    )
    pairs = a.select("date", "symbol", pl.col("score").alias("_a")).join(
        stacked, on=["date", "symbol"], how="inner"
    )
    weekly = spearman_by(pairs, ["_other", "date"], "_a", "_b").drop_nulls("rho").sort("_other", "date")
    found = []
    for position in range(len(others)):
        one = weekly.filter(pl.col("_other") == position)
        days = one["date"].cast(pl.Int32).to_numpy()
        found.append(Pairing(days, one["rho"].to_numpy(), one["n"].cast(pl.Float64).to_numpy()))
    return found


def correlate_rows(target: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pearson and Spearman of `target` (one value per date, NaN where none) with each row of
    `rows` (k x the same dates), each over the dates both hold a finite value: (pearson, spearman,
    overlap), NaN where `Pairing.correlate` is (fewer than MIN_OVERLAP common dates, or a side
    constant on them). The same figures as a pairing of each two series, for a page of rows in one
    vectorised pass: two-pass centred sums, Spearman as Pearson of average ranks."""
    common = np.isfinite(rows) & np.isfinite(target)[None, :]
    x = np.where(common, target[None, :], np.nan)
    y = np.where(common, rows, np.nan)
    overlap = common.sum(axis=1)
    pearson = _centred_pearson(x, y, common, overlap)
    from scipy import stats  # when used: ~1 s to import (development.md)

    spearman = _centred_pearson(
        stats.rankdata(x, axis=1, nan_policy="omit"),
        stats.rankdata(y, axis=1, nan_policy="omit"),
        common,
        overlap,
    )
    varies = (_spread(x, common) > 0) & (_spread(y, common) > 0)
    measured = (overlap >= MIN_OVERLAP) & varies
    pearson[~measured] = math.nan
    spearman[~measured] = math.nan
    return pearson, spearman, overlap


def _centred_pearson(x: np.ndarray, y: np.ndarray, common: np.ndarray, n: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        dx = np.where(common, x - (np.where(common, x, 0.0).sum(axis=1) / n)[:, None], 0.0)
        dy = np.where(common, y - (np.where(common, y, 0.0).sum(axis=1) / n)[:, None], 0.0)
        found = (dx * dy).sum(axis=1) / np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    return np.clip(found, -1.0, 1.0)  # as np.corrcoef


def _spread(values: np.ndarray, common: np.ndarray) -> np.ndarray:
    # `initial`: a window without dates is no spread, not an error
    highest = np.where(common, values, -np.inf).max(axis=1, initial=-np.inf)
    return highest - np.where(common, values, np.inf).min(axis=1, initial=np.inf)


def pearson_against(values: np.ndarray, target: int) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlation of row `target` of `values` (alphas x dates, NaN where an alpha has no
    value) with every row, each over the dates both rows hold: (correlations, overlaps), NaN where
    `Pairing.correlate` would be (fewer than MIN_OVERLAP common dates, or a side constant on them)."""
    found, overlap = pearson_between(values, values[target : target + 1])
    return found[:, 0], overlap[:, 0]


ROWS_PER_BLOCK = 1024
"""Rows of `values` `pearson_between` works on at once: its temporaries are a few blocks of
rows x dates, whatever the catalogue's size."""


def pearson_between(values: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlation of every row of `values` (alphas x dates, NaN where an alpha has no
    value) with every row of `targets` (on the same dates), each pair over the dates both hold:
    (correlations, overlaps), rows x targets, NaN where `correlate_rows` would be.

    Masked sums as matrix products, for the whole catalogue at once instead of one pairing per
    pair, ROWS_PER_BLOCK rows at a time. The sums formula can differ from the two-pass formula in
    the last bits; pairs where either side's variance is below rounding are decided exactly
    (constant on the common dates or not)."""
    target_finite = np.isfinite(targets)
    target_present = target_finite.astype(np.float64)
    x = np.where(target_finite, targets, 0.0)
    found = np.empty((values.shape[0], targets.shape[0]))
    overlap = np.empty((values.shape[0], targets.shape[0]), dtype=np.int64)
    for start in range(0, values.shape[0], ROWS_PER_BLOCK):
        block = np.asarray(values[start : start + ROWS_PER_BLOCK])
        finite = np.isfinite(block)
        present = finite.astype(np.float64)
        y = np.where(finite, block, 0.0)
        n = present @ target_present.T  # common dates of each pair
        sum_y, sum_yy = y @ target_present.T, (y * y) @ target_present.T
        sum_x, sum_xx = present @ x.T, present @ (x * x).T
        sum_xy = y @ x.T
        var_x = n * sum_xx - sum_x * sum_x
        var_y = n * sum_yy - sum_y * sum_y
        with np.errstate(divide="ignore", invalid="ignore"):
            part = (n * sum_xy - sum_x * sum_y) / np.sqrt(var_x * var_y)
            # A side whose variance is within rounding of zero: decide exactly whether it is constant.
            doubtful = (var_x <= 1e-12 * n * sum_xx) | (var_y <= 1e-12 * n * sum_yy)
        for row, column in np.argwhere(doubtful & (n >= MIN_OVERLAP)):
            keep = finite[row] & target_finite[column]
            if not (np.ptp(targets[column][keep]) > 0 and np.ptp(block[row][keep]) > 0):
                part[row, column] = math.nan
        part[(n < MIN_OVERLAP) | ~np.isfinite(part)] = math.nan
        found[start : start + block.shape[0]] = part
        overlap[start : start + block.shape[0]] = n
    return found, overlap


@dataclass(frozen=True)
class Basis:
    kind: str  # the seal kind it is built from (kind_missing names it)
    data: str  # what the key must be able to read: "ledger" or "cross_sections"
    unit: str  # of `overlap`
    table: str  # the serving table (meta.source)


BASES = {
    "returns": Basis("portfolio", "ledger", "sessions", "portfolio"),
    "ic": Basis("decisions", "cross_sections", "weeks", "weekly_signal"),
    "scores": Basis("decisions", "cross_sections", "weeks", "decisions"),
}
assert tuple(BASES) == choices.CORRELATION_BASES


def correlation_row(alpha: str, basis: str, found: Correlation) -> CorrelationRow:
    """A row; NaN stands for null (msgspec writes null)."""
    headline = found.spearman if basis == "scores" else found.pearson
    return CorrelationRow(
        alpha=alpha,
        correlation=headline,
        pearson=found.pearson,
        spearman=found.spearman,
        overlap=found.overlap,
        overlap_unit=BASES[basis].unit,
        common_names=found.common_names,
    )


def _row_order(row: CorrelationRow) -> tuple[bool, float, str]:
    """Absolute correlation descending, NaN last, ties (NaN among them) by alpha id."""
    value = row.correlation
    missing = value is None or math.isnan(value)
    return (missing, 0.0 if missing or value is None else -abs(value), row.alpha or "")


def _order(alphas: pa.Array, correlations: np.ndarray) -> np.ndarray:
    """Positions by absolute correlation descending, NaN last, ties by alpha id (one Arrow sort:
    no Python object per alpha)."""
    magnitude = np.abs(correlations)
    keys = pa.table(
        {"missing": np.isnan(magnitude), "magnitude": -np.nan_to_num(magnitude, nan=-1.0), "alpha": alphas}
    )
    order = pc.sort_indices(
        keys, sort_keys=[("missing", "ascending"), ("magnitude", "ascending"), ("alpha", "ascending")]
    )
    return np.asarray(order.to_numpy(), dtype=np.int64)


def _positions(ids: pa.Array, value_set: pa.Array) -> np.ndarray:
    """Each of `ids`' position in `value_set`, -1 where it is not there."""
    found = pc.fill_null(pc.index_in(ids, value_set=value_set), -1)
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int64)


def correlation_page(
    snapshot: CatalogueSnapshot,
    alpha: str,
    readable: np.ndarray,
    basis: str,
    window: Window,
    limit: int,
    offset: int,
) -> Page:
    """The rows for the other alphas of the catalogue that `readable` (its readable
    mask) admits, this one excluded, by absolute correlation descending, rows without one last,
    ties by alpha id (the ticker-style tiebreak); the page asked for. NaN stands for null (the
    encoder writes null).

    returns and ic: the whole catalogue's Pearson correlations are one masked pass over the
    catalogue's date-aligned matrix (no pairing per alpha), the others picked and ordered by
    vectorised kernels; the rows of the page are then correlated as a pairing of the two series
    is (two-pass Pearson and Spearman, in one pass over the page:
    `analytics.correlation.correlate_rows`). scores: the alpha's score neighbours the key may
    read, each still served from the build it was paired with, over the window of its weekly
    series."""
    listing = snapshot.catalogue.listing
    assert listing is not None
    low, high = day_bounds(window)
    if basis != "scores":
        return _series_page(
            snapshot.matrix(basis), listing.ids, alpha, readable, basis, low, high, limit, offset
        )
    others = listing.ids.filter(pa.array(readable))
    others = others.filter(pc.not_equal(others, alpha))
    neighbours = snapshot.score_neighbours(alpha) or []
    readable_listed = _positions(pa.array([entry.alpha_id for entry in neighbours], pa.string()), others) >= 0
    rows = [
        correlation_row(
            entry.alpha_id, basis, Pairing(entry.days, entry.rho, entry.names).correlate(low, high)
        )
        for entry, ok in zip(neighbours, readable_listed, strict=True)
        if ok and snapshot.build_id(entry.alpha_id) == entry.build_id
    ]
    rows.sort(key=_row_order)
    return page_of(rows, limit, offset)


def _series_page(
    matrix: Matrix,
    listed: pa.Array,
    alpha: str,
    readable: np.ndarray,
    basis: str,
    low: int,
    high: int,
    limit: int,
    offset: int,
) -> Page:
    """`correlation_page` on a series basis (returns, ic): `listed` the listing's alpha ids."""
    first = int(np.searchsorted(matrix.days, low, "left"))
    last = int(np.searchsorted(matrix.days, high, "right"))
    target = matrix.rows.get(alpha)
    found_page = None
    if target is not None:
        found_page = _indexed_page(matrix, target, readable, first, last, limit, offset)
    if found_page is not None and target is not None:
        names, page_rows, total = found_page
    else:
        others = listed.filter(pa.array(readable))
        others = others.filter(pc.not_equal(others, alpha))
        matrix_rows = _positions(others, matrix.ids)
        if target is None or (matrix_rows < 0).any():
            raise CatalogueIncomplete(
                "The catalogue's correlation matrices do not hold every alpha of the catalogue yet; "
                "retry with backoff."
            )
        window_values = matrix.values[:, first:last]
        found, _ = pearson_against(window_values, target)
        ordered = _order(others, found[matrix_rows])
        page = ordered[offset : offset + limit]
        names, page_rows, total = others.take(pa.array(page)).to_pylist(), matrix_rows[page], len(ordered)
    window_values = matrix.values[:, first:last]
    pearson, spearman, overlap = correlate_rows(
        np.asarray(window_values[target]), np.asarray(window_values[np.asarray(page_rows, dtype=np.int64)])
    )
    rows = [
        correlation_row(name, basis, Correlation(float(p), float(s), int(n), math.nan))
        for name, p, s, n in zip(names, pearson, spearman, overlap, strict=True)
    ]
    return Page(rows=rows, total=total)


TOP = 1_000
"""The deepest row (offset + limit) a page answered from the correlation index may reach."""
PASS_FROM_SHARE = 0.25
"""The share of the catalogue left open by the index (computed exactly) from which the pass over
every row is cheaper than gathering those rows."""


def _indexed_page(
    matrix: Matrix, target: int, readable: np.ndarray, first: int, last: int, limit: int, offset: int
) -> tuple[list[str], np.ndarray, int] | None:
    """(alpha ids, matrix rows, total) of the page, from the catalogue's correlation index
    (`analytics.nearest`): every readable row's correlation estimated in one float32 pass with its
    error bound, and the rows that may be on the page (`Estimate.top`) computed exactly and ordered
    as the whole catalogue's pass orders them. None, and the caller makes its pass over every row,
    where the index does not apply: below `nearest.APPROXIMATE_FROM` rows, a generation without an
    index, a target whose dates its z cannot tell (`nearest.dates_held`), a page deeper than TOP, fewer rows
    with a correlation than the page needs (the rows without one are ordered by alpha id among
    every row), or more rows left open than PASS_FROM_SHARE of the catalogue."""
    z, listed = matrix.z, matrix.listed
    count = matrix.values.shape[0]
    if z is None or listed is None or count < nearest.APPROXIMATE_FROM:
        return None
    spans = _spans(matrix)
    if spans is None or offset + limit > TOP or (listed < 0).any():
        return None
    held = nearest.dates_held(z, spans, target)
    if held is None:
        return None
    allowed = np.zeros(count, dtype=bool)
    allowed[listed[np.asarray(readable, dtype=bool)]] = True
    allowed[target] = False
    total = int(np.count_nonzero(allowed))
    found_estimate = nearest.estimate(
        z, spans, z[target], held, (first, last), None, _gaps(matrix), _patterns(matrix)
    )
    candidates = found_estimate.top(allowed, min(offset + limit, total))
    if candidates is None or candidates.size > PASS_FROM_SHARE * count:
        return None
    window = matrix.values[:, first:last]
    found, _ = pearson_between(np.asarray(window[candidates]), np.asarray(window[[target]]))
    correlations = found[:, 0]
    if np.count_nonzero(np.isfinite(correlations)) < min(offset + limit, total):
        return None
    ids = matrix.ids.take(pa.array(candidates))
    page = _order(ids, correlations)[offset : offset + limit]
    return ids.take(pa.array(page)).to_pylist(), candidates[page], total


def within_correlation(
    candidates: list[str], matrix: Matrix, references: list[str], bound: float
) -> list[str]:
    """The screener's `max_correlation`: the candidates whose largest absolute Pearson
    correlation, over the whole of `matrix`, to the `references` (a candidate's own row excepted)
    is defined and at most `bound`. A pair without a correlation (too few common dates, a constant
    side) is no evidence either way; a candidate with none at all fails, as a null figure fails a
    range. One block of matrix products (candidates x references), never a pairing per pair."""

    if not candidates or not references:
        return []
    if any(alpha not in matrix.rows for alpha in candidates):
        raise CatalogueIncomplete(
            "The catalogue's correlation matrices do not hold every alpha of the catalogue yet; "
            "retry with backoff."
        )
    rows = np.array([matrix.rows[alpha] for alpha in candidates], dtype=np.int64)
    kept = set(within_correlation_rows(rows, matrix, references, bound).tolist())
    return [alpha for alpha, row in zip(candidates, rows.tolist(), strict=True) if row in kept]


def _against_rows(values: np.ndarray, rows: np.ndarray, target: int) -> np.ndarray:
    """Pearson correlation (`pearson_between`) of each of `rows` of `values` with row
    `target`: over the contiguous blocks of every row when `rows` are most of them (a gather of
    most of a memory-mapped matrix copies it whole first), else over those rows alone."""
    if rows.size * 2 > values.shape[0]:
        found, _ = pearson_between(values, values[[target]])
        whole: np.ndarray = found[rows, 0]
        return whole
    found, _ = pearson_between(values[rows], values[[target]])
    picked: np.ndarray = found[:, 0]
    return picked


def within_correlation_rows(
    rows: np.ndarray, matrix: Matrix, references: list[str], bound: float
) -> np.ndarray:
    """`within_correlation` of candidates given as rows of `matrix` (the catalogue index's rows:
    the screener's positions), in order: the rows it keeps, in the same order (int64)."""
    rows = np.asarray(rows, dtype=np.int64)
    if not rows.size or not references:
        return np.empty(0, np.int64)
    if any(alpha not in matrix.rows for alpha in references) or int(rows.max()) >= matrix.values.shape[0]:
        raise CatalogueIncomplete(
            "The catalogue's correlation matrices do not hold every alpha of the catalogue yet; "
            "retry with backoff."
        )
    columns = [matrix.rows[alpha] for alpha in references]
    if _indexable(matrix, rows.size):
        return rows[_within_indexed(matrix, rows, columns, bound)]
    found, _ = pearson_between(matrix.values[rows], matrix.values[columns])
    magnitude = np.abs(found)
    magnitude[np.equal.outer(rows, np.array(columns))] = math.nan  # an alpha with itself
    with np.errstate(invalid="ignore"):
        largest = np.fmax.reduce(magnitude, axis=1)  # NaN only where every pair is
        kept = largest <= bound  # NaN fails
    found_rows: np.ndarray = rows[kept]
    return found_rows


def _indexable(matrix: Matrix, candidates: int) -> bool:
    """Whether `within_correlation` decides with the correlation index: a large catalogue, an index
    of this generation, and more candidates than the exact pass takes at once (EXACT_ROWS)."""
    return (
        matrix.values.shape[0] >= nearest.APPROXIMATE_FROM
        and candidates > EXACT_ROWS
        and _spans(matrix) is not None
    )


def against_set(matrix: Matrix, rows: np.ndarray, target: int) -> tuple[np.ndarray, int | None]:
    """The whole-history correlations of matrix row `target` with `rows`, as their largest magnitude
    needs them (the checks' production correlation): (correlations: NaN exactly where a row has
    none, exact for every row that may be the largest, else an estimate within its bound; the
    position in `rows` of the largest magnitude, first of ties, None with none). From EXACT_ROWS rows and a catalogue of `nearest.APPROXIMATE_FROM`
    alphas, the correlation index decides which rows may hold it (`Estimate.top`) and which have a
    correlation at all; below, every row is computed exactly."""
    spans = (
        _spans(matrix)
        if rows.size > EXACT_ROWS and matrix.values.shape[0] >= nearest.APPROXIMATE_FROM
        else None
    )
    held = None if spans is None or matrix.z is None else nearest.dates_held(matrix.z, spans, target)
    if spans is None or held is None or matrix.z is None:
        found, _ = pearson_between(matrix.values[rows], matrix.values[[target]])
        values = found[:, 0]
    else:
        estimate = nearest.estimate(
            matrix.z,
            spans,
            matrix.z[target],
            held,
            (0, matrix.z.shape[1]),
            rows,
            _gaps(matrix),
            _patterns(matrix),
        )
        everyone = np.ones(rows.size, dtype=bool)
        near = estimate.top(everyone, 1)
        near = np.flatnonzero(everyone & np.isinf(estimate.error)) if near is None else near
        values = np.where(np.isfinite(estimate.error), estimate.value, np.nan)
        if near.size:
            exact, _ = pearson_between(matrix.values[rows[near]], matrix.values[[target]])
            values[near] = exact[:, 0]
    magnitude = np.abs(values)
    known = np.isfinite(magnitude)
    largest = None if not known.any() else int(np.argmax(np.where(known, magnitude, -1.0)))
    return values, largest


def _spans(matrix: Matrix) -> nearest.Spans | None:
    """The index's `nearest.Spans`, made once per generation (None without an index)."""
    z, span = matrix.z, matrix.span
    if z is None or span is None or z.shape[0] != matrix.values.shape[0] or span.shape[0] != z.shape[0]:
        return None
    found = matrix.memo.get("spans")
    if not isinstance(found, nearest.Spans):
        found = nearest.spans(span, matrix.days)
        matrix.memo.setdefault("spans", found)
    return found


def _gaps(matrix: Matrix) -> nearest.Gaps | None:
    """The index's rows' gap lists (`nearest.gap_lists`), once per generation beside its `_spans`:
    as the generation stores them (`nearest.stored_gaps`, mapped), else made from the z rows (a
    generation written before them); None without an index."""
    spans = _spans(matrix)
    if spans is None or matrix.z is None:
        return None
    found = matrix.memo.get("gaps")
    if not isinstance(found, nearest.Gaps):
        stored = matrix.gaps
        if stored is not None and stored[0].shape[0] == matrix.z.shape[0]:
            found = nearest.stored_gaps(stored[0], stored[1], matrix.z, spans)
        else:
            found = nearest.gap_lists(matrix.z, spans)
        matrix.memo.setdefault("gaps", found)
    return found


def _patterns(matrix: Matrix) -> nearest.Patterns | None:
    """The index's rows grouped by their dates (`nearest.patterns` of `_spans` and `_gaps`), made
    once per generation beside them (None without an index)."""
    spans = _spans(matrix)
    if spans is None or matrix.z is None:
        return None
    found = matrix.memo.get("patterns")
    if not isinstance(found, nearest.Patterns):
        found = nearest.patterns(spans, _gaps(matrix))
        matrix.memo.setdefault("patterns", found)
    return found


EXACT_ROWS = 2_000
"""Candidates up to which `within_correlation` computes every pair exactly, index or not."""


def _within_indexed(matrix: Matrix, rows: np.ndarray, columns: list[int], bound: float) -> np.ndarray:
    """`within_correlation`'s verdict for each of `rows` (matrix rows): per reference, every
    candidate's correlation estimated in one float32 pass with its error bound
    (`nearest.estimate`), and the candidates the bound leaves on either side of `bound`
    (`Estimate.undecided`: a few near it) computed exactly. The verdicts are the exact filter's: a
    decided row's correlation is on the side of the bound its estimate is. A reference whose dates
    its z cannot tell (`nearest.dates_held`) is compared exactly with every candidate.
    Few candidates (under a quarter of the matrix) are gathered; more, the pass reads every row."""
    spans = _spans(matrix)
    assert matrix.z is not None and spans is not None
    count, dates = matrix.z.shape
    gather = rows.size * 4 < count
    largest = np.full(rows.size, np.nan)
    for column in columns:
        held = nearest.dates_held(matrix.z, spans, column)
        if held is None:
            magnitude = np.abs(_against_rows(matrix.values, rows, column))
        else:
            found = nearest.estimate(
                matrix.z,
                spans,
                matrix.z[column],
                held,
                (0, dates),
                rows if gather else None,
                _gaps(matrix),
                _patterns(matrix),
            )
            value, undecided = found.value, found.undecided(bound)
            if not gather:
                value, undecided = value[rows], undecided[rows]
            magnitude = np.abs(value)
            if undecided.any():
                magnitude[undecided] = np.abs(_against_rows(matrix.values, rows[undecided], column))
        magnitude[rows == column] = np.nan  # an alpha with itself
        largest = np.fmax(largest, magnitude)
    with np.errstate(invalid="ignore"):
        kept: np.ndarray = largest <= bound  # NaN fails
    return kept
