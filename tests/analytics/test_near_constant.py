"""A near-constant daily return series has no measurable variance, by the one rule of
`analytics.variance`, on every figure over a standard deviation (issue 22, review item 6).

The book's equity grows by one fixed rate a session, so its returns differ only in their last bits
(a standard deviation near 1e-16). Significance once served its Sharpe ratio as ~1e13 (with PSR,
MinTRL and DSR from it) while `bootstrap.information_ratio` was null, and costs its information
ratios near 1e13: now each is `not_measurable`, on both routes, through the API.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from analytics import inputs
from analytics.inputs import Ledger
from datasets.reader import BuildView
from tests.analytics.conftest import Api

ALPHA = "Test_planted_factor"
WINDOW = {"from": "2021-02-01", "to": "2021-06-30"}  # not the whole history, whose bootstrap is memoised
RATE = 1e-4  # the equity's growth per session
COST_RATE = 1e-5  # the modelled cost per session, of the starting equity
LAST_BITS = 1e-15  # what tells the sessions' returns apart


def growth(sessions: int) -> np.ndarray:
    """1 + RATE per session, give or take LAST_BITS (seeded)."""
    return 1.0 + RATE + np.random.default_rng(22).choice([-1.0, 0.0, 1.0], sessions) * LAST_BITS


def near_constant(real: Ledger) -> Ledger:
    start = real.starting_equity
    return dataclasses.replace(
        real, ending_equity=start * growth(start.size), execution_cost=-start * COST_RATE
    )


@pytest.fixture
def flat_book(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every ledger the analytics routes read is the near-constant one built on its sessions."""
    real = inputs.ledger

    def ledger(view: BuildView, book: str) -> Ledger | None:
        found = real(view, book)
        return None if found is None else near_constant(found)

    monkeypatch.setattr(inputs, "ledger", ledger)
    yield


def not_measurable(entry: dict[str, Any], where: str) -> None:
    assert entry["value"] is None and entry["status"] == "not_measurable", (where, entry)


def test_the_series_is_the_ill_conditioned_kind(api: Api) -> None:
    """What the other test relies on: the returns are not exactly equal, and their naive ratio is
    astronomical."""
    rows = api.all_rows(f"/v1/alphas/{ALPHA}/portfolio", **WINDOW)
    start = np.array([r["starting_equity"] for r in rows], dtype=np.float64)
    returns = start * growth(start.size) / start - 1.0
    sd = float(np.std(returns, ddof=1))
    assert len(rows) > 50 and 0 < sd < 1e-12
    assert float(np.mean(returns)) / sd > 1e9


@pytest.mark.usefixtures("flat_book")
def test_a_near_constant_series_is_not_measurable_on_significance_and_costs(api: Api) -> None:
    path = f"/v1/alphas/{ALPHA}/analytics/significance"
    figures = api.ok(path, **WINDOW)["data"]
    assert figures["sessions"] > 50
    for name in ("sharpe", "skewness", "kurtosis", "psr", "min_track_record", "dsr"):
        not_measurable(figures[name], name)
    ratio = figures["bootstrap"]["information_ratio"]
    not_measurable(ratio, "bootstrap.information_ratio")
    assert ratio["lower"] is None and ratio["upper"] is None

    path = f"/v1/alphas/{ALPHA}/analytics/costs"
    costs = api.ok(path, "plain", book="long_short", **WINDOW)["data"]
    for side in ("gross", "net"):
        not_measurable(costs["information_ratio"][side], f"costs.information_ratio.{side}")
    # Figures that divide by no standard deviation are still served.
    assert costs["break_even_multiple"]["status"] == "available"
    assert costs["execution_cost"]["value"] > 0
