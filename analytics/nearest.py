"""Correlation to the catalogue in one pass over float32 rows, with a proven error bound (issue 51,
item 2; docs/analytics.md "Correlation to a large catalogue").

The index: each row of a catalogue matrix (returns, ic) z-normalised over its own finite dates (mean
0, unit norm, zero where it has no value) and stored as float32 (`{basis}_z`), and which dates each
row holds, as bits (`{basis}_present`); the pipeline writes both with each generation's matrices
(`index_matrices`; a delta generation its own rows: a row's z depends on that row alone).

Pearson is unchanged by shifting and scaling either side, so the correlation of two alphas over the
dates both hold is the correlation of their z rows there. For a row holding one unbroken run of
dates (as an alpha's history does), the common dates with a target are one run too, and every sum
the correlation needs is one inner product (`z @ target`: zero outside each row's dates, so it sums
the common dates alone) plus the sums of each row before and after the target's run (two slices,
only where rows start earlier or end later than the target) and the target's own prefix sums. That
is one float32 matrix-vector product over the catalogue (118 MB at 100,000 alphas of 296 sessions,
about 4 ms) instead of six float64 ones over the NaN matrix.

Nothing is approximate in what is served: each `Estimate` carries a bound on its error (the float32
products' rounding, `error`), and a caller computes exactly (`analytics.correlation.pearson_between`)
every row whose verdict the bound leaves open: within it of the screener's bound, or possibly among
a page's rows. A row with gaps in its dates is estimated as a row without, its own gaps taken off
the common dates and the target's sums (`Gaps`, issue 63 item 2); a row whose variance on the
common dates is within rounding of zero is always computed exactly. So a page or a verdict equals
the pass over every row's, and no recall is lost. Chosen by measurement over principal-direction
and random-projection sketches, which lost true neighbours as the catalogue grew (recall 0.899 at
10^6 on the ic basis) and could not decide `max_correlation` without the exact pass
(docs/benchmarks.md "Issue 51").

The per-row arithmetic (issue 63 item 2, tenth session: docs/benchmarks.md "the estimate's per-row
arithmetic"): the count of common dates and the target's sums over them depend on a row's dates
alone, and rows share their dates (a few start dates, the same missing weeks), so they, the
target's variance and the bound's terms made of them are computed once per pattern of dates
(`Patterns`, once per generation beside the gap lists) and gathered per row; the product reads the
target's run alone (the target is zero off it) and the slices off it are read SUB rows at a time,
from the cache; what remains per row is done in place, into the answer's arrays. Every float64
operation is the one the bound's derivation writes, made per pattern or per row (the same bits
either way); `Estimate.top` finds its floor from a sample of rows first.

Below APPROXIMATE_FROM rows every answer is computed as before, over every row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from analytics.ranks import MIN_PAIRS
from datasets import catalogue_index

APPROXIMATE_FROM = 20_000
"""Rows of a matrix from which a request uses the index; below, every row is computed exactly (the
pass costs less than the index there, and the recorded answers are the pass's)."""
BLOCK = 8_192
"""Rows z-normalised at once (the temporaries are a few blocks of rows x dates)."""
UNIT = 2.0**-24
"""float32's unit roundoff."""
DECIDED = 1e-9
"""Added to every error bound: the exact pass's own rounding (float64 sums) is far below it."""


def znormalised(values: np.ndarray) -> np.ndarray:
    """Each row minus its mean over its finite values, divided by its norm (float64), zero where
    it has no value; a row with fewer than two values or constant on them is zero."""
    block = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(block)
    count = finite.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, block, 0.0).sum(axis=1, keepdims=True) / count
        centred = np.where(finite, block - mean, 0.0)
        norm = np.sqrt((centred * centred).sum(axis=1, keepdims=True))
        found = np.where(norm > 0, centred / norm, 0.0)
    return found


def zrows(values: np.ndarray) -> np.ndarray:
    """(rows x dates) float32: `znormalised`, a block of rows at a time."""
    found = np.zeros(values.shape, np.float32)
    for start in range(0, values.shape[0], BLOCK):
        found[start : start + BLOCK] = znormalised(values[start : start + BLOCK])
    return found


