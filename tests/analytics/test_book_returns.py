"""/analytics/returns against an independent recomputation: the book's monthly and yearly returns by
pandas' resample and compounding (prod(1 + r) - 1) of the ledger's Parquet files, SPY's year over the
book's sessions the same way from its sealed closes, and the trailing beta by numpy's polyfit over
each 126-session window; for every ledger book of a few alphas over random windows. And the
benchmark's figures withheld from a key without benchmarks.daily."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, Api, random_windows, serving, window_params
from tests.analytics.helpers import close
from tests.support import risk_figures as base

PATH = "/v1/alphas/{alpha}/analytics/returns"
WINDOW, LEAST = 126, 63
spy = base.spy  # SPY's return basis and daily returns from the sealed closes


def compounded(r: pd.Series, freq: str) -> pd.Series:
    s = pd.Series(r.to_numpy(), index=pd.DatetimeIndex(pd.to_datetime(r.index))).dropna()
    grouped = s.resample(freq)
    growth = grouped.apply(lambda x: float(np.prod(1.0 + x.to_numpy())) - 1.0)
    return growth[grouped.count() > 0]


def polyfit_beta(r: np.ndarray, b: np.ndarray) -> list[float | None]:
    out: list[float | None] = [None] * r.size
    for end in range(WINDOW - 1, r.size):
        y, x = r[end - WINDOW + 1 : end + 1], b[end - WINDOW + 1 : end + 1]
        both = np.isfinite(y) & np.isfinite(x)
        if both.sum() < LEAST or np.ptp(x[both]) == 0:
            continue
        out[end] = float(np.polyfit(x[both], y[both], 1)[0])
    return out


@pytest.mark.parametrize("alpha", ALPHAS[:3])
def test_served_calendar_returns_and_beta_match_pandas_and_polyfit(
    api: Api, lake: ref.Lake, spy: tuple[str, pd.Series], alpha: str
) -> None:
    basis, spy_returns = spy
    for window in random_windows(f"returns-{alpha}", 2):
        body = api.ok(PATH.format(alpha=alpha), book="long_short", **window_params(window))["data"]
        r = lake.returns(alpha, "long_short", window)
        assert body["return_basis"] == basis and body["benchmark"] == "SPY"
        months = compounded(r, "ME")
        assert [m["month"] for m in body["months"]] == [d.strftime("%Y-%m") for d in months.index]
        for served, expected in zip(body["months"], months.to_numpy(), strict=True):
            assert close(served["book_return"], float(expected)), (served, expected)
        years = compounded(r, "YE")
        b = spy_returns.reindex(r.index)
        bench_years = compounded(b, "YE")
        assert [y["year"] for y in body["years"]] == [d.year for d in years.index]
        for served, (day, expected) in zip(body["years"], years.items(), strict=True):
            assert close(served["book_return"], float(expected))
            want = bench_years.get(day)
            assert (served["benchmark_return"] is None) == (want is None or math.isnan(want))
            if want is not None and not math.isnan(want):
                assert close(served["benchmark_return"], float(want))
        points = body["beta"]["points"]
        assert [p["date"] for p in points] == list(r.index)
        betas = polyfit_beta(r.to_numpy(float), b.to_numpy(float))
        for served, expected in zip(points, betas, strict=True):
            assert (served["beta"] is None) == (expected is None), (served, expected)
            if expected is not None:
                assert math.isclose(served["beta"], expected, rel_tol=1e-7, abs_tol=1e-10)
        assert any(p["beta"] is not None for p in points) or len(points) < WINDOW


def test_without_benchmarks_daily_the_benchmark_figures_are_withheld(demo_lake) -> None:  # type: ignore[no-untyped-def]
    with serving(demo_lake, {"nob": base.NO_BENCHMARK}) as api:
        body = api.ok(PATH.format(alpha=ALPHAS[0]), token="nob")
    data = body["data"]
    assert data["return_basis"] is None and data["beta"]["points"] is None
    assert all(y["benchmark_return"] is None for y in data["years"]) and data["months"]
    # The whole history holds sessions the demo's vendor correction restated: said apart (issue 64).
    restated = base.restated_in(demo_lake, ALPHAS[0], (None, None))
    warnings = base.without_restated(body["meta"]["warnings"], ALPHAS[0], restated)
    assert {w["block"] for w in warnings} >= {"beta", "years[].benchmark_return"}
