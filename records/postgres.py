"""PostgreSQL, for several server processes or machines sharing the key store and the records.

The URL is handed to libpq, so `?options=-csearch_path%3Dmyschema` selects a schema; the store adds
its timeouts (below) to what the URL says, and the URL's own `connect_timeout`, `keepalives*` and
`tcp_user_timeout` win over the defaults here.

Every wait is bounded, so a database that accepts TCP and never answers costs a request at most
about `LOCK_WAIT_SECONDS` (waiting for the one connection) or `QUERY_DEADLINE_SECONDS` (holding it),
never hangs it: `Unavailable` (503 `upstream_unavailable` on a request).

`ChangeListener` is a second connection of a process's own that LISTENs on a channel and says
whether it can vouch for having heard every notification (the server's identity cache,
access/cache.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
import psycopg.errors
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.pq import TransactionStatus
from psycopg.rows import TupleRow

from records.sql import POSTGRES, Conflict, Database, Rows, Schema, Statement, Unavailable

# Serialises schema creation between processes starting at the same time (CREATE TABLE IF NOT
# EXISTS alone can race on the catalogue): an arbitrary constant of this project, hashed with the
# schema's name, so processes opening different schemas of one database never wait for each other.
_SCHEMA_LOCK_ID = 0x61725F6B657973
SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(current_schema(), %s))"


STATEMENT_TIMEOUT_MS = 2000
"""Server side: the database cancels any statement of this store that runs longer."""
QUERY_DEADLINE_SECONDS = 3.0
"""Client side: a statement whose answer has not arrived by then is abandoned with its connection
(covers a server or network path that accepted the query and went silent, where
`statement_timeout` never fires)."""
SCHEMA_ATTEMPTS = 5
"""How many times a process opening the database runs the schema's transaction when the server
rolls it back as a deadlock's victim (a writer of the same tables in another process)."""
SCHEMA_DEADLINE_SECONDS = 30.0
"""Both bounds, server and client side, while a process creates or checks the schema as it opens
the database: it may wait for another process doing the same (serialised by an advisory lock) or
for a writer on a table its triggers are on, which on a busy machine takes longer than a request
may wait; a process starting is not a request."""
LOCK_WAIT_SECONDS = 2.0
"""How long a statement waits for the database's one connection before `Unavailable`."""
RECONNECT_BACKOFF_SECONDS = 2.0
"""After a failed connect (or an abandoned statement), requests answer 503 at once for this long
instead of each waiting the connect timeout again."""
CONNECTION_DEFAULTS = {
    "connect_timeout": "3",
    # Detect a dead peer on an idle connection (keepalives) and unacknowledged sends (tcp_user_timeout, ms).
    "keepalives": "1",
    "keepalives_idle": "10",
    "keepalives_interval": "5",
    "keepalives_count": "3",
    "tcp_user_timeout": "10000",
}


def connection_info(url: str) -> str:
    """The libpq connection string: the URL's parameters, the defaults above and `statement_timeout`."""
    params: dict[str, Any] = conninfo_to_dict(url)
    for name, value in CONNECTION_DEFAULTS.items():
        params.setdefault(name, value)
    # Appended to any `options` of the URL (a search_path, say) rather than replacing them.
    params["options"] = f"{params.get('options', '')} -c statement_timeout={STATEMENT_TIMEOUT_MS}".strip()
    return make_conninfo("", **params)


class _DeadlineConnection(psycopg.Connection[TupleRow]):
    """A connection whose every wait on the server (query, commit) ends after `deadline` seconds."""

    deadline = QUERY_DEADLINE_SECONDS

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        return super().wait(gen, interval=interval, timeout=self.deadline if timeout is None else timeout)


_WRITE_ORDER_LOCK_ID = 0x61725F6576656E74
"""The advisory lock that orders the transactions inserting events (`Database.write_order`),
hashed with the schema's name like the schema's lock: only writers of one events table wait."""


