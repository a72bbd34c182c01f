"""The real server process (`alpha-results serve`, the one the e2e tests share) over HTTP with real keys."""

from __future__ import annotations

import http.client
from typing import Any

import httpx
import pytest

from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(shared_server: SharedServer) -> dict[str, Any]:
    """The shared server, with the demo's keys added to its key store."""
    from access import ensure_demo_identities, open_store

    store = open_store(shared_server.keystore_url)
    try:
        tokens = ensure_demo_identities(store)
    finally:
        store.close()
    assert tokens is not None
    base = f"http://127.0.0.1:{shared_server.port}"
    return {"base": base, "admin": tokens["admin"]["token"], "member": tokens["member"]["token"]}


def test_health_over_http(server: dict[str, Any]) -> None:
    response = httpx.get(f"{server['base']}/v1/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["environment"] == "e2e"
    assert response.headers["x-request-id"]


def test_data_with_a_real_key(server: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {server['admin']}"}
    alphas = httpx.get(f"{server['base']}/v1/alphas", headers=headers)
    assert alphas.status_code == 200
    assert alphas.json()["pagination"]["total"] == 7
    assert any(h.lower().startswith("x-ratelimit-") for h in alphas.headers)
    curve = httpx.get(
        f"{server['base']}/v1/alphas/momentum_12_1/equity-curve", params={"limit": 3}, headers=headers
    )
    assert curve.status_code == 200
    assert len(curve.json()["data"]) == 3
    assert curve.json()["meta"]["summary"]["sessions"] > 3


def test_self_service_key_is_meta_only(server: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {server['member']}"}
    response = httpx.get(f"{server['base']}/v1/alphas", headers=headers)
    assert response.status_code == 403
    assert response.json()["error"]["details"]["endpoint"] == "catalog.alphas.list"


def test_router_and_auth_errors_over_http(server: dict[str, Any]) -> None:
    assert httpx.post(f"{server['base']}/v1/alphas").json()["error"]["code"] == "method_not_allowed"
    assert httpx.get(f"{server['base']}/v1/nothing").json()["error"]["code"] == "not_found"
    missing = httpx.get(f"{server['base']}/v1/alphas")
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    openapi = httpx.get(f"{server['base']}/openapi.json")
    assert "/v1/alphas/{alpha}/rebalances/{date}" in openapi.json()["paths"]


def test_a_percent_encoded_format_name_is_the_format(server: dict[str, Any]) -> None:
    """`?%66ormat=csv` is `format=csv` for the parameters' parser, so it is for the representation
    too: one parse of the query string (issue 33, item 21; issue 34). It answered JSON while its
    `Link` said `format=csv`."""
    connection = http.client.HTTPConnection("127.0.0.1", int(server["base"].rsplit(":", 1)[1]), timeout=30)
    try:
        path = "/v1/alphas/momentum_12_1/rebalances?%66ormat=csv&limit=2"
        connection.request("GET", path, headers={"Authorization": f"Bearer {server['admin']}"})
        response = connection.getresponse()
        body = response.read().decode()
        assert response.status == 200, body
        assert (response.getheader("content-type") or "").startswith("text/csv"), body[:200]
        assert "format=csv" in (response.getheader("link") or "")
        assert body.splitlines()[0].startswith('"date",')
    finally:
        connection.close()
