"""`/v1/events` (a page of the event log after a cursor, in every representation) and
`/v1/events/stream` (the same events as Server-Sent Events while they are recorded): docs/events.md,
"The feed" and "The stream".

What a key sees is decided by the records in SQL (`records.event_log.Reader`, made from the caller by
`delivery.event_answers.reader_of`): the page, `has_more` and every cursor are made of the events it may
see, so nothing tells it of another alpha's, not even a count or a gap. A stream re-authenticates
its key while it is open (at least once per heartbeat interval and before it sends events): a
revoked key, or one whose allow-lists no longer admit the stream, is cut; narrowed allow-lists
apply to what it sends next.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

import pyarrow as pa
from litestar import Response
from litestar.response import Stream

from core import errors
from datasets.queries import Page
from delivery.event_answers import Viewer, event_answer, reader_of
from records.cursors import CURSOR, CursorInvalid
from records.event_log import Reader, Wanted
from schemas.bodies.envelope import Collection
from schemas.bodies.events import EVENT_TYPES, STREAM_MEDIA_TYPE, Event, StreamedEvent
from schemas.query import EventsQuery, EventStreamQuery, items
from serve import representation, stopping
from serve.auth import authenticated, scope_ip
from serve.envelope import collection as collection_envelope
from serve.envelope import json_bytes, pagination
from serve.exchange import exchange_of
from serve.records import EventsPage, RecordsSource
from serve.routes.base import Context, Ctx
from serve.routes.declare import route
from serve.slow_clients import hold_stream

STREAM_ENDPOINT = "events.stream"
STREAM_BATCH = 500
"""Events a stream reads at once (a page of the log; several are read when more are waiting)."""
RECONNECT_MILLISECONDS = 2000
"""The stream's `retry:`: how long an EventSource waits before reconnecting after the stream ends."""
CURSOR_RULE = (
    "must be a cursor this service wrote: 32 lower-case hex digits (an event's id, or meta.next_cursor)"
)
TYPE_RULE = "unknown event type {}; each must be one of " + ", ".join(EVENT_TYPES)
STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
"""No cache may keep a stream; a proxy that buffers answers (nginx) must pass each event at once."""
COLUMNS = pa.schema(
    [("id", pa.string()), ("type", pa.string()), ("alpha", pa.string()), ("created_at", pa.string())]
    + [("data", pa.string())]
)
"""The columns of the feed's CSV, Arrow and Parquet pages: `data` as JSON text, `created_at` as the
JSON writes it (Arrow and Parquet type it as a UTC timestamp, `schemas.wire`)."""


def filter_problems(values: Mapping[str, str], cursor_names: Mapping[str, str | None]) -> dict[str, str]:
    """The rules the declarations cannot state: each `type` one of the event types, and a cursor
    (`after`, `Last-Event-ID`) of the shape the service writes (whether it wrote it is known only
    once the records are read)."""
    problems: dict[str, str] = {}
    unknown = [name for name in items(values["type"]) if name not in EVENT_TYPES] if "type" in values else []
    if unknown:
        problems["type"] = TYPE_RULE.format(", ".join(repr(name) for name in unknown))
    for name, cursor in cursor_names.items():
        if cursor is not None and not CURSOR.fullmatch(cursor):
            problems[name] = CURSOR_RULE
    return problems


def records_of(ctx: Context[Any]) -> RecordsSource | None:
    source: RecordsSource | None = ctx.services.records
    return source


# -- the feed -------------------------------------------------------------------------------------


