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
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_simulated: list[dt.datetime] | None = None
"""The simulated time, moved on by `TICK` at each reading."""
_lock = threading.Lock()

TICK = dt.timedelta(milliseconds=1)
"""How far a simulated clock moves at each reading: so two things done one after the other are
never dated alike, and a history played twice is dated alike to the microsecond whatever the
machine's speed (the equality suite records the demo's times)."""


def now() -> dt.datetime:
    """The current time by our clock (UTC, aware). Simulated, it reads the time set, then `TICK`
    later at each reading."""
    if _simulated is None:
        return dt.datetime.now(dt.UTC)
    with _lock:
        found = _simulated[0]
        _simulated[0] = found + TICK
    return found


def timestamp() -> float:
    """`now()` as seconds since the epoch."""
    return now().timestamp()


@contextmanager
def simulated(at: dt.datetime) -> Iterator[None]:
    """Our clock reads `at` when the block starts, and moves on by `TICK` at each reading while the
    block runs (the demo's history and tests only)."""
    global _simulated
    if at.tzinfo is None:
        raise ValueError("a simulated time must be aware (UTC)")
    before, _simulated = _simulated, [at.astimezone(dt.UTC)]
    try:
        yield
    finally:
        _simulated = before
