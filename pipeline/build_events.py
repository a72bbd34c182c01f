"""The pipeline's events: what a build run changed, recorded once it is published (docs/events.md,
"What is recorded").

Each alpha's events say what its *served* build is, compared with what the event log last said
about it, not with what this process saw before it published: the log is the memory. So a run
that published and died before recording, a run with `--defer-index` (recorded by `lake index`),
and two runs of the same alpha at once all end with one event per build the catalogue served, in
order, and a build already recorded is never recorded twice (`record_alpha_events` is idempotent).

For one alpha whose served build differs from the last one recorded:
- `alpha.published` (the first build ever recorded) or `alpha.republished` (a later one): the
  build, its headline figures (its row of the committed catalogue index, read, not computed
  again: what `/v1/analytics/screen` serves) and its checks (`/analytics/checks` of the long_short book
  against the operator's policy: `analytics.figures.Figures.checks`, the code the API runs); a
  republish also gives every headline figure before and after and which moved beyond its
  tolerance (`TOLERANCES`);
- `alpha.checks_changed`: the checks whose verdict flipped since the last recorded build, with the
  old and the new value and verdict;
- `alpha.decay`: for an approved alpha (`records.promotions`), a live check
  (`LIVE_CHECKS`) that fails now and did not fail in the last recorded build;
- `alpha.alarm`: for an approved alpha, a CUSUM of `/analytics/monitoring` (`Figures.monitoring`,
  the code the API runs) that crossed its threshold in a live week no earlier `alpha.alarm`
  announced (`alarm_event`): both charts, every alarm week, the new ones, and the chart's
  false-alarm rate. Kept by the retention (`AUDIT_TRAIL`), so an alarm is announced once.
All of one alpha's events are written in one transaction: all or none. A refused seal is
`build.refused` (administrators only: it names what a team sent), once per refused seal of a run.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import pyarrow.compute as pc

from alpha_results_seal.printable import bounded
from analytics.figures import Figures
from analytics.policy import Policy, load_policy
from analytics.reading import Reading
from analytics.restatements import restated_of, visible
from datasets import clock
from datasets.reader import BuildView
from pipeline.build import SealResult
from pipeline.catalogue_steps import StepReport
from pipeline.operator_decisions import approve_by_policy, catch_up, standings_of
from records.event_log import Event, EventLog, event_of, in_id_order
from records.sql import Statement, Unavailable
from records.store import Records, open_records
from schemas.bodies.event_data import ALARM, AUDIT_TRAIL, HEALTH, RESTATED, RESTATED_SHOWN, recorded
from schemas.bodies.events import BUILD_REFUSED as REFUSED
from schemas.bodies.events import CHECKS_CHANGED, DECAY, PUBLISHED, REPUBLISHED
from schemas.bodies.monitoring import Monitoring
from schemas.checks import LIVE_CHECKS
from schemas.query import ApprovedHealthQuery, ExpectationQuery, LiveQuery

BUILDS = (PUBLISHED, REPUBLISHED)
"""The events that name a build: the last one of an alpha is what the next build is compared with."""

CHECKS_BOOK = "long_short"
"""The book the events' checks judge (the promotion snapshot's, `pipeline.operator_decisions`)."""


@dataclass(frozen=True)
class Tolerance:
    """A headline figure moved when |after - before| > absolute + relative * |before|."""

    absolute: float
    relative: float = 0.0

    def moved(self, before: float | None, after: float | None) -> bool:
        if before is None or after is None:
            return before is not after
        return abs(after - before) > self.absolute + self.relative * abs(before)


TOLERANCES: dict[str, Tolerance] = {
    # Annualised ratios: a tenth of a unit is what a head of research reads as a different alpha.
    "information_ratio": Tolerance(0.1),
    "excess_sharpe": Tolerance(0.1),
    "icir": Tolerance(0.1),
    # Mean weekly rank IC (as sealed): 0.005 is a tenth of a good signal's IC.
    "ic": Tolerance(0.005),
    # Percentage points of equity.
    "max_drawdown_pct": Tolerance(1.0),
    # Turnover in its unit (per_year): a tenth of it.
    "turnover": Tolerance(0.0, 0.1),
    # Counts: any change is a different history.
    "sessions": Tolerance(0.0),
    "weeks": Tolerance(0.0),
}
"""The headline figures an event carries, in this order, under the screener's names and units
(`schemas.bodies.rows.ScreenRow`), and when each counts as moved."""


def headline_of(row: dict[str, Any]) -> dict[str, float | int | None]:
    """The headline figures of a catalogue index row (non-finite as null)."""
    out: dict[str, float | int | None] = {}
    for name in TOLERANCES:
        value = row.get(name)  # the index names each as the screener does
        out[name] = value if value is None or isinstance(value, int) or math.isfinite(value) else None
    return out


def checks_of(figures: Figures, alpha: str, policy: Policy) -> dict[str, Any]:
    """Each check's value, unit and verdict (by id, the battery's order) of the served build, its
    live checks over the alpha's tenure in `figures.standings` (the one rule: `analytics.tenure`)."""
    judged = figures.checks(alpha, policy, book=CHECKS_BOOK)
    return {
        check.id: {"value": check.value, "unit": check.unit, "verdict": check.verdict}
        for check in judged.checks
    }


