"""The demo engine's optional `exposures` kind, checked on the written seals against the market it
was drawn from, recomputed here by hand (docs/seal.md "Exposures")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from alpha_results_seal import arrow_schemas as S
from alpha_results_seal.demo.market import SECTOR_NAMES, simulate_market

WITH_EXPOSURES = ["momentum_12_1", "Test_planted_factor", "Test_short_term_reversal", "Test_small_universe"]
WITHOUT = ["value_composite_legacy", "Test_low_vol_incomplete", "Test_ledger_only"]


@pytest.fixture(scope="module")
def market():
    return simulate_market("small", seed=7)


@pytest.mark.parametrize("alpha_id", WITHOUT)
def test_engines_without_a_risk_model_seal_none(demo_seals: Path, alpha_id: str) -> None:
    manifest = json.loads((demo_seals / alpha_id / "manifest.json").read_text())
    assert "exposures" not in manifest["kinds_sealed"]
    assert "exposures" not in manifest["required_kinds"]
    assert not (demo_seals / alpha_id / "exposures.parquet").exists()


@pytest.mark.parametrize("alpha_id", WITH_EXPOSURES)
def test_one_row_per_name_of_each_week_of_the_cross_section(demo_seals: Path, alpha_id: str) -> None:
    manifest = json.loads((demo_seals / alpha_id / "manifest.json").read_text())
    assert "exposures" in manifest["kinds_sealed"] and "exposures" not in manifest["required_kinds"]
    exposures = pl.read_parquet(demo_seals / alpha_id / "exposures.parquet")
    decisions = pl.read_parquet(demo_seals / alpha_id / "decisions.parquet")
    assert (
        exposures.select("date", "symbol")
        .sort("date", "symbol")
        .equals(decisions.select("date", "symbol").sort("date", "symbol"))
    )
    assert exposures.equals(exposures.sort("date", "symbol"))
    assert set(exposures["sector"].unique()) <= set(SECTOR_NAMES)
    for name in S.STYLE_FACTORS:  # standardised within each week: mean 0, population sd 1
        moments = exposures.group_by("date").agg(mean=pl.col(name).mean(), sd=pl.col(name).std(ddof=0))
        np.testing.assert_allclose(moments["mean"].to_numpy(), 0.0, atol=1e-12)
        np.testing.assert_allclose(moments["sd"].to_numpy(), 1.0, rtol=1e-12)
    assert (exposures["adv"] > 0).all()


def test_loadings_are_the_markets_own_state(demo_seals: Path, market) -> None:
    exposures = pl.read_parquet(demo_seals / "momentum_12_1" / "exposures.parquet")
    index = {symbol: i for i, symbol in enumerate(market.symbols)}
    session = {day: t for t, day in enumerate(market.dates)}
    week = {market.dates[int(s)]: w for w, s in enumerate(market.decision_sessions)}
    day = exposures["date"][0]
    first = exposures.filter(pl.col("date") == day)
    names = np.array([index[s] for s in first["symbol"]])
    t = session[day]
    assert list(first["sector"]) == [SECTOR_NAMES[k] for k in market.sectors[names]]
    np.testing.assert_allclose(first["adv"].to_numpy(), market.adv_dollars[t, names], rtol=1e-12)

    def z(values: np.ndarray) -> np.ndarray:
        return (values - values.mean()) / values.std()

    log_close = np.log(market.close[:, names])
    expected = {
        "size": z(np.log(market.shares_outstanding[names] * market.close[t, names])),
        "value": z(market.value[week[day], names]),
        "momentum": z(log_close[t - 21] - log_close[t - 252]),
        "beta": z(market.beta[names]),
        "volatility": z(np.diff(log_close[t - 63 : t + 1], axis=0).std(axis=0, ddof=1)),
    }
    for name, values in expected.items():
        np.testing.assert_allclose(first[name].to_numpy(), values, rtol=1e-9, atol=1e-12, err_msg=name)
