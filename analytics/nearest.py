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
common dates is within rounding of zero is always computed exactly. So a page or a verdict equals the pass over every
row's, and no recall is lost. Chosen by measurement over principal-direction and random-projection
sketches, which lost true neighbours as the catalogue grew (recall 0.899 at 10^6 on the ic basis)
and could not decide `max_correlation` without the exact pass (docs/benchmarks.md "Issue 51").

Below APPROXIMATE_FROM rows every answer is computed as before, over every row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analytics.ranks import MIN_PAIRS

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
RECOMPUTE = -2
"""A gap count of a merged view (`datasets.catalogue_index.merged_gaps`): the row's lists are made
from its z row by the reader (`stored_gaps`): a delta's row, or a base row whose run holds a date
the delta brought."""


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


def dates_held(z: np.ndarray, spans: Spans, target: int) -> np.ndarray | None:
    """Which date columns row `target` holds a value at (bool): its run when it has no gaps; else
    where its z is not zero, provided that counts as many dates as it holds (a held date whose z is
    exactly zero, its value the row's mean, would be lost: None, the exact pass then)."""
    found = np.zeros(z.shape[1], dtype=bool)
    if spans.whole[target]:
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
        sure = allowed & np.isfinite(magnitude) & np.isfinite(self.error)
        if int(np.count_nonzero(sure)) < depth:
            return None
        lower = np.where(sure, magnitude - self.error, -np.inf)
        floor = np.partition(lower, lower.size - depth)[lower.size - depth] if depth else np.inf
        with np.errstate(invalid="ignore"):
            near = allowed & (magnitude + self.error >= floor)
        near |= allowed & np.isinf(self.error)
        found: np.ndarray = np.flatnonzero(near)
        return found


