"""`/analytics/sub_universe` (issue 62 item 6): the known answers on synthetic cross-sections (a
signal planted only in illiquid names fails the sub-universe test, its liquid IC about 0; random
halves centre on the full IC), and the served answer on the demo against an independent pandas and
scipy recomputation from the lake's decisions and exposures Parquet (no code of `analytics/`)."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats

from analytics import sub_universe
from analytics.entries import Warnings
from tests.analytics.conftest import Api, Window, random_windows, window_params
from tests.analytics.reference import Lake
from tests.support.build_tables import build_pandas, has_table

PATH = "/v1/alphas/{}/analytics/sub_universe"
WITH_EXPOSURES = ["momentum_12_1", "Test_planted_factor", "Test_small_universe"]
WEEKS_PER_YEAR = 52
RATIO, DRAWS, SEED = 0.75, 50, 20261122
pytestmark = pytest.mark.filterwarnings("ignore:An input array is constant")


# -- synthetic cross-sections ---------------------------------------------------------------------


def synthetic(
    weeks: int, names: int, liquid_strength: float, illiquid_strength: float, seed: int
) -> pl.DataFrame:
    """Weekly cross-sections: a score, a log-normal adv, a forward return = strength x score + noise,
    with the strength of the week's liquid names (adv >= median) and of the illiquid ones."""
    rng = np.random.default_rng(seed)
    frames = []
    for w in range(weeks):
        adv = rng.lognormal(0.0, 1.0, names)
        score = rng.normal(size=names)
        liquid = adv >= np.median(adv)
        strength = np.where(liquid, liquid_strength, illiquid_strength)
        frames.append(
            pl.DataFrame(
                {
                    "date": [dt.date(2020, 1, 3) + dt.timedelta(weeks=w)] * names,
                    "symbol": [f"S{i:04d}" for i in range(names)],
                    "score": score,
                    "forward_return": strength * score + rng.normal(size=names),
                    "adv": adv,
                }
            )
        )
    return pl.concat(frames)


def figures(frame: pl.DataFrame) -> dict[str, Any]:
    """The answer's figures over the whole history of `frame`: the pipeline's table and, for the
    full cross-section, each week's Spearman by scipy."""
    table = sub_universe.sub_universe_frame(
        frame.drop("adv"), frame.select("date", "symbol", "adv")
    ).to_arrow()
    full_days, full_ic, full_n = [], [], []
    for (day,), week in frame.sort("date").group_by(["date"], maintain_order=True):
        full_days.append((day - dt.date(1970, 1, 1)).days)
        full_ic.append(stats.spearmanr(week["score"], week["forward_return"]).statistic)
        full_n.append(week.height)
    full = (np.array(full_days, np.int32), np.array(full_ic), np.array(full_n, float))
    found = sub_universe.measure(sub_universe.weeks_of(table), full, (None, None), WEEKS_PER_YEAR, Warnings())
    return msgspec.to_builtins(found)  # type: ignore[no-any-return]


def test_a_signal_planted_only_in_illiquid_names_fails() -> None:
    found = figures(synthetic(60, 200, 0.0, 0.3, seed=1))
    liquid, illiquid = found["halves"]
    assert liquid["half"] == "liquid" and illiquid["half"] == "illiquid"
    # The liquid half holds no signal: its mean IC within 3 standard errors of 0 (1/sqrt(100 names)
    # a week, over 60 weeks).
    assert abs(liquid["half_mean_ic"]) < 3 / math.sqrt(99) / math.sqrt(60)
    assert illiquid["half_mean_ic"] > 0.2
    assert found["universe_icir"] > 0
    assert liquid["passes"] is False and found["passes"] is False
    assert liquid["sub_universe"] < RATIO
    assert illiquid["passes"] is True
    assert liquid["half_mean_names"] == illiquid["half_mean_names"] == 100


def test_a_signal_everywhere_passes_on_both_halves() -> None:
    found = figures(synthetic(60, 200, 0.3, 0.3, seed=2))
    assert [half["passes"] for half in found["halves"]] == [True, True]
    assert found["passes"] is True and found["random"]["random_pass_share"] == 1.0


