"""Who may call the analytics routes and what they may learn: endpoint deny-by-default, the alpha
allow-list (no production alpha named, counted or told apart), the data a figure is built from
(the ledger needs portfolio.ledger, cross-sections signals.rebalances.get or signals.scores, as on
/metrics), bad parameters, conditional GETs."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from serve.endpoints import endpoints
from tests.analytics.conftest import PRODUCTION, Api
from tests.analytics.helpers import check_withheld

ANALYTICS_OF_ONE_ALPHA = "/v1/alphas/{alpha:str}/analytics/"
ROUTES = {
    e.path.removeprefix(ANALYTICS_OF_ONE_ALPHA): e.id
    for e in endpoints().values()
    if e.path.startswith(ANALYTICS_OF_ONE_ALPHA)
}
"""Every analytics route of one alpha (read from the app's declarations: a new one is covered)."""
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
    ("uncertainty", {}),
    ("uncertainty", {"book": "long_only", **WINDOW}),
    ("uncertainty", {"book": "nope"}),
    ("overfitting", {}),
    ("overfitting", {"splits": 8}),
    ("overfitting", {"splits": 5}),
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
    for basis in ("returns", "ic", "scores"):
        others = sorted(a for a in TEST_ALPHAS if a != alpha)
        if basis == "scores":  # the score neighbours: every alpha but one that sealed no decisions
            others = [] if alpha == "Test_ledger_only" else [a for a in others if a != "Test_ledger_only"]
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


# -- the data a figure is built from (as /metrics) -------------------------------------------------

ACCESS_ALPHAS = ("momentum_12_1", "Test_planted_factor")
SIGNIFICANCE_FROM_LEDGER = ("sharpe", "skewness", "kurtosis", "psr", "min_track_record", "dsr")
COSTS_FROM_LEDGER = (
    "net_pnl",
    "execution_cost",
    "gross_pnl",
    "traded_notional",
    "break_even_multiple",
    "break_even_bps",
    "modelled_cost_bps",
)


def access_blocks(body: dict[str, Any]) -> set[str]:
    """The blocks named by the body's access_limited warnings."""
    return {w["block"] for w in body["meta"].get("warnings", []) if w["code"] == "access_limited"}


@pytest.mark.parametrize("alpha", ACCESS_ALPHAS)
@pytest.mark.parametrize("params", [{}, WINDOW])
def test_significance_without_the_ledger(api: Api, alpha: str, params: dict[str, Any]) -> None:
    full = api.ok(path(alpha, "significance"), "plain", **params)
    body = api.ok(path(alpha, "significance"), "no_portfolio", **params)
    data = body["data"]
    for name in SIGNIFICANCE_FROM_LEDGER:
        check_withheld(data[name], name)
    assert data["min_track_record"]["years"] is None
    # The window's sessions are a count of the ledger: withheld (null), never a 0 that reads as none.
    assert data["sessions"] is None and full["data"]["sessions"] > 0
    # The trials' Sharpe variance is built from every alpha's ledger: withheld too; the count is not.
    trials = data["dsr"]["trials"]
    assert trials["sharpe_variance"] is None and trials["expected_max_sharpe"] is None
    assert trials["sharpe_variance_alphas"] is None  # which alphas have a Sharpe ratio: ledger data too
    assert trials["count"] == full["data"]["dsr"]["trials"]["count"]
    assert full["data"]["dsr"]["trials"]["sharpe_variance"] is not None
    ir = data["bootstrap"]["information_ratio"]
    check_withheld(ir, "bootstrap.information_ratio")
    assert ir["lower"] is None and ir["upper"] is None
    assert access_blocks(body) == {"significance", "significance.bootstrap"}
    # What is built from the cross-sections is served as to any key.
    for name in ("rebuilt_mean_ic", "rebuilt_icir"):
        assert data["bootstrap"][name] == full["data"]["bootstrap"][name], name
    assert data["multiple_testing"] == full["data"]["multiple_testing"]
    assert access_blocks(full) == set()


@pytest.mark.parametrize("alpha", ACCESS_ALPHAS)
@pytest.mark.parametrize("params", [{}, WINDOW])
def test_significance_without_cross_sections(api: Api, alpha: str, params: dict[str, Any]) -> None:
    full = api.ok(path(alpha, "significance"), "plain", **params)["data"]
    body = api.ok(path(alpha, "significance"), "no_signals", **params)
    data = body["data"]
    for name in ("rebuilt_mean_ic", "rebuilt_icir"):
        entry = data["bootstrap"][name]
        check_withheld(entry, f"bootstrap.{name}")
        assert entry["lower"] is None and entry["upper"] is None
    for name in ("p_value", "holm", "benjamini_hochberg"):
        check_withheld(data["multiple_testing"][name], f"multiple_testing.{name}")
    assert access_blocks(body) == {"significance.bootstrap", "significance.multiple_testing"}
    # What is built from the ledger is served as to any key.
    for name in (*SIGNIFICANCE_FROM_LEDGER, "sessions"):
        assert data[name] == full[name], name
    ir, full_ir = data["bootstrap"]["information_ratio"], full["bootstrap"]["information_ratio"]
    assert ir["value"] == full_ir["value"] and ir["observations"] == full_ir["observations"]


@pytest.mark.parametrize("params", [{}, WINDOW])  # the whole history (memoised) and a window
def test_the_information_ratio_interval_does_not_depend_on_cross_section_access(
    api: Api, params: dict[str, Any]
) -> None:
    """The same series and seed give the same interval whatever else the key may read: each
    statistic draws from its own stream of the seed, so the interval of a key that may read the
    ledger equals the full key's (which test_significance rebuilds explicitly)."""
    full = api.ok(path("momentum_12_1", "significance"), "plain", **params)["data"]["bootstrap"]
    limited = api.ok(path("momentum_12_1", "significance"), "no_signals", **params)["data"]["bootstrap"]
    assert limited["streams"] == full["streams"] and limited["seed"] == full["seed"]
    assert limited["information_ratio"] == full["information_ratio"]


@pytest.mark.parametrize(
    ("alpha", "book"), [("momentum_12_1", "long_short"), ("Test_planted_factor", "long_only")]
)
def test_costs_without_the_ledger(api: Api, alpha: str, book: str) -> None:
    full = api.ok(path(alpha, "costs"), "plain", book=book)["data"]
    body = api.ok(path(alpha, "costs"), "no_portfolio", book=book)
    data = body["data"]
    for name in COSTS_FROM_LEDGER:
        check_withheld(data[name], name)
    for side in ("gross", "net"):
        check_withheld(data["information_ratio"][side], side)
    check_withheld(data["break_even_cost_bps"], "break_even_cost_bps")
    for row in data["net_ir_by_cost"]:
        check_withheld(row["net_information_ratio_at_cost"], row["cost_bps"])
    for row in data["net_ir_by_capital"]:
        for name in ("cost_bps", "participation_p95", "net_information_ratio"):
            check_withheld(row[name], (row["capital"], name))
    # The curve tied to capacity is built from the trades too (no portfolio.* here): its own block.
    assert access_blocks(body) == {"costs", "costs.net_ir_by_capital"}
    assert data["turnover_by_decile"] == full["turnover_by_decile"] is not None
    assert data["holding_period"] == full["holding_period"]


@pytest.mark.parametrize(
    ("alpha", "book"), [("momentum_12_1", "long_short"), ("Test_planted_factor", "long_only")]
)
def test_costs_without_cross_sections(api: Api, alpha: str, book: str) -> None:
    full = api.ok(path(alpha, "costs"), "plain", book=book)["data"]
    body = api.ok(path(alpha, "costs"), "no_signals", book=book)
    data = body["data"]
    assert data["turnover_by_decile"] is None and full["turnover_by_decile"] is not None
    check_withheld(data["holding_period"], "holding_period")
    assert access_blocks(body) == {"costs.turnover_by_decile"}
    for name in (*COSTS_FROM_LEDGER, "sessions", "information_ratio"):
        assert data[name] == full[name], name


@pytest.mark.parametrize(
    ("token", "route", "params", "endpoint"),
    [
        ("no_portfolio", "drawdowns", {}, "portfolio.ledger"),
        ("no_portfolio", "drawdowns", {"book": "long_only", **WINDOW}, "portfolio.ledger"),
        ("no_portfolio", "rolling", {"window": 13}, "portfolio.ledger"),
        ("no_signals", "rolling", {"window": 13}, "signals.scores"),
        ("no_portfolio", "correlation", {}, "portfolio.ledger"),  # the default basis is returns
        ("no_portfolio", "correlation", {"basis": "returns", **WINDOW}, "portfolio.ledger"),
        ("no_signals", "correlation", {"basis": "ic"}, "signals.scores"),
        ("no_signals", "correlation", {"basis": "scores", **WINDOW}, "signals.scores"),
    ],
)
def test_a_collection_built_from_data_the_key_may_not_read_is_refused(
    api: Api, token: str, route: str, params: dict[str, Any], endpoint: str
) -> None:
    for alpha in ACCESS_ALPHAS:
        response = api.get(path(alpha, route), token, **params)
        error = error_of(response, 403, "endpoint_not_allowed")
        assert error["details"]["endpoint"] == endpoint, error
        assert response.headers.get("etag") is None


@pytest.mark.parametrize(
    ("token", "route", "params"),
    [
        ("no_signals", "drawdowns", {"limit": 1000}),
        ("no_signals", "correlation", {"basis": "returns", "limit": 100}),
        ("no_portfolio", "correlation", {"basis": "ic", "limit": 100}),
        ("no_portfolio", "correlation", {"basis": "scores", "limit": 100, **WINDOW}),
    ],
)
def test_a_collection_built_from_readable_data_is_served(
    api: Api, token: str, route: str, params: dict[str, Any]
) -> None:
    for alpha in ACCESS_ALPHAS:
        body = api.ok(path(alpha, route), token, **params)
        assert body["data"] == api.ok(path(alpha, route), "plain", **params)["data"]
        assert body["data"]


def test_the_doc_needs_neither(api: Api) -> None:
    full = api.get(path("momentum_12_1", "_doc"), "plain").content
    for token in ("no_portfolio", "no_signals"):
        assert api.get(path("momentum_12_1", "_doc"), token).content == full


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