def estimate(
    z: np.ndarray,
    spans: Spans,
    target: np.ndarray,
    held: np.ndarray,
    window: tuple[int, int],
    rows: np.ndarray | None,
    gaps: Gaps | None = None,
) -> Estimate:
    """The correlation of `rows` of the index (None: every row) with the `target` (a z row on the
    index's dates: one of its rows, or a new alpha's, `zrows`; `held`: the date columns it holds a
    value at) over the dates both hold within the `window` of date columns [first, last).

    With each side's z values on the common dates S: C = sum(a b) - sum(a) sum(b) / n, the variances
    V = sum(x^2) - sum(x)^2 / n, and the correlation C / sqrt(Va Vb). sum(a b) is the float32
    product `z @ a` (both zero where they hold no value). For a row without gaps, S is its run and
    the target's dates in common: the row's sums are its whole sums less its float32 sums before and
    after the target's run and at the target's gaps, the target's are float64 prefix sums. For a row
    with gaps listed in `gaps` (`gap_lists`), the same, and the count of S and the target's sums less
    the target's values at the row's gaps (its z is zero there, so its own sums need nothing). For
    another row with gaps (no `gaps`, or one whose z is zero at a date it holds), its dates are where
    its z is not zero (checked against the dates it holds: otherwise undecided) and every sum is
    taken over S directly. Each float32 sum of k terms errs by at most
    k u / (1 - k u) times the sum of its terms' magnitudes (u = UNIT; Higham, Accuracy and Stability
    of Numerical Algorithms, 3.1), here bounded by Cauchy-Schwarz from the rows' squares (at most the
    catalogue's largest); the bound carried is twice the first-order propagation of those, plus the
    storage of z as float32. ROWS at a time, so each step's arrays stay in the CPU's cache."""
    columns = z.shape[1]
    first, last = window
    mask = np.zeros(columns, dtype=bool)
    mask[first:last] = np.asarray(held, dtype=bool)[first:last]
    size = z.shape[0] if rows is None else rows.size
    a = np.where(mask, np.asarray(target, dtype=np.float32).astype(np.float64), 0.0)  # as stored
    whole_a = float(a @ a)
    value, error = np.full(size, np.nan), np.zeros(size)
    if whole_a == 0 or size == 0:  # no date in the window, or constant on its dates there
        return Estimate(value, error)
    low, high = int(mask.argmax()), columns - int(mask[::-1].argmax())
    terms = _Terms(
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
    for start in range(0, size, ROWS):
        part = slice(start, min(start + ROWS, size))
        picked = part if rows is None else rows[part]
        _estimate_block(np.asarray(z[picked]), spans, picked, terms, value[part], error[part], gaps)
    return Estimate(value, error)


ROWS = 32_768
"""Rows `estimate` works on at once."""


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


def _estimate_block(
    block: np.ndarray,
    spans: Spans,
    picked: slice | np.ndarray,
    t: _Terms,
    value: np.ndarray,
    error: np.ndarray,
    gaps: Gaps | None = None,
) -> None:
    """`estimate` over one block of rows (`block`, the rows `picked` of the index), into `value` and
    `error`."""
    dot = (block @ t.a32).astype(np.float64)
    # Rows without gaps: the common run less the target's gaps.
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
    for part, needed in ((block[:, : t.low], row_low < t.low), (block[:, t.high :], row_high > t.high)):
        if part.shape[1] and needed.any():
            sum_b -= (part @ np.ones(part.shape[1], np.float32)).astype(np.float64)
            squares_b -= np.einsum("ij,ij->i", part, part).astype(np.float64)
    if t.gaps.size:  # a row is zero outside its run: every gap column inside the run counts
        part64 = block[:, t.gaps].astype(np.float64)
        sum_b -= part64.sum(axis=1)
        squares_b -= np.einsum("ij,ij->i", part64, part64)
    # Rows with gaps: z is zero at a row's gaps, so its sums are a whole row's; the common dates less
    # its gaps where the target holds a value, and the target's sums less its values there (the
    # row's gap lists, `Gaps`: a gather of as many columns as the rows have gaps).
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
    if gapped.size:
        values = block[gapped].astype(np.float64)
        theirs = values != 0
        unsure[gapped] = theirs.sum(axis=1) != held_b[gapped]
        common = theirs & t.mask
        n[gapped] = common.sum(axis=1)
        sum_a[gapped] = common @ t.a
        squares_a[gapped] = common @ (t.a * t.a)
        sum_b[gapped] = np.where(common, values, 0.0).sum(axis=1)
        squares_b[gapped] = np.where(common, values * values, 0.0).sum(axis=1)
    # The bound's terms, each at most the catalogue's largest row norm allows (scalars but three).
    g, big = t.gamma, t.largest_b
    err_sum_b = g * np.sqrt(2 * t.columns * big)  # the slices before and after, at most
    err_squares_b = g * big
    err_dot = g * np.sqrt(t.whole_a * big)
    stored = 8 * UNIT * np.sqrt(t.whole_a * (big + err_squares_b))
    with np.errstate(divide="ignore", invalid="ignore"):
        var_a = squares_a - sum_a * sum_a / n
        var_b = squares_b - sum_b * sum_b / n
        root = np.sqrt(var_a * var_b)
        found = np.clip((dot - sum_a * sum_b / n) / root, -1.0, 1.0)
        magnitude = np.abs(found)
        err_var_b = err_squares_b + (2 * err_sum_b * np.abs(sum_b) + err_sum_b**2) / n
        bound = (err_dot + stored + np.abs(sum_a) * (err_sum_b / n)) / root
        bound += magnitude * (err_var_b / var_b)
        bound += magnitude * (4 * UNIT) * (t.whole_a / var_a + (big + err_squares_b) / var_b)
        bound = 2 * bound + DECIDED
        doubtful = (var_b <= 4 * err_var_b) | (var_a <= 1e-9 * squares_a) | ~np.isfinite(bound) | unsure
    measured = (n >= MIN_PAIRS) | unsure
    value[:] = np.where(measured, found, np.nan)
    error[:] = np.where(measured, np.where(doubtful, np.inf, bound), 0.0)
