"""`/v1/benchmarks/{symbol}/daily` checked against numpy over the lake's Parquet."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from datasets import catalog
from schemas import wire
from tests.api.conftest import Api


def _daily(lake: Path) -> pl.DataFrame:
    build = catalog.current_benchmark(str(lake), "SPY")
    assert build is not None
    return pl.read_parquet(Path(build.build_dir) / "daily.parquet").sort("date")


@pytest.mark.parametrize("window", [{}, {"from": "2021-05-01", "to": "2021-10-31"}])
def test_series_and_summary(api: Api, demo_lake: Path, window: dict[str, str]) -> None:
    daily = _daily(demo_lake)
    if window:
        daily = daily.filter(pl.col("date").is_between(pl.date(2021, 5, 1), pl.date(2021, 10, 31)))
    basis = "adjusted_close" if daily["adjusted_close"].null_count() == 0 else "close"
    price = daily[basis].to_numpy()
    peak = np.maximum.accumulate(price)
    body = api.ok("/v1/benchmarks/SPY/daily", **window)
    rows = api.all_pages("/v1/benchmarks/SPY/daily", limit=41, **window)
    assert body["pagination"]["limit"] == 500
    assert list(rows[0]) == list(wire.BENCHMARK_FIELDS)
    assert [r["close"] for r in rows] == daily["close"].to_list()
    assert rows[0]["period_return"] is None and rows[0]["cumulative_return"] == 0.0
    assert [r["period_return"] for r in rows[1:]] == pytest.approx((price[1:] / price[:-1] - 1).tolist())
    assert [r["cumulative_return"] for r in rows] == pytest.approx((price / price[0] - 1).tolist())
    assert [r["drawdown_pct"] for r in rows] == pytest.approx(((peak - price) / peak * 100).tolist())
    summary = body["meta"]["summary"]
    assert list(summary) == list(wire.BENCHMARK_SUMMARY_FIELDS)
    assert summary["return_basis"] == basis
    assert summary["sessions"] == daily.height
    assert summary["total_return"] == pytest.approx(price[-1] / price[0] - 1)
    assert summary["max_drawdown_pct"] == pytest.approx(((peak - price) / peak * 100).max())
    assert body["meta"]["symbol"] == "SPY"


def test_return_basis_is_adjusted_only_when_complete(api: Api, demo_lake: Path) -> None:
    daily = _daily(demo_lake)
    complete = daily.filter(pl.col("adjusted_close").is_not_null())
    # The demo index records adjusted prices only after its first sessions (docs/seal.md).
    assert 0 < complete.height < daily.height
    day = complete["date"][-1].isoformat()
    body = api.ok("/v1/benchmarks/SPY/daily", **{"from": day, "to": day})
    assert body["meta"]["summary"]["return_basis"] == "adjusted_close"


def test_unsupported_symbol(api: Api) -> None:
    error = api.error("/v1/benchmarks/QQQ/daily", 400, "bad_request", limit="0")
    assert [p["name"] for p in error["details"]["parameters"]] == ["limit", "symbol"]
    assert error["details"]["available"] == ["SPY"]
    api.error("/v1/benchmarks/spy/daily", 400, "bad_request")