def span_rows(values: np.ndarray, z: np.ndarray, days: np.ndarray) -> np.ndarray:
    """(rows x SPAN_COLUMNS) float64: each row's first and last date holding a value (days since
    1970; NaN for a row without one), how many dates it holds, and its z row's sum and sum of
    squares (of the float32 values `zrows` stores). Dates, not columns: a delta generation's rows
    keep them when its dates are merged with its base's."""
    found = np.full((values.shape[0], len(SPAN_COLUMNS)), np.nan)
    day = np.asarray(days, dtype=np.float64)
    for start in range(0, values.shape[0], BLOCK):
        finite = np.isfinite(np.asarray(values[start : start + BLOCK]))
        end = start + finite.shape[0]
        some = finite.any(axis=1)
        if day.size:
            found[start:end, 0] = np.where(some, day[finite.argmax(axis=1)], np.nan)
            found[start:end, 1] = np.where(some, day[day.size - 1 - finite[:, ::-1].argmax(axis=1)], np.nan)
        found[start:end, 2] = finite.sum(axis=1)
        block = np.asarray(z[start:end], dtype=np.float64)
        found[start:end, 3] = block.sum(axis=1)
        found[start:end, 4] = np.einsum("ij,ij->i", block, block)
    return found


SPAN_COLUMNS = ("first_day", "last_day", "held", "total", "squares")


def index_matrices(basis: str, values: np.ndarray, days: np.ndarray) -> dict[str, np.ndarray]:
    """The index of one basis's matrix (on `days`), as the generation stores it beside the matrix:
    the z rows, their spans and their gap lists (`gap_matrices`)."""
    z = zrows(values)
    span = span_rows(values, z, days)
    return {f"{basis}_z": z, f"{basis}_span": span, **gap_matrices(basis, z, span, days)}


INDEXED_BASES = ("returns", "ic")
"""The matrices a generation indexes (the correlation route's and the screener's bases)."""
INDEX_SUFFIXES = ("_z", "_span")
"""What `index_matrices` adds to a basis's name that a reader needs (a rewrite of the catalogue
writes them again)."""
GAP_SUFFIXES = ("_gapcount", "_gaps")
"""What `index_matrices` also adds (`gap_matrices`; issue 63 item 3): optional, a generation written
before them has none and its readers make its gap lists from the z rows (`gap_lists`)."""
NOT_LISTED = -1
"""A stored gap count: the row's gaps are not listed (`Gaps.listed` False)."""
RECOMPUTE = catalogue_index.GAPS_RECOMPUTE
"""A gap count of a merged view (`datasets.catalogue_index.merged_gaps`, where it is declared): the
row's lists are made from its z row by the reader (`stored_gaps`)."""


@dataclass(frozen=True)
class Spans:
    """Per row of an index, on the matrix's date columns: the first column it holds (`low`), one
    past its last (`high`), how many it holds (`held`), and its z row's sum and sum of squares. A
    row is `whole` when it holds every date between low and high."""

    low: np.ndarray
    high: np.ndarray
    held: np.ndarray
    total: np.ndarray
    squares: np.ndarray

    @property
    def whole(self) -> np.ndarray:
        found: np.ndarray = self.held == self.high - self.low
        return found


def spans(span: np.ndarray, days: np.ndarray) -> Spans:
    """The `Spans` of an index's stored `span_rows`, on the matrix's `days` (once per generation)."""
    span = np.asarray(span)
    some = np.isfinite(span[:, 0])
    day = np.asarray(days, dtype=np.float64)  # searched as float64 once, not per needle
    low = np.searchsorted(day, np.where(some, span[:, 0], 0.0), "left").astype(np.int64, copy=False)
    high = np.searchsorted(day, np.where(some, span[:, 1], 0.0), "right").astype(np.int64, copy=False)
    low[~some] = 0
    high[~some] = 0
    return Spans(low, high, span[:, 2].astype(np.int64), span[:, 3], span[:, 4])


@dataclass(frozen=True)
class Gaps:
    """Each row's interior gaps (the date columns between its first and last that it holds no value
    at), as compressed rows: row r's are `columns[start[r] : start[r] + count[r]]`. A row whose z is
    zero at more dates of its run than it lacks (a held value equal to its mean) has none listed
    and `listed` False: `estimate` takes its sums over the common dates directly, as before."""

    start: np.ndarray
    count: np.ndarray
    columns: np.ndarray
    listed: np.ndarray


