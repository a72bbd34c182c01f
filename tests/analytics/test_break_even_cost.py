"""/analytics/costs' break-even cost of the information ratio and its curves (issue 50, item 6),
recomputed independently from the lake's Parquet files with pandas (the ledger; the sealed trades
and exposures as tests/support/capacity_fills.py reads them), within 1e-9:

- `break_even_cost_bps`: mean(g) / mean(k) x modelled_cost_bps, the cost at which the mean daily
  net return, and so the net information ratio, is 0;
- `net_ir_by_cost`: the information ratio of r - (m - 1) k at each level of the fixed grid, the
  modelled cost (information_ratio.net) and the break-even (0);
- `net_ir_by_capital`: /analytics/capacity's model at its default reference capital and grid;

the demo's known answer (every demo alpha whose net information ratio is positive breaks even at a
positive cost above its modelled one), and what a key without the ledger or the trades is told."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import (
    ALPHAS,
    EDGE_WINDOWS,
    Api,
    Window,
    endpoints_only,
    random_windows,
    serving,
    window_params,
)
from tests.analytics.helpers import check_stat, check_withheld, close
from tests.callers import DATA_IDS
from tests.support.build_tables import has_table
from tests.support.capacity_fills import fills_of

PATH = "/v1/alphas/{alpha}/analytics/costs"
GRID_BPS = [0.0, 5.0, 10.0, 20.0, 30.0, 50.0, 75.0, 100.0]
K0 = 1e8
CAPITALS = [10.0 ** (6 + k / 2) for k in range(9)]
PER_YEAR = 252
LEDGER_BOOKS = ("long_short", "long_only")


def ratio(series: pd.Series) -> float | None:
    """mean / std (ddof 1) x sqrt(252) with pandas; None below 2 values or without variance."""
    x = series.dropna()
    if len(x) < 2 or not x.std() > 0:
        return None
    return float(x.mean() / x.std() * math.sqrt(PER_YEAR))


def expected(lake: ref.Lake, alpha: str, book: str, window: Window) -> dict[str, Any]:
    """The break-even of the information ratio and the curve over cost levels, from the ledger."""
    ledger = lake.ledger_in(alpha, book, window)
    assert ledger is not None
    out: dict[str, Any] = {"break_even_cost_bps": None, "levels": [(c, "grid", None, None) for c in GRID_BPS]}
    if ledger.empty:
        return out
    frame = pd.DataFrame(
        {
            "r": ledger["ending_equity"] / ledger["starting_equity"] - 1.0,
            "k": -ledger["execution_cost"] / ledger["starting_equity"],
        }
    )
    frame["g"] = frame["r"] + frame["k"]
    cost = -float(ledger["execution_cost"].sum())
    traded = float((ledger["turnover_notional"] / ledger["equity_basis"]).sum())
    modelled = cost / traded * 1e4 if traded > 0 and cost > 0 else None
    if modelled is None:
        return out
    levels = [(c, "grid") for c in GRID_BPS] + [(modelled, "modelled")]
    if frame["k"].mean() > 0 and len(frame) >= 2 and frame["g"].mean() > 0:
        out["break_even_cost_bps"] = float(frame["g"].mean() / frame["k"].mean()) * modelled
        levels.append((out["break_even_cost_bps"], "break_even"))
    out["levels"] = [
        (c, kind, c / modelled, ratio(frame["r"] - (c / modelled - 1.0) * frame["k"]))
        for c, kind in sorted(levels, key=lambda level: level[0])
    ]
    return out


def expected_by_capital(lake: ref.Lake, alpha: str, book: str, window: Window) -> list[dict[str, Any]] | None:
    """At each capital of the default grid: the cost per traded notional, the 95th-percentile
    participation and the net information ratio (None where not measurable: no fill with an adv)."""
    ledger = lake.ledger_in(alpha, book, window)
    assert ledger is not None
    if not has_table(lake.build(alpha), "trades", book):
        return None  # a run without trades: no slippage to scale, no participation
    fills = fills_of(lake, alpha, book)
    fills = fills[ref.in_window(fills["session"], window)]
    per_capital = (fills["notional"] / fills["adv"]).dropna()
    if ledger.empty or per_capital.empty:
        return None
    start = ledger["starting_equity"]
    r = ledger["ending_equity"] / start - 1.0
    slippage = ledger["date"].map(fills.groupby("session")["slippage"].sum()).fillna(0.0)
    cost = -float(ledger["execution_cost"].sum())
    traded = float((ledger["turnover_notional"] / ledger["equity_basis"]).sum())
    rows = []
    for k in CAPITALS:
        extra = math.sqrt(k / K0) - 1.0
        rows.append(
            {
                "cost_bps": (cost + extra * float(slippage.sum())) / traded * 1e4 if traded > 0 else None,
                "participation_p95": float((k * per_capital).quantile(0.95)),
                "net_information_ratio": ratio(r - extra * slippage / start),
            }
        )
    return rows


def costs(api: Api, alpha: str, book: str, window: Window, token: str = "plain") -> dict[str, Any]:
    data: dict[str, Any] = api.ok(PATH.format(alpha=alpha), token, book=book, **window_params(window))["data"]
    return data


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("book", LEDGER_BOOKS)
def test_the_break_even_and_its_curves_reproduce(api: Api, lake: ref.Lake, alpha: str, book: str) -> None:
    for window in random_windows(f"break-even:{alpha}:{book}") + EDGE_WINDOWS:
        where = (alpha, book, window)
        data = costs(api, alpha, book, window)
        want = expected(lake, alpha, book, window)
        check_stat(data["break_even_cost_bps"], want["break_even_cost_bps"], (*where, "break_even_cost_bps"))
        assert data["break_even_cost_bps"]["unit"] == "bps"
        served = data["net_ir_by_cost"]
        assert [row["level"] for row in served] == [kind for _, kind, _, _ in want["levels"]], where
        for row, (cost, *_) in zip(served, want["levels"], strict=True):
            assert close(row["cost_bps"], cost), (where, row, cost)
        for row, (_, kind, multiple, value) in zip(served, want["levels"], strict=True):
            assert close(row["cost_multiple"], multiple), (where, row)
            entry = row["net_information_ratio_at_cost"]
            assert entry["periods_per_year"] == PER_YEAR and entry["unit"] == "ratio"
            if kind == "break_even":
                # 0 by definition; the pandas ratio at the same multiple is its rounding.
                assert entry["value"] == 0.0 and value is not None and abs(value) < 1e-9, (where, row, value)
            else:
                check_stat(entry, value, (*where, row["cost_bps"]))
            if kind == "modelled":
                assert entry["value"] == data["information_ratio"]["net"]["value"], where
            if row["cost_bps"] == 0.0:
                assert close(entry["value"], data["information_ratio"]["gross"]["value"]), where

        by_capital = expected_by_capital(lake, alpha, book, window)
        assert [row["capital"] for row in data["net_ir_by_capital"]] == CAPITALS
        for k, row in enumerate(data["net_ir_by_capital"]):
            for name in ("cost_bps", "participation_p95", "net_information_ratio"):
                check_stat(row[name], None if by_capital is None else by_capital[k][name], (*where, k, name))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_demo_alpha_with_a_positive_net_ratio_breaks_even_at_a_positive_cost(
    api: Api, alpha: str
) -> None:
    """The demo's known answer (the issue's "done"): over the whole history, a book whose net
    information ratio is positive breaks even at a positive cost above its modelled one, and the
    break-even of the mean lies at or above the compounded one (volatility drag)."""
    data = costs(api, alpha, "long_short", (None, None))
    net = data["information_ratio"]["net"]["value"]
    found = data["break_even_cost_bps"]["value"]
    modelled = data["modelled_cost_bps"]["value"]
    if net is not None and net > 0:
        assert found is not None and found > modelled > 0, (alpha, data["break_even_cost_bps"])
        compounded = data["break_even_bps"]["value"]
        assert compounded is None or found >= compounded, (alpha, found, compounded)
    elif found is not None:
        assert found <= modelled, (alpha, found, modelled)


def test_the_curve_tied_to_capacity_is_the_capacity_routes_grid(api: Api) -> None:
    """net_ir_by_capital is /analytics/capacity's grid at its defaults (one model, one figure)."""
    for alpha in ("momentum_12_1", "Test_small_universe"):
        data = costs(api, alpha, "long_short", (None, None))
        grid = api.ok(f"/v1/alphas/{alpha}/analytics/capacity", "plain", book="long_short")["data"]["grid"]
        for row, point in zip(data["net_ir_by_capital"], grid, strict=True):
            assert row["capital"] == point["capital"]
            assert row["net_information_ratio"] == point["net_information_ratio"]
            assert row["participation_p95"] == point["participation_p95"]
        at_k0 = data["net_ir_by_capital"][4]
        assert at_k0["capital"] == K0
        assert at_k0["cost_bps"]["value"] == data["modelled_cost_bps"]["value"]
        costs_rise = [row["cost_bps"]["value"] for row in data["net_ir_by_capital"]]
        assert costs_rise == sorted(costs_rise) and costs_rise[0] < costs_rise[-1]


