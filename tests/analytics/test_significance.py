"""/analytics/significance against independent recomputation: Sharpe and moments, the serial
correlation, the Sharpe ratio's standard error, PSR, MinTRL, the critical Sharpe ratio and the power
(the paper's reference code of López de Prado, Lipton and Zoonekynd 2025), DSR over the whole
catalogue's trials, the bootstrap's points and bounds (resamples rebuilt
explicitly from the resampler's blocks), Holm and BH over the family of alphas the key may read."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import (
    ALPHAS,
    EDGE_WINDOWS,
    PRODUCTION,
    Api,
    Window,
    random_windows,
    window_params,
)
from tests.analytics.helpers import check_stat, close

PATH = "/v1/alphas/{alpha}/analytics/significance"


def significance(
    api: Api, alpha: str, window: Window = (None, None), token: str = "raw", **params: Any
) -> dict[str, Any]:
    body = api.ok(PATH.format(alpha=alpha), token, **window_params(window), **params)
    assert body["meta"]["run"] == alpha
    data: dict[str, Any] = body["data"]
    return data


def check_significance(data: dict[str, Any], expected: dict[str, Any], where: Any) -> None:
    assert data["book"] == "long_short"
    assert data["sessions"] == expected["sessions"], where
    for name in (
        "sharpe",
        "skewness",
        "kurtosis",
        "serial_correlation",
        "sharpe_standard_error",
        "psr",
        "min_track_record",
        "critical_sharpe",
        "power",
        "dsr",
        "min_backtest_length",
    ):
        check_stat(data[name], expected[name], (where, name))
    assert data["min_backtest_length"]["trial_count"] == expected["trials.count"], where
    assert data["sharpe"]["periods_per_year"] == data["sharpe_standard_error"]["periods_per_year"] == 252
    assert data["power"]["sr_alternative"] == expected["sr_alternative"], where
    assert data["power"]["confidence"] == data["critical_sharpe"]["confidence"] == 0.95
    assert close(data["min_track_record"]["years"], expected["years"]), where
    assert data["min_track_record"]["confidence"] == 0.95
    trials = data["dsr"]["trials"]
    assert trials["count"] == expected["trials.count"], where
    assert close(trials["sharpe_variance"], expected["trials.sharpe_variance"]), where
    assert trials["sharpe_variance_alphas"] == expected["trials.sharpe_variance_alphas"], where
    assert close(trials["expected_max_sharpe"], expected["trials.expected_max_sharpe"]), where


@pytest.mark.parametrize("alpha", ALPHAS)
def test_significance_reproduces_over_random_windows(api: Api, lake: ref.Lake, alpha: str) -> None:
    rng = random.Random(f"significance:{alpha}")
    for window in random_windows(f"significance:{alpha}") + EDGE_WINDOWS:
        benchmarks = [0.0, 0.5, -1.0, 3.0] if window == (None, None) else [round(rng.uniform(-2, 2), 3)]
        for sr_benchmark in benchmarks:
            data = significance(api, alpha, window, sr_benchmark=sr_benchmark)
            expected = ref.significance(lake, alpha, window, sr_benchmark)
            check_significance(data, expected, (alpha, window, sr_benchmark))
            assert data["psr"]["sr_benchmark"] == sr_benchmark
            assert data["min_track_record"]["sr_benchmark"] == sr_benchmark
            assert data["dsr"]["trials"]["count_source"] == "catalogue"
            assert data["window"] == {"from": window[0], "to": window[1]}


def test_the_demo_has_measurable_and_unmeasurable_min_track_records(api: Api, lake: ref.Lake) -> None:
    """Guards the test above: both branches of MinTRL and the default benchmark are exercised."""
    measured = significance(api, "momentum_12_1")
    assert measured["min_track_record"]["status"] == "available"
    above = significance(api, "momentum_12_1", sr_benchmark=3.0)
    assert above["min_track_record"]["status"] == "not_measurable"
    assert above["min_track_record"]["years"] is None
    assert above["psr"]["value"] < measured["psr"]["value"]
    assert len(ref.catalogue_sharpes(lake)) == len(lake.alphas()) >= 5


@pytest.mark.parametrize("trials", [2, 10, 1000])
def test_trials_override_the_catalogue_count(api: Api, lake: ref.Lake, trials: int) -> None:
    for alpha in ("momentum_12_1", "Test_planted_factor"):
        data = significance(api, alpha, trials=trials)
        expected = ref.significance(lake, alpha, (None, None), 0.0, trials)
        check_significance(data, expected, (alpha, trials))
        assert data["dsr"]["trials"]["count_source"] == "request"
    more = significance(api, "momentum_12_1", trials=1000)["dsr"]["value"]
    fewer = significance(api, "momentum_12_1", trials=2)["dsr"]["value"]
    assert more < fewer  # more trials raise the bar


@pytest.mark.parametrize("sr_benchmark", [-100.0, 100.0])
def test_the_sr_benchmark_s_bounds_are_served_and_beyond_them_a_400(
    api: Api, lake: ref.Lake, sr_benchmark: float
) -> None:
    """At either bound the figures are the reference's (the PSR 0 or 1, not the 0.5 an overflowed
    variance gave: about 10^150 and beyond, sigma^2(SR*) was inf and (SR - SR*) / inf is 0); past
    it, a 400 naming sr_benchmark."""
    data = significance(api, "momentum_12_1", sr_benchmark=sr_benchmark)
    check_significance(
        data, ref.significance(lake, "momentum_12_1", (None, None), sr_benchmark), sr_benchmark
    )
    assert data["psr"]["value"] == pytest.approx(0.0 if sr_benchmark > 0 else 1.0, abs=1e-9)
    for beyond in (math.copysign(100.01, sr_benchmark), math.copysign(1e300, sr_benchmark)):
        response = api.get(PATH.format(alpha="momentum_12_1"), sr_benchmark=beyond)
        assert response.status_code == 400, response.text
        (problem,) = response.json()["error"]["details"]["parameters"]
        assert problem["name"] == "sr_benchmark" and problem["rule"].startswith("must be"), problem


def test_dsr_trials_do_not_depend_on_the_window(api: Api, lake: ref.Lake) -> None:
    whole = significance(api, "Test_planted_factor")["dsr"]["trials"]
    part = significance(api, "Test_planted_factor", ("2021-05-01", "2021-09-30"))["dsr"]["trials"]
    assert whole == part


# -- bootstrap --------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", ALPHAS)
def test_bootstrap_values_are_the_plain_statistics(api: Api, lake: ref.Lake, alpha: str) -> None:
    for window in random_windows(f"bootstrap:{alpha}", count=2) + EDGE_WINDOWS[:2]:
        boot = significance(api, alpha, window)["bootstrap"]
        assert boot["resamples"] >= 1000 and isinstance(boot["seed"], int)
        assert boot["confidence"] == 0.95
        for name, (value, n) in ref.bootstrap_points(lake, alpha, window).items():
            entry = boot[name]
            check_stat(entry, value, (alpha, window, name))
            assert entry["observations"] == n, (alpha, window, name)
            if window == (None, None) and value is not None:
                # The demo's whole histories: the point lies inside its interval.
                assert entry["lower"] <= value <= entry["upper"], (alpha, name, entry)
            if value is None:
                assert entry["lower"] is None and entry["upper"] is None


def without_request_fields(content: bytes) -> bytes:
    return re.sub(rb'"(request_id|generated_at)":"[^"]*"', b"", content)


@pytest.mark.parametrize("window", [(None, None), ("2021-03-01", "2021-12-31")])
def test_bootstrap_is_deterministic(api: Api, window: Window) -> None:
    path = PATH.format(alpha="momentum_12_1")
    first = api.get(path, **window_params(window))
    second = api.get(path, **window_params(window))
    assert first.status_code == second.status_code == 200
    assert without_request_fields(first.content) == without_request_fields(second.content)
    assert first.headers["etag"] == second.headers["etag"]


def test_bootstrap_differs_with_the_window(api: Api) -> None:
    a = significance(api, "momentum_12_1", ("2021-03-01", "2021-12-31"))["bootstrap"]
    b = significance(api, "momentum_12_1", ("2021-03-01", "2022-01-31"))["bootstrap"]
    for name in ("rebuilt_mean_ic", "rebuilt_icir", "information_ratio"):
        assert (a[name]["lower"], a[name]["upper"]) != (b[name]["lower"], b[name]["upper"]), name


def test_bootstrap_interval_covers_the_mean_of_ar1_series() -> None:
    """Unit under test: the resampler itself with its mean statistic (the only import from analytics/)."""
    import numpy as np

    from analytics import bootstrap

    phi, n, mu, series_count = 0.3, 300, 0.5, 200
    data_rng = np.random.default_rng(12345)
    rng = np.random.Generator(np.random.PCG64(777))
    covered = 0
    for _ in range(series_count):
        noise = data_rng.standard_normal(n + 100)
        x = np.empty(n + 100)
        x[0] = noise[0] / math.sqrt(1 - phi**2)
        for t in range(1, n + 100):
            x[t] = phi * x[t - 1] + noise[t]
        series = mu + x[100:]
        lower, upper, block = bootstrap.interval(series, bootstrap.mean_of_rows, rng)
        assert block == pytest.approx(politis_white(series), rel=1e-9)
        covered += lower <= mu <= upper
    assert 0.88 <= covered / series_count <= 0.99, covered


# The bounds, not just the points: every resample rebuilt explicitly from the resampler's blocks.

Statistic = Callable[[np.ndarray], np.ndarray]


def resample_means(samples: np.ndarray) -> np.ndarray:
    return samples.mean(axis=1)


def resample_ratios(samples: np.ndarray) -> np.ndarray:
    """mean / std(ddof=1) of each resample, NaN where the resample repeats one value (told exactly,
    by its range: its computed std is rounding, about 1e-16 of the value, not 0)."""
    sd = samples.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.ptp(samples, axis=1) > 0, samples.mean(axis=1) / sd, np.nan)


def explicit_resamples(x: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each row: x[(start + j) % n] for j < length, block after block, cut at n values."""
    n = x.size
    rows = []
    for row_starts, row_lengths in zip(starts, lengths, strict=True):
        within = np.arange(int(row_lengths.sum())) - np.repeat(
            np.cumsum(row_lengths) - row_lengths, row_lengths
        )
        index = (np.repeat(row_starts, row_lengths) + within) % n
        assert index.size >= n
        rows.append(x[index[:n]])
    return np.array(rows)


