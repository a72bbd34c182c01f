"""The OpenAPI document matches the routes, and every setting is documented."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.settings import SETTINGS, Settings
from schemas.query import OFFSET_MAX
from serve.app import MOUNTED_ENDPOINTS as SERVED
from serve.app import create_app
from serve.endpoints import endpoints
from serve.openapi import SCHEMA_PATH
from serve.openapi.downloads import DOWNLOAD_PATH, EXPORT_DOWNLOAD_PATH
from serve.openapi.statuses import NOT_FOUND_ENDPOINTS, RATE_LIMIT_HEADERS, error_statuses
from serve.routes import dashboard, developer, sharing
from serve.signing.archives import DOWNLOAD_ROUTE_PREFIX
from tests.api.conftest import Api, fake_authenticate

ROOT = Path(__file__).resolve().parents[2]


def test_openapi_declares_every_served_route(api: Api) -> None:
    response = api.get("/openapi.json", token=None)
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.1")
    for endpoint_id in SERVED:
        path = endpoints()[endpoint_id].openapi_path
        operation = document["paths"][path]["get"]
        assert operation["operationId"] == endpoint_id
        declared = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
        assert list(declared) == [p.name for p in endpoints()[endpoint_id].params]
        if "limit" in declared:
            assert (
                declared["limit"]["schema"]["minimum"] == 1 and declared["limit"]["schema"]["maximum"] == 5000
            )
        if "offset" in declared:
            assert declared["offset"]["schema"]["maximum"] == OFFSET_MAX
        assert set(operation["responses"]) == {"200", *error_statuses(endpoint_id)}
    equity = document["paths"]["/v1/alphas/{alpha}/equity-curve"]["get"]
    assert {p["name"]: p["schema"].get("default") for p in equity["parameters"]}["limit"] == 500


def test_served_routes_answer_only_declared_parameters(api: Api) -> None:
    error = api.error("/v1/alphas/Test_planted_factor/equity-curve", 400, "bad_request", symbol="X")
    assert error["details"]["parameters"][0]["name"] == "symbol"


def test_every_setting_is_documented() -> None:
    text = (ROOT / "docs" / "settings.md").read_text()
    missing = [s.env for s in SETTINGS if s.env not in text]
    assert not missing, f"undocumented settings: {missing}"


# -- the document matches the app -----------------------------------------------------------------

PROBE_VALUES = {
    "{alpha}": "Test_planted_factor",
    "{date}": "2021-01-15",
    "{symbol}": "SPY",
    "{key_id}": "k" * 16,
    "{dataset}": "decisions",
}
REPORTED_HEADERS = ("retry-after", "www-authenticate")


def _concrete(path: str, **values: str) -> str:
    for name, value in {**PROBE_VALUES, **values}.items():
        path = path.replace(name, value)
    return path


def _declared_headers(document: dict[str, Any], response: dict[str, Any]) -> dict[str, dict[str, Any]]:
    resolved = {}
    for name, header in response.get("headers", {}).items():
        if "$ref" in header:
            header = document["components"]["headers"][header["$ref"].rsplit("/", 1)[1]]
        resolved[name.lower()] = header
    return resolved


def assert_headers_declared(document: dict[str, Any], operation: dict[str, Any], response: Any) -> None:
    """What the app sends is declared for that status, and what is declared required is sent."""
    assert str(response.status_code) in operation["responses"], (
        operation["operationId"],
        response.status_code,
    )
    declared = _declared_headers(document, operation["responses"][str(response.status_code)])
    sent = {h.lower() for h in response.headers}
    ours = {h for h in sent if h.startswith("x-") or h in REPORTED_HEADERS}
    assert ours <= set(declared), (operation["operationId"], response.status_code, ours - set(declared))
    required = {name for name, header in declared.items() if header.get("required")}
    assert required <= sent, (operation["operationId"], response.status_code, required - sent)


def test_openapi_document_is_valid_openapi_3_1(api: Api) -> None:
    from openapi_spec_validator import validate

    validate(api.get("/openapi.json", token=None).json())


def test_openapi_paths_are_exactly_the_app_routes(client: TestClient[Any]) -> None:
    document = client.get("/openapi.json").json()
    routes = {re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path) for route in client.app.routes}
    routes.difference_update(
        re.sub(r"\{(\w+):\w+\}", r"{\1}", path) for path in (*developer.PATHS, *dashboard.PATHS)
    )
    # Litestar's own router, serving the same document and Swagger UI under /schema.
    routes.difference_update({r for r in routes if r == SCHEMA_PATH or r.startswith(f"{SCHEMA_PATH}/")})
    # Delta Sharing: the open protocol's own paths (its PROTOCOL.md and docs/integrations.md document them).
    routes.difference_update({r for r in routes if r.startswith(f"{sharing.PREFIX}/")})
    assert f"{DOWNLOAD_ROUTE_PREFIX}/{{object_path}}" in routes
    routes.discard(f"{DOWNLOAD_ROUTE_PREFIX}/{{object_path}}")
    documented = set(document["paths"])
    assert DOWNLOAD_PATH in documented and EXPORT_DOWNLOAD_PATH in documented
    assert documented - {DOWNLOAD_PATH, EXPORT_DOWNLOAD_PATH} == routes


def test_health_declares_only_what_it_can_answer(api: Api) -> None:
    health = api.get("/openapi.json", token=None).json()["paths"]["/v1/health"]["get"]
    # 400 for a parameter, 500, and the refusals of the connection any route may meet (408, 414,
    # 431, 503 too_many_connections): never the key's (401, 403, 429) nor the backends'.
    assert set(health["responses"]) == {"200", "400", "408", "414", "431", "500", "503"}
    assert "too_many_connections" in health["responses"]["503"]["description"]
    assert health["security"] == []
    assert api.get("/v1/health", token=None).status_code == 200
    assert api.get("/v1/health", token="unknown").status_code == 200  # a key is never read
    assert api.get("/v1/health", token=None, colour="x").status_code == 400


@pytest.fixture
def admin_token() -> Any:
    from schemas.registry import ALL_IDS
    from tests.api.conftest import CALLERS, make_caller

    CALLERS["probe_admin"] = make_caller(role="admin", is_admin=True, endpoints=frozenset(ALL_IDS))
    yield "probe_admin"
    del CALLERS["probe_admin"]


@pytest.mark.parametrize("endpoint_id", SERVED)
def test_every_answer_of_a_route_is_declared(api: Api, endpoint_id: str, admin_token: str) -> None:
    document = api.get("/openapi.json", token=None).json()
    path = endpoints()[endpoint_id].openapi_path
    operation = document["paths"][path]["get"]
    declared = set(operation["responses"])
    extra = {"book": "long_short"} if endpoint_id == "portfolio.trades" else {}
    probes = [
        api.get(_concrete(path), token=None, **extra),
        api.get(_concrete(path), token="unknown", **extra),
        api.get(_concrete(path), token="raw", **extra),
        api.get(_concrete(path), token="metaonly", **extra),
        api.get(_concrete(path), token=admin_token, **{**extra, "colour": "x"}),
        api.get(_concrete(path, **{"{alpha}": "Test_nothing"}), token=admin_token, **extra),
    ]
    for response in probes:
        assert_headers_declared(document, operation, response)
    observed = {str(r.status_code) for r in probes}
    assert observed <= declared
    assert "400" in observed
    if not endpoints()[endpoint_id].public:
        assert {"401", "403"} <= declared and "401" in observed
    if "{alpha}" in path:
        assert "404" in observed
    elif endpoint_id not in NOT_FOUND_ENDPOINTS:
        assert "404" not in declared, endpoint_id


def test_metered_headers_and_429_are_declared(demo_lake: Path) -> None:
    from serve.limits import open_limiter
    from tests.api.conftest import CALLERS

    CALLERS["one_a_day"] = replace(CALLERS["plain"], key_id="d" * 16, rate_limit={"per_day": 1})
    app = create_app(
        Settings(lake=str(demo_lake), environment="test"),
        authenticate=fake_authenticate,
        limiter=open_limiter("memory://"),
    )
    try:
        with TestClient(app=app) as client:
            document = client.get("/openapi.json").json()
            operation = document["paths"]["/v1/alphas"]["get"]
            admitted = client.get("/v1/alphas", headers={"Authorization": "Bearer one_a_day"})
            refused = client.get("/v1/alphas", headers={"Authorization": "Bearer one_a_day"})
            anonymous = client.get("/v1/alphas")
    finally:
        del CALLERS["one_a_day"]
    assert (admitted.status_code, refused.status_code, anonymous.status_code) == (200, 429, 401)
    assert admitted.headers["x-ratelimit-window"] and refused.headers["retry-after"]
    assert anonymous.headers["www-authenticate"] == "Bearer"
    for response in (admitted, refused, anonymous):
        assert_headers_declared(document, operation, response)
    limited = _declared_headers(document, operation["responses"]["200"])
    assert {f"x-ratelimit-{part.lower()}" for part in RATE_LIMIT_HEADERS} <= set(limited)


def test_download_route_is_declared_with_its_answers(api: Api) -> None:
    document = api.get("/openapi.json", token=None).json()
    operation = document["paths"][DOWNLOAD_PATH]["get"]
    assert operation["security"] == [] and "x-registry-id" not in operation
    assert set(operation["responses"]) == {"200", "403", "404", "500", "503"}
    assert "application/zip" in operation["responses"]["200"]["content"]
    assert "download_url_invalid" in operation["responses"]["403"]["description"]
    assert "download_url_expired" in operation["responses"]["403"]["description"]
    query = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
    assert set(query) == {"expires", "holder", "signature"} and all(p["required"] for p in query.values())
    # A forged URL: 403 with a signing key, 503 without one (the default key file may be absent).
    response = api.get(f"/downloads/archives/Test_planted_factor/{'0' * 64}.zip?expires=1&signature=00", None)
    assert response.status_code in (403, 503)
    assert_headers_declared(document, operation, response)
