"""One event as a key receives it, the same on the feed, the stream and a webhook (docs/events.md,
"What a key sees").

Whether a key sees an event at all is decided in SQL (`records.events.Reader`); this decides what
of its `data` it sees. An event carries figures (`schemas.bodies.events.FIGURE_BLOCKS`): the
headline figures the screener serves and the checks `/analytics/checks` serves. A key sees them as
those routes would show them: a block whose route it may not call is null and named in
`data.withheld`; a headline figure built from data it may not read is null (the screener's rule,
`schemas.wire.SCREEN_WITHHELD_FIELDS`); a check whose source route it may not call keeps its unit
and is `not_measurable` with its value null (the checks route's `access_limited`). A light module:
the delivery worker imports it without Litestar or pyarrow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from analytics.access import Access
from records.events import Event as Recorded
from records.times import stored_time
from schemas.bodies.events import FIGURE_BLOCKS, Event
from schemas.checks import CHECKS
from schemas.wire import SCREEN_WITHHELD_FIELDS

CHECK_SOURCES = {check.id: check.source for check in CHECKS}


def _check(entry: Any, check_id: Any, may_call: Callable[[str], bool]) -> Any:
    """One check's value and verdict (in `checks`, `changed`' before/after, `failed`), or its
    withheld form when the key may not call the route the value comes from."""
    source = CHECK_SOURCES.get(check_id)
    if not isinstance(entry, dict) or source is None or may_call(source):
        return entry
    return {
        **entry,
        "value": None,
        "verdict": "not_measurable",
        "withheld_reason": f"access_limited: built from {source}, which this key may not call",
    }


def _hidden_figures(may_call: Callable[[str], bool]) -> set[str]:
    access = Access.of(may_call)
    return {f for data, fields in SCREEN_WITHHELD_FIELDS.items() if not access.may_read(data) for f in fields}


def shown_data(data: dict[str, Any], may_call: Callable[[str], bool]) -> dict[str, Any]:
    """`data` as a key that may call what `may_call` admits sees it."""
    shown, withheld = dict(data), {}
    for block, endpoint in FIGURE_BLOCKS.items():
        if block in shown and not may_call(endpoint):
            shown[block] = None
            withheld[block] = f"access_limited: served by {endpoint}, which this key may not call"
    hidden = _hidden_figures(may_call)
    if hidden:
        if isinstance(shown.get("headline"), dict):
            shown["headline"] = {k: None if k in hidden else v for k, v in shown["headline"].items()}
        if isinstance(shown.get("figures"), dict):
            shown["figures"] = {
                k: {"before": None, "after": None, "moved": None} if k in hidden else v
                for k, v in shown["figures"].items()
            }
        if isinstance(shown.get("moved"), list):
            shown["moved"] = [k for k in shown["moved"] if k not in hidden]
    if isinstance(shown.get("checks"), dict):
        shown["checks"] = {k: _check(v, k, may_call) for k, v in shown["checks"].items()}
    if isinstance(shown.get("changed"), list):
        shown["changed"] = [
            {
                **c,
                "before": _check(c.get("before"), c.get("id"), may_call),
                "after": _check(c.get("after"), c.get("id"), may_call),
            }
            for c in shown["changed"]
            if isinstance(c, dict)
        ]
    if isinstance(shown.get("failed"), list):
        shown["failed"] = [_check(c, c.get("id"), may_call) for c in shown["failed"] if isinstance(c, dict)]
    if withheld:
        shown["withheld"] = withheld
    return shown


def event_answer(event: Recorded, cursor: str, may_call: Callable[[str], bool]) -> Event:
    """The event as the key receives it (`schemas.bodies.events.Event`)."""
    created_at = stored_time(event.created_at)
    assert created_at is not None  # every event has its time
    return Event(
        id=cursor,
        type=event.type,
        alpha=event.alpha_id,
        created_at=created_at,
        data=shown_data(event.data, may_call),
    )
