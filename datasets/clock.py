"""Our clock: when the lake and the records say something was known.

Every time that says *when a thing was known* is read here: when a publish switched an alpha's
pointer (`published_at`, `superseded_at`), when the lake first published each session
(`known_sessions.first_published_at`), when a catalogue generation was written, when a decision,
a nomination or an event was recorded. Never a time a seal claims (`sealed_at`, `started_at`,
`research_cutoff` are the seal's words, kept as such).

`simulated` moves this clock for the demo alone (`pipeline.demo_history`: a research run published
at its cutoff, decisions recorded a few days later, weekly runs after them), so that the demo lake
holds a live track that was first seen after its decisions, as a real deployment's would be. It is
process-local and set only by that driver; a deployment never sets it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from contextlib import contextmanager

_simulated: tuple[dt.datetime, float] | None = None
"""The simulated time and the monotonic reading it was set at: the clock runs on from it."""


def now() -> dt.datetime:
    """The current time by our clock (UTC, aware). Simulated, it runs on from the time set, at the
    real pace, so two things done one after the other are never dated alike."""
    if _simulated is None:
        return dt.datetime.now(dt.UTC)
    at, started = _simulated
    return at + dt.timedelta(seconds=time.monotonic() - started)


def timestamp() -> float:
    """`now()` as seconds since the epoch."""
    return now().timestamp()


@contextmanager
def simulated(at: dt.datetime) -> Iterator[None]:
    """Our clock reads `at` when the block starts, and runs on from it while the block runs (the
    demo's history only)."""
    global _simulated
    if at.tzinfo is None:
        raise ValueError("a simulated time must be aware (UTC)")
    before, _simulated = _simulated, (at.astimezone(dt.UTC), time.monotonic())
    try:
        yield
    finally:
        _simulated = before
