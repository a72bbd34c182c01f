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
from dataclasses import dataclass
from typing import Any

import msgspec

from alpha_results_seal.storage import Storage
from analytics.errors import BadParameters
from analytics.figures import Figures
from analytics.policy import PolicyError, load_policy
from analytics.standings import Standings
from datasets import catalogue_index as index_files
from pipeline import catalogue_index
from records.answers import decision_of
from records.events import Event
from records.promotions import Action, Promotion, PromotionRefused
from records.sql import Unavailable
from records.store import open_records
from schemas.bodies.promotions import CheckSeen, PolicySeen, Snapshot

LOG = logging.getLogger(__name__)


class DecisionRefused(Exception):
    """A decision not recorded, and why: the alpha is not published, the decision does not follow
    from the last, the checks cannot be measured up to its date, or the database cannot be used."""


@dataclass(frozen=True)
class Decision:
    alpha_id: str
    action: Action
    as_of: dt.date
    decided_by: str
    note: str


def snapshot_of(
    figures: Figures, alpha: str, as_of: dt.date, policy_file: str, approved: dt.date | None = None
) -> tuple[str, dict[str, Any]]:
    """The served build of `alpha` and what its checks said over its history up to `as_of` (a
    `schemas.bodies.promotions.Snapshot`, as JSON: what the record keeps and the API serves);
    `approved`: the as_of of the alpha's latest approval before this decision (the live checks')."""
    build = figures.build(alpha)
    policy = load_policy(policy_file)
    checks = figures.checks(alpha, policy, approved=approved, end=as_of)
    snapshot = Snapshot(
        as_of=as_of,
        policy=msgspec.convert(msgspec.to_builtins(policy.echo()), PolicySeen),
        checks=[
            CheckSeen(id=c.id, value=c.value, unit=c.unit, verdict=c.verdict, reason=c.reason)
            for c in checks.checks
        ],
        verdict=checks.summary.verdict,
        withheld_reason=None,  # the record keeps everything; a key sees what its grants reach
    )
    return build.build_id, msgspec.to_builtins(snapshot)


def decide(lake: str, records_url: str, policy_file: str, decision: Decision) -> tuple[Promotion, Event]:
    """Record `decision` with its snapshot and its event; `DecisionRefused` says why not."""
    try:
        records = open_records(records_url)
    except Unavailable as exc:
        raise DecisionRefused(f"the database cannot be opened: {exc}") from None
    try:
        try:
            before = records.promotions.approval(decision.alpha_id)
        except Unavailable as exc:
            raise DecisionRefused(f"the database cannot be used: {exc}") from None
        approved = None if before is None else before.as_of
        try:
            # The standings in force before the decision: the reference set the checks route reads
            # (the approved alphas but this one), so the snapshot is that route's answer that day.
            figures = Figures.open(lake, Standings.of(records.promotions.standing()))
            build_id, snapshot = snapshot_of(
                figures, decision.alpha_id, decision.as_of, policy_file, approved
            )
        except LookupError as exc:
            raise DecisionRefused(str(exc)) from None
        except BadParameters as exc:
            problems = "; ".join(f"{name} {rule}" for name, rule in exc.problems.items())
            raise DecisionRefused(
                f"the checks cannot be measured up to {decision.as_of}: {problems}"
            ) from None
        except PolicyError as exc:
            raise DecisionRefused(str(exc)) from None
        decided = records.decide(
            decision.alpha_id,
            decision.action,
            decision.as_of,
            decision.decided_by,
            decision.note,
            build_id,
            snapshot,
        )
        try:
            in_force: frozenset[str] | None = frozenset(Standings.of(records.promotions.standing()).approved)
        except Unavailable:
            in_force = None  # the decision is recorded; the index keeps the set it had
    except PromotionRefused as exc:
        raise DecisionRefused(str(exc)) from None
    except Unavailable as exc:
        raise DecisionRefused(f"the database cannot be used: {exc}") from None
    finally:
        records.close()
    # The approval in force after the decision: this one, or the one a retirement ends.
    index_follows(
        lake, decision.alpha_id, decision.as_of if decision.action == "approved" else approved, in_force
    )
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
    try:
        records = open_records(records_url)
    except Unavailable as exc:
        raise DecisionRefused(f"the database cannot be opened: {exc}") from None
    try:
        return records.promotions.history(alpha)
    except Unavailable as exc:
        raise DecisionRefused(f"the database cannot be used: {exc}") from None
    finally:
        records.close()


def as_json(promotion: Promotion) -> dict[str, Any]:
    """A decision as the command line prints it: the API's `Decision` with its alpha."""
    return {"alpha_id": promotion.alpha_id, **msgspec.to_builtins(decision_of(promotion))}