def politis_white(x: np.ndarray) -> float:
    """arch's Politis-White block length of the stationary bootstrap (tests/analytics/test_uncertainty.py
    compares the unit's with it), at least 1."""
    from arch.bootstrap import optimal_block_length

    return max(1.0, float(optimal_block_length(x)["stationary"].iloc[0]))


def explicit_interval(
    series: np.ndarray,
    statistic: Statistic,
    rng: np.random.Generator,
    resamples: int,
    confidence: float,
    block: float | None = None,
) -> tuple[float | None, float | None]:
    """The percentile interval of `statistic` over stationary-bootstrap resamples of the finite
    values, the blocks drawn by `analytics.bootstrap.draw_blocks` (the unit under test) with mean length
    `block` (None: arch's Politis-White length of the series); below 3 values nothing is drawn and
    there is no interval."""
    from analytics.bootstrap import draw_blocks

    x = np.asarray(series, float)
    x = x[np.isfinite(x)]
    n = x.size
    if n < 3:
        return None, None
    starts, lengths = draw_blocks(rng, n, resamples, politis_white(x) if block is None else block)
    draws = statistic(explicit_resamples(x, starts, lengths))
    draws = draws[np.isfinite(draws)]
    if draws.size == 0:
        return None, None
    tail = (1.0 - confidence) / 2.0
    lower, upper = np.quantile(draws, [tail, 1.0 - tail])
    return float(lower), float(upper)