def build_events(
    alpha: str,
    build_id: str,
    headline: dict[str, Any],
    checks: dict[str, Any],
    last: Event | None,
    approved: bool,
) -> list[tuple[str, dict[str, Any]]]:
    """The events (type, data) saying what `build_id` changed since `last` (the alpha's last
    recorded build event; None: never recorded). Pure: what the tests check."""
    if last is None:
        return [(PUBLISHED, {"build_id": build_id, "headline": headline, "checks": checks})]
    before = last.data
    if before.get("build_id") == build_id:
        return []
    old_headline, old_checks = before.get("headline") or {}, before.get("checks") or {}
    figures = {
        name: {
            "before": old_headline.get(name),
            "after": headline.get(name),
            "moved": tolerance.moved(old_headline.get(name), headline.get(name)),
        }
        for name, tolerance in TOLERANCES.items()
    }
    events: list[tuple[str, dict[str, Any]]] = [
        (
            REPUBLISHED,
            {
                "build_id": build_id,
                "previous_build_id": before.get("build_id"),
                "headline": headline,
                "checks": checks,
                "figures": figures,
                "moved": [name for name, figure in figures.items() if figure["moved"]],
            },
        )
    ]
    flipped = [
        {"id": check, "before": old_checks.get(check), "after": now}
        for check, now in checks.items()
        if (old_checks.get(check) or {}).get("verdict") != now["verdict"]
    ]
    if flipped:
        events.append(
            (
                CHECKS_CHANGED,
                {"build_id": build_id, "previous_build_id": before.get("build_id"), "changed": flipped},
            )
        )
    failing = [
        {"id": check, **checks[check]}
        for check in LIVE_CHECKS
        if check in checks
        and checks[check]["verdict"] == "fail"
        and (old_checks.get(check) or {}).get("verdict") != "fail"
    ]
    if approved and failing:
        events.append((DECAY, {"build_id": build_id, "failed": failing}))
    return events