class PostgresDatabase(Database):
    # An identity column numbers a row when it is inserted, not when it commits: two transactions
    # inserting events at once could commit ids 8 then 7, and a reader that had passed 8 would
    # never see 7. Holding this lock from before the insert to the commit orders them.
    write_order = (
        "SELECT pg_advisory_xact_lock(hashtextextended(current_schema(), ?))",
        (_WRITE_ORDER_LOCK_ID,),
    )

    def __init__(self, url: str, schema: Schema) -> None:
        self._conninfo = connection_info(url)
        self._lock = threading.Lock()
        self._connection: _DeadlineConnection | None = None
        self._retry_at = 0.0
        with self._lock:
            connection = self._connect()
            connection.deadline = SCHEMA_DEADLINE_SECONDS
            try:
                for attempt in range(1, SCHEMA_ATTEMPTS + 1):
                    try:
                        with connection.transaction():
                            connection.execute(
                                f"SET LOCAL statement_timeout = {int(SCHEMA_DEADLINE_SECONDS * 1000)}"
                            )
                            connection.execute(SCHEMA_LOCK, (_SCHEMA_LOCK_ID,))
                            for statement in schema(POSTGRES):
                                connection.execute(statement)
                        break
                    except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure):
                        # The server chose this transaction as a deadlock's victim (its index and
                        # trigger statements wait for the tables' writers): rolled back whole, so
                        # it is asked again, as a victim should be.
                        if attempt == SCHEMA_ATTEMPTS:
                            raise
                        time.sleep(0.05 * attempt)
            except psycopg.OperationalError as exc:
                connection.close()
                raise Unavailable("the database refused the schema") from exc
            finally:
                del connection.deadline  # the class's, a request's, from now on

    def _connect(self) -> _DeadlineConnection:
        if self._connection is None or self._connection.closed:
            if time.monotonic() < self._retry_at:
                raise Unavailable("the last connection attempt failed; waiting before the next")
            try:
                self._connection = _DeadlineConnection.connect(self._conninfo, autocommit=True)
            except psycopg.OperationalError as exc:
                self._retry_at = time.monotonic() + RECONNECT_BACKOFF_SECONDS
                raise Unavailable("cannot connect to the database") from exc
        return self._connection

    def transaction(self, statements: Sequence[Statement]) -> list[Rows]:
        # The shared SQL uses `?` markers and contains no literal `?` or `%`.
        statements = [(sql.replace("?", "%s"), params) for sql, params in statements]
        if not self._lock.acquire(timeout=LOCK_WAIT_SECONDS):
            raise Unavailable("the database's connection is busy")
        try:
            try:
                return self._run(statements)
            except psycopg.OperationalError as exc:
                if self._connection is None or not self._connection.broken:
                    self._abandon_if_stuck()
                    raise Unavailable("the statement failed or ran past its deadline") from exc
            # The server closed an idle connection (restart, failover): reopen once and retry.
            self._connection.close()
            try:
                return self._run(statements)
            except psycopg.OperationalError as exc:
                self._abandon_if_stuck()
                raise Unavailable("the statement failed after reconnecting") from exc
        finally:
            self._lock.release()

    def _abandon_if_stuck(self) -> None:
        """A statement still in flight after its deadline leaves the connection unusable: drop it."""
        connection = self._connection
        if connection is None or connection.closed:
            return
        if connection.pgconn.transaction_status != TransactionStatus.IDLE:
            connection.close()
            self._retry_at = time.monotonic() + RECONNECT_BACKOFF_SECONDS

    def _run(self, statements: Sequence[Statement]) -> list[Rows]:
        connection = self._connect()
        try:
            if len(statements) == 1:  # autocommit: a single statement is its own transaction
                return [self._one(connection, *statements[0])]
            with connection.transaction():
                return [self._one(connection, sql, params) for sql, params in statements]
        except psycopg.errors.UniqueViolation as exc:
            raise Conflict(str(exc)) from None

    @staticmethod
    def _one(connection: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> Rows:
        cursor = connection.execute(sql, tuple(params))
        rows = cursor.fetchall() if cursor.description is not None else []
        return rows, cursor.rowcount

    def close(self) -> None:
        # Waits for a statement in flight, which its deadline bounds.
        with self._lock:
            if self._connection is not None:
                self._connection.close()


LISTEN_HEARTBEAT_SECONDS = 0.05
"""How often a `ChangeListener` sends its connection a round trip (`SELECT 1`) between waits for
notifications: what bounds how long a connection that went silent (no reset, no close) passes for
alive, see `ChangeListener.live`."""
LIVE_SECONDS = 0.1
"""A `ChangeListener` is live while its last round trip was sent less than this long ago (two
heartbeats): past it, whatever its thread is doing, the listener no longer vouches for anything."""
LISTEN_RETRY_SECONDS = 1.0
"""Between attempts to connect the listener again after its connection failed."""


class ChangeListener:
    """A connection of its own that LISTENs on one channel, in a daemon thread, and hands each
    notification's payload to `on_change`.

    `live()` tells whether every notification sent before `LIVE_SECONDS` ago has been handed
    over: the connection LISTENs, `on_up` has run since it began to, and a round trip sent within
    that time came back with every notification that preceded it handed over. A connection cut
    (the server ended the session, restarted, a reset) ends the wait at once; one that goes silent
    stops being live once its round trips stop coming back. Each time the connection LISTENs
    again, `on_up` runs first (what was sent meanwhile is lost: the caller starts afresh), and
    `on_down` runs whenever the connection is lost.

    The connection carries `application_name` (so an operator finds it in `pg_stat_activity`).
    """

    def __init__(
        self,
        url: str,
        channel: str,
        *,
        application_name: str,
        on_change: Callable[[str], None],
        on_up: Callable[[], None],
        on_down: Callable[[str], None],
    ) -> None:
        self._conninfo = make_conninfo(connection_info(url), application_name=application_name)
        self._channel = channel
        self._on_change, self._on_up, self._on_down = on_change, on_up, on_down
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._confirmed_at: float | None = None
        """When the last round trip that came back was sent (None while not listening)."""

    def live(self) -> bool:
        confirmed_at = self._confirmed_at
        return confirmed_at is not None and time.monotonic() - confirmed_at < LIVE_SECONDS

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=f"listen-{self._channel}", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Ends the thread within one heartbeat (or the connection attempt in progress)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=LISTEN_HEARTBEAT_SECONDS + 5.0)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                connection = _DeadlineConnection.connect(self._conninfo, autocommit=True)
            except psycopg.Error as exc:
                self._on_down(f"cannot connect ({type(exc).__name__})")
                self._stop.wait(LISTEN_RETRY_SECONDS)
                continue
            try:
                self._listen(connection)
            except Exception as exc:  # psycopg's errors, and any other: never a thread that died live
                self._confirmed_at = None
                self._on_down(f"connection lost ({type(exc).__name__})")
            finally:
                self._confirmed_at = None
                connection.close()
            self._stop.wait(LISTEN_RETRY_SECONDS)

    def _listen(self, connection: psycopg.Connection[Any]) -> None:
        sent = time.monotonic()
        connection.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._channel)))
        # Whatever changed before the LISTEN took effect was never notified: the caller drops it.
        self._on_up()
        self._confirmed_at = sent
        while not self._stop.is_set():
            for notification in connection.notifies(timeout=LISTEN_HEARTBEAT_SECONDS):
                self._on_change(notification.payload)
            sent = time.monotonic()
            connection.execute("SELECT 1")
            # Notifications that arrived with the answer wait in psycopg's backlog: hand them
            # over before vouching for everything sent up to the round trip.
            for notification in connection.notifies(timeout=0):
                self._on_change(notification.payload)
            self._confirmed_at = sent
