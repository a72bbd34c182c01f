"""One structured access line per request; the OpenAPI document lists exactly the mounted routes."""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any

import pytest
from litestar.testing import TestClient

from schemas.registry import ALL_IDS
from serve.app import MOUNTED_ENDPOINTS, ROUTE_HANDLERS
from serve.endpoints import endpoints
from serve.openapi.statuses import error_statuses
from tests.ops.conftest import CALLERS, AppFactory, bearer

FIELDS = {"time", "request_id", "key_id", "route", "method", "path", "status", "duration_ms", "pid"}


@pytest.fixture
def client(make_client: AppFactory, lake_copy) -> TestClient[Any]:
    return make_client(lake=str(lake_copy))


def access_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "serve.access"]


def test_one_json_line_per_request(client: TestClient[Any], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="serve.access"):
        ok = client.get("/v1/alphas/momentum_12_1/books?limit=2", headers=bearer("member"))
        refused = client.get("/v1/alphas", headers=bearer("nobody"))
        unknown = client.get("/v1/nothing")
        health = client.get("/v1/health")
    lines = access_lines(caplog)
    assert len(lines) == 4 and all(set(line) == FIELDS for line in lines)
    first, second, third, fourth = lines
    assert first == {
        **first,
        "request_id": ok.headers["x-request-id"],
        "key_id": CALLERS["member"].key_id,
        "route": "portfolio.books",
        "method": "GET",
        "path": "/v1/alphas/momentum_12_1/books",
        "status": 200,
        "pid": os.getpid(),
    }
    assert first["duration_ms"] >= 0 and re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", first["time"])
    assert (second["status"], second["key_id"], second["route"]) == (401, None, "catalog.alphas.list")
    assert second["request_id"] == refused.headers["x-request-id"]
    assert (third["status"], third["route"], third["request_id"]) == (
        404,
        None,
        unknown.headers["x-request-id"],
    )
    assert (fourth["route"], fourth["status"]) == ("meta.health", health.status_code)
    # The bearer token never reaches the log.
    assert all("member" not in r.getMessage() and "nobody" not in r.getMessage() for r in caplog.records)


def test_signed_url_query_is_not_logged(client: TestClient[Any], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="serve.access"):
        client.get("/downloads/archives/A/" + "0" * 64 + ".zip?expires=1&signature=deadbeef")
    (line,) = access_lines(caplog)
    assert line["path"].endswith(".zip") and "deadbeef" not in json.dumps(line)


def test_every_registry_id_is_mounted_and_documented(client: TestClient[Any]) -> None:
    mounted = [str(h.opt["endpoint"]) for h in ROUTE_HANDLERS if h.opt.get("endpoint")]
    assert sorted(mounted) == sorted(ALL_IDS) == sorted(MOUNTED_ENDPOINTS)
    document = client.get("/openapi.json").json()
    operations = {
        op["get"]["x-registry-id"]: (path, op["get"])
        for path, op in document["paths"].items()
        if "x-registry-id" in op["get"]  # not the signed-download route outside /v1
    }
    assert sorted(operations) == sorted(ALL_IDS)
    for endpoint_id, (path, operation) in operations.items():
        assert path == re.sub(r"\{(\w+):\w+\}", r"{\1}", endpoints()[endpoint_id].path)
        path_params = [p["name"] for p in operation["parameters"] if p["in"] == "path"]
        assert path_params == re.findall(r"\{(\w+)\}", path)
        query = [p["name"] for p in operation["parameters"] if p["in"] == "query"]
        assert query == [p.name for p in endpoints()[endpoint_id].params], endpoint_id
        assert set(operation["responses"]) == {"200", *error_statuses(endpoint_id)}
        assert operation["security"] == ([] if endpoints()[endpoint_id].public else [{"bearer": []}])
    builds = operations["admin.builds.list"][1]
    assert [p["name"] for p in builds["parameters"]] == ["limit", "offset", "format"]
    # What is documented is what answers: each documented path reaches its handler (not 404 not_found).
    for endpoint_id, (path, _) in operations.items():
        concrete = path.replace("{alpha}", "momentum_12_1").replace("{date}", "2020-01-03")
        concrete = concrete.replace("{symbol}", "SPY").replace("{key_id}", "k" * 16)
        response = client.get(concrete, headers=bearer("admin"))
        assert response.status_code != 404 or response.json()["error"]["code"] != "not_found", endpoint_id