def alarm_event(
    watched: Monitoring, build_id: str, basis: str, earlier: Sequence[Event]
) -> tuple[str, dict[str, Any]] | None:
    """`alpha.alarm` when a chart of `watched` (the alpha's `/analytics/monitoring` at its
    approval's split) holds an alarm week no earlier `alpha.alarm` of the same split (`earlier`:
    every one recorded, which the retention keeps) announced, else None. Pure: what the tests check."""
    split = None if watched.split_date is None else watched.split_date.isoformat()
    announced: dict[str, set[str]] = {}
    for event in earlier:
        if event.data.get("split_date") != split:
            continue  # another tenure's live weeks
        for chart in event.data.get("charts") or []:
            announced.setdefault(chart["series"], set()).update(chart["alarms"])
    charts = []
    for chart in watched.charts:
        alarms = [day.isoformat() for day in chart.alarms]
        charts.append(
            {
                "series": chart.series,
                "state": chart.state,
                "alarms": alarms,
                "new_alarms": [day for day in alarms if day not in announced.get(chart.series, set())],
                "cusum_statistic": chart.cusum_statistic,
                "cusum_threshold": watched.cusum_threshold,
                "expected_weekly_mean": chart.expected_weekly_mean,
                "weekly_sd": chart.weekly_sd,
                "live_weeks": chart.live_weeks,
            }
        )
    if not any(chart["new_alarms"] for chart in charts):
        return None
    return (
        ALARM,
        {
            "build_id": build_id,
            "book": watched.book,
            "split_date": None if watched.split_date is None else watched.split_date.isoformat(),
            "arl0_weeks": watched.arl0_weeks,
            "false_alarm_probability_per_year": watched.false_alarm_probability_per_year,
            "expectation_basis": basis,
            "charts": charts,
        },
    )


def watched_alarm(
    figures: Figures, view: BuildView, policy: Policy, log: EventLog
) -> tuple[str, dict[str, Any]] | None:
    """`alarm_event` of the served build `view`: its monitoring of the events' book with the
    operator's chart (`Policy.chart`), only live (the split is the approval's: weeks first
    published after the decision was recorded)."""
    reading, q = figures.reading(policy), LiveQuery(book=CHECKS_BOOK)
    watched = reading.monitoring(view, q).data
    if not watched.live:
        return None
    return alarm_event(
        watched, view.build_id, expectation_basis(reading, view), log.every(view.alpha_id, ALARM)
    )


def expectation_basis(reading: Reading, view: BuildView) -> str:
    """Where the expected live level of `view`'s alpha comes from, as the events say it: catalogue
    when other alphas made it (its backtest shrunk toward its group, or the haircut calibrated on
    the approved alphas: `/analytics/expectation`, the one expected live level), else literature
    (its own backtest cut by the literature's haircut)."""
    answer = reading.expectation(view, ExpectationQuery()).data
    shrunk = any(series.shrinkage == "empirical_bayes" for series in answer.series)
    return "catalogue" if shrunk or answer.live_haircut.calibration == "catalogue" else "literature"


def iso_week(moment: dt.datetime) -> str:
    """The ISO week of `moment` (our clock), as a digest names it: 2026-W48."""
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def health_digest(
    records: Records, figures: Figures, policy: Policy, now: dt.datetime | None = None
) -> list[Event]:
    """`alpha.health` of each approved alpha in force not digested yet in this ISO week of our
    clock: its row of `/v1/analytics/approved_health` (`Figures.approved_health`, the code the API
    runs), so a webhook carries the book's health once a week (`alpha-results events digest`)."""
    moment = now or clock.now()
    week = iso_week(moment)
    monday = dt.datetime.combine(dt.date.fromisocalendar(*moment.isocalendar()[:2], 1), dt.time(), dt.UTC)
    pending = []
    for alpha in sorted(figures.standings.approved):
        last = records.events.latest(alpha, (HEALTH,))
        if last is None or last.data.get("week") != week:
            pending.append(alpha)
    if not pending:
        return []
    reading = figures.reading(policy)
    answer = reading.approved_health(ApprovedHealthQuery()).data
    rows = {row.alpha: row for row in answer.alphas}
    events = []
    for alpha in pending:
        row = rows.get(alpha)
        if row is None:
            continue  # not published: nothing to digest
        view = figures.build(alpha)
        data = {
            "week": week,
            "expectation_basis": expectation_basis(reading, view),
            "build_id": view.build_id,
            "book": answer.book,
            "arl0_weeks": answer.arl0_weeks,
            "false_alarm_probability_per_year": answer.false_alarm_probability_per_year,
            "false_discovery_basis": answer.false_discovery.basis,
            "health": msgspec.to_builtins(row),
        }
        # Recorded unless another run digested the alpha this week meanwhile (one transaction).
        made = records.events.append_once_since(
            HEALTH, recorded(HEALTH, data), alpha_id=alpha, since=monday, now=now
        )
        if made is not None:
            events.append(made)
    return events


