"""`/analytics/quantiles` against alphalens-reloaded on the same data: a factor_data frame built from
the lake's decisions Parquet (no code of `analytics/`), bucketed by `alphalens.utils.quantize_factor`,
averaged by `alphalens.performance.mean_return_by_quantile(demeaned=False)`, the weekly IC by
`factor_information_coefficient` and `mean_information_coefficient(by_time="ME")`, the spread's
Newey-West t-statistic by statsmodels, all within 1e-9 relative; the pipeline's weekly table against
alphalens' per-date means for every quantile count; bad input; the IC by sector without exposures;
what a key that may not read the cross-sections (or the raw score) sees."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from alphalens import performance, utils

from tests.analytics.conftest import Api, Window, random_windows, window_params
from tests.analytics.reference import Lake
from tests.support.build_tables import build_pandas, has_table

TOLERANCE = 1e-9
PATH = "/v1/alphas/{}/analytics/quantiles"
SCORED = ["momentum_12_1", "Test_planted_factor", "Test_small_universe", "Test_low_vol_incomplete"]
PERIOD = "5D"  # alphalens reads forward-return columns by a period name; ours is one rebalance week
# A week whose scores are all equal (the demo's flat snapshot) has no IC: alphalens' spearmanr warns.
pytestmark = pytest.mark.filterwarnings("ignore:An input array is constant")


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        return a is None and (b is None or math.isnan(b))
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=1e-12)


def factor_data(lake: Lake, alpha: str, score: str, window: Window = (None, None)) -> pd.DataFrame:
    """alphalens' factor_data: (date, asset) -> factor (the score), the week's forward return,
    for the names holding both (as get_clean_factor_and_forward_returns drops the others)."""
    decisions = lake.decisions(alpha)
    assert decisions is not None
    rows = decisions[["date", "symbol", score, "forward_return"]].dropna()
    rows = rows[np.isfinite(rows[score]) & np.isfinite(rows["forward_return"])]
    if window[0] is not None:
        rows = rows[rows["date"] >= window[0]]
    if window[1] is not None:
        rows = rows[rows["date"] <= window[1]]
    index = pd.MultiIndex.from_arrays([pd.to_datetime(rows["date"]), rows["symbol"]], names=["date", "asset"])
    return pd.DataFrame(
        {PERIOD: rows["forward_return"].to_numpy(float), "factor": rows[score].to_numpy(float)}, index=index
    )


def quantized(data: pd.DataFrame, q: int) -> pd.DataFrame:
    """The weeks we bucket (at least q names: where we differ from alphalens, which also cuts a
    thinner week whose edges are distinct), quantized by alphalens; a week whose edges tie is
    skipped (no_raise)."""
    sizes = data.groupby(level="date").size()
    data = data[data.index.get_level_values("date").isin(sizes.index[sizes >= q])].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data["factor_quantile"] = utils.quantize_factor(data, quantiles=q, no_raise=True)
    return data.dropna(subset=["factor_quantile"])


def newey_west(values: np.ndarray) -> tuple[int, float, float] | None:
    """(lag, standard error, t) of the mean by statsmodels' HAC (Newey and West 1994's lag rule)."""
    n = values.size
    if n < 10:
        return None
    lag = max(0, min(math.floor(4 * (n / 100) ** (2 / 9)), n - 1))
    fit = sm.OLS(values, np.ones_like(values)).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
    return lag, float(fit.bse[0]), float(fit.tvalues[0])


def expected(lake: Lake, alpha: str, score: str, q: int, window: Window) -> dict[str, Any]:
    data = factor_data(lake, alpha, score, window)
    bucketed = quantized(data, q)
    mean, error = performance.mean_return_by_quantile(bucketed, demeaned=False)
    by_date, _ = performance.mean_return_by_quantile(bucketed, by_date=True, demeaned=False)
    dates = sorted(bucketed.index.get_level_values("date").unique())
    wide = by_date[PERIOD].unstack(level="factor_quantile").reindex(dates)
    names = bucketed.groupby(["factor_quantile", bucketed.index.get_level_values("date")]).size()
    # alphalens halves the difference (a book 50% long the top, 50% short the bottom); ours is
    # the plain difference, as /metrics' decile spread (docs/analytics.md "Quantile returns").
    spread = 2.0 * performance.compute_mean_returns_spread(by_date, q, 1)[0][PERIOD].reindex(dates)
    buckets = []
    for k in range(1, q + 1):
        held = wide[float(k)].dropna() if float(k) in wide else pd.Series(dtype=float)
        counts = names.xs(float(k), level="factor_quantile") if float(k) in wide else pd.Series(dtype=float)
        curve = performance.cumulative_returns(wide[float(k)]) - 1.0 if float(k) in wide else None
        buckets.append(
            {
                "weeks": int(held.size),
                "mean_names": float(counts.mean()) if counts.size else None,
                "mean_forward_return": float(mean.loc[float(k), PERIOD]) if held.size else None,
                "standard_error": float(error.loc[float(k), PERIOD]) if held.size >= 2 else None,
                "cumulative_return": None if curve is None else curve.tolist(),
            }
        )
    finite = spread.dropna().to_numpy(float)
    test = newey_west(finite)
    ic = performance.factor_information_coefficient(data)[PERIOD] if len(data) else pd.Series(dtype=float)
    by_month = performance.mean_information_coefficient(data, by_time="ME")[PERIOD] if len(data) else None
    month_of_year = ic.groupby(ic.index.month).agg(["mean", "count"])
    return {
        "dates": [d.date().isoformat() for d in dates],
        "buckets": buckets,
        "spread": {
            "weeks": int(finite.size),
            "mean": float(finite.mean()) if finite.size else None,
            "lag": None if test is None else test[0],
            "standard_error": None if test is None else test[1],
            "t_statistic": None if test is None else test[2],
            "cumulative_return": (performance.cumulative_returns(spread) - 1.0).tolist(),
        },
        "ic": ic,
        "by_month": by_month,
        "month_of_year": month_of_year,
    }


def assert_reproduces(data: dict[str, Any], want: dict[str, Any], where: Any) -> None:
    assert data["dates"] == want["dates"], where
    assert data["bucketed_weeks"] == len(want["dates"]), where
    for got, bucket in zip(data["buckets"], want["buckets"], strict=True):
        assert got["weeks"] == bucket["weeks"], (where, got["label"])
        assert close(got["mean_names"], bucket["mean_names"]), (where, got["label"])
        for name in ("mean_forward_return", "standard_error"):
            entry = got[name]
            assert close(entry["value"], bucket[name]), (where, got["label"], name, entry, bucket[name])
            assert entry["status"] == ("available" if bucket[name] is not None else "not_measurable")
            assert entry["unit"] == "fraction" and entry["annualisation"] == "per_period"
        assert bucket["cumulative_return"] is not None
        assert len(got["cumulative_return"]) == len(bucket["cumulative_return"]), where
        assert all(map(close, got["cumulative_return"], bucket["cumulative_return"])), (where, got["label"])
    spread, want_spread = data["spread"], want["spread"]
    assert spread["weeks"] == want_spread["weeks"] and spread["lag"] == want_spread["lag"], where
    for name in ("mean", "standard_error", "t_statistic"):
        assert close(spread[name]["value"], want_spread[name]), (where, name, spread[name], want_spread[name])
    assert all(map(close, spread["cumulative_return"], want_spread["cumulative_return"])), where
    # The IC by calendar month: alphalens' month-end resample of the weekly IC.
    ic, by_month = want["ic"], want["by_month"]
    for row in data["ic_by_month"]:
        inside = ic[ic.index.strftime("%Y-%m") == row["month"]].dropna()
        assert row["weeks"] == inside.size, (where, row)
        if row["weeks"]:
            assert by_month is not None
            found = by_month[by_month.index.strftime("%Y-%m") == row["month"]]
            assert close(row["rebuilt_mean_ic"], float(found.iloc[0])), (where, row, found)
        else:
            assert row["rebuilt_mean_ic"] is None, (where, row)
    assert sum(row["weeks"] for row in data["ic_by_month"]) == ic.dropna().size, where
    month_of_year = want["month_of_year"]
    assert [row["month"] for row in data["ic_by_month_of_year"] if row["weeks"]] == [
        int(m) for m in month_of_year.index if month_of_year.loc[m, "count"]
    ], where
    for row in data["ic_by_month_of_year"]:
        if row["weeks"]:
            assert row["weeks"] == int(month_of_year.loc[row["month"], "count"]), (where, row)
            assert close(row["rebuilt_mean_ic"], float(month_of_year.loc[row["month"], "mean"])), (where, row)


@pytest.mark.parametrize("alpha", SCORED)
def test_quantile_returns_reproduce_alphalens(api: Api, lake: Lake, alpha: str) -> None:
    for i, window in enumerate(random_windows(f"quantiles:{alpha}", 2)):
        for score, q in (("score", 5), ("raw_score", 10), ("score", 2 + i * 3)):
            body = api.get(PATH.format(alpha), score=score, quantiles=q, **window_params(window))
            if body.status_code == 400 and i:  # a random window holding fewer than 2 bucketed weeks
                assert {p["name"] for p in body.json()["error"]["details"]["parameters"]} <= {"from", "to"}
                continue
            assert body.status_code == 200, body.text
            data = body.json()["data"]
            assert (data["score_field"], data["quantiles"]) == (score, q)
            assert data["signal"] == ("raw" if score == "raw_score" else "conditioned")
            assert [b["label"] for b in data["buckets"]] == [f"Q{k}" for k in range(1, q + 1)]
            assert_reproduces(data, expected(lake, alpha, score, q, window), (alpha, score, q, window))


def test_the_weekly_table_is_alphalens_per_date_for_every_quantile_count(lake: Lake) -> None:
    """Every row the pipeline wrote (names, mean forward return per week and quantile) is
    alphalens' own per-date figure: every count q = 2..10 of one score, a few of the others."""
    counts = {
        ("momentum_12_1", "score"): range(2, 11),
        ("momentum_12_1", "raw_score"): (3, 10),
        ("Test_small_universe", "raw_score"): (4, 9),
    }
    for (alpha, score), quantile_counts in counts.items():
        table = build_pandas(lake.build(alpha), "analytics_quantiles")
        data = factor_data(lake, alpha, score)
        for q in quantile_counts:
            bucketed = quantized(data, q)
            by_date, _ = performance.mean_return_by_quantile(bucketed, by_date=True, demeaned=False)
            names = bucketed.groupby(["factor_quantile", bucketed.index.get_level_values("date")]).size()
            rows = table[(table["score"] == score) & (table["quantiles"] == q) & (table["names"] > 0)]
            assert len(rows) == len(by_date), (alpha, score, q)
            for row in rows.itertuples():
                key = (float(row.quantile), pd.Timestamp(row.date))
                assert row.names == names.loc[key], (alpha, score, q, key)
                assert close(row.mean_forward_return, float(by_date.loc[key, PERIOD])), (
                    alpha,
                    score,
                    q,
                    key,
                )


