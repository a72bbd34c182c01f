"""The correlation index (analytics/nearest.py, issue 51 item 2) on a small synthetic catalogue of
2,000 alphas (tests/bench/synthetic_catalogue.py's factor model, half the alphas starting late),
with gaps, constant stretches and short rows planted: every estimate is within its error bound of
the exact correlation (`pearson_between`, independent code), the page served from the index equals
the pass over every row's (whole history, windows, readable masks, deep pages), planted
near-duplicates are found, and the screener's `max_correlation` filter decided by the index keeps
exactly what the exact filter keeps."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from analytics import nearest
from analytics.correlation import (
    _indexed_page,
    _series_page,
    against_set,
    pearson_between,
    within_correlation,
)
from datasets.catalogue_snapshot import Matrix
from tests.bench.synthetic_catalogue import synthetic_series

N, SESSIONS, WEEKS = 2_000, 296, 62
WHOLE = (-(2**31), 2**31 - 1)
GAPPED, CONSTANT, SHORT, EMPTY = 11, 12, 13, 14


def _matrix(values: np.ndarray, indexed: bool = True) -> Matrix:
    ids = [f"a{i:05d}" for i in range(values.shape[0])]
    days = np.arange(19_000, 19_000 + values.shape[1], dtype=np.int32)
    index = nearest.index_matrices("returns", values, days) if indexed else {}
    return Matrix(
        "v",
        {alpha: row for row, alpha in enumerate(ids)},
        pa.array(ids),
        days,
        values,
        index.get("returns_z"),
        index.get("returns_span"),
        np.arange(values.shape[0], dtype=np.int64),
        (index["returns_gapcount"], index["returns_gaps"]) if indexed else None,
    )


@pytest.fixture(scope="module")
def catalogue() -> tuple[Matrix, Matrix, np.ndarray]:
    """(indexed, without an index: the exact pass, planted duplicates)."""
    series = synthetic_series(N, SESSIONS, WEEKS, seed=7)
    values = series.returns.copy()
    values[GAPPED, 100:130] = np.nan  # a gap: always decided exactly
    values[GAPPED, 200] = np.nan
    values[CONSTANT, 150:] = 0.001  # constant on the target's late run
    values[SHORT, :-8] = np.nan  # fewer common dates than a correlation needs with most
    values[EMPTY] = np.nan
    return _matrix(values), _matrix(values, indexed=False), series.duplicates


@pytest.fixture()
def indexed_from_1000(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1_000)


def _spans(matrix: Matrix) -> nearest.Spans:
    assert matrix.z is not None and matrix.span is not None
    return nearest.spans(matrix.span, matrix.days)


def test_every_estimate_is_within_its_bound_of_the_exact_correlation(
    catalogue: tuple[Matrix, Matrix, np.ndarray],
) -> None:
    matrix, _, _ = catalogue
    assert matrix.z is not None
    spans = _spans(matrix)
    assert not spans.whole[GAPPED] and spans.whole[CONSTANT] and spans.held[EMPTY] == 0
    targets = [*np.random.default_rng(1).choice(N, 12, replace=False).tolist(), CONSTANT, SHORT, GAPPED]
    windows = [(0, SESSIONS), (40, 260), (250, SESSIONS)]
    undecided = 0
    for target in targets:
        for first, last in windows:
            held = nearest.dates_held(matrix.z, spans, target)
            assert held is not None and np.array_equal(held, np.isfinite(matrix.values[target]))
            found = nearest.estimate(matrix.z, spans, matrix.z[target], held, (first, last), None)
            window = matrix.values[:, first:last]
            exact, overlap = pearson_between(window, window[[target]])
            exact = exact[:, 0]
            decided = np.isfinite(found.error)
            if target != CONSTANT:  # constant on late runs: every late row is left to the pass
                undecided += int(np.count_nonzero(~decided))
            # No correlation (too few common dates, a constant side) exactly where the pass has none.
            assert np.array_equal(np.isnan(found.value[decided]), np.isnan(exact[decided])), (target, first)
            both = decided & np.isfinite(exact)
            assert np.all(np.abs(found.value[both] - exact[both]) <= found.error[both]), (target, first)
            # Narrow enough to decide: near 0.3, the bound leaves open a few rows and the gapped one.
            near = found.undecided(0.3)
            assert np.count_nonzero(near & decided) <= N // 200, (target, first)
    assert undecided <= (len(targets) - 1) * len(windows) * 3  # a few, near zero variance


def test_a_gathered_estimate_equals_the_whole_pass(catalogue: tuple[Matrix, Matrix, np.ndarray]) -> None:
    matrix, _, _ = catalogue
    assert matrix.z is not None
    spans = _spans(matrix)
    rows = np.array([5, 1999, 3, GAPPED, 700], dtype=np.int64)
    held = np.isfinite(matrix.values[42])
    every = nearest.estimate(matrix.z, spans, matrix.z[42], held, (0, SESSIONS), None)
    some = nearest.estimate(matrix.z, spans, matrix.z[42], held, (0, SESSIONS), rows)
    decided = np.isfinite(some.error)
    # float32 products in another blocking: the same within the bound
    assert np.all(np.abs(some.value - every.value[rows])[decided] <= some.error[decided])
    assert np.array_equal(np.isinf(some.error), np.isinf(every.error[rows]))


def test_the_dates_a_row_holds_are_read_from_its_z(catalogue: tuple[Matrix, Matrix, np.ndarray]) -> None:
    """From its run without gaps, else where its z is not zero; a held value equal to its row's
    mean (z exactly zero) is caught by the count and left to the pass."""
    matrix, _, _ = catalogue
    assert matrix.z is not None
    spans = _spans(matrix)
    for row in (GAPPED, EMPTY, SHORT, 5, 1999):
        held = nearest.dates_held(matrix.z, spans, row)
        assert held is not None and np.array_equal(held, np.isfinite(matrix.values[row])), row
    values = matrix.values[[GAPPED]].copy()
    values[0, 50] = np.nanmean(values[0])  # its z there is zero (within rounding: made exact below)
    z = nearest.zrows(values)
    z[0, 50] = 0.0
    span = nearest.span_rows(values, z, matrix.days)
    assert nearest.dates_held(z, nearest.spans(span, matrix.days), 0) is None


@pytest.mark.parametrize(
    ("window", "readable_share", "limit", "offset"),
    [
        (None, 1.0, 50, 0),
        (None, 0.5, 50, 0),
        ((40, 260), 1.0, 50, 0),
        ((250, 295), 0.7, 20, 0),
        (None, 1.0, 50, 200),
    ],
)
def test_page_from_the_index_equals_the_pass(
    catalogue: tuple[Matrix, Matrix, np.ndarray],
    indexed_from_1000: None,
    window: tuple[int, int] | None,
    readable_share: float,
    limit: int,
    offset: int,
) -> None:
    matrix, exact_matrix, _ = catalogue
    readable = np.random.default_rng(3).random(N) < readable_share
    bounds = WHOLE if window is None else (int(matrix.days[window[0]]), int(matrix.days[window[1]]))
    targets = [*np.random.default_rng(2).choice(N, 6, replace=False).tolist(), CONSTANT, SHORT, GAPPED]
    for target in targets:
        alpha = f"a{int(target):05d}"
        indexed = _series_page(matrix, matrix.ids, alpha, readable, "returns", *bounds, limit, offset)
        exact = _series_page(exact_matrix, matrix.ids, alpha, readable, "returns", *bounds, limit, offset)
        assert repr(indexed) == repr(exact), alpha  # repr: NaN equals NaN
        first = int(np.searchsorted(matrix.days, bounds[0], "left"))
        last = int(np.searchsorted(matrix.days, bounds[1], "right"))
        used = _indexed_page(matrix, target, readable, first, last, limit, offset) is not None
        assert used or target in (SHORT, CONSTANT), alpha  # the index answered where it could


def test_the_index_prunes(catalogue: tuple[Matrix, Matrix, np.ndarray]) -> None:
    """A top 50 leaves only a few rows to compute exactly (the bound is narrow)."""
    matrix, _, _ = catalogue
    assert matrix.z is not None
    spans = _spans(matrix)
    allowed = np.ones(N, dtype=bool)
    for target in np.random.default_rng(4).choice(N, 10, replace=False):
        allowed[:] = True
        allowed[target] = False
        held = np.isfinite(matrix.values[int(target)])
        found = nearest.estimate(matrix.z, spans, matrix.z[int(target)], held, (0, SESSIONS), None)
        rows = found.top(allowed, 50)
        assert rows is not None and 50 <= rows.size <= 60, rows.size


def test_planted_near_duplicates_are_found(
    catalogue: tuple[Matrix, Matrix, np.ndarray], indexed_from_1000: None
) -> None:
    matrix, _, duplicates = catalogue
    planted = np.flatnonzero(duplicates >= 0)
    assert planted.size == 40
    readable = np.ones(N, dtype=bool)
    for copy in planted:
        page = _series_page(matrix, matrix.ids, f"a{int(copy):05d}", readable, "returns", *WHOLE, 5, 0)
        assert f"a{int(duplicates[copy]):05d}" in [row.alpha for row in page.rows]
        assert page.rows[0].correlation is not None and abs(page.rows[0].correlation) > 0.9


@pytest.mark.parametrize("share", [1.0, 0.2])
def test_max_correlation_decided_by_the_index_keeps_what_the_exact_filter_keeps(
    catalogue: tuple[Matrix, Matrix, np.ndarray], monkeypatch: pytest.MonkeyPatch, share: float
) -> None:
    """Every candidate (the index reads every row) and a fifth of them (gathered); references with
    gaps, constant stretches and few dates; bounds where many correlations lie near the bound."""
    matrix, exact_matrix, _ = catalogue
    monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1_000)
    monkeypatch.setattr("analytics.correlation.EXACT_ROWS", 100)
    ids = matrix.ids.to_pylist()
    rng = np.random.default_rng(5)
    candidates = [ids[i] for i in rng.permutation(N)[: int(N * share)]]
    for references, bound in (
        (["a00003"], 0.3),
        (["a00500"], 0.5),
        (["a01999", f"a{GAPPED:05d}"], 0.2),
        ([f"a{CONSTANT:05d}", f"a{SHORT:05d}", "a00077"], 0.1),
        (["a00010"], 0.0),
    ):
        indexed = within_correlation(candidates, matrix, references, bound)
        exact = within_correlation(candidates, exact_matrix, references, bound)
        assert indexed == exact, (references, bound)
    # Bounds within 1e-12 of a correlation, either side: far inside the estimate's error, so the
    # exact value decides, as in the pass (exactly at it, two exact computations may differ in the
    # last bit).
    exact_value, _ = pearson_between(matrix.values[[40]], matrix.values[[3]])
    for bound in (float(abs(exact_value[0, 0])) - 1e-12, float(abs(exact_value[0, 0])) + 1e-12):
        kept = within_correlation(candidates, matrix, ["a00003"], bound)
        assert kept == within_correlation(candidates, exact_matrix, ["a00003"], bound)
        assert ("a00040" in kept) == (bound > abs(exact_value[0, 0])) or "a00040" not in candidates


def test_the_largest_correlation_to_a_set_is_the_pass_s(
    catalogue: tuple[Matrix, Matrix, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks' production correlation (`against_set`): from the index, the number of rows with
    a correlation, the row of the largest and its exact value equal the pass over every row's."""
    matrix, exact_matrix, _ = catalogue
    monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1_000)
    monkeypatch.setattr("analytics.correlation.EXACT_ROWS", 100)
    rng = np.random.default_rng(9)
    for target in [*rng.choice(N, 8, replace=False).tolist(), GAPPED, SHORT, CONSTANT]:
        rows = np.sort(rng.choice(np.delete(np.arange(N), target), 600, replace=False))
        rows = np.concatenate([rows, [GAPPED, SHORT, EMPTY]])
        rows = rows[rows != target]
        found, largest = against_set(matrix, rows, target)
        exact, _ = pearson_between(matrix.values[rows], matrix.values[[target]])
        truth = np.abs(exact[:, 0])
        assert np.array_equal(np.isfinite(found), np.isfinite(truth)), target
        if not np.isfinite(truth).any():
            assert largest is None
            continue
        assert largest == int(np.argmax(np.nan_to_num(truth, nan=-1.0))), target
        assert abs(abs(found[largest]) - truth[largest]) <= 1e-12  # exact (another blocking: last bits)
        plain, plain_largest = against_set(exact_matrix, rows, target)  # no index: the pass
        assert plain_largest == largest and np.array_equal(np.abs(plain), truth, equal_nan=True)