def digest(lake_root: str, records_url: str, policy_file: str) -> list[Event]:
    """`alpha-results events digest`: `health_digest` of the lake with the deployment's records
    (opened, never created) and the operator's policy."""
    policy = load_policy(policy_file)
    try:
        records = open_records(records_url, create=False)
    except Unavailable as exc:
        raise RecordsUnavailable(f"the records database cannot be opened: {exc}") from None
    try:
        return health_digest(records, Figures.open(lake_root, standings_of(records)), policy)
    except Unavailable as exc:
        raise RecordsUnavailable(f"the records database cannot be used: {exc}") from None
    finally:
        records.close()


def restated_event(view: BuildView, last: Event | None) -> tuple[str, dict[str, Any]] | None:
    """`alpha.restated` of the values the served build changed of what was published (the rows its
    `restatements` table adds), or None. A build whose event is already recorded is never compared
    again (`record_alpha_events`), so a restatement is announced once. The rows of raw books and
    fields are kept apart in `raw_books` (`analytics.restatements.visible`): a key without raw-book
    access is served the event without them, its count and dates those of the rest."""
    if last is None:
        return None  # a first publish restates nothing
    rows = restated_of(view).by_build(view.build_id)
    if not rows:
        return None
    rows.sort(key=lambda row: (row["date"], row["dataset"], row.get("book") or ""))
    plain = [row for row in rows if visible(row, raw=False)]
    raw = [row for row in rows if not visible(row, raw=False)]
    data = {
        "build_id": view.build_id,
        "previous_build_id": rows[0].get("previous_build_id"),
        **_restated(plain),
    }
    if raw:
        data["raw_books"] = _restated(raw)
    return RESTATED, data


