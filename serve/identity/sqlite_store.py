"""The embedded key store: one SQLite file (WAL mode, so the server and the CLI can share it).

The server opens the file only if it exists (`create=False`): a mistyped path is an unavailable
store (503, health `degraded`), never a new empty one in which every key is invalid. The CLI
(`create=True`) creates the file and its folder.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from serve.identity.store import KeyStoreUnavailable, SqlKeyStore, StoreConflict
from serve.identity.tables import key_store_schema

SCHEMA = key_store_schema(flag="INTEGER", bigint="INTEGER")


def sqlite_path(url: str) -> str:
    """`sqlite:///var/keys.sqlite3` is relative, `sqlite:////srv/keys.sqlite3` absolute."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValueError("a SQLite key store URL looks like sqlite:///path/keys.sqlite3")
    return url[len(prefix) :]


LOCK_WAIT_SECONDS = 2.0
"""How long a request waits for the store's one connection before answering 503."""


def _file_identity(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


class SqliteKeyStore(SqlKeyStore):
    # A statement on the local file takes microseconds (WAL: readers never wait for writers).
    in_process = True

    def __init__(self, url: str, create: bool = True) -> None:
        path = self._path = sqlite_path(url)
        in_memory = path == ":memory:"
        if create and not in_memory:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        target, as_uri = path, False
        if not create and not in_memory:
            # mode=rw: open an existing file, never create one.
            target, as_uri = Path(path).absolute().as_uri() + "?mode=rw", True
        self._lock = threading.Lock()
        try:
            # One connection shared by the server's threads, serialised by a lock; autocommit
            # (isolation_level=None) because every operation is a single statement.
            self._connection = sqlite3.connect(
                target, isolation_level=None, check_same_thread=False, timeout=10.0, uri=as_uri
            )
        except sqlite3.Error as exc:  # a folder, a missing file, no permission
            raise KeyStoreUnavailable() from exc
        try:
            self._connection.execute("PRAGMA foreign_keys = ON")
            if not in_memory:
                self._connection.execute("PRAGMA journal_mode = WAL")
            for statement in SCHEMA:
                self._connection.execute(statement)
        except sqlite3.Error as exc:  # not a database, read-only, corrupt
            self._connection.close()
            raise KeyStoreUnavailable() from exc
        # The file this store has open; ping compares it with what the path names now.
        self._identity = None if in_memory else _file_identity(path)

    def ping(self) -> None:
        """Down when the file was deleted or replaced since it was opened: this connection still
        reads the old inode, which the CLI no longer writes to, so changes would be missed."""
        if self._path != ":memory:" and _file_identity(self._path) != self._identity:
            raise KeyStoreUnavailable()
        super().ping()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[tuple[Any, ...]], int]:
        if not self._lock.acquire(timeout=LOCK_WAIT_SECONDS):
            raise KeyStoreUnavailable()
        try:
            cursor = self._connection.execute(sql, tuple(params))
            return cursor.fetchall(), cursor.rowcount
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc):
                raise StoreConflict(str(exc)) from None
            raise
        except sqlite3.ProgrammingError:
            raise
        except sqlite3.DatabaseError as exc:  # locked, I/O error, file corrupted while serving
            raise KeyStoreUnavailable() from exc
        finally:
            self._lock.release()

    def close(self) -> None:
        with self._lock:
            self._connection.close()
