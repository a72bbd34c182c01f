"""Identities across endpoints: what one endpoint serves must agree with the others."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.api.conftest import Api

BASE = "/v1/alphas/Test_planted_factor"


@pytest.mark.parametrize("book", ["long_short", "long_only", "raw_long_short"])
def test_pnl_sums_to_the_ledger_and_the_equity_change(api: Api, book: str) -> None:
    ledger = {r["date"]: r for r in api.all_pages(f"{BASE}/portfolio", limit=5000, book=book)}
    curve = {r["date"]: r for r in api.all_pages(f"{BASE}/equity-curve", limit=5000, book=book)}
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in api.all_pages(f"{BASE}/pnl", limit=5000, book=book):
        for column in ("market_pnl", "execution_cost", "borrow_cashflow", "net_pnl"):
            sums[row["date"]][column] += row[column]
    assert set(sums) <= set(ledger)
    for day, row in ledger.items():
        session = sums.get(day, defaultdict(float))
        for column in ("market_pnl", "execution_cost", "borrow_cashflow"):
            assert session[column] == pytest.approx(row[column], abs=1e-12)
        change = curve[day]["ending_equity"] - curve[day]["starting_equity"]
        # The documented decomposition: P&L of the names plus carry on cash plus the rounding residual.
        assert session["net_pnl"] + row["cash_carry"] + row["rounding_adjustment"] == pytest.approx(
            change, abs=1e-12
        )


def test_trades_join_the_rebalance_they_implement(api: Api) -> None:
    trades = api.all_pages(f"{BASE}/trades", limit=5000, book="long_short")
    index = {r["date"] for r in api.all_pages(f"{BASE}/rebalances", limit=5000)}
    decided = sorted({t["decision_at"] for t in trades})
    assert set(decided) <= index
    for day in decided[:3]:
        cross = {r["symbol"]: r for r in api.all_pages(f"{BASE}/rebalances/{day}", limit=5000)}
        for trade in (t for t in trades if t["decision_at"] == day):
            assert trade["symbol"] in cross
            assert trade["timestamp"] > day
