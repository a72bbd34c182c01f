"""The correlation index (analytics/nearest.py, issue 51 item 2) on a small synthetic catalogue of
2,000 alphas (tests/bench/synthetic_catalogue.py's factor model): the sketches' candidates hold the
true 50 nearest against brute force, the page served from them holds exactly the values of the
pass over every row, the planted near-duplicates are found, and the screener's `max_correlation`
filter pruned by the index keeps what the exact filter keeps."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from analytics import correlation, nearest
from analytics.correlation import _series_page, pearson_between, within_correlation
from datasets.catalogue_snapshot import Matrix
from tests.bench.synthetic_catalogue import synthetic_series

N, SESSIONS, WEEKS = 2_000, 296, 62
WHOLE = (-(2**31), 2**31 - 1)


@pytest.fixture(scope="module")
def catalogue() -> tuple[Matrix, np.ndarray]:
    series = synthetic_series(N, SESSIONS, WEEKS, seed=7)
    days = np.arange(19_000, 19_000 + SESSIONS, dtype=np.int32)
    ids = [f"a{i:05d}" for i in range(N)]
    index = nearest.index_matrices("returns", series.returns)
    matrix = Matrix(
        "v",
        {alpha: row for row, alpha in enumerate(ids)},
        pa.array(ids),
        days,
        series.returns,
        index["returns_sketch"],
        index["returns_present"],
        np.arange(N, dtype=np.int64),
    )
    return matrix, series.duplicates


@pytest.fixture()
def pruning(monkeypatch: pytest.MonkeyPatch) -> None:
    """The index used from 1,000 rows, 300 candidates computed exactly (of 2,000: it prunes)."""
    monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1_000)
    monkeypatch.setattr(nearest, "CANDIDATES", 300)


def _exact_top(matrix: Matrix, target: int, k: int = 50) -> np.ndarray:
    found, _ = pearson_between(matrix.values, matrix.values[[target]])
    magnitude = np.nan_to_num(np.abs(found[:, 0]), nan=-1.0)
    magnitude[target] = -2.0
    return np.argsort(-magnitude, kind="stable")[:k]


def test_candidates_hold_the_true_50_nearest(catalogue: tuple[Matrix, np.ndarray]) -> None:
    matrix, _ = catalogue
    assert matrix.sketch is not None
    recalls = []
    for target in np.random.default_rng(1).choice(N, 25, replace=False):
        truth = set(_exact_top(matrix, int(target)).tolist())
        candidates = set(nearest.ranked(matrix.sketch, int(target), None, 300).tolist())
        recalls.append(len(truth & candidates) / len(truth))
    assert np.mean(recalls) >= 0.95, recalls
    assert min(recalls) >= 0.8, recalls


def test_page_from_the_index_is_exact(catalogue: tuple[Matrix, np.ndarray], pruning: None) -> None:
    matrix, _ = catalogue
    readable = np.ones(N, dtype=bool)
    for target in np.random.default_rng(2).choice(N, 10, replace=False):
        alpha = f"a{int(target):05d}"
        indexed = _series_page(matrix, matrix.ids, alpha, readable, "returns", *WHOLE, 50, 0)
        exact_matrix = Matrix(matrix.version, matrix.rows, matrix.ids, matrix.days, matrix.values)
        exact = _series_page(exact_matrix, matrix.ids, alpha, readable, "returns", *WHOLE, 50, 0)
        assert indexed.total == exact.total == N - 1
        by_alpha = {row.alpha: row for row in exact.rows}
        # Every value served is the exact one; the rows are the true 50 nearest (recall 1 here).
        truth = {f"a{int(row):05d}" for row in _exact_top(matrix, int(target))}
        assert len({row.alpha for row in indexed.rows} & truth) >= 48
        served = correlation.correlate_rows(
            matrix.values[int(target)], matrix.values[[matrix.rows[row.alpha] for row in indexed.rows]]
        )
        assert [row.pearson for row in indexed.rows] == served[0].tolist()
        for row in indexed.rows:
            if row.alpha in by_alpha:
                assert row == by_alpha[row.alpha]
        magnitudes = [abs(row.correlation) for row in indexed.rows]
        assert magnitudes == sorted(magnitudes, reverse=True)


def test_a_readable_mask_and_a_window_are_honoured(
    catalogue: tuple[Matrix, np.ndarray], pruning: None
) -> None:
    matrix, _ = catalogue
    readable = np.random.default_rng(3).random(N) < 0.5
    page = _series_page(matrix, matrix.ids, "a00010", readable, "returns", *WHOLE, 50, 0)
    allowed = {f"a{i:05d}" for i in np.flatnonzero(readable) if i != 10}
    assert {row.alpha for row in page.rows} <= allowed
    assert page.total == len(allowed)
    # A window: the pass over every row (the sketches are of the whole history).
    window = (int(matrix.days[100]), int(matrix.days[250]))
    exact_matrix = Matrix(matrix.version, matrix.rows, matrix.ids, matrix.days, matrix.values)
    assert _series_page(matrix, matrix.ids, "a00010", readable, "returns", *window, 50, 0) == _series_page(
        exact_matrix, matrix.ids, "a00010", readable, "returns", *window, 50, 0
    )


def test_planted_near_duplicates_are_found(catalogue: tuple[Matrix, np.ndarray], pruning: None) -> None:
    matrix, duplicates = catalogue
    planted = np.flatnonzero(duplicates >= 0)
    assert planted.size == 40
    readable = np.ones(N, dtype=bool)
    for copy in planted:
        page = _series_page(matrix, matrix.ids, f"a{int(copy):05d}", readable, "returns", *WHOLE, 5, 0)
        assert f"a{int(duplicates[copy]):05d}" in [row.alpha for row in page.rows]
        assert page.rows[0].correlation is not None and abs(page.rows[0].correlation) > 0.9


def test_max_correlation_pruned_by_the_index_keeps_what_the_exact_filter_keeps(
    catalogue: tuple[Matrix, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    matrix, _ = catalogue
    monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1_000)
    monkeypatch.setattr(nearest, "CANDIDATES", 200)
    exact_matrix = Matrix(matrix.version, matrix.rows, matrix.ids, matrix.days, matrix.values)
    ids = matrix.ids.to_pylist()
    for reference, bound in (("a00003", 0.3), ("a00500", 0.5), ("a01999", 0.2)):
        candidates = ids[::2] + ids[1::2]
        indexed = within_correlation(candidates, matrix, [reference], bound)
        exact = within_correlation(candidates, exact_matrix, [reference], bound)
        assert indexed == exact


def test_the_corrected_second_stage_keeps_the_true_50_nearest(
    catalogue: tuple[Matrix, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`nearest.refined`: of 600 candidates by sketch, the 150 with the largest sketched correlation
    corrected for the dates each shares with the target hold the true 50 nearest (half the alphas
    start late, so the correction matters); the page computed from them is the exact one."""
    matrix, _ = catalogue
    assert matrix.sketch is not None and matrix.present is not None
    recalls = []
    for target in np.random.default_rng(4).choice(N, 25, replace=False):
        truth = set(_exact_top(matrix, int(target)).tolist())
        near = nearest.ranked(matrix.sketch, int(target), None, 600)
        kept = nearest.refined(matrix.sketch, matrix.present, int(target), near, 150)
        assert kept.size == 150 and set(kept.tolist()) <= set(near.tolist())
        recalls.append(len(truth & set(kept.tolist())) / len(truth))
    assert np.mean(recalls) >= 0.95, recalls
    monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1_000)
    monkeypatch.setattr(nearest, "CANDIDATES", 600)
    monkeypatch.setattr(nearest, "EXACT", 150)
    monkeypatch.setattr(nearest, "EXACT_PER_ROW", 3)
    assert (
        nearest.exact_count(50) == 150 and nearest.exact_count(100) == 300 and nearest.exact_count(900) == 600
    )
    readable = np.ones(N, dtype=bool)
    exact_matrix = Matrix(matrix.version, matrix.rows, matrix.ids, matrix.days, matrix.values)
    for target in np.random.default_rng(5).choice(N, 8, replace=False):
        alpha = f"a{int(target):05d}"
        indexed = _series_page(matrix, matrix.ids, alpha, readable, "returns", *WHOLE, 50, 0)
        exact = {
            row.alpha: row
            for row in _series_page(exact_matrix, matrix.ids, alpha, readable, "returns", *WHOLE, 50, 0).rows
        }
        assert sum(row.alpha in exact for row in indexed.rows) >= 47
        assert all(row == exact[row.alpha] for row in indexed.rows if row.alpha in exact)


def test_refined_keeps_every_row_when_asked_for_as_many() -> None:
    sketches = np.random.default_rng(6).standard_normal((40, 5)).astype(np.float32)
    present = np.full((40, 1), np.uint64(2**20 - 1))
    rows = np.array([5, 3, 9], dtype=np.int64)
    assert nearest.refined(sketches, present, 0, rows, 3).tolist() == [5, 3, 9]
    assert nearest.refined(sketches, present, 0, rows, 2).tolist() in ([5, 3], [5, 9], [3, 9])
