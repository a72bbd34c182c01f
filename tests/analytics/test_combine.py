"""/v1/analytics/combine through the API: every row, weight, figure, correlation and the
diversification ratio recomputed independently from the lake's ledgers (pandas/numpy/scipy: the
common sessions, the Ledoit-Wolf intensity written out pair by pair, the shrunk max-IR weights),
on random sets and windows; the set's rules (403 before lookup, 400 naming the parameter), the
ledger and benchmark access, the documentation of every served path, and the ETag."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import linalg

from core.context import AllowList
from tests.analytics.conftest import ALPHAS, CALLERS, Api, Window, random_windows, serving, window_params
from tests.analytics.helpers import check_stat, close
from tests.analytics.reference import Lake
from tests.callers import DATA_IDS, make_caller
from tests.support.combine_figures import GENERIC_META, YEAR, book_figures, common_returns, metrics_turnover
from tests.support.contribution_check import ledger_risk_free
from tests.support.doc_paths import paths

PATH = "/v1/analytics/combine"
MIN_SESSIONS = 20


# -- the independent recomputation ----------------------------------------------------------------


def spy_returns(root: Path) -> pd.Series:
    """SPY's daily total returns over its whole series: adjusted_close when every row has one, else close."""
    current = json.loads((root / "benchmarks" / "SPY" / "_current.json").read_text())
    daily = pd.read_parquet(root / "benchmarks" / "SPY" / "builds" / current["build_id"] / "daily.parquet")
    dates = daily["date"].map(lambda d: str(d)[:10])
    price = daily["adjusted_close"] if daily["adjusted_close"].notna().all() else daily["close"]
    return pd.Series(price.to_numpy(float), index=dates.to_numpy()).pct_change()


def lw_intensity(x: np.ndarray) -> float:
    """Ledoit and Wolf (2004) toward the diagonal target, pair by pair in the paper's 1/T moments:
    delta = sum_{i != j} pi_ij / sum_{i != j} s_ij^2 / T, clipped to [0, 1]."""
    t, n = x.shape
    y = x - x.mean(axis=0)
    numerator = denominator = 0.0
    for i, j in itertools.permutations(range(n), 2):
        products = y[:, i] * y[:, j]
        s_ij = products.sum() / t
        numerator += float(((products - s_ij) ** 2).sum() / t)
        denominator += s_ij**2
    return min(1.0, max(0.0, numerator / denominator / t))


def expected_weights(
    returns: pd.DataFrame, weighting: str, given: list[float] | None, shrinkage: float | None
):
    x = returns.to_numpy()
    n = x.shape[1]
    if weighting == "equal":
        return np.full(n, 1 / n), None
    if weighting == "given":
        return np.array(given), None
    sd = returns.std(ddof=1).to_numpy()
    if weighting == "inverse_volatility":
        return (1 / sd) / (1 / sd).sum(), None
    delta = lw_intensity(x) if shrinkage is None else shrinkage
    s = returns.cov(ddof=1).to_numpy()
    sigma = (1 - delta) * s + delta * np.diag(np.diag(s))
    raw = linalg.solve(sigma, returns.mean().to_numpy(), assume_a="sym")
    return raw / np.abs(raw).sum(), delta


def combine_params(ids: list[str], window: Window, **extra: Any) -> dict[str, Any]:
    return {"alphas": ",".join(ids), **window_params(window), **extra}


FITTED = ("inverse_volatility", "max_ir")
PRODUCTION = {"momentum_12_1", "value_composite_legacy"}


