"""Every key store test runs on both backends: a SQLite file and PostgreSQL (its own schema per test)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest

from access import open_store
from access.store import SqlKeyStore
from tests.conftest import backend_unavailable

POSTGRES_TEST_URL = os.environ.get(
    "ALPHA_RESULTS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


def postgres_or_skip() -> str:
    """The test PostgreSQL URL, or skip (fail when ALPHA_RESULTS_REQUIRE_BACKENDS=1) if it is down."""
    try:
        psycopg.connect(POSTGRES_TEST_URL, connect_timeout=2).close()
    except psycopg.OperationalError as error:
        reason = f"PostgreSQL not reachable at {POSTGRES_TEST_URL} ({str(error).strip()}); start it to run these tests"
        backend_unavailable(reason)
    return POSTGRES_TEST_URL


def seconds_waiting_behind(admin: psycopg.Connection[Any], holder_pid: int) -> float | None:
    """How long a statement has waited for an advisory lock the session `holder_pid` holds, or
    None when none waits (only that lock: other tests' sessions wait for their own)."""
    row = admin.execute(
        """
        SELECT max(extract(epoch FROM clock_timestamp() - a.query_start))
        FROM pg_locks h
        JOIN pg_locks w ON (w.classid, w.objid, w.objsubid) = (h.classid, h.objid, h.objsubid)
        JOIN pg_stat_activity a ON a.pid = w.pid
        WHERE h.locktype = 'advisory' AND w.locktype = 'advisory'
          AND h.pid = %s AND h.granted AND NOT w.granted
        """,
        (holder_pid,),
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


@pytest.fixture
def postgres_schema_url() -> Iterator[str]:
    """A store URL pointing at a fresh schema, dropped after the test."""
    base = postgres_or_skip()
    schema = f"ar_identity_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in base else "?"
    try:
        yield f"{base}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/keys.sqlite3"
    return str(request.getfixturevalue("postgres_schema_url"))


@pytest.fixture
def store(store_url: str) -> Iterator[SqlKeyStore]:
    opened = open_store(store_url)
    yield opened
    opened.close()
