"""Regimes of SPY (issue 50, item 5): the labels the pipeline stores beside the benchmark, recomputed
with pandas from its published daily closes; `/analytics/regimes` and `/analytics/costs?regime=`
recomputed from the lake's files over each regime's sessions within 1e-9; every dimension's
regimes and its unlabelled sessions add back up to the window (sessions, weeks, and each figure over
their union is the unfiltered one); a bad `regime` is a 400 naming it and its values; a key that may
not read SPY sees no figure split by its regimes; a benchmark build published before the regimes is
a 503, never a 500."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import CALLERS, Api, endpoints_only, serving, window_params
from tests.analytics.helpers import check_withheld
from tests.callers import DATA_IDS
from tests.conftest import linked_copy

TOLERANCE = 1e-9
PATH = "/v1/alphas/{}/analytics/regimes"
COSTS = "/v1/alphas/{}/analytics/costs"
DIMENSIONS = {
    "trend": ("up", "down", "unlabelled"),
    "volatility": ("low", "mid", "high", "unlabelled"),
    "drawdown": ("in", "out", "unlabelled"),
}
ALL_REGIMES = [f"{d}:{label}" for d, labels in DIMENSIONS.items() for label in labels]
WINDOWS: list[ref.Window] = [(None, None), ("2021-06-01", "2022-01-31"), ("2021-11-15", None)]
ALPHAS = ("momentum_12_1", "value_composite_legacy", "Test_ledger_only", "Test_planted_factor")
NO_BENCHMARK = endpoints_only(frozenset(DATA_IDS - {"benchmarks.daily"}))


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def ratio(r: np.ndarray) -> float | None:
    r = r[np.isfinite(r)]
    if r.size < 2:
        return None
    sd = float(pd.Series(r).std(ddof=1))
    return float(r.mean()) / sd * math.sqrt(252) if sd > 0 else None


@pytest.fixture(scope="module")
def regimes_api(demo_lake: Path) -> Iterator[Api]:
    with serving(demo_lake, {**CALLERS, "no_benchmark": NO_BENCHMARK}) as found:
        yield found


def spy_build(lake: ref.Lake) -> Path:
    current = json.loads((lake.root / "benchmarks" / "SPY" / "_current.json").read_text())
    return lake.root / "benchmarks" / "SPY" / "builds" / current["build_id"]


@pytest.fixture(scope="module")
def labels(lake: ref.Lake) -> pd.DataFrame:
    """SPY's labels by ISO date, written again from the published daily closes: pandas rolling
    means, rolling standard deviations, quantiles and running maxima."""
    daily = pd.read_parquet(spy_build(lake) / "daily.parquet")
    daily["date"] = ref.iso(daily["date"])
    daily = daily.sort_values("date").reset_index(drop=True)
    basis = "adjusted_close" if daily["adjusted_close"].notna().all() else "close"
    price = daily[basis].astype(float)
    average = price.rolling(200).mean()
    vol = price.pct_change().rolling(63).std(ddof=1) * math.sqrt(252)
    low, high = vol.dropna().quantile([1 / 3, 2 / 3]).to_numpy()
    drawdown = 1.0 - price / price.cummax()
    frame = pd.DataFrame(
        {
            "date": daily["date"],
            "price": price,
            "trend_average": average,
            "realised_volatility": vol,
            "drawdown": drawdown,
            "trend": np.where(average.isna(), "unlabelled", np.where(price > average, "up", "down")),
            "volatility": np.where(
                vol.isna(), "unlabelled", np.where(vol <= low, "low", np.where(vol <= high, "mid", "high"))
            ),
            "drawdown_regime": np.where(drawdown > 0.10, "in", "out"),
        }
    )
    frame.attrs["cuts"] = (float(low), float(high))
    return frame.set_index("date")


def label_of(labels: pd.DataFrame, dates: pd.Index, dimension: str) -> np.ndarray:
    column = "drawdown_regime" if dimension == "drawdown" else dimension
    return labels[column].reindex(dates).fillna("unlabelled").to_numpy(object)


# -- the stored labels ------------------------------------------------------------------------------


def test_the_stored_labels_are_pandas_labels(lake: ref.Lake, labels: pd.DataFrame) -> None:
    with pa.memory_map(str(spy_build(lake) / "serving" / "regimes.arrow")) as source:
        stored = pa.ipc.open_file(source).read_all().to_pandas()
    stored["date"] = ref.iso(stored["date"])
    stored = stored.set_index("date")
    assert list(stored.index) == list(labels.index)
    for column in ("trend", "volatility", "drawdown_regime"):
        assert list(stored[column].fillna("unlabelled")) == list(labels[column]), column
    for column in ("price", "trend_average", "realised_volatility", "drawdown"):
        a, b = stored[column].to_numpy(float), labels[column].to_numpy(float)
        assert np.array_equal(np.isnan(a), np.isnan(b)), column
        assert np.allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=TOLERANCE, atol=TOLERANCE), column
    low, high = labels.attrs["cuts"]
    assert close(float(stored["volatility_low_cut"].iloc[0]), low)
    assert close(float(stored["volatility_high_cut"].iloc[0]), high)
    # The first 199 sessions have no trend, the first 63 no volatility; every session a drawdown.
    assert (labels["trend"].iloc[:199] == "unlabelled").all() and labels["trend"].iloc[199] != "unlabelled"
    assert (labels["volatility"].iloc[:63] == "unlabelled").all()
    assert labels["volatility"].iloc[63] != "unlabelled"


# -- the per-regime table -------------------------------------------------------------------------


def expected_rows(
    lake: ref.Lake, labels: pd.DataFrame, alpha: str, window: ref.Window
) -> dict[str, dict[str, Any]]:
    r = lake.returns(alpha, "long_short", window)
    ic = lake.ic(alpha, window).dropna()
    sealed_ic = lake.weekly_signal(alpha) is not None
    out = {"all": figures(r.to_numpy(float), ic.to_numpy(float), sealed_ic)}
    for dimension, names in DIMENSIONS.items():
        on_sessions = label_of(labels, pd.Index(r.index), dimension)
        on_weeks = label_of(labels, pd.Index(ic.index), dimension)
        for label in names:
            out[f"{dimension}:{label}"] = figures(
                r.to_numpy(float)[on_sessions == label], ic.to_numpy(float)[on_weeks == label], sealed_ic
            )
    return out


def figures(r: np.ndarray, ic: np.ndarray, sealed_ic: bool) -> dict[str, Any]:
    """`sealed_ic`: the run sealed decisions (else no week is counted, not even 0)."""
    return {
        "regime_sessions": int(r.size),
        "regime_weeks": int(ic.size) if sealed_ic else None,
        "information_ratio": ratio(r),
        "rebuilt_mean_ic": float(ic.mean()) if ic.size else None,
        "rebuilt_hit_rate": float((ic > 0).sum()) / ic.size if ic.size else None,
    }


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("window", WINDOWS)
def test_each_regime_reproduces(
    regimes_api: Api, lake: ref.Lake, labels: pd.DataFrame, alpha: str, window: ref.Window
) -> None:
    body = regimes_api.ok(PATH.format(alpha), "plain", **window_params(window))
    data = body["data"]
    want = expected_rows(lake, labels, alpha, window)
    assert [row["regime"] for row in data["by_regime"]] == ["all", *ALL_REGIMES]
    low, high = labels.attrs["cuts"]
    assert close(data["volatility_low_cut"]["value"], low) and close(
        data["volatility_high_cut"]["value"], high
    )
    for row in data["by_regime"]:
        expected = want[row["regime"]]
        where = (alpha, window, row["regime"])
        assert (
            row["regime_sessions"] == expected["regime_sessions"]
            and row["regime_weeks"] == expected["regime_weeks"]
        ), where
        for name in ("information_ratio", "rebuilt_mean_ic", "rebuilt_hit_rate"):
            assert close(row[name]["value"], expected[name]), (where, name, row[name], expected[name])
    # The weak spot, from the recomputed rows: the lowest information ratio over a quarter or more.
    eligible = {
        regime: figures["information_ratio"]
        for regime, figures in want.items()
        if regime != "all"
        and not regime.endswith(":unlabelled")
        and figures["regime_sessions"] >= 63
        and figures["information_ratio"] is not None
    }
    weakest = min(eligible, key=lambda regime: eligible[regime]) if eligible else None
    assert data["weakest_regime"] == weakest, (alpha, window, eligible)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("window", WINDOWS)
def test_the_regimes_add_back_up_to_the_window(
    regimes_api: Api, lake: ref.Lake, labels: pd.DataFrame, alpha: str, window: ref.Window
) -> None:
    """Per dimension: sessions and weeks add up to row all's; the figures over the union of the
    regimes' sessions (pandas, concatenated) are the unfiltered ones, /analytics/costs' included."""
    data = regimes_api.ok(PATH.format(alpha), "plain", **window_params(window))["data"]
    rows = {row["regime"]: row for row in data["by_regime"]}
    whole = rows["all"]
    costs = regimes_api.ok(COSTS.format(alpha), "plain", **window_params(window))["data"]
    assert whole["regime_sessions"] == costs["sessions"]
    assert close(whole["information_ratio"]["value"], costs["information_ratio"]["net"]["value"])
    r = lake.returns(alpha, "long_short", window)
    ic = lake.ic(alpha, window).dropna()
    for dimension, names in DIMENSIONS.items():
        assert sum(rows[f"{dimension}:{n}"]["regime_sessions"] for n in names) == whole["regime_sessions"], (
            dimension
        )
        if whole["regime_weeks"] is not None:
            assert sum(rows[f"{dimension}:{n}"]["regime_weeks"] for n in names) == whole["regime_weeks"], (
                dimension
            )
        on_sessions = label_of(labels, pd.Index(r.index), dimension)
        on_weeks = label_of(labels, pd.Index(ic.index), dimension)
        union_r = np.concatenate([r.to_numpy(float)[on_sessions == n] for n in names])
        union_ic = np.concatenate([ic.to_numpy(float)[on_weeks == n] for n in names])
        assert close(ratio(union_r), whole["information_ratio"]["value"]), dimension
        assert close(float(union_ic.mean()) if union_ic.size else None, whole["rebuilt_mean_ic"]["value"])


def test_the_demo_exercises_the_regimes(regimes_api: Api) -> None:
    """The small demo's history holds sessions labelled in every dimension and unlabelled ones (a
    test over empty regimes only would prove nothing)."""
    rows = {
        r["regime"]: r for r in regimes_api.ok(PATH.format("momentum_12_1"), "plain")["data"]["by_regime"]
    }
    assert rows["trend:up"]["regime_sessions"] > 20 and rows["trend:unlabelled"]["regime_sessions"] > 20
    assert min(rows[f"volatility:{n}"]["regime_sessions"] for n in ("low", "mid", "high")) > 20
    assert rows["drawdown:out"]["regime_sessions"] > 20


def test_regime_keeps_one_row(regimes_api: Api) -> None:
    full = regimes_api.ok(PATH.format("momentum_12_1"), "plain")["data"]["by_regime"]
    one = regimes_api.ok(PATH.format("momentum_12_1"), "plain", regime="Volatility:High")["data"]
    assert one["regime"] == "volatility:high"  # matched case-insensitively, echoed as declared
    assert one["by_regime"] == [full[0], next(r for r in full if r["regime"] == "volatility:high")]


# -- regime= on /analytics/costs -------------------------------------------------------------------


@pytest.mark.parametrize("alpha", ("momentum_12_1", "value_composite_legacy"))
@pytest.mark.parametrize("window", WINDOWS[:2])
def test_costs_over_a_regime_reproduce_and_add_up(
    regimes_api: Api, lake: ref.Lake, labels: pd.DataFrame, alpha: str, window: ref.Window
) -> None:
    ledger = lake.ledger_in(alpha, "long_short", window)
    assert ledger is not None
    whole = regimes_api.ok(COSTS.format(alpha), "plain", **window_params(window))["data"]
    for dimension, names in DIMENSIONS.items():
        on = label_of(labels, pd.Index(ledger["date"]), dimension)
        sessions = net = cost = 0.0
        weeks = 0  # rebalance weeks of turnover_by_decile, split by their date's label
        for name in names:
            regime = f"{dimension}:{name}"
            data = regimes_api.ok(COSTS.format(alpha), "plain", regime=regime, **window_params(window))[
                "data"
            ]
            want = ref.cost_figures(ledger[on == name].reset_index(drop=True))
            assert data["sessions"] == want["sessions"], regime
            for key in ("net_pnl", "execution_cost", "gross_pnl", "traded_notional", "modelled_cost_bps"):
                assert close(data[key]["value"], want[key]), (regime, key, data[key], want[key])
            for side in ("net", "gross"):
                got = data["information_ratio"][side]["value"]
                assert close(got, want[f"information_ratio.{side}"]), (regime, side)
            sessions += data["sessions"]
            weeks += 0 if data["turnover_by_decile"] is None else data["turnover_by_decile"]["weeks"]
            net += data["net_pnl"]["value"] or 0.0
            cost += data["execution_cost"]["value"] or 0.0
        assert sessions == whole["sessions"], dimension
        assert weeks == whole["turnover_by_decile"]["weeks"] > 0, dimension
        assert close(net, whole["net_pnl"]["value"]) and close(cost, whole["execution_cost"]["value"]), (
            dimension
        )


# -- bad input, scope, old lakes ---------------------------------------------------------------------


@pytest.mark.parametrize("path", (PATH, COSTS))
@pytest.mark.parametrize("value", ("trend", "trend:sideways", "up", "volatility:", ""))
def test_a_bad_regime_is_a_400_naming_it(regimes_api: Api, path: str, value: str) -> None:
    response = regimes_api.get(path.format("momentum_12_1"), "plain", regime=value)
    assert response.status_code == 400, response.text
    problems = response.json()["error"]["details"]["parameters"]
    assert [p["name"] for p in problems] == ["regime"]
    assert all(r in problems[0]["rule"] for r in ALL_REGIMES), problems


def test_a_key_without_spy_sees_no_figure_split_by_its_regimes(regimes_api: Api) -> None:
    full = regimes_api.ok(PATH.format("momentum_12_1"), "plain")
    body = regimes_api.ok(PATH.format("momentum_12_1"), "no_benchmark")
    data = body["data"]
    assert data["by_regime"][0] == full["data"]["by_regime"][0]  # the window's own figures: no SPY in them
    for row in data["by_regime"][1:]:
        assert row["regime_sessions"] is None and row["regime_weeks"] is None, row
        for name in ("information_ratio", "rebuilt_mean_ic", "rebuilt_hit_rate"):
            check_withheld(row[name], (row["regime"], name))
            assert "benchmarks.daily" in row[name]["withheld_reason"]
    for name in ("volatility_low_cut", "volatility_high_cut"):
        check_withheld(data[name], name)
    assert data["weakest_regime"] is None  # no regime's figure, so no weak spot either
    assert {w["block"] for w in body["meta"]["warnings"] if w["code"] == "access_limited"} == {"regimes"}
    # A filter by SPY's labels is refused: unfiltered figures would pass for the regime's.
    refused = regimes_api.get(COSTS.format("momentum_12_1"), "no_benchmark", regime="trend:up")
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["details"]["endpoint"] == "benchmarks.daily"
    assert regimes_api.get(COSTS.format("momentum_12_1"), "no_benchmark").status_code == 200


@pytest.fixture(scope="module")
def old_lake(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A copy of the demo lake whose SPY build was published before the regimes: no regimes table
    in its files or its manifest."""
    copy = linked_copy(demo_lake, tmp_path_factory.mktemp("old") / "lake")
    build = spy_build(ref.Lake(copy))
    (build / "serving" / "regimes.arrow").unlink()
    info = json.loads((build / "benchmark.json").read_text())
    info["files"] = {k: v for k, v in info["files"].items() if "regimes" not in k}
    (build / "benchmark.json").write_text(json.dumps(info))
    with serving(copy, CALLERS) as found:
        yield found


