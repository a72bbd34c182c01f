"""Identities across endpoints: what one endpoint serves must agree with the others.

Each identity is checked on a stated number of rows taken from the lake itself, so an empty or
truncated answer fails instead of passing vacuously.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest

from tests.api.conftest import Api
from tests.api.lakedata import table

ALPHA = "Test_planted_factor"
BASE = f"/v1/alphas/{ALPHA}"


def lake_dates(lake: Path, kind: str, book: str) -> list[str]:
    frame = table(lake, ALPHA, kind).filter(pl.col("book") == book)
    return sorted({d.isoformat() for d in frame["date"]})


@pytest.mark.parametrize("book", ["long_short", "long_only", "raw_long_short"])
def test_pnl_sums_to_the_ledger_and_the_equity_change(api: Api, demo_lake: Path, book: str) -> None:
    ledger = {r["date"]: r for r in api.all_pages(f"{BASE}/portfolio", limit=5000, book=book)}
    curve = {r["date"]: r for r in api.all_pages(f"{BASE}/equity-curve", limit=5000, book=book)}
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in api.all_pages(f"{BASE}/pnl", limit=5000, book=book):
        for column in ("market_pnl", "execution_cost", "borrow_cashflow", "net_pnl"):
            sums[row["date"]][column] += row[column]
    # Every session the run sealed is served, once, by the ledger and the curve alike.
    sessions = lake_dates(demo_lake, "portfolio", book)
    assert len(sessions) > 250
    assert sorted(ledger) == sorted(curve) == sessions
    # P&L rows exist for every session with positions: all but the first (the book opens in cash).
    assert sorted(sums) == lake_dates(demo_lake, "pnl", book) == sessions[1:]
    traded = [day for day, row in ledger.items() if row["market_pnl"] != 0]
    assert len(traded) >= len(sessions) - 5
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
    weeks = api.all_pages(f"{BASE}/rebalances", limit=5000)
    traded = sorted(r["date"] for r in weeks if r["week_status"] == "traded")
    assert len(traded) >= 50 and len(trades) >= 5 * len(traded)
    # Exactly the traded weeks cause trades: not the skip week, not the pending last week.
    assert sorted({t["decision_at"] for t in trades}) == traded
    checked = 0
    for day in traded:
        cross = {r["symbol"]: r for r in api.all_pages(f"{BASE}/rebalances/{day}", limit=5000)}
        for trade in (t for t in trades if t["decision_at"] == day):
            row = cross[trade["symbol"]]
            # fill_at is the execution timestamp of the implementing fill (spec, cross-section row).
            assert trade["timestamp"] == row["fill_at"] and trade["timestamp"] > day
            if trade["phase"] == "open":
                assert trade["quantity"] * row["long_short_target_weight"] > 0, trade
            checked += 1
    assert checked == len(trades)
