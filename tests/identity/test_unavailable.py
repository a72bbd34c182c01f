"""An unreachable key store is a 503 `upstream_unavailable`; a dropped PostgreSQL connection is reopened."""

from __future__ import annotations

import time

import psycopg
import pytest

from serve.identity import KeyStoreUnavailable, open_store
from serve.identity.postgres_store import PostgresKeyStore

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
    assert isinstance(store, PostgresKeyStore)
    try:
        account = store.create_account("reconnect@example.com")
        rows, _ = store._execute("SELECT pg_backend_pid()")
        with psycopg.connect(POSTGRES_TEST_URL, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (rows[0][0],))
            for _ in range(100):  # termination is asynchronous; wait until the backend is gone
                gone = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (rows[0][0],))
                if gone.fetchone() == (0,):
                    break
                time.sleep(0.02)
        stale = store._connection
        store.ping()
        assert store._connection is not stale
        assert store.get_account(account.user_id) == account
    finally:
        store.close()
