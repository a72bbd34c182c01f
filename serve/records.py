"""The deployment's records (promotions, events: `records/`) as the server reads them.

Kept in the key store's database (`keystore_url`), opened on first use and never created by the
server (a SQLite file that does not exist is unavailable, as for the key store). A database that
cannot be opened or used answers 503 `upstream_unavailable`, never a figure computed as if nothing
had been decided. An app embedded without records (tests that inject their own authenticator)
has none: no alpha is approved there.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TypeVar

from anyio import to_thread

from analytics.standings import Standings
from core.errors import UpstreamUnavailable
from records.event_log import Event, Reader, Wanted
from records.sql import Unavailable
from records.store import Records, open_records
from serve import stopping

T = TypeVar("T")
log = logging.getLogger("serve.records")


class RecordsSource:
    """Opens the records of `url` once, on first use; retried on the next use after a failure."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._lock = threading.Lock()
        self._records: Records | None = None
        self._watch: EventsWatch | None = None

    def _opened(self) -> Records:
        with self._lock:
            if self._records is None:
                self._records = open_records(self._url, create=False)
            return self._records

    def _call(self, read: Callable[[Records], T]) -> T:
        try:
            return read(self._opened())
        except Unavailable as exc:
            raise UpstreamUnavailable(
                "The records database is temporarily unreachable; retry with backoff."
            ) from exc

    async def read(self, read: Callable[[Records], T]) -> T:
        """`read(records)`: on the event loop once a SQLite file is open (microseconds, as the key
        store's reads, `serve.auth.call_backends`), else in a worker thread (the first open, and
        every PostgreSQL round trip, never stall the loop)."""
        opened = self._records
        if opened is not None and opened.database.in_process:
            return self._call(read)
        return await to_thread.run_sync(partial(self._call, read))

    # -- events (docs/events.md, "The feed" and "The stream") ------------------------------------

    async def events_page(self, reader: Reader, after: str | None, wanted: Wanted) -> EventsPage:
        """The events `reader` may see after the cursor `after` (None: from the oldest kept), as
        `wanted` narrows them; `records.cursors.CursorInvalid` for a cursor this deployment did
        not write. A cursor older than the retention resumes at the oldest event kept (ids only
        grow, so every event kept lies after it)."""

        def read(records: Records) -> EventsPage:
            start = 0 if after is None else records.cursors.read(after)
            page = records.events.page(reader, replace(wanted, after=start))
            events, has_more = page.events, page.has_more
            if events and not wanted.newest:
                # Not past an event still being committed (PostgreSQL): it would be skipped.
                horizon = records.events.settled_through(start, events[-1].id, SETTLE)
                if horizon < events[-1].id:
                    events, has_more = [event for event in events if event.id <= horizon], False
            cursors = [records.cursors.write(event.id) for event in events]
            if cursors:
                resume = cursors[-1]
            else:
                # Nothing seen: resume where this page started, never at an event the reader may
                # not see (its cursor would move with what it may not read).
                resume = after if after is not None else records.cursors.write(0)
            return EventsPage(events, cursors, has_more, resume)

        return await self.read(read)

    async def stream_start(self, reader: Reader, after: str | None) -> tuple[int, str]:
        """Where a stream starts, as an id and its cursor: after the cursor given, else after the
        newest event `reader` may see (only what is recorded from now on). `CursorInvalid` for a
        cursor this deployment did not write."""

        def read(records: Records) -> tuple[int, str]:
            if after is not None:
                return records.cursors.read(after), after
            start = records.events.newest_seen(reader)
            return start, records.cursors.write(start)

        return await self.read(read)

    async def stream_page(self, reader: Reader, wanted: Wanted) -> StreamPage:
        """One read of a stream: the events of `wanted` (after its `after`, up to its `through`,
        short of an event still being committed) that `reader` may see, each with its cursor."""

        def read(records: Records) -> StreamPage:
            assert wanted.through is not None
            horizon = records.events.settled_through(wanted.after, wanted.through, SETTLE)
            page = records.events.page(reader, replace(wanted, through=horizon))
            found = [(event, records.cursors.write(event.id)) for event in page.events]
            if page.has_more:
                return StreamPage(found, page.events[-1].id, held=False)
            return StreamPage(found, horizon, held=horizon < wanted.through)

        return await self.read(read)

    def watch(self, poll_seconds: float) -> EventsWatch:
        """The worker's one watch over the event log (made on first use)."""
        if self._watch is None:
            self._watch = EventsWatch(self, poll_seconds)
        return self._watch

    def close(self) -> None:
        with self._lock:
            if self._records is not None:
                self._records.close()
                self._records = None

    # -- standings: where every alpha stands, read once per records version ----------------------

    _standings: tuple[tuple[int, int], Standings] | None = None  # (records.version(), what it read)

    async def standings(self) -> Standings:
        """Where every alpha stands (`analytics.standings.Standings`): the catalogue's and the
        screener's columns, the screener's filter and the decision routes' default reference set.
        Each call asks the records' version (the last decision's and nomination's ids: two `SELECT
        max(id)`) and reads every alpha's latest decision, approval and nomination again only when
        it moved, so a decision is served by the next request and the standings are not read per
        request."""

        def read(records: Records) -> Standings:
            version = records.version()
            cached = self._standings
            if cached is not None and cached[0] == version:
                return cached[1]
            # A decision recorded between the two reads is in `found`, kept under the older version:
            # the next call sees the newer one and reads again.
            decided = records.decisions_in_force()
            found = Standings.of(decided.latest, decided.approvals, decided.nominations)
            self._standings = (version, found)
            return found

        return await self.read(read)

    async def standings_at(self, moment: dt.datetime) -> Standings:
        """Where every alpha stood at `moment`: the decisions and nominations recorded by then (a
        read route's `as_of`), read each time (a past moment is asked rarely)."""

        def read(records: Records) -> Standings:
            decided = records.decisions_at(moment)
            return Standings.of(decided.latest, decided.approvals, decided.nominations)

        return await self.read(read)