def close12(a: float | None, b: float | None) -> bool:
    return close(a, b, rel_tol=1e-12)


@pytest.mark.parametrize("seed", [3, 20261122])
@pytest.mark.parametrize("n", [12, 61, 300])
def test_bootstrap_interval_bounds_are_the_quantiles_of_the_resamples(seed: int, n: int) -> None:
    """Unit under test: `analytics.bootstrap.interval` against the resamples rebuilt from its blocks,
    a fresh generator of the same seed for each. The series is AR(1)-like noise around 0.3, as an IC
    or a return series (no two values nearly equal: a resample's mean / std far above 1 would
    measure the float error of the unit's one-pass moments, not its bounds)."""
    from analytics import bootstrap

    noise = np.random.default_rng(n).standard_normal(n)
    x = 0.3 + 0.1 * (noise + 0.3 * np.concatenate([[0.0], noise[:-1]]))
    x[n // 2] = np.nan  # not finite: left out by both
    for unit, mine in ((bootstrap.mean_of_rows, resample_means), (bootstrap.ratio_of_rows, resample_ratios)):
        lower, upper, block = bootstrap.interval(x, unit, np.random.Generator(np.random.PCG64(seed)))
        expected = explicit_interval(
            x, mine, np.random.Generator(np.random.PCG64(seed)), bootstrap.RESAMPLES, bootstrap.CONFIDENCE
        )
        assert close12(lower, expected[0]) and close12(upper, expected[1]), (n, unit, lower, upper, expected)
        assert block == pytest.approx(politis_white(x[np.isfinite(x)]), rel=1e-9)


@pytest.mark.parametrize(
    ("alpha", "window"),
    [("momentum_12_1", (None, None)), ("Test_planted_factor", ("2021-03-01", "2021-12-31"))],
)
def test_served_bootstrap_bounds_are_the_quantiles_of_the_resamples(
    api: Api, lake: ref.Lake, alpha: str, window: Window
) -> None:
    """Each group of statistics from its own stream of the served seed, PCG64(SeedSequence([seed,
    stream])), with the served block length (tests/analytics/test_uncertainty.py checks it is arch's):
    stream 1 the weeks (finite weekly IC: mean_ic, icir), stream 0 the sessions (daily long_short
    returns: information_ratio), as /analytics/uncertainty draws them."""
    boot = significance(api, alpha, window)["bootstrap"]
    ic = lake.ic(alpha, window).to_numpy()
    returns = lake.returns(alpha, "long_short", window).to_numpy()
    for stream, name, series, statistic, scale in (
        (1, "rebuilt_mean_ic", ic, resample_means, 1.0),
        (1, "rebuilt_icir", ic, resample_ratios, math.sqrt(ref.WEEKS_PER_YEAR)),  # annualised, as every icir
        (0, "information_ratio", returns, resample_ratios, math.sqrt(ref.SESSIONS_PER_YEAR)),
    ):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([boot["seed"], stream])))
        block = boot[name]["block_length"]
        lower, upper = explicit_interval(series, statistic, rng, boot["resamples"], boot["confidence"], block)
        assert lower is not None and upper is not None, name
        entry = boot[name]
        assert close12(entry["lower"], lower * scale), (name, entry, lower * scale)
        assert close12(entry["upper"], upper * scale), (name, entry, upper * scale)