def gap_lists(z: np.ndarray, spans: Spans, only: np.ndarray | None = None) -> Gaps:
    """The `Gaps` of an index (once per generation: one pass over the rows with gaps); with `only`
    (ascending rows), those rows' alone (every other row then has none, and is listed)."""
    rows = z.shape[0]
    count = np.zeros(rows, np.int64)
    listed = np.ones(rows, dtype=bool)
    whole = spans.whole
    gapped = np.flatnonzero(~whole) if only is None else only[~whole[only]]
    parts: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    columns = np.arange(z.shape[1])
    for first in range(0, gapped.size, BLOCK):
        picked = gapped[first : first + BLOCK]
        inside = (columns >= spans.low[picked, None]) & (columns < spans.high[picked, None])
        empty = inside & (np.asarray(z[picked]) == 0)
        owner, column = np.nonzero(empty)
        parts.append(column.astype(np.int64))
        owners.append(picked[owner])
    owner = np.concatenate(owners) if owners else np.zeros(0, np.int64)
    found = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    np.add.at(count, owner, 1)
    wrong = np.zeros(rows, dtype=bool)
    wrong[gapped] = count[gapped] != (spans.high[gapped] - spans.low[gapped]) - spans.held[gapped]
    listed[wrong] = False
    keep = ~wrong[owner]
    owner, found = owner[keep], found[keep]
    count[wrong] = 0
    return Gaps(_starts(count), count, found, listed)


def _starts(count: np.ndarray) -> np.ndarray:
    start = np.zeros(count.size, np.int64)
    np.cumsum(count[:-1], out=start[1:])
    return start


def gap_matrices(basis: str, z: np.ndarray, span: np.ndarray, days: np.ndarray) -> dict[str, np.ndarray]:
    """The gap lists of one basis's index (`gap_lists` of its z rows and `span_rows` on `days`) as a
    generation stores them: `{basis}_gapcount` (int32, a row per index row: how many gaps it lists,
    NOT_LISTED for a row whose gaps are not listed) and `{basis}_gaps` (int32: every listed gap's
    date column, row after row)."""
    count, columns = stored_form(gap_lists(z, spans(span, days)))
    return {f"{basis}_gapcount": count, f"{basis}_gaps": columns}


def stored_form(gaps: Gaps) -> tuple[np.ndarray, np.ndarray]:
    """`gaps` as `gap_matrices` stores them: (count, columns), int32."""
    count = np.where(gaps.listed, gaps.count, NOT_LISTED).astype(np.int32)
    return count, gaps.columns.astype(np.int32)


def stored_gaps(count: np.ndarray, columns: np.ndarray, z: np.ndarray, spans: Spans) -> Gaps:
    """The `Gaps` of stored gap lists (`gap_matrices`, or a merged view of them; mapped: no pass in
    Python), equal to `gap_lists(z, spans)`: the lists of the rows marked RECOMPUTE made from their
    z rows (a delta's few rows)."""
    count = np.asarray(count)
    listed = count != NOT_LISTED
    counts = np.maximum(count, 0).astype(np.int64)
    redo = np.flatnonzero(count == RECOMPUTE)
    if not redo.size:
        return Gaps(_starts(counts), counts, np.asarray(columns), listed)
    fresh = gap_lists(z, spans, redo)
    old_start = _starts(counts)
    counts[redo] = fresh.count[redo]
    listed[redo] = fresh.listed[redo]
    start = _starts(counts)
    found = np.empty(int(counts.sum()), np.int64)
    stored = np.asarray(columns)
    if stored.size:  # each row's stored lists moved by the lists made before them
        found[np.arange(stored.size) + np.repeat(start - old_start, np.maximum(count, 0))] = stored
    made = fresh.count[redo]
    if int(made.sum()):
        found[np.arange(int(made.sum())) + np.repeat(start[redo] - fresh.start[redo], made)] = fresh.columns
    return Gaps(start, counts, found, listed)


@dataclass(frozen=True)
class Patterns:
    """The rows of an index grouped by their dates (once per generation, `patterns`): the rows of a
    pattern share their first column (`low`), one past their last (`high`) and their listed gap
    columns (pattern p's are `gap_columns[gap_owner == p]`), so the count of the dates they share
    with a target and the target's sums over them are the same for each: `estimate` computes them
    once per pattern. Row r's pattern is `of_row[r]`; -1 for a row whose dates are read from its z
    (gaps not listed, or no `Gaps`: the direct sums)."""

    of_row: np.ndarray
    low: np.ndarray
    high: np.ndarray
    gap_owner: np.ndarray
    gap_columns: np.ndarray
    direct: np.ndarray
    """The rows of pattern -1, in order."""
    held: np.ndarray
    """Per date column (up to the last any row holds), whether any row may hold a value there (a
    column no row holds, z zero in every row, needs no correction of the rows' sums)."""


