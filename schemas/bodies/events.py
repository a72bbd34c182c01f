"""One event as `/v1/events`, `/v1/events/stream` and a webhook deliver it (docs/events.md).

The same object everywhere: a row of the feed's page, the `data:` of one Server-Sent Event, and
the body of one webhook delivery. `id` is the event's cursor (resume after it); `data` is what
the event says, its keys set by its type (docs/events.md, "What is recorded").
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from schemas.bodies.base import Body
from schemas.bodies.event_data import (
    ALARM,
    APPROVED,
    BUILD_REFUSED,
    CHECKS_CHANGED,
    DECAY,
    EVENT_DATA,
    FIGURE_BLOCKS,
    HEALTH,
    NOMINATED,
    PUBLISHED,
    REPUBLISHED,
    RESTATED,
    RETIRED,
    WEBHOOK_DISABLED,
)
from schemas.bodies.formats import SEAL_TEXT, Timestamp, doc, one_of

EVENT_TYPES: tuple[str, ...] = tuple(EVENT_DATA)
"""Every event type, in documentation order (`schemas.bodies.event_data`: one Struct per type):
the values `type=` accepts on the feed and the stream (an unknown one is 400 naming `type`)."""

ABOUT_ONE_ALPHA = ", ".join(t for t in EVENT_TYPES if t not in (BUILD_REFUSED, WEBHOOK_DISABLED))
"""The event types about one alpha, as the type's description lists them."""

STREAM_MEDIA_TYPE = "text/event-stream"


class Event(Body, kw_only=True, frozen=True):
    """One event: a row of `GET /v1/events`, the `data:` of one message of `GET
    /v1/events/stream`, and the body of one webhook delivery."""

    id: Annotated[
        str,
        doc(
            "The event's cursor: 32 lower-case hex digits, unique, the same wherever the event is "
            "delivered (the feed, the stream's `id:`, a webhook): pass it as `after` (or "
            "`Last-Event-ID`) to resume after this event, and use it to drop a duplicate. Opaque: "
            "two cursors cannot be compared; the order is the order they are served in."
        ),
    ]
    type: Annotated[
        str,
        one_of(EVENT_TYPES),
        doc(
            f"What happened: {ABOUT_ONE_ALPHA} (about one alpha, seen by the keys that may read it), "
            "build.refused (administrators only) or webhook.disabled (the key whose webhook it was only)."
        ),
    ]
    alpha: Annotated[
        str | None,
        doc(
            "The alpha the event is about.",
            null="Null on build.refused and webhook.disabled, which are about no one alpha.",
        ),
    ]
    created_at: Annotated[
        Timestamp,
        doc(
            "When the event was recorded: UTC, ISO 8601 with microseconds and `Z` "
            "(2026-11-25T18:00:00.000000Z)."
        ),
    ]
    data: Annotated[
        dict[str, Any],
        SEAL_TEXT,  # build.refused quotes the seal it refused
        doc(
            "What the event says, its keys set by its type (docs/events.md, 'What is recorded'; one Struct "
            "per type, docs/reference.md 'Events'); in the CSV, Arrow and Parquet pages one JSON text column."
        ),
    ]


class StreamedEvent(Event, kw_only=True, frozen=True):
    """`GET /v1/events/stream`: not one JSON body but Server-Sent Events (`text/event-stream`), each
    message `id: <cursor>`, `event: <type>` and `data: <one Event as JSON>`; a comment
    `: heartbeat` when nothing was sent for a while. This Struct declares one message's `data:`."""

    outside_envelope: ClassVar[bool] = True
    media_type: ClassVar[str] = STREAM_MEDIA_TYPE


__all__ = [
    "ALARM",
    "APPROVED",
    "BUILD_REFUSED",
    "CHECKS_CHANGED",
    "DECAY",
    "EVENT_TYPES",
    "FIGURE_BLOCKS",
    "HEALTH",
    "NOMINATED",
    "PUBLISHED",
    "REPUBLISHED",
    "RESTATED",
    "RETIRED",
    "WEBHOOK_DISABLED",
]