def check_combination(
    api: Api, lake: Lake, root: Path, ids: list[str], window: Window, weighting: str = "equal", **extra: Any
) -> None:
    """Everything served against the recomputation. With `fit_to` the weights are recomputed from
    the common sessions up to and including it, and every row and figure from those after it."""
    returns = common_returns(lake, ids, window)
    fit_to = extra.get("fit_to")
    params = combine_params(ids, window, weighting=weighting, **extra)
    if len(returns) < MIN_SESSIONS:
        response = api.get(PATH, **params, limit=1)
        assert response.status_code == 400, response.text
        named = {p["name"] for p in response.json()["error"]["details"]["parameters"]}
        whole = len(common_returns(lake, ids, (None, None)))
        assert named == (
            {k for k in ("from", "to") if params.get(k)} if whole >= MIN_SESSIONS else {"alphas"}
        )
        return
    given = [float(v) for v in extra["weights"].split(",")] if "weights" in extra else None
    fit = returns if fit_to is None else returns[returns.index <= fit_to]
    returns = returns if fit_to is None else returns[returns.index > fit_to]
    assert len(fit) >= MIN_SESSIONS and len(returns) >= MIN_SESSIONS, (ids, window, fit_to)
    weights, delta = expected_weights(fit, weighting, given, extra.get("shrinkage"))
    combined = returns @ weights
    rf = ledger_risk_free(lake, ids, returns.index) @ weights

    rows = api.all_rows(PATH, **params)
    body = api.ok(PATH, **params, limit=1)
    meta = body["meta"]
    assert [row["date"] for row in rows] == list(returns.index)
    level = (1 + combined).cumprod()
    peak = level.cummax().clip(lower=1.0)
    spy = spy_returns(root).reindex(returns.index).fillna(0.0)
    benchmark = (1 + spy).cumprod() - 1
    for row, r, c, d, b in zip(
        rows, combined, level - 1, (peak - level) / peak * 100, benchmark, strict=True
    ):
        assert close(row["period_return"], float(r)), (row, r)
        assert close(row["cumulative_return"], float(c)), (row, c)
        assert close(row["drawdown_pct"], float(d)), (row, d)
        assert close(row["benchmark_cumulative_return"], float(b)), (row, b)

    assert meta["alphas"] == ids and meta["book"] == "long_short" and meta["weighting"] == weighting
    assert meta["window"] == {"from": window[0], "to": window[1]}
    assert meta["sessions"] == len(returns) == body["pagination"]["total"]
    assert "intersection" in meta["session_rule"]
    check_fit(meta, weighting, fit_to, fit, returns, ids, weights)
    assert [w["alpha"] for w in meta["weights"]] == ids
    for served, expected in zip(meta["weights"], weights, strict=True):
        assert close(served["weight"], float(expected)), (meta["weights"], weights)
    if weighting == "max_ir":
        assert close(meta["shrinkage"]["value"], delta)
        assert meta["shrinkage"]["source"] == ("given" if "shrinkage" in extra else "ledoit_wolf")
    else:
        assert meta["shrinkage"] is None

    figures = meta["figures"]
    for name, value in book_figures(combined, rf).items():
        check_stat(figures[name], value, (ids, window, name))
    assert figures["max_drawdown_pct"]["unit"] == "percentage_points" and "max_drawdown" not in figures
    sd = returns.std(ddof=1)
    check_stat(
        figures["diversification_ratio"],
        float((np.abs(weights) * sd.to_numpy()).sum() / combined.std(ddof=1)),
        (ids, window, "diversification_ratio"),
    )
    turnovers = [metrics_turnover(api, a) for a in ids]
    units = {unit for _, unit in turnovers}
    if all(v is not None for v, _ in turnovers) and len(units) == 1:
        expected_turnover = float(sum(abs(w) * v for w, (v, _) in zip(weights, turnovers, strict=True)))
        check_stat(figures["turnover"], expected_turnover, (ids, "turnover"))
        unit = units.pop()
        assert figures["turnover"]["unit"] == unit and "upper bound" in figures["turnover"]["approximation"]
        # An annualised turnover says its year, as every annualised entry does; no other unit has one.
        if unit == "per_year":
            assert figures["turnover"]["annualisation"] == "annualised"
            assert figures["turnover"]["periods_per_year"] == YEAR
        else:
            assert "periods_per_year" not in figures["turnover"]
    else:
        check_stat(figures["turnover"], None, (ids, "turnover"))
    correlation = returns.corr().to_numpy()
    assert meta["correlation"]["alphas"] == ids
    for served_row, expected_row in zip(meta["correlation"]["matrix"], correlation, strict=True):
        for served, expected in zip(served_row, expected_row, strict=True):
            assert close(served, float(expected)), (served, expected)
    # A series' correlation with itself is exactly 1, not corrcoef's 0.9999999999999998.
    for i, served_row in enumerate(meta["correlation"]["matrix"]):
        assert served_row[i] is None or served_row[i] == 1.0, meta["correlation"]


