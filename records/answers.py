"""The records as the contract's Structs: what `/v1/alphas/{alpha}/promotions` serves and
`alpha-results promotions` prints (one shape for both)."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from records.promotions import Promotion
from schemas.bodies.promotions import Decision, Promotions, Snapshot


def as_recorded(snapshot: Snapshot) -> Snapshot:
    return snapshot


def decision_of(promotion: Promotion, shown: Callable[[Snapshot], Snapshot] = as_recorded) -> Decision:
    """The decision, its snapshot as `shown` shows it (as recorded: the command line's; a key's:
    `delivery.event_answers.shown_snapshot`)."""
    return Decision(
        action=promotion.action,
        as_of=promotion.as_of,
        decided_by=promotion.decided_by,
        note=promotion.note,
        build_id=promotion.build_id,
        recorded_at=promotion.recorded_at.isoformat().replace("+00:00", "Z"),
        # Written by `pipeline.promotions.snapshot_of` from the same Structs. A record kept before
        # snapshots said what was withheld, or carried an override, holds neither: nothing was.
        snapshot=shown(
            msgspec.convert({"withheld_reason": None, "override": None, **promotion.snapshot}, Snapshot)
        ),
    )


def promotions_of(
    alpha: str, history: list[Promotion], shown: Callable[[Snapshot], Snapshot] = as_recorded
) -> Promotions:
    """`alpha`'s decisions (`history`, oldest first) and where it stands."""
    last = history[-1] if history else None
    return Promotions(
        alpha=alpha,
        standing="never" if last is None else last.action,
        since=None if last is None else last.as_of,
        decisions=[decision_of(promotion, shown) for promotion in history],
    )
