"""Books, ledger, positions, P&L, trades and the equity curve against the small demo lake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from schemas import wire
from tests.api.conftest import Api
from tests.api.lakedata import table

ALPHA = "Test_planted_factor"
BASE = f"/v1/alphas/{ALPHA}"


def test_books_rows_order_and_raw_visibility(api: Api) -> None:
    plain = api.ok(f"{BASE}/books", token="plain")
    assert plain["pagination"]["total"] == 12
    assert not [r for r in plain["data"] if r["raw"] or r["book"].startswith("raw_")]
    raw = api.ok(f"{BASE}/books")
    assert raw["pagination"]["total"] == 24
    assert set(raw["data"][0]) == {"book", "kind", "raw", "sessions", "rows", "from", "to"}
    pairs = [(r["book"], r["kind"]) for r in raw["data"]]
    assert pairs[:8] == [(b, k) for b in ("long_short", "long_only") for k in wire.BOOK_KINDS]
    assert pairs[8:16] == [(b, k) for b in ("raw_long_short", "raw_long_only") for k in wire.BOOK_KINDS]
    assert pairs[16:] == [
        (f"{b}_{v}", "trades") for b in wire.BASE_BOOKS for v in ("adjustments", "settlements")
    ]
    assert api.all_pages(f"{BASE}/books", limit=5) == raw["data"]


def test_books_of_an_incomplete_run_warn_per_missing_kind(api: Api) -> None:
    body = api.ok("/v1/alphas/Test_low_vol_incomplete/books")
    assert {w["kind"] for w in body["meta"]["warnings"]} == {"pnl", "trades"}
    assert {r["kind"] for r in body["data"]} == {"portfolio", "positions"}
    empty = api.ok("/v1/alphas/Test_low_vol_incomplete/pnl")
    assert empty["data"] == [] and empty["pagination"]["total"] == 0
    assert empty["meta"]["warnings"][0]["code"] == "kind_missing"
    assert empty["meta"]["warnings"][0]["kind"] == "pnl"


def test_book_is_checked_even_when_the_dataset_is_missing(api: Api) -> None:
    path = "/v1/alphas/Test_low_vol_incomplete/pnl"
    served = api.ok(path, "plain", book="long_only")
    assert served["meta"]["book"] == "long_only" and served["meta"]["warnings"][0]["kind"] == "pnl"
    bogus = api.error(path, 400, "unknown_book", "plain", book="bogus")
    hidden = api.error(path, 400, "unknown_book", "plain", book="raw_long_short")
    assert bogus["details"]["available"] == hidden["details"]["available"] == ["long_short", "long_only"]
    assert api.ok(path, "raw", book="raw_long_short")["meta"]["book"] == "raw_long_short"
    trades = api.error("/v1/alphas/Test_low_vol_incomplete/trades", 400, "bad_request", "plain")
    assert trades["details"]["available"] == ["long_short", "long_only"]


def test_ledger_rows(api: Api, demo_lake: Path) -> None:
    body = api.ok(f"{BASE}/portfolio", limit=5000)
    expected = table(demo_lake, ALPHA, "portfolio").filter(pl.col("book") == "long_short").sort("date")
    assert [r["date"] for r in body["data"]] == [d.isoformat() for d in expected["date"]]
    assert list(body["data"][0]) == list(wire.PORTFOLIO_FIELDS)
    assert body["meta"]["book"] == "long_short"
    assert body["data"][0]["timestamp"].endswith("Z")
    for row in body["data"]:
        assert row["cash_end"] + row["position_value_end"] == pytest.approx(row["ending_equity"])


def test_portfolio_rejects_symbol(api: Api) -> None:
    error = api.error(f"{BASE}/portfolio", 400, "bad_request", symbol="ABC")
    assert error["details"]["parameters"][0]["name"] == "symbol"
    assert "/positions" in error["details"]["parameters"][0]["rule"]


@pytest.mark.parametrize("path", ["portfolio", "positions", "pnl", "equity-curve"])
def test_unknown_and_invisible_books(api: Api, path: str) -> None:
    error = api.error(f"{BASE}/{path}", 400, "unknown_book", book="nope")
    assert error["details"]["available"] == ["long_short", "long_only", "raw_long_short", "raw_long_only"]
    hidden = api.error(f"{BASE}/{path}", 400, "unknown_book", token="plain", book="raw_long_short")
    assert hidden["details"]["available"] == ["long_short", "long_only"]
    missing = api.error(f"{BASE}/{path}", 400, "unknown_book", token="plain", book="raw_nope")
    assert set(hidden) == set(missing) and hidden["message"].replace("raw_long_short", "X") == missing[
        "message"
    ].replace("raw_nope", "X")


def test_trades_require_a_book_and_list_the_available_ones(api: Api) -> None:
    error = api.error(f"{BASE}/trades", 400, "bad_request", token="plain")
    assert error["details"]["parameters"][0]["name"] == "book"
    assert error["details"]["available"] == [
        "long_short", "long_only", "long_short_adjustments", "long_short_settlements",
        "long_only_adjustments", "long_only_settlements",
    ]  # fmt: skip
    body = api.ok(f"{BASE}/trades", book="long_short_settlements", limit=5000)
    assert {r["phase"] for r in body["data"]} <= {"open", "close"}
    assert list(body["data"][0]) == list(wire.TRADE_FIELDS)


def test_positions_and_pnl_filters_and_order(api: Api, demo_lake: Path) -> None:
    positions = table(demo_lake, ALPHA, "positions").filter(pl.col("book") == "long_only")
    symbol = positions["symbol"][0]
    body = api.ok(f"{BASE}/positions", book="long_only", symbol=symbol, limit=5000)
    expected = positions.filter(pl.col("symbol") == symbol).sort("date")
    assert [r["quantity"] for r in body["data"]] == pytest.approx(expected["quantity"].to_list())
    whole = api.ok(f"{BASE}/pnl", limit=5000, **{"from": "2021-03-01", "to": "2021-03-31"})["data"]
    keys = [(r["date"], r["symbol"]) for r in whole]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert all("2021-03-01" <= r["date"] <= "2021-03-31" for r in whole)


def _equity_expected(ledger: pl.DataFrame) -> dict[str, np.ndarray]:
    start = ledger["starting_equity"].to_numpy()
    end = ledger["ending_equity"].to_numpy()
    period = (end - start) / start
    cumulative = np.cumprod(1 + period) - 1
    # The window's opening equity seeds the running peak; after it only closes can raise it.
    peak = np.maximum.accumulate(np.concatenate([start[:1], end]))[1:]
    return {"period": period, "cumulative": cumulative, "peak": peak, "drawdown": peak - end,
            "drawdown_pct": (peak - end) / peak * 100}  # fmt: skip


@pytest.mark.parametrize("window", [{}, {"from": "2021-06-01", "to": "2021-12-31"}])
def test_equity_curve_over_the_window(api: Api, demo_lake: Path, window: dict[str, str]) -> None:
    ledger = table(demo_lake, ALPHA, "portfolio").filter(pl.col("book") == "long_short").sort("date")
    if window:
        ledger = ledger.filter(pl.col("date").is_between(pl.date(2021, 6, 1), pl.date(2021, 12, 31)))
    expected = _equity_expected(ledger)
    body = api.ok(f"{BASE}/equity-curve", **window)
    rows = api.all_pages(f"{BASE}/equity-curve", limit=37, **window)
    assert body["pagination"]["limit"] == 500
    assert list(rows[0]) == list(wire.EQUITY_CURVE_FIELDS)
    assert len(rows) == ledger.height
    assert [r["period_return"] for r in rows] == pytest.approx(expected["period"].tolist())
    assert [r["cumulative_return"] for r in rows] == pytest.approx(expected["cumulative"].tolist())
    assert [r["peak_equity"] for r in rows] == pytest.approx(expected["peak"].tolist())
    assert [r["drawdown"] for r in rows] == pytest.approx(expected["drawdown"].tolist(), abs=1e-15)
    assert [r["drawdown_pct"] for r in rows] == pytest.approx(expected["drawdown_pct"].tolist())
    summary = body["meta"]["summary"]
    assert list(summary) == list(wire.EQUITY_SUMMARY_FIELDS)
    assert summary["sessions"] == ledger.height
    assert summary["first_date"] == rows[0]["date"] and summary["last_date"] == rows[-1]["date"]
    assert summary["starting_equity"] == pytest.approx(ledger["starting_equity"][0])
    assert summary["total_return"] == pytest.approx(
        ledger["ending_equity"][-1] / ledger["starting_equity"][0] - 1
    )
    assert summary["cumulative_return_pct"] == pytest.approx(100 * summary["total_return"])
    assert summary["peak_equity"] == pytest.approx(expected["peak"].max())
    assert summary["max_drawdown"] == pytest.approx(expected["drawdown"].max())
    assert summary["max_drawdown_pct"] == pytest.approx(expected["drawdown_pct"].max())
    worst = int(np.argmax(expected["drawdown_pct"]))
    assert summary["max_drawdown_date"] == ledger["date"][worst].isoformat()


def test_equity_curve_pages_share_the_window_baseline(api: Api) -> None:
    page2 = api.ok(f"{BASE}/equity-curve", limit=10, offset=10)
    whole = api.ok(f"{BASE}/equity-curve", limit=5000)
    assert page2["data"] == whole["data"][10:20]
    assert page2["meta"]["summary"] == whole["meta"]["summary"]


# Two three-session windows of the demo ledger (seed 7), with the equity they read and what the
# curve must say, worked out by hand (12 significant digits). If the demo corpus changes, the
# stated equities stop matching and the test says so before comparing anything else.
OPENING_IS_THE_PEAK = {
    "window": {"from": "2021-03-17", "to": "2021-03-19"},
    # The first session loses, so only the opening equity (1.06228739213) can be its peak.
    "starting_equity": 1.0622873921286233,
    "ending_equity": [1.0547313197584227, 1.0594584868658197, 1.057202757886824],
    "peak_equity": [1.06228739213, 1.06228739213, 1.06228739213],
    "drawdown": [0.0075560723702, 0.0028289052628, 0.0050846342418],
    "drawdown_pct": [0.711302085122, 0.266303194763, 0.478649589506],
    "cumulative_return": [-0.00711302085122, -0.00266303194763, -0.00478649589506],
    "summary": {"max_drawdown": 0.0075560723702, "max_drawdown_pct": 0.711302085122,
                "max_drawdown_date": "2021-03-17", "peak_equity": 1.06228739213,
                "total_return": -0.00478649589506},
}  # fmt: skip
STARTS_IN_A_DRAWDOWN = {
    "window": {"from": "2021-05-04", "to": "2021-05-06"},
    # The whole series' peak before this window is 1.12222404508; inside the window it is not
    # seen, so the first session (a gain) is its own peak and has no drawdown.
    "starting_equity": 1.0609283209052658,
    "ending_equity": [1.0774223970940395, 1.0709818841649004, 1.0636427746857753],
    "peak_equity": [1.07742239709, 1.07742239709, 1.07742239709],
    "drawdown": [0.0, 0.00644051292914, 0.0137796224083],
    "drawdown_pct": [0.0, 0.597770470199, 1.2789433787],
    "cumulative_return": [0.0155468337151, 0.00947619463213, 0.00255856472772],
    "summary": {"max_drawdown": 0.0137796224083, "max_drawdown_pct": 1.2789433787,
                "max_drawdown_date": "2021-05-06", "peak_equity": 1.07742239709,
                "total_return": 0.00255856472772},
}  # fmt: skip


@pytest.mark.parametrize(
    "case", [OPENING_IS_THE_PEAK, STARTS_IN_A_DRAWDOWN], ids=["opening_peak", "in_drawdown"]
)
def test_equity_curve_hand_worked_windows(api: Api, case: dict[str, Any]) -> None:
    body = api.ok(f"{BASE}/equity-curve", **case["window"])
    rows = body["data"]
    # The stated equities were read off a demo lake built on one CPU; the corpus is rebuilt on the
    # machine running the test, whose SIMD kernels round the simulated ledger differently in the
    # last bits. Relative 1e-9 is far above that rounding and far below any wrong session.
    read = pytest.approx
    assert [r["starting_equity"] for r in rows[:1]] == read([case["starting_equity"]], rel=1e-9)
    assert [r["ending_equity"] for r in rows] == read(case["ending_equity"], rel=1e-9)
    hand = pytest.approx  # the stated values carry 12 significant digits
    for field in ("peak_equity", "drawdown", "drawdown_pct", "cumulative_return"):
        assert [r[field] for r in rows] == hand(case[field], rel=1e-10, abs=1e-13), field
    summary = body["meta"]["summary"]
    for field, value in case["summary"].items():
        assert summary[field] == (value if isinstance(value, str) else hand(value, rel=1e-10)), field


def test_the_whole_series_remembers_the_earlier_peak(api: Api) -> None:
    """The same session as STARTS_IN_A_DRAWDOWN, seen from the full series: its earlier peak counts."""
    rows = {r["date"]: r for r in api.all_pages(f"{BASE}/equity-curve", limit=500)}
    day = rows["2021-05-04"]
    assert day["peak_equity"] == pytest.approx(1.12222404508, rel=1e-10)
    assert day["drawdown"] == pytest.approx(1.12222404508 - 1.0774223970940395, rel=1e-9)