def three_value_windows(dates: list[str]) -> list[Window]:
    """Every window of 3 consecutive dates of `dates`."""
    return [(dates[i], dates[i + 2]) for i in range(len(dates) - 2)]


@pytest.mark.parametrize("alpha", ["momentum_12_1", "Test_planted_factor"])
def test_bootstrap_of_three_observations_ignores_resamples_of_one_value(
    api: Api, lake: ref.Lake, alpha: str
) -> None:
    """A window of 3 sessions (3 weeks for the IC): 1 in 9 resamples repeats one value. Such a
    resample has no standard deviation; its sums of squares come out near 1e-20, which once passed
    for one and put bounds near 1e9 (momentum_12_1 2021-01-13..2021-01-15: upper 1.17e9). The
    bounds are those of the resamples with two values or more, rebuilt explicitly (relative 1e-6:
    a resample of two nearly equal values is ill-conditioned in the unit's one-pass moments)."""
    returns = lake.returns(alpha, "long_short", (None, None))
    weeks = lake.ic(alpha, (None, None)).dropna()
    checked = 0
    for name, series_of, windows, scale in (
        (
            "information_ratio",
            lambda w: lake.returns(alpha, "long_short", w).to_numpy(),
            three_value_windows(list(returns.index)),
            math.sqrt(ref.SESSIONS_PER_YEAR),
        ),
        (
            "rebuilt_icir",
            lambda w: lake.ic(alpha, w).to_numpy(),
            three_value_windows(list(weeks.index)),
            math.sqrt(ref.WEEKS_PER_YEAR),
        ),
    ):
        stream = {"rebuilt_icir": 1, "information_ratio": 0}[name]
        for window in windows[::3]:
            boot = significance(api, alpha, window)["bootstrap"]
            entry = boot[name]
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([boot["seed"], stream])))
            lower, upper = explicit_interval(
                series_of(window),
                resample_ratios,
                rng,
                boot["resamples"],
                boot["confidence"],
                entry["block_length"],
            )
            where = (name, window, entry, lower, upper)
            assert entry["observations"] == 3, where
            assert close(entry["lower"], None if lower is None else lower * scale, 1e-6), where
            assert close(entry["upper"], None if upper is None else upper * scale, 1e-6), where
            checked += 1
    assert checked > 40