@pytest.fixture(scope="module")
def gapped_catalogue(catalogue: tuple[Matrix, Matrix, np.ndarray]) -> tuple[Matrix, Matrix]:
    """The catalogue with interior gaps in a third of its rows (issue 63 item 2: one to five missing
    dates each, a run of missing dates in some), late starts kept; a held value equal to its row's
    mean in one gapped row (its z exactly zero: not listed, decided as before)."""
    _, exact, _ = catalogue
    values = exact.values.copy()
    rng = np.random.default_rng(63)
    for row in rng.choice(N, N // 3, replace=False):
        held = np.flatnonzero(np.isfinite(values[row]))
        if held.size > 20:
            values[row, rng.choice(held[5:-5], rng.integers(1, 6), replace=False)] = np.nan
    values[21, 60:64] = np.nan
    return _matrix(values), _matrix(values, indexed=False)


def test_rows_with_gaps_are_estimated_from_their_gap_lists(
    gapped_catalogue: tuple[Matrix, Matrix],
) -> None:
    """With the gap lists (`nearest.gap_lists`), a row with gaps is decided by its bound as a row
    without, within that bound of the exact correlation (`pearson_between`), whole history and
    windows, targets with and without gaps."""
    matrix, _ = gapped_catalogue
    assert matrix.z is not None
    spans = _spans(matrix)
    z = matrix.z.copy()
    odd = int(np.flatnonzero(~spans.whole)[0])  # a held date whose z is exactly zero
    column = int(np.flatnonzero(z[odd] != 0)[3])
    z[odd, column] = 0.0
    gaps = nearest.gap_lists(z, spans)
    gapped = np.flatnonzero(~spans.whole)
    assert gapped.size > N // 4 and not gaps.listed[odd] and gaps.listed[gapped].sum() == gapped.size - 1
    for row in gapped[:50]:  # the lists are the rows' missing dates inside their runs
        if row == odd:
            continue
        listed = gaps.columns[gaps.start[row] : gaps.start[row] + gaps.count[row]]
        run = np.arange(spans.low[row], spans.high[row])
        assert np.array_equal(listed, run[~np.isfinite(matrix.values[row, run])])
    targets = [*np.random.default_rng(5).choice(N, 8, replace=False).tolist(), int(gapped[1]), 21]
    for target in targets:
        held = nearest.dates_held(z, spans, target)
        assert held is not None
        for first, last in [(0, SESSIONS), (40, 260)]:
            found = nearest.estimate(z, spans, z[target], held, (first, last), None, gaps)
            before = nearest.estimate(z, spans, z[target], held, (first, last), None)
            window = matrix.values[:, first:last]
            exact = pearson_between(window, window[[target]])[0][:, 0]
            decided = np.isfinite(found.error)
            assert np.array_equal(np.isnan(found.value[decided]), np.isnan(exact[decided])), target
            both = decided & np.isfinite(exact)
            assert np.all(np.abs(found.value[both] - exact[both]) <= found.error[both]), (target, first)
            # the gapped rows are decided (all but a few near zero variance), and agree with the
            # direct sums' estimates within both bounds
            assert np.count_nonzero(~decided[gapped]) <= 3, target
            same = decided & np.isfinite(before.error) & np.isfinite(exact)
            assert np.all(
                np.abs(found.value[same] - before.value[same]) <= found.error[same] + before.error[same]
            )
            if target != odd:
                assert np.isfinite(found.error[odd]) == np.isfinite(before.error[odd])


def test_a_page_with_gaps_equals_the_pass(
    gapped_catalogue: tuple[Matrix, Matrix], indexed_from_1000: None
) -> None:
    """Served through `_series_page` (which reads the gap lists once per generation), every page
    equals the pass over every row's."""
    matrix, exact_matrix = gapped_catalogue
    readable = np.ones(N, dtype=bool)
    for target in [*np.random.default_rng(6).choice(N, 6, replace=False).tolist(), 21]:
        alpha = f"a{int(target):05d}"
        for bounds in (WHOLE, (int(matrix.days[40]), int(matrix.days[260]))):
            indexed = _series_page(matrix, matrix.ids, alpha, readable, "returns", *bounds, 50, 0)
            exact = _series_page(exact_matrix, matrix.ids, alpha, readable, "returns", *bounds, 50, 0)
            assert repr(indexed) == repr(exact), alpha
    assert isinstance(matrix.memo.get("gaps"), nearest.Gaps)


def _same_gaps(found: nearest.Gaps, expected: nearest.Gaps) -> None:
    for name in ("start", "count", "columns", "listed"):
        assert np.array_equal(getattr(found, name), getattr(expected, name)), name


def test_stored_gap_lists_equal_those_made_from_the_z_rows(
    gapped_catalogue: tuple[Matrix, Matrix],
) -> None:
    """The gap lists a generation stores (`gap_matrices`, issue 63 item 3), read back
    (`stored_gaps`), equal `gap_lists` of its z rows: rows with gaps, without, empty, and one whose
    held value is its mean (z zero at a date it holds: not listed); rows marked RECOMPUTE (a merged
    view's delta rows) are made from their z rows, the others kept, the same lists."""
    matrix, _ = gapped_catalogue
    values = np.asarray(matrix.values).copy()
    odd = int(np.flatnonzero(~_spans(matrix).whole)[0])
    held = np.flatnonzero(np.isfinite(values[odd]))
    values[odd, held[3]] = np.nanmean(values[odd])  # may leave z nonzero by rounding: both agree
    days = matrix.days
    index = nearest.index_matrices("ic", values, days)
    z, spans = index["ic_z"].copy(), nearest.spans(index["ic_span"], days)
    z[odd, held[3]] = 0.0  # exactly its mean: a held date whose z is zero
    stored = nearest.gap_matrices("ic", z, index["ic_span"], days)
    assert stored["ic_gapcount"].dtype == np.int32 and stored["ic_gaps"].dtype == np.int32
    expected = nearest.gap_lists(z, spans)
    assert not expected.listed[odd] and stored["ic_gapcount"][odd] == nearest.NOT_LISTED
    assert int(np.count_nonzero(expected.count)) > N // 4
    _same_gaps(nearest.stored_gaps(stored["ic_gapcount"], stored["ic_gaps"], z, spans), expected)
    # index_matrices stores the same lists (z rows as written)
    _same_gaps(
        nearest.stored_gaps(index["ic_gapcount"], index["ic_gaps"], index["ic_z"], spans),
        nearest.gap_lists(index["ic_z"], spans),
    )
    rng = np.random.default_rng(3)
    for share in (0.01, 0.3, 1.0):
        redo = np.sort(rng.choice(N, int(N * share), replace=False))
        redo = np.union1d(redo, [odd, 0, N - 1])
        count = stored["ic_gapcount"].copy()
        keep = np.ones(N, dtype=bool)
        keep[redo] = False
        columns = stored["ic_gaps"][np.repeat(keep, np.maximum(count, 0))]
        count[redo] = nearest.RECOMPUTE
        _same_gaps(nearest.stored_gaps(count, columns, z, spans), expected)
        only = nearest.gap_lists(z, spans, redo)
        for name in ("count", "listed"):
            assert np.array_equal(getattr(only, name)[redo], getattr(expected, name)[redo])


def _dates(values: np.ndarray, row: int) -> tuple[int, int, tuple[int, ...]]:
    """A row's first held column, one past its last, and its gap columns (numpy, from the values)."""
    held = np.flatnonzero(np.isfinite(values[row]))
    if not held.size:
        return 0, 0, ()
    run = np.arange(held[0], held[-1] + 1)
    return int(held[0]), int(held[-1]) + 1, tuple(run[~np.isfinite(values[row, run])].tolist())


@pytest.mark.parametrize("collide", [False, True])
def test_patterns_group_exactly_the_rows_of_the_same_dates(
    gapped_catalogue: tuple[Matrix, Matrix], monkeypatch: pytest.MonkeyPatch, collide: bool
) -> None:
    """`nearest.patterns`: two rows share a pattern exactly when they hold the same dates (their
    run and gap columns, found here from the values with numpy), each pattern's run and gap list are
    its rows', a row whose gaps are not listed is read directly, and a column marked as held by no
    row is held by none. `collide`: every gap list keyed alike (weights zero), so the grouping rests
    on the check alone; the estimates are then bit for bit the same."""
    matrix, _ = gapped_catalogue
    assert matrix.z is not None
    spans = _spans(matrix)
    z = matrix.z.copy()
    odd = int(np.flatnonzero(~spans.whole)[0])  # a held date whose z is exactly zero: not listed
    z[odd, int(np.flatnonzero(z[odd] != 0)[3])] = 0.0
    gaps = nearest.gap_lists(z, spans)
    honest = nearest.patterns(spans, gaps)
    if collide:
        monkeypatch.setattr(nearest, "_gap_weights", lambda columns: np.zeros(columns + 3, np.int64))
    grouped = nearest.patterns(spans, gaps)
    assert np.array_equal(grouped.direct, [odd]) and grouped.of_row[odd] == -1
    values = matrix.values
    seen: dict[tuple[int, int, tuple[int, ...]], set[int]] = {}
    for row in range(N):
        if row == odd:
            continue
        dates = _dates(values, row)
        pattern = int(grouped.of_row[row])
        seen.setdefault(dates, set()).add(pattern)
        low, high = int(grouped.low[pattern]), int(grouped.high[pattern])
        listed = tuple(grouped.gap_columns[grouped.gap_owner == pattern].tolist())
        assert (low, high, listed) == dates or (dates[:2] == (0, 0) and low == high), row
    owners = [pattern for patterns in seen.values() for pattern in patterns]
    assert len(set(owners)) == len(owners)  # different dates, different patterns
    if not collide:  # and the same dates one pattern (colliding keys: a row of its own each)
        assert all(len(patterns) == 1 for patterns in seen.values())
    else:
        assert any(len(patterns) > 1 for patterns in seen.values())
    truth = np.isfinite(values).any(axis=0)[: grouped.held.size]
    assert not (truth & ~grouped.held).any() and not np.isfinite(values[:, grouped.held.size :]).any()
    for target in [*np.random.default_rng(8).choice(N, 4, replace=False).tolist(), 21, odd]:
        held = nearest.dates_held(z, spans, target)
        if held is None:
            continue
        for window in [(0, SESSIONS), (40, 260)]:
            one = nearest.estimate(z, spans, z[target], held, window, None, gaps, grouped)
            two = nearest.estimate(z, spans, z[target], held, window, None, gaps, honest)
            assert np.array_equal(one.value, two.value, equal_nan=True)
            assert np.array_equal(one.error, two.error, equal_nan=True)


def _top_reference(found: nearest.Estimate, allowed: np.ndarray, depth: int) -> np.ndarray | None:
    """`Estimate.top` as numpy says it, over every row (the whole partition)."""
    magnitude = np.abs(found.value)
    sure = allowed & np.isfinite(magnitude) & np.isfinite(found.error)
    if int(np.count_nonzero(sure)) < depth:
        return None
    floor = np.sort(magnitude[sure] - found.error[sure])[::-1][depth - 1] if depth else np.inf
    with np.errstate(invalid="ignore"):
        near = allowed & ((magnitude + found.error >= floor) | np.isinf(found.error))
    return np.flatnonzero(near)


@pytest.mark.parametrize("rows", [500, 200_000])
def test_top_equals_the_sort_over_every_row(rows: int) -> None:
    """`Estimate.top` (its floor found from a sample first, `nearest._largest`) equals numpy's sort
    of every allowed row's lower bound, with NaN correlations, infinite bounds, ties and masks."""
    rng = np.random.default_rng(12)
    for trial in range(12):
        value = np.round(rng.uniform(-1, 1, rows), 3 if trial % 2 else 12)  # ties, or few
        error = rng.exponential(0.01, rows)
        value[rng.random(rows) < 0.05] = np.nan
        error[np.isnan(value) & (rng.random(rows) < 0.5)] = 0.0
        error[rng.random(rows) < 0.03] = np.inf
        allowed = rng.random(rows) < (1.0 if trial < 4 else 0.4)
        if trial == 11:  # the largest correlations all in rows the sample skips
            value[::16] = 0.0
        found = nearest.Estimate(value, error)
        for depth in (0, 1, 50, 1_000):
            expected = _top_reference(found, allowed, depth)
            got = found.top(allowed, depth)
            assert (got is None) == (expected is None), (trial, depth)
            if got is not None and expected is not None:
                assert np.array_equal(got, expected), (trial, depth)
