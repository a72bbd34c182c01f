"""/analytics/correlation against independent recomputation on the returns, ic and scores bases,
over the whole history and random windows: every other readable alpha (on the scores basis, every
one with a measurable whole-history score correlation: the demo catalogue is smaller than an
alpha's list of score neighbours), values, order, paging."""

from __future__ import annotations

from typing import Any

import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, EDGE_WINDOWS, Api, Window, random_windows, window_params
from tests.analytics.helpers import check_row

PATH = "/v1/alphas/{alpha}/analytics/correlation"
BASES = ("returns", "ic", "scores")
UNITS = {"returns": "sessions", "ic": "weeks", "scores": "weeks"}

_pairs: dict[tuple[frozenset[str], str, Window], ref.Corr] = {}


def expected_pair(lake: ref.Lake, a: str, b: str, basis: str, window: Window) -> ref.Corr:
    """Correlation is symmetric: each unordered pair is recomputed once per module."""
    key = (frozenset((a, b)), basis, window)
    if key not in _pairs:
        _pairs[key] = ref.correlation(lake, a, b, basis, window)
    return _pairs[key]


def sort_key(row: dict[str, Any]) -> tuple[bool, float, str]:
    c = row["correlation"]
    return (c is None, -abs(c) if c is not None else 0.0, row["alpha"])


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("basis", BASES)
def test_correlation_reproduces_over_random_windows(api: Api, lake: ref.Lake, alpha: str, basis: str) -> None:
    others = [a for a in lake.alphas() if a != alpha]
    if basis == "scores":  # the neighbours: a measurable whole-history score correlation
        others = [
            b for b in others if expected_pair(lake, alpha, b, basis, (None, None)).correlation is not None
        ]
    for window in random_windows(f"correlation:{alpha}:{basis}", count=2) + EDGE_WINDOWS[:1]:
        where = (alpha, basis, window)
        rows = api.all_rows(PATH.format(alpha=alpha), basis=basis, **window_params(window))
        assert sorted(r["alpha"] for r in rows) == others, where
        # The served order is |correlation| descending, nulls last, then alpha ascending.
        assert rows == sorted(rows, key=sort_key), where
        for row in rows:
            found = expected_pair(lake, alpha, row["alpha"], basis, window)
            check_row(
                row,
                {
                    "correlation": found.correlation,
                    "pearson": found.pearson,
                    "spearman": found.spearman,
                    "overlap": found.overlap,
                    "common_names": found.common_names,
                    "overlap_unit": UNITS[basis],
                },
                (*where, row["alpha"]),
            )
        # The expected order (from the recomputed values) is the served one.
        expected = [
            {
                "alpha": r["alpha"],
                "correlation": expected_pair(lake, alpha, r["alpha"], basis, window).correlation,
            }
            for r in rows
        ]
        assert [r["alpha"] for r in sorted(expected, key=sort_key)] == [r["alpha"] for r in rows], where


def test_the_demo_exercises_every_branch(lake: ref.Lake) -> None:
    """Measured and null correlations on each basis, and scores weeks with common names."""
    whole: Window = (None, None)
    for basis in BASES:
        found = [
            expected_pair(lake, "momentum_12_1", b, basis, whole)
            for b in lake.alphas()
            if b != "momentum_12_1"
        ]
        assert any(f.correlation is not None for f in found), basis
    ledger_only = expected_pair(lake, "momentum_12_1", "Test_ledger_only", "ic", whole)
    assert ledger_only.correlation is None and ledger_only.overlap == 0
    scores = expected_pair(lake, "momentum_12_1", "Test_planted_factor", "scores", whole)
    assert scores.overlap >= 30 and scores.common_names is not None and scores.pearson is None


def test_default_basis_is_returns_and_meta_names_it(api: Api) -> None:
    default = api.ok(PATH.format(alpha="Test_planted_factor"), limit=100)
    returns = api.ok(PATH.format(alpha="Test_planted_factor"), basis="returns", limit=100)
    assert default["data"] == returns["data"]
    assert default["meta"]["basis"] == "returns"
    assert api.ok(PATH.format(alpha="Test_planted_factor"), basis="ic")["meta"]["basis"] == "ic"


def test_pages_partition_the_rows(api: Api) -> None:
    path = PATH.format(alpha="momentum_12_1")
    everything = api.ok(path, basis="scores", limit=100)
    # Every other alpha but Test_ledger_only, which sealed no decisions.
    assert everything["pagination"]["total"] == 5 and not everything["pagination"]["has_more"]
    pages = [api.ok(path, basis="scores", limit=4, offset=o) for o in (0, 4)]
    assert pages[0]["pagination"]["has_more"] and not pages[1]["pagination"]["has_more"]
    assert pages[0]["data"] + pages[1]["data"] == everything["data"]
    beyond = api.ok(path, basis="scores", limit=4, offset=50)
    assert beyond["data"] == [] and beyond["pagination"]["total"] == 5


@pytest.mark.parametrize("basis", BASES)
def test_a_window_without_dates_gives_null_rows(api: Api, basis: str) -> None:
    """Before any data (found by schemathesis: a page of rows over no column was a 500)."""
    body = api.ok(PATH.format(alpha="Test_short_term_reversal"), basis=basis, to="2000-01-01", limit=100)
    assert body["data"] and all(r["correlation"] is None and r["overlap"] == 0 for r in body["data"])
