"""/analytics/significance against independent recomputation: Sharpe and moments, PSR, MinTRL,
DSR over the catalogue's trials, the bootstrap's point values and disclosure, Holm and BH."""

from __future__ import annotations

import math
import random
import re
from typing import Any

import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, EDGE_WINDOWS, Api, Window, random_windows, window_params
from tests.analytics.helpers import check_stat, close

PATH = "/v1/alphas/{alpha}/analytics/significance"


def significance(api: Api, alpha: str, window: Window = (None, None), **params: Any) -> dict[str, Any]:
    body = api.ok(PATH.format(alpha=alpha), **window_params(window), **params)
    assert body["meta"]["run"] == alpha
    data: dict[str, Any] = body["data"]
    return data


def check_significance(data: dict[str, Any], expected: dict[str, Any], where: Any) -> None:
    assert data["book"] == "long_short"
    assert data["sessions"] == expected["sessions"], where
    for name in ("sharpe", "skewness", "kurtosis", "psr", "min_track_record", "dsr"):
        check_stat(data[name], expected[name], (where, name))
    assert data["sharpe"]["periods_per_year"] == 252
    assert close(data["min_track_record"]["years"], expected["years"]), where
    assert data["min_track_record"]["confidence"] == 0.95
    trials = data["dsr"]["trials"]
    assert trials["count"] == expected["trials.count"], where
    assert close(trials["sharpe_variance"], expected["trials.sharpe_variance"]), where
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
            if n >= 3:
                assert entry["block_length"] == max(1, round(n ** (1 / 3))), (alpha, window, name)
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
    for name in ("mean_ic", "icir", "information_ratio"):
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
        assert block == round(n ** (1 / 3))
        covered += lower <= mu <= upper
    assert 0.88 <= covered / series_count <= 0.99, covered


# -- multiple testing -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def p_values(api: Api, lake: ref.Lake) -> dict[str, float | None]:
    """Every catalogue alpha's served /metrics nwt.ic.p_value (raw key)."""
    out = {}
    for alpha in lake.alphas():
        ic = api.ok(f"/v1/alphas/{alpha}/metrics")["data"]["nwt"]["ic"]
        out[alpha] = None if ic is None else ic.get("p_value")
    return out


def test_the_family_has_both_kinds_of_member(p_values: dict[str, float | None]) -> None:
    assert sum(v is None for v in p_values.values()) >= 1
    assert sum(v is not None for v in p_values.values()) >= 3


@pytest.mark.parametrize("alpha", ALPHAS)
def test_holm_and_bh_adjust_over_the_catalogue_family(
    api: Api, alpha: str, p_values: dict[str, float | None]
) -> None:
    family = {a: p for a, p in p_values.items() if p is not None}
    holm, bh = ref.adjusted(family, alpha)
    for window in [(None, None), ("2021-06-01", "2021-10-01")]:  # whole-history figures either way
        mt = significance(api, alpha, window)["multiple_testing"]
        check_stat(mt["p_value"], p_values[alpha], (alpha, "p_value"))
        check_stat(mt["holm"], holm, (alpha, "holm"))
        check_stat(mt["benjamini_hochberg"], bh, (alpha, "bh"))
        assert mt["holm"]["family_size"] == mt["benjamini_hochberg"]["family_size"] == len(family)


def test_significance_does_not_depend_on_the_key(api: Api) -> None:
    """The catalogue aggregates are the same for every key (no key sees a smaller catalogue)."""
    path = PATH.format(alpha="Test_planted_factor")
    raw = api.ok(path, "raw")["data"]
    assert api.ok(path, "plain")["data"] == raw
    assert api.ok(path, "testonly")["data"] == raw