def test_a_thin_or_tied_week_is_skipped_and_counted(api: Api, lake: Lake) -> None:
    data = api.ok(PATH.format("momentum_12_1"), quantiles=10)["data"]
    frame = factor_data(lake, "momentum_12_1", "score")
    assert data["weeks"] == frame.index.get_level_values("date").nunique()
    assert data["skipped_weeks"] == data["weeks"] - data["bucketed_weeks"] >= 0
    assert data["bucketed_weeks"] == len(data["dates"])
    assert "pd.qcut" in data["assignment"]


def sector_ic(lake: Lake, alpha: str, score: str, window: Window) -> dict[str, dict[str, Any]]:
    """alphalens' IC by group: factor_data with each name's sector that week as its group (names
    without one left out), the weekly IC within each sector, averaged over weeks. Only sector-weeks
    with at least 3 names enter (where we differ: alphalens correlates 2 names, always +-1)."""
    data = factor_data(lake, alpha, score, window)
    exposures = build_pandas(lake.build(alpha), "exposures")[["date", "symbol", "sector"]]
    sectors = pd.Series(
        exposures["sector"].to_numpy(),
        index=pd.MultiIndex.from_arrays(
            [pd.to_datetime(exposures["date"]), exposures["symbol"]], names=["date", "asset"]
        ),
    )
    data["group"] = sectors.reindex(data.index).to_numpy()
    data = data.dropna(subset=["group"])
    sizes = data.groupby([data.index.get_level_values("date"), "group"])["factor"].transform("size")
    data = data[sizes >= 3]
    weekly = performance.factor_information_coefficient(data, by_group=True)[PERIOD]
    mean = performance.mean_information_coefficient(data, by_group=True)[PERIOD]
    names = data.groupby([data.index.get_level_values("date"), "group"]).size()
    out = {}
    for sector in mean.index:
        measured = weekly.xs(sector, level="group").dropna()
        out[str(sector)] = {
            "weeks": int(measured.size),
            "sector_mean_ic": float(mean.loc[sector]) if measured.size else None,
            "sector_mean_names": float(names.xs(sector, level="group").loc[measured.index].mean())
            if measured.size
            else None,
        }
    return out


