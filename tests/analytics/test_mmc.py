"""/analytics/mmc (an alpha's meta-model contribution against the approved alphas' combined scores)
and /analytics/crowding (overlap and shared factor loadings of the approved books), issue 50 item
8 and issue 65 item 3, recomputed independently from the lake's Parquet files within 1e-9:

- each week the mmc is Numerai's own `numerai_tools.scoring.correlation_contribution` (the
  reference, not a copy of it), called with the alpha's decisions.score as the predictions, the
  meta-model (each approved alpha's decisions.score rank-gaussianised with scipy.stats.norm.ppf of
  (average rank - 0.5) / n, their mean per name) and decisions.forward_return as the target, over
  the names the three share that week; the mean and its t-stat; a hand example of four names whose
  answer is written out;
- each week, the books' long_short target weights at unit gross: sum min(|w_i|, |w_j|) and the
  Jaccard of held names, averaged over pairs; the factor exposures' mean and std across books;

and the scope: only approved alphas the key may read are combined, counted or named (a key
reading no approved alpha is told mmc is not measurable and why), the alpha itself is never among
them, and a key without the cross-sections is refused."""

from __future__ import annotations

import datetime as dt
import json
import math
from itertools import combinations
from pathlib import Path
from statistics import NormalDist
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import polars as pl
import pytest
from numerai_tools.scoring import correlation_contribution
from scipy import stats

from analytics import mmc
from analytics.figures import Figures
from analytics.standings import Standings
from core.context import AllowList
from tests.analytics.conftest import PRODUCTION, Api, Window, random_windows, serving, window_params
from tests.analytics.reference import Lake, in_window
from tests.callers import make_caller
from tests.support.build_tables import build_pandas, has_table

MMC = "/v1/alphas/{alpha}/analytics/mmc"
CROWDING = "/v1/analytics/crowding"
TOL = 1e-9


def gaussianised(frame: pd.DataFrame) -> pd.Series:
    """Phi^-1((rank - 0.5) / n) of each week's finite scores, average ranks."""
    kept = frame[np.isfinite(frame["score"].astype(float))]
    ranks = kept.groupby("date")["score"].rank(method="average")
    n = kept.groupby("date")["score"].transform("count")
    return pd.Series(
        stats.norm.ppf((ranks - 0.5) / n), index=pd.MultiIndex.from_frame(kept[["date", "symbol"]])
    )


def numerai_mmc(week: pd.DataFrame) -> float:
    """Numerai's MMC of one week's (symbol, score, c, forward_return), as numerai-tools computes it.

    Numerai's bucket rescale (the target times 4 when all of it lies in [0, 1]: its own targets'
    encoding) is not ours: the served figure takes the forward return as it is (analytics/mmc.py),
    so such a week's reference is divided by that 4."""
    week = week.set_index("symbol").sort_index()
    target = week["forward_return"]
    got = float(correlation_contribution(week[["score"]], week["c"], target).iloc[0])
    return got / 4 if bool(((target >= 0) & (target <= 1)).all()) else got


def expected_mmc(lake: Lake, alpha: str, members: list[str], window: Window) -> pd.DataFrame:
    """Per week with an mmc: (date, mmc, names, corr, k)."""
    own = lake.decisions(alpha)
    assert own is not None
    own = own[np.isfinite(own["score"].astype(float))]
    g_a = gaussianised(own).rename("ga")
    each = pd.concat([gaussianised(lake.decisions(m)) for m in members], axis=1)
    combined = pd.concat([each.mean(axis=1).rename("c"), each.notna().sum(axis=1).rename("k")], axis=1)
    fwd = own.set_index(["date", "symbol"])[["score", "forward_return"]].astype(float)
    frame = pd.concat([g_a, combined], axis=1, join="inner").join(fwd).reset_index()
    frame = frame[np.isfinite(frame["forward_return"]) & in_window(frame["date"], window)]
    rows = []
    for day, week in frame.groupby("date"):
        if len(week) < 3 or np.ptp(week["c"].to_numpy()) == 0:  # too few names, or no meta-model
            continue
        corr = np.corrcoef(week["ga"], week["c"])[0, 1] if np.ptp(week["ga"].to_numpy()) > 0 else math.nan
        rows.append((day, numerai_mmc(week), len(week), float(corr), int(week["k"].max())))
    return pd.DataFrame(rows, columns=["date", "mmc", "names", "corr", "k"])


