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
from dataclasses import replace

from analytics.standings import Decided, Standings
from analytics.tenure import Tenure
from schemas.bodies.decisions import CheckResult, Checks
from schemas.bodies.promotions import CheckChange, DecisionAction

DECISION_BOOK = "long_short"
"""The book a decision's checks judge (the snapshot's, the preview's)."""

REFERENCE_CHECKS = ("production_correlation", "residual_information_ratio")
"""The checks whose value depends on the approved set (the default reference set)."""
REFERENCE_SET = frozenset(REFERENCE_CHECKS)

OTHERS_CHECKED = 500
"""Alphas outside the live book whose reference-set checks a preview computes before and after (in
catalogue order, the reader's readable ones): each is two regressions and a correlation against
the approved set, so the preview stays seconds, not minutes, on a large catalogue. Beyond it the
answer counts those not checked (`others_unchecked`); the decision's `alpha.checks_changed`
events are computed the same way (docs/events.md, "Every consequence announced")."""


def next_action(latest: Decided | None) -> DecisionAction:
    """The decision that follows from the alpha's latest one: a retirement of an approved alpha, an
    approval of any other."""
    return "retired" if latest is not None and latest.action == "approved" else "approved"


def standings_after(
    standings: Standings, alpha: str, action: DecisionAction, as_of: dt.date, recorded_at: dt.datetime
) -> Standings:
    """Where every alpha stands once the decision is recorded at `recorded_at`."""
    approved = dict(standings.approved)
    tenures = dict(standings.tenures)
    if action == "approved":
        approved[alpha] = as_of
        tenures[alpha] = Tenure(approved_at=recorded_at, as_of=as_of)
    else:
        approved.pop(alpha, None)
        held = tenures.get(alpha)
        if held is not None:
            tenures[alpha] = replace(held, retired_at=recorded_at)
    retired = (standings.retired - {alpha}) | ({alpha} if action == "retired" else set())
    nominated = {a: at for a, at in standings.nominated.items() if a != alpha}
    return Standings(approved, frozenset(retired), nominated, tenures)


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


def command(alpha: str, action: DecisionAction, as_of: dt.date, verdict: str, imported: bool = False) -> str:
    """The command an operator runs to record the decision: who and why left to fill in, an
    override to justify when an approval's verdict is fail, and for an import of a decision taken
    elsewhere its day and where it was taken (a decision recorded now needs no date)."""
    verb = "promote" if action == "approved" else "retire"
    words = ["alpha-results", verb, shlex.quote(alpha)]
    if imported:
        words += ["--as-of", as_of.isoformat(), "--import", '"<where it was decided>"']
    words += ["--by", '"<who decides>"', "--note", '"<why>"']
    if action == "approved" and verdict == "fail":
        words += ["--override", '"<why approve it although its checks fail>"']
    return " ".join(words)