@pytest.mark.parametrize("alpha", ["momentum_12_1", "Test_planted_factor", "Test_small_universe"])
def test_the_ic_by_sector_reproduces_alphalens_by_group(api: Api, lake: Lake, alpha: str) -> None:
    for window, score in zip(random_windows(f"sectors:{alpha}", 1), ("score", "raw_score"), strict=True):
        body = api.get(PATH.format(alpha), score=score, **window_params(window))
        if body.status_code == 400 and window != (None, None):  # fewer than 2 bucketed weeks
            continue
        assert body.status_code == 200, body.text
        block = body.json()["data"]["ic_by_sector"]
        assert block["status"] == "available", block
        want = sector_ic(lake, alpha, score, window)
        got = {row["sector"]: row for row in block["sectors"]}
        assert [row["sector"] for row in block["sectors"]] == sorted(got)
        measured = {name: row for name, row in got.items() if row["weeks"]}
        assert sorted(measured) == sorted(name for name, row in want.items() if row["weeks"]), (
            alpha,
            window,
        )
        for name, row in measured.items():
            assert row["weeks"] == want[name]["weeks"], (alpha, score, window, name)
            assert close(row["sector_mean_ic"]["value"], want[name]["sector_mean_ic"]), (
                alpha,
                score,
                window,
                name,
            )
            assert close(row["sector_mean_names"], want[name]["sector_mean_names"]), (
                alpha,
                score,
                window,
                name,
            )
        for row in got.values():
            if not row["weeks"]:
                assert (
                    row["sector_mean_ic"]["status"] == "not_measurable" and row["sector_mean_names"] is None
                )


