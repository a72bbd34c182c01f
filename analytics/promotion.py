"""A decision's preview: what approving (or retiring) an alpha would record and change, before it
is recorded (issue 47). One computation for `alpha-results promote --dry-run` (the pipeline, which
reads everything) and `/analytics/promotion_preview` (the dashboard's "Promote preview", in the
key's scope): `analytics.reading.Reading.promotion_preview` assembles it from the pieces here.

What it holds: the alpha's checks of its long_short book up to the decision's date (the verdict,
each failed check and why), and for the other alphas of the live book the approved set their
default reference set is drawn from, before and after, with each reference-set check that moves
and whether its verdict flips. Figures know no records: the standings before the decision and the
alpha's latest decision are data (`analytics.standings`).
"""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Collection

from analytics import inputs
from analytics.standings import Decided, Standings
from datasets.reader import BuildView
from schemas.bodies.decisions import CheckResult, Checks
from schemas.bodies.promotions import CheckChange, DecisionAction

DECISION_BOOK = "long_short"
"""The book a decision's checks judge (the snapshot's, the preview's)."""

REFERENCE_CHECKS = ("production_correlation", "residual_information_ratio")
"""The checks whose value depends on the approved set (the default reference set)."""


def last_session(view: BuildView) -> dt.date | None:
    """The last session of the alpha's long_short ledger (a decision's default `as_of`); None when
    the build has no such ledger."""
    ledger = inputs.ledger(view, DECISION_BOOK)
    if ledger is None or ledger.days.size == 0:
        return None
    return dt.date(1970, 1, 1) + dt.timedelta(days=int(ledger.days[-1]))


def next_action(latest: Decided | None) -> DecisionAction:
    """The decision that follows from the alpha's latest one: a retirement of an approved alpha, an
    approval of any other."""
    return "retired" if latest is not None and latest.action == "approved" else "approved"


def too_early(alpha: str, latest: Decided | None, as_of: dt.date) -> str | None:
    """Why a decision as of `as_of` does not follow from the latest one (an earlier date), or None:
    the rule `records.promotions.Promotions.follows` applies when the decision is recorded."""
    if latest is not None and as_of < latest.as_of:
        return f"is before the last decision about {alpha} ({latest.as_of})"
    return None


def standings_after(standings: Standings, alpha: str, action: DecisionAction, as_of: dt.date) -> Standings:
    """Where every alpha stands once the decision is recorded."""
    approved = dict(standings.approved)
    if action == "approved":
        approved[alpha] = as_of
    else:
        approved.pop(alpha, None)
    retired = standings.retired | ({alpha} if action == "retired" else set())
    return Standings(approved, frozenset(retired))


def live_book(before: Standings, after: Standings) -> list[str]:
    """The alphas a decision is shown against: the approved ones (the production alphas), before
    and after: the live book, bounded by it rather than by the catalogue (in id order)."""
    return sorted({*before.approved, *after.approved})


def changes(now: Checks, then: Checks) -> list[CheckChange]:
    """The reference-set checks whose value or verdict differs between two answers of one alpha's
    checks (the standings before and after)."""
    before = {c.id: c for c in now.checks}
    after = {c.id: c for c in then.checks}
    return [
        CheckChange(
            check=check,
            before=before[check].verdict,
            after=after[check].verdict,
            value_before=before[check].value,
            value_after=after[check].value,
            flips=before[check].verdict != after[check].verdict,
        )
        for check in REFERENCE_CHECKS
        if check in before
        and check in after
        and (before[check].verdict != after[check].verdict or moved(before[check].value, after[check].value))
    ]


def moved(before: float | None, after: float | None) -> bool:
    """A value that changed beyond rounding (the same figure over a set of the same returns in
    another order differs in its last bits)."""
    if before is None or after is None:
        return before is not after
    return abs(after - before) > 1e-12 * max(1.0, abs(before))


def refusal(
    alpha: str, action: DecisionAction, verdict: str, failed: Collection[CheckResult], as_of: dt.date
) -> str | None:
    """Why the decision would be refused without an override: an approval of a failing alpha."""
    if action != "approved" or verdict != "fail":
        return None
    ids = ", ".join(check.id for check in failed)
    return (
        f"{alpha} fails {len(failed)} check(s) ({ids}) up to {as_of}: not approved. "
        'To approve it all the same, say why: --override "reason" (recorded with the decision)'
    )


def command(alpha: str, action: DecisionAction, as_of: dt.date, verdict: str) -> str:
    """The command an operator runs to record the decision: who and why left to fill in, and an
    override to justify when an approval's verdict is fail."""
    verb = "promote" if action == "approved" else "retire"
    words = ["alpha-results", verb, shlex.quote(alpha), "--as-of", as_of.isoformat()]
    words += ["--by", '"<who decides>"', "--note", '"<why>"']
    if action == "approved" and verdict == "fail":
        words += ["--override", '"<why approve it although its checks fail>"']
    return " ".join(words)
