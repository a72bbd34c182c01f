"""/analytics/costs against independent recomputation from the ledger (P&L split in normalised
equity, traded notional in equity units, the compounded break-even multiple, gross and net
information ratios) and from the decisions' target weights (turnover by decile of the score the
book trades, holding period), for every ledger book of every alpha over random windows; and
`analytics.costs.cost_figures` itself on synthetic ledgers (currency invariance, a losing book)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, BOOKS, EDGE_WINDOWS, Api, Window, random_windows, window_params
from tests.analytics.helpers import check_row, check_stat, close

PATH = "/v1/alphas/{alpha}/analytics/costs"
LEDGER_FIGURES = (
    "net_pnl",
    "execution_cost",
    "gross_pnl",
    "traded_notional",
    "break_even_multiple",
    "break_even_bps",
    "modelled_cost_bps",
)
UNITS = dict.fromkeys(("net_pnl", "execution_cost", "gross_pnl", "traded_notional"), "equity") | {
    "break_even_multiple": "multiple",
    "break_even_bps": "bps",
    "modelled_cost_bps": "bps",
}


def costs(api: Api, alpha: str, book: str, window: Window) -> dict[str, Any]:
    token = "raw" if book.startswith("raw_") else "plain"
    body = api.ok(PATH.format(alpha=alpha), token, book=book, **window_params(window))
    data: dict[str, Any] = body["data"]
    assert data["alpha"] == alpha and data["book"] == book
    assert data["window"] == {"from": window[0], "to": window[1]}
    return data


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("book", BOOKS)
def test_costs_reproduce_over_random_windows(api: Api, lake: ref.Lake, alpha: str, book: str) -> None:
    for window in random_windows(f"costs:{alpha}:{book}") + EDGE_WINDOWS:
        where = (alpha, book, window)
        data = costs(api, alpha, book, window)
        ledger = lake.ledger_in(alpha, book, window)
        assert ledger is not None
        expected = ref.cost_figures(ledger)
        assert data["sessions"] == expected["sessions"], where
        for name in LEDGER_FIGURES:
            check_stat(data[name], expected[name], (*where, name))
            assert data[name]["unit"] == UNITS[name], (where, name, data[name])
        for side in ("net", "gross"):
            entry = data["information_ratio"][side]
            check_stat(entry, expected[f"information_ratio.{side}"], (*where, side))
            assert entry["periods_per_year"] == 252

        turnover = ref.turnover(lake, alpha, book, window)
        if turnover is None:
            assert data["turnover_by_decile"] is None, where
            assert data["holding_period"]["status"] == "not_measurable", where
            continue
        served = data["turnover_by_decile"]
        assert served["score_field"] == turnover["score_field"] == ref.traded_score(book), where
        assert served["weight_field"] == f"{book}_target_weight"
        check_row(
            served,
            {
                k: turnover[k]
                for k in (
                    "weeks",
                    "bucketed_weeks",
                    "weekly_target_turnover",
                    "unbucketed_weekly_target_turnover",
                )
            },
            where,
        )
        assert len(served["buckets"]) == 10
        for got, exp in zip(served["buckets"], turnover["buckets"], strict=True):
            check_row(got, exp, (*where, exp["bucket"]))
        check_stat(data["holding_period"], turnover["holding_period"], (*where, "holding_period"))


def test_whole_history_bucket_means_add_up(api: Api, lake: ref.Lake) -> None:
    """Sanity of the reference itself: bucket means and the unbucketed share sum to the weekly mean."""
    for alpha in ("momentum_12_1", "Test_small_universe"):
        t = ref.turnover(lake, alpha, "long_short", (None, None))
        assert t is not None and t["bucketed_weeks"] < t["weeks"]
        total = sum(b["decile_weekly_target_turnover"] * t["bucketed_weeks"] for b in t["buckets"])
        assert close(
            (total + t["unbucketed_weekly_target_turnover"] * t["weeks"]) / t["weeks"],
            t["weekly_target_turnover"],
        )


def test_the_net_information_ratio_is_metrics_convention_not_its_figure_over_a_window(
    api: Api, lake: ref.Lake
) -> None:
    """docs/analytics.md, "Costs": the net information ratio has `/metrics` `core.information_ratio`'s
    convention, over the window; `/metrics` never narrows `core` (window_lifetime_only), so the two are
    the same figure over the whole history only."""
    metrics_path = "/v1/alphas/momentum_12_1/metrics"
    whole = api.ok(metrics_path)["data"]["core"]["information_ratio"]["value"]
    over_all = costs(api, "momentum_12_1", "long_short", (None, None))["information_ratio"]["net"]["value"]
    assert close(over_all, whole)
    window = ("2021-01-01", "2021-12-31")
    net = costs(api, "momentum_12_1", "long_short", window)["information_ratio"]["net"]["value"]
    r = lake.returns("momentum_12_1", "long_short", window).to_numpy(float)
    assert close(net, float(r.mean() / r.std(ddof=1)) * math.sqrt(252))  # over the window's sessions
    narrowed = api.ok(metrics_path, **window_params(window))
    assert narrowed["data"]["core"]["information_ratio"]["value"] == whole  # not narrowed
    assert "window_lifetime_only" in {w["code"] for w in narrowed["meta"]["warnings"]}
    assert abs(net - whole) > 0.05


def test_a_window_without_sessions_has_no_figures(api: Api) -> None:
    """Not 0.0: every figure null and not_measurable, no session counted."""
    for book in ("long_short", "long_only"):
        data = costs(api, "momentum_12_1", book, ("2019-01-01", "2019-12-31"))
        assert data["sessions"] == 0
        entries = [data[name] for name in LEDGER_FIGURES] + list(data["information_ratio"].values())
        for entry in entries:
            assert entry["value"] is None and entry["status"] == "not_measurable", (book, entry)
            assert entry["withheld_reason"], (book, entry)


@pytest.mark.parametrize("book", BOOKS)
def test_turnover_without_decisions_says_why(api: Api, book: str) -> None:
    """Every ledger book, raw_ ones included, is bucketed from its target weights; a run that sealed
    no decisions has none, and the reason says so (not that the book is of a kind without weights)."""
    with_weights = costs(api, "momentum_12_1", book, (None, None))
    assert with_weights["turnover_by_decile"]["weight_field"] == f"{book}_target_weight"
    data = costs(api, "Test_ledger_only", book, (None, None))
    assert data["turnover_by_decile"] is None
    holding = data["holding_period"]
    assert holding["status"] == "not_measurable"
    assert holding["withheld_reason"] == "the run sealed no decisions, so no book has target weights"


def test_the_demo_exercises_every_branch(lake: ref.Lake) -> None:
    """Break-even measurable somewhere and not somewhere (a loss before costs); the compounded
    multiple differs from the additive gross / cost; the two score fields both bucket a book."""
    seen = set()
    compounding_matters = False
    for alpha in ALPHAS:
        for window in random_windows(f"costs:{alpha}:long_short"):
            ledger = lake.ledger_in(alpha, "long_short", window)
            if ledger is not None and not ledger.empty:
                found = ref.cost_figures(ledger)
                seen.add(found["break_even_multiple"] is None)
                if found["break_even_multiple"] is not None:
                    additive = found["gross_pnl"] / found["execution_cost"]
                    compounding_matters |= not close(found["break_even_multiple"], additive, 1e-3)
    assert seen == {True, False}
    assert compounding_matters
    base = ref.turnover(lake, "momentum_12_1", "long_short", (None, None))
    raw = ref.turnover(lake, "momentum_12_1", "raw_long_short", (None, None))
    assert base is not None and raw is not None
    assert base["buckets"] != raw["buckets"]


# -- analytics.costs.cost_figures on synthetic ledgers (the unit itself) ------------------------------


def synthetic_ledger(seed: int, drift: float) -> pd.DataFrame:
    """A ledger in normalised equity with costs on most sessions and an equity_basis (base currency
    per equity unit) that moves from session to session."""
    rng = np.random.default_rng(seed)
    n = 80
    gross = drift + 0.01 * rng.standard_normal(n)
    rate = np.where(rng.random(n) < 0.7, rng.uniform(1e-4, 2e-3, n), 0.0)
    start = np.empty(n)
    end = np.empty(n)
    level = 1.0
    for t in range(n):
        start[t] = level
        level = level * (1.0 + gross[t] - rate[t])
        end[t] = level
    basis = rng.uniform(0.5, 2.0, n) * 1e5
    return pd.DataFrame(
        {
            "date": [f"2021-{1 + t // 28:02d}-{1 + t % 28:02d}" for t in range(n)],
            "starting_equity": start,
            "ending_equity": end,
            "equity_basis": basis,
            "execution_cost": -rate * start,
            "turnover_notional": np.where(rate > 0, rng.uniform(0.1, 1.5, n), 0.0) * basis,
        }
    )


def unit_figures(ledger: pd.DataFrame, scale: float = 1.0) -> Any:
    """`analytics.costs.cost_figures` (imported for these unit tests only) over the ledger, its
    equity_basis and turnover_notional multiplied by `scale`."""
    from analytics import costs as unit

    def column(name: str) -> np.ndarray:
        return ledger[name].to_numpy(float)

    return unit.cost_figures(
        column("starting_equity"),
        column("ending_equity"),
        column("equity_basis") * scale,
        column("execution_cost"),
        column("turnover_notional") * scale,
        252,
    )


UNIT_FIELDS = {
    "net_pnl": "net_pnl",
    "execution_cost": "execution_cost",
    "gross_pnl": "gross_pnl",
    "traded_notional": "traded_notional",
    "break_even_multiple": "break_even_multiple",
    "break_even_bps": "break_even_bps",
    "modelled_cost_bps": "modelled_cost_bps",
    "net_information_ratio": "information_ratio.net",
    "gross_information_ratio": "information_ratio.gross",
}


def as_optional(value: float) -> float | None:
    return value if math.isfinite(value) else None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cost_figures_do_not_depend_on_the_base_currency_scale(seed: int) -> None:
    """Turnover notional and equity_basis both 1000 times larger: the same figures (and the same
    as the independent reference)."""
    ledger = synthetic_ledger(seed, drift=0.002)
    one, scaled = unit_figures(ledger), unit_figures(ledger, 1000.0)
    expected = ref.cost_figures(ledger)
    assert one.why_not is None and scaled.why_not is None
    assert one.sessions == scaled.sessions == expected["sessions"] == len(ledger)
    for field, name in UNIT_FIELDS.items():
        a, b = getattr(one, field), getattr(scaled, field)
        assert math.isfinite(a) and close(a, b, 1e-12), (field, a, b)
        assert close(a, expected[name]), (field, a, expected[name])


def test_a_book_that_loses_before_costs_has_no_break_even() -> None:
    ledger = synthetic_ledger(4, drift=-0.003)
    start = ledger["starting_equity"].to_numpy()
    gross = ledger["ending_equity"].to_numpy() / start - 1.0 - ledger["execution_cost"].to_numpy() / start
    assert np.prod(1.0 + gross) < 1.0  # the window loses before costs
    found = unit_figures(ledger)
    assert math.isnan(found.break_even_multiple) and math.isnan(found.break_even_bps)
    assert found.why_not
    assert found.execution_cost > 0 and math.isfinite(found.modelled_cost_bps)
    expected = ref.cost_figures(ledger)
    assert expected["break_even_multiple"] is None and expected["break_even_bps"] is None
    for field, name in UNIT_FIELDS.items():
        assert close(as_optional(getattr(found, field)), expected[name]), field