def patterns(spans: Spans, gaps: Gaps | None) -> Patterns:
    """The `Patterns` of an index's `spans` and `gaps` (once per generation: two sorts). A row
    without gaps is keyed by its run; a row with listed gaps by a random 64-bit hash of its run, its
    gap count and its gap columns, then checked against its pattern's first row, its run, count and
    every column (a row that differs would get a pattern of its own: the grouping is exact, not
    hashed)."""
    rows = spans.low.size
    whole = spans.whole
    of_row = np.full(rows, -1, np.int64)
    plain = np.flatnonzero(whole)
    run_key = spans.low[plain] * np.int64(2**31) + spans.high[plain]
    _, first, inverse = np.unique(run_key, return_index=True, return_inverse=True)
    of_row[plain] = inverse.reshape(-1)
    lows, highs = [spans.low[plain[first]]], [spans.high[plain[first]]]
    owners, columns = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    runs = first.size
    gapped = (
        np.zeros(0, np.int64) if gaps is None else np.flatnonzero(~whole & gaps.listed & (gaps.count > 0))
    )
    if gaps is not None and gapped.size:
        count = gaps.count[gapped].astype(np.int64)
        total = int(count.sum())
        before = np.cumsum(count) - count
        offset = np.arange(total) - np.repeat(before, count)  # each entry's place in its row's list
        column = gaps.columns[np.repeat(gaps.start[gapped], count) + offset].astype(np.int64)
        low_b, high_b = spans.low[gapped], spans.high[gapped]
        weights = _gap_weights(int(column.max()) + 1).view(np.uint64)
        key = np.add.reduceat(weights[column], before)  # wraps: a 64-bit hash of the list
        key += low_b.astype(np.uint64) * weights[-3]
        key += high_b.astype(np.uint64) * weights[-2]
        key += count.astype(np.uint64) * weights[-1]
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        ids = inverse.reshape(-1).astype(np.int64)
        lead = first[ids]  # the same run and count as its pattern's first row, and entry by entry
        alike = (low_b == low_b[lead]) & (high_b == high_b[lead]) & (count == count[lead])
        theirs = np.minimum(np.repeat(before[lead], count) + offset, total - 1)
        wrong = column != column[theirs]
        wrong |= np.repeat(~alike, count)
        differs = np.flatnonzero(
            np.bincount(np.repeat(np.arange(gapped.size), count), wrong, gapped.size) > 0
        )
        ids[differs] = first.size + np.arange(differs.size)
        first = np.concatenate([first, differs])
        of_row[gapped] = runs + ids
        lows.append(spans.low[gapped[first]])
        highs.append(spans.high[gapped[first]])
        counts = count[first]
        owners.append(runs + np.repeat(np.arange(first.size), counts))
        columns.append(
            column[
                np.repeat(before[first], counts)
                + np.arange(int(counts.sum()))
                - np.repeat(np.cumsum(counts) - counts, counts)
            ]
        )
    low, high = np.concatenate(lows).astype(np.int64), np.concatenate(highs).astype(np.int64)
    owner, column = np.concatenate(owners), np.concatenate(columns)
    direct = np.flatnonzero(of_row < 0)
    # Columns held: within some pattern's run and not one of its gaps, or within a direct row's run.
    size = int(max(high.max(initial=0), spans.high[direct].max(initial=0)))
    edges = np.zeros(size + 1, np.int64)
    for lo, hi in ((low, high), (spans.low[direct], spans.high[direct])):
        np.add.at(edges, lo, 1)
        np.add.at(edges, hi, -1)
    within = np.cumsum(edges)[:size]
    held = within - np.bincount(column, minlength=size)[:size] > 0
    return Patterns(of_row, low, high, owner, column, direct, held)


def _gap_weights(columns: int) -> np.ndarray:
    """A random 64-bit weight per date column, then one for a row's first column, its last and its
    gap count: a row's key is their sum (wrapping), its columns' and its run's."""
    return np.random.default_rng(63).integers(0, 2**63, columns + 3, np.int64)


def dates_held(z: np.ndarray, spans: Spans, target: int) -> np.ndarray | None:
    """Which date columns row `target` holds a value at (bool): its run when it has no gaps; else
    where its z is not zero, provided that counts as many dates as it holds (a held date whose z is
    exactly zero, its value the row's mean, would be lost: None, the exact pass then)."""
    found = np.zeros(z.shape[1], dtype=bool)
    if spans.held[target] == spans.high[target] - spans.low[target]:  # `Spans.whole`, for one row
        found[spans.low[target] : spans.high[target]] = True
        return found
    found = np.asarray(z[target]) != 0
    return found if int(np.count_nonzero(found)) == int(spans.held[target]) else None


