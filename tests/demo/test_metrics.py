"""Stored metrics reproduce from the sealed cross-sections and ledger, computed here independently."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr

from pipeline.demo.corpus import write_corpus


def stored(corpus: Path, alpha_id: str, scope: str = "overall", period: str = "") -> dict[str, float | None]:
    m = pl.read_parquet(corpus / alpha_id / "metrics.parquet").filter(
        (pl.col("scope") == scope) & (pl.col("period") == period)
    )
    return dict(zip(m["metric"].to_list(), m["value"].to_list(), strict=True))


def weekly_ic(decisions: pl.DataFrame, score: str) -> np.ndarray:
    out = []
    for (_,), week in decisions.sort("date").group_by(["date"], maintain_order=True):
        pairs = week.drop_nulls([score, "forward_return"])
        if pairs.height >= 3 and pairs[score].n_unique() > 1 and pairs["forward_return"].n_unique() > 1:
            out.append(spearmanr(pairs[score], pairs["forward_return"]).statistic)
    return np.array(out)


@pytest.mark.parametrize("alpha_id", ["momentum_12_1", "Test_planted_factor", "Test_small_universe"])
def test_stored_ic_reproduces(small_corpus: Path, alpha_id: str) -> None:
    d = pl.read_parquet(small_corpus / alpha_id / "decisions.parquet")
    s = stored(small_corpus, alpha_id)
    ic = weekly_ic(d, "score")
    raw = weekly_ic(d, "pre_smoothing_score")
    assert s["mean_ic"] == pytest.approx(ic.mean(), abs=1e-12)
    assert s["icir"] == pytest.approx(ic.mean() / ic.std(ddof=1) * np.sqrt(52), rel=1e-9)
    assert s["raw_mean_ic"] == pytest.approx(raw.mean(), abs=1e-12)
    assert s["ic_hit_rate"] == pytest.approx((ic > 0).mean())
    cohort = d.group_by("date").agg(pl.col("score").count())["score"].to_numpy()
    assert s["coverage"] == pytest.approx(cohort.mean() / d["symbol"].n_unique())


def test_legacy_ic_does_not_reproduce(small_corpus: Path) -> None:
    d = pl.read_parquet(small_corpus / "value_composite_legacy" / "decisions.parquet")
    sealed = stored(small_corpus, "value_composite_legacy")["mean_ic"]
    assert sealed is not None and abs(sealed - weekly_ic(d, "score").mean()) > 0.005


@pytest.mark.parametrize("alpha_id", ["momentum_12_1", "Test_ledger_only"])
def test_ledger_metrics_reproduce(small_corpus: Path, alpha_id: str) -> None:
    lg = pl.read_parquet(small_corpus / alpha_id / "portfolio" / "long_short.parquet")
    r = (lg["ending_equity"] / lg["starting_equity"] - 1).to_numpy()
    rf = lg["risk_free_return"].to_numpy()
    s = stored(small_corpus, alpha_id)
    assert s["information_ratio"] == pytest.approx(r.mean() / r.std(ddof=1) * np.sqrt(252))
    assert s["excess_sharpe"] == pytest.approx((r - rf).mean() / (r - rf).std(ddof=1) * np.sqrt(252))
    assert s["pnl"] == pytest.approx(lg["ending_equity"][-1] - 1.0)
    equity = np.concatenate([[1.0], lg["ending_equity"].to_numpy()])
    peak = np.maximum.accumulate(equity)
    assert s["max_drawdown"] == pytest.approx((peak - equity).max())
    assert s["max_drawdown_pct"] == pytest.approx(((peak - equity) / peak).max() * 100)
    assert s["annualised_turnover"] == pytest.approx(lg["turnover"].to_numpy().mean() * 252)
    year = str(lg["date"][-1].year)
    in_year = lg.filter(pl.col("date").dt.year() == int(year))
    assert stored(small_corpus, alpha_id, "yearly", year)["pnl"] == pytest.approx(
        in_year["ending_equity"][-1] - in_year["starting_equity"][0]
    )
    month = lg["date"][-1].strftime("%Y-%m")
    assert stored(small_corpus, alpha_id, "monthly", month)["total_turnover"] == pytest.approx(
        lg.filter(pl.col("date").dt.strftime("%Y-%m") == month)["turnover"].sum()
    )


def test_small_corpus_ic_magnitudes(small_corpus: Path) -> None:
    """Loose bounds on the small corpus: planted signal clearly positive, all |IC| realistic."""
    assert stored(small_corpus, "Test_planted_factor")["mean_ic"] > 0.02  # type: ignore[operator]
    for alpha_id in ("momentum_12_1", "Test_planted_factor", "Test_small_universe", "value_composite_legacy"):
        assert abs(stored(small_corpus, alpha_id)["mean_ic"]) < 0.12  # type: ignore[arg-type]


@pytest.mark.slow
def test_full_size_ic_in_realistic_range(tmp_path: Path) -> None:
    write_corpus(tmp_path, size="full", seed=7, only=["momentum_12_1", "Test_planted_factor"])
    momentum = pl.read_parquet(tmp_path / "momentum_12_1" / "decisions.parquet")
    assert momentum.height > 140_000 and momentum["date"].n_unique() > 280
    mean_ic = weekly_ic(momentum, "score").mean()
    assert 0.01 <= mean_ic <= 0.06
    planted = weekly_ic(
        pl.read_parquet(tmp_path / "Test_planted_factor" / "decisions.parquet"), "score"
    ).mean()
    assert 0.035 <= planted <= 0.06
    # Decile means of forward return rise with the score (monotone where a signal exists).
    d = momentum.drop_nulls(["score", "forward_return"]).with_columns(
        ((pl.col("score").rank("ordinal").over("date") - 1) * 10 // pl.len().over("date")).alias("bucket")
    )
    by_bucket = (
        d.group_by(["date", "bucket"])
        .agg(pl.col("forward_return").mean())
        .group_by("bucket")
        .agg(pl.col("forward_return").mean())
        .sort("bucket")["forward_return"]
        .to_numpy()
    )
    assert spearmanr(np.arange(len(by_bucket)), by_bucket).statistic > 0.6