def test_a_key_without_the_ledger_or_the_trades_is_told_why(demo_lake: Any) -> None:
    callers = {
        "no_trades": endpoints_only(DATA_IDS - {"portfolio.trades"}),
        "no_ledger": endpoints_only(DATA_IDS - {"portfolio.ledger"}),
    }
    with serving(demo_lake, callers) as api:
        answer = api.ok(PATH.format(alpha="momentum_12_1"), "no_ledger")
        data = answer["data"]
        check_withheld(data["break_even_cost_bps"], "no_ledger")
        assert "portfolio.ledger" in data["break_even_cost_bps"]["withheld_reason"]
        assert [row["level"] for row in data["net_ir_by_cost"]] == ["grid"] * len(GRID_BPS)
        assert [row["cost_bps"] for row in data["net_ir_by_cost"]] == GRID_BPS
        for row in data["net_ir_by_cost"]:
            assert row["cost_multiple"] is None
            check_withheld(row["net_information_ratio_at_cost"], "no_ledger")
        for row in data["net_ir_by_capital"]:
            check_withheld(row["net_information_ratio"], "no_ledger")
            check_withheld(row["cost_bps"], "no_ledger")
            assert row["participation_p95"]["status"] == "available"  # built from the trades alone

        answer = api.ok(PATH.format(alpha="momentum_12_1"), "no_trades")
        data = answer["data"]
        assert data["break_even_cost_bps"]["status"] == "available"  # the ledger alone
        assert all(
            row["net_information_ratio_at_cost"]["status"] == "available" for row in data["net_ir_by_cost"]
        )
        for row in data["net_ir_by_capital"]:
            for name in ("net_information_ratio", "cost_bps", "participation_p95"):
                check_withheld(row[name], "no_trades")
                assert "portfolio.trades" in row[name]["withheld_reason"]
        blocks = {w.get("block") for w in answer["meta"]["warnings"] if w["code"] == "access_limited"}
        assert "costs.net_ir_by_capital" in blocks


def test_a_book_whose_mean_loses_before_costs_has_no_break_even() -> None:
    """`analytics.costs.cost_figures` on a synthetic ledger: a mean gross return below 0 gives no
    break-even of the ratio, with the reason; a positive one gives mean(g) / mean(k) x the rate."""
    from analytics import costs as unit

    rng = np.random.default_rng(7)
    n = 60
    start = np.ones(n)
    rate = rng.uniform(1e-4, 1e-3, n)
    for drift, measurable in ((-0.002, False), (0.002, True)):
        gross = drift + 0.01 * rng.standard_normal(n)
        end = start * (1.0 + gross - rate)
        notional = rng.uniform(0.2, 1.0, n)
        found = unit.cost_figures(start, end, np.ones(n), -rate * start, notional, PER_YEAR)
        if measurable:
            assert found.why_not_ratio is None
            g = pd.Series(end / start - 1.0 + rate)
            want = g.mean() / pd.Series(rate).mean() * (rate.sum() / notional.sum() * 1e4)
            assert close(found.break_even_cost_bps, float(want))
        else:
            assert math.isnan(found.break_even_cost_bps)
            assert found.why_not_ratio and "not positive" in found.why_not_ratio
