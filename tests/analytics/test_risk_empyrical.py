"""/analytics/risk against empyrical's own functions (empyrical-reloaded), where empyrical defines the
convention: Sortino, CAGR, Calmar, tail ratio, historical 95% VaR and CVaR, max drawdown, and beta and
alpha against SPY, for every ledger book of every demo alpha over random windows, to 1e-9 relative.
The independent recomputation of every figure (pandas, numpy, statsmodels) is test_risk.py's."""

from __future__ import annotations

import math

import empyrical
import numpy as np
import pandas as pd
import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, BOOKS, Api, random_windows
from tests.analytics.helpers import close
from tests.support import risk_figures as base

P = base.P
MIN_SESSIONS = base.MIN_SESSIONS
MIN_TAIL = base.MIN_TAIL
spy = base.spy  # SPY's return basis and daily returns from the sealed closes (test_risk.py's fixture)

EMPYRICAL_MINIMUM = {
    "sortino": MIN_SESSIONS,
    "cagr": MIN_SESSIONS,
    "calmar": MIN_SESSIONS,
    "max_drawdown_pct": 1,
    "tail_ratio": MIN_TAIL,
    "var_95": MIN_TAIL,
    "cvar_95": MIN_TAIL,
    "beta": MIN_SESSIONS,
    "alpha": MIN_SESSIONS,
}
"""The route's minimum count of each figure (sessions; observations for beta and alpha): empyrical
computes some below it (a tail of 2 returns), where the route says `not_measurable` (test_risk.py)."""


def empyrical_figures(r: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """The figures by empyrical's functions on the window's returns r and SPY's b on r's sessions, each
    in the route's unit. Two conventions differ, and the matching quantity is compared:

    - alpha: empyrical compounds the mean daily intercept, `(1 + a)^252 - 1`; the route annualises it
      arithmetically, `a x 252` (docs/analytics.md, Risk). With `annualization=1` empyrical gives
      `a` itself, which is compared times 252.
    - max_drawdown_pct: empyrical's max_drawdown is a negative fraction; the route's percentage points
      of the peak, positive: `-max_drawdown x 100`.
    """
    both = ~np.isnan(b)
    y, x = r[both], b[both]
    figures = {
        "sortino": empyrical.sortino_ratio(r, required_return=0, period=empyrical.DAILY),
        "cagr": empyrical.cagr(r, period=empyrical.DAILY),
        "calmar": empyrical.calmar_ratio(r, period=empyrical.DAILY),
        "max_drawdown_pct": -empyrical.max_drawdown(r) * 100 if r.size else math.nan,
        "tail_ratio": empyrical.tail_ratio(r),
        "var_95": empyrical.value_at_risk(r, cutoff=0.05),
        "cvar_95": empyrical.conditional_value_at_risk(r, cutoff=0.05),
        "beta": math.nan,
        "alpha": math.nan,
    }
    if y.size >= MIN_SESSIONS:
        daily_alpha, beta = empyrical.alpha_beta(y, x, risk_free=0.0, annualization=1)
        figures |= {"beta": float(beta), "alpha": float(daily_alpha) * P}
    return {name: float(value) for name, value in figures.items()}


def tie_at_q5(r: np.ndarray) -> bool:
    """Whether a return past empyrical's CVaR tail equals the 5th percentile. empyrical averages the
    lowest `int((n - 1) x 0.05) + 1` returns, the route `mean(r | r <= q5)`: the same returns (q5
    interpolates between the tail's last return and the next) unless the next equals q5."""
    ordered = np.sort(r)
    k = int((r.size - 1) * 0.05)
    return bool(k + 1 < r.size and ordered[k + 1] <= np.percentile(r, 5))


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("book", BOOKS)
def test_risk_equals_empyrical(
    api: Api, lake: ref.Lake, spy: tuple[str, pd.Series], alpha: str, book: str
) -> None:
    """Sortino, CAGR, Calmar, tail ratio, VaR and CVaR (historical, 95%), max drawdown, beta and alpha
    as empyrical computes them, to 1e-9 relative; where the route withholds a figure above its
    minimum count, empyrical has no finite value either (no losing session, no drawdown, q5 = 0)."""
    _, spy_returns = spy
    compared: set[str] = set()
    for window in random_windows(f"risk-empyrical:{alpha}:{book}"):
        returns = lake.returns(alpha, book, window)
        if returns.size < MIN_SESSIONS:
            continue  # too short a window: the route's rules, test_risk.py's
        r = returns.to_numpy(float)
        b = spy_returns.reindex(returns.index).to_numpy(float)
        data = base.risk(api, alpha, book, window)["data"]
        served = {**data, **data["benchmark"]}
        count = {"beta": data["benchmark"]["observations"], "alpha": data["benchmark"]["observations"]}
        found = empyrical_figures(r, b)
        for name, want in found.items():
            entry, where = served[name], (alpha, book, window, name)
            if name == "cvar_95" and r.size and tie_at_q5(r):
                continue  # a documented difference of convention (tie_at_q5)
            if entry["status"] == "available":
                assert math.isfinite(want) and close(entry["value"], want), (where, entry, want)
                compared.add(name)
            else:
                below = count.get(name, data["sessions"]) < EMPYRICAL_MINIMUM[name]
                assert below or not math.isfinite(want), (where, entry, want)
    assert compared == set(EMPYRICAL_MINIMUM), (alpha, book, set(EMPYRICAL_MINIMUM) - compared)


def test_the_alpha_differs_from_empyricals_as_documented(
    api: Api, lake: ref.Lake, spy: tuple[str, pd.Series]
) -> None:
    """docs/analytics.md ("Names other libraries use differently") and the field's documentation say
    empyrical's alpha compounds the daily intercept, (1 + a)^252 - 1, where the route's is a x 252:
    empyrical's own function agrees, and the two differ by more than rounding."""
    _, spy_returns = spy
    returns = lake.returns("momentum_12_1", "long_short", (None, None))
    r, b = returns.to_numpy(float), spy_returns.reindex(returns.index).to_numpy(float)
    both = ~np.isnan(b)
    served = base.risk(api, "momentum_12_1", "long_short", (None, None))["data"]["benchmark"]["alpha"][
        "value"
    ]
    compounded = float(empyrical.alpha(r[both], b[both], risk_free=0.0, period=empyrical.DAILY))
    assert close(compounded, (1 + served / P) ** P - 1)
    assert abs(compounded - served) > 1e-3 * abs(served)
    documented = api.ok("/v1/alphas/momentum_12_1/analytics/_doc")["data"]["fields"]["risk.benchmark.alpha"]
    assert "empyrical's alpha(r, b) compounds the daily intercept" in documented["meaning"]
