"""Who may call the analytics routes and what they may learn: endpoint deny-by-default, the alpha
allow-list (no production alpha named, counted or told apart), bad parameters, conditional GETs."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.analytics.conftest import PRODUCTION, Api

ROUTES = {
    "significance": "analytics.significance",
    "correlation": "analytics.correlation",
    "drawdowns": "analytics.drawdowns",
    "rolling": "analytics.rolling",
    "costs": "analytics.costs",
    "_doc": "analytics.doc",
}
TEST_ALPHAS = [
    "Test_planted_factor",
    "Test_short_term_reversal",
    "Test_small_universe",
    "Test_low_vol_incomplete",
    "Test_ledger_only",
]
WINDOW = {"from": "2021-04-01", "to": "2021-11-30"}

# Every route with ordinary, windowed and bad parameters: answers and errors alike are checked.
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("significance", {}),
    ("significance", {**WINDOW, "sr_benchmark": 1.5}),
    ("significance", {"trials": 4}),
    ("significance", {"trials": 1}),
    ("significance", {"sr_benchmark": "abc"}),
    ("correlation", {"basis": "returns", "limit": 100}),
    ("correlation", {"basis": "ic", "limit": 2, "offset": 1}),
    ("correlation", {"basis": "scores", "limit": 100, **WINDOW}),
    ("correlation", {"basis": "foo"}),
    ("drawdowns", {"limit": 1000}),
    ("drawdowns", {"book": "long_only", **WINDOW}),
    ("drawdowns", {"book": "raw_long_short"}),
    ("rolling", {"window": 13, "limit": 1000}),
    ("rolling", {"window": 52, "book": "long_only", **WINDOW}),
    ("rolling", {"window": 14}),
    ("costs", {}),
    ("costs", {"book": "long_only", **WINDOW}),
    ("costs", {"book": "nope"}),
    ("costs", {"from": "2022-01-01", "to": "2021-01-01"}),
    ("_doc", {}),
]


def path(alpha: str, route: str) -> str:
    return f"/v1/alphas/{alpha}/analytics/{route}"


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


# -- the alpha allow-list -----------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", TEST_ALPHAS)
def test_a_test_only_key_never_learns_of_production_alphas(api: Api, alpha: str) -> None:
    statuses = set()
    for route, params in REQUESTS:
        response = api.get(path(alpha, route), "testonly", **params)
        statuses.add(response.status_code)
        text = response.text + " ".join(f"{k}: {v}" for k, v in response.headers.items())
        for name in PRODUCTION:
            assert name not in text, (route, params, response.status_code, text[:500])
    assert statuses == {200, 400}  # answers and errors were both checked


@pytest.mark.parametrize("alpha", TEST_ALPHAS)
def test_correlation_counts_only_the_other_readable_alphas(api: Api, alpha: str) -> None:
    others = sorted(a for a in TEST_ALPHAS if a != alpha)
    for basis in ("returns", "ic", "scores"):
        body = api.ok(path(alpha, "correlation"), "testonly", basis=basis, limit=2)
        assert body["pagination"]["total"] == len(others), basis
        every = api.ok(path(alpha, "correlation"), "testonly", basis=basis, limit=100)["data"]
        assert sorted(r["alpha"] for r in every) == others
        # The same rows as the full key's, minus the production alphas (values do not depend on the key).
        full = api.ok(path(alpha, "correlation"), "raw", basis=basis, limit=100)["data"]
        assert every == [r for r in full if r["alpha"] not in PRODUCTION]


def normalised_error(response: Any, alpha: str) -> dict[str, Any]:
    """The error without its request id, the requested (echoed) name replaced by a placeholder."""
    text = response.text.replace(alpha, "<alpha>")
    text = re.sub(r'"request_id":"[^"]*"', '"request_id":""', text)
    assert "request_id" in response.text
    body: dict[str, Any] = json.loads(text)
    return body


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("params", [{}, {"window": 14, "basis": "foo", "book": "nope", "trials": 1}])
def test_a_production_alpha_is_refused_before_lookup(api: Api, route: str, params: dict[str, Any]) -> None:
    """Whether the forbidden alpha exists or not, and whatever the parameters, the same 403."""
    real = api.get(path("momentum_12_1", route), "testonly", **params)
    made_up = api.get(path("nope_alpha", route), "testonly", **params)
    error_of(real, 403, "run_not_allowed")
    error_of(made_up, 403, "run_not_allowed")
    assert normalised_error(real, "momentum_12_1") == normalised_error(made_up, "nope_alpha")
    assert real.headers.get("etag") is None and made_up.headers.get("etag") is None
    assert "value_composite_legacy" not in real.text


# -- endpoint deny-by-default -------------------------------------------------------------------------


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_key_without_analytics_endpoints_is_refused(api: Api, route: str) -> None:
    for alpha in ("momentum_12_1", "Test_planted_factor"):
        error = error_of(api.get(path(alpha, route), "no_analytics"), 403, "endpoint_not_allowed")
        assert error["details"]["endpoint"] == ROUTES[route]
    # The same key reads other endpoints of the alpha: only analytics.* is missing.
    assert api.get("/v1/alphas/momentum_12_1/metrics", "no_analytics").status_code == 200


# -- bad parameters -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "params", "names"),
    [
        ("rolling", {"window": 14}, {"window"}),
        ("rolling", {"window": "abc"}, {"window"}),
        ("correlation", {"basis": "foo"}, {"basis"}),
        ("significance", {"trials": 1}, {"trials"}),
        ("significance", {"trials": "many"}, {"trials"}),
        ("significance", {"sr_benchmark": "abc"}, {"sr_benchmark"}),
        ("significance", {"sr_benchmark": "nan"}, {"sr_benchmark"}),
        ("significance", {"sr_benchmark": "inf"}, {"sr_benchmark"}),
        ("significance", {"from": "2022-01-01", "to": "2021-01-01"}, {"from", "to"}),
        ("correlation", {"from": "2022-01-01", "to": "2021-01-01"}, {"from", "to"}),
        ("drawdowns", {"from": "2022-01-01", "to": "2021-01-01"}, {"from", "to"}),
        ("rolling", {"from": "2022-01-01", "to": "2021-01-01"}, {"from", "to"}),
        ("costs", {"from": "2022-01-01", "to": "2021-01-01"}, {"from", "to"}),
        ("costs", {"from": "2021-02-30"}, {"from"}),
        ("drawdowns", {"limit": 0}, {"limit"}),
        ("correlation", {"offset": -1}, {"offset"}),
        ("_doc", {"book": "long_short"}, {"book"}),
    ],
)
def test_bad_parameters_are_400_naming_them(
    api: Api, route: str, params: dict[str, Any], names: set[str]
) -> None:
    error = error_of(api.get(path("momentum_12_1", route), **params), 400, "bad_request")
    assert {p["name"] for p in error["details"]["parameters"]} == names, error
    for name in names:
        assert name in error["message"]


@pytest.mark.parametrize("route", ["drawdowns", "rolling", "costs"])
def test_unknown_and_raw_books(api: Api, route: str) -> None:
    error = error_of(api.get(path("momentum_12_1", route), book="nope"), 400, "unknown_book")
    assert error["details"]["book"] == "nope"
    for book in ("raw_long_short", "raw_long_only"):
        plain = error_of(api.get(path("momentum_12_1", route), "plain", book=book), 400, "unknown_book")
        assert plain["details"]["book"] == book
        assert not any(b.startswith("raw_") for b in plain["details"]["available"])
        assert api.get(path("momentum_12_1", route), "raw", book=book).status_code == 200


def test_significance_has_no_book_parameter(api: Api) -> None:
    error = error_of(api.get(path("momentum_12_1", "significance"), book="long_only"), 400, "bad_request")
    assert [p["name"] for p in error["details"]["parameters"]] == ["book"]


# -- conditional requests -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "params"),
    [
        ("significance", {}),
        ("significance", {**WINDOW, "trials": 5}),
        ("correlation", {"basis": "returns"}),
        ("correlation", {"basis": "scores", **WINDOW}),
        ("drawdowns", {}),
        ("rolling", {"window": 26}),
        ("costs", {"book": "long_only"}),
    ],
)
def test_etag_and_304(api: Api, route: str, params: dict[str, Any]) -> None:
    first = api.get(path("momentum_12_1", route), **params)
    assert first.status_code == 200
    tag = first.headers["etag"]
    assert tag
    again = api.get(path("momentum_12_1", route), headers={"If-None-Match": tag}, **params)
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == tag
    stale = api.get(path("momentum_12_1", route), headers={"If-None-Match": '"0000"'}, **params)
    assert stale.status_code == 200
    # Another window or another key's view is another answer: the tag does not match it.
    other = api.get(
        path("momentum_12_1", route), headers={"If-None-Match": tag}, **{**params, "to": "2021-10-31"}
    )
    assert other.status_code == 200 and other.headers["etag"] != tag


def test_correlation_tags_differ_between_keys_that_see_different_alphas(api: Api) -> None:
    raw = api.get(path("Test_planted_factor", "correlation"))
    testonly = api.get(path("Test_planted_factor", "correlation"), "testonly")
    assert raw.headers["etag"] != testonly.headers["etag"]
    refused = api.get(
        path("Test_planted_factor", "correlation"), "testonly", headers={"If-None-Match": raw.headers["etag"]}
    )
    assert refused.status_code == 200