def test_random_halves_centre_on_the_full_ic() -> None:
    found = figures(synthetic(60, 200, 0.1, 0.1, seed=3))
    full, random = found["universe_mean_ic"], found["random"]
    assert random["draws"] == DRAWS and random["seed"] == SEED
    # A random half's weekly IC differs from the full one's by about sqrt(1/100 - 1/200) per week;
    # the mean over 60 weeks and 50 draws (not independent: they share the week's names) by far less
    # than that over sqrt(60).
    assert abs(random["random_mean_ic"] - full) < 3 * math.sqrt(1 / 100 - 1 / 200) / math.sqrt(60)
    assert random["random_mean_ic_p05"] <= full <= random["random_mean_ic_p95"]
    assert random["random_mean_ic_p05"] <= random["random_mean_ic"] <= random["random_mean_ic_p95"]


def test_names_without_an_adv_are_in_neither_half() -> None:
    frame = synthetic(8, 40, 0.2, 0.2, seed=4).with_columns(
        adv=pl.when(pl.col("symbol") < "S0010").then(None).otherwise(pl.col("adv"))
    )
    table = sub_universe.sub_universe_frame(frame.drop("adv"), frame.select("date", "symbol", "adv"))
    counts = table.group_by("part").agg(pl.col("names").sum()).sort("part")
    by_part = dict(zip(counts["part"].to_list(), counts["names"].to_list(), strict=True))
    assert by_part[sub_universe.WITHOUT_ADV] == 8 * 10
    assert by_part[sub_universe.LIQUID] + by_part[sub_universe.ILLIQUID] == 8 * 30
    assert by_part[sub_universe.FIRST_DRAW] == 8 * 20  # a random half is drawn from all 40 names


def test_no_adv_at_all_is_warned_and_the_halves_not_measurable() -> None:
    frame = synthetic(6, 30, 0.2, 0.2, seed=5).with_columns(adv=pl.lit(None, pl.Float64))
    table = sub_universe.sub_universe_frame(
        frame.drop("adv"), frame.select("date", "symbol", "adv")
    ).to_arrow()
    days = np.unique(table.column("date").cast("int32").to_numpy())
    warnings = Warnings()
    found = sub_universe.measure(
        sub_universe.weeks_of(table), (days, np.full(days.size, 0.1), np.full(days.size, 30.0)),
        (None, None), WEEKS_PER_YEAR, warnings,
    )  # fmt: skip
    assert [h.weeks for h in found["halves"]] == [0, 0] and found["passes"] is None
    assert found["without_adv_mean_names"] == 30
    assert [w.code for w in warnings.entries] == ["insufficient_data"]


# -- the demo, against pandas ---------------------------------------------------------------------


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """The weekly IC's rule, by scipy: NaN below 3 pairs or when a side is constant."""
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(stats.spearmanr(x, y).statistic)


def icir(ic: list[float]) -> float:
    s = pd.Series(ic, dtype=float).dropna()
    if s.size < 2 or s.std(ddof=1) == 0:
        return math.nan
    return float(s.mean() / s.std(ddof=1) * math.sqrt(WEEKS_PER_YEAR))


