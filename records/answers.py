"""The records as the contract's Structs: what `/v1/alphas/{alpha}/promotions` serves and
`alpha-results promotions` prints (one shape for both)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from records.nominations import Nomination
from records.promotions import Promotion
from schemas.bodies.promotions import Decision, Promotions, Snapshot, Standing
from schemas.bodies.promotions import Nomination as NominationBody


def as_recorded(snapshot: Snapshot) -> Snapshot:
    return snapshot


def decision_of(
    promotion: Promotion,
    shown: Callable[[Snapshot], Snapshot] = as_recorded,
    served_build_id: str | None = None,
) -> Decision:
    """The decision, its snapshot as `shown` shows it (as recorded: the command line's; a key's:
    `delivery.event_answers.shown_snapshot`); `served_build_id`: the build served now (None: not
    known), said when it is not the one decided on."""
    return Decision(
        action=promotion.action,
        as_of=promotion.as_of,
        decided_by=promotion.decided_by,
        note=promotion.note,
        build_id=promotion.build_id,
        recorded_at=promotion.recorded_at.isoformat().replace("+00:00", "Z"),
        # Written by `pipeline.operator_decisions.snapshot_of` from the same Structs. A record kept before
        # snapshots said what was withheld, or carried an override, holds neither: nothing was.
        snapshot=shown(
            msgspec.convert(
                {
                    "withheld_reason": None,
                    "override": None,
                    "imported_from": None,
                    "read": None,
                    **promotion.snapshot,
                },
                Snapshot,
            )
        ),
        served_build_id=None if served_build_id in (None, promotion.build_id) else served_build_id,
    )


def promotions_of(
    alpha: str,
    history: list[Promotion],
    shown: Callable[[Snapshot], Snapshot] = as_recorded,
    nominations: Sequence[Nomination] = (),
    served_build_id: str | None = None,
) -> Promotions:
    """`alpha`'s decisions (`history`, oldest first), its nominations, and where it stands:
    nominated when its latest nomination follows its latest decision."""
    last = history[-1] if history else None
    nominated = nominations[-1] if nominations else None
    standing: Standing = "never" if last is None else last.action
    if (
        nominated is not None
        and standing != "approved"
        and (last is None or last.recorded_at < nominated.recorded_at)
    ):
        standing = "nominated"
    return Promotions(
        alpha=alpha,
        standing=standing,
        since=None if last is None else last.as_of,
        decisions=[decision_of(promotion, shown, served_build_id) for promotion in history],
        nominations=[
            NominationBody(
                nominated_by=n.nominated_by,
                note=n.note,
                build_id=n.build_id,
                recorded_at=n.recorded_at.isoformat().replace("+00:00", "Z"),
            )
            for n in nominations
        ],
    )