def test_a_spy_build_without_regimes_is_a_503(old_lake: Api) -> None:
    for path, params in ((PATH, {}), (COSTS, {"regime": "trend:up"})):
        response = old_lake.get(path.format("momentum_12_1"), "plain", **params)
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "analytics_not_built" and error["details"]["symbol"] == "SPY"
    assert old_lake.get(COSTS.format("momentum_12_1"), "plain").status_code == 200


@pytest.mark.parametrize("sessions", (0, 1, 5, 63, 64, 200))
def test_a_short_series_is_labelled_where_it_can_be(sessions: int) -> None:
    """A benchmark with too little history for a label has none in that dimension (and no cut points
    without one volatility); never an error at publish."""
    import datetime as dt

    from analytics.regimes import regime_table

    days = [dt.date(2021, 1, 4) + dt.timedelta(days=i) for i in range(sessions)]
    price = 100.0 * np.cumprod(1.0 + 0.01 * np.sin(np.arange(sessions)))
    daily = pa.table(
        {"date": pa.array(days, pa.date32()), "close": pa.array(price), "adjusted_close": pa.array(price)}
    )
    table = regime_table(daily).to_pandas()
    assert len(table) == sessions
    assert table["trend"].notna().sum() == max(0, sessions - 199)
    assert table["volatility"].notna().sum() == max(0, sessions - 63)
    assert (table["drawdown_regime"].isin(["in", "out"])).all()
    if sessions <= 63:
        assert table["volatility_low_cut"].isna().all()
