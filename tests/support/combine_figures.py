"""What /v1/analytics/combine is checked against, recomputed from the lake's ledgers: the common
sessions' returns and a book's figures; and an alpha's turnover as /metrics serves it."""

from __future__ import annotations

import math

import pandas as pd

from tests.analytics.conftest import Api, Window
from tests.analytics.reference import Lake

YEAR = 252


GENERIC_META = {"request_id", "generated_at", "source", "warnings"}


def common_returns(lake: Lake, ids: list[str], window: Window) -> pd.DataFrame:
    """Sessions (ISO dates) x alphas of the daily long_short returns, where every alpha has one."""
    frame = pd.concat({a: lake.returns(a, "long_short", window) for a in ids}, axis=1)
    return frame.dropna().sort_index()


def book_figures(r: pd.Series, rf: pd.Series | None) -> dict[str, float]:
    level = (1 + r).cumprod()
    peak = level.cummax().clip(lower=1.0)
    excess = None if rf is None else r - rf
    return {
        "information_ratio": r.mean() / r.std(ddof=1) * math.sqrt(YEAR),
        "excess_sharpe": None if excess is None else excess.mean() / excess.std(ddof=1) * math.sqrt(YEAR),
        # Percentage points of the peak, as /metrics core.max_drawdown_pct.
        "max_drawdown_pct": float(((peak - level) / peak).max()) * 100,
        "annualised_return": r.mean() * YEAR,
        "volatility": r.std(ddof=1) * math.sqrt(YEAR),
    }


def metrics_turnover(api: Api, alpha: str) -> tuple[float | None, str | None]:
    entry = api.ok(f"/v1/alphas/{alpha}/metrics")["data"]["core"]["turnover"]
    return entry["value"], entry["unit"]
