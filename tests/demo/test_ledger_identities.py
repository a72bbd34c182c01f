"""The book identities the pipeline validates, checked on the written small corpus with numpy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from alpha_results_seal.demo.alphas import ALPHA_IDS

BOOKS = ("long_short", "long_only", "raw_long_short", "raw_long_only")


def _cols(path: Path) -> dict[str, np.ndarray]:
    table = pq.read_table(path)
    return {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}


@pytest.mark.parametrize("alpha_id", ALPHA_IDS)
@pytest.mark.parametrize("book", BOOKS)
def test_ledger_identities(demo_seals: Path, alpha_id: str, book: str) -> None:
    seal = demo_seals / alpha_id
    lg = _cols(seal / "portfolio" / f"{book}.parquet")
    assert lg["starting_equity"][0] == 1.0
    np.testing.assert_array_equal(lg["starting_equity"][1:], lg["ending_equity"][:-1])
    np.testing.assert_array_equal(lg["cash_start"][1:], lg["cash_end"][:-1])
    np.testing.assert_allclose(
        lg["cash_end"] + lg["position_value_end"], lg["ending_equity"], rtol=0, atol=1e-12
    )
    rebuilt = (
        lg["starting_equity"]
        + lg["market_pnl"]
        + lg["execution_cost"]
        + lg["borrow_cashflow"]
        + lg["cash_carry"]
        + lg["rounding_adjustment"]
    )
    np.testing.assert_allclose(rebuilt, lg["ending_equity"], rtol=0, atol=1e-12)
    assert np.abs(lg["rounding_adjustment"]).max() < 1e-9
    assert (lg["execution_cost"] <= 0).all() and (lg["borrow_cashflow"] <= 0).all()
    np.testing.assert_allclose(
        lg["cash_carry"], lg["cash_start"] * lg["risk_free_return"], rtol=1e-12, atol=0
    )
    assert (lg["equity_basis"] == 1.0).all()

    dates = lg["date"]
    index = {d: i for i, d in enumerate(dates)}

    if not (seal / "pnl" / f"{book}.parquet").exists():
        return
    pnl = _cols(seal / "pnl" / f"{book}.parquet")
    rows = np.array([index[d] for d in pnl["date"]])
    for column in ("market_pnl", "execution_cost", "borrow_cashflow"):
        sums = np.bincount(rows, weights=pnl[column], minlength=len(dates))
        np.testing.assert_allclose(sums, lg[column], rtol=0, atol=1e-12)
    net = np.bincount(
        rows, weights=pnl["market_pnl"] + pnl["execution_cost"] + pnl["borrow_cashflow"], minlength=len(dates)
    )
    np.testing.assert_allclose(
        net + lg["cash_carry"] + lg["rounding_adjustment"],
        lg["ending_equity"] - lg["starting_equity"],
        atol=1e-12,
    )

    pos = _cols(seal / "positions" / f"{book}.parquet")
    prow = np.array([index[d] for d in pos["date"]])
    value = pos["quantity"] * pos["mark_price"]
    np.testing.assert_allclose(
        np.bincount(prow, weights=value, minlength=len(dates)), lg["position_value_end"], atol=1e-12
    )
    np.testing.assert_allclose(
        np.bincount(prow, weights=np.abs(value), minlength=len(dates)), lg["gross_notional"], atol=1e-12
    )
    assert (pos["quantity"] != 0).all()


WITH_TRADES = [a for a in ALPHA_IDS if a != "Test_low_vol_incomplete"]


@pytest.mark.parametrize("alpha_id", WITH_TRADES)
def test_market_pnl_is_quantity_times_close_change(demo_seals: Path, alpha_id: str) -> None:
    """On a session without fills, a name's market P&L is quantity x (close - previous close)."""
    seal = demo_seals / alpha_id
    sessions = pl.read_parquet(seal / "portfolio" / "long_short.parquet").select("date").with_row_index("i")
    pos = pl.read_parquet(seal / "positions" / "long_short.parquet").join(sessions, on="date")
    pnl = pl.read_parquet(seal / "pnl" / "long_short.parquet").join(sessions, on="date")
    prev = pos.select(
        pl.col("symbol"),
        (pl.col("i") + 1).alias("i"),
        pl.col("quantity").alias("prev_q"),
        pl.col("mark_price").alias("prev_mark"),
    )
    held = pnl.join(pos, on=["i", "symbol"]).join(prev, on=["i", "symbol"])
    no_fill = held.filter((pl.col("execution_cost") == 0) & (pl.col("quantity") == pl.col("prev_q")))
    assert no_fill.height > 100
    expected = (no_fill["quantity"] * (no_fill["mark_price"] - no_fill["prev_mark"])).to_numpy()
    np.testing.assert_allclose(no_fill["market_pnl"].to_numpy(), expected, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("alpha_id", WITH_TRADES)
def test_trade_variants_are_exact_subsets(demo_seals: Path, alpha_id: str) -> None:
    seal = demo_seals / alpha_id
    manifest = json.loads((seal / "manifest.json").read_text())
    assert len(manifest["trade_books"]) == 12
    for book in BOOKS:
        trades = pq.read_table(seal / "trades" / f"{book}.parquet")
        adjustments = pq.read_table(seal / "trades" / f"{book}_adjustments.parquet")
        settlements = pq.read_table(seal / "trades" / f"{book}_settlements.parquet")
        assert adjustments.num_rows + settlements.num_rows == trades.num_rows
        assert set(adjustments.column("phase").to_pylist()) == {"rebalance"}
        assert set(settlements.column("phase").to_pylist()) == {"open", "close"}
        phase = trades.column("phase").to_numpy(zero_copy_only=False)
        assert trades.filter(pa.array(phase == "rebalance")).equals(adjustments)
        assert trades.filter(pa.array(phase != "rebalance")).equals(settlements)
        t = pl.from_arrow(trades)
        assert isinstance(t, pl.DataFrame)
        assert (t["execution_cost"] <= 0).all()
        expected_cost = -(t["fee"] + t["quantity"].abs() * (t["fill_price"] - t["mid_price"]).abs())
        np.testing.assert_allclose(t["execution_cost"].to_numpy(), expected_cost.to_numpy(), rtol=1e-12)
        # Buys fill above the mid, sells below.
        assert (((t["fill_price"] - t["mid_price"]) * t["quantity"].sign()) > 0).all()
        closes = t.filter(pl.col("phase") == "close")
        assert set(closes["exit_reason"].to_list()) <= {"signal_exit", "risk_exit"}
        assert t.filter(pl.col("phase") != "close")["exit_reason"].null_count() == t.height - closes.height
        reasons = {"open": {"entry"}, "close": {"exit"}, "rebalance": {"weight_increase", "weight_decrease"}}
        for ph, allowed in reasons.items():
            assert set(t.filter(pl.col("phase") == ph)["rebalance_adjustment_reason"].to_list()) <= allowed
