"""The request path: router errors before any key, authentication, allow-lists, the error envelope."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from core.settings import Settings
from datasets.reader import LakeUnavailable
from schemas.query import OFFSET_MAX
from serve.app import create_app
from serve.endpoints import endpoints
from tests.api.conftest import Api, fake_authenticate
from tests.support.data_paths import DATA_PATHS


def test_unknown_path_is_not_found_before_any_key(api: Api) -> None:
    error = api.error("/v1/nothing/here", 404, "not_found", token=None)
    assert error["details"]["path"] == "/v1/nothing/here"
    api.error("/v2/alphas", 404, "not_found", token="not-a-key")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])
@pytest.mark.parametrize("path", ["/v1/health", "/v1/alphas", "/v1/alphas/Test_planted_factor/scores"])
def test_other_methods_are_method_not_allowed_before_any_key(
    client: TestClient[Any], method: str, path: str
) -> None:
    response = client.request(method, path)  # no Authorization header at all
    assert response.status_code == 404
    assert response.headers["x-request-id"]
    if method != "HEAD":
        assert response.json()["error"]["code"] == "method_not_allowed"


def test_health_is_public_and_complete(api: Api) -> None:
    response = api.get("/v1/health", token=None)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"status", "service", "environment", "version", "registry_version", "time"}
    assert body["status"] == "ok"
    assert body["environment"] == "test"
    assert body["registry_version"].startswith("r-")
    assert body["time"].endswith("Z")
    assert response.headers["x-request-id"].startswith("req_")


def test_health_names_what_is_down(demo_lake: Any) -> None:
    class DownLimiter:
        def ping(self) -> None:
            raise ConnectionError("redis is down")

    app = create_app(Settings(lake=str(demo_lake)), authenticate=fake_authenticate, limiter=DownLimiter())
    with TestClient(app) as client:
        response = client.get("/v1/health")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["down"] == ["limiter"]


@pytest.mark.parametrize("endpoint_id, path", sorted(DATA_PATHS.items()))
def test_every_data_route_needs_a_key(api: Api, endpoint_id: str, path: str) -> None:
    response = api.get(path, token=None)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "missing_api_key"
    api.error(path, 401, "invalid_api_key", token="unknown")


@pytest.mark.parametrize("endpoint_id, path", sorted(DATA_PATHS.items()))
def test_endpoint_allow_list_names_the_registry_id(api: Api, endpoint_id: str, path: str) -> None:
    assert endpoints()[endpoint_id]
    error = api.error(path, 403, "endpoint_not_allowed", token="metaonly")
    assert error["details"]["endpoint"] == endpoint_id


@pytest.mark.parametrize("endpoint_id, path", sorted(DATA_PATHS.items()))
def test_every_data_route_answers_with_the_envelope(api: Api, endpoint_id: str, path: str) -> None:
    response = api.get(path)
    assert response.status_code == 200, response.text
    body = response.json()
    assert {"data", "meta"} <= set(body)
    assert body["meta"]["request_id"] == response.headers["x-request-id"]
    if endpoint_id != "catalog.alphas.get":
        assert set(body["pagination"]) == {"limit", "offset", "returned", "total", "has_more"}


@pytest.mark.parametrize("alpha", ["momentum_12_1", "no_such_production_alpha"])
def test_run_allow_list_is_checked_before_lookup(api: Api, alpha: str) -> None:
    for suffix in ("/rebalances", "/scores", "/books", "/portfolio", "/equity-curve"):
        error = api.error(f"/v1/alphas/{alpha}{suffix}", 403, "run_not_allowed", token="testonly")
        assert error["details"] == {"alpha": alpha}
    api.error(f"/v1/alphas/{alpha}", 403, "alpha_not_allowed", token="testonly")


def test_run_allow_list_alone_blocks_data_but_not_the_description(api: Api) -> None:
    api.ok("/v1/alphas/Test_planted_factor", token="alphaonly")
    api.error("/v1/alphas/Test_planted_factor/scores", 403, "run_not_allowed", token="alphaonly")


def test_missing_alpha_codes(api: Api) -> None:
    api.error("/v1/alphas/Test_nothing", 404, "alpha_not_found")
    for suffix in ("/rebalances", "/rebalances/2021-01-15", "/scores", "/books", "/pnl", "/equity-curve"):
        api.error(f"/v1/alphas/Test_nothing{suffix}", 404, "run_not_found")
    api.error("/v1/alphas/Test_nothing/trades", 404, "run_not_found", book="long_short")


def test_every_offending_parameter_is_listed(api: Api) -> None:
    error = api.error(
        "/v1/alphas/Test_planted_factor/positions",
        400,
        "bad_request",
        limit="0",
        offset="-1",
        to="2021-13-01",
        colour="secret",
        symbol="A,,B",
    )
    names = [p["name"] for p in error["details"]["parameters"]]
    assert names == ["colour", "limit", "offset", "symbol", "to"]
    rules = {p["name"]: p["rule"] for p in error["details"]["parameters"]}
    assert "between 1 and 5000" in rules["limit"]
    assert f"between 0 and {OFFSET_MAX}" in rules["offset"]
    assert "unknown parameter" in rules["colour"]
    assert "secret" not in str(error)


@pytest.mark.parametrize(
    "params, offending",
    [
        ({"limit": "5001"}, ["limit"]),
        ({"limit": "abc"}, ["limit"]),
        ({"from": "2021-1-5"}, ["from"]),
        ({"from": "2022-01-01", "to": "2021-01-01"}, ["from", "to"]),
        ({"limit": "5000", "offset": "0", "from": "2021-01-01", "to": "2021-01-01"}, []),
    ],
)
def test_common_parameter_rules(api: Api, params: dict[str, str], offending: list[str]) -> None:
    path = "/v1/alphas/Test_planted_factor/rebalances"
    if not offending:
        api.ok(path, **params)
        return
    error = api.error(path, 400, "bad_request", **params)
    assert [p["name"] for p in error["details"]["parameters"]] == offending


def test_unhandled_failure_is_500_without_detail(demo_lake: Any, caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(Settings(lake=str(demo_lake)), authenticate=fake_authenticate)
    reader = app.state["services"].reader

    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals")

    reader.catalogue = explode
    with TestClient(app) as client:
        response = client.get("/v1/alphas", headers={"Authorization": "Bearer raw"})
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "internal_error"
    assert error["details"] == {}
    assert "secret" not in response.text
    assert error["request_id"] in caplog.text
    assert "secret internals" in caplog.text


def test_lake_failure_is_503_upstream_unavailable(demo_lake: Any) -> None:
    app = create_app(Settings(lake=str(demo_lake)), authenticate=fake_authenticate)

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise LakeUnavailable("bucket unreachable")

    app.state["services"].reader.alphas = unreachable
    with TestClient(app) as client:
        response = client.get(
            "/v1/alphas/Test_planted_factor/scores", headers={"Authorization": "Bearer raw"}
        )
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "upstream_unavailable"


PAGED_PATHS = sorted(
    (endpoint_id, path)
    for endpoint_id, path in DATA_PATHS.items()
    if any(p.name == "offset" for p in endpoints()[endpoint_id].params)
)


def _with(path: str, **params: str) -> str:
    joined = "&".join(f"{k}={v}" for k, v in params.items())
    return f"{path}{'&' if '?' in path else '?'}{joined}"


@pytest.mark.parametrize("endpoint_id, path", PAGED_PATHS)
@pytest.mark.parametrize("offset", ["9223372036854775808", str(OFFSET_MAX + 1), "9" * 5000])
def test_offset_beyond_its_maximum_is_400_naming_it(
    api: Api, endpoint_id: str, path: str, offset: str
) -> None:
    response = api.client.get(_with(path, offset=offset), headers={"Authorization": "Bearer raw"})
    assert response.status_code == 400, (endpoint_id, response.text[:300])
    (problem,) = response.json()["error"]["details"]["parameters"]
    assert problem["name"] == "offset"
    assert f"between 0 and {OFFSET_MAX}" in problem["rule"]


def test_offset_at_its_maximum_is_an_empty_page(api: Api) -> None:
    body = api.ok("/v1/alphas/Test_planted_factor/rebalances", offset=str(OFFSET_MAX))
    assert body["data"] == [] and body["pagination"]["offset"] == OFFSET_MAX
    assert body["pagination"]["has_more"] is False


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "١"},  # ARABIC-INDIC DIGIT ONE: int() takes it as 1
        {"limit": "１０"},  # FULLWIDTH digits
        {"offset": "٣"},
        {"limit": "1" + "0" * 4400},  # beyond int()'s digit limit
        {"from": "٢٠٢١-٠١-١٥"},
        {"to": "2021-01-15\n"},
    ],
)
def test_integers_and_dates_take_ascii_digits_only(api: Api, params: dict[str, str]) -> None:
    error = api.error("/v1/alphas/Test_planted_factor/rebalances", 400, "bad_request", **params)
    assert [p["name"] for p in error["details"]["parameters"]] == list(params)


@pytest.mark.parametrize("value", ["٠.٥", "1_0", "nan", "infinity", "0x10", "1e"])
def test_numbers_take_ascii_decimals_only(api: Api, value: str) -> None:
    error = api.error(
        "/v1/alphas/Test_planted_factor/rebalances/2021-01-15", 400, "bad_request", min_abs_weight=value
    )
    assert [p["name"] for p in error["details"]["parameters"]] == ["min_abs_weight"]


def test_ascii_numbers_and_padding_still_parse(api: Api) -> None:
    body = api.ok("/v1/alphas/Test_planted_factor/rebalances", limit=" 7", offset="+1")
    assert body["pagination"]["limit"] == 7 and body["pagination"]["offset"] == 1
    api.ok("/v1/alphas/Test_planted_factor/rebalances/2021-01-15", min_abs_weight="5e-2")


def test_path_date_with_non_ascii_digits_is_400(api: Api) -> None:
    error = api.error("/v1/alphas/Test_planted_factor/rebalances/٢٠٢١-٠١-١٥", 400, "bad_request")
    assert [p["name"] for p in error["details"]["parameters"]] == ["date"]


def test_symbols_that_upper_case_into_ascii_are_refused(api: Api) -> None:
    # "ß".upper() == "SS" and "ﬁ".upper() == "FI": neither is a ticker the caller typed.
    for value in ("ß", "ﬁ"):
        error = api.error("/v1/alphas/Test_planted_factor/positions", 400, "bad_request", symbol=value)
        assert [p["name"] for p in error["details"]["parameters"]] == ["symbol"]