@pytest.mark.parametrize("value", [0.0123, 0.7])
def test_a_constant_series_has_no_ratio(value: float) -> None:
    """Unit under test: a series repeating one value has no ratio, point or interval, though its
    standard deviation and its resamples' one-pass sums of squares come out of the order of 1e-18,
    not 0 (these two values gave a point near 6e15 and an interval near 7e7); its mean is served."""
    from analytics import bootstrap

    x = np.full(7, value)
    rng = bootstrap.generator(bootstrap.SEED, 0)
    assert all(math.isnan(v) for v in bootstrap.interval(x, bootstrap.ratio_of_rows, rng)[:2])
    assert math.isnan(bootstrap.point(x, bootstrap.ratio_of_rows))
    assert bootstrap.point(x, bootstrap.mean_of_rows) == pytest.approx(value, rel=1e-15)


def session_dates(api: Api, alpha: str) -> list[str]:
    return [r["date"] for r in api.ok(f"/v1/alphas/{alpha}/portfolio", limit=1000)["data"]]


@pytest.mark.parametrize("alpha", ["momentum_12_1", "Test_planted_factor"])
@pytest.mark.parametrize("sessions", [1, 2, 3])
def test_significance_counts_the_sessions_of_the_window_as_portfolio_and_costs(
    api: Api, alpha: str, sessions: int
) -> None:
    """A window too short for a Sharpe ratio still has its sessions: the same count on
    significance, /portfolio and costs."""
    dates = session_dates(api, alpha)
    params = {"from": dates[10], "to": dates[10 + sessions - 1]}
    data = api.ok(PATH.format(alpha=alpha), **params)["data"]
    ledger = api.ok(f"/v1/alphas/{alpha}/portfolio", book="long_short", **params)
    costs = api.ok(f"/v1/alphas/{alpha}/analytics/costs", book="long_short", **params)["data"]
    assert data["sessions"] == ledger["pagination"]["total"] == costs["sessions"] == sessions
    assert (data["sharpe"]["status"] == "available") == (sessions >= 3)


