"""No figure of any analytics route is served "available" on a window its own formula cannot
support, and no window is a 5xx (issue 81, item 2): every analytics route of one alpha the OpenAPI
document lists (its `from`/`to` window, or for the live routes its `split`, set so that the window
holds 0 to 10 sessions), walked for every figure entry (`{value, status, ...}`) it serves.

What each formula needs is written from the formulas (tests/support/short_windows.py),
independently of `analytics` (whose one rule per figure is
`analytics.sharpe_inference.MEASURABLE_FROM`): a count of returns below which the figure is
determined by construction, whatever the returns are:

- a standard deviation (ddof 1) needs 2 returns, and every ratio over one (a Sharpe or information
  ratio, a tracking error) with it;
- a lag-1 correlation over T returns is over T - 1 pairs; two pairs (3 returns) lie on a line, so
  it is +-1 by construction: it needs 4 returns;
- the sample kurtosis of 3 returns is 1.5 whatever they are (of 2, 1): it needs 4;
- the sample skewness of 2 returns is 0: it needs 3;
- the Sharpe ratio's variance (its standard error, the PSR, the minimum track record, the critical
  Sharpe ratio, the power, every DSR) is a function of the lag-1 correlation and the kurtosis: 4;
- the t-statistic SR sqrt(T) is the Sharpe ratio over its standard error (the i.i.d. normal one,
  1 / sqrt(T)): it is Sharpe inference, and needs what its variance needs: 4.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.analytics.conftest import Api
from tests.analytics.reference import Lake
from tests.support.short_windows import LENGTHS, NEEDS

ALPHAS = ("Test_ledger_only", "momentum_12_1")
UNSERVED: dict[str, frozenset[str]] = {
    # the figures an alpha never serves available: no trial family (dsr_family), no costs sealed
    "Test_ledger_only": frozenset({"dsr_family", "net_information_ratio"}),
    "momentum_12_1": frozenset({"dsr_family"}),
}
"""The NEEDS names an alpha of the small demo never serves available, so the walk cannot check
their minimum on it: no alpha of the small demo is in a trial family, so dsr_family's is checked
over a family's member (tests/analytics/test_overfitting.py, the families' lake); the walk asserts
every other name is met available."""
SPLIT_ROUTES = frozenset({"live", "decay", "monitoring", "drawdown_odds", "expectation"})
EXTRA: dict[str, dict[str, Any]] = {
    # The t-statistic check is off unless the request bounds it
    "checks": {"min_sharpe_t_statistic": 3.0},
    "contribution": {"reference": "momentum_12_1,value_composite_legacy"},
    "compare": {"with": "value_composite_legacy"},
}


def figures(body: Any, path: str = "") -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(path, name, entry) of every figure entry in `body`: a mapping with a `value` and a `status`
    (a stat entry) or a `verdict` (a check), named by its key, or by its `id` where a list holds it."""
    if isinstance(body, dict):
        if "value" in body and ("status" in body or "verdict" in body):
            name = str(body.get("id") or path.rsplit(".", 1)[-1])
            yield path, name, body
        for key, value in body.items():
            yield from figures(value, f"{path}.{key}" if path else key)
    elif isinstance(body, list):
        for i, value in enumerate(body):
            yield from figures(value, f"{path}[{i}]")


def routes(api: Api) -> list[tuple[str, list[str]]]:
    """Every analytics GET route of one alpha: its last path segment and its parameters."""
    doc = api.client.get("/openapi.json").json()
    found = []
    for path, ops in doc["paths"].items():
        op = ops.get("get")
        if op is None or not path.startswith("/v1/alphas/{alpha}/analytics/") or path.endswith("/_doc"):
            continue
        found.append((path.rsplit("/", 1)[-1], [p["name"] for p in op.get("parameters", [])]))
    return found


def sessions(lake: Lake, alpha: str) -> list[str]:
    ledger = lake.ledger(alpha, "long_short")
    assert ledger is not None
    return sorted(str(d)[:10] for d in ledger["date"])


