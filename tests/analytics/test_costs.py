"""/analytics/costs against independent recomputation from the ledger (P&L split, break-even,
gross and net information ratios) and from the decisions' target weights (turnover by raw_score
decile, holding period), for every ledger book of every alpha over random windows."""

from __future__ import annotations

from typing import Any

import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, BOOKS, EDGE_WINDOWS, Api, Window, random_windows, window_params
from tests.analytics.helpers import check_row, check_stat, close

PATH = "/v1/alphas/{alpha}/analytics/costs"
LEDGER_FIGURES = (
    "net_pnl",
    "execution_cost",
    "gross_pnl",
    "traded_notional",
    "break_even_multiple",
    "break_even_bps",
    "modelled_cost_bps",
)


def costs(api: Api, alpha: str, book: str, window: Window) -> dict[str, Any]:
    token = "raw" if book.startswith("raw_") else "plain"
    body = api.ok(PATH.format(alpha=alpha), token, book=book, **window_params(window))
    data: dict[str, Any] = body["data"]
    assert data["alpha"] == alpha and data["book"] == book
    assert data["window"] == {"from": window[0], "to": window[1]}
    return data


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("book", BOOKS)
def test_costs_reproduce_over_random_windows(api: Api, lake: ref.Lake, alpha: str, book: str) -> None:
    for window in random_windows(f"costs:{alpha}:{book}") + EDGE_WINDOWS:
        where = (alpha, book, window)
        data = costs(api, alpha, book, window)
        ledger = lake.ledger_in(alpha, book, window)
        assert ledger is not None
        expected = ref.cost_figures(ledger)
        assert data["sessions"] == expected["sessions"], where
        for name in LEDGER_FIGURES:
            check_stat(data[name], expected[name], (*where, name))
        for side in ("net", "gross"):
            entry = data["information_ratio"][side]
            check_stat(entry, expected[f"information_ratio.{side}"], (*where, side))
            assert entry["periods_per_year"] == 252

        turnover = ref.turnover(lake, alpha, book, window)
        if turnover is None:
            assert data["turnover_by_decile"] is None, where
            assert data["holding_period"]["status"] == "not_measurable", where
            continue
        served = data["turnover_by_decile"]
        assert served["score_field"] == "raw_score" and served["weight_field"] == f"{book}_target_weight"
        check_row(
            served,
            {
                k: turnover[k]
                for k in ("weeks", "bucketed_weeks", "mean_weekly_turnover", "unbucketed_mean_turnover")
            },
            where,
        )
        assert len(served["buckets"]) == 10
        for got, exp in zip(served["buckets"], turnover["buckets"], strict=True):
            check_row(got, exp, (*where, exp["bucket"]))
        check_stat(data["holding_period"], turnover["holding_period"], (*where, "holding_period"))


def test_whole_history_bucket_means_add_up(api: Api, lake: ref.Lake) -> None:
    """Sanity of the reference itself: bucket means and the unbucketed share sum to the weekly mean."""
    for alpha in ("momentum_12_1", "Test_small_universe"):
        t = ref.turnover(lake, alpha, "long_short", (None, None))
        assert t is not None and t["bucketed_weeks"] < t["weeks"]
        total = sum(b["mean_turnover"] * t["bucketed_weeks"] for b in t["buckets"])
        assert close(
            (total + t["unbucketed_mean_turnover"] * t["weeks"]) / t["weeks"], t["mean_weekly_turnover"]
        )


def test_the_demo_exercises_every_branch(lake: ref.Lake) -> None:
    """Break-even measurable somewhere and not somewhere (a loss before costs)."""
    seen = set()
    for alpha in ALPHAS:
        for window in random_windows(f"costs:{alpha}:long_short"):
            ledger = lake.ledger_in(alpha, "long_short", window)
            if ledger is not None and not ledger.empty:
                seen.add(ref.cost_figures(ledger)["break_even_multiple"] is None)
    assert seen == {True, False}
