"""A sealed production alpha is approved by its seal at its first publish (issue 47, item 1).

"Production" is one standing: the approved set (`analytics.standings`). A research team seals an
alpha as production by its id: an id without the `Test_` prefix (docs/seal.md, "Production or
test"). So that the two agree from the start, the first publish of such an alpha the records know
of (no build event recorded for it yet) records an approval with the seal as the decider
(`decided_by` "seal", the note "sealed as production"), as of the seal's research cutoff (else
the date the catalogue first published it: `analytics.live.split_of` without an approval), with
the snapshot of its checks up to that day, as `alpha-results promote` records one. Its live part
is then what came after the cutoff, measured by the live checks, and `/promotions` shows the
decision.

Idempotent: an alpha is seeded only while the records hold no decision about it and no build
event of it, so a rebuild adds no second approval and an operator's later `retire` (or a new
approval after it) stands. The seeds are recorded before the run's build events
(`pipeline.events.record_run_events`), so a first publish's checks already judge the live part,
and the catalogue index rows follow them (their live split, and the approved set the residual
columns are measured against), as after `alpha-results promote`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

import msgspec

from alpha_results_seal.storage import Storage
from analytics.figures import Figures
from analytics.live import split_of
from analytics.policy import Policy
from analytics.standings import Standings
from datasets import catalogue_index as index_files
from pipeline import catalogue_index
from records.events import Event
from records.promotions import Promotion
from records.store import Records
from schemas.alpha_ids import is_test_alpha
from schemas.bodies.events import PUBLISHED, REPUBLISHED
from schemas.bodies.promotions import CheckSeen, PolicySeen, Snapshot

LOG = logging.getLogger(__name__)

SEAL_DECIDER = "seal"
SEAL_NOTE = "sealed as production"
BOOK = "long_short"
"""The book the seal's snapshot judges (the promotion snapshots' and the events' checks)."""
BUILDS = (PUBLISHED, REPUBLISHED)
"""The build events: an alpha with one recorded was published before the records heard of the seal."""


def sealed_as_production(alpha: str) -> bool:
    """The seal's flag: an alpha id without the `Test_` prefix, the same ids access calls
    restricted (`schemas.alpha_ids`; `access.records.RESTRICTED`: a key reads them only by an administrator's grant).
    The flag approves the alpha once, here; from then on only its standing says whether it is a
    production alpha."""
    return not is_test_alpha(alpha)


def to_seed(records: Records, alphas: Sequence[str]) -> list[str]:
    """The alphas of `alphas` whose first publish the records have not heard of, sealed as
    production and never decided on: those the seal approves now."""
    return [
        alpha
        for alpha in dict.fromkeys(alphas)
        if sealed_as_production(alpha)
        and records.promotions.latest(alpha) is None
        and records.events.latest(alpha, BUILDS) is None
    ]


def seal_snapshot(figures: Figures, alpha: str, as_of: dt.date, policy: Policy) -> tuple[str, dict[str, Any]]:
    """The served build of `alpha` and its checks up to `as_of`, as a promotion's snapshot."""
    build = figures.build(alpha)
    checks = figures.checks(alpha, policy, end=as_of, book=BOOK)
    snapshot = Snapshot(
        as_of=as_of,
        policy=msgspec.convert(msgspec.to_builtins(policy.echo()), PolicySeen),
        checks=[
            CheckSeen(id=c.id, value=c.value, unit=c.unit, verdict=c.verdict, reason=c.reason)
            for c in checks.checks
        ],
        verdict=checks.summary.verdict,
        withheld_reason=None,
        override=None,
    )
    return build.build_id, msgspec.to_builtins(snapshot)


def seed_approvals(
    records: Records, lake_root: str, alphas: Sequence[str], policy: Policy
) -> list[tuple[Promotion, Event]]:
    """Record the seal's approval of every alpha of `alphas` it approves (`to_seed`), each with its
    `alpha.approved` event, then the catalogue index rows after them; what was recorded, in order."""
    wanted = to_seed(records, alphas)
    if not wanted:
        return []
    seeded: list[tuple[Promotion, Event]] = []
    for alpha in wanted:
        figures = Figures.open(lake_root, Standings.of(records.promotions.standing()))
        try:
            view = figures.build(alpha)
        except LookupError:
            continue  # not published (a seal refused before its first build)
        as_of = split_of(view, None).date
        if as_of is None:
            continue  # no research cutoff and no publish date: nothing to approve as of
        build_id, snapshot = seal_snapshot(figures, alpha, as_of, policy)
        seeded.append(records.decide(alpha, "approved", as_of, SEAL_DECIDER, SEAL_NOTE, build_id, snapshot))
    if seeded:
        _index_follows(lake_root, records, [promotion for promotion, _ in seeded])
    return seeded


def _index_follows(lake_root: str, records: Records, seeded: list[Promotion]) -> None:
    """The seeded alphas' index rows split at their approval, and the approved set in force (the
    residual columns'), as `pipeline.promotions.index_follows` after a decision."""
    try:
        if index_files.newest(Storage(lake_root), lake_root) is None:
            return
        in_force = frozenset(Standings.of(records.promotions.standing()).approved)
        catalogue_index.record(lake_root, approvals={p.alpha_id: p.as_of for p in seeded}, in_force=in_force)
    except Exception as exc:  # the approvals are recorded: a failure here must not hide them
        LOG.warning(
            "the seal's approvals of %s are recorded, but not their catalogue index rows (%s: %s)",
            ", ".join(p.alpha_id for p in seeded),
            type(exc).__name__,
            exc,
        )
