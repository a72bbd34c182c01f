"""An operator's decision about an alpha, recorded with what was seen (`alpha-results promote`,
`alpha-results retire`), and the review queue's nominations (`alpha-results review`).

**Dated when recorded.** A decision takes effect the day it is recorded, by our clock
(`datasets.clock`); `--as-of` in the future is refused, and an earlier day only for a labelled
import of a decision taken elsewhere (`--import "where"`), whose live part still starts when it is
recorded (`analytics.tenure`).

**The snapshot** is the alpha's served build and `/analytics/checks` of its long_short book up to
the decision's day against the operator's policy: the figures the server answers
(`analytics.figures.Figures`, the same code), with the standings in force before the decision. It
says what it read (`DecisionRead`: the builds, the catalogue generation, the time the lake and the
records were read) and the request that answers the same checks again from the API (`as_of` that
time); the builds and the generation it read are pinned in the lake (`datasets.pins`), so they
are kept while the record exists.

**Every consequence announced.** Before anything is written the preview lists the alpha's verdict
and failed checks, the approved set before and after, every check of the live book that moves
and any other alpha whose reference-set checks flip (`analytics.promotion`). The decision, its
event (`alpha.approved`, `alpha.retired`) and an `alpha.checks_changed` event for every other
alpha whose verdict it flips (with `cause`) are written in one transaction
(`records.store.Records.decide`).

After the decision, the alpha's catalogue index row is recorded again with its tenure
(`pipeline.index_rows.record(..., approvals=...)`), so the screener's live columns split at it
without a rebuild: a catalogue follow-up recorded with the decision (`records.followups`), done
then, or retried until it is (`catch_up`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import msgspec

from alpha_results_seal.storage import Storage
from analytics.errors import BadParameters
from analytics.figures import Figures
from analytics.policy import BY_ID, Policy, PolicyError, load_policy
from analytics.standings import Standings
from datasets import catalogue_index as index_files
from datasets import clock, pins
from datasets.faults import LakeUnavailable
from pipeline import index_rows
from records.answers import decision_of
from records.event_log import Event
from records.followups import FollowUp
from records.nominations import Nomination
from records.promotions import Action, Promotion, PromotionRefused, dated_refusal
from records.sql import Statement, Unavailable
from records.store import Records, open_records
from schemas.bodies.decisions import CheckResult
from schemas.bodies.event_data import CHECKS_CHANGED, recorded
from schemas.bodies.promotions import (
    CheckChange,
    CheckSeen,
    DecisionRead,
    OtherAlpha,
    PolicySeen,
    PromotionPreview,
    Snapshot,
)
from schemas.bodies.review import ReviewEntry
from schemas.wire import MARKET_BENCHMARK

LOG = logging.getLogger(__name__)

CHECKS_ROUTE = "/v1/alphas/{alpha}/analytics/checks"


class DecisionRefused(Exception):
    """A decision not recorded, and why: the alpha is not published, the decision does not follow
    from the last, it is dated other than the clock allows, the checks cannot be measured up to its
    date, an approval of an alpha whose checks fail without an override, or the database cannot be
    used."""


@dataclass(frozen=True)
class DecisionRequest:
    """What an operator asks to record (`alpha-results promote`, `retire`, the build run's policy
    approvals), before it is checked and recorded as a `records.promotions.Promotion`."""

    alpha_id: str
    action: Action
    decided_by: str
    note: str
    override: str | None = None
    """Why a failing alpha is approved all the same (recorded in the snapshot and the event); an
    approval whose verdict is fail is refused without one."""
    as_of: dt.date | None = None
    """The day it takes effect: None, today (a decision is dated when it is recorded); an earlier
    day only with `imported_from`."""
    imported_from: str | None = None
    """Where a decision taken elsewhere on `as_of` was taken: it is recorded as an import."""


def standings_of(records: Records) -> Standings:
    """Where every alpha stands, as the records say now (the server reads the same)."""
    read = records.decisions_in_force()
    return Standings.of(read.latest, read.approvals, read.nominations)


@dataclass(frozen=True)
class Preview:
    """What a decision would record and change, before it is recorded (`alpha-results promote
    --dry-run` prints only this): `analytics.promotion`'s answer, the one computation the API's
    `/analytics/promotion_preview` serves, read by the pipeline with the scope that reads everything,
    and what it read (`read`)."""

    decision: DecisionRequest
    found: PromotionPreview
    read: DecisionRead
    others_builds: dict[str, str]
    """The served build of each other alpha the preview lists (what its events name)."""

    @property
    def as_of(self) -> dt.date:
        return self.found.as_of

    @property
    def build_id(self) -> str:
        return self.found.build_id

    @property
    def verdict(self) -> str:
        return self.found.verdict

    @property
    def failed(self) -> list[CheckResult]:
        return [check for check in self.found.checks if check.verdict == "fail"]

    @property
    def snapshot(self) -> dict[str, Any]:
        """What the record keeps (a `schemas.bodies.promotions.Snapshot`, as JSON)."""
        snapshot = Snapshot(
            as_of=self.as_of,
            policy=msgspec.convert(msgspec.to_builtins(self.found.policy), PolicySeen),
            checks=[
                CheckSeen(id=c.id, value=c.value, unit=c.unit, verdict=c.verdict, reason=c.reason)
                for c in self.found.checks
            ],
            verdict=self.verdict,
            withheld_reason=None,  # the record keeps everything; a key sees what its grants reach
            override=self.decision.override,
            imported_from=self.decision.imported_from,
            read=self.read,
        )
        return msgspec.to_builtins(snapshot)

    def refusal(self) -> str | None:
        """Why the decision may not be recorded as asked: an approval of a failing alpha without
        an override."""
        return None if self.decision.override else self.found.refused

    def flips(self) -> list[tuple[str, list[CheckChange]]]:
        """Every other alpha whose reference-set verdicts the decision flips, with those checks."""
        found = []
        for other in self.found.others:
            flipped = [change for change in other.changes if change.flips]
            if flipped:
                found.append((other.alpha_id, flipped))
        return found

    def lines(self) -> list[str]:
        """The preview as a person reads it: the verdict first, one line per failed check, then what
        the decision changes for the other alphas."""
        d, found = self.decision, self.found
        verb = "approve" if d.action == "approved" else "retire"
        dated = f"as of {self.as_of}" + (f", imported from {d.imported_from}" if d.imported_from else "")
        out = [
            f"{verb} {d.alpha_id} {dated} (build {self.build_id}): checks {self.verdict.upper()}"
            + (f", {len(self.failed)} failed" if self.failed else "")
        ]
        out += [f"  fail  {check.id}: {check.reason}" for check in self.failed]
        if d.override and self.verdict == "fail":
            out.append(f"  override: {d.override}")
        if found.approved_before == found.approved_after:
            return out
        before = ", ".join(found.approved_before) or "none (the default set is empty)"
        after = ", ".join(found.approved_after) or "none (the default set is empty)"
        out.append(f"the approved set every other alpha's reference set is drawn from: {before} -> {after}")
        out += _others_lines(found.others)
        if found.others_unchecked:
            out.append(
                f"  {found.others_unchecked} further alphas were not checked (a preview checks the first "
                "500 outside the live book)"
            )
        return out


def _others_lines(others: Sequence[OtherAlpha]) -> list[str]:
    """What a decision changes for the other alphas: those of the live book each, then the others
    whose checks flip."""
    out: list[str] = []
    book = [other for other in others if other.live_book]
    rest = [other for other in others if not other.live_book]
    if not book:
        out.append("  no other alpha of the live book to compare")
    for other in book:
        if not other.changes:
            out.append(f"  {other.alpha_id}: its checks do not move")
        out += [_change_line(other.alpha_id, change) for change in other.changes]
    if rest:
        out.append("other alphas whose checks flip (each gets an alpha.checks_changed event):")
        for other in rest:
            out += [_change_line(other.alpha_id, change) for change in other.changes]
    else:
        out.append("no other alpha's check flips")
    return out


def _change_line(alpha: str, change: CheckChange) -> str:
    verdict = f"FLIPS {change.before} -> {change.after}" if change.flips else f"still {change.after}"
    return f"  {alpha}  {change.check}: {_number(change.value_before)} -> {_number(change.value_after)}, {verdict}"


def _number(value: float | None) -> str:
    return "null" if value is None else f"{value:.4g}"


def preview(lake: str, records_url: str, policy_file: str, decision: DecisionRequest) -> Preview:
    """What `decision` would record and change (nothing is written); `DecisionRefused` says why it
    cannot be measured."""
    with _records(records_url) as records:
        return _preview(records, lake, policy_file, decision)


def _dated(decision: DecisionRequest, today: dt.date) -> dt.date:
    """The day the decision takes effect, or `DecisionRefused` (the clock's rule)."""
    if decision.imported_from is not None and decision.as_of is None:
        raise DecisionRefused("an import names the day the decision was taken elsewhere: --as-of YYYY-MM-DD")
    if decision.imported_from is not None and not decision.imported_from.strip():
        raise DecisionRefused("--import needs where the decision was taken")
    as_of = decision.as_of or today
    refused = dated_refusal(as_of, today, decision.imported_from is not None)
    if refused is not None:
        raise DecisionRefused(refused)
    return as_of


def _preview(records: Records, lake: str, policy_file: str, decision: DecisionRequest) -> Preview:
    alpha = decision.alpha_id
    as_of = _dated(decision, clock.now().date())
    try:
        # The standings in force before the decision: the reference set the checks route reads
        # (the approved alphas but this one), so the snapshot is that route's answer then.
        standings = standings_of(records)
        figures = Figures.open(lake, standings)
        read_at = clock.now()  # after the lake and the records were read: as_of reproduces them
        figures.build(alpha)
        # A decision that does not follow from the last is refused before any figure is computed.
        records.promotions.follows(
            alpha, decision.action, as_of, decision.decided_by, read_at, decision.imported_from is not None
        )
        found = figures.promotion_preview(alpha, policy_file, action=decision.action, effective=as_of)
    except LakeUnavailable as exc:
        raise DecisionRefused(f"the lake cannot be read: {exc}") from None
    except LookupError as exc:
        raise DecisionRefused(str(exc)) from None
    except BadParameters as exc:
        problems = "; ".join(f"{name} {rule}" for name, rule in exc.problems.items())
        raise DecisionRefused(f"the checks cannot be measured up to {as_of}: {problems}") from None
    except PolicyError as exc:
        raise DecisionRefused(str(exc)) from None
    served = figures.reader.catalogue().alphas
    others = {o.alpha_id: served[o.alpha_id].build_id for o in found.others if o.alpha_id in served}
    return Preview(decision, found, decision_read(figures, standings, alpha, found, read_at), others)


def decision_read(
    figures: Figures, standings: Standings, alpha: str, found: PromotionPreview, read_at: dt.datetime
) -> DecisionRead:
    """What the preview read (the builds, the generation, when, before the decision was recorded) and
    the request that answers its checks again, `as_of` that time (docs/events.md, "Reproducing a
    decision")."""
    catalogue = figures.reader.catalogue()
    references = {}
    for other in sorted(standings.approved):
        build = catalogue.alphas.get(other)
        if other != alpha and build is not None:
            references[other] = build.build_id
    market = figures.reader.benchmark(MARKET_BENCHMARK)
    at = read_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    query = urlencode({"book": "long_short", "to": found.as_of.isoformat(), "as_of": at})
    return DecisionRead(
        at=at,
        generation=None if catalogue.generation is None else catalogue.generation.number,
        build_id=found.build_id,
        reference_builds=references,
        benchmark_build=None if market is None else market.build_id,
        request=f"{CHECKS_ROUTE.format(alpha=alpha)}?{query}",
    )


@contextmanager
def _records(records_url: str) -> Iterator[Records]:
    """The records, closed after; what cannot be opened, used or decided is `DecisionRefused`."""
    try:
        records = open_records(records_url)
    except Unavailable as exc:
        raise DecisionRefused(f"the database cannot be opened: {exc}") from None
    try:
        yield records
    except PromotionRefused as exc:
        raise DecisionRefused(str(exc)) from None
    except Unavailable as exc:
        raise DecisionRefused(f"the database cannot be used: {exc}") from None
    finally:
        records.close()


def _consequences(found: Preview, records: Records) -> list[Statement]:
    """An `alpha.checks_changed` event for every other alpha whose verdict the decision flips."""
    statements = []
    cause = f"alpha.{found.decision.action} of {found.decision.alpha_id}"
    for other, flipped in found.flips():
        build_id = found.others_builds.get(other, "")
        data = {
            "build_id": build_id,
            "previous_build_id": build_id,
            "changed": [
                {
                    "id": change.check,
                    "before": _seen(change.check, change.value_before, change.before),
                    "after": _seen(change.check, change.value_after, change.after),
                }
                for change in flipped
            ],
            "cause": cause,
        }
        statements.append(
            records.events.statement(CHECKS_CHANGED, recorded(CHECKS_CHANGED, data), alpha_id=other)
        )
    return statements


def _seen(check: str, value: float | None, verdict: str) -> dict[str, Any]:
    return {"value": value, "unit": BY_ID[check].unit, "verdict": verdict}


def decide(
    lake: str, records_url: str, policy_file: str, decision: DecisionRequest
) -> tuple[Promotion, Event]:
    """Record `decision` with its snapshot, its event and the events of what it flips;
    `DecisionRefused` says why not (an approval of a failing alpha without an override among the
    reasons)."""
    with _records(records_url) as records:
        return record_decision(records, lake, policy_file, decision)


def record_decision(
    records: Records, lake: str, policy_file: str, decision: DecisionRequest
) -> tuple[Promotion, Event]:
    """`decide` with records already open (the build run's policy approvals); `PromotionRefused`
    and `Unavailable` are the caller's to say."""
    found = _preview(records, lake, policy_file, decision)
    refused = found.refusal()
    if refused is not None:
        raise DecisionRefused(refused)
    decided = records.decide(
        decision.alpha_id,
        decision.action,
        found.as_of,
        decision.decided_by,
        decision.note,
        found.build_id,
        found.snapshot,
        override=decision.override if found.verdict == "fail" else None,
        # The index follows the decision: recorded with it, so the records say when it has not yet.
        consequences=[
            *_consequences(found, records),
            records.followups.statement(decision.alpha_id, f"alpha.{decision.action}"),
        ],
    )
    pin_read(lake, decided[0], found.read)
    catch_up(records, lake)
    return decided


def pin_read(lake: str, decision: Promotion, read: DecisionRead) -> None:
    """Keeps what the decision read (its builds and generation) while the record exists
    (`datasets.pins`); the decision stands if the pin cannot be written (said on stderr)."""
    builds = {decision.alpha_id: read.build_id, **read.reference_builds}
    try:
        pins.pin(
            Storage(lake),
            lake,
            f"decision-{decision.id}",
            generation=read.generation,
            alphas=builds,
            benchmarks={} if read.benchmark_build is None else {MARKET_BENCHMARK: read.benchmark_build},
            reason=f"alpha.{decision.action} of {decision.alpha_id} recorded at {decision.recorded_at.isoformat()}",
        )
    except Exception as exc:  # the decision is recorded: a failure here must not hide it
        LOG.warning(
            "%s: the decision is recorded, but the builds it read are not pinned (%s: %s): they may be "
            "collected after the lake's retention",
            decision.alpha_id,
            type(exc).__name__,
            exc,
        )


@dataclass(frozen=True)
class CaughtUp:
    """What one `catch_up` did: the follow-ups it found pending and, when they stay pending, why."""

    tried: list[FollowUp]
    error: str | None = None

    def lines(self) -> list[str]:
        if not self.tried:
            return ["catalogue follow-ups: none pending"]
        if self.error is None:
            return [f"catalogue follow-ups: {len(self.tried)} done", *(f.line() for f in self.tried)]
        return [
            f"catalogue follow-ups: {len(self.tried)} still pending ({self.error})",
            *(f.line() for f in self.tried),
        ]


def catch_up(records: Records, lake: str) -> CaughtUp:
    """Runs every pending catalogue follow-up (`records.followups`): the catalogue index recorded
    against the standings in force, the live columns of the alphas the follow-ups name split at
    their tenure and every row's residual reference set the approved alphas (with the score
    neighbours and trial links the index keeps with them). A lake without an index has no row to
    follow: done. The decisions stand whatever happens here: a failure is recorded on the
    follow-ups (their attempts and error), which stay pending for the next build run or `alpha-results
    lake follow-ups`, and said on stderr."""
    try:
        pending = records.followups.pending()
    except Unavailable as exc:
        LOG.warning("the catalogue follow-ups cannot be read (%s): they are retried by the next run", exc)
        return CaughtUp([], f"the records cannot be read: {exc}")
    if not pending:
        return CaughtUp([])
    ids = [f.id for f in pending]
    alphas = list(dict.fromkeys(f.alpha_id for f in pending))
    try:
        after = standings_of(records)
        if index_files.newest(Storage(lake), lake) is not None:
            index_rows.record(
                lake, approvals={a: after.tenure(a) for a in alphas}, in_force=frozenset(after.approved)
            )
    except Exception as exc:  # the decision is recorded: a failure here must not hide it
        error = f"{type(exc).__name__}: {exc}"
        LOG.warning(
            "%s: the decision is recorded, but not the alpha's catalogue index row (%s): the screener's "
            "live columns keep their previous split, and its residual figures their set, until the "
            "follow-up is retried (the next build run, or alpha-results lake follow-ups)",
            ", ".join(alphas),
            error,
        )
        _mark(records.followups.failed, ids, error)
        return CaughtUp(pending, error)
    _mark(records.followups.done, ids)
    return CaughtUp(pending)


def _mark(mark: Callable[..., None], ids: list[int], *args: Any) -> None:
    """Records an attempt's outcome; a records database that fails now leaves the follow-ups
    pending (retried, and counted, as before)."""
    try:
        mark(ids, *args)
    except Unavailable as exc:
        LOG.warning("the catalogue follow-ups %s: their outcome cannot be recorded (%s)", ids, exc)


def follow_ups(lake: str, records_url: str) -> CaughtUp:
    """`alpha-results lake follow-ups`: `catch_up` over the deployment's records."""
    with _records(records_url) as records:
        return catch_up(records, lake)


def pending_follow_ups(records_url: str) -> list[FollowUp] | None:
    """The pending follow-ups (`alpha-results lake show`); None without a records database."""
    try:
        records = open_records(records_url, create=False)
    except Unavailable:
        return None
    try:
        return records.followups.pending()
    except Unavailable:
        return None
    finally:
        records.close()


def nominate(lake: str, records_url: str, alpha: str, by: str, note: str) -> Nomination:
    """Put `alpha` in the review queue (an operator's nomination of its served build); refused for
    an alpha the lake does not publish or one standing approved."""
    with _records(records_url) as records:
        figures = Figures.open(lake, standings_of(records))
        try:
            view = figures.build(alpha)
        except LookupError as exc:
            raise DecisionRefused(str(exc)) from None
        if alpha in figures.standings.approved:
            raise DecisionRefused(f"{alpha} stands approved: there is nothing to review (retire it first)")
        if not by.strip():
            raise DecisionRefused("say who nominates (--by)")
        nomination, _ = records.nominate(alpha, view.build_id, by, note)
        return nomination


def queue(lake: str, records_url: str, policy_file: str) -> list[QueueEntry]:
    """The review queue (`/v1/review`, read with the scope that reads everything)."""
    with _records(records_url) as records:
        found = Figures.open(lake, standings_of(records)).review(policy_file)
    return [QueueEntry(entry) for entry in found.entries]


@dataclass(frozen=True)
class QueueEntry:
    entry: ReviewEntry

    def lines(self) -> list[str]:
        e = self.entry
        verdict = (e.verdict or "not measurable").upper()
        failed = f", failing {', '.join(e.failed)}" if e.failed else ""
        rebuilt = "" if e.build_id == e.nominated_build_id else f" (nominated build {e.nominated_build_id})"
        return [
            f"{e.alpha}  nominated {e.nominated_at} by {e.nominated_by}: {e.note}",
            f"  build {e.build_id}{rebuilt}: checks {verdict}{failed}",
        ]

    def as_json(self) -> dict[str, Any]:
        return dict(msgspec.to_builtins(self.entry))


def apply_policy(lake: str, records_url: str, policy_file: str) -> list[str]:
    """The written approval policy applied to the queue (`decided_by` policy); a line per alpha."""
    with _records(records_url) as records:
        policy = load_policy(policy_file)
        if policy.approve != "every_check_passes":
            return [f"the approval policy is {policy.approve}: nothing approved by it (docs/events.md)"]
        return [
            f"approved {event.alpha_id} by the policy (every check passes)"
            for event in approve_by_policy(records, lake, policy_file, policy)
        ]


POLICY_DECIDER = "policy"
POLICY_NOTE = (
    "every check passes: the operator's written approval policy ([approval] approve = every_check_passes)"
)


def approve_by_policy(records: Records, lake_root: str, policy_file: str, policy: Policy) -> list[Event]:
    """Under the written approval policy `every_check_passes`, the approval of every alpha
    standing nominated whose checks' verdict is pass (`decided_by` policy, with its snapshot, as
    `alpha-results promote` records one); nothing under `never`."""
    if policy.approve != "every_check_passes":
        return []
    events = []
    for alpha in sorted(standings_of(records).nominated):
        decision = DecisionRequest(alpha, "approved", POLICY_DECIDER, POLICY_NOTE)
        try:
            if _preview(records, lake_root, policy_file, decision).verdict != "pass":
                continue  # a check fails or cannot be measured: it waits for an operator
            _, event = record_decision(records, lake_root, policy_file, decision)
        except (DecisionRefused, PromotionRefused):
            continue
        events.append(event)
    return events


def history(records_url: str, alpha: str) -> list[Promotion]:
    """Every decision about `alpha`, oldest first; `DecisionRefused` when the database cannot be used."""
    with _records(records_url) as records:
        return records.promotions.history(alpha)


def as_json(promotion: Promotion) -> dict[str, Any]:
    """A decision as the command line prints it: the API's `Decision` with its alpha."""
    return {"alpha_id": promotion.alpha_id, **msgspec.to_builtins(decision_of(promotion))}
