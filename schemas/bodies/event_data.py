"""What each event says: one Struct per event type, its `data` (issue 46, item 5).

Every event the log records is checked against its type's Struct when it is written
(`records.event_log.EventLog.statement`): no producer (a build run, `alpha-results promote`, the
delivery worker) can record a key its type does not declare, or leave one out. The event types
(`EVENT_TYPES`), the keys that hold figures and the route each comes from (`FIGURE_BLOCKS`:
what a key that may not call that route gets withheld, docs/events.md "What a key sees") and the
table of docs/reference.md, "Events", are derived from these declarations.

The Structs describe the data as recorded; a key receives it with the figures it may not read
withheld (`delivery.event_answers`): a block null and named in `withheld`, a check with its value
null and a `withheld_reason`.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import UNSET, UnsetType

from schemas.bodies.approved_health import FROM_CROSS_SECTIONS, FROM_ROUTES, VERDICT_FIELDS
from schemas.bodies.base import Body
from schemas.bodies.formats import doc

PUBLISHED = "alpha.published"
REPUBLISHED = "alpha.republished"
CHECKS_CHANGED = "alpha.checks_changed"
APPROVED = "alpha.approved"
RETIRED = "alpha.retired"
DECAY = "alpha.decay"
ALARM = "alpha.alarm"
HEALTH = "alpha.health"
NOMINATED = "alpha.nominated"
RESTATED = "alpha.restated"
BUILD_REFUSED = "build.refused"
WEBHOOK_DISABLED = "webhook.disabled"

SCREEN = "analytics.screen"
CHECKS = "analytics.checks"
MONITORING = "analytics.monitoring"
APPROVED_HEALTH = "analytics.approved_health"
RESTATEMENTS = "catalog.alphas.restatements"

AUDIT_TRAIL = ("alpha.approved", "alpha.retired", NOMINATED, RESTATED, ALARM)
"""The events the retention never deletes: what was decided, nominated and restated, and the alarms
raised, and when (an auditor reading a decision a year later reads them; an alarm already announced
is known by its event, so it is never announced twice)."""

RESTATED_SHOWN = 100
"""The restated values an `alpha.restated` event lists (the first, in date order); the rest are
counted, and every one is in the lake and on `/v1/alphas/{alpha}/restatements`."""


class Headline(Body, kw_only=True, frozen=True):
    """A build's headline figures: its catalogue index row as `/v1/analytics/screen` lists it, under
    the screener's names and units."""

    information_ratio: Annotated[float | None, doc("Annualised information ratio of the long_short book.")]
    excess_sharpe: Annotated[
        float | None, doc("Annualised Sharpe ratio of its returns over the risk-free rate.")
    ]
    icir: Annotated[float | None, doc("Annualised ICIR of the weekly rank IC.")]
    ic: Annotated[
        float | None,
        doc(
            "Mean weekly rank IC of the conditioned score, as sealed (/metrics core.ic, the screener's ic); "
            "recorded as mean_ic before issue 65 (item 3)."
        ),
    ]
    max_drawdown_pct: Annotated[float | None, doc("Largest drawdown, percent of equity.")]
    turnover: Annotated[float | None, doc("One-way turnover per year.")]
    sessions: Annotated[int | None, doc("Sessions of the long_short book.")]
    weeks: Annotated[int | None, doc("Rebalance weeks.")]


class CheckSeen(Body, kw_only=True, frozen=True):
    """One check of `/analytics/checks` as the event recorded it."""

    value: Annotated[float | None, doc("Its value, in its unit; null when not measurable.")]
    unit: Annotated[str, doc("Unit of value.")]
    verdict: Annotated[str, doc("pass, fail or not_measurable.")]
    withheld_reason: Annotated[str, doc("Why the value is withheld from this key (absent: it is not).")] | (
        UnsetType
    ) = UNSET


