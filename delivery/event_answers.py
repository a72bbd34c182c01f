"""A stored record's figures as a key receives them: one event, the same on the feed, the stream
and a webhook (docs/events.md, "What a key sees"), and a promotion's snapshot on
`/v1/alphas/{alpha}/promotions` (docs/events.md, "Promotions").

Whether a key sees an event at all is decided in SQL (`records.event_log.Reader`), a decision by the
alpha's allow-lists; this decides what of the figures it sees. A record carries figures computed
once by the pipeline, which reads everything (`schemas.bodies.events.FIGURE_BLOCKS`: the headline
figures the screener serves and the checks `/analytics/checks` serves). A key sees them only as
its own routes would answer them (docs/security.md, "Stored figures"):
- a block whose route it may not call is null and named in `data.withheld` (a snapshot's checks
  and verdict, when it may not call `/analytics/checks`);
- a headline figure built from data it may not read is null (the screener's rule,
  `schemas.wire.SCREEN_WITHHELD_FIELDS`);
- a check whose source route it may not call keeps its unit and is `not_measurable` with its value
  null (the checks route's `access_limited`); a snapshot's `reason`, which may name a symbol or
  another alpha, is replaced by the withheld reason;
- a check computed over the other alphas (`schemas.checks.Check.over_catalogue`: the Deflated
  Sharpe's trials, the production correlation, the residual against the approved set), and an
  alarm's charts when their expected level was calibrated on the other approved alphas, are the
  key's own figures only when the key reads every alpha; for any other key they are withheld the
  same way, never a figure over alphas it may not read.
A light module: the delivery worker imports it without Litestar or pyarrow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from analytics.access import Access
from analytics.restatements import WITHHELD_VALUES, withheld_reason
from records.event_log import Event as Recorded
from records.event_log import EventScope, Reader
from records.times import stored_time
from schemas.bodies.event_data import Alarm, Health
from schemas.bodies.events import FIGURE_BLOCKS, Event
from schemas.bodies.promotions import CheckSeen, Snapshot
from schemas.checks import BY_ID as CHECKS
from schemas.checks import RENAMED as RENAMED_CHECKS
from schemas.wire import SCREEN_WITHHELD_FIELDS, book_visible, field_visible

if TYPE_CHECKING:
    from core.context import AllowList, Caller

CHECKS_ENDPOINT = FIGURE_BLOCKS["checks"]
OVER_CATALOGUE = (
    "access_limited: computed over alphas this key may not read (a key's own /analytics/checks computes "
    "it over the alphas it may read)"
)


@dataclass(frozen=True)
class Viewer:
    """What a key may see of a stored figure: the routes it may call, whether it reads every
    alpha (both its alpha and its run allow-lists are `all`), and whether it has raw-book access
    (`schemas.wire.book_visible`: a key without it is served no raw book's figure)."""

    may_call: Callable[[str], bool]
    every_alpha: bool
    raw: bool

    @classmethod
    def of(cls, caller: Caller) -> Viewer:
        return cls(
            caller.may_call, caller.alphas.mode == "all" and caller.runs.mode == "all", caller.expose_raw_book
        )

    def tag(self) -> str:
        """What of the stored figures this viewer sees, as a short string (part of an ETag): one
        letter per check and one for the checks route, then its raw-book access."""
        return (
            ("c" if self.may_call(CHECKS_ENDPOINT) else "-")
            + "".join("-" if withheld_check(check_id, self) else "c" for check_id in CHECKS)
            + ("r" if self.raw else "-")
        )


EVERYTHING = Viewer(lambda _: True, every_alpha=True, raw=True)
"""A viewer that sees every stored figure as recorded (the command line's, an operator's)."""


def withheld_check(check_id: Any, viewer: Viewer) -> str | None:
    """Why `viewer` may not see the stored value of check `check_id`; None when it may."""
    # a decision recorded before a check was renamed holds its old id
    check = CHECKS.get(RENAMED_CHECKS.get(check_id, check_id)) if isinstance(check_id, str) else None
    if check is None:
        return None
    if not viewer.may_call(check.source):
        return f"access_limited: built from {check.source}, which this key may not call"
    if check.over_catalogue and not viewer.every_alpha:
        return OVER_CATALOGUE
    return None


def _check(entry: Any, check_id: Any, viewer: Viewer) -> Any:
    """One check's value and verdict (in `checks`, `changed`' before/after, `failed`), or its
    withheld form."""
    why = withheld_check(check_id, viewer)
    if not isinstance(entry, dict) or why is None:
        return entry
    return {**entry, "value": None, "verdict": "not_measurable", "withheld_reason": why}


def _hidden_figures(may_call: Callable[[str], bool]) -> set[str]:
    access = Access.of(may_call)
    return {f for data, fields in SCREEN_WITHHELD_FIELDS.items() if not access.may_read(data) for f in fields}


def shown_data(data: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """`data` as `viewer` sees it."""
    may_call = viewer.may_call
    shown, withheld = dict(data), {}
    if not viewer.raw:
        _without_raw(shown)
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
        shown["checks"] = {k: _check(v, k, viewer) for k, v in shown["checks"].items()}
    if isinstance(shown.get("changed"), list):
        shown["changed"] = [
            {
                **c,
                "before": _check(c.get("before"), c.get("id"), viewer),
                "after": _check(c.get("after"), c.get("id"), viewer),
            }
            for c in shown["changed"]
            if isinstance(c, dict)
        ]
    if isinstance(shown.get("failed"), list):
        shown["failed"] = [_check(c, c.get("id"), viewer) for c in shown["failed"] if isinstance(c, dict)]
    if isinstance(shown.get("charts"), list):
        _alarm_charts(shown, withheld, viewer)
    if isinstance(shown.get("health"), dict):
        _health_row(shown, withheld, viewer)
    _restated_values(shown, Access.of(may_call))
    if withheld:
        shown["withheld"] = withheld
    return shown


def _without_raw(shown: dict[str, Any]) -> None:
    """An event as a key without raw-book access sees it: no raw book's or raw-only field's value
    (the raw-book scope, `schemas.wire.book_visible` and `field_visible`). An `alpha.restated`
    keeps them apart in `raw_books`, dropped here; one recorded before they were kept apart lists
    them among the others: those rows are dropped, and its count and dates are those of the rows
    it keeps (`restatements` lists them all)."""
    shown.pop("raw_books", None)
    rows = shown.get("restated")
    if not isinstance(rows, list):
        return
    kept = [
        row
        for row in rows
        if isinstance(row, dict)
        and book_visible(row.get("book"), False)
        and field_visible(str(row.get("field")), False)
    ]
    if len(kept) != len(rows):
        shown["restated"] = kept
        shown["count"] = len(kept)
        shown["first_date"] = kept[0].get("date") if kept else None
        shown["last_date"] = kept[-1].get("date") if kept else None


def _restated_values(shown: dict[str, Any], access: Access) -> None:
    """An `alpha.restated`'s values as `/restatements` would answer the key: a row's symbol, before
    and after null, with its `withheld_reason`, when the key may not read the data they are built
    from (`analytics.restatements.withheld_reason`, the route's rule)."""
    if isinstance(shown.get("restated"), list):
        shown["restated"] = [_restated_value(row, access) for row in shown["restated"]]
    raw = shown.get("raw_books")
    if isinstance(raw, dict) and isinstance(raw.get("restated"), list):
        shown["raw_books"] = {**raw, "restated": [_restated_value(row, access) for row in raw["restated"]]}


def _restated_value(row: Any, access: Access) -> Any:
    why = withheld_reason(row.get("dataset"), access) if isinstance(row, dict) else None
    return row if why is None else {**row, **dict.fromkeys(WITHHELD_VALUES), "withheld_reason": why}


def _alarm_charts(shown: dict[str, Any], withheld: dict[str, str], viewer: Viewer) -> None:
    """An alpha.alarm's charts as /analytics/monitoring would answer the viewer: none when their
    expected level was calibrated on other alphas and it does not read every alpha; a chart whose
    series it may not read (the book's return: the ledger; the IC: the cross-sections) with its
    figures null."""
    if shown.get("expectation_basis") == "catalogue" and not viewer.every_alpha:
        shown["charts"] = None
        withheld["charts"] = OVER_CATALOGUE
        return
    access = Access.of(viewer.may_call)
    charts = []
    for chart in shown["charts"]:
        data = Alarm.chart_data.get(str(chart.get("series"))) if isinstance(chart, dict) else None
        if data is not None and not access.may_read(data):
            chart = {**dict.fromkeys(chart), "series": chart["series"], "state": "not_measurable"}
            withheld[f"charts[{chart['series']}]"] = (
                f"access_limited: built from {data}, which this key may not read"
            )
        charts.append(chart)
    shown["charts"] = charts


def _health_row(shown: dict[str, Any], withheld: dict[str, str], viewer: Viewer) -> None:
    """An alpha.health's row as /v1/analytics/approved_health would answer the viewer: each figure
    null whose route it may not call or whose data it may not read, and those computed over other
    alphas null for a viewer that does not read every alpha."""
    access = Access.of(viewer.may_call)
    if not access.may_read("ledger"):
        shown["health"] = None
        withheld["health"] = "access_limited: built from the ledger, which this key may not read"
        return
    hidden: dict[str, str] = {}
    for route, fields in Health.from_routes.items():
        if not viewer.may_call(route):
            hidden |= dict.fromkeys(fields, f"access_limited: served by {route}, which this key may not call")
    if not access.may_read("cross_sections"):
        hidden |= dict.fromkeys(Health.from_cross_sections, "access_limited: built from the cross-sections")
    if not viewer.every_alpha:
        over = Health.over_catalogue
        if shown.get("expectation_basis") == "catalogue":
            over += Health.calibrated
        hidden |= dict.fromkeys(over, OVER_CATALOGUE)
        shown["false_discovery_basis"] = None
        withheld["false_discovery_basis"] = OVER_CATALOGUE
    if hidden:
        shown["health"] = {**shown["health"], **dict.fromkeys(hidden)}
        for name, why in hidden.items():
            withheld[f"health.{name}"] = why


def event_answer(event: Recorded, cursor: str, viewer: Viewer) -> Event:
    """The event as the key receives it (`schemas.bodies.events.Event`)."""
    created_at = stored_time(event.created_at)
    assert created_at is not None  # every event has its time
    return Event(
        id=cursor,
        type=event.type,
        alpha=event.alpha_id,
        created_at=created_at,
        data=shown_data(event.data, viewer),
    )


def shown_snapshot(snapshot: Snapshot, viewer: Viewer) -> Snapshot:
    """A promotion's snapshot as `viewer` sees it: its checks and verdict withheld (null, the reason
    in `withheld_reason`) when it may not call `/analytics/checks`, else each check by the rules
    above; the policy and the date as recorded."""
    if snapshot.read is not None and not viewer.every_alpha:
        # The builds of the approved alphas it was measured against name other alphas: only a key
        # that reads every alpha is shown them (as the reference-set checks' own rule).
        snapshot = msgspec.structs.replace(
            snapshot, read=msgspec.structs.replace(snapshot.read, reference_builds={})
        )
    if not viewer.may_call(CHECKS_ENDPOINT):
        blocked = f"access_limited: served by {CHECKS_ENDPOINT}, which this key may not call"
        return msgspec.structs.replace(snapshot, checks=[], verdict=None, withheld_reason=blocked)
    checks, hidden = [], []
    for check in snapshot.checks:
        why = withheld_check(check.id, viewer)
        if why is None:
            checks.append(check)
            continue
        hidden.append(check.id)
        checks.append(
            CheckSeen(id=check.id, value=None, unit=check.unit, verdict="not_measurable", reason=why)
        )
    if not hidden:
        return snapshot
    # The verdict counts every check: not the key's to read when one of them is withheld.
    counted = f"access_limited: counts checks this key may not see ({', '.join(hidden)})"
    return msgspec.structs.replace(snapshot, checks=checks, verdict=None, withheld_reason=counted)


def scope_of(allowed: AllowList) -> EventScope:
    """An allow-list as the event log's SQL reads it."""
    if allowed.mode == "all":
        return EventScope(everything=True)
    if allowed.mode == "list":
        return EventScope(ids=allowed.ids)
    return EventScope(prefixes=allowed.prefixes)


def reader_of(caller: Caller) -> Reader:
    """What `caller` may see of the event log now: an alpha's events when both its alpha and its
    run allow-lists admit the alpha (an event carries the run's figures, which the run-scoped
    routes serve only then; docs/events.md "What a key sees"), administrators' events when it is
    an administrator, and the events addressed to its own key."""
    return Reader(
        scopes=(scope_of(caller.alphas), scope_of(caller.runs)), admin=caller.is_admin, key_id=caller.key_id
    )
