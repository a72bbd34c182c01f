"""Rebalance cross-sections: the rules the spec states for decision rows, on the written seals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.stats import rankdata

WITH_SECTIONS = [
    "momentum_12_1",
    "Test_planted_factor",
    "Test_short_term_reversal",
    "Test_small_universe",
    "Test_low_vol_incomplete",
    "value_composite_legacy",
]


def load(corpus: Path, alpha_id: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    return (
        pl.read_parquet(corpus / alpha_id / "decisions.parquet"),
        pl.read_parquet(corpus / alpha_id / "rebalances.parquet"),
    )


@pytest.mark.parametrize("alpha_id", WITH_SECTIONS)
def test_score_direction_confidence_and_ranks(demo_seals: Path, alpha_id: str) -> None:
    d, _ = load(demo_seals, alpha_id)
    for s, direction, confidence, rank in (
        ("score", "direction", "confidence", "average_rank"),
        ("pre_smoothing_score", "raw_direction", "raw_confidence", "raw_average_rank"),
    ):
        scored = d.filter(pl.col(s).is_not_null())
        np.testing.assert_array_equal(scored[direction].to_numpy(), np.sign(scored[s].to_numpy()))
        np.testing.assert_allclose(scored[direction] * scored[confidence], scored[s], rtol=0, atol=0)
        assert (
            d.filter(pl.col(s).is_null())[[direction, confidence, rank]].null_count().row(0)
            == (d[s].null_count(),) * 3
        )
        for (_,), week in scored.group_by(["date"]):
            expected = rankdata(-week[s].to_numpy(), method="average")
            np.testing.assert_array_equal(week[rank].to_numpy(), expected)


@pytest.mark.parametrize("alpha_id", WITH_SECTIONS)
def test_weights_and_tradeability(demo_seals: Path, alpha_id: str) -> None:
    d, r = load(demo_seals, alpha_id)
    weights = [
        "long_short_target_weight",
        "long_only_target_weight",
        "raw_long_short_target_weight",
        "raw_long_only_target_weight",
    ]
    gated = d.filter(~pl.col("next_open_tradeable"))
    assert gated.height > 0
    assert gated["unavailability_reason"].null_count() == 0
    assert (gated.select(pl.sum_horizontal([pl.col(w).abs() for w in weights]))).to_series().max() == 0
    assert (
        d.filter(pl.col("next_open_tradeable"))["unavailability_reason"].null_count()
        == d.filter(pl.col("next_open_tradeable")).height
    )
    sums = (
        d.group_by("date")
        .agg(
            *[pl.col(w).sum().alias(w) for w in weights],
            pl.col("long_short_target_weight").abs().sum().alias("gross"),
            (pl.col("long_only_target_weight") > 0).sum().alias("held"),
        )
        .join(r, on="date")
    )
    assigned = sums.filter(pl.col("week_status").is_in(["traded", "pending"]))
    skipped = sums.filter(~pl.col("week_status").is_in(["traded", "pending"]))
    np.testing.assert_allclose(assigned["long_only_target_weight"], 1.0, atol=1e-12)
    np.testing.assert_allclose(assigned["raw_long_only_target_weight"], 1.0, atol=1e-12)
    np.testing.assert_allclose(assigned["long_short_target_weight"], 0.0, atol=1e-12)
    np.testing.assert_allclose(assigned["gross"], 2.0, atol=1e-12)
    assert skipped["gross"].sum() == 0 and skipped["held"].sum() == 0
    assert set(d["long_only_target_weight"].to_list()) >= {0.0}
    assert (d["long_only_target_weight"] >= 0).all()


@pytest.mark.parametrize("alpha_id", WITH_SECTIONS)
def test_pending_week_and_forward_returns(demo_seals: Path, alpha_id: str) -> None:
    d, r = load(demo_seals, alpha_id)
    dates = r["date"].to_list()
    last = d.filter(pl.col("date") == dates[-1])
    assert r["week_status"][-1] == "pending"
    for column in ("fill_at", "raw_fill_at", "forward_return", "entry_at", "maturity_at"):
        assert last[column].null_count() == last.height
    assert d.filter(pl.col("date") == dates[-2])["forward_return"].null_count() == last.height
    earlier = d.filter(pl.col("date") < dates[-2])
    assert earlier["forward_return"].null_count() == 0
    assert earlier["entry_at"].null_count() == 0 and earlier["maturity_at"].null_count() == 0
    # maturity of one week is the entry of the next
    entries = d.group_by("date").agg(pl.col("entry_at").first(), pl.col("maturity_at").first()).sort("date")
    assert entries["maturity_at"][:-2].to_list() == entries["entry_at"][1:-1].to_list()


@pytest.mark.parametrize("alpha_id", WITH_SECTIONS)
def test_fill_at_joins_the_long_short_trades(demo_seals: Path, alpha_id: str) -> None:
    d, r = load(demo_seals, alpha_id)
    if not (demo_seals / alpha_id / "trades").exists():
        assert d["fill_at"].null_count() < d.height
        return
    for book, column in (("long_short", "fill_at"), ("raw_long_short", "raw_fill_at")):
        trades = pl.read_parquet(demo_seals / alpha_id / "trades" / f"{book}.parquet")
        assert set(trades["decision_at"].to_list()) <= set(r["date"].to_list())
        filled = d.filter(pl.col(column).is_not_null()).select(
            pl.col("date").alias("decision_at"), "symbol", pl.col(column).alias("timestamp")
        )
        assert filled.sort(["decision_at", "symbol"]).equals(
            trades.select("decision_at", "symbol", "timestamp").sort(["decision_at", "symbol"])
        )
    untradeable = d.filter(~pl.col("next_open_tradeable"))
    assert untradeable["fill_at"].null_count() == untradeable.height