@dataclass(frozen=True)
class Estimate:
    """The correlation of each asked row with a target over the dates both hold: `value` (NaN where
    they share fewer than MIN_PAIRS dates: then exactly no correlation) and a bound on its error
    (`error`; inf where only the exact pass decides: a row whose dates its z cannot tell, or a
    variance within rounding of zero on the common dates)."""

    value: np.ndarray
    error: np.ndarray

    def undecided(self, bound: float) -> np.ndarray:
        """Rows whose |correlation| may lie on either side of `bound`."""
        found: np.ndarray = np.abs(np.abs(self.value) - bound) <= self.error
        found |= np.isinf(self.error)
        return found

    def top(self, allowed: np.ndarray, depth: int) -> np.ndarray | None:
        """The `allowed` rows (a mask) that may be among the `depth` largest |correlations| of the
        allowed rows (every row that is, and rows the bound cannot tell apart from them): the rows
        to compute exactly for a page reaching `depth`. None when fewer than `depth` allowed rows
        surely have a correlation (the page reaches the rows without one)."""
        magnitude = np.abs(self.value)
        with np.errstate(invalid="ignore"):
            lower = magnitude - self.error  # finite exactly where both are
        sure = np.isfinite(lower)
        sure &= allowed
        if int(np.count_nonzero(sure)) < depth:
            return None
        floor = _largest(lower, sure, depth) if depth else np.inf
        with np.errstate(invalid="ignore"):
            magnitude += self.error
            near = magnitude >= floor
        near |= np.isinf(self.error)
        near &= allowed
        found: np.ndarray = np.flatnonzero(near)
        return found


SAMPLED = 16
"""`_largest` looks at every SAMPLED-th row first."""


def _largest(values: np.ndarray, among: np.ndarray, depth: int) -> float:
    """The `depth`-th largest of `values[among]` (at least `depth` of them): the `depth`-th largest of
    every SAMPLED-th row's is at most it, so only the values at least that are ordered."""
    if values.size >= 4 * SAMPLED * depth:
        sample = values[::SAMPLED][among[::SAMPLED]]
        if sample.size >= depth:
            guess = np.partition(sample, sample.size - depth)[sample.size - depth]
            with np.errstate(invalid="ignore"):
                among = among & (values >= guess)
    chosen = values[among]
    return float(np.partition(chosen, chosen.size - depth)[chosen.size - depth])


def estimate(
    z: np.ndarray,
    spans: Spans,
    target: np.ndarray,
    held: np.ndarray,
    window: tuple[int, int],
    rows: np.ndarray | None,
    gaps: Gaps | None = None,
    grouped: Patterns | None = None,
) -> Estimate:
    """The correlation of `rows` of the index (None: every row) with the `target` (a z row on the
    index's dates: one of its rows, or a new alpha's, `zrows`; `held`: the date columns it holds a
    value at) over the dates both hold within the `window` of date columns [first, last). `grouped`:
    the index's `patterns` of `spans` and `gaps` (made here when not given: once per generation).

    With each side's z values on the common dates S: C = sum(a b) - sum(a) sum(b) / n, the variances
    V = sum(x^2) - sum(x)^2 / n, and the correlation C / sqrt(Va Vb). sum(a b) is the float32
    product `z @ a` over the target's run (both zero where they hold no value: at most `columns`
    terms). For a row without gaps, S is its run and
    the target's dates in common: the row's sums are its whole sums less its float32 sums before and
    after the target's run and at the target's gaps (where some row holds a value: z is zero in
    every row elsewhere), the target's are float64 prefix sums. For a row with gaps listed in `gaps`
    (`gap_lists`), the same, and the count of S and the target's sums less the target's values at
    the row's gaps (its z is zero there, so its own sums need nothing). n and the target's sums
    depend on the row's dates alone: they, Va and the bound's terms made of them are computed once
    per pattern of dates (`Patterns`) and gathered per row. For another row with gaps (no `gaps`,
    or one whose z is zero at a date it holds), its dates are where its z is not zero (checked
    against the dates it holds: otherwise undecided) and every sum is taken over S directly. Each
    float32 sum of k terms errs by at most k u / (1 - k u) times the sum of its terms' magnitudes
    (u = UNIT; Higham, Accuracy and Stability of Numerical Algorithms, 3.1), here bounded by
    Cauchy-Schwarz from the rows' squares (at most the catalogue's largest); the bound carried is
    twice the first-order propagation of those, plus the storage of z as float32. The float64
    arithmetic after the sums (each operation within 2^-53 relative) is the same, operation for
    operation, whether a term is made per pattern or per row: its rounding is orders of magnitude
    below the float32 terms. ROWS at a time, so each step's arrays stay in the CPU's cache."""
    size = z.shape[0] if rows is None else rows.size
    value, error = np.full(size, np.nan), np.zeros(size)
    terms = target_terms(z.shape[1], spans, target, held, window)
    if terms is None or size == 0:  # no date in the window, or constant on its dates there
        return Estimate(value, error)
    grouped = patterns(spans, gaps) if grouped is None else grouped
    table = _pattern_table(grouped, terms)
    for start in range(0, size, ROWS):
        part = slice(start, min(start + ROWS, size))
        picked = part if rows is None else rows[part]
        _estimate_block(np.asarray(z[picked]), spans, picked, terms, value[part], error[part], grouped, table)
    return Estimate(value, error)