def check_fit(
    meta: dict[str, Any],
    weighting: str,
    fit_to: str | None,
    fit: pd.DataFrame,
    judged: pd.DataFrame,
    ids: list[str],
    weights: np.ndarray,
) -> None:
    """meta.fit and the warnings of a fitted weighting (issue 33, item 6): in-sample without
    fit_to, said in meta and warned of; a short of a computed weighting warned of, naming it."""
    codes = {w["code"]: w for w in meta.get("warnings", [])}
    if weighting not in FITTED:
        assert meta["fit"] is None and not {"in_sample_weights", "negative_weights"} & set(codes), meta
        return
    fitted = meta["fit"]
    assert fitted["fit_to"] == fit_to and fitted["sessions"] == len(fit), fitted
    assert fitted["sample"] == ("in_sample" if fit_to is None else "out_of_sample"), fitted
    if fit_to is None:
        assert fitted["rule"].startswith(
            f"in-sample: the {weighting} weights are fitted on the same {len(judged)} "
        )
        assert codes["in_sample_weights"]["block"] == "weights"
        assert f"fitted on the same {len(judged)} sessions" in codes["in_sample_weights"]["message"]
    else:
        assert "in_sample_weights" not in codes, codes
        assert f"({fit.index[0]} to {fit.index[-1]})" in fitted["rule"], fitted
        assert f"the {len(judged)} after it ({judged.index[0]} to {judged.index[-1]})" in fitted["rule"]
        assert "after fit_to" in meta["session_rule"]
    shorts = [(a, w) for a, w in zip(ids, weights, strict=True) if w < 0]
    assert ("negative_weights" in codes) == bool(shorts), (codes, shorts)
    if shorts:
        message = codes["negative_weights"]["message"]
        for alpha, weight in shorts:
            production = ", a production alpha" if alpha in PRODUCTION else ""
            assert f"{alpha} ({weight:.2%}{production})" in message, (message, alpha, weight)


# -- the figures ----------------------------------------------------------------------------------


@pytest.mark.parametrize("weighting", ["equal", "inverse_volatility", "max_ir", "given"])
def test_random_sets_and_windows(api: Api, lake: Lake, demo_lake: Path, weighting: str) -> None:
    rng = random.Random(f"combine-{weighting}")
    for window in random_windows(f"combine-{weighting}", 3):
        ids = rng.sample(ALPHAS, rng.randint(2, len(ALPHAS)))
        extra: dict[str, Any] = {}
        if weighting == "given":
            extra["weights"] = ",".join(f"{rng.uniform(-0.5, 1.0):.6f}" for _ in ids)
        check_combination(api, lake, demo_lake, ids, window, weighting, **extra)


@pytest.mark.parametrize("shrinkage", [0.0, 0.35, 1.0])
def test_max_ir_with_a_given_shrinkage(api: Api, lake: Lake, demo_lake: Path, shrinkage: float) -> None:
    ids = ["momentum_12_1", "value_composite_legacy", "Test_planted_factor", "Test_small_universe"]
    check_combination(api, lake, demo_lake, ids, ("2021-03-01", "2021-12-31"), "max_ir", shrinkage=shrinkage)