@route(
    "events.list",
    "/v1/events",
    "Events after a cursor, oldest first (order=newest: newest first)",
    meta=("next_cursor",),
)
async def list_events(ctx: Ctx[EventsQuery]) -> Response[Collection[Event]]:
    after = ctx.query.values.get("after")
    args = ctx.args(filter_problems(ctx.query.values, {"after": after}))
    wanted = Wanted(
        limit=args.limit,
        types=args.type or (),
        alphas=tuple(dict.fromkeys(args.alpha or ())),
        newest=args.order == "newest",
    )
    source = records_of(ctx)
    if source is None:  # an app embedded without records keeps no event (and wrote no cursor)
        if args.after is not None:
            raise errors.bad_parameters({"after": CURSOR_RULE})
        page = EventsPage([], [], False, "")
    else:
        try:
            page = await source.events_page(reader_of(ctx.caller), args.after, wanted)
        except CursorInvalid:
            raise errors.bad_parameters({"after": CURSOR_RULE}) from None
    viewer = Viewer.of(ctx.caller)
    rows = [
        event_answer(event, cursor, viewer) for event, cursor in zip(page.events, page.cursors, strict=True)
    ]
    meta = ctx.meta(
        **({"next_cursor": page.next_cursor} if page.next_cursor else {}), source="records:events"
    )
    # No count of the log: `total` is what the page proves, so `has_more` keeps its meaning
    # (`offset + returned < total`) without a scan of the retention per page (docs/events.md).
    total = len(rows) + int(page.has_more)
    link = next_link(ctx, page.next_cursor) if page.has_more else None
    name = ctx.representation or representation.DEFAULT
    if name == representation.JSON:
        response = collection_envelope(rows, total, args.limit, 0, meta)
        if link:
            response.headers["Link"] = link
        return response
    body = representation.Body(
        Page(rows, total), columns_of(rows), None, pagination(args.limit, 0, len(rows), total), meta
    )
    return representation.columnar_response(name, body, link)


def columns_of(rows: list[Event]) -> pa.Table:
    """The page as Arrow columns, `data` as compact JSON text (one column whatever the types' keys)."""
    return pa.Table.from_pylist(
        [
            {
                "id": row.id,
                "type": row.type,
                "alpha": row.alpha,
                "created_at": row.created_at,
                "data": json.dumps(row.data, separators=(",", ":"), ensure_ascii=False, allow_nan=False),
            }
            for row in rows
        ],
        schema=COLUMNS,
    )


def next_link(ctx: Context[Any], cursor: str) -> str:
    """RFC 8288 `Link` to the next page: the request's own path and query with `after` the page's
    `next_cursor` (path-absolute, as the other collections' links)."""
    pairs = [(name, value) for name, value in exchange_of(ctx.scope).query if name != "after"]
    return f'<{quote(ctx.scope["path"])}?{urlencode([*pairs, ("after", cursor)])}>; rel="next"'


# -- the stream -----------------------------------------------------------------------------------


@route(
    STREAM_ENDPOINT,
    "/v1/events/stream",
    "Events as they are recorded (Server-Sent Events)",
    skip_compression=True,  # each event must leave when it is sent, not when a compressor's block fills
    holds_open=True,  # a body it is sent is read first, under the body deadline (HOLDS_OPEN)
)
async def stream_events(ctx: Ctx[EventStreamQuery]) -> Response[StreamedEvent]:
    # An empty Last-Event-ID is none (the HTML standard: an EventSource that saw no id sends none).
    last_event_id = (ctx.header(b"last-event-id") or "").strip() or None
    given = {"after": ctx.query.values.get("after"), "Last-Event-ID": last_event_id}
    args = ctx.args(filter_problems(ctx.query.values, given))
    # A browser's EventSource reconnects to the URL it opened (its `after` too) with the id it saw last.
    start, start_name = (last_event_id, "Last-Event-ID") if last_event_id else (args.after, "after")
    # A place among the key's and its account's open streams on this worker, held until the
    # request ends, or 429 too_many_streams: one key's streams cannot fill the worker's connections.
    hold_stream(ctx.scope, ctx.caller, ctx.services.settings)
    source = records_of(ctx)
    reader = reader_of(ctx.caller)
    if source is None:
        if start is not None:
            raise errors.bad_parameters({start_name: CURSOR_RULE})
        position, cursor = 0, None
    else:
        try:
            position, cursor = await source.stream_start(reader, start)
        except CursorInvalid:
            raise errors.bad_parameters({start_name: CURSOR_RULE}) from None
    wanted = Wanted(limit=STREAM_BATCH, types=args.type or (), alphas=tuple(dict.fromkeys(args.alpha or ())))
    messages = EventMessages(ctx, source, reader, wanted, position, cursor).messages()
    stream: Any = Stream(messages, media_type=STREAM_MEDIA_TYPE, headers=STREAM_HEADERS)
    return stream