SETTLE = dt.timedelta(seconds=10)
"""How long an event id missing before a newer one is waited for (`EventLog.settled_through`):
past it, the id is taken for a transaction that rolled back."""


@dataclass(frozen=True)
class StreamPage:
    found: list[tuple[Event, str]]
    """The events read and their cursors, in order."""
    read_through: int
    """The stream's new position: every event up to it was read."""
    held: bool
    """Events were held back behind one still being committed: read again shortly."""


@dataclass(frozen=True)
class EventsPage:
    events: list[Event]
    cursors: list[str]
    """Each event's cursor (its wire `id`), in order."""
    has_more: bool
    next_cursor: str
    """Where to resume: the last event's cursor; with none, the `after` given, else the log's start."""


class EventsWatch:
    """The one poller of a worker: while at least one stream is open it asks the event log for its
    newest id every `poll_seconds` (`EventLog.last_id`, one indexed query) and, when it grew, wakes
    every stream, which then reads its own page with its own reader. So a worker holding 1,000
    streams makes one query per interval, and each stream one read only when something was
    recorded. No database connection or lock is held while waiting. The poller stops when the last
    stream closes, and at the worker's stop (`serve.stopping`) every waiting stream is woken to end."""

    def __init__(self, source: RecordsSource, poll_seconds: float) -> None:
        self._source = source
        self._poll_seconds = poll_seconds
        self._streams = 0
        self._task: asyncio.Task[None] | None = None
        self._changed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._failing = False
        self.newest = 0
        """The newest id the last poll saw (0 before the first)."""
        self.stopping = False
        self._forget_stop: Callable[[], None] | None = None

    @property
    def streams(self) -> int:
        return self._streams

    def _event(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        if self._changed is None or self._loop is not loop:
            self._changed, self._loop = asyncio.Event(), loop
        return self._changed

    def _wake(self) -> None:
        changed = self._changed
        self._changed = asyncio.Event() if changed is not None else None
        if changed is not None:
            changed.set()

    def _stop(self) -> None:
        self.stopping = True
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake)

    def open(self) -> None:
        """A stream opens: the poller runs while any is open."""
        self._streams += 1
        self._event()
        if self._forget_stop is None:
            self._forget_stop = stopping.listen(self._stop)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._poll(), name="events-watch")

    def close(self) -> None:
        self._streams -= 1
        if self._streams == 0:
            self._wake()  # the poller sees no stream left and ends

    async def wait(self, beyond: int, timeout: float) -> int:
        """The newest id once it is beyond `beyond`, or after `timeout` seconds, or at the worker's
        stop, whichever comes first."""
        if self.newest > beyond or self.stopping:
            return self.newest
        changed = self._event()
        try:
            await asyncio.wait_for(changed.wait(), timeout)
        except TimeoutError:
            pass
        return self.newest

    async def _poll(self) -> None:
        while self._streams > 0 and not self.stopping:
            try:
                newest = await self._source.read(lambda records: records.events.last_id())
            except Exception:  # the poller outlives a failed read: the next one may succeed
                if not self._failing:
                    log.warning(
                        "the event log cannot be read; open streams wait for it (heartbeats go on)",
                        exc_info=True,
                    )
                self._failing = True
            else:
                if self._failing:
                    log.info("the event log can be read again")
                self._failing = False
                if newest != self.newest:
                    self.newest = newest
                    self._wake()
            changed = self._event()
            try:
                await asyncio.wait_for(changed.wait(), self._poll_seconds)
            except TimeoutError:
                pass
