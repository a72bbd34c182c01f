"""/v1/alphas/{alpha}/analytics/contribution checked against the rule recomputed from the ledgers
(pandas/numpy; the weight against scipy.optimize)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize

from tests.analytics.conftest import Api, Window, window_params
from tests.analytics.helpers import check_stat, close
from tests.analytics.reference import Lake
from tests.support.combine_figures import book_figures

MIN_SESSIONS = 20


def path(alpha: str) -> str:
    return f"/v1/alphas/{alpha}/analytics/contribution"


def ratio(r: pd.Series) -> float:
    return float(r.mean() / r.std(ddof=1))


def best_weight(before: pd.Series, alpha: pd.Series) -> float:
    """The w in [0, 1] maximising the information ratio of (1 - w) before + w alpha: scipy's bounded
    search, against both ends (the ratio may peak at one)."""
    found = optimize.minimize_scalar(
        lambda w: -ratio((1 - w) * before + w * alpha),
        bounds=(0.0, 1.0),
        method="bounded",
        options={"xatol": 1e-12},
    )
    candidates = [float(found.x), 0.0, 1.0]
    return max(candidates, key=lambda w: ratio((1 - w) * before + w * alpha))


def window_returns(lake: Lake, ids: list[str], window: Window) -> pd.DataFrame:
    """Sessions (ISO dates) x alphas of the daily long_short returns, NaN where an alpha has none
    (every alpha's ledger, outer-joined: no intersection)."""
    frame = pd.concat({a: lake.returns(a, "long_short", window) for a in ids}, axis=1)
    return frame.reindex(columns=ids).sort_index()


def ledger_risk_free(lake: Lake, ids: list[str], dates: pd.Index) -> pd.DataFrame:
    """The ledger's risk_free_return of each alpha on `dates`, NaN where it has no row."""
    columns = {}
    for alpha in ids:
        ledger = lake.ledger(alpha, "long_short")
        assert ledger is not None
        columns[alpha] = pd.Series(
            ledger["risk_free_return"].to_numpy(float), index=ledger["date"].to_numpy()
        )
    return pd.DataFrame(columns).reindex(index=dates, columns=ids)


def pairwise_correlation(a: pd.Series, member: pd.Series) -> float | None:
    """Pearson over the sessions both have a return; None below 3 of them or a constant side."""
    both = a.notna() & member.notna()
    x, y = a[both].to_numpy(), member[both].to_numpy()
    if both.sum() < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def check_contribution(
    api: Api,
    lake: Lake,
    alpha: str,
    reference: list[str],
    window: Window,
    weight: float | None,
    token: str = "raw",
    given: bool = True,
    origin: str | None = None,
) -> dict[str, Any]:
    """The served body against the rule recomputed from the ledgers: the sessions on which the
    alpha and at least one member have a return; the reference book on each the mean of the
    members with one (their risk-free returns likewise); each member correlated over the
    sessions it shares with the alpha. Returns the body's data (or {} for a 400). `origin`: the
    default set's, when not the approved set."""
    returns = window_returns(lake, [alpha, *reference], window)
    counted = returns[alpha].notna() & returns[reference].notna().any(axis=1)
    returns = returns[counted]
    params: dict[str, Any] = {**window_params(window), "weight": weight}
    if given:
        params["reference"] = ",".join(reference)
    if len(returns) < MIN_SESSIONS:
        response = api.get(path(alpha), token, **params)
        assert response.status_code == 400, response.text
        return {}
    body = api.ok(path(alpha), token, **params)
    data = body["data"]
    a = returns[alpha]
    members = returns[reference]
    before = members.mean(axis=1)  # skips the members without a return that session
    rf = ledger_risk_free(lake, [alpha, *reference], returns.index)
    rf_before = rf[reference].where(members.notna()).mean(axis=1)
    if weight is None:
        expected_w = best_weight(before, a)
        served_w = data["weight"]["value"]
        assert data["weight"]["chosen"] == "optimal"
        assert 0.0 <= served_w <= 1.0
        assert abs(served_w - expected_w) < 1e-5, (served_w, expected_w)
        # The served weight is at least as good as scipy's (to rounding).
        assert (
            ratio((1 - served_w) * before + served_w * a)
            >= ratio((1 - expected_w) * before + expected_w * a) - 1e-12
        )
        w = served_w
    else:
        assert data["weight"] == {"value": weight, "chosen": "given"}
        w = weight
    after = (1 - w) * before + w * a
    rf_after = (1 - w) * rf_before + w * rf[alpha]

    held = [m for m in reference if members[m].notna().any()]
    absent = [m for m in reference if m not in held]
    assert data["alpha"] == alpha and data["book"] == "long_short"
    assert data["reference"]["alphas"] == reference and data["reference"]["count"] == len(reference)
    assert data["reference"]["members_in_window"] == len(held)
    assert data["reference"]["without_returns"] == {"count": len(absent), "alphas": absent}
    assert data["reference"]["source"] == ("given" if given else "production")
    assert data["reference"]["origin"] == ("given" if given else origin or "approved")
    assert data["window"] == {"from": window[0], "to": window[1]}
    assert data["sessions"] == len(returns)
    expected_before = book_figures(before, rf_before)
    expected_after = book_figures(after, rf_after)
    for name in expected_before:
        check_stat(data["before"][name], expected_before[name], (alpha, window, "before", name))
        check_stat(data["after"][name], expected_after[name], (alpha, window, "after", name))
        assert close(
            data["change"][name]["value"], expected_after[name] - expected_before[name], rel_tol=1e-7
        ), name
    check_stat(data["correlation_to_set"], float(a.corr(before)), "correlation_to_set")
    to_members = {m: pairwise_correlation(a, members[m]) for m in reference}
    known = {m: c for m, c in to_members.items() if c is not None}
    if known:
        nearest = max(known, key=lambda m: abs(known[m]))
        check_stat(data["max_correlation_to_member"], known[nearest], "max_correlation_to_member")
        assert data["max_correlation_to_member"]["alpha"] == nearest
        check_stat(
            data["mean_correlation_to_member"],
            float(np.mean(list(known.values()))),
            "mean_correlation_to_member",
        )
    else:
        check_stat(data["max_correlation_to_member"], None, "max_correlation_to_member")
        check_stat(data["mean_correlation_to_member"], None, "mean_correlation_to_member")
    assert data["mean_correlation_to_member"]["members"] == len(known)
    return dict(data)
