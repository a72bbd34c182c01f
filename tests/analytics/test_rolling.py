"""/analytics/rolling against pandas rolling windows over the weekly IC (weekly_signal.ic on base
books, weekly_signal.raw_ic on raw_ books) and the book's weekly returns, for every window length,
ledger book and alpha, over the whole history and random windows (which select rows by date;
trailing windows reach back before `from`)."""

from __future__ import annotations

import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, BOOKS, EDGE_WINDOWS, Api, random_windows, window_params
from tests.analytics.helpers import check_row

PATH = "/v1/alphas/{alpha}/analytics/rolling"
FIELDS = {
    "date",
    "n_ic_weeks",
    "rebuilt_mean_ic",
    "icir",
    "n_return_weeks",
    "annualised_return",
    "volatility",
    "information_ratio",
    "return_hit_rate",
}


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("book", BOOKS)
def test_rolling_reproduces_over_random_windows(api: Api, lake: ref.Lake, alpha: str, book: str) -> None:
    token = "raw" if book.startswith("raw_") else "plain"
    for weeks in (13, 26, 52):
        for window in random_windows(f"rolling:{alpha}:{book}:{weeks}", count=2) + EDGE_WINDOWS[1:2]:
            where = (alpha, book, weeks, window)
            body = api.ok(
                PATH.format(alpha=alpha), token, book=book, window=weeks, limit=1000, **window_params(window)
            )
            assert body["meta"]["window_weeks"] == weeks and body["meta"]["book"] == book
            assert body["meta"]["signal"] == ("raw" if book.startswith("raw_") else "conditioned"), where
            rows = body["data"]
            expected = ref.rolling_rows(lake, alpha, book, weeks, window)
            assert body["pagination"]["total"] == len(expected), where
            assert [r["date"] for r in rows] == [e["date"] for e in expected], where
            for row, exp in zip(rows, expected, strict=True):
                assert set(row) == FIELDS, (where, sorted(row))
                check_row(row, exp, (*where, exp["date"]))


def test_the_demo_exercises_every_branch(lake: ref.Lake) -> None:
    """Rows with and without measurable figures, and the ledger-only alpha without weeks."""
    rows = ref.rolling_rows(lake, "momentum_12_1", "long_short", 13, (None, None))
    assert rows and all(r["rebuilt_mean_ic"] is not None for r in rows)
    assert any(r["n_ic_weeks"] < 13 for r in rows) and any(r["n_return_weeks"] < 13 for r in rows)
    assert ref.rolling_rows(lake, "Test_ledger_only", "long_short", 13, (None, None)) == []
    # The raw books' IC is the raw signal's: it differs from the conditioned IC somewhere.
    for alpha in ("momentum_12_1", "Test_planted_factor"):
        base = ref.rolling_rows(lake, alpha, "long_short", 13, (None, None))
        raw = ref.rolling_rows(lake, alpha, "raw_long_short", 13, (None, None))
        assert [r["date"] for r in base] == [r["date"] for r in raw]
        assert any(a["rebuilt_mean_ic"] != b["rebuilt_mean_ic"] for a, b in zip(base, raw, strict=True)), (
            alpha
        )
    late = ref.rolling_rows(lake, "Test_short_term_reversal", "long_short", 26, (None, None))
    assert late and len(late) < len(
        ref.rolling_rows(lake, "Test_short_term_reversal", "long_short", 13, (None, None))
    )


def test_paging_slices_the_window(api: Api, lake: ref.Lake) -> None:
    path = PATH.format(alpha="Test_planted_factor")
    window = ("2021-06-01", "2021-12-31")
    rows = api.all_rows(path, window=26, **window_params(window))
    expected = ref.rolling_rows(lake, "Test_planted_factor", "long_short", 26, window)
    assert [r["date"] for r in rows] == [e["date"] for e in expected] and len(rows) > 7
    page = api.ok(path, window=26, limit=5, offset=3, **window_params(window))
    assert page["data"] == rows[3:8]
    assert page["pagination"]["total"] == len(rows)
    beyond = api.ok(path, window=26, limit=5, offset=len(rows) + 3, **window_params(window))
    assert beyond["data"] == [] and beyond["pagination"]["total"] == len(rows)
    assert not beyond["pagination"]["has_more"]


def test_default_window_is_documented_one(api: Api) -> None:
    body = api.ok(PATH.format(alpha="momentum_12_1"), limit=1)
    assert body["meta"]["window_weeks"] in (13, 26, 52)
