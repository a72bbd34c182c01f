"""A process opening the PostgreSQL records while another writes them: the schema's transaction
(its `CREATE INDEX IF NOT EXISTS` and triggers wait for the tables' writers) can be the victim of a
deadlock the server breaks by rolling it back (seen: a `webhooks list` beside a delivery worker on
a loaded machine, "the database refused the schema"). The victim is asked again, up to
`SCHEMA_ATTEMPTS` times; a database that keeps refusing is still `Unavailable`."""

from __future__ import annotations

from typing import Any

import psycopg
import psycopg.errors
import pytest

from records import postgres
from records.sql import Unavailable
from records.store import open_records

pytestmark = pytest.mark.postgres


def deadlocks(monkeypatch: pytest.MonkeyPatch, times: int) -> list[str]:
    """The first `times` index statements of a schema's transaction fail as a deadlock's victim."""
    failed: list[str] = []
    execute = postgres._DeadlineConnection.execute

    def victim(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        if len(failed) < times and str(query).startswith("CREATE INDEX"):
            failed.append(str(query))
            raise psycopg.errors.DeadlockDetected("deadlock detected")
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(postgres._DeadlineConnection, "execute", victim)
    return failed


def test_a_deadlock_victim_opens_the_records_on_its_next_attempt(
    postgres_schema_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed = deadlocks(monkeypatch, postgres.SCHEMA_ATTEMPTS - 1)
    records = open_records(postgres_schema_url)
    try:
        assert len(failed) == postgres.SCHEMA_ATTEMPTS - 1
        records.events.append("alpha.published", {}, alpha_id="Test_a")  # the schema is whole
        assert records.events.latest("Test_a", ("alpha.published",)) is not None
    finally:
        records.close()


def test_a_database_that_keeps_choosing_the_schema_as_victim_is_unavailable(
    postgres_schema_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed = deadlocks(monkeypatch, postgres.SCHEMA_ATTEMPTS)
    with pytest.raises(Unavailable, match="refused the schema"):
        open_records(postgres_schema_url)
    assert len(failed) == postgres.SCHEMA_ATTEMPTS