class FigureMove(Body, kw_only=True, frozen=True):
    """One headline figure before and after a republish."""

    before: Annotated[float | int | None, doc("Its value in the previous build.")]
    after: Annotated[float | int | None, doc("Its value in this build.")]
    moved: Annotated[bool | None, doc("Beyond its tolerance (docs/events.md, 'Tolerances').")]


class CheckFlip(Body, kw_only=True, frozen=True):
    """A check whose verdict flipped between two builds."""

    id: Annotated[str, doc("The check's id, as /analytics/checks.")]
    before: Annotated[CheckSeen | None, doc("The check in the previous build (null: not in it).")]
    after: Annotated[CheckSeen | None, doc("The check in this build.")]


class FailedCheck(CheckSeen, kw_only=True, frozen=True):
    """A live check that newly fails."""

    id: Annotated[str, doc("The check's id (live_information_ratio or decay_ratio).")]


class EventData(Body, kw_only=True, frozen=True):
    """The `data` of an event: one subclass per type (`type`)."""

    type: ClassVar[str]
    figures_from: ClassVar[dict[str, str]] = {}
    """The keys holding figures, and the route each comes from (a key that may not call it gets the
    key null, named in `withheld`)."""
    withheld: Annotated[dict[str, str], doc("The blocks withheld from this key, and why (absent: none).")] | (
        UnsetType
    ) = UNSET


class Published(EventData, kw_only=True, frozen=True):
    """The first build ever recorded of an alpha."""

    type: ClassVar[str] = PUBLISHED
    figures_from: ClassVar[dict[str, str]] = {"headline": SCREEN, "checks": CHECKS}
    build_id: Annotated[str, doc("The build now served.")]
    headline: Annotated[Headline | None, doc("Its headline figures.")]
    checks: Annotated[dict[str, CheckSeen] | None, doc("Its checks by id, in the battery's order.")]


class Republished(Published, kw_only=True, frozen=True):
    """A later build that changed the alpha's served build."""

    type: ClassVar[str] = REPUBLISHED
    figures_from: ClassVar[dict[str, str]] = {
        "headline": SCREEN,
        "checks": CHECKS,
        "figures": SCREEN,
        "moved": SCREEN,
    }
    previous_build_id: Annotated[str | None, doc("The build served before.")]
    figures: Annotated[dict[str, FigureMove] | None, doc("Each headline figure before and after.")]
    moved: Annotated[list[str] | None, doc("The headline figures that moved beyond their tolerance.")]


class ChecksChanged(EventData, kw_only=True, frozen=True):
    """Checks whose verdict flipped: with a republish of the alpha, or with a decision about
    another alpha that changed its default reference set (`cause`)."""

    type: ClassVar[str] = CHECKS_CHANGED
    figures_from: ClassVar[dict[str, str]] = {"changed": CHECKS}
    build_id: Annotated[str, doc("The build now served.")]
    previous_build_id: Annotated[
        str | None, doc("The build served before (the same build when a decision caused the change).")
    ]
    changed: Annotated[list[CheckFlip] | None, doc("Each flipped check.")]
    cause: (
        Annotated[
            str,
            doc(
                "The decision about another alpha that changed the approved set this alpha's reference-set checks "
                "are measured against (`alpha.approved of X`, `alpha.retired of X`); absent when a build caused it."
            ),
        ]
        | UnsetType
    ) = UNSET


class Decay(EventData, kw_only=True, frozen=True):
    """An approved alpha's live check that newly fails."""

    type: ClassVar[str] = DECAY
    figures_from: ClassVar[dict[str, str]] = {"failed": CHECKS}
    build_id: Annotated[str, doc("The build now served.")]
    failed: Annotated[list[FailedCheck] | None, doc("Each live check that newly fails.")]