@pytest.mark.parametrize("weighting", FITTED)
def test_fit_to_fits_the_weights_on_the_earlier_sessions_and_judges_them_on_the_later(
    api: Api, lake: Lake, demo_lake: Path, weighting: str
) -> None:
    """Issue 33, item 6: the weights equal the recomputation (numpy, scipy) over the common sessions
    up to and including fit_to; rows, figures and correlations are over the sessions after it."""
    rng = random.Random(f"fit_to-{weighting}")
    checked = 0
    for window in [(None, None), *random_windows(f"fit_to-{weighting}", 4)]:
        ids = rng.sample(ALPHAS, rng.randint(2, 4))
        dates = list(common_returns(lake, ids, window).index)
        if len(dates) < 2 * MIN_SESSIONS:
            continue
        fit_to = dates[rng.randint(MIN_SESSIONS - 1, len(dates) - MIN_SESSIONS - 1)]
        check_combination(api, lake, demo_lake, ids, window, weighting, fit_to=fit_to)
        checked += 1
    assert checked >= 2
    # A non-session date fits on the sessions before it: the same split as the last session before it.
    ids = ["momentum_12_1", "Test_small_universe", "value_composite_legacy"]
    check_combination(api, lake, demo_lake, ids, (None, None), weighting, fit_to="2021-07-04")
    on_sunday = api.ok(PATH, alphas=",".join(ids), weighting=weighting, fit_to="2021-07-04", limit=1)["meta"]
    on_friday = api.ok(PATH, alphas=",".join(ids), weighting=weighting, fit_to="2021-07-02", limit=1)["meta"]
    assert on_sunday["weights"] == on_friday["weights"]


def test_max_ir_fitted_out_of_sample_can_short_a_production_alpha_and_says_so(
    api: Api, lake: Lake, demo_lake: Path
) -> None:
    """Fitted on the demo set's first half, max_ir shorts a production alpha (its weights differ from
    the in-sample ones): warned of by name, as the recomputation finds."""
    ids = ["momentum_12_1", "Test_small_universe", "value_composite_legacy"]
    returns = common_returns(lake, ids, (None, None))
    inside, _ = expected_weights(returns, "max_ir", None, None)
    fit_to = "2021-06-30"
    outside, _ = expected_weights(returns[returns.index <= fit_to], "max_ir", None, None)
    assert min(outside[0], outside[2]) < 0 and not np.allclose(inside, outside), (inside, outside)
    check_combination(api, lake, demo_lake, ids, (None, None), "max_ir")
    check_combination(api, lake, demo_lake, ids, (None, None), "max_ir", fit_to=fit_to)
    meta = api.ok(PATH, alphas=",".join(ids), weighting="max_ir", fit_to=fit_to, limit=1)["meta"]
    (warning,) = meta["warnings"]
    assert warning["code"] == "negative_weights" and "value_composite_legacy" in warning["message"]


def test_max_ir_without_shrinkage_maximises_the_in_sample_ratio(api: Api, lake: Lake) -> None:
    """At shrinkage 0 the weights are the tangency book: no other weights do better in sample."""
    ids = ["momentum_12_1", "value_composite_legacy", "Test_planted_factor"]
    meta = api.ok(PATH, alphas=",".join(ids), weighting="max_ir", shrinkage=0, limit=1)["meta"]
    best = meta["figures"]["information_ratio"]["value"]
    returns = common_returns(lake, ids, (None, None))
    rng = np.random.default_rng(5)
    for _ in range(200):
        r = returns @ rng.normal(size=len(ids))
        ratio = r.mean() / r.std(ddof=1) * math.sqrt(YEAR)
        assert ratio <= best * (1 + 1e-9), (ratio, best)


def test_the_ledoit_wolf_intensity_is_the_papers_on_planted_data() -> None:
    """The reference implementation itself, on data where the answer is known: uncorrelated alphas
    need the full target (off-diagonal covariances are all noise), identical ones none."""
    rng = np.random.default_rng(3)
    noise = rng.normal(size=(400, 4))
    assert lw_intensity(noise) > 0.9
    common = rng.normal(size=(400, 1))
    assert lw_intensity(common + 0.01 * noise) < 0.01


