"""The records as the contract's Structs: what `/v1/alphas/{alpha}/promotions` serves and
`alpha-results promotions` prints (one shape for both)."""

from __future__ import annotations

import msgspec

from records.promotions import Promotion
from schemas.bodies.promotions import Decision, Promotions, Snapshot


def decision_of(promotion: Promotion) -> Decision:
    return Decision(
        action=promotion.action,
        as_of=promotion.as_of,
        decided_by=promotion.decided_by,
        note=promotion.note,
        build_id=promotion.build_id,
        recorded_at=promotion.recorded_at.isoformat().replace("+00:00", "Z"),
        # Written by `pipeline.promotions.snapshot_of` from the same Structs.
        snapshot=msgspec.convert(promotion.snapshot, Snapshot),
    )


def promotions_of(alpha: str, history: list[Promotion]) -> Promotions:
    """`alpha`'s decisions (`history`, oldest first) and where it stands."""
    last = history[-1] if history else None
    return Promotions(
        alpha=alpha,
        standing="never" if last is None else last.action,
        since=None if last is None else last.as_of,
        decisions=[decision_of(promotion) for promotion in history],
    )
