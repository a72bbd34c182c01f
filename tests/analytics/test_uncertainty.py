"""/analytics/uncertainty (issue 50, item 4): stationary block-bootstrap intervals of a book's headline
figures, against `arch` (Kevin Sheppard's arch.bootstrap) as the reference:

- the mean block length is arch's `optimal_block_length` (the stationary column; Politis and White
  2004 with the 2009 correction), at least 1, the longest of the series resampled together;
- on the same resamples (arch's `StationaryBootstrap` indices fed to our statistics) every interval
  is arch's own percentile `conf_int` of the figure written again with numpy/pandas, within 1e-9;
- the served bounds are the quantiles of the figures over the served resamples, laid out explicitly
  (every resample's values, the figure recomputed with pandas), within 1e-9;
- each point is exactly the figure the API serves under its name (/analytics/live's parts,
  /analytics/checks, /analytics/significance's bootstrap);
- the known answers: the demo's noise alpha (Test_low_vol_incomplete: a low-volatility signal on a
  market where no such effect is planted) has intervals of its information ratio and mean IC that
  cover 0; the planted factor's mean IC interval lies above 0.

The module adds about 6 s beyond the shared demo-lake fixture (arch's and pandas' loops over 2,000 resamples).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from arch.bootstrap import StationaryBootstrap, optimal_block_length

from tests.analytics import reference as ref
from tests.analytics.conftest import Api, Window, window_params
from tests.analytics.helpers import check_withheld

PATH = "/v1/alphas/{alpha}/analytics/uncertainty"
SESSION_FIGURES = ("information_ratio", "excess_sharpe", "max_drawdown_pct", "turnover")
WEEK_FIGURES = ("rebuilt_mean_ic", "rebuilt_icir", "rebuilt_hit_rate")
FIGURES = SESSION_FIGURES + WEEK_FIGURES
NOISE = "Test_low_vol_incomplete"
TOL = 1e-9


def answer(api: Api, alpha: str, window: Window = (None, None), book: str = "long_short", **kw: Any) -> Any:
    return api.ok(PATH.format(alpha=alpha), book=book, **window_params(window), **kw)["data"]


def close(a: float | None, b: float | None, tol: float = TOL) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=1e-13)


# ---------------------------------------------------------------- the figures, written again


def ratio(x: np.ndarray) -> float:
    s = pd.Series(x).dropna()
    sd = s.std(ddof=1)
    return float(s.mean() / sd) if len(s) >= 2 and sd > 0 else math.nan


def max_drawdown_pct(r: np.ndarray) -> float:
    equity = pd.Series(np.concatenate([[1.0], np.cumprod(1.0 + r)]))
    return float((1.0 - equity / equity.cummax()).max() * 100.0)


def session_figures(r: np.ndarray, excess: np.ndarray, turnover: np.ndarray) -> np.ndarray:
    return np.array(
        [
            ratio(r) * math.sqrt(ref.SESSIONS_PER_YEAR),
            ratio(excess) * math.sqrt(ref.SESSIONS_PER_YEAR),
            max_drawdown_pct(r),
            float(pd.Series(turnover).dropna().mean()) * ref.SESSIONS_PER_YEAR,
        ]
    )


def week_figures(ic: np.ndarray) -> np.ndarray:
    return np.array([float(np.mean(ic)), ratio(ic) * math.sqrt(ref.WEEKS_PER_YEAR), float(np.mean(ic > 0))])


def session_series(lake: ref.Lake, alpha: str, book: str, window: Window) -> tuple[np.ndarray, ...]:
    ledger = lake.ledger_in(alpha, book, window)
    assert ledger is not None
    r = ledger["ending_equity"].to_numpy(float) / ledger["starting_equity"].to_numpy(float) - 1.0
    keep = np.isfinite(r)
    return (
        r[keep],
        (r - ledger["risk_free_return"].to_numpy(float))[keep],
        ledger["turnover"].to_numpy(float)[keep],
    )


def week_series(lake: ref.Lake, alpha: str, window: Window) -> np.ndarray:
    ic = lake.ic(alpha, window).to_numpy()
    return ic[np.isfinite(ic)]


def pw(x: np.ndarray) -> float:
    """arch's Politis-White stationary block length, at least 1."""
    return max(1.0, float(optimal_block_length(x)["stationary"].iloc[0]))