def target_terms(
    columns: int, spans: Spans, target: np.ndarray, held: np.ndarray, window: tuple[int, int]
) -> _Terms | None:
    """What `estimate` computes once per target (the target masked to its dates in the `window`,
    as stored, its run, gaps and prefix sums); None when no date of the window holds a value or the
    target is constant on them."""
    first, last = window
    mask = np.zeros(columns, dtype=bool)
    mask[first:last] = np.asarray(held, dtype=bool)[first:last]
    a = np.where(mask, np.asarray(target, dtype=np.float32).astype(np.float64), 0.0)  # as stored
    whole_a = float(a @ a)
    if whole_a == 0:
        return None
    low, high = int(mask.argmax()), columns - int(mask[::-1].argmax())
    return _Terms(
        a=a,
        a32=a.astype(np.float32),
        low=low,
        high=high,
        gaps=np.flatnonzero(~mask[low:high]) + low,
        prefix=np.concatenate([[0.0], np.cumsum(a)]),
        prefix_squares=np.concatenate([[0.0], np.cumsum(a * a)]),
        mask=mask,
        whole_a=whole_a,
        largest_b=float(np.max(spans.squares, initial=0.0)),
        gamma=columns * UNIT / (1 - columns * UNIT),
        columns=columns,
    )


ROWS = 32_768
"""Rows `estimate` works on at once (the per-row float64 arithmetic)."""
SUB = 4_096
"""Rows whose product and slices are taken at once (a few MB: the slices read from the cache)."""


@dataclass(frozen=True)
class _Terms:
    """What `estimate` computes once per target."""

    a: np.ndarray
    a32: np.ndarray
    low: int
    high: int
    gaps: np.ndarray
    prefix: np.ndarray
    prefix_squares: np.ndarray
    mask: np.ndarray
    whole_a: float
    largest_b: float
    gamma: float
    columns: int


@dataclass(frozen=True)
class _Table:
    """Per pattern of dates (and per row read directly, appended by `_estimate_block`), what the
    correlation and its bound need of n and the target's sums: n (float64), sum(a), Va, the bound's
    numerator before the row's root (`lead`), whole_a / Va (`spread`), whether Va alone leaves the
    row to the exact pass (`doubtful`) and whether it has a correlation (`measured`). `cleared`: the
    target's gap columns some row may hold a value at (the rows' sums there are corrected);
    `before`, `after`: per pattern, whether its rows may hold a value before (after) the target's
    run, where their sums are corrected."""

    n: np.ndarray
    sum_a: np.ndarray
    var_a: np.ndarray
    lead: np.ndarray
    spread: np.ndarray
    doubtful: np.ndarray
    measured: np.ndarray
    cleared: np.ndarray
    before: np.ndarray
    after: np.ndarray

    def extended(self, other: _Table) -> _Table:
        """This table with `other`'s rows appended (`cleared`, `before`, `after` this one's)."""
        n, sum_a, var_a, lead, spread, doubtful, measured = (
            np.concatenate([mine, theirs]) for mine, theirs in zip(self.fields(), other.fields(), strict=True)
        )
        return _Table(
            n, sum_a, var_a, lead, spread, doubtful, measured, self.cleared, self.before, self.after
        )

    def fields(self) -> tuple[np.ndarray, ...]:
        return (self.n, self.sum_a, self.var_a, self.lead, self.spread, self.doubtful, self.measured)


def _scalars(t: _Terms) -> tuple[float, float, float, float]:
    """The bound's terms each at most the catalogue's largest row norm allows: the error of the
    row's sum (its slices before and after, at most), of its squares, of the product, and of z's
    storage as float32."""
    g, big = t.gamma, t.largest_b
    err_sum_b = g * np.sqrt(2 * t.columns * big)
    err_squares_b = g * big
    err_dot = g * np.sqrt(t.whole_a * big)
    stored = 8 * UNIT * np.sqrt(t.whole_a * (big + err_squares_b))
    return err_sum_b, err_squares_b, err_dot, stored


