"""A week whose raw_scores are all equal has no ranking: it is not bucketed into deciles.

Before, `weekly_deciles` cut such a week into Q1..Q10 by ticker order (the sort's tie-breaker),
which reported a decile spread for a week with no signal and moved ic_deciles' monotonicity. Now
the week has no decile rows, `decile_eligible` is false, `decile_spread` is null, and /metrics
counts it in `ic_deciles.weeks_skipped`. Also: the documented `pnl` formulas (overall, period).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr

from analytics.metrics import Conventions, MetricsInputs
from analytics.metrics.inputs import columns_from_table
from pipeline.publish import lake_table
from pipeline.weekly import weekly_tables
from serve.doc_blocks.metrics_doc import metrics_doc
from tests.api import lakedata
from tests.metrics.conftest import Api
from tests.metrics.factory import ALL_ACCESS, metrics_json

WEEKS = [dt.date(2021, 1, 8) + dt.timedelta(days=7 * i) for i in range(8)]
FLAT = WEEKS[2]  # every raw_score 0.0 (two names unscored): >= 20 names, 1 distinct value
NEARLY_FLAT = WEEKS[4]  # all equal but one name: 2 distinct values, so still bucketed
THIN = WEEKS[6]  # 15 scored names: skipped by the older rule
NAMES = [f"S{i:02d}" for i in range(30)]


def synthetic_decisions(seed: int = 11) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for week in WEEKS:
        raw = rng.normal(size=len(NAMES))
        if week == FLAT:
            raw[:] = 0.0
        if week == NEARLY_FLAT:
            raw[:] = 0.5
            raw[7] = 0.6
        forward = 0.01 * raw + rng.normal(0.0, 0.02, len(NAMES))
        for i, symbol in enumerate(NAMES):
            unscored = (week == FLAT and i in (3, 17)) or (week == THIN and i >= 15)
            rows.append(
                {
                    "date": week,
                    "symbol": symbol,
                    "score": None if unscored else float(raw[i]),
                    "raw_score": None if unscored else float(raw[i]),
                    "raw_score_z": None if unscored else float(rng.normal()),
                    "forward_return": float(forward[i]),
                    "long_short_target_weight": float(rng.normal(0.0, 0.01)),
                    "long_only_target_weight": float(abs(rng.normal(0.0, 0.01))),
                }
            )
    return pl.DataFrame(rows)


@pytest.fixture(scope="module")
def tables() -> dict[str, pl.DataFrame]:
    rebalances = pl.DataFrame({"date": WEEKS, "week_status": ["traded"] * len(WEEKS)})
    return weekly_tables(synthetic_decisions(), rebalances, universe_size=len(NAMES))


def inputs_of(tables: dict[str, pl.DataFrame]) -> MetricsInputs:
    def columns(name: str) -> dict[str, np.ndarray]:
        table = lake_table(tables[name], name)
        return columns_from_table(table, tuple(table.schema.names))

    return MetricsInputs(
        alpha="synthetic",
        source_alpha_id="synthetic",
        kinds_present=frozenset({"decisions", "rebalances"}),
        missing_required_kinds=(),
        conventions=Conventions(),
        signal_processing=None,
        stored=None,
        weekly_signal=columns("weekly_signal"),
        weekly_deciles=columns("weekly_deciles"),
        weekly_term=columns("weekly_term"),
        weekly_autocorr=columns("weekly_autocorr"),
    )


def test_constant_week_has_no_deciles_and_no_spread(tables: dict[str, pl.DataFrame]) -> None:
    signal = tables["weekly_signal"].sort("date")
    deciles = tables["weekly_deciles"]
    assert sorted(set(deciles["date"])) == [w for w in WEEKS if w not in (FLAT, THIN)]
    assert deciles.group_by("date").len()["len"].to_list() == [10] * (len(WEEKS) - 2)

    flat = signal.filter(pl.col("date") == FLAT).row(0, named=True)
    assert flat["n_raw_scored"] == 28  # enough names: only the constant rule excludes it
    assert flat["decile_eligible"] is False and flat["decile_spread"] is None
    nearly = signal.filter(pl.col("date") == NEARLY_FLAT).row(0, named=True)
    assert nearly["decile_eligible"] is True and nearly["decile_spread"] is not None
    eligible = signal.filter(pl.col("date").is_in([FLAT, THIN]).not_())
    assert eligible["decile_eligible"].all()
    for row in eligible.iter_rows(named=True):
        week = deciles.filter(pl.col("date") == row["date"]).sort("bucket")["mean_forward_return"]
        assert row["decile_spread"] == pytest.approx(week[-1] - week[0], abs=1e-15)

    # Nothing else ranks a constant week: its raw IC, term IC and rank autocorrelation are null.
    assert flat["raw_ic"] is None
    for name, value in (("weekly_term", "ic"), ("weekly_autocorr", "rho")):
        assert (
            tables[name].filter(pl.col("date") == FLAT)[value].null_count()
            == tables[name].filter(pl.col("date") == FLAT).height
        )


def test_metrics_counts_the_constant_week_as_skipped(tables: dict[str, pl.DataFrame]) -> None:
    data, warnings = metrics_json(inputs_of(tables), "overall", None, None, True, ALL_ACCESS)
    deciles = data["ic_deciles"]
    assert (deciles["weeks"], deciles["weeks_skipped"]) == (len(WEEKS) - 2, 2)  # FLAT and THIN
    assert all(bucket["weeks"] == len(WEEKS) - 2 for bucket in deciles["buckets"])
    spreads = [entry["date"] for entry in data["panel"]["decile_spread_weekly"]]
    assert FLAT.isoformat() not in spreads and NEARLY_FLAT.isoformat() in spreads

    # A window holding only the constant week: ic_deciles (and so panel) are null, and say why.
    data, warnings = metrics_json(inputs_of(tables), "overall", FLAT, FLAT, True, ALL_ACCESS)
    assert data["ic_deciles"] is None and data["panel"] is None
    messages = {w["block"]: w["message"] for w in warnings if w["code"] == "insufficient_data"}
    assert "2 distinct raw_score values" in messages["ic_deciles"]
    assert "2 distinct raw_score values" in messages["panel"]


# ---------------------------------------------------------------- the served demo alpha


def weekly_decile_means(week: pl.DataFrame) -> np.ndarray:
    """Mean forward return of Q1..Q10 of one week (ordinal ranks, ties by symbol), from the spec."""
    scored = week.filter(pl.col("raw_score").is_not_null())
    raw = scored["raw_score"].to_numpy()
    order = np.lexsort((scored["symbol"].to_numpy(), raw))
    n = raw.size
    bucket = np.empty(n, dtype=int)
    bucket[order] = np.floor(10 * np.arange(n) / n).astype(int)
    returns = scored["forward_return"].to_numpy().astype(float)
    means = np.full(10, np.nan)
    for b in range(10):
        values = returns[(bucket == b) & np.isfinite(returns)]
        if values.size:
            means[b] = values.mean()
    return means


def monotonicity(weeks: list[pl.DataFrame]) -> float:
    means = np.nanmean(np.vstack([weekly_decile_means(w) for w in weeks]), axis=0)
    return float(spearmanr(np.arange(1, 11), means).statistic)


def test_served_momentum_skips_its_flat_weeks(api: Api, demo_lake: Path) -> None:
    alpha = "momentum_12_1"
    decisions = lakedata.table(demo_lake, alpha, "decisions")
    index = set(lakedata.table(demo_lake, alpha, "rebalances")["date"]) | set(decisions["date"])
    per_week = decisions.group_by("date").agg(
        n=pl.col("raw_score").count(),
        distinct=pl.col("raw_score").drop_nulls().n_unique(),
        returns=pl.col("forward_return").count(),
    )
    flat = set(per_week.filter(pl.col("n") >= 20, pl.col("distinct") < 2)["date"])
    assert flat, "the demo corpus seals momentum_12_1 with a flat week (flat_week_shares)"
    eligible = set(per_week.filter(pl.col("n") >= 20, pl.col("distinct") >= 2)["date"])
    used = sorted(eligible & set(per_week.filter(pl.col("returns") > 0)["date"]))

    data = api.ok(f"/v1/alphas/{alpha}/metrics", panel=1)["data"]
    deciles = data["ic_deciles"]
    assert deciles["weeks"] == len(used)
    assert deciles["weeks_skipped"] == len(index - eligible)
    thin = set(per_week.filter(pl.col("n") < 20)["date"]) | (index - set(per_week["date"]))
    assert deciles["weeks_skipped"] == len(thin) + len(flat)
    spread_dates = {entry["date"] for entry in data["panel"]["decile_spread_weekly"]}
    assert not spread_dates & {d.isoformat() for d in flat}

    weeks = {d: w for (d,), w in decisions.partition_by("date", as_dict=True).items()}
    expected = monotonicity([weeks[d] for d in used])
    served = deciles["monotonicity"]["spearman_bucket_vs_mean_forward_return"]
    assert served == pytest.approx(expected, abs=1e-12)
    with_flat = monotonicity([weeks[d] for d in sorted(set(used) | (flat & set(weeks)))])
    assert served != pytest.approx(with_flat, abs=1e-12), "the flat weeks would have moved it"


def test_doc_states_the_rules_served() -> None:
    fields = metrics_doc()["fields"]
    assert "2 distinct" in fields["ic_deciles.weeks_skipped"]["meaning"]
    assert "all equal" in fields["ic_deciles"]["meaning"]
    assert fields["core.pnl"]["formula"].startswith("last ending_equity - 1.0")
    period = fields["periods[].core.pnl"]["formula"]
    assert period.startswith("last ending_equity of the period - first starting_equity of the period")
    assert "2 distinct raw_score values" in metrics_doc()["warnings"]["insufficient_data"]