def unit_weights(lake: Lake, alpha: str) -> dict[str, pd.Series]:
    """Per date: |w| / sum |w| of the non-zero long_short target weights, by symbol."""
    d = lake.decisions(alpha)
    assert d is not None
    w = d[np.isfinite(d["long_short_target_weight"]) & (d["long_short_target_weight"] != 0)]
    return {
        day: (
            part.set_index("symbol")["long_short_target_weight"].abs()
            / part["long_short_target_weight"].abs().sum()
        )
        for day, part in w.groupby("date")
    }


def expected_overlap(
    lake: Lake, books: list[str], window: Window, others: list[str] | None = None
) -> pd.DataFrame:
    """Per week with a pair: (date, overlap, jaccard, pairs)."""
    weights = {a: unit_weights(lake, a) for a in books + (others or [])}
    pairs = list(combinations(books, 2)) if others is None else [(a, b) for a in books for b in others]
    days = sorted({d for a in weights for d in weights[a]})
    rows = []
    for day in days:
        if not in_window(pd.Series([day]), window).iloc[0]:
            continue
        found = []
        for a, b in pairs:
            if day not in weights[a] or day not in weights[b]:
                continue
            wa, wb = weights[a][day], weights[b][day]
            both = wa.index.intersection(wb.index)
            overlap = float(np.minimum(wa[both], wb[both]).sum())
            found.append((overlap, len(both) / len(wa.index.union(wb.index)), a, b))
        if found:
            books = len({f[2] for f in found} | {f[3] for f in found})
            rows.append(
                (day, np.mean([f[0] for f in found]), np.mean([f[1] for f in found]), len(found), books)
            )
    return pd.DataFrame(rows, columns=["date", "overlap", "jaccard", "pairs", "books"])


def check_mmc(data: dict[str, Any], want: pd.DataFrame) -> None:
    got = data["weekly"]
    assert [w["date"] for w in got] == list(want["date"])
    for w, (_, e) in zip(got, want.iterrows(), strict=True):
        assert w["mmc"] == pytest.approx(e["mmc"], abs=TOL)
        assert w["mmc_names"] == e["names"]
        assert w["approved_scoring"] == e["k"]
        if math.isnan(e["corr"]):
            assert w["correlation_to_combined"] is None
        else:
            assert w["correlation_to_combined"] == pytest.approx(e["corr"], abs=TOL)
    assert data["mmc_weeks"] == len(want)
    mmc = want["mmc"].to_numpy()
    if len(mmc):
        assert data["mmc_mean"]["value"] == pytest.approx(mmc.mean(), abs=TOL)
        assert data["correlation_to_combined_mean"]["value"] == pytest.approx(
            np.nanmean(want["corr"]), abs=TOL
        )
    if len(mmc) >= 2:
        t = mmc.mean() / (mmc.std(ddof=1) / math.sqrt(len(mmc)))
        assert data["mmc_t_stat"]["value"] == pytest.approx(t, rel=1e-9)


def check_overlap(rows: list[dict[str, Any]], want: pd.DataFrame) -> None:
    assert [r["date"] for r in rows] == list(want["date"])
    for r, (_, e) in zip(rows, want.iterrows(), strict=True):
        assert r["weight_overlap"] == pytest.approx(e["overlap"], abs=TOL)
        assert r["name_jaccard"] == pytest.approx(e["jaccard"], abs=TOL)
        assert r["book_pairs"] == e["pairs"]
        assert r["approved_books"] == e["books"]


# -- through the API: the demo's approvals (its seals approve the production alphas) ---------------


@pytest.mark.parametrize("window", random_windows("mmc", 2))
def test_mmc_of_an_approved_alpha_excludes_itself(api: Api, lake: Lake, window: Window) -> None:
    data = api.ok(MMC.format(alpha="momentum_12_1"), **window_params(window))["data"]
    assert data["approved"] == {
        "alphas": ["value_composite_legacy"],
        "approved_count": 1,
        "alpha_excluded": True,
    }
    want = expected_mmc(lake, "momentum_12_1", ["value_composite_legacy"], window)
    check_mmc(data, want)
    own = expected_overlap(lake, ["momentum_12_1"], window, ["value_composite_legacy"])
    check_overlap(data["overlap_weekly"], own)
    if len(own):
        assert data["weight_overlap_with_approved"]["value"] == pytest.approx(own["overlap"].mean(), abs=TOL)