def test_the_first_page_and_a_later_page_share_the_baseline(api: Api) -> None:
    params = {"alphas": "momentum_12_1,Test_short_term_reversal", "from": "2021-06-01"}
    whole = api.ok(PATH, **params, limit=5000)["data"]
    later = api.ok(PATH, **params, limit=10, offset=30)["data"]
    assert later == whole[30:40]


# -- the set's rules ------------------------------------------------------------------------------


def rules(response: Any) -> dict[str, str]:
    assert response.status_code == 400, response.text
    return {p["name"]: p["rule"] for p in response.json()["error"]["details"]["parameters"]}


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"alphas": "momentum_12_1"}, {"alphas"}),
        ({"alphas": "momentum_12_1,momentum_12_1"}, {"alphas"}),
        ({"alphas": ",".join(f"Test_a{i}" for i in range(51))}, {"alphas"}),
        ({"alphas": "momentum_12_1,Test_no_such_alpha"}, {"alphas"}),
        ({"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given"}, {"weights"}),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "0.5"},
            {"weights"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "0.5,abc"},
            {"weights"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "0.5,nan"},
            {"weights"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "1e999,0"},
            {"weights"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "0,0.0"},
            {"weights"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "10.5,0"},
            {"weights"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "0.1,-10.01"},
            {"weights"},
        ),
        ({"alphas": "momentum_12_1,value_composite_legacy", "weights": "0.5,0.5"}, {"weights"}),
        ({"alphas": "momentum_12_1,value_composite_legacy", "shrinkage": "0.5"}, {"shrinkage"}),
        ({"alphas": "momentum_12_1,momentum_12_1", "shrinkage": "0.5"}, {"alphas", "shrinkage"}),
        ({"alphas": "momentum_12_1,value_composite_legacy", "book": "long_only"}, {"book"}),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "from": "2021-02-01", "to": "2021-02-20"},
            {"from", "to"},
        ),
        ({"alphas": "momentum_12_1,value_composite_legacy", "from": "2022-02-20"}, {"from"}),
        ({"alphas": "momentum_12_1,value_composite_legacy", "fit_to": "2021-06-30"}, {"fit_to"}),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given", "weights": "1,1"}
            | {"fit_to": "2021-06-30"},
            {"fit_to"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "max_ir", "fit_to": "2021-6-30"},
            {"fit_to"},
        ),
        (
            {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "max_ir", "fit_to": "soon"},
            {"fit_to"},
        ),
        (
            {"alphas": "momentum_12_1,momentum_12_1", "weighting": "equal", "fit_to": "2021-06-30"},
            {"alphas", "fit_to"},
        ),
    ],
)
def test_bad_parameters_are_400_naming_them(api: Api, params: dict[str, Any], named: set[str]) -> None:
    found = rules(api.get(PATH, **params))
    assert set(found) == named, found
    assert all(rule for rule in found.values())


def test_the_rules_say_what_is_wrong(api: Api) -> None:
    assert "Test_no_such_alpha" in rules(api.get(PATH, alphas="momentum_12_1,Test_no_such_alpha"))["alphas"]
    assert "at most 50" in rules(api.get(PATH, alphas=",".join(f"Test_a{i}" for i in range(51))))["alphas"]
    assert "more than once" in rules(api.get(PATH, alphas="momentum_12_1,momentum_12_1"))["alphas"]
    late: dict[str, Any] = {"from": "2022-02-20"}
    window = rules(api.get(PATH, alphas="momentum_12_1,value_composite_legacy", **late))
    assert "at least 20" in window["from"]
    mismatch = rules(
        api.get(PATH, alphas="momentum_12_1,value_composite_legacy", weighting="given", weights="1")
    )
    assert "one weight per alpha" in mismatch["weights"]
    pair: dict[str, Any] = {"alphas": "momentum_12_1,value_composite_legacy", "weighting": "given"}
    assert "[-10, 10]" in rules(api.get(PATH, **pair, weights="0.5,-12"))["weights"]
    assert "sum |w| must be above 0" in rules(api.get(PATH, **pair, weights="0,-0"))["weights"]


