"""`/v1/alphas/{alpha}/promotions`: the operator's decisions about an alpha, oldest first
(docs/events.md, "Promotions"), declared for the contract.

Each decision is kept as recorded by `alpha-results promote` or `retire`: its date, who decided and
why, the build the catalogue served then, and a snapshot of `/analytics/checks` of the long_short
book over the alpha's history up to that date against the operator's policy of that day.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal, get_args

from schemas.bodies.base import Body
from schemas.bodies.decisions import CheckResult, Policy
from schemas.bodies.figures import figure

Standing = Literal["approved", "nominated", "retired", "never"]
STANDINGS: tuple[Standing, ...] = get_args(Standing)
"""Where an alpha stands, in the order documents list them."""


class CheckSeen(Body, kw_only=True, frozen=True):
    """One check as the decision saw it."""

    id: Annotated[str, figure("The check's id, as /analytics/checks.")]
    value: Annotated[
        float | None,
        figure("Its value up to the decision's date, in its unit (see unit); null when not measurable."),
    ]
    unit: Annotated[str, figure("Unit of value.")]
    verdict: Annotated[str, figure("pass, fail or not_measurable.")]
    reason: Annotated[
        str,
        figure(
            "The comparison in words, as /analytics/checks reason; for a check withheld from this key, why "
            "(access_limited: ...)."
        ),
    ]


class PolicySeen(Body, kw_only=True, frozen=True):
    """The operator's policy as the decision saw it."""

    origin: Annotated[str, figure("defaults (the documented thresholds) or operator (the policy file)")]
    thresholds: Annotated[
        dict[str, dict[str, float]], figure("Check id -> its bounds that day: {min}, {max} or both.")
    ]


class DecisionRead(Body, kw_only=True, frozen=True):
    """What a decision read, so that it can be reproduced from the API (docs/events.md,
    "Reproducing a decision")."""

    at: Annotated[
        str,
        figure(
            "When the lake and the records were read (UTC, ISO 8601), before the decision was recorded: the "
            "as_of of the request that reproduces the snapshot."
        ),
    ]
    generation: Annotated[int | None, figure("The catalogue generation read.")]
    build_id: Annotated[str, figure("The alpha's build the checks were measured on.")]
    reference_builds: Annotated[
        dict[str, str],
        figure("The builds of the approved alphas the reference-set checks were measured against."),
    ]
    benchmark_build: Annotated[str | None, figure("SPY's build (the residual's regressor); null when none.")]
    request: Annotated[
        str,
        figure(
            "The request that answers the snapshot's checks again (a key that reads every alpha): the route, the "
            "book, the window and as_of (the builds served and the decisions recorded then)."
        ),
    ]


class Snapshot(Body, kw_only=True, frozen=True):
    """What was seen when deciding."""

    as_of: Annotated[dt.date, figure("The last day the checks were measured up to (the decision's as_of).")]
    policy: Annotated[PolicySeen, figure("The operator's policy that day.")]
    checks: Annotated[list[CheckSeen], figure("Every check, in the battery's order.")]
    verdict: Annotated[
        str | None,
        figure(
            "The overall verdict that day, as /analytics/checks summary.verdict: pass, fail or incomplete; "
            "null when withheld from this key (withheld_reason says why)."
        ),
    ]
    withheld_reason: Annotated[
        str | None,
        figure(
            "Why the verdict (and, without /analytics/checks, every check) is withheld from this key: the "
            "checks were computed with the pipeline's view of every alpha, and a key sees only what its own "
            '/analytics/checks would answer (docs/security.md, "Stored figures"); null when nothing is.'
        ),
    ]

    override: Annotated[
        str | None,
        figure(
            "Why the alpha was approved although its checks failed (alpha-results promote --override), in the "
            "operator's words; null when the verdict did not fail or for a retirement."
        ),
    ]
    imported_from: Annotated[
        str | None,
        figure(
            "Where a decision recorded as an import was taken (alpha-results promote --import), on its earlier "
            "as_of; null when it was taken when recorded."
        ),
    ]
    read: Annotated[
        DecisionRead | None,
        figure(
            "What the decision read and the request that answers the same checks again: the builds, the catalogue "
            "generation and the time the lake and the records were read (null in a record kept before it)."
        ),
    ]


class Decision(Body, kw_only=True, frozen=True):
    """One decision, as recorded (never changed)."""

    action: Annotated[
        Literal["approved", "retired"], figure("approved into the live book, or retired from it.")
    ]
    as_of: Annotated[
        dt.date, figure("The date the decision takes effect (an approval's is where the live part starts)")
    ]
    decided_by: Annotated[str, figure("Who decided, as the operator recorded it.")]
    note: Annotated[str, figure("Why, in the operator's words.")]
    build_id: Annotated[str, figure("The build the catalogue served when it was decided.")]
    recorded_at: Annotated[
        str,
        figure(
            "When it was recorded (UTC, ISO 8601), by the records' clock: an approval's live part is the sessions first published after it."
        ),
    ]
    snapshot: Annotated[Snapshot, figure("What the checks said up to as_of against the policy of that day.")]
    served_build_id: Annotated[
        str | None,
        figure(
            "The build the catalogue serves now when it is not the one decided on (the figures shown today are "
            "of another build than the decision's); null when it is the same."
        ),
    ]


