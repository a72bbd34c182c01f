"""`/v1/review`: the review queue (issue 64, item 3), declared for the contract.

The alphas standing nominated (a seal asked for review, or an operator nominated them) that the key
may read, oldest nomination first, each with the verdict of its checks now: what a head of research
works through before deciding (`alpha-results promote` or `retire`, or the written approval policy).
"""

from __future__ import annotations

from typing import Annotated

from schemas.bodies.base import Body
from schemas.bodies.figures import figure


class ReviewEntry(Body, kw_only=True, frozen=True):
    """One nominated alpha."""

    alpha: Annotated[str, figure("The alpha.")]
    nominated_at: Annotated[str, figure("When it was nominated (UTC, ISO 8601), by the records' clock.")]
    nominated_by: Annotated[str, figure("Who nominated it: seal (its run asked for review) or an operator.")]
    note: Annotated[str, figure("Why, in the nominator's words.")]
    nominated_build_id: Annotated[str, figure("The build nominated.")]
    build_id: Annotated[str, figure("The build the catalogue serves now (the checks are of it).")]
    verdict: Annotated[
        str | None,
        figure(
            "The verdict of its long_short checks now (/analytics/checks summary.verdict): pass, fail or "
            "incomplete; null when the key may not call /analytics/checks or the build has no checks."
        ),
    ]
    failed: Annotated[list[str], figure("The ids of its checks that fail now, in the battery's order.")]
    reason: Annotated[
        str | None, figure("Why the verdict is null (access_limited: ..., or what cannot be measured).")
    ]


class ReviewQueue(Body, kw_only=True, frozen=True):
    """The review queue (`/v1/review`)."""

    approval_policy: Annotated[
        str,
        figure(
            "The operator's written approval policy: never (only alpha-results promote approves) or "
            "every_check_passes (a nominated alpha whose verdict is pass is approved by the policy)."
        ),
    ]
    entries: Annotated[
        list[ReviewEntry], figure("Every nominated alpha the key may read, oldest nomination first.")
    ]