@pytest.mark.parametrize("weighting", FITTED)
def test_a_fit_to_outside_the_window_or_leaving_too_few_sessions_is_a_400(
    api: Api, lake: Lake, weighting: str
) -> None:
    """fit_to must lie in the window (on or after from, before to), and leave MIN_SESSIONS common
    sessions on each side: the 20th session is the earliest fit_to, the 21st from the end the
    latest. Each refusal names fit_to and its rule."""
    ids = ["momentum_12_1", "value_composite_legacy"]
    base: dict[str, Any] = {"alphas": ",".join(ids), "weighting": weighting, "limit": 1}
    window: Window = ("2021-03-01", "2021-12-31")
    dates = list(common_returns(lake, ids, window).index)
    span = {"from": window[0], "to": window[1]}
    assert (
        "on or after from (2021-03-01)" in rules(api.get(PATH, **base, **span, fit_to="2021-02-26"))["fit_to"]
    )
    assert "before to (2021-12-31)" in rules(api.get(PATH, **base, **span, fit_to="2021-12-31"))["fit_to"]
    assert "before to" in rules(api.get(PATH, **base, **span, fit_to="2022-01-03"))["fit_to"]
    few = rules(api.get(PATH, **base, **span, fit_to=dates[MIN_SESSIONS - 2]))["fit_to"]
    assert few == (
        f"leaves {MIN_SESSIONS - 1} of the set's {len(dates)} common sessions of the window on or before it; "
        f"at least {MIN_SESSIONS} are needed to fit the weights"
    ), few
    late = rules(api.get(PATH, **base, **span, fit_to=dates[-MIN_SESSIONS]))["fit_to"]
    assert late.startswith(
        f"leaves {MIN_SESSIONS - 1} of the set's {len(dates)} common sessions of the window after it"
    )
    for fit_to in (dates[MIN_SESSIONS - 1], dates[-MIN_SESSIONS - 1]):
        meta = api.ok(PATH, **base, **span, fit_to=fit_to)["meta"]
        assert meta["fit"]["sessions"] + meta["sessions"] == len(dates), meta["fit"]
    # The window open: the set's whole common history is the window.
    whole = list(common_returns(lake, ids, (None, None)).index)
    assert "on or before it" in rules(api.get(PATH, **base, fit_to="2019-01-01"))["fit_to"]
    assert "after it" in rules(api.get(PATH, **base, fit_to=whole[-1]))["fit_to"]


def first_wipeout(returns: pd.DataFrame, weights: list[float]) -> tuple[str, float] | None:
    """The first common session on which the weighted book's return is <= -1, and that return."""
    combined = returns @ np.array(weights)
    lost = combined[combined <= -1.0]
    return None if lost.empty else (str(lost.index[0]), float(lost.iloc[0]))


