"""An operator's decision about an alpha, recorded with what was seen (`alpha-results promote`,
`alpha-results retire`).

The snapshot is the alpha's served build and `/analytics/checks` of its long_short book over its
history up to the decision's date, against the operator's policy: the figures the server answers
(`analytics.figures.Figures.checks`, the same code), so the record says exactly what the checks
said that day. The live checks see the approval in force before the decision: none for a first
approval (not_applicable), the approval being ended for a retirement (its live part up to the
retirement's date). The decision and its event (`alpha.approved`, `alpha.retired`) are written in
one transaction (`records.store.Records.decide`).

After the decision, the alpha's catalogue index row is recorded again with the approval in force
(`pipeline.catalogue_index.record(..., approvals=...)`), so the screener's live columns split at
the approval without a rebuild.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import msgspec

from alpha_results_seal.storage import Storage
from analytics import promotion
from analytics.errors import BadParameters
from analytics.figures import Figures
from analytics.policy import PolicyError
from analytics.standings import Standings
from datasets import catalogue_index as index_files
from datasets.faults import LakeUnavailable
from pipeline import catalogue_index
from records.answers import decision_of
from records.events import Event
from records.promotions import Action, Promotion, PromotionRefused
from records.sql import Unavailable
from records.store import Records, open_records
from schemas.bodies.decisions import CheckResult
from schemas.bodies.promotions import CheckSeen, PolicySeen, PromotionPreview, Snapshot

LOG = logging.getLogger(__name__)


class DecisionRefused(Exception):
    """A decision not recorded, and why: the alpha is not published, the decision does not follow
    from the last, the checks cannot be measured up to its date, an approval of an alpha whose
    checks fail without an override, or the database cannot be used."""


@dataclass(frozen=True)
class Decision:
    alpha_id: str
    action: Action
    as_of: dt.date | None
    """The date it takes effect; None: the alpha's last session (its served build's long_short
    ledger), the last day its checks can be measured to."""
    decided_by: str
    note: str
    override: str | None = None
    """Why a failing alpha is approved all the same (recorded in the snapshot and the event); an
    approval whose verdict is fail is refused without one."""


@dataclass(frozen=True)
class Preview:
    """What a decision would record and change, before it is recorded (`alpha-results promote
    --dry-run` prints only this): `analytics.promotion`'s answer, the one computation the API's
    `/analytics/promotion_preview` serves, read by the pipeline with the scope that reads everything
    (the verdict, each failed check, and for the other alphas the approved set their default
    reference set is drawn from, before and after, with the checks of the live book that move, and
    whether they flip)."""

    decision: Decision
    found: PromotionPreview

    @property
    def as_of(self) -> dt.date:
        return self.found.as_of

    @property
    def approval_before(self) -> dt.date | None:
        """The as_of of the alpha's latest approval before the decision (the live checks' split)."""
        return self.found.approval_before

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
        )
        return msgspec.to_builtins(snapshot)

    def refusal(self) -> str | None:
        """Why the decision may not be recorded as asked: an approval of a failing alpha without
        an override."""
        return None if self.decision.override else self.found.refused

    def lines(self) -> list[str]:
        """The preview as a person reads it: the verdict first, one line per failed check, then what
        the decision changes for the other alphas."""
        d, found = self.decision, self.found
        verb = "approve" if d.action == "approved" else "retire"
        out = [
            f"{verb} {d.alpha_id} as of {self.as_of} (build {self.build_id}): checks {self.verdict.upper()}"
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
        if not found.others:
            out.append("  no other alpha of the live book to compare")
        for other in found.others:
            if not other.changes:
                out.append(f"  {other.alpha_id}: its checks do not move")
            for change in other.changes:
                verdict = (
                    f"FLIPS {change.before} -> {change.after}" if change.flips else f"still {change.after}"
                )
                out.append(
                    f"  {other.alpha_id}  {change.check}: {_number(change.value_before)} -> "
                    f"{_number(change.value_after)}, {verdict}"
                )
        return out


def _number(value: float | None) -> str:
    return "null" if value is None else f"{value:.4g}"


def preview(lake: str, records_url: str, policy_file: str, decision: Decision) -> Preview:
    """What `decision` would record and change (nothing is written); `DecisionRefused` says why it
    cannot be measured."""
    with _records(records_url) as records:
        return _preview(records, lake, policy_file, decision)


def _preview(records: Records, lake: str, policy_file: str, decision: Decision) -> Preview:
    before = records.promotions.approval(decision.alpha_id)
    approved = None if before is None else before.as_of
    alpha = decision.alpha_id
    as_of = decision.as_of
    try:
        # The standings in force before the decision: the reference set the checks route reads
        # (the approved alphas but this one), so the snapshot is that route's answer that day.
        figures = Figures.open(lake, Standings.of(records.promotions.standing()))
        view = figures.build(alpha)
        as_of = as_of or promotion.last_session(view)
        if as_of is None:
            raise DecisionRefused(f"{alpha} has no long_short ledger: name the decision's date with --as-of")
        # A decision that does not follow from the last is refused before any figure is computed.
        records.promotions.follows(alpha, decision.action, as_of, decision.decided_by)
        found = figures.promotion_preview(
            alpha, policy_file, action=decision.action, approved=approved, as_of=as_of
        )
    except LakeUnavailable as exc:
        raise DecisionRefused(f"the lake cannot be read: {exc}") from None
    except LookupError as exc:
        raise DecisionRefused(str(exc)) from None
    except BadParameters as exc:
        problems = "; ".join(f"{name} {rule}" for name, rule in exc.problems.items())
        raise DecisionRefused(f"the checks cannot be measured up to {as_of}: {problems}") from None
    except PolicyError as exc:
        raise DecisionRefused(str(exc)) from None
    return Preview(decision, found)


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


def decide(lake: str, records_url: str, policy_file: str, decision: Decision) -> tuple[Promotion, Event]:
    """Record `decision` with its snapshot and its event; `DecisionRefused` says why not (an
    approval of a failing alpha without an override among the reasons)."""
    with _records(records_url) as records:
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
        )
        try:
            in_force: frozenset[str] | None = frozenset(Standings.of(records.promotions.standing()).approved)
        except Unavailable:
            in_force = None  # the decision is recorded; the index keeps the set it had
    # The approval in force after the decision: this one, or the one a retirement ends.
    approved = found.as_of if decision.action == "approved" else found.approval_before
    index_follows(lake, decision.alpha_id, approved, in_force)
    return decided


def index_follows(
    lake: str, alpha: str, approved: dt.date | None, in_force: frozenset[str] | None = None
) -> None:
    """The alpha's catalogue index row, its live columns split at `approved` (the screener's), and
    the approved alphas `in_force` after the decision, the default reference set of every row's
    residual columns. The decision stands whatever happens here: a lake without an index has no
    row to follow, and a row that cannot be written is said on stderr (the screener keeps its
    previous split and residual figures until the alpha's next decision; `lake index` keeps the
    approval split of the rows it replaces and the approved set the index records)."""
    if approved is None and in_force is None:
        return
    try:
        if index_files.newest(Storage(lake), lake) is None:
            return
        catalogue_index.record(
            lake, approvals={} if approved is None else {alpha: approved}, in_force=in_force
        )
    except Exception as exc:  # the decision is recorded: a failure here must not hide it
        LOG.warning(
            "%s: the decision is recorded, but not the alpha's catalogue index row (%s: %s): the screener's "
            "live columns keep their previous split, and its residual figures their set, until the next decision",
            alpha,
            type(exc).__name__,
            exc,
        )


def history(records_url: str, alpha: str) -> list[Promotion]:
    """Every decision about `alpha`, oldest first; `DecisionRefused` when the database cannot be used."""
    with _records(records_url) as records:
        return records.promotions.history(alpha)


def as_json(promotion: Promotion) -> dict[str, Any]:
    """A decision as the command line prints it: the API's `Decision` with its alpha."""
    return {"alpha_id": promotion.alpha_id, **msgspec.to_builtins(decision_of(promotion))}