# ---------------------------------------------------------------- block length


@pytest.mark.parametrize("n", [12, 50, 300, 1400])
@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
def test_block_length_is_archs_politis_white(n: int, phi: float) -> None:
    """Unit under test: `analytics.bootstrap.block_length` on AR(1) series (white noise to strongly
    dependent) against arch's optimal_block_length."""
    from analytics import bootstrap

    rng = np.random.default_rng(n * 10 + int(phi * 10))
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0]
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    assert close(bootstrap.block_length(x), pw(x)), (n, phi)


def test_served_block_lengths_are_archs(api: Api, lake: ref.Lake) -> None:
    """Each group's block length: the longest of arch's over its series (sessions: returns, excess
    returns, turnover; weeks: the IC and its sign)."""
    for alpha in ("momentum_12_1", NOISE, "Test_planted_factor"):
        data = answer(api, alpha)
        r, excess, turnover = session_series(lake, alpha, "long_short", (None, None))
        sessions = max(pw(r), pw(excess), pw(turnover[np.isfinite(turnover)]))
        ic = week_series(lake, alpha, (None, None))
        weeks = max(pw(ic), pw((ic > 0).astype(float)))
        for name in SESSION_FIGURES:
            assert close(data[name]["block_length"], sessions), (alpha, name, data[name], sessions)
        for name in WEEK_FIGURES:
            assert close(data[name]["block_length"], weeks), (alpha, name, data[name], weeks)


# ---------------------------------------------------------------- the same resamples as arch


def arch_indices(bs: StationaryBootstrap, reps: int) -> np.ndarray:
    return np.array([bs.index.copy() for _ in bs.bootstrap(reps)])


@pytest.mark.parametrize("alpha", ["momentum_12_1", NOISE])
def test_intervals_on_archs_resamples_are_archs(lake: ref.Lake, alpha: str) -> None:
    """arch draws the resamples (its StationaryBootstrap at our block length, seeded) and computes
    its percentile interval of the figures written again here; our statistics over the same
    resamples (arch's indices as blocks, `analytics.bootstrap.blocks_of_indices`) give the same
    bounds and points."""
    from analytics import bootstrap, uncertainty

    reps = 2000
    r, excess, turnover = session_series(lake, alpha, "long_short", (None, None))
    ic = week_series(lake, alpha, (None, None))
    groups = (
        (
            uncertainty.session_series_of(r, excess, turnover, ref.SESSIONS_PER_YEAR),
            (r, excess, turnover),
            session_figures,
            SESSION_FIGURES,
            max(pw(r), pw(excess), pw(turnover[np.isfinite(turnover)])),
        ),
        (
            uncertainty.week_series(ic, ref.WEEKS_PER_YEAR),
            (ic,),
            week_figures,
            WEEK_FIGURES,
            max(pw(ic), pw((ic > 0).astype(float))),
        ),
    )
    for ours, data, figures, names, b in groups:
        drawn = StationaryBootstrap(b, *data, seed=np.random.default_rng(7))
        lower, upper = drawn.conf_int(figures, reps=reps, method="percentile", size=0.95)
        indices = arch_indices(StationaryBootstrap(b, *data, seed=np.random.default_rng(7)), reps)
        found = uncertainty.group_intervals(
            ours, np.random.default_rng(0), reps, 0.95, bootstrap.blocks_of_indices(indices)
        )
        points = figures(*data)
        for i, name in enumerate(names):
            got = found[name]
            assert close(got.point, points[i]), (alpha, name, got, points[i])
            assert close(got.lower, lower[i]) and close(got.upper, upper[i]), (
                alpha,
                name,
                got,
                lower[i],
                upper[i],
            )
            assert close(got.block_length, b), (alpha, name, got.block_length, b)


