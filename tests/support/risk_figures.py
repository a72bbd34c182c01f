"""What the risk answer's tests share (tests/analytics/test_risk.py, test_risk_empyrical.py,
test_book_returns.py): the demo's constants, SPY's daily returns from the sealed closes (a fixture),
the restated-window rule and the risk answer asked and checked for its echo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import Api, Window, endpoints_only, window_params
from tests.callers import DATA_IDS
from tests.knowledge import current_build
from tests.support.build_tables import build_table, has_table

PATH = "/v1/alphas/{alpha}/analytics/risk"
P = 252  # the demo's sessions_per_year
MIN_SESSIONS = 2
MIN_TAIL = 20
NO_BENCHMARK = endpoints_only(frozenset(DATA_IDS - {"benchmarks.daily"}))


@pytest.fixture(scope="module")
def spy(demo_seals: Path) -> tuple[str, pd.Series]:
    """SPY's return basis and daily returns by ISO date, from the sealed closes: adjusted_close when
    every row has one, else close (the /v1/benchmarks rule), over the whole series."""
    daily = pd.read_parquet(demo_seals / "benchmark_SPY" / "daily.parquet")
    daily["date"] = ref.iso(daily["date"])
    daily = daily.sort_values("date").reset_index(drop=True)
    basis = "adjusted_close" if daily["adjusted_close"].notna().all() else "close"
    price = daily[basis].astype(float)
    return basis, pd.Series((price / price.shift(1) - 1.0).to_numpy(), index=daily["date"].to_numpy())


def restated_in(root: Path, alpha: str, window: Window) -> bool:
    """Whether the alpha's served build records a value restated on a day of `window` (its
    `restatements` rows, read with polars): the answer then says so (a `restated` warning)."""
    build = current_build(root, alpha)
    if not has_table(build, "restatements"):
        return False  # no row restated (the open tables hold none of the build's)
    table = build_table(build, "restatements")
    start, end = (None if day is None else pd.Timestamp(day).date() for day in window)
    dates = table["date"]
    held = dates.filter((dates >= start) if start is not None else dates.is_not_null())
    held = held.filter((held <= end) if end is not None else held.is_not_null())
    return not held.is_empty()


def without_restated(warnings: list[dict[str, Any]], alpha: str, restated: bool) -> list[dict[str, Any]]:
    """The warnings but the `restated` one, which is there exactly when `restated` (issue 64)."""
    said = [w for w in warnings if w["code"] == "restated"]
    assert len(said) == (1 if restated else 0), warnings
    assert all(f"/v1/alphas/{alpha}/restatements" in w["message"] for w in said), said
    return [w for w in warnings if w["code"] != "restated"]


def risk(api: Api, alpha: str, book: str, window: Window, token: str | None = None) -> dict[str, Any]:
    token = token or ("raw" if book.startswith("raw_") else "plain")
    body = api.ok(PATH.format(alpha=alpha), token, book=book, **window_params(window))
    data: dict[str, Any] = body["data"]
    assert data["alpha"] == alpha and data["book"] == book
    assert data["window"] == {"from": window[0], "to": window[1]}
    assert body["meta"]["book"] == book and body["meta"]["run"] == alpha
    return body