def _table(
    n: np.ndarray,
    sum_a: np.ndarray,
    squares_a: np.ndarray,
    unsure: np.ndarray,
    t: _Terms,
    cleared: np.ndarray,
) -> _Table:
    """The `_Table` of rows (or patterns) of counts `n` and target sums `sum_a`, `squares_a`."""
    err_sum_b, _, err_dot, stored = _scalars(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_a = squares_a - sum_a * sum_a / n
        lead = err_dot + stored + np.abs(sum_a) * (err_sum_b / n)
        spread = t.whole_a / var_a
        doubtful = (var_a <= 1e-9 * squares_a) | unsure
    measured = (n >= MIN_PAIRS) | unsure
    none = np.zeros(0, dtype=bool)
    return _Table(n.astype(np.float64), sum_a, var_a, lead, spread, doubtful, measured, cleared, none, none)


def _pattern_table(grouped: Patterns, t: _Terms) -> _Table:
    """The `_Table` of every pattern of dates for the target `t`: the common run less the target's
    gaps, less the pattern's gaps where the target holds a value."""
    start = np.maximum(grouped.low, t.low)
    stop = np.maximum(np.minimum(grouped.high, t.high), start)
    n = stop - start
    if t.gaps.size:
        n -= np.searchsorted(t.gaps, stop) - np.searchsorted(t.gaps, start)
    sum_a = t.prefix[stop] - t.prefix[start]
    squares_a = t.prefix_squares[stop] - t.prefix_squares[start]
    if grouped.gap_owner.size:
        count = grouped.low.size
        column = grouped.gap_columns
        values_a = t.a[column]
        n -= np.bincount(grouped.gap_owner, t.mask[column], count).astype(np.int64)
        sum_a -= np.bincount(grouped.gap_owner, values_a, count)
        squares_a -= np.bincount(grouped.gap_owner, values_a * values_a, count)
    cleared = t.gaps[t.gaps < grouped.held.size]
    cleared = cleared[grouped.held[cleared]]
    found = _table(n, sum_a, squares_a, np.zeros(n.size, dtype=bool), t, cleared)
    some = grouped.high > grouped.low  # patterns holding a value before or after the target's run
    before, after = some & (grouped.low < t.low), some & (grouped.high > t.high)
    return replace(found, before=before, after=after)


def _estimate_block(
    block: np.ndarray,
    spans: Spans,
    picked: slice | np.ndarray,
    t: _Terms,
    value: np.ndarray,
    error: np.ndarray,
    grouped: Patterns,
    table: _Table,
) -> None:
    """`estimate` over one block of rows (`block`, the rows `picked` of the index), into `value` and
    `error`."""
    # The product, and the row's float32 sums before and after the target's run (its sums are its
    # whole sums less those), SUB rows at a time: the slices are read again from the CPU's cache.
    pattern = grouped.of_row[picked]
    rows = block.shape[0]
    dot32 = np.empty(rows, np.float32)
    sides = [
        (columns, np.empty(rows, np.float32), np.empty(rows, np.float32))
        for columns, flags in ((slice(0, t.low), table.before), (slice(t.high, t.columns), table.after))
        if flags.any()  # else no row holds a value there (a row is zero outside its run)
    ]
    ones = np.ones(t.columns, np.float32)
    a32 = t.a32[t.low : t.high]
    cleared = table.cleared
    gap_sums, gap_squares = np.empty(rows), np.empty(rows)
    for first in range(0, rows, SUB):
        rows_here = slice(first, first + SUB)
        sub = block[rows_here]
        np.matmul(sub[:, t.low : t.high], a32, out=dot32[rows_here])  # a is zero off its run
        for columns, sums, squares in sides:
            part = sub[:, columns]
            np.matmul(part, ones[: part.shape[1]], out=sums[rows_here])
            np.einsum("ij,ij->i", part, part, out=squares[rows_here])
        if cleared.size == 1:  # and at the target's gaps some row may hold a value at
            gap_sums[rows_here] = sub[:, cleared[0]]
        elif cleared.size:
            part64 = sub[:, cleared].astype(np.float64)
            gap_sums[rows_here] = part64.sum(axis=1)
            gap_squares[rows_here] = np.einsum("ij,ij->i", part64, part64)
    dot = dot32.astype(np.float64)
    if sides:  # the whole sums less the first side's, made at once
        sum_b = np.subtract(spans.total[picked], sides[0][1])
        squares_b = np.subtract(spans.squares[picked], sides[0][2])
    else:
        sum_b, squares_b = spans.total[picked].copy(), spans.squares[picked].copy()
    for _, sums, squares in sides[1:]:
        sum_b -= sums
        squares_b -= squares
    if cleared.size:
        sum_b -= gap_sums
        if cleared.size == 1:
            gap_sums *= gap_sums
            squares_b -= gap_sums
        else:
            squares_b -= gap_squares
    if grouped.direct.size:
        if isinstance(picked, slice):
            ends = np.searchsorted(grouped.direct, [picked.start, picked.stop])
            direct = grouped.direct[ends[0] : ends[1]] - picked.start
        else:
            direct = np.flatnonzero(pattern < 0)
        if direct.size:
            pattern = pattern.copy()
            pattern[direct] = table.n.size + np.arange(direct.size)
            table = table.extended(_direct(block, spans, picked, t, direct, sum_b, squares_b, table))
    # Per row, operation for operation as the bound's derivation writes it (each in place; the
    # correlation into `value`, the bound into `error`).
    err_sum_b, err_squares_b, _, _ = _scalars(t)
    n = np.take(table.n, pattern, mode="clip")
    with np.errstate(divide="ignore", invalid="ignore"):
        var_b = sum_b * sum_b  # squares_b - sum_b * sum_b / n
        var_b /= n
        np.subtract(squares_b, var_b, out=var_b)
        root = np.take(table.var_a, pattern, out=squares_b, mode="clip")  # sqrt(var_a * var_b)
        root *= var_b
        np.sqrt(root, out=root)
        found = np.take(
            table.sum_a, pattern, out=value, mode="clip"
        )  # (dot - sum_a * sum_b / n) / root, clipped
        found *= sum_b
        found /= n
        np.subtract(dot, found, out=found)
        found /= root
        np.clip(found, -1.0, 1.0, out=found)
        magnitude = np.abs(found)
        err_var_b = np.abs(sum_b, out=sum_b)  # err_squares_b + (2 err_sum_b |sum_b| + err_sum_b^2) / n
        err_var_b *= 2 * err_sum_b
        err_var_b += err_sum_b**2
        err_var_b /= n
        err_var_b += err_squares_b
        bound = np.take(table.lead, pattern, out=error, mode="clip")  # lead / root + |r| (err_var_b / var_b)
        bound /= root
        term = np.divide(err_var_b, var_b, out=dot)
        term *= magnitude
        bound += term
        # + |r| 4u (whole_a / var_a + (big + err_squares_b) / var_b)
        np.divide(t.largest_b + err_squares_b, var_b, out=term)
        term += np.take(table.spread, pattern, out=root, mode="clip")
        magnitude *= 4 * UNIT
        magnitude *= term
        bound += magnitude
        bound *= 2
        bound += DECIDED
        # inf where the exact pass decides: var_b within rounding of zero, or var_a, or no bound
        err_var_b *= 4
        doubtful = np.less_equal(var_b, err_var_b)
        if table.doubtful.any():
            doubtful |= table.doubtful[pattern]
    np.copyto(bound, np.inf, where=doubtful)
    np.fmin(bound, np.inf, out=bound)  # NaN: inf (the bound is a sum of terms >= 0, or NaN)
    if not table.measured.all():  # no correlation: NaN, error 0
        unmeasured = ~table.measured[pattern]
        np.copyto(value, np.nan, where=unmeasured)
        np.copyto(error, 0.0, where=unmeasured)


def _direct(
    block: np.ndarray,
    spans: Spans,
    picked: slice | np.ndarray,
    t: _Terms,
    direct: np.ndarray,
    sum_b: np.ndarray,
    squares_b: np.ndarray,
    table: _Table,
) -> _Table:
    """The `_Table` of the `direct` rows of a block (positions in it): rows with gaps whose dates
    are where their z is not zero (undecided where that does not count the dates they hold), every
    sum over the common dates taken directly; their `sum_b` and `squares_b` set in place."""
    values = block[direct].astype(np.float64)
    theirs = values != 0
    held_b = spans.held[picked][direct]
    unsure = theirs.sum(axis=1) != held_b
    common = theirs & t.mask
    n = common.sum(axis=1)
    sum_a = common @ t.a
    squares_a = common @ (t.a * t.a)
    sum_b[direct] = np.where(common, values, 0.0).sum(axis=1)
    squares_b[direct] = np.where(common, values * values, 0.0).sum(axis=1)
    return _table(n, sum_a, squares_a, unsure, t, table.cleared)