def test_max_drawdown_of_blocks_is_the_laid_out_one() -> None:
    """Unit under test: the max drawdown of resamples never laid out (sparse tables, blocks
    chained) against each resample laid out and compounded with pandas, long blocks included."""
    from analytics import bootstrap

    rng = np.random.default_rng(3)
    r = 0.01 * rng.standard_normal(300) + 0.0005
    for mean_block in (1.0, 3.0, 40.0, 250.0):
        starts, lengths = bootstrap.draw_blocks(np.random.default_rng(11), r.size, 200, mean_block)
        resamples = bootstrap.Resamples(r, starts, lengths)
        laid = r[resamples.positions() % r.size]
        expected = np.array([max_drawdown_pct(row) / 100.0 for row in laid])
        got = bootstrap.MAX_DRAWDOWN.of_resamples(resamples)
        assert np.allclose(got, expected, rtol=TOL, atol=1e-13), mean_block


def test_kept_stream_draws_the_generators_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unit under test: blocks drawn from the kept prefix of a stream (`bootstrap.kept_stream`) are
    those of a fresh generator of the same seed and stream, value for value: the plain bootstrap,
    short and long mean blocks, a second draw from the same cursor, and draws past the kept bound
    (a generator moved there)."""
    from analytics import bootstrap

    def same(bound: int) -> None:
        monkeypatch.setattr(bootstrap, "KEPT_UNIFORMS", bound)
        bootstrap._prefix.cache_clear()
        for stream in (0, 1):
            for n, mean_block in ((7, 2.5), (125, 1.44), (300, 1.0), (600, 19.1), (1406, 25.0)):
                fresh, kept = bootstrap.generator(11, stream), bootstrap.kept_stream(11, stream)
                for _ in range(2):
                    want = bootstrap.draw_blocks(fresh, n, 500, mean_block)
                    got = bootstrap.draw_blocks(kept, n, 500, mean_block)
                    assert all(np.array_equal(w, g) for w, g in zip(want, got, strict=True)), (bound, n)

    same(bootstrap.KEPT_UNIFORMS)
    same(1_000)  # every draw past the bound
    same(200_000)  # some within, some past
    bootstrap._prefix.cache_clear()


def test_a_subset_of_the_figures_is_the_same_as_all_of_them() -> None:
    """Unit under test: `group_intervals` asked for some figures (a window of /analytics/significance
    or the checks) gives them exactly as asked for all (the same block length, the same resamples)."""
    from analytics import bootstrap, uncertainty

    rng = np.random.default_rng(5)
    r = 0.01 * rng.standard_normal(400) + 0.0004
    turnover = np.abs(np.convolve(rng.standard_normal(430), np.ones(30) / 30, "valid")[:400])
    series = uncertainty.session_series_of(r, r - 0.0001, turnover, 252)
    every = uncertainty.group_intervals(series, bootstrap.generator(3, 0))
    for wanted in ({"information_ratio"}, {"excess_sharpe", "max_drawdown_pct"}):
        some = uncertainty.group_intervals(series, bootstrap.kept_stream(3, 0), wanted=frozenset(wanted))
        for name in wanted:
            assert some[name] == every[name], name


# ---------------------------------------------------------------- the served bounds


@pytest.mark.parametrize(
    ("alpha", "book", "window"),
    [
        ("momentum_12_1", "long_short", (None, None)),
        ("Test_planted_factor", "long_only", ("2021-03-01", "2021-12-31")),
        (NOISE, "long_short", ("2021-06-01", None)),
    ],
)
def test_served_bounds_are_the_quantiles_of_the_resamples(
    api: Api, lake: ref.Lake, alpha: str, book: str, window: Window
) -> None:
    """The served resamples rebuilt from the served seed (streams 0 sessions, 1 weeks) and block
    length, each laid out and its figures recomputed here; the served bounds are their quantiles."""
    from analytics import bootstrap

    data = answer(api, alpha, window, book)
    for stream, names, series, figures in (
        (0, SESSION_FIGURES, session_series(lake, alpha, book, window), session_figures),
        (1, WEEK_FIGURES, (week_series(lake, alpha, window),), week_figures),
    ):
        n = series[0].size
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([data["seed"], stream])))
        starts, lengths = bootstrap.draw_blocks(rng, n, data["resamples"], data[names[0]]["block_length"])
        positions = bootstrap.Resamples(series[0], starts, lengths).positions() % n
        draws = np.array([figures(*(x[p] for x in series)) for p in positions])
        points = figures(*series)
        for i, name in enumerate(names):
            entry = data[name]
            column = draws[:, i][np.isfinite(draws[:, i])]
            low, high = np.quantile(column, [0.025, 0.975])
            assert entry["value"] == pytest.approx(points[i], rel=TOL), (name, entry)
            assert close(entry["lower"], low) and close(entry["upper"], high), (alpha, name, entry, low, high)
            assert entry["observations"] == np.count_nonzero(
                np.isfinite(series[min(i, len(series) - 1)])
            ) or name in (
                "turnover",
                "excess_sharpe",
            )


# ---------------------------------------------------------------- the points are the served figures


@pytest.mark.parametrize("alpha", ["momentum_12_1", "Test_planted_factor", NOISE])
def test_points_are_the_figures_served_under_their_names(api: Api, alpha: str) -> None:
    """Exactly (==): /analytics/live's in-sample part of a split after the history (every session
    and week) for the whole history; /analytics/checks' information_ratio and turnover and
    /analytics/significance's bootstrap block (the same entries: the same resamples) for windows."""
    whole = answer(api, alpha)
    part = api.ok(f"/v1/alphas/{alpha}/analytics/live", book="long_short", split="9999-12-31")["data"][
        "in_sample"
    ]
    for name in FIGURES:
        assert whole[name]["value"] == part[name]["value"], (alpha, name, whole[name], part[name])
    for window in ((None, None), ("2021-03-01", "2021-12-31"), ("2021-09-01", None)):
        data = answer(api, alpha, window)
        checks = api.ok(f"/v1/alphas/{alpha}/analytics/checks", book="long_short", **window_params(window))[
            "data"
        ]
        by_id = {c["id"]: c for c in checks["checks"]}
        assert data["information_ratio"]["value"] == by_id["information_ratio"]["value"], (alpha, window)
        assert data["turnover"]["value"] == by_id["turnover"]["value"], (alpha, window)
        boot = api.ok(f"/v1/alphas/{alpha}/analytics/significance", **window_params(window))["data"][
            "bootstrap"
        ]
        for name in ("information_ratio", "rebuilt_mean_ic", "rebuilt_icir"):
            same = {k: v for k, v in data[name].items() if k not in ("periods_per_year", "source")}
            assert {k: v for k, v in boot[name].items() if k != "source"} == same, (alpha, name)