def test_routes_are_found(api: Api) -> None:
    """Every declared answer of one alpha (the registry, `analytics.answer.SERVED`) is walked, and
    the answers over a set (crowding, combine) below."""
    from analytics.reading import SERVED

    found = dict(routes(api))
    assert set(SERVED) <= found.keys()
    assert {"checks", "compare", "contribution", "promotion_preview"} <= found.keys()


SET_ROUTES: dict[str, dict[str, Any]] = {
    "/v1/analytics/crowding": {},
    "/v1/analytics/combine": {"alphas": "momentum_12_1,value_composite_legacy"},
}
"""The analytics routes over a set of alphas that take a window (approved_health and screen take
none: their figures are each alpha's whole history)."""


def test_no_set_figure_is_available_on_a_window_its_formula_cannot_support(api: Api, lake: Lake) -> None:
    days = sessions(lake, "momentum_12_1")
    start = days.index("2021-02-12")
    wrong: list[str] = []
    for path, extra in SET_ROUTES.items():
        for length in LENGTHS:
            window = ("2021-02-13", "2021-02-14") if length == 0 else (days[start], days[start + length - 1])
            params = {**extra, "from": window[0], "to": window[1]}
            response = api.get(path, **params)
            assert response.status_code < 500, (path, params, response.text[:500])
            if response.status_code != 200:
                continue
            for where, name, entry in figures(response.json()["data"]):
                need = NEEDS.get(name)
                available = (
                    entry["status"] == "available" if "status" in entry else entry["value"] is not None
                )
                if available and need is not None and length < need:
                    wrong.append(
                        f"{path} {params}: {where} = {entry['value']} on {length} sessions (needs {need})"
                    )
    assert not wrong, "\n".join(wrong[:40])


@pytest.mark.parametrize("alpha", ALPHAS)
def test_no_figure_is_available_on_a_window_its_formula_cannot_support(
    api: Api, lake: Lake, alpha: str
) -> None:
    days = sessions(lake, alpha)
    start = days.index("2021-02-12") if "2021-02-12" in days else len(days) // 3
    wrong: list[str] = []
    served = 0
    seen: set[str] = set()  # the NEEDS names met available at a length their formula supports
    for route, parameters in routes(api):
        for asked in LENGTHS:
            length = asked
            params: dict[str, Any] = dict(EXTRA.get(route, {}))
            if route in SPLIT_ROUTES:
                if "split" not in parameters:
                    continue
                params["split"] = days[len(days) - asked - 1]  # `length` sessions after it
            elif "from" in parameters:
                if asked == 0:  # a weekend: no session
                    params["from"], params["to"] = "2021-02-13", "2021-02-14"
                else:
                    params["from"], params["to"] = days[start], days[start + length - 1]
            elif asked:  # no window: asked once, over the whole history
                continue
            else:
                length = len(days)
            response = api.get(f"/v1/alphas/{alpha}/analytics/{route}", **params)
            assert response.status_code < 500, (route, params, response.text[:500])
            if response.status_code != 200:
                continue
            served += 1
            for path, name, entry in figures(response.json()["data"]):
                need = NEEDS.get(name)
                if route in SPLIT_ROUTES and path.startswith("in_sample"):  # the sessions up to the split
                    need = None
                available = (
                    entry["status"] == "available" if "status" in entry else entry["value"] is not None
                )
                if available and need is not None and length < need:
                    wrong.append(
                        f"{route} {params}: {path} = {entry['value']} on {length} sessions (needs {need})"
                    )
                if available and need is not None:
                    seen.add(name)
    assert served > 100
    assert not wrong, "\n".join(wrong[:40]) + f"\n... {len(wrong)} in all"
    # Each minimum is checked only if its figure is met, under that name, available on some window:
    # a figure renamed, or never available, would otherwise pass whatever its rule
    assert set(NEEDS) - UNSERVED.get(alpha, frozenset()) <= seen, sorted(set(NEEDS) - seen)