class AlarmChart(Body, kw_only=True, frozen=True):
    """One chart of `/analytics/monitoring` as the alarm saw it."""

    series: Annotated[str, doc("book_return or ic, as /analytics/monitoring's charts.")]
    state: Annotated[str, doc("alarm, in_control or not_measurable, as /analytics/monitoring.")]
    alarms: Annotated[list[str], doc("Every live week (ISO 8601) that crossed the threshold.")]
    new_alarms: Annotated[list[str], doc("Those of `alarms` no earlier alpha.alarm announced.")]
    cusum_statistic: Annotated[float | None, doc("The statistic after the last live week.")]
    cusum_threshold: Annotated[float, doc("h: the alarm threshold.")]
    expected_weekly_mean: Annotated[float | None, doc("mu0: the level the approval expects live, per week.")]
    weekly_sd: Annotated[float | None, doc("sigma: the backtest's weekly standard deviation of the series.")]
    live_weeks: Annotated[int, doc("The live weeks charted.")]


class Alarm(EventData, kw_only=True, frozen=True):
    """An approved alpha's CUSUM crossed its threshold (docs/analytics.md, "Monitoring: CUSUM and
    false discoveries"): once per alarm week, with how often the chart would be wrong."""

    type: ClassVar[str] = ALARM
    figures_from: ClassVar[dict[str, str]] = {"charts": MONITORING}
    chart_data: ClassVar[dict[str, str]] = {"book_return": "ledger", "ic": "cross_sections"}
    """The data each chart's series is built from (a key that may not read it gets the chart null)."""
    build_id: Annotated[str, doc("The build now served (its live weeks raised the alarm).")]
    book: Annotated[str, doc("The book watched (long_short).")]
    split_date: Annotated[
        str | None, doc("The last session before the live weeks: the approval's (ISO 8601).")
    ]
    arl0_weeks: Annotated[
        float, doc("The chart's in-control average run length: weeks between false alarms.")
    ]
    false_alarm_probability_per_year: Annotated[
        float, doc("The probability that an unchanged series raises an alarm within a year.")
    ]
    expectation_basis: Annotated[
        str,
        doc(
            "Where the expected level (/analytics/expectation's expected live information ratio) comes from: "
            "literature (its own backtest, not shrunk, cut by the haircut of McLean and Pontiff) or catalogue (shrunk "
            "toward other alphas, or calibrated on the other approved alphas: the charts' figures are withheld from a "
            "key that does not read every alpha)."
        ),
    ]
    charts: Annotated[
        list[AlarmChart] | None,
        doc("Both charts, at least one with a week no earlier alpha.alarm announced."),
    ]


class Health(EventData, kw_only=True, frozen=True):
    """The weekly digest of an approved alpha (`alpha-results events digest`, run weekly): its row
    of `/v1/analytics/approved_health`, once per ISO week of our clock."""

    type: ClassVar[str] = HEALTH
    figures_from: ClassVar[dict[str, str]] = {"health": APPROVED_HEALTH}
    over_catalogue: ClassVar[tuple[str, ...]] = (
        "false_discovery_probability",
        "mmc_mean",
        "correlation_to_combined_mean",
        "expected_live_information_ratio",
        "predictive_lower",
        "predictive_upper",
        "percentile",
    )
    """The figures of `health` computed over other alphas (the prior over the deployment's decided
    alphas, the approved alphas combined, the family the expectation is shrunk toward): null for a
    key that does not read every alpha, whose own /v1/analytics/approved_health computes them over
    the alphas it may read."""
    calibrated: ClassVar[tuple[str, ...]] = (
        "cusum_state",
        "ic_cusum_state",
        "cusum_statistic",
        "last_alarm",
        *VERDICT_FIELDS,
    )
    """The figures of `health` that follow the CUSUM's expected level: over other alphas when it was
    calibrated on the catalogue (`expectation_basis`), withheld then as `over_catalogue`."""
    from_routes: ClassVar[dict[str, tuple[str, ...]]] = FROM_ROUTES
    from_cross_sections: ClassVar[tuple[str, ...]] = FROM_CROSS_SECTIONS
    week: Annotated[str, doc("The ISO week of the digest, by our clock (2026-W48).")]
    expectation_basis: Annotated[
        str, doc("literature or catalogue: where the expected live level comes from, as alpha.alarm's.")
    ]
    build_id: Annotated[str, doc("The build served when the digest was made.")]
    book: Annotated[str, doc("The book watched (long_short).")]
    arl0_weeks: Annotated[float, doc("The charts' in-control average run length (the operator's policy).")]
    false_alarm_probability_per_year: Annotated[
        float, doc("The probability that an unchanged alpha's chart alarms within a year.")
    ]
    false_discovery_basis: Annotated[str, doc("deployment or paper: what the false-discovery prior is from.")]
    health: Annotated[
        dict[str, Any] | None,
        doc("Its row of /v1/analytics/approved_health (docs/reference.md, AlphaHealth)."),
    ]


