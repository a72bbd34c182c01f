"""The small demo lake (once per session) and an app over it with metrics test callers.

Tokens: `raw` (every data endpoint, raw-book access), `metrics_only` (performance endpoints
only: every block built from cross-sections or the ledger must be access-limited),
`testonly` (Test_ alphas only).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.context import AllowList, Caller
from tests.callers import authenticator_for, make_caller

METRICS_IDS = frozenset({"performance.metrics", "performance.metrics.doc"})


CALLERS: dict[str, Caller] = {
    "raw": make_caller(expose_raw_book=True),
    "metrics_only": make_caller(endpoints=METRICS_IDS, endpoint_allow=AllowList.of_ids(tuple(METRICS_IDS))),
    "testonly": make_caller(alphas=AllowList.of_prefixes(["Test_"]), runs=AllowList.of_prefixes(["Test_"])),
}


fake_authenticate = authenticator_for(CALLERS)


class Api:
    def __init__(self, client: TestClient[Any]) -> None:
        self.client = client

    def get(self, path: str, token: str = "raw", **params: Any) -> Any:
        return self.client.get(path, params=params or None, headers={"Authorization": f"Bearer {token}"})

    def ok(self, path: str, token: str = "raw", **params: Any) -> dict[str, Any]:
        response = self.get(path, token, **params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def all_rows(self, path: str, **params: Any) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        while True:
            body = self.ok(path, limit=5000, offset=len(rows), **params)
            rows.extend(body["data"])
            if not body["pagination"]["has_more"]:
                return rows


@pytest.fixture(scope="session")
def api(demo_lake: Path) -> Iterator[Api]:
    from core.settings import Settings
    from serve.app import create_app

    app = create_app(
        Settings(lake=str(demo_lake), environment="test"), authenticate=fake_authenticate, limiter=None
    )
    with TestClient(app=app) as client:
        yield Api(client)
