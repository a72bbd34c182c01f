"""An unreachable key store is a 503 `upstream_unavailable`; a dropped PostgreSQL connection is reopened."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from litestar.testing import TestClient

from access import KeyStoreUnavailable, open_store
from access.deferred_store import RETRY_OPEN_AFTER_SECONDS
from access.tokens import generate_token
from core.settings import Settings
from records.postgres import PostgresDatabase
from serve.app import create_app
from serve.limits import MemoryLimiter
from tests.health_wait import down_is, health_when, is_ok, wait_until

from .conftest import POSTGRES_TEST_URL


def test_unreachable_postgres_is_upstream_unavailable() -> None:
    with pytest.raises(KeyStoreUnavailable) as caught:
        open_store("postgresql://postgres@127.0.0.1:1/test?connect_timeout=1")
    assert (caught.value.status, caught.value.code) == (503, "upstream_unavailable")
    assert "127.0.0.1" not in caught.value.message


def test_unsupported_store_urls_are_refused() -> None:
    with pytest.raises(ValueError):
        open_store("sqlite://")
    with pytest.raises(ValueError):
        open_store("mysql://x")


@pytest.mark.postgres
def test_a_terminated_postgres_connection_is_reopened(postgres_schema_url: str) -> None:
    store = open_store(postgres_schema_url)
    database = store._database
    assert isinstance(database, PostgresDatabase)
    try:
        account = store.create_account("reconnect@example.com")
        rows, _ = store._execute("SELECT pg_backend_pid()")
        with psycopg.connect(POSTGRES_TEST_URL, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (rows[0][0],))
            # Termination is asynchronous: wait until the backend is gone.
            wait_until(
                lambda: (
                    admin.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (rows[0][0],)
                    ).fetchone()
                    == (0,)
                ),
                "the terminated backend gone",
            )
        stale = database._connection
        store.ping()
        assert database._connection is not stale
        assert store.get_account(account.user_id) == account
    finally:
        store.close()


# -- a SQLite key store that cannot be opened ------------------------------------------------


def _server(lake: Path, keystore_url: str) -> TestClient[Any]:
    """The app as `alpha-results serve` builds it: the store opened from the settings."""
    settings = Settings(lake=str(lake), environment="test", keystore_url=keystore_url)
    return TestClient(app=create_app(settings, limiter=MemoryLimiter()))


def _assert_store_unavailable(client: TestClient[Any]) -> None:
    token = generate_token("live").token  # well-formed, so the store must be asked
    response = client.get("/v1/alphas", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "upstream_unavailable"
    health = client.get("/v1/health")
    assert health.status_code == 200
    assert health.json()["status"] == "degraded" and health.json()["down"] == ["keystore"]


def _garbage_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.sqlite3"
    path.write_bytes(b"this is not a database\n" * 200)
    return path


def _a_folder(tmp_path: Path) -> Path:
    path = tmp_path / "keys.sqlite3"
    path.mkdir()
    return path


@pytest.mark.parametrize("make_path", [_garbage_file, _a_folder], ids=["garbage", "folder"])
def test_an_unopenable_sqlite_file_is_unavailable_not_fatal(
    tmp_path: Path, demo_lake: Path, make_path: Callable[[Path], Path]
) -> None:
    url = f"sqlite:///{make_path(tmp_path)}"
    with pytest.raises(KeyStoreUnavailable):
        open_store(url, create=False)
    with _server(demo_lake, url) as client:  # starts instead of exiting
        _assert_store_unavailable(client)


def test_the_server_creates_neither_the_file_nor_its_folder(tmp_path: Path, demo_lake: Path) -> None:
    missing = tmp_path / "mistyped" / "keys.sqlite3"
    with _server(demo_lake, f"sqlite:///{missing}") as client:
        _assert_store_unavailable(client)
    assert not missing.parent.exists()
    (tmp_path / "here").mkdir()
    with _server(demo_lake, f"sqlite:///{tmp_path}/here/keys.sqlite3") as client:
        _assert_store_unavailable(client)
    assert list((tmp_path / "here").iterdir()) == []


def test_a_store_created_after_start_is_picked_up(tmp_path: Path, demo_lake: Path) -> None:
    url = f"sqlite:///{tmp_path}/keys/keys.sqlite3"
    with _server(demo_lake, url) as client:
        _assert_store_unavailable(client)
        store = open_store(url)  # what the CLI does: create the folder and the file
        account = store.create_account("late@example.com")
        _, token = store.create_key(account.user_id, "k")
        # Opened again no sooner than RETRY_OPEN_AFTER_SECONDS after the last try: a request
        # then finds the new store (until then 503, as above).
        wait_until(
            lambda: client.get("/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200,
            f"the store opened again (tried every {RETRY_OPEN_AFTER_SECONDS:g} s)",
        )
        health_when(lambda: client.get("/v1/health"), is_ok)
        store.close()


@pytest.mark.parametrize("change", ["deleted", "replaced"])
def test_health_notices_a_sqlite_file_deleted_or_replaced_while_serving(
    tmp_path: Path, demo_lake: Path, change: str
) -> None:
    path = tmp_path / "keys.sqlite3"
    url = f"sqlite:///{path}"
    open_store(url).close()
    with _server(demo_lake, url) as client:
        assert client.get("/v1/health").json()["status"] == "ok"
        path.unlink()
        if change == "replaced":
            open_store(url).close()  # a new, empty store where the old one was
        health_when(lambda: client.get("/v1/health"), down_is("keystore"))