def test_weights_under_which_the_book_loses_all_its_equity_are_400(api: Api, lake: Lake) -> None:
    """Weights within the bound (|w| = 10 each) that wipe the book out: a 400 naming `weights`
    with the first such session and its return, never rows whose cumulative return is below
    -100% or whose drawdown is above 100%. Weights of 50 each are refused by the bound first."""
    ids = ALPHAS
    returns = common_returns(lake, ids, (None, None))
    # Short every alpha that rose and long every one that fell on the session where they moved
    # most in all: that session's combined return is -10 x sum |r_i|.
    moved = returns.abs().sum(axis=1)
    signs = -np.sign(returns.loc[moved.idxmax()].to_numpy())
    weights = [float(10.0 * s) if s else 10.0 for s in signs]
    assert moved.max() * 10 > 1.0, moved.max()  # else the test proves nothing
    found = first_wipeout(returns, weights)
    assert found is not None
    day, value = found
    given = ",".join(f"{w:g}" for w in weights)
    rule = rules(api.get(PATH, alphas=",".join(ids), weighting="given", weights=given))
    assert set(rule) == {"weights"}, rule
    assert day in rule["weights"] and f"{value:.0%}" in rule["weights"], (rule, day, value)
    assert "loses all its equity" in rule["weights"] and "scale the weights down" in rule["weights"]
    pair = ",".join(ids[:2])
    beyond = rules(api.get(PATH, alphas=pair, weighting="given", weights="50,50"))
    assert set(beyond) == {"weights"} and "[-10, 10]" in beyond["weights"], beyond
    # Scaled down so that no session reaches -1, the same book is served, its equity positive.
    worst = float((returns @ np.array(weights)).min())
    scale = 0.9 / abs(worst)
    assert first_wipeout(returns, [w * scale for w in weights]) is None
    scaled = ",".join(f"{w * scale:.9f}" for w in weights)
    rows = api.all_rows(PATH, alphas=",".join(ids), weighting="given", weights=scaled)
    assert len(rows) == len(returns)
    assert all(r["cumulative_return"] > -1 and r["drawdown_pct"] < 100 for r in rows)


def test_a_computed_weighting_that_loses_all_the_equity_names_the_alphas() -> None:
    """Equal weights of two alphas that both lose everything on one session: the set, not a
    parameter of weights, is what produced the book, so the 400 names `alphas`. (No demo ledger
    loses all its equity, so the combined book is built directly from planted returns.)"""
    from analytics.combined import SetReturns, Turnover, Weighting, combined
    from analytics.entries import Warnings
    from analytics.errors import BadParameters

    rng = np.random.default_rng(11)
    returns = rng.normal(0.0, 0.01, size=(30, 2))
    returns[17] = -1.0  # 1970-01-18
    found = SetReturns(("a", "b"), np.arange(30), returns, None, "no risk-free")
    with pytest.raises(BadParameters) as raised:
        combined(
            found,
            Weighting("equal", None, None),
            Turnover(np.full(2, np.nan), (None, None)),
            None,
            frozenset(),
            Warnings(),
        )
    problems = raised.value.problems
    assert list(problems) == ["alphas"], problems
    assert "1970-01-18" in problems["alphas"] and "-100%" in problems["alphas"], problems


@pytest.mark.parametrize("other", ["momentum_12_1", "prod_no_such_alpha"])
def test_an_alpha_the_key_may_not_read_is_403_whether_it_exists_or_not(api: Api, other: str) -> None:
    response = api.get(PATH, "testonly", alphas=f"Test_planted_factor,{other}")
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["code"] == "run_not_allowed"
    assert error["details"] == {"alpha": other, "parameter": "alphas"}
    # The same answer for an id that exists and one that does not (request ids aside).
    assert (
        error["message"]
        == api.get(PATH, "testonly", alphas="Test_planted_factor,x_y").json()["error"]["message"]
    )


def test_authorisation_comes_before_lookup(api: Api) -> None:
    """An unknown readable id beside an unreadable one: the 403, not the 400."""
    response = api.get(PATH, "testonly", alphas="Test_no_such_alpha,momentum_12_1")
    assert response.status_code == 403 and response.json()["error"]["details"]["alpha"] == "momentum_12_1"


def test_a_key_without_the_ledger_is_403_naming_the_route(api: Api) -> None:
    response = api.get(PATH, "no_portfolio", alphas="momentum_12_1,value_composite_legacy")
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["code"] == "endpoint_not_allowed" and error["details"]["endpoint"] == "portfolio.ledger"