# -- multiple testing -------------------------------------------------------------------------------


def readable(token: str, alpha: str) -> bool:
    return token != "testonly" or alpha.startswith("Test_")


@pytest.fixture(scope="module")
def p_values(api: Api, lake: ref.Lake) -> dict[str, float | None]:
    """Every catalogue alpha's served /metrics nwt.ic.p_value (raw key)."""
    out = {}
    for alpha in lake.alphas():
        ic = api.ok(f"/v1/alphas/{alpha}/metrics")["data"]["nwt"]["ic"]
        out[alpha] = None if ic is None else ic.get("p_value")
    return out


def family_of(token: str, p_values: dict[str, float | None]) -> dict[str, float]:
    """The Holm/BH family of a key: the measurable p-values of the alphas it may read."""
    return {a: p for a, p in p_values.items() if p is not None and readable(token, a)}


def test_the_family_has_both_kinds_of_member(p_values: dict[str, float | None]) -> None:
    assert sum(v is None for v in p_values.values()) >= 1
    assert sum(v is not None for v in p_values.values()) >= 3
    assert len(family_of("raw", p_values)) == 5 and len(family_of("testonly", p_values)) == 4
    assert any(p_values[a] is not None for a in PRODUCTION)


@pytest.mark.parametrize(
    ("token", "alpha"),
    [(t, a) for t in ("raw", "plain", "testonly") for a in ALPHAS if readable(t, a)],
)
def test_holm_and_bh_adjust_over_the_readable_family(
    api: Api, alpha: str, token: str, p_values: dict[str, float | None]
) -> None:
    family = family_of(token, p_values)
    holm, bh = ref.adjusted(family, alpha)
    for window in [(None, None), ("2021-06-01", "2021-10-01")]:  # whole-history figures either way
        mt = significance(api, alpha, window, token)["multiple_testing"]
        check_stat(mt["p_value"], p_values[alpha], (alpha, token, "p_value"))
        check_stat(mt["holm"], holm, (alpha, token, "holm"))
        check_stat(mt["benjamini_hochberg"], bh, (alpha, token, "bh"))
        assert mt["holm"]["family_size"] == mt["benjamini_hochberg"]["family_size"] == len(family)


def test_a_test_only_key_s_adjusted_p_values_carry_no_production_p_value(
    api: Api, p_values: dict[str, float | None]
) -> None:
    """An adjusted p-value is some family member's p-value times m / j: for the testonly key none
    is a production alpha's (they are the Test_-only family's adjustment), while the full key's
    are, for some alpha (so the check can fail)."""
    production = [p for a, p in p_values.items() if a in PRODUCTION and p is not None]
    size = len(p_values)
    products = [p * m / j for p in production for m in range(1, size + 1) for j in range(1, m + 1)]
    test_only, full = family_of("testonly", p_values), family_of("raw", p_values)
    full_leaks = False
    for alpha in (a for a in ALPHAS if a.startswith("Test_")):
        mt = significance(api, alpha, token="testonly")["multiple_testing"]
        for name, expected in zip(
            ("holm", "benjamini_hochberg"), ref.adjusted(test_only, alpha), strict=True
        ):
            served = mt[name]["value"]
            check_stat(mt[name], expected, (alpha, name))
            assert not any(close(served, x) for x in products if served is not None), (alpha, name, served)
        for served in ref.adjusted(full, alpha):
            full_leaks |= served is not None and any(close(served, x) for x in products)
    assert full_leaks


