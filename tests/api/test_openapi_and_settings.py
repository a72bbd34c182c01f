"""The OpenAPI document matches the routes, and every setting is documented."""

from __future__ import annotations

import re
from pathlib import Path

from schemas.registry import BY_ID
from serve.app import MOUNTED_ENDPOINTS as SERVED
from serve.openapi import ERROR_STATUSES
from serve.routes.base import ENDPOINT_PARAMS
from serve.settings import SETTINGS
from tests.api.conftest import Api

ROOT = Path(__file__).resolve().parents[2]


def test_openapi_declares_every_served_route(api: Api) -> None:
    response = api.get("/openapi.json", token=None)
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.1")
    for endpoint_id in SERVED:
        path = re.sub(r"\{(\w+):\w+\}", r"{\1}", BY_ID[endpoint_id].path)
        operation = document["paths"][path]["get"]
        assert operation["operationId"] == endpoint_id
        declared = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
        assert list(declared) == [p.name for p in ENDPOINT_PARAMS[endpoint_id]]
        if "limit" in declared:
            assert (
                declared["limit"]["schema"]["minimum"] == 1 and declared["limit"]["schema"]["maximum"] == 5000
            )
        assert set(ERROR_STATUSES) <= set(operation["responses"])
        assert "200" in operation["responses"]
    equity = document["paths"]["/v1/alphas/{alpha}/equity-curve"]["get"]
    assert {p["name"]: p["schema"].get("default") for p in equity["parameters"]}["limit"] == 500


def test_served_routes_answer_only_declared_parameters(api: Api) -> None:
    error = api.error("/v1/alphas/Test_planted_factor/equity-curve", 400, "bad_request", symbol="X")
    assert error["details"]["parameters"][0]["name"] == "symbol"


def test_every_setting_is_documented() -> None:
    text = (ROOT / "docs" / "settings.md").read_text()
    missing = [s.env for s in SETTINGS if s.env not in text]
    assert not missing, f"undocumented settings: {missing}"