def expected(lake: Lake, alpha: str, window: Window) -> dict[str, Any]:
    decisions = lake.decisions(alpha)
    assert decisions is not None
    exposures = build_pandas(lake.build(alpha), "exposures")[["date", "symbol", "adv"]].copy()
    exposures["date"] = pd.to_datetime(exposures["date"]).dt.strftime("%Y-%m-%d")
    rows = decisions[["date", "symbol", "score", "forward_return"]].dropna()
    rows = rows[np.isfinite(rows["score"]) & np.isfinite(rows["forward_return"])]
    rows = rows.merge(exposures, on=["date", "symbol"], how="left").sort_values(["date", "symbol"])
    if window[0] is not None:
        rows = rows[rows["date"] >= window[0]]
    if window[1] is not None:
        rows = rows[rows["date"] <= window[1]]
    full: list[float] = []
    full_n: list[int] = []
    parts: dict[str, list[tuple[float, int]]] = {"liquid": [], "illiquid": []}
    draws: list[list[tuple[float, int]]] = [[] for _ in range(DRAWS)]
    without = []
    for date, week in rows.groupby("date", sort=True):
        x, y = week["score"].to_numpy(float), week["forward_return"].to_numpy(float)
        full.append(spearman(x, y))
        full_n.append(x.size)
        adv = week["adv"].to_numpy(float)
        has = np.isfinite(adv) & (adv > 0)
        median = np.median(adv[has]) if has.any() else math.inf
        liquid = has & (adv >= median)
        without.append(int((~has).sum()))
        for name, mask in (("liquid", liquid), ("illiquid", has & ~liquid)):
            parts[name].append((spearman(x[mask], y[mask]), int(mask.sum())))
        day = (dt.date.fromisoformat(str(date)) - dt.date(1970, 1, 1)).days
        keys = np.random.default_rng([SEED, day]).random((DRAWS, x.size))
        for r in range(DRAWS):
            chosen = np.argsort(keys[r])[: (x.size + 1) // 2]
            draws[r].append((spearman(x[chosen], y[chosen]), chosen.size))
    measured = [n for ic, n in zip(full, full_n, strict=True) if math.isfinite(ic)]
    n_full = float(np.mean(measured))
    full_icir = icir(full)

    def half(pairs: list[tuple[float, int]]) -> dict[str, Any]:
        ics = [ic for ic, _ in pairs]
        names = [n for ic, n in pairs if math.isfinite(ic)]
        n_sub = float(np.mean(names)) if names else math.nan
        ir = icir(ics)
        ratio = ir / (math.sqrt(n_sub / n_full) * full_icir) if full_icir > 0 else math.nan
        return {
            "weeks": len(names),
            "half_mean_names": n_sub,
            "half_mean_ic": float(pd.Series(ics).mean()),
            "half_icir": ir,
            "required_icir": RATIO * math.sqrt(n_sub / n_full) * full_icir if full_icir > 0 else math.nan,
            "sub_universe": ratio,
            "passes": None if math.isnan(ratio) else ratio >= RATIO,
        }

    halves = [half(parts["liquid"]), half(parts["illiquid"])]
    drawn = [half(pairs) for pairs in draws]
    means = np.array([d["half_mean_ic"] for d in drawn])
    irs = np.array([d["half_icir"] for d in drawn])
    ratios = np.array([d["sub_universe"] for d in drawn])
    return {
        "weeks": len(measured),
        "universe_mean_names": n_full,
        "universe_mean_ic": float(pd.Series(full).mean()),
        "universe_icir": full_icir,
        "without_adv_mean_names": float(np.mean(without)),
        "halves": halves,
        "random": {
            "random_mean_ic": float(means.mean()),
            "random_mean_ic_p05": float(np.percentile(means, 5)),
            "random_mean_ic_p95": float(np.percentile(means, 95)),
            "random_icir": float(np.nanmean(irs)),
            "random_icir_p05": float(np.nanpercentile(irs, 5)),
            "random_icir_p95": float(np.nanpercentile(irs, 95)),
            "random_pass_share": float(np.mean(ratios[np.isfinite(ratios)] >= RATIO))
            if np.isfinite(ratios).any()
            else math.nan,
        },
        "passes": halves[0]["passes"],
    }


def close(a: Any, b: Any) -> bool:
    if isinstance(b, float) and math.isnan(b):
        return a is None
    if isinstance(b, float):
        return a is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


@pytest.mark.parametrize("alpha", WITH_EXPOSURES)
def test_the_served_answer_is_pandas_on_the_demo(api: Api, lake: Lake, alpha: str) -> None:
    for window in random_windows(f"sub_universe:{alpha}", 2):
        data = api.ok(PATH.format(alpha), **window_params(window))["data"]
        if window != (None, None) and not data["weeks"]:
            continue
        assert data["status"] == "available" and data["pass_ratio"] == RATIO
        want = expected(lake, alpha, window)
        for name in (
            "weeks",
            "universe_mean_names",
            "universe_mean_ic",
            "universe_icir",
            "without_adv_mean_names",
        ):
            assert close(data[name], want[name]), (alpha, window, name, data[name], want[name])
        for got, wanted in zip(data["halves"], want["halves"], strict=True):
            for name, value in wanted.items():
                assert close(got[name], value), (alpha, window, got["half"], name, got[name], value)
        for name, value in want["random"].items():
            assert close(data["random"][name], value), (alpha, window, name, data["random"][name], value)
        assert data["passes"] == want["passes"]


def test_the_full_ic_is_the_one_metrics_rebuilds(api: Api, lake: Lake) -> None:
    signal = lake.weekly_signal("momentum_12_1")
    assert signal is not None
    data = api.ok(PATH.format("momentum_12_1"))["data"]
    assert close(data["universe_mean_ic"], float(signal["ic"].mean()))


def test_without_exposures_it_is_not_measurable_and_warned(api: Api, lake: Lake) -> None:
    for alpha in ("value_composite_legacy", "Test_low_vol_incomplete"):
        assert not has_table(lake.build(alpha), "exposures")
        body = api.ok(PATH.format(alpha))
        data = body["data"]
        assert data["status"] == "not_measurable" and data["halves"] is None and data["random"] is None
        assert data["withheld_reason"].startswith("missing_kind: the run sealed no exposures")
        assert any(
            w["code"] == "kind_missing" and w.get("kind") == "exposures" for w in body["meta"]["warnings"]
        )


def test_a_key_without_the_cross_sections_sees_it_withheld(api: Api) -> None:
    body = api.get(PATH.format("momentum_12_1"), token="no_signals")
    assert body.status_code == 200, body.text
    data = body.json()["data"]
    assert data["status"] == "not_measurable" and data["withheld_reason"].startswith("access_limited")
    assert data["universe_icir"] is None and data["halves"] is None


@pytest.mark.parametrize(
    ("params", "named"),
    [({"from": "2022-02-30"}, "from"), ({"from": "2022-02-01", "to": "2022-01-01"}, "from")],
)
def test_bad_input_is_a_400_naming_the_parameter(api: Api, params: dict[str, str], named: str) -> None:
    body = api.get(PATH.format("momentum_12_1"), **params)
    assert body.status_code == 400, body.text
    assert named in [p["name"] for p in body.json()["error"]["details"]["parameters"]]


def test_the_optional_check_is_the_liquid_halfs_ratio(api: Api) -> None:
    checks = "/v1/alphas/{}/analytics/checks"
    off = api.ok(checks.format("Test_planted_factor"))["data"]
    assert "sub_universe" not in {c["id"] for c in off["checks"]}
    for alpha in WITH_EXPOSURES:
        figures = api.ok(PATH.format(alpha))["data"]
        on = api.ok(checks.format(alpha), min_sub_universe=RATIO)["data"]
        entry = next(c for c in on["checks"] if c["id"] == "sub_universe")
        liquid = figures["halves"][0]
        assert entry["value"] == liquid["sub_universe"], (alpha, entry)
        if liquid["passes"] is None:
            assert entry["verdict"] == "not_measurable"
        else:
            assert entry["verdict"] == ("pass" if liquid["passes"] else "fail"), (alpha, entry)
    plain = api.ok(checks.format("value_composite_legacy"), min_sub_universe=RATIO)["data"]
    entry = next(c for c in plain["checks"] if c["id"] == "sub_universe")
    assert entry["verdict"] == "not_measurable" and "exposures" in entry["reason"]


def test_the_seed_is_the_services_one_seed() -> None:
    from analytics import bootstrap
    from schemas.bodies import sub_universe as body

    assert body.SEED == bootstrap.SEED == SEED