def _restated(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How many of `rows` (in date order), their first and last dates, the first RESTATED_SHOWN."""
    shown = [
        {
            "dataset": row["dataset"],
            "book": row.get("book"),
            "date": str(row["date"]),
            "field": row["field"],
            "period": row.get("period"),
            "symbol": row.get("symbol"),
            "before": _finite(row.get("before")),
            "after": _finite(row.get("after")),
            "names_changed": row.get("names_changed"),
        }
        for row in rows[:RESTATED_SHOWN]
    ]
    return {
        "count": len(rows),
        "first_date": str(rows[0]["date"]) if rows else None,
        "last_date": str(rows[-1]["date"]) if rows else None,
        "restated": shown,
    }


def _finite(value: Any) -> float | None:
    return value if isinstance(value, int | float) and math.isfinite(value) else None


def last_build_event(log: EventLog, alpha: str) -> Event | None:
    """The alpha's last `alpha.published`/`republished`: what its next build is compared with."""
    return log.latest(alpha, BUILDS)


def index_row(figures: Figures, alpha: str) -> dict[str, Any] | None:
    """`alpha`'s row of the committed catalogue index the lake's reader serves (what the screener
    lists), None when the index has none: read, not computed again from the build."""
    index = figures.reader.snapshot().catalogue.index
    if index is None:
        return None
    rows = index.filter(pc.equal(index.column("alpha_id"), alpha)).to_pylist()
    return rows[0] if rows else None


def record_alpha_events(records: Records, figures: Figures, alpha: str, policy: Policy) -> list[Event]:
    """The events of `alpha`'s served build, if it is not recorded yet (all in one transaction)."""
    build = figures.build(alpha)
    last = last_build_event(records.events, alpha)
    if last is not None and last.data.get("build_id") == build.build_id:
        return []
    row = index_row(figures, alpha)
    if row is None or row.get("build_id") != build.build_id:
        return []  # not indexed yet, or switched meanwhile: the next run records it
    held = figures.standings.tenure(alpha)
    approved = held is not None and held.in_force
    checks = checks_of(figures, alpha, policy)
    found = build_events(alpha, build.build_id, headline_of(row), checks, last, approved)
    restated = restated_event(build, last)
    if restated is not None:
        found.append(restated)
    alarm = watched_alarm(figures, build, policy, records.events) if approved else None
    if alarm is not None:
        found.append(alarm)
    statements: list[Statement] = [
        EventLog.statement(kind, recorded(kind, data), alpha_id=alpha) for kind, data in found
    ]
    if not statements:
        return []
    written = in_id_order(records.database, statements)
    return [event_of(rows[0][0]) for rows in written]


SEAL_TEXT_MAX_CHARS = 1_000
"""The most characters of one seal-supplied text an event carries (a refused seal's folder, its
target, the rule's kind and message). A seal is refused because it is wrong, so its alpha id may
be anything: a 900 KB one made one `build.refused` event 901 KB in the administrators' feed, the
stream and every webhook (issue 48). A refusal's text is a few hundred characters; the report of
`alpha-results build` and `alpha-results seal check` keeps the whole."""


def refused_events(results: Iterable[SealResult]) -> list[tuple[str, dict[str, Any]]]:
    """`build.refused` of each refused seal: the seal, its target and the rule it broke, each
    text cut to `SEAL_TEXT_MAX_CHARS` (a missing message stays null)."""
    out = []
    for result in results:
        rejection = getattr(result, "rejection", None)
        if getattr(result, "status", None) == "refused" and rejection is not None:
            found = {
                "seal": result.seal,
                "target": result.target,
                "rule": rejection.get("rule"),
                "kind": rejection.get("kind"),
                "message": rejection.get("message"),
            }
            bound = {k: v if v is None else bounded(str(v), SEAL_TEXT_MAX_CHARS) for k, v in found.items()}
            out.append((REFUSED, bound))
    return out


@dataclass(frozen=True)
class Recorded:
    events: list[Event]
    purged: int
    failed: dict[str, str]
    """Alphas whose events could not be computed, and why (recorded by the next run)."""

    def lines(self) -> list[str]:
        out = [f"event      {e.type}  {e.alpha_id or e.data.get('target', '')}" for e in self.events]
        if self.purged:
            out.append(f"events     {self.purged} older than the retention deleted")
        return out


def record_run_events(
    records: Records,
    lake_root: str,
    alphas: Sequence[str],
    results: Sequence[SealResult],
    policy_file: str,
    retention_days: int,
    now: dt.datetime | None = None,
) -> Recorded:
    """Record the events of `alphas` (this run's targets, or every alpha for `lake index`) and of
    the run's refused seals, then delete the events older than `retention_days`."""
    policy = load_policy(policy_file)
    failed: dict[str, str] = {}
    # The standings in force: the reference set of the checks route (production_correlation, the
    # residual) and every alpha's tenure, so an event's checks are that route's answer.
    figures = Figures.open(lake_root, standings_of(records))
    events: list[Event] = []
    for alpha in alphas:
        try:
            events += record_alpha_events(records, figures, alpha, policy)
        except LookupError:
            continue  # not published (a seal refused before its first build)
        except Exception as exc:  # reported; the next run reconciles this alpha
            failed[alpha] = f"{type(exc).__name__}: {exc}"
    # A run that asks for review (its seal's `nominate`) puts its alpha in the queue; the written
    # approval policy then approves a nominated alpha whose checks pass (decided_by policy).
    try:
        events += nominate_sealed(records, figures, alphas)
        events += approve_by_policy(records, lake_root, policy_file, policy)
    except Unavailable:
        raise
    except Exception as exc:  # reported; the next run nominates what this one could not
        failed["nominations"] = f"{type(exc).__name__}: {exc}"
    for kind, data in refused_events(results):
        events.append(records.events.append(kind, recorded(kind, data), audience="admin"))
    moment = now or clock.now()
    purged = records.events.purge(
        moment - dt.timedelta(days=retention_days),
        keep_latest_of=BUILDS,
        keep_all_of=AUDIT_TRAIL,
        keep_latest_each=(HEALTH,),  # a retention shorter than a week never digests one twice
    )
    return Recorded(events, purged, failed)


POLICY_DECIDER = "policy"
POLICY_NOTE = (
    "every check passes: the operator's written approval policy ([approval] approve = every_check_passes)"
)
SEAL_NOMINATOR = "seal"


def nominate_sealed(records: Records, figures: Figures, alphas: Sequence[str]) -> list[Event]:
    """A nomination of each alpha of `alphas` whose served build's seal asks for review
    (`nominate`), unless it stands approved or nominated already (a routine run of a team that
    always asks puts its alpha in the queue once, until a decision follows)."""
    standings = figures.standings
    events = []
    for alpha in dict.fromkeys(alphas):
        try:
            view = figures.build(alpha)
        except LookupError:
            continue
        if not view.entry.get("nominate") or alpha in standings.approved or alpha in standings.nominated:
            continue
        note = str(view.entry.get("nomination_note") or "the run asks for review")
        _, event = records.nominate(alpha, view.build_id, SEAL_NOMINATOR, note)
        events.append(event)
    return events


def events_step(
    records_url: str,
    named: bool,
    lake_root: str,
    alphas: Sequence[str],
    results: Sequence[SealResult],
    policy_file: str,
    retention_days: int,
) -> StepReport:
    """The build run's events as a catalogue step's report. The records are the deployment's
    (`keystore_url`): by default opened, never created, so a lake without a key store beside it
    records nothing (a line says so); `named` (`--keystore`, `ALPHA_RESULTS_KEYSTORE_URL`), they are
    created if absent, and a database that cannot be opened fails the step (the builds stand; the
    next run records what this one could not, as `record_alpha_events` compares with the log)."""
    try:
        records = open_records(records_url, create=named)
    except Unavailable as exc:
        if named:
            return StepReport("events", error=f"the records database cannot be opened: {exc}")
        return StepReport("events", [f"events     not recorded: no records database at {records_url}"])
    try:
        recorded = record_run_events(records, lake_root, alphas, results, policy_file, retention_days)
        # The catalogue follow-ups earlier decisions left pending, retried by every run.
        caught = catch_up(records, lake_root)
    except Unavailable as exc:
        return StepReport("events", error=f"the records database cannot be used: {exc}")
    finally:
        records.close()
    lines = [*recorded.lines(), *(caught.lines() if caught.tried else [])]
    if recorded.failed:
        why = "; ".join(f"{alpha}: {error}" for alpha, error in recorded.failed.items())
        return StepReport("events", lines, error=f"events not computed for {why}")
    if caught.error is not None:
        return StepReport("events", lines, error=f"catalogue follow-ups still pending: {caught.error}")
    return StepReport("events", lines)


class RecordsUnavailable(Exception):
    """The records database cannot be opened or used (the command line says why)."""


def purge(records_url: str, retention_days: int, now: dt.datetime | None = None) -> int:
    """`alpha-results events purge`: delete the events older than the retention (each alpha's
    last build event kept); how many went."""
    try:
        records = open_records(records_url, create=False)
    except Unavailable as exc:
        raise RecordsUnavailable(f"the records database cannot be opened: {exc}") from None
    try:
        moment = now or clock.now()
        return records.events.purge(
            moment - dt.timedelta(days=retention_days),
            keep_latest_of=BUILDS,
            keep_all_of=AUDIT_TRAIL,
            keep_latest_each=(HEALTH,),  # a retention shorter than a week never digests one twice
        )
    except Unavailable as exc:
        raise RecordsUnavailable(f"the records database cannot be used: {exc}") from None
    finally:
        records.close()