def test_without_exposures_the_ic_by_sector_is_not_measurable(api: Api, lake: Lake) -> None:
    for alpha in ("value_composite_legacy", "Test_low_vol_incomplete"):
        assert not has_table(lake.build(alpha), "exposures")
        body = api.ok(PATH.format(alpha))
        assert body["data"]["ic_by_sector"] == {
            "status": "not_measurable",
            "withheld_reason": "missing_kind: the run sealed no exposures, so its names have no sector",
            "sectors": None,
        }
        assert body["data"]["buckets"][0]["mean_forward_return"]["status"] == "available"
        assert any(
            w["code"] == "kind_missing" and w.get("kind") == "exposures" for w in body["meta"]["warnings"]
        )


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"quantiles": "1"}, "quantiles"),
        ({"quantiles": "11"}, "quantiles"),
        ({"quantiles": "five"}, "quantiles"),
        ({"score": "direction"}, "score"),
        ({"from": "2022-02-30"}, "from"),
        ({"from": "2022-02-01", "to": "2022-01-01"}, "from"),
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(api: Api, params: dict[str, str], named: str) -> None:
    body = api.get(PATH.format("momentum_12_1"), **params)
    assert body.status_code == 400, body.text
    error = body.json()["error"]
    assert named in [p["name"] for p in error["details"]["parameters"]], error


def test_a_window_too_short_is_a_400_naming_its_bounds(api: Api, lake: Lake) -> None:
    dates = api.ok(PATH.format("momentum_12_1"))["data"]["dates"]
    body = api.get(PATH.format("momentum_12_1"), **{"from": dates[3], "to": dates[3]})
    assert body.status_code == 400, body.text
    named = {p["name"]: p["rule"] for p in body.json()["error"]["details"]["parameters"]}
    assert named == dict.fromkeys(
        ("from", "to"), "the window holds 1 bucketed rebalance week; at least 2 are needed"
    )
    assert api.get(PATH.format("momentum_12_1"), **{"from": dates[3], "to": dates[4]}).status_code == 200