def test_a_key_without_the_analytics_group_is_refused(api: Api) -> None:
    response = api.get(PATH, "no_analytics", alphas="momentum_12_1,value_composite_legacy")
    assert (
        response.status_code == 403 and response.json()["error"]["details"]["endpoint"] == "analytics.combine"
    )


# -- benchmark access, documentation, caching -----------------------------------------------------

NO_BENCHMARK_IDS = frozenset(i for i in DATA_IDS if i != "benchmarks.daily")


@pytest.fixture(scope="module")
def benchmark_api(demo_lake: Path) -> Iterator[Api]:
    callers = {
        **CALLERS,
        "no_benchmark": make_caller(
            endpoints=NO_BENCHMARK_IDS, endpoint_allow=AllowList.of_ids(sorted(NO_BENCHMARK_IDS))
        ),
    }
    with serving(demo_lake, callers) as found:
        yield found


def test_a_key_without_the_benchmark_gets_the_column_null_and_told_why(benchmark_api: Api) -> None:
    params: dict[str, Any] = {"alphas": "momentum_12_1,value_composite_legacy", "limit": 5000}
    withheld = benchmark_api.ok(PATH, "no_benchmark", **params)
    full = benchmark_api.ok(PATH, "raw", **params)
    assert all(row["benchmark_cumulative_return"] is None for row in withheld["data"])
    assert any(row["benchmark_cumulative_return"] is not None for row in full["data"])
    strip = [{k: v for k, v in row.items() if k != "benchmark_cumulative_return"} for row in withheld["data"]]
    assert strip == [
        {k: v for k, v in row.items() if k != "benchmark_cumulative_return"} for row in full["data"]
    ]
    warning = withheld["meta"]["warnings"][0]
    assert warning["code"] == "access_limited" and "benchmarks.daily" in warning["message"]
    assert withheld["meta"]["benchmark"] is None and "warnings" not in full["meta"]


def test_every_served_path_is_documented(api: Api) -> None:
    fields = api.ok("/v1/alphas/momentum_12_1/analytics/_doc")["data"]["fields"]
    served: set[str] = {"combine", "combine.meta"}
    for params in (
        {"alphas": "momentum_12_1,value_composite_legacy,Test_ledger_only"},
        {"alphas": "momentum_12_1,Test_small_universe", "weighting": "max_ir"},
        {"alphas": "momentum_12_1,Test_small_universe", "weighting": "max_ir", "fit_to": "2021-06-30"},
        {"alphas": "momentum_12_1,Test_small_universe", "weighting": "given", "weights": "0.7,-0.2"},
    ):
        body = api.ok(PATH, **params, limit=3)
        for row in body["data"]:
            served |= paths(row, "combine[]")
        served |= paths({k: v for k, v in body["meta"].items() if k not in GENERIC_META}, "combine.meta")
    assert "combine.meta.figures.turnover.approximation" in served
    assert "combine.meta.weights[].weight" in served and "combine.meta.shrinkage.source" in served
    assert "combine.meta.fit.rule" in served and "combine.meta.fit.fit_to" in served
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented
    assert fields["combine[].drawdown_pct"]["unit"] == "percentage points (1.0 = 1%)"


def test_etag_and_304(api: Api) -> None:
    params: dict[str, Any] = {"alphas": "momentum_12_1,value_composite_legacy", "limit": 3}
    first = api.get(PATH, **params)
    tag = first.headers["etag"]
    again = api.get(PATH, headers={"If-None-Match": tag}, **params)
    assert again.status_code == 304
    other = api.get(PATH, **{**params, "weighting": "inverse_volatility"})
    assert other.headers["etag"] != tag
    fitted = api.get(PATH, **{**params, "weighting": "inverse_volatility", "fit_to": "2021-06-30"})
    assert fitted.headers["etag"] not in (tag, other.headers["etag"])


def test_only_json_is_served(api: Api) -> None:
    response = api.get(PATH, alphas="momentum_12_1,value_composite_legacy", format="arrow")
    assert "format" in rules(response)