def test_mmc_of_an_alpha_not_approved_combines_every_approved_one(api: Api, lake: Lake) -> None:
    data = api.ok(MMC.format(alpha="Test_planted_factor"))["data"]
    assert data["approved"] == {"alphas": sorted(PRODUCTION), "approved_count": 2, "alpha_excluded": False}
    check_mmc(data, expected_mmc(lake, "Test_planted_factor", sorted(PRODUCTION), (None, None)))
    assert data["mmc_weeks"] > 20  # the known answer is not vacuous


def test_crowding_of_the_approved_books(api: Api, lake: Lake) -> None:
    window: Window = ("2021-03-01", "2021-12-31")
    data = api.ok(CROWDING, **window_params(window))["data"]
    assert data["approved"]["alphas"] == sorted(PRODUCTION)
    want = expected_overlap(lake, sorted(PRODUCTION), window)
    assert len(want) > 20
    check_overlap(data["weekly"], want)
    assert data["weight_overlap_mean"]["value"] == pytest.approx(want["overlap"].mean(), abs=TOL)
    assert data["name_jaccard_mean"]["value"] == pytest.approx(want["jaccard"].mean(), abs=TOL)
    check_factors(lake, data["factors"], sorted(PRODUCTION), window)


def check_factors(lake: Lake, got: list[dict[str, Any]], books: list[str], window: Window) -> None:
    frames = []
    for a in books:
        if not has_table(lake.build(a), "analytics_factor_exposures"):  # a legacy build without factor tables
            continue
        e = build_pandas(lake.build(a), "analytics_factor_exposures")
        e = e[(e["book"] == "long_short") & np.isfinite(e["exposure"].astype(float))].copy()
        e["date"] = pd.to_datetime(e["date"]).dt.strftime("%Y-%m-%d")
        frames.append(e[in_window(e["date"], window)])
    if len(frames) < 2:
        assert got == []
        return
    weekly = (
        pd.concat(frames)
        .groupby(["date", "factor"])["exposure"]
        .agg(["mean", lambda x: x.std(ddof=0), "count"])
    )
    weekly.columns = ["m", "s", "n"]
    per = weekly[weekly["n"] >= 2].groupby("factor").agg(m=("m", "mean"), s=("s", "mean"), n=("m", "size"))
    assert [f["factor"] for f in got] == sorted(per.index)
    for f in got:
        e = per.loc[f["factor"]]
        assert f["combined_exposure"] == pytest.approx(e["m"], abs=TOL)
        assert f["exposure_dispersion"] == pytest.approx(e["s"], abs=TOL)
        assert f["factor_weeks"] == e["n"]


# -- scope: only approved alphas the key may read ----------------------------------------------------


def test_a_key_reading_no_approved_alpha_is_told_why(api: Api) -> None:
    data = api.ok(MMC.format(alpha="Test_planted_factor"), token="testonly")["data"]
    assert data["approved"] == {"alphas": [], "approved_count": 0, "alpha_excluded": False}
    assert data["mmc_mean"]["status"] == "not_measurable"
    assert "no approved alpha" in data["mmc_mean"]["withheld_reason"]
    assert data["weekly"] == [] and data["overlap_weekly"] == []
    crowding = api.ok(CROWDING, token="testonly")["data"]
    assert (
        crowding["approved"]["approved_count"] == 0 and crowding["weekly"] == [] and crowding["factors"] == []
    )
    assert crowding["weight_overlap_mean"]["status"] == "not_measurable"


