"""The windowed `/metrics` figures from prefix sums (issue 61, item 2): equal to a direct
recomputation on random windows of a twenty-year series, and read with work that does not grow with
the window (rows counted, never timed)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import random
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from analytics.entries import DateWindow
from analytics.metrics import MetricsInputs
from analytics.newey_west import NonpositiveVariance
from analytics.windows import PrefixSums, WindowSeries
from schemas.bodies.metrics import NEWEY_WEST_MIN_N
from tests.metrics.factory import ALL_ACCESS, make_inputs, metrics_json

REL = 1e-9
TWENTY_YEARS = 1043  # weeks: 5,220 sessions, 9,250 decile rows


def close(a: float | None, b: float) -> bool:
    return a is not None and abs(a - b) <= REL * max(1.0, abs(b))


def lag_of(n: int, floor: int = 0) -> int:
    """Newey and West (1994), written out again: floor(4 (n/100)^(2/9)), at least `floor`, below n."""
    return max(0, min(max(math.floor(4.0 * (n / 100.0) ** (2.0 / 9.0)), floor), n - 1))


def hac(values: np.ndarray, floor: int = 0) -> dict[str, float]:
    fit = sm.OLS(values, np.ones_like(values)).fit(
        cov_type="HAC", cov_kwds={"maxlags": lag_of(values.size, floor)}
    )
    return {
        "mean": float(fit.params[0]),
        "standard_error": float(fit.bse[0]),
        "t_statistic": float(fit.tvalues[0]),
        "p_value": float(fit.pvalues[0]),
    }


def assert_hac(served: dict[str, Any] | None, values: np.ndarray, floor: int = 0) -> None:
    if values.size < NEWEY_WEST_MIN_N:
        assert served is None
        return
    assert served is not None
    expected = hac(values, floor)
    assert served["n"] == values.size and served["lag"] == lag_of(values.size, floor)
    for key, value in expected.items():
        assert close(served[key], value), (key, served[key], value)


@pytest.fixture(scope="module")
def twenty_years() -> MetricsInputs:
    """Twenty years of weeks, the raw IC moved far from zero against its spread (mean 5, standard
    deviation 0.12): the case where a variance by prefix difference would cancel."""
    inputs = make_inputs(weeks=TWENTY_YEARS)
    weekly = dict(inputs.weekly_signal or {})
    weekly["raw_ic"] = weekly["raw_ic"] + 5.0
    return dataclasses.replace(inputs, weekly_signal=weekly, derived={})


def random_windows(inputs: MetricsInputs, count: int, seed: int) -> list[tuple[dt.date, dt.date]]:
    assert inputs.ledger is not None
    first, last = inputs.ledger["date"][0].item(), inputs.ledger["date"][-1].item()
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        days = rng.choice([30, 120, 365, 3 * 365, 10 * 365, (last - first).days])
        start = first + dt.timedelta(days=rng.randint(-10, max(0, (last - first).days - days)))
        out.append((start, start + dt.timedelta(days=days)))
    return out


def frame(columns: dict[str, np.ndarray], start: dt.date, end: dt.date) -> pd.DataFrame:
    table = pd.DataFrame({k: list(v) if v.dtype == object else v for k, v in columns.items()})
    return table[(table["date"] >= np.datetime64(start)) & (table["date"] <= np.datetime64(end))]


@pytest.mark.parametrize("seed", range(3))
def test_random_windows_equal_a_direct_recomputation(twenty_years: MetricsInputs, seed: int) -> None:
    inputs = twenty_years
    assert inputs.weekly_signal is not None and inputs.weekly_deciles is not None
    assert inputs.ledger is not None and inputs.rebalances is not None
    for start, end in random_windows(inputs, 12, seed):
        data, _ = metrics_json(inputs, "overall", start, end, True, ALL_ACCESS)
        where = f"{start}..{end}"

        rebalances = frame(inputs.rebalances, start, end)
        tenure = data["core"]["tenure"]
        assert tenure["weeks"] == len(rebalances), where
        assert tenure["traded_weeks"] == int((rebalances["week_status"] == "traded").sum()), where

        ledger = frame(inputs.ledger, start, end)
        returns = (ledger["ending_equity"] / ledger["starting_equity"] - 1.0).to_numpy()
        assert_hac(data["nwt"]["ir"], returns)
        raw_ic = frame(inputs.weekly_signal, start, end)["raw_ic"].dropna().to_numpy()
        assert_hac(data["nwt"]["ic_score_panel"], raw_ic)

        weekly = frame(inputs.weekly_signal, start, end)
        used = weekly[weekly["decile_eligible"] & (weekly["n_forward_returns"] > 0)]["date"]
        deciles = frame(inputs.weekly_deciles, start, end)
        deciles = deciles[deciles["date"].isin(used)]
        by_bucket = deciles.groupby("bucket")
        served = data["ic_deciles"]
        if used.empty:
            assert served is None
            continue
        assert served["weeks"] == len(used), where
        assert served["weeks_skipped"] == int((~weekly["decile_eligible"]).sum()), where
        for bucket in served["buckets"]:
            rows = by_bucket.get_group(float(bucket["rank"]))
            assert bucket["weeks"] == len(rows), where
            assert bucket["n_return_obs"] == int(rows["n_return_obs"].fillna(0).sum()), where
            assert close(bucket["mean_n_symbols"], rows["n_symbols"].mean()), where
            for name in ("mean_score", "mean_forward_return", "ic", "mean_long_only_weight"):
                assert close(bucket[name], rows[name].mean()), (where, name)

        term = frame(inputs.weekly_term or {}, start, end)
        for point in data["panel"]["ic_term_structure"]:
            ic = term[term["horizon_weeks"] == point["horizon_weeks"]]["ic"].dropna().to_numpy()
            assert point["weeks"] == ic.size and close(point["mean_ic"], ic.mean()), where
            assert_hac(point["newey_west"], ic, point["horizon_weeks"] - 1)
        autocorr = frame(inputs.weekly_autocorr or {}, start, end)
        for point in data["panel"]["rank_autocorrelation"]:
            rho = autocorr[autocorr["lag_weeks"] == point["lag_weeks"]]["rho"].dropna().to_numpy()
            assert point["weeks"] == rho.size and close(point["rho"], rho.mean()), where


def test_a_constant_window_is_refused_as_before() -> None:
    """A window whose values are all equal has no t statistic (the prefix sums count the changes)."""
    days = np.datetime64("2021-01-08") + 7 * np.arange(60)
    values = np.r_[np.linspace(0.0, 1.0, 20), np.full(30, 0.25), np.linspace(1.0, 0.0, 10)]
    series = WindowSeries.of(days, values)
    with pytest.raises(NonpositiveVariance):
        series.newey_west(DateWindow(days[20].item(), days[49].item()))
    assert series.newey_west(DateWindow(days[19].item(), days[49].item())).n == 31


def test_compensated_prefix_sums_keep_a_short_windows_digits() -> None:
    """A week's sum at the end of twenty years of values far from zero: within a few units in the
    last place of the exact sum (math.fsum), where a plain prefix difference loses about N eps."""
    rng = np.random.default_rng(11)
    values = 1e4 + rng.normal(0.0, 1e-3, 5220)
    sums = PrefixSums.of(values)
    plain = np.r_[0.0, np.cumsum(values)]
    worst = worst_plain = 0.0
    for a in range(0, 5215, 7):
        exact = math.fsum(values[a : a + 5].tolist())
        worst = max(worst, abs(float(sums.between(a, a + 5)[0]) - exact) / math.ulp(exact))
        worst_plain = max(worst_plain, abs(float(plain[a + 5] - plain[a]) - exact) / math.ulp(exact))
    assert worst <= 2.0
    assert worst_plain > 100.0  # why the sums are compensated


class Untouchable:
    """A column a request must not read: any use of it fails its block (a `block_error`)."""

    def __getitem__(self, key: Any) -> Any:
        raise AssertionError("a request read a row of the series")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a request read the series")

    def __len__(self) -> int:
        raise AssertionError("a request measured the series")


def counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the prefix-sum rows a request reads: two per `between`, and per `lagged` (a Newey-West
    test's sums over lags 0..L) the rows at b and b - j, a + j for each lag, of both halves."""
    reads: list[int] = []
    between, lagged = PrefixSums.between, PrefixSums.lagged

    def counted_between(self: PrefixSums, a: int, b: int) -> np.ndarray:
        reads.append(2)
        return between(self, a, b)

    def counted_lagged(
        self: PrefixSums, a: int, b: int, lag: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        reads.append(2 * (lag + 1) + 2)
        return lagged(self, a, b, lag)

    monkeypatch.setattr(PrefixSums, "between", counted_between)
    monkeypatch.setattr(PrefixSums, "lagged", counted_lagged)
    return reads


def test_a_windows_cost_does_not_grow_with_its_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the build's prefix sums are made, a window's figures read no row of the series it sums
    (the value columns are made unreadable) and a bounded number of prefix-sum rows: the same bound
    for a month, a year and twenty years (5,220 sessions, 1,043 weeks)."""
    inputs = make_inputs(weeks=TWENTY_YEARS)
    assert (
        inputs.ledger is not None and inputs.weekly_signal is not None and inputs.weekly_deciles is not None
    )
    first, last = inputs.ledger["date"][0].item(), inputs.ledger["date"][-1].item()
    windows = {
        "a month": (dt.date(2030, 3, 1), dt.date(2030, 3, 31)),
        "a year": (dt.date(2030, 1, 1), dt.date(2030, 12, 31)),
        "twenty years": (first, last),
    }
    before = {
        name: metrics_json(inputs, "overall", a, b, False, ALL_ACCESS) for name, (a, b) in windows.items()
    }

    for column in ("raw_ic", "ic", "n_forward_returns", "decile_eligible", "week_status"):
        inputs.weekly_signal[column] = Untouchable()  # type: ignore[assignment]
    for column in list(inputs.weekly_deciles):
        if column != "date":
            inputs.weekly_deciles[column] = Untouchable()  # type: ignore[assignment]
    for column in ("starting_equity", "ending_equity"):
        inputs.ledger[column] = Untouchable()  # type: ignore[assignment]
    assert inputs.rebalances is not None
    inputs.rebalances["week_status"] = Untouchable()  # type: ignore[assignment]

    reads = counting(monkeypatch)
    read_per_window = {}
    for name, (a, b) in windows.items():
        reads.clear()
        after = metrics_json(inputs, "overall", a, b, False, ALL_ACCESS)
        assert after == before[name], name  # the same answer, warnings included: no block failed
        read_per_window[name] = sum(reads)
    # What a window reads: per Newey-West test (nwt.ir on sessions, nwt.ic_score_panel on weeks)
    # its sum (2 rows) and its lagged sums (2 (L + 1) + 2 rows, lags 0..L); the deciles' two sums
    # (4 rows). L grows as n^(2/9) and is at most the whole series' lag: the bound below, against
    # the 15,000-odd rows the twenty-year window spans.
    bound = sum(2 + 2 * (lag_of(n) + 1) + 2 for n in (inputs.ledger["date"].size, TWENTY_YEARS)) + 4
    spanned = inputs.ledger["date"].size + TWENTY_YEARS + inputs.weekly_deciles["date"].size
    assert all(0 < read <= bound for read in read_per_window.values()), (read_per_window, bound)
    assert read_per_window["twenty years"] == bound and bound * 100 < spanned
