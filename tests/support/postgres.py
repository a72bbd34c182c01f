"""PostgreSQL on 127.0.0.1:5432 for the tests that need it: its URL, or the test skipped (failed
where the backends are required)."""

from __future__ import annotations

import psycopg

from tests.conftest import backend_unavailable

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


def postgres_or_skip() -> str:
    try:
        psycopg.connect(POSTGRES_URL, connect_timeout=2).close()
    except psycopg.OperationalError as error:
        backend_unavailable(f"PostgreSQL not reachable at {POSTGRES_URL} ({error})")
    return POSTGRES_URL
