"""Apps over a copy of the small demo lake with chosen backends, test callers and a signing key.

Callers come from the API tests' `make_caller`; tokens here: `member` (every data endpoint and
the source download), `admin` (an administrator, every endpoint), `fake_admin` (a member whose
endpoint set names the admin routes anyway: the handlers must still refuse it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from access import open_store
from core.context import Caller
from core.settings import Settings
from schemas.registry import ALL_IDS
from serve.app import create_app
from tests.callers import DATA_IDS, authenticator_for, make_caller
from tests.conftest import linked_copy
from tests.lake.conftest import serving
from tests.ops.keys import issue_key

CALLERS: dict[str, Caller] = {
    "member": make_caller(),
    "admin": make_caller(key_id="a" * 16, role="admin", is_admin=True, endpoints=frozenset(ALL_IDS)),
    "fake_admin": make_caller(key_id="f" * 16, endpoints=frozenset(ALL_IDS)),
    "nosource": make_caller(endpoints=DATA_IDS - {"catalog.alphas.source.download"}),
}


fake_authenticate = authenticator_for(CALLERS)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details", "request_id"}
    assert body["error"]["code"] == code, body
    assert body["error"]["request_id"] == response.headers["x-request-id"]
    error: dict[str, Any] = body["error"]
    return error


@pytest.fixture
def lake_copy(demo_lake: Path, tmp_path: Path) -> Path:
    """A private copy of the demo lake a test reads, publishes into or deletes from: its immutable
    files linked (`tests.conftest.linked_copy`; on this runner's disk 1.7 s against 6.6 s for a
    copy, and the admin, source and limits tests take one each)."""
    return linked_copy(demo_lake, tmp_path / "lake")


@pytest.fixture
def breakable_lake(demo_lake: Path, tmp_path: Path) -> Path:
    """A copy of the demo lake that a test may break: remove folders or files, write pointers (each a
    file of the copy's own), or write over a linked Parquet, Arrow or NumPy file after `own_file`
    (a whole copy took 2.2 s against 0.9 s, for ten tests here that mostly break nothing of it)."""
    return linked_copy(demo_lake, tmp_path / "lake")


@pytest.fixture
def signing_key(tmp_path: Path) -> Path:
    path = tmp_path / "signing.key"
    path.write_bytes(b"k" * 32)
    return path


AppFactory = Callable[..., TestClient[Any]]


def refresh_lake(client: TestClient[Any]) -> None:
    """Run the app's lake refresh now, as its background thread does every interval."""
    client.app.state["services"].reader.refresh()


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[AppFactory]:
    """`make_client(lake=..., **settings)`: a TestClient over an app with the fake callers."""
    opened: list[TestClient[Any]] = []

    def factory(
        *, limiter: Any = None, authenticate: Any = fake_authenticate, **overrides: Any
    ) -> TestClient[Any]:
        settings = Settings(**{"environment": "test", "lake_refresh_seconds": 0.05, **overrides})
        kwargs: dict[str, Any] = {"limiter": limiter}
        if authenticate is not None:
            kwargs["authenticate"] = authenticate
        client = TestClient(app=create_app(settings, **kwargs))
        client.__enter__()
        opened.append(client)
        return client

    yield factory
    for client in opened:
        client.__exit__(None, None, None)


@contextmanager
def signed_downloads_server(
    demo_lake: Path, store_url: str, tmp_path_factory: pytest.TempPathFactory, name: str
) -> Iterator[Any]:
    """The real `alpha-results serve` over a copy of the demo lake, with a SQLite key store at
    `store_url` (one key issued) and a signing key of its own: the signed-download tests' server."""
    folder = tmp_path_factory.mktemp(name)
    lake = linked_copy(demo_lake, folder / "lake")
    signing_key = folder / "signing.key"
    signing_key.write_bytes(os.urandom(32))
    key = (store_url, issue_key(open_store(store_url)).headers)
    extra = {"ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key)}
    with serving(str(lake), key, folder, env_extra=extra) as server:
        yield server