# ---------------------------------------------------------------- known answers


def test_noise_alpha_intervals_cover_zero(api: Api) -> None:
    data = answer(api, NOISE)
    for name in ("information_ratio", "rebuilt_mean_ic", "rebuilt_icir"):
        entry = data[name]
        assert entry["lower"] < 0.0 < entry["upper"], (name, entry)


def test_planted_factor_mean_ic_interval_is_above_zero(api: Api) -> None:
    """The planted latent factor's IC is there to be found: its interval excludes 0 (on the small
    demo's 60-odd weeks too); the noise alpha's does not (above)."""
    data = answer(api, "Test_planted_factor")
    assert data["rebuilt_mean_ic"]["lower"] > 0.0, data["rebuilt_mean_ic"]


def test_every_interval_holds_its_point_in_its_unit(api: Api) -> None:
    data = answer(api, "momentum_12_1")
    units = {"max_drawdown_pct": "percentage_points", "turnover": "per_year", "information_ratio": "ratio"}
    for name in FIGURES:
        entry = data[name]
        assert entry["lower"] <= entry["value"] <= entry["upper"], (name, entry)
        if name in units:
            assert entry["unit"] == units[name], (name, entry)


# ---------------------------------------------------------------- scope and bad input


def test_a_key_without_the_ledger_or_the_cross_sections_is_told_why(api: Api) -> None:
    no_ledger = api.ok(PATH.format(alpha="momentum_12_1"), token="no_portfolio")
    for name in SESSION_FIGURES:
        check_withheld(no_ledger["data"][name], name)
    assert no_ledger["data"]["sessions"] is None and no_ledger["data"]["rebuilt_mean_ic"]["value"] is not None
    assert any(w["code"] == "access_limited" for w in no_ledger["meta"]["warnings"])
    no_ic = api.ok(PATH.format(alpha="momentum_12_1"), token="no_signals")
    for name in WEEK_FIGURES:
        check_withheld(no_ic["data"][name], name)
    assert no_ic["data"]["weeks"] is None and no_ic["data"]["information_ratio"]["value"] is not None