class Decided(EventData, kw_only=True, frozen=True):
    """An operator's decision (`alpha-results promote`, `retire`)."""

    type: ClassVar[str] = APPROVED
    action: Annotated[str, doc("approved or retired.")]
    as_of: Annotated[str, doc("The date it takes effect (ISO 8601).")]
    decided_by: Annotated[str, doc("Who decided.")]
    note: Annotated[str, doc("Why, in the operator's words.")]
    build_id: Annotated[str, doc("The build served when it was decided.")]
    override: Annotated[str, doc("Why a failing alpha was approved all the same (absent: it was not).")] | (
        UnsetType
    ) = UNSET
    imported_from: (
        Annotated[
            str,
            doc(
                "Where a decision recorded as an import was taken, on its earlier as_of (absent: taken when "
                "recorded); its live part starts when it was recorded all the same."
            ),
        ]
        | UnsetType
    ) = UNSET


class Retired(Decided, kw_only=True, frozen=True):
    """An alpha retired from the live book."""

    type: ClassVar[str] = RETIRED


class Nominated(EventData, kw_only=True, frozen=True):
    """An alpha put in the review queue: by its seal (`nominate` in its manifest) or by an operator.
    It approves nothing; a decision follows it."""

    type: ClassVar[str] = NOMINATED
    build_id: Annotated[str, doc("The build nominated (the one served when it was nominated).")]
    nominated_by: Annotated[str, doc("Who nominated it: `seal` (its run asked) or the operator's name.")]
    note: Annotated[str, doc("Why, in the nominator's words (the seal's nomination note).")]


class RestatedValue(Body, kw_only=True, frozen=True):
    """One published value a later run changed."""

    dataset: Annotated[
        str, doc("portfolio (a ledger session's return), decisions (a week's scores) or metrics_stored.")
    ]
    book: Annotated[str | None, doc("The ledger book (portfolio only).")]
    date: Annotated[
        str, doc("The session, the week, or the last day of the stored metric's period (ISO 8601).")
    ]
    field: Annotated[str, doc("return, scores, or the stored metric's name.")]
    period: Annotated[str | None, doc("A stored metric's scope:period (yearly:2022); null otherwise.")]
    symbol: Annotated[str | None, doc("scores: the name whose score moved most that week; null otherwise.")]
    before: Annotated[
        float | None,
        doc("The value published before (null: the session was not there, or withheld: `withheld_reason`)."),
    ]
    after: Annotated[
        float | None, doc("The value published now (null: the session is gone, or withheld as before).")
    ]
    names_changed: Annotated[int | None, doc("scores: the names whose score changed, came or went.")]
    withheld_reason: (
        Annotated[
            str,
            doc(
                "Why symbol, before and after are null for this key (access_limited: ...), as on "
                "/v1/alphas/{alpha}/restatements; absent when they are shown."
            ),
        ]
        | UnsetType
    ) = UNSET


class RestatedRawBooks(Body, kw_only=True, frozen=True):
    """The restatements of raw books and raw-only fields, apart (served only with raw-book access)."""

    count: Annotated[int, doc("How many values of raw books and fields it restated.")]
    first_date: Annotated[str, doc("The earliest of them (ISO 8601).")]
    last_date: Annotated[str, doc("The latest of them (ISO 8601).")]
    restated: Annotated[
        list[RestatedValue],
        doc(
            f"The first {RESTATED_SHOWN} of them, in date order, each with both values (or withheld, as above)."
        ),
    ]