class Nomination(Body, kw_only=True, frozen=True):
    """One nomination: the alpha put in the review queue (it approves nothing)."""

    nominated_by: Annotated[str, figure("Who nominated it: seal (its run asked) or the operator's name.")]
    note: Annotated[str, figure("Why, in the nominator's words.")]
    build_id: Annotated[str, figure("The build nominated.")]
    recorded_at: Annotated[str, figure("When it was recorded (UTC, ISO 8601).")]


class Promotions(Body, kw_only=True, frozen=True):
    """An alpha's promotion history (`/v1/alphas/{alpha}/promotions`)."""

    alpha: Annotated[str, figure("The alpha.")]
    standing: Annotated[
        Standing,
        figure(
            "Where it stands: approved (the latest decision approved it), nominated (in the review queue: "
            "nominated since its latest decision), retired, or never (no decision)"
        ),
    ]
    since: Annotated[dt.date | None, figure("as_of of the latest decision; null when never decided.")]
    decisions: Annotated[list[Decision], figure("Every decision, oldest first.")]
    nominations: Annotated[list[Nomination], figure("Every nomination, oldest first.")]


DecisionAction = Literal["approved", "retired"]


class CheckChange(Body, kw_only=True, frozen=True):
    """A check of another alpha whose value the decision changes (its default reference set does)."""

    check: Annotated[str, figure("The check's id, as /analytics/checks (a check over the reference set).")]
    before: Annotated[str, figure("Its verdict with the standings before the decision.")]
    after: Annotated[str, figure("Its verdict with the standings after the decision.")]
    value_before: Annotated[
        float | None, figure("Its value before, in the check's unit; null when not measurable.")
    ]
    value_after: Annotated[
        float | None, figure("Its value after, in the check's unit; null when not measurable.")
    ]
    flips: Annotated[bool, figure("Whether the verdict changes (before differs from after).")]


class OtherAlpha(Body, kw_only=True, frozen=True):
    """Another alpha whose reference-set checks the decision moves."""

    alpha_id: Annotated[str, figure("The other alpha (one the caller may read).")]
    live_book: Annotated[
        bool,
        figure(
            "Whether it is in the live book (approved before or after the decision): its checks are listed "
            "with every value that moves; any other alpha is listed only when a verdict flips."
        ),
    ]
    changes: Annotated[
        list[CheckChange],
        figure(
            "Its reference-set checks whose value or verdict moves (outside the live book: whose verdict "
            "flips); empty: its checks do not move."
        ),
    ]


class PromotionPreview(Body, kw_only=True, frozen=True):
    """What the alpha's next decision would record and change, before anything is recorded: what
    `alpha-results promote --dry-run` (or `retire --dry-run`) says, in the caller's scope."""

    alpha: Annotated[str, figure("The alpha.")]
    action: Annotated[
        DecisionAction,
        figure(
            "The decision previewed: approved (promote) when the alpha is not approved, retired when it is "
            "(the only decision that follows from its last)."
        ),
    ]
    as_of: Annotated[
        dt.date,
        figure(
            "The date the decision would take effect: today (a decision is dated when it is recorded), or the "
            "earlier day asked (effective) of an import of a decision taken elsewhere."
        ),
    ]
    imported: Annotated[
        bool,
        figure(
            "Whether it previews an import (as_of before today: recorded with alpha-results promote --import); "
            "its live part would still start when it is recorded."
        ),
    ]
    approval_before: Annotated[
        dt.date | None,
        figure("as_of of the alpha's latest approval before the decision; null when never approved."),
    ]
    approval_recorded_at: Annotated[
        str | None,
        figure(
            "When that approval was recorded (UTC, ISO 8601): its live part is the sessions first published after "
            "it; null when never approved."
        ),
    ]
    build_id: Annotated[str, figure("The build the catalogue serves, which the decision would record.")]
    verdict: Annotated[
        str,
        figure(
            "The checks' overall verdict up to as_of, as /analytics/checks summary.verdict of the long_short "
            "book for this caller: pass, fail or incomplete."
        ),
    ]
    refused: Annotated[
        str | None,
        figure(
            "Why the decision would be refused as previewed (an approval of a failing alpha without "
            "--override); null when it would be recorded."
        ),
    ]
    policy: Annotated[Policy, figure("The operator's policy the checks are judged against.")]
    checks: Annotated[
        list[CheckResult],
        figure(
            "Every check up to as_of, in the battery's order (the failed ones are those with verdict fail)."
        ),
    ]
    approved_before: Annotated[
        list[str],
        figure(
            "The approved alphas the caller may read before the decision: the set every other alpha's default "
            "reference set is drawn from (empty: the default reference set is empty)."
        ),
    ]
    approved_after: Annotated[list[str], figure("The same set after the decision.")]
    others: Annotated[
        list[OtherAlpha],
        figure(
            "The other alphas the caller may read whose reference-set checks the decision moves: those of the "
            "live book (the approved ones, before or after: the production alphas) with every value that moves, "
            "then any other whose verdict flips, each group in id order. Alphas the caller may not read are "
            "neither named nor counted."
        ),
    ]
    others_unchecked: Annotated[
        int,
        figure(
            "Alphas the caller may read, outside the live book, whose reference-set checks were not computed: "
            "beyond the first 500 (in catalogue order) a preview checks; 0 on a catalogue of up to 500 more."
        ),
    ]
    command: Annotated[
        str,
        figure(
            "The command an operator runs to record the decision (who decided and why to fill in; "
            "--override when the verdict is fail)."
        ),
    ]