def test_a_key_reading_one_approved_alpha_sees_it_alone(api: Api, lake: Lake) -> None:
    # momentum_only reads momentum_12_1 alone: value_composite_legacy is neither combined nor named.
    data = api.ok(MMC.format(alpha="momentum_12_1"), token="momentum_only")["data"]
    assert data["approved"] == {"alphas": [], "approved_count": 0, "alpha_excluded": True}
    assert data["mmc_mean"]["status"] == "not_measurable"
    crowding = api.ok(CROWDING, token="momentum_only")["data"]
    assert crowding["approved"] == {"alphas": ["momentum_12_1"], "approved_count": 1, "alpha_excluded": False}
    assert crowding["weekly"] == [] and "two books" in crowding["weight_overlap_mean"]["withheld_reason"]
    assert "value_composite_legacy" not in str(crowding) and "value_composite_legacy" not in str(data)


def test_a_key_reading_part_of_the_approved_set_gets_the_figures_of_that_part(
    demo_lake: Path, lake: Lake
) -> None:
    # Test_* and momentum_12_1: of the approved pair it reads momentum_12_1 alone, so Test_planted_factor's
    # mmc is against momentum_12_1's scores only (another figure than the full key's), and
    # value_composite_legacy is neither combined, counted nor named.
    partial = make_caller(
        alphas=AllowList.of_prefixes(["Test_", "momentum_12_1"]),
        runs=AllowList.of_prefixes(["Test_", "momentum_12_1"]),
    )
    with serving(demo_lake, {"partial": partial, "raw": make_caller(expose_raw_book=True)}) as api:
        data = api.ok(MMC.format(alpha="Test_planted_factor"), token="partial")["data"]
        full = api.ok(MMC.format(alpha="Test_planted_factor"), token="raw")["data"]
        crowding = api.ok(CROWDING, token="partial")["data"]
    assert data["approved"] == {"alphas": ["momentum_12_1"], "approved_count": 1, "alpha_excluded": False}
    check_mmc(data, expected_mmc(lake, "Test_planted_factor", ["momentum_12_1"], (None, None)))
    assert data["mmc_mean"]["value"] != pytest.approx(full["mmc_mean"]["value"], abs=1e-6)
    check_overlap(
        data["overlap_weekly"],
        expected_overlap(lake, ["Test_planted_factor"], (None, None), ["momentum_12_1"]),
    )
    assert crowding["approved"]["alphas"] == ["momentum_12_1"] and crowding["weekly"] == []
    assert "value_composite_legacy" not in json.dumps([data, crowding])


def test_a_key_without_the_cross_sections_is_refused(api: Api) -> None:
    for path in (MMC.format(alpha="momentum_12_1"), CROWDING):
        response = api.get(path, token="no_signals")
        assert response.status_code == 403, response.text
        assert "signals." in response.text


def test_bad_window_is_a_400(api: Api) -> None:
    response = api.get(MMC.format(alpha="momentum_12_1"), **{"from": "2022-01-01", "to": "2021-01-01"})
    assert response.status_code == 400, response.text


# -- a hand example: four names whose answer is written out ---------------------------------------