def test_only_the_catalogue_figures_depend_on_the_key(api: Api, lake: ref.Lake) -> None:
    """Every figure but the DSR's and Holm and BH is the same for every key that may read the alpha;
    the DSR's trial count stays the whole catalogue's (7 alphas) for the testonly key, while the
    variance of the trials' Sharpe ratios is over the alphas it may read (docs/analytics.md)."""
    for alpha in ("Test_planted_factor", "Test_small_universe"):
        path = PATH.format(alpha=alpha)
        raw = api.ok(path, "raw")["data"]
        assert api.ok(path, "plain")["data"] == raw
        testonly = api.ok(path, "testonly")["data"]
        # V, the clusters, the family and M: the key's
        catalogue = ("dsr", "effective_dsr", "clustered_dsr", "multiple_testing", "sharpe_haircut")
        assert {k: v for k, v in testonly.items() if k not in catalogue} == {
            k: v for k, v in raw.items() if k not in catalogue
        }
        # The effective trials: the 5 Test_ alphas' clusters, the 2 others one each (7: none linked).
        assert testonly["dsr"]["trials"]["effective_count"] == raw["dsr"]["trials"]["effective_count"] == 7
        assert testonly["dsr"]["trials"]["count"] == raw["dsr"]["trials"]["count"] == 7
        expected = ref.significance(lake, alpha, (None, None), readable=lambda a: a.startswith("Test_"))
        check_significance(testonly, expected, (alpha, "testonly"))
        assert testonly["dsr"]["trials"]["sharpe_variance_alphas"] == 5
        assert raw["dsr"]["trials"]["sharpe_variance_alphas"] == 7
        assert testonly["multiple_testing"]["p_value"] == raw["multiple_testing"]["p_value"]
        assert testonly["multiple_testing"]["holm"]["family_size"] == 4
        assert raw["multiple_testing"]["holm"]["family_size"] == 5


def mismatch_warnings(body: dict[str, Any]) -> list[dict[str, str]]:
    return [w for w in body["meta"].get("warnings", []) if w["code"] == "ic_reproduction_mismatch"]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_significance_warns_where_metrics_says_the_ic_does_not_reproduce(api: Api, alpha: str) -> None:
    """One rule on both routes: an alpha whose sealed mean IC does not reproduce from the weekly IC
    (`/metrics` nwt.ic null with ic_reproduction_mismatch) carries the same warning, and the same
    reason, on significance, whose bootstrap.mean_ic resamples that weekly IC; no other alpha does."""
    metrics = mismatch_warnings(api.ok(f"/v1/alphas/{alpha}/metrics"))
    for window in [(None, None), ("2021-06-01", "2021-10-01")]:
        body = api.ok(PATH.format(alpha=alpha), "raw", **window_params(window))
        served = mismatch_warnings(body)
        assert len(served) == len(metrics) <= 1, (alpha, window, served, metrics)
        if not metrics:
            continue
        reason = metrics[0]["message"].removesuffix("; nwt.ic is null.")
        assert served[0]["block"] == "significance.bootstrap"
        assert served[0]["message"].startswith(reason + ";"), served
        assert "bootstrap.rebuilt_mean_ic" in served[0]["message"]
        # The figures stay served: the warning says what they are computed from.
        assert body["data"]["bootstrap"]["rebuilt_mean_ic"]["status"] == "available"
    # A key that may not read the cross-sections gets them withheld, and no mismatch warning.
    if alpha in PRODUCTION:
        assert mismatch_warnings(api.ok(PATH.format(alpha=alpha), "no_signals")) == []


def test_the_demo_has_an_alpha_whose_ic_does_not_reproduce(api: Api) -> None:
    """Guards the test above: value_composite_legacy is the demo's mismatch."""
    assert mismatch_warnings(api.ok(PATH.format(alpha="value_composite_legacy")))
    assert api.ok("/v1/alphas/value_composite_legacy/metrics")["data"]["nwt"]["ic"] is None