def test_bad_input_is_a_400_and_a_short_window_is_not_measurable(api: Api) -> None:
    bad = api.get(PATH.format(alpha="momentum_12_1"), book="nope")
    assert bad.status_code == 400 and "book" in bad.text
    reversed_window = api.get(
        PATH.format(alpha="momentum_12_1"), **{"from": "2022-01-01", "to": "2021-01-01"}
    )
    assert reversed_window.status_code == 400
    data = answer(api, "momentum_12_1", ("2021-01-08", "2021-01-11"))
    entry = data["information_ratio"]
    assert (
        entry["value"] is None
        and entry["status"] == "not_measurable"
        and "fewer than 3" in entry["withheld_reason"]
    )


# ---------------------------------------------------------------- the optional policy check


@pytest.mark.parametrize(
    ("book", "window"), [("long_short", (None, None)), ("long_only", ("2021-03-01", "2021-12-31"))]
)
def test_the_optional_check_is_the_intervals_lower_bound(api: Api, book: str, window: Window) -> None:
    """Off by default (not in the battery, the policy's echo or the summary, as every optional
    check); on with a request's bound, its value is exactly the interval's lower bound and its
    verdict the comparison."""
    path = "/v1/alphas/momentum_12_1/analytics/checks"
    off = api.ok(path, book=book, **window_params(window))["data"]
    assert "information_ratio_lower_bound" not in {c["id"] for c in off["checks"]}
    assert "information_ratio_lower_bound" not in off["policy"]["thresholds"]
    lower = answer(api, "momentum_12_1", window, book)["information_ratio"]["lower"]
    for bound in (lower - 0.25, lower + 0.25):
        on = api.ok(path, book=book, min_information_ratio_lower_bound=bound, **window_params(window))["data"]
        entry = next(c for c in on["checks"] if c["id"] == "information_ratio_lower_bound")
        assert entry["value"] == lower and entry["threshold"] == {"min": bound}, entry
        assert entry["verdict"] == ("pass" if lower >= bound else "fail"), entry
        others = [c["verdict"] for c in on["checks"] if c["id"] != entry["id"]]
        assert others == [c["verdict"] for c in off["checks"]]
        assert on["summary"]["failed"] == off["summary"]["failed"] + (entry["verdict"] == "fail")


@pytest.mark.parametrize("alpha", ["momentum_12_1", "Test_planted_factor"])
def test_the_whole_history_points_are_the_sealed_metrics(api: Api, alpha: str) -> None:
    """Without from/to the answer is the `/metrics`-level one: its points reproduce the run's sealed
    core figures (the run computed them from the same ledger and IC) within 1e-9, the IC figures
    where the run's IC reproduces (these two alphas)."""
    whole = answer(api, alpha)
    metrics = api.ok(f"/v1/alphas/{alpha}/metrics", granularity="overall")["data"]
    core, conditioned = metrics["core"], metrics["rank_ic"]["conditioned"]
    pairs = {
        "information_ratio": core["information_ratio"],
        "excess_sharpe": core["excess_sharpe"],
        "max_drawdown_pct": core["max_drawdown_pct"],
        "turnover": core["annual_turnover"],
        "rebuilt_mean_ic": core["ic"],
        "rebuilt_icir": core["icir"],
        "rebuilt_hit_rate": conditioned["hit_rate"],
    }
    for name, sealed in pairs.items():
        assert close(whole[name]["value"], sealed["value"]), (alpha, name, whole[name]["value"], sealed)