def message(event: Event) -> bytes:
    """One Server-Sent Event: `id:` its cursor, `event:` its type, `data:` the event as JSON (one
    line: JSON escapes every line break inside a string)."""
    return b"id: %s\nevent: %s\ndata: %s\n\n" % (event.id.encode(), event.type.encode(), json_bytes(event))


HEARTBEAT = b": heartbeat\n\n"


class EventMessages:
    """One open stream: where it is in the log, who reads, and the messages it sends."""

    def __init__(
        self,
        ctx: Context[Any],
        source: RecordsSource | None,
        reader: Reader,
        wanted: Wanted,
        position: int,
        cursor: str | None,
    ) -> None:
        services = ctx.services
        self.source, self.reader, self.wanted = source, reader, wanted
        self.viewer = Viewer.of(ctx.caller)
        """What of an event's data the key sees (`delivery.event_answers`), as of its last check."""
        self.position, self.cursor = position, cursor
        self.services = services
        self.heartbeat = services.settings.events_heartbeat_seconds
        self.poll_seconds = services.settings.events_poll_seconds
        self.authorization = ctx.header(b"authorization")
        self.ip = scope_ip(ctx.scope, services.settings.trusted_proxy_hops)
        self.checked = time.monotonic()
        """When the key was last authenticated (the request's own authentication, first)."""
        self.held = False
        """The last read stopped short of an event still being committed (PostgreSQL)."""

    async def recheck(self) -> bool:
        """Authenticate the key again (its record may have been revoked or suspended, or its
        allow-lists changed, since the stream opened) and read with what it may see now; False
        when it may no longer hold the stream."""
        services = self.services
        try:
            caller = await authenticated(services, self.authorization, self.ip, datetime.now(UTC))
        except errors.ApiError:
            return False
        if not caller.may_call(STREAM_ENDPOINT):
            return False
        self.reader, self.viewer, self.checked = reader_of(caller), Viewer.of(caller), time.monotonic()
        return True

    async def messages(self) -> AsyncIterator[bytes]:
        # Where the stream starts, as an `id:` of its own: a client that loses the connection
        # before the first event resumes from here (when it started from now, the newest event it
        # may see: nothing it may not see moves this cursor).
        opening = b"retry: %d\n" % RECONNECT_MILLISECONDS
        yield opening + (b"id: %s\n\n" % self.cursor.encode() if self.cursor else b"\n")
        if self.source is None:
            return  # an app embedded without records has no event to wait for
        watch = self.source.watch(self.poll_seconds)
        watch.open()
        try:
            sent = time.monotonic()
            while not stopping.stopping():
                if watch.newest > self.position:
                    batch = await self.read(watch.newest)
                    if batch is None:
                        return  # the key may no longer read, or the records cannot be read: end
                    if batch:
                        yield batch
                        sent = time.monotonic()
                    if self.held:  # an event still being committed: look again after a poll
                        await stopping.sleep(self.poll_seconds)
                    continue
                now = time.monotonic()
                if now - self.checked >= self.heartbeat and not await self.recheck():
                    return
                if now - sent >= self.heartbeat:
                    yield HEARTBEAT
                    sent = time.monotonic()
                    continue
                await watch.wait(self.position, min(sent, self.checked) + self.heartbeat - now)
        finally:
            watch.close()

    async def read(self, through: int) -> bytes | None:
        """The messages of the events after the stream's position up to `through` that the key
        may see, the position moved past them; None when the stream must end. The key is
        authenticated again before anything is sent (and the page read again with what it may see
        now), and at least once per heartbeat interval."""
        assert self.source is not None
        wanted = Wanted(
            after=self.position,
            limit=self.wanted.limit,
            types=self.wanted.types,
            alphas=self.wanted.alphas,
            through=through,
        )
        try:
            if time.monotonic() - self.checked >= self.heartbeat and not await self.recheck():
                return None
            reader = self.reader
            page = await self.source.stream_page(reader, wanted)
            if page.found:
                if not await self.recheck():
                    return None
                if self.reader != reader:
                    page = await self.source.stream_page(self.reader, wanted)
        except errors.UpstreamUnavailable:
            return None  # the client reconnects with its Last-Event-ID: nothing is lost
        self.position, self.held = page.read_through, page.held
        viewer = self.viewer
        return b"".join(message(event_answer(event, cursor, viewer)) for event, cursor in page.found)


ROUTES = [list_events, stream_events]