class Restated(EventData, kw_only=True, frozen=True):
    """A build that changed values already published (docs/lake.md, "Restatements"). Its raw books'
    and raw-only fields' values are counted and listed apart, in `raw_books`, which only a key with
    raw-book access is served (docs/events.md, "What a key sees")."""

    type: ClassVar[str] = RESTATED
    figures_from: ClassVar[dict[str, str]] = {"restated": RESTATEMENTS, "raw_books": RESTATEMENTS}
    build_id: Annotated[str, doc("The build that restated them (now served).")]
    previous_build_id: Annotated[str | None, doc("The build that had published them.")]
    count: Annotated[int, doc("How many values it restated, raw books' and fields' aside (in `raw_books`).")]
    first_date: Annotated[
        str | None, doc("The earliest date restated (ISO 8601); null when only raw books' values were.")
    ]
    last_date: Annotated[
        str | None, doc("The latest date restated (ISO 8601); null when only raw books' values were.")
    ]
    restated: Annotated[
        list[RestatedValue] | None,
        doc(
            f"The first {RESTATED_SHOWN} restated values, in date order, each with both values (null with its "
            "withheld_reason for a key that may not read their data)."
        ),
    ]
    raw_books: (
        Annotated[
            RestatedRawBooks | None,
            doc(
                "The restated values of raw books (`raw_long_short`, `raw_long_only`) and raw-only fields; "
                "absent when there are none, and always for a key without raw-book access (null, named in "
                "`withheld`, for a key that may not call the restatements route)."
            ),
        ]
        | UnsetType
    ) = UNSET


class BuildRefused(EventData, kw_only=True, frozen=True):
    """A seal a build run refused (administrators only): each text a seal's own, cut at 1,000
    characters."""

    type: ClassVar[str] = BUILD_REFUSED
    seal: Annotated[str, doc("Where the seal was read.")]
    target: Annotated[str | None, doc("The alpha it would have published.")]
    rule: Annotated[str | None, doc("The first rule it broke (docs/seal.md).")]
    kind: Annotated[str | None, doc("The kind of the file that broke it.")]
    message: Annotated[str | None, doc("What was wrong.")]


class WebhookDisabled(EventData, kw_only=True, frozen=True):
    """A webhook the delivery worker disabled (for its key only)."""

    type: ClassVar[str] = WEBHOOK_DISABLED
    webhook_id: Annotated[str, doc("The webhook.")]
    url: Annotated[str, doc("Where it pointed.")]
    reason: Annotated[str, doc("Why it was disabled.")]
    event: Annotated[str, doc("The cursor of the event it could not deliver.")]
    attempts: Annotated[int, doc("Attempts made at that event.")]
    failing_since: Annotated[str, doc("When its deliveries started failing (UTC, ISO 8601).")]


EVENT_DATA: dict[str, type[EventData]] = {
    data.type: data
    for data in (
        Published,
        Republished,
        ChecksChanged,
        Decided,
        Retired,
        Nominated,
        Restated,
        Decay,
        Alarm,
        Health,
        BuildRefused,
        WebhookDisabled,
    )
}
"""Every event type and what its `data` holds, in documentation order."""

FIGURE_BLOCKS: dict[str, str] = {
    key: endpoint for data in EVENT_DATA.values() for key, endpoint in data.figures_from.items()
}
"""The keys of an event's `data` that hold figures, and the route that serves them."""


def recorded(type: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` checked against its type's Struct (a key it does not declare, a key missing, a value
    of the wrong type: `msgspec.ValidationError`; an unknown type: `KeyError`), as stored."""
    return msgspec.to_builtins(msgspec.convert(data, EVENT_DATA[type]))
