"""One SQL database, SQLite or PostgreSQL, behind one call: `execute(sql, params)`.

The key store (access/) and the records (promotions, events, webhooks: this package) keep
their tables in the same database, named by one URL (`keystore_url`): `sqlite:///relative/path`,
`sqlite:////absolute/path`, `sqlite:///:memory:` or `postgresql://...`. A store builds on a
`Database` and states its rules once; the backends here only open connections, create tables and
run one parameterised statement at a time (`?` markers), so both behave identically.

Every wait is bounded, so a database that is down, locked or silent costs a caller at most a few
seconds and raises `Unavailable`, never hangs it; a unique violation raises `Conflict`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Rows = tuple[list[tuple[Any, ...]], int]
"""What a statement returns: its rows and its rowcount."""
Statement = tuple[str, Sequence[Any]]
"""One parameterised statement (`?` markers) and its parameters."""


class Unavailable(Exception):
    """The database cannot be reached or used now (down, locked, replaced, not a database)."""


class Conflict(Exception):
    """A uniqueness constraint refused a write."""


@dataclass(frozen=True)
class Dialect:
    """What differs between the two backends: the name, and the column types."""

    name: str
    """`sqlite` or `postgresql`: what a store keys its dialect-only statements (triggers) by."""
    flag: str
    """A 0/1 column."""
    bigint: str
    """A 64-bit integer."""
    serial: str
    """An integer primary key the database numbers, growing with each insert (a cursor)."""


SQLITE = Dialect(name="sqlite", flag="INTEGER", bigint="INTEGER", serial="INTEGER PRIMARY KEY AUTOINCREMENT")
POSTGRES = Dialect(
    name="postgresql",
    flag="SMALLINT",
    bigint="BIGINT",
    serial="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
)

Schema = Callable[[Dialect], Sequence[str]]
"""A store's tables: its `CREATE ... IF NOT EXISTS` statements in a dialect."""


class Database(ABC):
    in_process: bool = False
    """True when a statement runs in this process without network I/O (SQLite), so a request may
    run it on the event loop; False (PostgreSQL) means it may wait on a socket."""
    write_order: Statement | None = None
    """A statement that, run first in a transaction, holds back every other transaction that runs
    it until this one ends (None: the database already runs one writer at a time, as SQLite). A
    transaction that inserts events runs it (`records.event_log.in_id_order`), so an event's id is
    numbered only after every earlier insert committed: a reader after a cursor never passes an
    event that commits later with a smaller id."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement; raise `Conflict` on a unique violation, `Unavailable` when the
        database cannot be used."""
        return self.transaction([(sql, params)])[0]

    @abstractmethod
    def transaction(self, statements: Sequence[Statement]) -> list[Rows]:
        """Run `statements` as one transaction (all or none), each statement's rows in order."""

    @abstractmethod
    def close(self) -> None: ...

    def ping(self) -> None:
        self.execute("SELECT 1")


def sqlite_path(url: str) -> str:
    """`sqlite:///var/keys.sqlite3` is relative, `sqlite:////srv/keys.sqlite3` absolute."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValueError("a SQLite store URL looks like sqlite:///path/keys.sqlite3")
    return url[len(prefix) :]


SQLITE_LOCK_WAIT_SECONDS = 2.0
"""How long a statement waits for the database's one connection before `Unavailable`."""


def _file_identity(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


class SqliteDatabase(Database):
    """One SQLite file (WAL mode, so the server, the CLI and the pipeline can share it)."""

    # A statement on the local file takes microseconds (WAL: readers never wait for writers).
    in_process = True

    def __init__(self, url: str, schema: Schema, create: bool = True) -> None:
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
            # One connection shared by the process's threads, serialised by a lock; autocommit
            # (isolation_level=None) because every operation is a single statement.
            self._connection = sqlite3.connect(
                target, isolation_level=None, check_same_thread=False, timeout=10.0, uri=as_uri
            )
        except sqlite3.Error as exc:  # a folder, a missing file, no permission
            raise Unavailable(str(exc)) from exc
        try:
            self._connection.execute("PRAGMA foreign_keys = ON")
            if not in_memory:
                self._connection.execute("PRAGMA journal_mode = WAL")
            for statement in schema(SQLITE):
                self._connection.execute(statement)
        except sqlite3.Error as exc:  # not a database, read-only, corrupt
            self._connection.close()
            raise Unavailable(str(exc)) from exc
        # The file this connection has open; ping compares it with what the path names now.
        self._identity = None if in_memory else _file_identity(path)

    def ping(self) -> None:
        """Down when the file was deleted or replaced since it was opened: this connection still
        reads the old inode, which the other processes no longer write to, so changes would be
        missed."""
        if self._path != ":memory:" and _file_identity(self._path) != self._identity:
            raise Unavailable(f"{self._path} was replaced or deleted")
        super().ping()

    def transaction(self, statements: Sequence[Statement]) -> list[Rows]:
        if not self._lock.acquire(timeout=SQLITE_LOCK_WAIT_SECONDS):
            raise Unavailable("the database's connection is busy")
        several = len(statements) > 1
        try:
            if several:  # autocommit otherwise: a single statement is its own transaction
                self._connection.execute("BEGIN IMMEDIATE")
            try:
                out = []
                for sql, params in statements:
                    cursor = self._connection.execute(sql, tuple(params))
                    out.append((cursor.fetchall(), cursor.rowcount))
                if several:
                    self._connection.execute("COMMIT")
                return out
            except BaseException:
                if several and self._connection.in_transaction:
                    self._connection.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc):
                raise Conflict(str(exc)) from None
            raise
        except sqlite3.ProgrammingError:
            raise
        except sqlite3.DatabaseError as exc:  # locked, I/O error, file corrupted while serving
            raise Unavailable(str(exc)) from exc
        finally:
            self._lock.release()

    def close(self) -> None:
        with self._lock:
            self._connection.close()