def test_raw_score_needs_raw_book_access(api: Api) -> None:
    body = api.get(PATH.format("momentum_12_1"), token="plain", score="raw_score")
    assert body.status_code == 400, body.text
    (problem,) = body.json()["error"]["details"]["parameters"]
    assert problem["name"] == "score" and "raw-book access" in problem["rule"]
    assert api.get(PATH.format("momentum_12_1"), token="plain").status_code == 200
    assert api.get(PATH.format("momentum_12_1"), token="raw", score="raw_score").status_code == 200


def test_a_key_without_the_cross_sections_sees_every_figure_withheld(api: Api) -> None:
    body = api.get(PATH.format("momentum_12_1"), token="no_signals")
    assert body.status_code == 200, body.text
    data, warnings_ = body.json()["data"], body.json()["meta"]["warnings"]
    assert data["weeks"] is None and data["dates"] is None and data["ic_by_month"] is None
    for bucket in data["buckets"]:
        assert bucket["mean_forward_return"]["status"] == "not_measurable"
        assert bucket["mean_forward_return"]["withheld_reason"].startswith("access_limited")
        assert bucket["cumulative_return"] is None and bucket["weeks"] is None
    assert data["spread"]["t_statistic"]["withheld_reason"].startswith("access_limited")
    assert data["ic_by_sector"]["status"] == "not_measurable"
    assert data["ic_by_sector"]["withheld_reason"].startswith("access_limited")
    assert any(w["code"] == "access_limited" and w["block"] == "quantiles" for w in warnings_)
    # A window too short is not told to a key that may not read the weeks.
    assert (
        api.get(
            PATH.format("momentum_12_1"), token="no_signals", **{"from": "2021-03-01", "to": "2021-03-02"}
        ).status_code
        == 200
    )


def test_a_run_without_decisions_is_not_measurable_and_warned(api: Api) -> None:
    body = api.ok(PATH.format("Test_ledger_only"))
    data = body["data"]
    assert data["bucketed_weeks"] is None and data["dates"] is None
    assert data["buckets"][0]["mean_forward_return"]["withheld_reason"] == (
        "the run sealed no decisions (no cross-sections to bucket)"
    )
    assert data["spread"]["mean"]["status"] == "not_measurable"
    assert any(w["code"] == "kind_missing" and w.get("kind") == "decisions" for w in body["meta"]["warnings"])


def test_the_in_process_figure_is_the_served_one(api: Api, demo_lake: Path) -> None:
    import datetime as dt

    import msgspec

    from analytics.errors import BadParameters
    from analytics.figures import Figures

    figures = Figures.open(str(demo_lake))
    try:
        served = api.ok(
            PATH.format("Test_planted_factor"), score="raw_score", quantiles=7, **{"from": "2021-04-01"}
        )
        found = figures.quantiles(
            "Test_planted_factor", score="raw_score", quantiles=7, start=dt.date(2021, 4, 1)
        )
        assert json.loads(msgspec.json.encode(found)) == served["data"]
        with pytest.raises(BadParameters) as refused:
            figures.quantiles("Test_planted_factor", quantiles=12)
        assert list(refused.value.problems) == ["quantiles"]
    finally:
        figures.reader.close()


def test_a_build_published_before_the_quantile_tables_is_not_built(demo_lake: Path) -> None:
    """A build from before issue 36's tables (its weekly_signal there, analytics_quantiles not):
    503 analytics_not_built naming the table, never an empty answer."""
    from analytics.access import FULL_ACCESS
    from analytics.entries import Warnings
    from analytics.errors import AnalyticsNotBuilt
    from analytics.figures import Figures
    from analytics.quantiles import quantiles_payload

    figures = Figures.open(str(demo_lake))
    try:
        view = figures.build("momentum_12_1")

        class Older:
            """The build as an older pipeline published it: without the two tables."""

            alpha_id, build_id, entry, kinds_present = (
                view.alpha_id,
                view.build_id,
                view.entry,
                view.kinds_present,
            )

            def table(self, name: str) -> Any:
                return None if name in ("analytics_quantiles", "analytics_sector_ic") else view.table(name)

            def memo(self, key: str, compute: Any) -> Any:
                return compute()

        with pytest.raises(AnalyticsNotBuilt, match="analytics_quantiles"):
            quantiles_payload(Older(), "score", 5, (None, None), FULL_ACCESS, Warnings())
    finally:
        figures.reader.close()
