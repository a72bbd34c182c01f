"""The small demo lake (built once per session) and an app over it with test callers.

Callers come from `make_caller` (one factory with overrides); the test authenticator maps a bearer
token to one of them, so data-endpoint tests do not depend on the key store. Tokens:
`raw` (everything, raw-book access), `plain` (everything, no raw access), `testonly` (all data
endpoints, `Test_` alphas and runs only), `metaonly` (the self-service default endpoints).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.context import AllowList, Caller
from core.settings import Settings
from schemas.registry import META_IDS
from serve.app import create_app
from tests.callers import authenticator_for, make_caller

CALLERS: dict[str, Caller] = {
    "raw": make_caller(expose_raw_book=True),
    "plain": make_caller(),
    "testonly": make_caller(alphas=AllowList.of_prefixes(["Test_"]), runs=AllowList.of_prefixes(["Test_"])),
    "alphaonly": make_caller(runs=AllowList.of_ids(["nothing"])),
    "metaonly": make_caller(endpoints=frozenset(META_IDS), endpoint_allow=AllowList.of_ids(META_IDS)),
}


fake_authenticate = authenticator_for(CALLERS)


@pytest.fixture(scope="session")
def client(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    # A cache folder of its own: the row bytes it derives (datasets.derived) are its worker's to wait for.
    cache = tmp_path_factory.mktemp("serving-cache")
    settings = Settings(lake=str(demo_lake), environment="test", serving_cache_dir=str(cache))
    app = create_app(settings, authenticate=fake_authenticate, limiter=None)
    with TestClient(app=app) as test_client:
        yield test_client


class Api:
    """GET with a named test caller; returns the decoded JSON and the response."""

    def __init__(self, client: TestClient[Any]) -> None:
        self.client = client

    def get(self, path: str, token: str | None = "raw", **params: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.client.get(path, params=params or None, headers=headers)

    def ok(self, path: str, token: str | None = "raw", **params: Any) -> dict[str, Any]:
        response = self.get(path, token, **params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def error(
        self, path: str, status: int, code: str, token: str | None = "raw", **params: Any
    ) -> dict[str, Any]:
        response = self.get(path, token, **params)
        assert response.status_code == status, response.text
        body = response.json()
        assert set(body) == {"error"}
        assert body["error"]["code"] == code, body
        assert set(body["error"]) == {"code", "message", "details", "request_id"}
        assert body["error"]["request_id"] == response.headers["x-request-id"]
        error: dict[str, Any] = body["error"]
        return error

    def all_pages(self, path: str, limit: int, token: str = "raw", **params: Any) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        offset = 0
        while True:
            body = self.ok(path, token, limit=limit, offset=offset, **params)
            page = body["pagination"]
            assert page["returned"] == len(body["data"]) <= limit
            rows.extend(body["data"])
            if not page["has_more"]:
                assert offset + page["returned"] >= page["total"]
                return rows
            offset += page["returned"]


@pytest.fixture(scope="session")
def api(client: TestClient[Any]) -> Api:
    return Api(client)