def test_mmc_of_four_names_by_hand() -> None:
    """Four names A-D (the alpha also scores E, which no approved alpha does, and the approved alpha
    F, which the alpha does not: neither is in the week). Over the four, the alpha ranks A < B < C
    < D and the meta-model B < A < C < D, so p = (-z1, -z2, z2, z1) and m = (-z2, -z1, z2, z1),
    z1 = Phi^-1(0.875), z2 = Phi^-1(0.625) (ranks 1-4 at (rank - 0.5) / 4). The alpha's own view
    is A below B, and A then returned 3 points more than B: its contribution is negative.
    The second week's meta-model is one value for every name (no projection: no mmc); the third's
    returns all lie in [0, 1], taken as they are (numerai-tools would multiply them by 4)."""
    z1, z2 = NormalDist().inv_cdf(0.875), NormalDist().inv_cdf(0.625)
    p = np.array([-z1, -z2, z2, z1])
    m = np.array([-z2, -z1, z2, z1])

    def by_hand(returns: list[float]) -> float:
        r = np.array(returns) - np.mean(returns)
        neutral = p - m * (p @ m) / (m @ m)  # orthogonal to m, no intercept
        return float(r @ neutral / 4)

    weeks = [dt.date(2024, 1, 5), dt.date(2024, 1, 12), dt.date(2024, 1, 19)]
    returns = {weeks[0]: [0.01, -0.02, 0.03, 0.0], weeks[1]: [0.01, -0.02, 0.03, 0.0]}
    returns[weeks[2]] = [0.01, 0.02, 0.03, 0.04]
    own = pl.DataFrame(
        [
            (day, name, score, fwd)
            for day in weeks
            for name, score, fwd in zip("ABCDE", [1.0, 2.0, 3.0, 4.0, 9.0], [*returns[day], 0.5], strict=True)
        ],
        schema=["date", "symbol", "score", "forward_return"],
        orient="row",
    ).with_columns(g=pl.col("score"))  # g only enters correlation_to_combined
    member = pl.DataFrame(
        [
            (day, name, score)
            for day in weeks
            for name, score in zip(
                "ABCDF", [0.2, 0.1, 0.3, 0.4, -5.0] if day != weeks[1] else [1.0] * 5, strict=True
            )
        ],
        schema=["date", "symbol", "score"],
        orient="row",
    )
    found = mmc.mmc_weeks(own, mmc.combined_scores([mmc.gaussianised(member)]))
    assert [mmc.EPOCH + dt.timedelta(days=int(d)) for d in found.days] == [weeks[0], weeks[2]]
    assert list(found.names) == [4, 4]
    first, third = by_hand(returns[weeks[0]]), by_hand(returns[weeks[2]])
    assert first == pytest.approx(-0.0044548, abs=1e-7)  # (0.0044285 - 0.75726 * 0.029380) / 4
    assert found.mmc == pytest.approx([first, third], abs=1e-15)
    # the reference agrees: the first week as it is, the third once its bucket rescale is undone
    week = pd.DataFrame({"symbol": list("ABCD"), "score": [1.0, 2.0, 3.0, 4.0], "c": [0.2, 0.1, 0.3, 0.4]})
    for day, want in ((weeks[0], first), (weeks[2], third)):
        assert numerai_mmc(week.assign(forward_return=returns[day])) == pytest.approx(want, abs=1e-15)
    whole = pd.DataFrame({"score": [1.0, 2.0, 3.0, 4.0]}, index=list("ABCD"))
    rescaled = correlation_contribution(
        whole,
        pd.Series([0.2, 0.1, 0.3, 0.4], index=list("ABCD")),
        pd.Series(returns[weeks[2]], index=list("ABCD")),
    )
    assert float(rescaled.iloc[0]) == pytest.approx(4 * third, abs=1e-15)


# -- in process: a larger approved set than the demo's records hold --------------------------------


def test_figures_with_three_approved_alphas(demo_lake: Path, lake: Lake) -> None:
    approved = ["momentum_12_1", "value_composite_legacy", "Test_short_term_reversal", "Test_planted_factor"]
    figures = Figures.open(str(demo_lake), Standings.approving(approved))
    window: Window = ("2021-02-01", "2022-01-31")
    data = figures.mmc(
        "momentum_12_1", start=pd.Timestamp(window[0]).date(), end=pd.Timestamp(window[1]).date()
    )
    members = sorted(a for a in approved if a != "momentum_12_1")
    assert data.approved.alphas == members and data.approved.alpha_excluded
    check_mmc(msgspec.to_builtins(data), expected_mmc(lake, "momentum_12_1", members, window))
    crowding = msgspec.to_builtins(figures.crowding(end=pd.Timestamp(window[1]).date()))
    assert crowding["approved"]["alphas"] == sorted(approved)
    check_overlap(crowding["weekly"], expected_overlap(lake, sorted(approved), (None, window[1])))
    check_factors(lake, crowding["factors"], sorted(approved), (None, window[1]))
    assert crowding["factors"]  # two of the books have factor exposures


def test_a_ledger_only_alpha_is_told_it_has_no_scores(api: Api) -> None:
    data = api.ok(MMC.format(alpha="Test_ledger_only"))["data"]
    assert data["approved"]["approved_count"] == 2  # the approved set is there; the alpha has no scores
    for name in ("mmc_mean", "mmc_t_stat", "weight_overlap_with_approved"):
        assert data[name]["status"] == "not_measurable"
        assert "no decisions" in data[name]["withheld_reason"]
    assert data["weekly"] == [] and data["mmc_weeks"] == 0
