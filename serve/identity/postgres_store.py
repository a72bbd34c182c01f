"""The shared key store: PostgreSQL, for several server processes or machines.

The URL is handed to libpq as is, so `?options=-csearch_path%3Dmyschema` selects a schema.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import psycopg
import psycopg.errors

from serve.identity.store import KeyStoreUnavailable, SqlKeyStore, StoreConflict

SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS accounts (
        user_id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
        status TEXT NOT NULL CHECK (status IN ('active', 'deactivated', 'deleted')),
        ceiling_endpoints TEXT NOT NULL,
        ceiling_alphas TEXT NOT NULL,
        ceiling_runs TEXT NOT NULL,
        ceiling_raw_book SMALLINT NOT NULL CHECK (ceiling_raw_book IN (0, 1)),
        created_at TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS api_keys (
        key_id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES accounts (user_id),
        name TEXT NOT NULL,
        env TEXT NOT NULL CHECK (env IN ('live', 'test')),
        secret_sha256 TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
        revoked_at TEXT,
        expires_at TEXT,
        allow_endpoints TEXT NOT NULL,
        allow_alphas TEXT NOT NULL,
        allow_runs TEXT NOT NULL,
        expose_raw_book SMALLINT NOT NULL CHECK (expose_raw_book IN (0, 1)),
        per_second INTEGER NOT NULL,
        per_minute INTEGER NOT NULL,
        per_day INTEGER NOT NULL,
        monthly_requests BIGINT,
        ip_allow TEXT,
        created_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS api_keys_by_user ON api_keys (user_id, created_at)",
)

# Serialises schema creation between processes starting at the same time (CREATE TABLE IF NOT
# EXISTS alone can race on the catalogue); an arbitrary constant of this project.
_SCHEMA_LOCK_ID = 0x61725F6B657973


class PostgresKeyStore(SqlKeyStore):
    def __init__(self, url: str) -> None:
        self._url = url
        self._lock = threading.Lock()
        self._connection: psycopg.Connection[Any] | None = None
        with self._lock:
            connection = self._connect()
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK_ID,))
                for statement in SCHEMA:
                    connection.execute(statement)

    def _connect(self) -> psycopg.Connection[Any]:
        if self._connection is None or self._connection.closed:
            try:
                self._connection = psycopg.connect(self._url, autocommit=True, connect_timeout=5)
            except psycopg.OperationalError as exc:
                raise KeyStoreUnavailable() from exc
        return self._connection

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[tuple[Any, ...]], int]:
        # The shared SQL uses `?` markers and contains no literal `?` or `%`.
        sql = sql.replace("?", "%s")
        with self._lock:
            try:
                return self._run(sql, params)
            except psycopg.OperationalError as exc:
                if self._connection is None or not self._connection.broken:
                    raise KeyStoreUnavailable() from exc
            # The server closed an idle connection (restart, failover): reopen once and retry.
            self._connection.close()
            try:
                return self._run(sql, params)
            except psycopg.OperationalError as exc:
                raise KeyStoreUnavailable() from exc

    def _run(self, sql: str, params: Sequence[Any]) -> tuple[list[tuple[Any, ...]], int]:
        try:
            cursor = self._connect().execute(sql, tuple(params))
        except psycopg.errors.UniqueViolation as exc:
            raise StoreConflict(str(exc)) from None
        rows = cursor.fetchall() if cursor.description is not None else []
        return rows, cursor.rowcount

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
