"""The embedded key store: one SQLite file (WAL mode, so the server and the CLI can share it)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
        ceiling_raw_book INTEGER NOT NULL CHECK (ceiling_raw_book IN (0, 1)),
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
        expose_raw_book INTEGER NOT NULL CHECK (expose_raw_book IN (0, 1)),
        per_second INTEGER NOT NULL,
        per_minute INTEGER NOT NULL,
        per_day INTEGER NOT NULL,
        monthly_requests INTEGER,
        ip_allow TEXT,
        created_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS api_keys_by_user ON api_keys (user_id, created_at)",
)


def sqlite_path(url: str) -> str:
    """`sqlite:///var/keys.sqlite3` is relative, `sqlite:////srv/keys.sqlite3` absolute."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValueError("a SQLite key store URL looks like sqlite:///path/keys.sqlite3")
    return url[len(prefix) :]


class SqliteKeyStore(SqlKeyStore):
    def __init__(self, url: str) -> None:
        path = sqlite_path(url)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by the server's threads, serialised by a lock; autocommit
        # (isolation_level=None) because every operation is a single statement.
        self._connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
        self._lock = threading.Lock()
        with self._lock:
            self._connection.execute("PRAGMA foreign_keys = ON")
            if path != ":memory:":
                self._connection.execute("PRAGMA journal_mode = WAL")
            for statement in SCHEMA:
                self._connection.execute(statement)

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[tuple[Any, ...]], int]:
        with self._lock:
            try:
                cursor = self._connection.execute(sql, tuple(params))
                return cursor.fetchall(), cursor.rowcount
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc):
                    raise StoreConflict(str(exc)) from None
                raise
            except sqlite3.OperationalError as exc:
                raise KeyStoreUnavailable() from exc

    def close(self) -> None:
        with self._lock:
            self._connection.close()
