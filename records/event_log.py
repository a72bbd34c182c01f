"""Events: what happened, in order, kept for the retention the settings give.

An event is appended where what it says is known (the pipeline when it publishes, the command line
when it records a promotion; never a request) and never changed; its row id only grows and is its
cursor (shown enciphered, `records.cursors`). Who may see it is part of the event:
- `readers`: about one alpha, seen by every key that may read that alpha *when it reads*;
- `admin`: seen by administrators only (a refused seal names what a team sent);
- `key`: seen by one key only (its webhook was disabled).
`Reader` says that of a caller, and every read applies it in SQL, so a page, its `has_more` and
its cursor are made of what the caller may see: nothing about another alpha leaks, not even a
count.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from datasets import clock
from records.sql import Database, Rows, Statement
from records.times import read_time, stored_time

Audience = Literal["readers", "admin", "key"]


@dataclass(frozen=True)
class Event:
    id: int
    type: str
    alpha_id: str | None
    audience: Audience
    key_id: str | None
    data: dict[str, Any]
    created_at: dt.datetime


@dataclass(frozen=True)
class EventScope:
    """One allow-list over alpha ids: every id (`everything`), or those listed or prefixed."""

    everything: bool = False
    ids: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reader:
    """Who reads: the allow-lists an alpha must pass (all of them: a key's alphas and runs), whether
    the caller is an administrator, and its key (for events addressed to it)."""

    scopes: tuple[EventScope, ...]
    admin: bool = False
    key_id: str | None = None


@dataclass(frozen=True)
class Wanted:
    """What a page asks for besides the reader: events after `after` (an id; 0: the oldest kept),
    of these types and alphas (empty: any), at most `limit`."""

    after: int = 0
    limit: int = 100
    types: tuple[str, ...] = ()
    alphas: tuple[str, ...] = ()
    through: int | None = field(default=None)
    """At most this id (a stream reads up to what it was told exists)."""
    newest: bool = False
    """Newest first: the events before `after` (0: from the newest), in descending id order."""


def chosen_sql(types: Sequence[str], alphas: Sequence[str]) -> tuple[list[str], list[Any]]:
    """The conditions an event meets when it is of one of `types` and about one of `alphas` (each
    empty: any), and their values: the feed's filters (`EventLog.page`) and a webhook's
    (`records.webhooks`), made of `?` markers and fixed words only."""
    conditions: list[str] = []
    values: list[Any] = []
    if types:
        conditions.append("type IN (" + ", ".join("?" * len(types)) + ")")
        values += list(types)
    if alphas:
        conditions.append("alpha_id IN (" + ", ".join("?" * len(alphas)) + ")")
        values += list(alphas)
    return conditions, values


def _scope_sql(scope: EventScope) -> tuple[str, list[Any]]:
    if scope.everything:
        return "1 = 1", []
    terms: list[str] = []
    params: list[Any] = []
    if scope.ids:
        terms.append("alpha_id IN (" + ", ".join("?" * len(scope.ids)) + ")")
        params += list(scope.ids)
    for prefix in scope.prefixes:
        # Not LIKE: SQLite's is case-insensitive, and `Test_` must not admit `test_x`.
        terms.append("substr(alpha_id, 1, ?) = ?")
        params += [len(prefix), prefix]
    return ("(" + " OR ".join(terms) + ")") if terms else "1 = 0", params


def visible_sql(reader: Reader) -> tuple[str, list[Any]]:
    """The condition an event meets when `reader` may see it, and its parameters."""
    readable, params = ["audience = 'readers'"], []
    for scope in reader.scopes:
        sql, more = _scope_sql(scope)
        readable.append(sql)
        params += more
    terms = ["(" + " AND ".join(readable) + ")"]
    if reader.admin:
        terms.append("audience = 'admin'")
    if reader.key_id is not None:
        terms.append("(audience = 'key' AND key_id = ?)")
        params.append(reader.key_id)
    return "(" + " OR ".join(terms) + ")", params


def event_of(row: tuple[Any, ...]) -> Event:
    created_at = read_time(row[6])
    assert created_at is not None  # NOT NULL
    return Event(
        id=int(row[0]),
        type=row[1],
        alpha_id=row[2],
        audience=row[3],
        key_id=row[4],
        data=json.loads(row[5]),
        created_at=created_at,
    )


@dataclass(frozen=True)
class Page:
    events: list[Event]
    has_more: bool


def in_id_order(database: Database, statements: Sequence[Statement]) -> list[Rows]:
    """Run `statements`, some of which insert events, as one transaction whose event ids follow
    the order the transactions commit in (`Database.write_order`); each statement's rows."""
    if database.write_order is None:
        return database.transaction(statements)
    return database.transaction([database.write_order, *statements])[1:]


class EventLog:
    def __init__(self, database: Database) -> None:
        self._database = database

    def append(
        self,
        type: str,
        data: dict[str, Any],
        *,
        alpha_id: str | None = None,
        audience: Audience = "readers",
        key_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Event:
        statement = self.statement(type, data, alpha_id=alpha_id, audience=audience, key_id=key_id, now=now)
        [(rows, _)] = in_id_order(self._database, [statement])
        return event_of(rows[0])

    @staticmethod
    def statement(
        type: str,
        data: dict[str, Any],
        *,
        alpha_id: str | None = None,
        audience: Audience = "readers",
        key_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Statement:
        """The insert of an event, to run alone (`append`) or with what caused it."""
        if (audience == "readers") != (alpha_id is not None) or (audience == "key") != (key_id is not None):
            raise ValueError("an event for readers names its alpha; one for a key names the key")
        return (
            "INSERT INTO events (type, alpha_id, audience, key_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?) "
            "RETURNING id, type, alpha_id, audience, key_id, data, created_at",
            (
                type,
                alpha_id,
                audience,
                key_id,
                json.dumps(data, separators=(",", ":"), allow_nan=False),
                stored_time(now or clock.now()),
            ),
        )

    def append_once_since(
        self,
        type: str,
        data: dict[str, Any],
        *,
        alpha_id: str,
        since: dt.datetime,
        now: dt.datetime | None = None,
    ) -> Event | None:
        """Append the event unless the alpha has one of `type` created at or after `since`, both in
        one transaction (event inserts are serialised: `Database.write_order`, SQLite's immediate
        transaction), so two runs at once record it once; None when one was there."""
        insert, values = self.statement(type, data, alpha_id=alpha_id, now=now)
        statement = (
            "INSERT INTO events (type, alpha_id, audience, key_id, data, created_at) SELECT ?, ?, ?, ?, ?, ? "
            "WHERE NOT EXISTS (SELECT 1 FROM events WHERE alpha_id = ? AND type = ? AND created_at >= ?) "
            "RETURNING id, type, alpha_id, audience, key_id, data, created_at",
            (*values, alpha_id, type, stored_time(since)),
        )
        assert insert.startswith("INSERT INTO events (type, alpha_id, audience, key_id, data, created_at)")
        [(rows, _)] = in_id_order(self._database, [statement])
        return event_of(rows[0]) if rows else None

    def every(self, alpha_id: str, type: str) -> list[Event]:
        """Every event of `type` about `alpha_id`, oldest first (for the few types kept whole)."""
        rows, _ = self._database.execute(
            "SELECT id, type, alpha_id, audience, key_id, data, created_at FROM events "
            "WHERE alpha_id = ? AND type = ? ORDER BY id",
            (alpha_id, type),
        )
        return [event_of(row) for row in rows]

    def page(self, reader: Reader, wanted: Wanted) -> Page:
        """The events `reader` may see after `wanted.after`, oldest first, at most `wanted.limit`
        (`wanted.newest`: before it, newest first)."""
        visible, params = visible_sql(reader)
        if wanted.newest:
            conditions, values = ["(? = 0 OR id < ?)", visible], [wanted.after, wanted.after, *params]
        else:
            conditions, values = ["id > ?", visible], [wanted.after, *params]
        if wanted.through is not None:
            conditions.append("id <= ?")
            values.append(wanted.through)
        chosen, chosen_values = chosen_sql(wanted.types, wanted.alphas)
        conditions += chosen
        values += chosen_values
        # Every condition is made of `?` markers and fixed words; no caller text enters the SQL.
        sql = (
            "SELECT id, type, alpha_id, audience, key_id, data, created_at FROM events WHERE "  # noqa: S608
            + " AND ".join(conditions)
            + (" ORDER BY id DESC LIMIT ?" if wanted.newest else " ORDER BY id LIMIT ?")
        )
        rows, _ = self._database.execute(sql, (*values, wanted.limit + 1))
        events = [event_of(row) for row in rows[: wanted.limit]]
        return Page(events, len(rows) > wanted.limit)

    def latest(self, alpha_id: str, types: tuple[str, ...]) -> Event | None:
        """The newest event about `alpha_id` of one of `types` (None: none kept)."""
        marks = ", ".join("?" * len(types))
        rows, _ = self._database.execute(
            "SELECT id, type, alpha_id, audience, key_id, data, created_at FROM events "  # noqa: S608
            f"WHERE alpha_id = ? AND type IN ({marks}) ORDER BY id DESC LIMIT 1",
            (alpha_id, *types),
        )
        return event_of(rows[0]) if rows else None

    def settled_through(
        self, after: int, through: int, settle: dt.timedelta, now: dt.datetime | None = None
    ) -> int:
        """The newest id up to `through` before which no id after `after` is missing, an id being
        waited for while the event after it is younger than `settle`.

        PostgreSQL numbers an event when it is inserted, not when its transaction commits, so an
        event may become visible after a later one: a reader that took the later one's id as its
        cursor would never see the earlier. A missing id is a transaction still open (it shows up
        soon), or one rolled back (it never does: given up once `settle` has passed). SQLite
        writes one transaction at a time and reuses a rolled-back id, so there nothing is missing.
        Only the young events are read (`events_by_time`)."""
        young = stored_time((now or dt.datetime.now(dt.UTC)) - settle)
        rows, _ = self._database.execute(
            "SELECT id FROM events WHERE id > ? AND id <= ? AND created_at > ? ORDER BY id",
            (after, through, young),
        )
        if not rows:
            return through
        first = int(rows[0][0])
        before, _ = self._database.execute(
            "SELECT coalesce(max(id), ?) FROM events WHERE id < ?", (after, first)
        )
        previous = max(after, int(before[0][0]))
        for (event_id,) in rows:
            if int(event_id) != previous + 1:
                return previous
            previous = int(event_id)
        return through

    def newest_seen(self, reader: Reader) -> int:
        """The id of the newest event `reader` may see (0: none): where a stream that starts now
        begins for it. Unlike `last_id`, it moves only with what the reader may see, so a cursor
        made of it says nothing of the events it may not."""
        visible, params = visible_sql(reader)
        # The condition is made of `?` markers and fixed words; no caller text enters the SQL.
        sql = "SELECT coalesce(max(id), 0) FROM events WHERE " + visible  # noqa: S608
        rows, _ = self._database.execute(sql, params)
        return int(rows[0][0])

    def pin(self, reason: str) -> int:
        """Keep every event recorded so far from the retention, for `reason` (the demo's history:
        its events are dated on its simulated clock, years before the wall clock a later build
        purges by); the id pinned through."""
        through = self.last_id()
        self._database.execute("INSERT INTO event_pins (through_id, reason) VALUES (?, ?)", (through, reason))
        return through

    def last_id(self) -> int:
        """The id of the newest event (0: none): where a stream that starts now begins."""
        rows, _ = self._database.execute("SELECT coalesce(max(id), 0) FROM events")
        return int(rows[0][0])

    def purge(
        self,
        before: dt.datetime,
        keep_latest_of: tuple[str, ...] = (),
        keep_all_of: tuple[str, ...] = (),
        keep_latest_each: tuple[str, ...] = (),
    ) -> int:
        """Delete the events created before `before` (the retention), except each alpha's newest
        event of `keep_latest_of` (what its next build is compared with), its newest of each type of
        `keep_latest_each` (its last weekly digest) and every event of
        `keep_all_of` (the audit trail: decisions, nominations, restatements); how many went."""
        sql, params = "DELETE FROM events WHERE created_at < ?", [stored_time(before)]
        # Pinned events (`pin`: the demo's history) are never the retention's.
        sql += " AND id > (SELECT coalesce(max(through_id), 0) FROM event_pins)"
        if keep_all_of:
            sql += f" AND type NOT IN ({', '.join('?' * len(keep_all_of))})"
            params += list(keep_all_of)
        if keep_latest_of:
            marks = ", ".join("?" * len(keep_latest_of))
            sql += (
                " AND id NOT IN (SELECT max(id) FROM events WHERE alpha_id IS NOT NULL"  # noqa: S608
                f" AND type IN ({marks}) GROUP BY alpha_id)"
            )
            params += list(keep_latest_of)
        for kind in keep_latest_each:
            sql += (
                " AND id NOT IN (SELECT max(id) FROM events WHERE alpha_id IS NOT NULL"
                " AND type = ? GROUP BY alpha_id)"
            )
            params.append(kind)
        _, count = self._database.execute(sql, params)
        return count
