"""Opening a PostgreSQL store waits for another process creating the same schema, longer than a
request may wait; a process opening another schema of the same database does not wait at all.

The defect (seen in CI on a loaded machine): every process opening a store took one advisory lock
for the whole database, under a request's deadlines (2 s statement timeout, 3 s client side), so a
CLI command failed with "the database refused the schema" while other processes, opening other
schemas, created theirs.
"""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

from access import open_store
from records import postgres
from tests.health_wait import wait_until
from tests.identity.conftest import seconds_waiting_behind

pytestmark = pytest.mark.postgres

REQUEST_DEADLINE_MS = 200  # a request's bounds, made short so that waiting past them is quick


def open_in_thread(url: str) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["store"] = open_store(url)
        except Exception as error:  # the test reports it
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_opening_waits_for_the_schema_lock_past_a_requests_deadline(
    postgres_schema_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres, "STATEMENT_TIMEOUT_MS", REQUEST_DEADLINE_MS)
    monkeypatch.setattr(postgres._DeadlineConnection, "deadline", REQUEST_DEADLINE_MS / 1000)
    open_store(postgres_schema_url).close()  # the schema exists: what is left is the lock
    with (
        psycopg.connect(postgres_schema_url, autocommit=True) as holder,
        psycopg.connect(postgres_schema_url, autocommit=True) as admin,
    ):
        holder.execute("BEGIN")
        holder.execute(postgres.SCHEMA_LOCK, (postgres._SCHEMA_LOCK_ID,))  # another process creating it
        thread, outcome = open_in_thread(postgres_schema_url)
        # Waited three times a request's bounds, or given up (the defect).
        wait_until(
            lambda: (
                not thread.is_alive()
                or (seconds_waiting_behind(admin, holder.info.backend_pid) or 0.0)
                > 3 * REQUEST_DEADLINE_MS / 1000
            ),
            "the opening to wait past a request's deadline",
        )
        holder.execute("COMMIT")
        thread.join()
    assert "error" not in outcome, outcome
    store = outcome["store"]
    try:
        assert store.get_account("nobody") is None  # open, and answering within a request's bounds again
    finally:
        store.close()


def test_opening_another_schema_does_not_wait(postgres_schema_url: str) -> None:
    base = postgres_schema_url.split("?", 1)[0]
    with psycopg.connect(postgres_schema_url, autocommit=True) as holder:
        holder.execute("BEGIN")
        holder.execute(postgres.SCHEMA_LOCK, (postgres._SCHEMA_LOCK_ID,))
        with psycopg.connect(base, autocommit=True) as other:
            schema = other.execute("SELECT 'ar_other_' || md5(random()::text)").fetchone()
            assert schema is not None
            other.execute(f'CREATE SCHEMA "{schema[0]}"')
            try:
                # The lock of one schema held: with one lock for the database this waited (and failed
                # after SCHEMA_DEADLINE_SECONDS).
                store = open_store(f"{base}?options=-csearch_path%3D{schema[0]}")
                store.close()
            finally:
                other.execute(f'DROP SCHEMA "{schema[0]}" CASCADE')
        holder.execute("COMMIT")
