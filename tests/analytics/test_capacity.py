"""`/analytics/capacity` recomputed independently from the lake's Parquet files (the sealed trades,
exposures and ledger, read with pandas; nothing from `analytics/` or `pipeline/`) within 1e-9: each
fill's participation, its distribution and largest fill, the grid's net information ratios, cost
drags and 95th percentiles, and the capacity found by another root finder (scipy's brentq on the
information ratio itself, where the route solves a quadratic); bad input (a 400 naming `capital`
or `grid`); a seal without exposures (not measurable, never zero); what a key that may not read the
ledger or the trades sees; and the half-ratio solver on synthetic series."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from scipy import optimize

from tests.analytics.conftest import (
    BOOKS,
    EDGE_WINDOWS,
    Api,
    Window,
    endpoints_only,
    random_windows,
    serving,
    window_params,
)
from tests.analytics.helpers import check_stat, check_too_short, check_withheld, close
from tests.analytics.reference import Lake, in_window
from tests.analytics.reference import information_ratio as ratio
from tests.callers import DATA_IDS
from tests.support.capacity_fills import fills_of

PATH = "/v1/alphas/{}/analytics/capacity"
MIN_WINDOW_SESSIONS = 2  # an information ratio needs two sessions
WITH_EXPOSURES = ("momentum_12_1", "Test_planted_factor", "Test_short_term_reversal", "Test_small_universe")
WITHOUT_EXPOSURES = ("value_composite_legacy", "Test_low_vol_incomplete", "Test_ledger_only")
DEFAULT_CAPITAL = 1e8
DEFAULT_GRID = [10.0 ** (6 + k / 2) for k in range(9)]
PER_YEAR = 252


# -- the independent recomputation ------------------------------------------------------------------


def expected(
    lake: Lake, alpha: str, book: str, window: Window, capital: float, grid: list[float]
) -> dict[str, Any]:
    """Every figure of the answer, recomputed; None where not measurable."""
    fills = fills_of(lake, alpha, book)
    fills = fills[in_window(fills["session"], window)]
    ledger = lake.ledger_in(alpha, book, window)
    assert ledger is not None
    out: dict[str, Any] = {"sessions": len(ledger), "fills": len(fills)}
    p = (capital * fills["notional"] / fills["adv"]).dropna()
    out["fills_with_adv"] = len(p)
    measurable = len(p) > 0
    out["median"] = float(p.quantile(0.5)) if measurable else None
    out["p95"] = float(p.quantile(0.95)) if measurable else None
    out["max"] = float(p.max()) if measurable else None
    for label, threshold in (("above_1pct", 0.01), ("above_5pct", 0.05), ("above_10pct", 0.10)):
        out[label] = float((p > threshold).mean()) if measurable else None
    if measurable:
        ranked = (
            fills.loc[p.index]
            .assign(p=p)
            .sort_values(["p", "session", "symbol"], ascending=[False, True, True])
        )
        top = ranked.iloc[0]
        out["largest"] = {
            "date": top["session"],
            "decision_at": top["decision_at"],
            "symbol": top["symbol"],
            "participation": float(top["p"]),
            "notional": float(top["notional"] * capital),
            "adv": float(top["adv"]),
        }
        q95 = float((fills["notional"] / fills["adv"]).dropna().quantile(0.95))
        out["participation_capacity"] = 0.10 / q95 if q95 > 0 else None
    else:
        out["largest"] = None
        out["participation_capacity"] = None

    start = ledger["starting_equity"].to_numpy(float)
    r = ledger["ending_equity"].to_numpy(float) / start - 1.0
    k = -ledger["execution_cost"].to_numpy(float) / start
    per_session = fills.groupby("session")["slippage"].sum()
    x = ledger["date"].map(per_session).fillna(0.0).to_numpy(float) / start

    def at(capital_k: float) -> np.ndarray:
        return r - (math.sqrt(capital_k / capital) - 1.0) * x

    out["net_information_ratio"] = ratio(r) if measurable else None
    out["grid"] = [
        {
            "capital": g,
            "net_information_ratio": ratio(at(g)) if measurable else None,
            "cost_drag": float(np.mean(k + (math.sqrt(g / capital) - 1.0) * x)) * PER_YEAR
            if measurable and len(r)
            else None,
            "participation_p95": float((g * fills["notional"] / fills["adv"]).dropna().quantile(0.95))
            if measurable
            else None,
        }
        for g in grid
    ]
    out["capacity"] = None
    ir0 = out["net_information_ratio"]
    if measurable and ir0 is not None and ir0 > 0 and np.any(x != 0):

        def excess(capital_k: float) -> float:
            found = ratio(at(capital_k))
            assert found is not None
            return found - ir0 / 2.0

        high = capital * 2.0
        while excess(high) > 0 and high < capital * 1e12:
            high *= 2.0
        if excess(high) < 0:
            out["capacity"] = optimize.brentq(excess, high / 2.0, high, xtol=1e-6, rtol=1e-14)
    return out


# -- the served answer --------------------------------------------------------------------------------


def served(api: Api, alpha: str, book: str, window: Window, **params: Any) -> dict[str, Any]:
    token = "raw" if book.startswith("raw_") else "plain"
    body = api.ok(PATH.format(alpha), token, book=book, **window_params(window), **params)
    data: dict[str, Any] = body["data"]
    assert data["alpha"] == alpha and data["book"] == book
    assert data["window"] == {"from": window[0], "to": window[1]}
    assert data["cost_model"] == "fee_linear_slippage_square_root"
    return data


def check_answer(data: dict[str, Any], want: dict[str, Any], capital: float, where: Any) -> None:
    assert data["capital"] == capital, where
    for key in ("sessions", "fills", "fills_with_adv"):
        assert data[key] == want[key], (where, key, data[key], want[key])
    participation = data["participation"]
    for key in ("median", "p95", "max", "above_1pct", "above_5pct", "above_10pct"):
        check_stat(participation[key], want[key], (*where, key))
        assert participation[key]["unit"] == "fraction"
    largest = participation["largest"]
    if want["largest"] is None:
        assert largest is None, where
    else:
        for key, value in want["largest"].items():
            assert close(largest[key], value) if isinstance(value, float) else largest[key] == value, (
                where,
                key,
                largest[key],
                value,
            )
    check_stat(data["net_information_ratio"], want["net_information_ratio"], (*where, "ir"))
    check_stat(
        data["participation_capacity"], want["participation_capacity"], (*where, "participation_capacity")
    )
    assert data["participation_capacity"]["unit"] == data["capacity"]["unit"] == "base_currency"
    capacity = data["capacity"]
    if want["capacity"] is None:
        assert capacity["value"] is None and capacity["withheld_reason"], (where, capacity)
    else:
        # brentq stops within 1e-14 of the root in K; the quadratic is exact to rounding.
        assert math.isclose(capacity["value"], want["capacity"], rel_tol=1e-9), (
            where,
            capacity,
            want["capacity"],
        )
        assert capacity["value"] > capital
    assert len(data["grid"]) == len(want["grid"]), where
    for point, expect in zip(data["grid"], want["grid"], strict=True):
        assert point["capital"] == expect["capital"], where
        for key in ("net_information_ratio", "cost_drag", "participation_p95"):
            check_stat(point[key], expect[key], (*where, point["capital"], key))
        assert point["net_information_ratio"]["periods_per_year"] == PER_YEAR


@pytest.mark.parametrize("alpha", WITH_EXPOSURES)
@pytest.mark.parametrize("book", BOOKS)
def test_capacity_reproduces_over_random_windows(api: Api, lake: Lake, alpha: str, book: str) -> None:
    rng = random.Random(f"capacity:{alpha}:{book}")
    whole = len(lake.returns(alpha, book, (None, None)))
    for window in random_windows(f"capacity:{alpha}:{book}") + EDGE_WINDOWS:
        sessions = len(lake.returns(alpha, book, window))
        if sessions < MIN_WINDOW_SESSIONS <= whole:
            # A window too short for an information ratio, in a history long enough: a 400.
            check_too_short(api, PATH.format(alpha), window, sessions, book=book)
            continue
        capital = DEFAULT_CAPITAL
        params: dict[str, Any] = {}
        grid = DEFAULT_GRID
        if rng.random() < 0.5:
            capital = float(f"{rng.uniform(1e6, 1e9):.6g}")
            grid = sorted(float(f"{rng.uniform(1e5, 1e11):.4g}") for _ in range(rng.randint(1, 6)))
            params = {"capital": f"{capital:g}", "grid": ",".join(f"{g:g}" for g in grid)}
            grid = [float(f"{g:g}") for g in grid]
            capital = float(f"{capital:g}")
        data = served(api, alpha, book, window, **params)
        check_answer(data, expected(lake, alpha, book, window, capital, grid), capital, (alpha, book, window))


def test_the_reference_capital_is_the_ledger_and_the_capacity_scales_with_it(api: Api) -> None:
    """At the reference capital the net information ratio is /analytics/costs' own; a grid point at
    it gives the same figure and cost drag; the capacity is proportional to the reference capital
    (the seal's costs are taken as the costs at it) while participation_capacity does not move."""
    alpha, book = "momentum_12_1", "long_short"
    costs = api.ok(f"/v1/alphas/{alpha}/analytics/costs", book=book)["data"]
    first = served(api, alpha, book, (None, None), grid="1e8")
    assert first["capital"] == 1e8
    assert close(first["net_information_ratio"]["value"], costs["information_ratio"]["net"]["value"])
    [point] = first["grid"]
    assert close(point["net_information_ratio"]["value"], costs["information_ratio"]["net"]["value"])
    ledger_cost = costs["execution_cost"]["value"]
    assert point["cost_drag"]["value"] > 0 and ledger_cost > 0
    second = served(api, alpha, book, (None, None), capital="5e7")
    assert close(second["capacity"]["value"], first["capacity"]["value"] / 2.0)
    assert close(second["participation_capacity"]["value"], first["participation_capacity"]["value"])
    assert close(second["participation"]["p95"]["value"], first["participation"]["p95"]["value"] / 2.0)
    # The net information ratio falls as capital grows (the demo books pay slippage).
    ratios = [p["net_information_ratio"]["value"] for p in served(api, alpha, book, (None, None))["grid"]]
    assert ratios == sorted(ratios, reverse=True)


def test_a_book_that_loses_at_the_reference_capital_has_no_capacity(api: Api) -> None:
    data = served(api, "Test_short_term_reversal", "long_short", (None, None))
    assert data["net_information_ratio"]["value"] < 0
    capacity = data["capacity"]
    assert capacity["value"] is None and capacity["status"] == "not_measurable"
    assert "not positive" in capacity["withheld_reason"]
    assert data["participation"]["p95"]["status"] == "available"  # the fills are still measured


@pytest.mark.parametrize("alpha", WITHOUT_EXPOSURES)
def test_without_exposures_nothing_is_measurable_and_nothing_is_zero(api: Api, alpha: str) -> None:
    body = api.ok(PATH.format(alpha), "plain")
    data = body["data"]
    reason = "the seal has no exposures (kind missing)"
    entries = [
        data["net_information_ratio"],
        data["capacity"],
        data["participation_capacity"],
        *(
            data["participation"][k]
            for k in ("median", "p95", "max", "above_1pct", "above_5pct", "above_10pct")
        ),
        *(p[k] for p in data["grid"] for k in ("net_information_ratio", "cost_drag", "participation_p95")),
    ]
    for entry in entries:
        assert entry["value"] is None and entry["status"] == "not_measurable", (alpha, entry)
        assert entry["withheld_reason"].startswith(reason), (alpha, entry)
    assert data["participation"]["largest"] is None
    assert data["fills_with_adv"] == 0
    assert [p["capital"] for p in data["grid"]] == DEFAULT_GRID
    kinds = [w.get("kind") for w in body["meta"]["warnings"] if w["code"] == "kind_missing"]
    assert "exposures" in kinds


@pytest.mark.parametrize(
    ("params", "named", "rule"),
    [
        ({"capital": "0"}, "capital", "between 1 and 1e+15"),
        ({"capital": "-5"}, "capital", "between 1 and 1e+15"),
        ({"capital": "1e16"}, "capital", "between 1 and 1e+15"),
        ({"capital": "nan"}, "capital", "decimal number"),
        ({"capital": "abc"}, "capital", "decimal number"),
        ({"grid": ",".join(["1e6"] * 26)}, "grid", "at most 25 capitals"),
        ({"grid": "1e6,0"}, "grid", "every capital must lie in [1, 1e+15]"),
        ({"grid": "1e6,-1e7"}, "grid", "every capital must lie in [1, 1e+15]"),
        ({"grid": "1e6,,1e7"}, "grid", "plain decimals"),
        ({"grid": "1e6,inf"}, "grid", "plain decimals"),
        ({"book": "raw_long_short"}, "book", ""),  # a key without raw books: unknown_book
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(
    api: Api, params: dict[str, str], named: str, rule: str
) -> None:
    response = api.get(PATH.format("momentum_12_1"), "plain", **params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    if named == "book":
        assert error["code"] == "unknown_book"
        return
    [problem] = error["details"]["parameters"]
    assert problem["name"] == named and rule in problem["rule"], problem


def test_a_key_without_the_ledger_or_the_trades_is_told_why(demo_lake: Any) -> None:
    callers = {
        "no_trades": endpoints_only(DATA_IDS - {"portfolio.trades"}),
        "no_ledger": endpoints_only(DATA_IDS - {"portfolio.ledger"}),
    }
    with serving(demo_lake, callers) as api:
        no_trades = api.ok(PATH.format("momentum_12_1"), "no_trades")
        data = no_trades["data"]
        assert data["fills"] is None and data["fills_with_adv"] is None
        assert data["participation"]["largest"] is None
        for entry in (
            data["participation"]["p95"],
            data["capacity"],
            data["grid"][0]["net_information_ratio"],
        ):
            check_withheld(entry, "no_trades")
            assert "portfolio.trades" in entry["withheld_reason"]
        blocks = {w.get("block") for w in no_trades["meta"]["warnings"] if w["code"] == "access_limited"}
        assert "capacity.participation" in blocks

        no_ledger = api.ok(PATH.format("momentum_12_1"), "no_ledger")
        data = no_ledger["data"]
        assert data["sessions"] is None and data["fills"] is not None
        assert data["participation"]["p95"]["status"] == "available"  # built from the trades alone
        for entry in (data["net_information_ratio"], data["capacity"], data["grid"][0]["cost_drag"]):
            check_withheld(entry, "no_ledger")
            assert "portfolio.ledger" in entry["withheld_reason"]
        assert data["grid"][0]["participation_p95"]["status"] == "available"


# -- the solver on synthetic series -----------------------------------------------------------------


def test_the_half_ratio_multiple_is_brents_root_of_the_ratio_itself() -> None:
    from analytics.capacity import half_ratio_multiple

    rng = np.random.default_rng(36)
    checked = 0
    for _ in range(200):
        n = int(rng.integers(30, 600))
        r = rng.normal(rng.uniform(0.0002, 0.002), rng.uniform(0.005, 0.02), n)
        x = np.abs(rng.normal(0.0, rng.uniform(1e-5, 5e-4), n)) * (rng.random(n) < 0.3)
        x += rng.uniform(0, 1) * np.maximum(r, 0) * 0.01  # some costs move with returns

        def ir(a: float, r: np.ndarray = r, x: np.ndarray = x) -> float:
            y = r - a * x
            return float(np.mean(y) / np.std(y, ddof=1))

        target = ir(0.0) / 2.0
        if not target > 0:
            continue  # the route asks only when the ratio is positive
        found = half_ratio_multiple(r, x)
        high = 1e-6
        while ir(high) > target and high < 1e9:
            high *= 2.0
        if ir(high) > target:
            assert math.isnan(found)
            continue
        # The first crossing: the grid's bracket holds it unless the ratio crossed and came back.
        low = high / 2.0 if high > 1e-6 else 0.0
        root = optimize.brentq(lambda a, t=target: ir(a) - t, low, high, xtol=1e-15, rtol=1e-14)
        assert math.isclose(found, root, rel_tol=1e-9), (found, root)
        checked += 1
    assert checked > 150


def test_fees_that_are_not_a_part_of_the_cost_are_clipped() -> None:
    from analytics.capacity import fill_amounts

    quantity = np.array([10.0, -10.0, 5.0, 5.0, 1.0])
    price = np.array([2.0, 2.0, 4.0, 4.0, 1.0])
    fee = np.array([0.01, -0.5, 0.3, 0.02, 0.0])
    cost = -np.array([0.05, 0.05, 0.1, -0.01, 0.0])  # the ledger books costs as negative flows
    basis = np.array([1.0, 2.0, 1.0, 1.0, 0.0])
    notional, paid, slippage = fill_amounts(quantity, price, fee, cost, basis)
    assert notional[:4].tolist() == [20.0, 10.0, 20.0, 20.0] and math.isnan(notional[4])
    assert paid.tolist() == [0.05, 0.05, 0.1, -0.01, 0.0]
    # a negative fee counts as none, a fee above the cost as the whole cost, a rebate is all slippage
    assert np.allclose(slippage, [0.04, 0.05, 0.0, -0.01, 0.0])
