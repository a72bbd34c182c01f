"""`/v1/alphas/{alpha}/restatements`: what later runs changed of what the lake had published
(issue 64, item 1; docs/lake.md "Restatements"), declared for the contract."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from schemas.bodies.base import Body
from schemas.bodies.formats import doc


class RestatementRow(Body, kw_only=True, frozen=True):
    """One published value a later run changed, with both values."""

    restated_at: Annotated[
        str, doc("When the restating build was published (UTC, ISO 8601), by the lake's clock.")
    ]
    build_id: Annotated[str, doc("The build that restated it.")]
    previous_build_id: Annotated[str | None, doc("The build that had published the value before.")]
    dataset: Annotated[
        str,
        doc(
            "portfolio (a ledger session's return), decisions (a week's scores) or metrics_stored (a stored "
            "metric of a closed period)."
        ),
    ]
    book: Annotated[str | None, doc("The ledger book (portfolio only); null otherwise.")]
    date: Annotated[dt.date, doc("The session, the week, or the last day of the stored metric's period.")]
    field: Annotated[str, doc("return, scores, or the stored metric's name.")]
    period: Annotated[str | None, doc("A stored metric's scope:period (yearly:2022); null otherwise.")]
    symbol: Annotated[str | None, doc("scores: the name whose score moved most that week; null otherwise.")]
    before: Annotated[
        float | None,
        doc(
            "The value published before, in the field's own unit (a return as a fraction, a score, a stored "
            "metric in its unit); null when the session was not there, or when the key may not read its data "
            "(withheld_reason)."
        ),
    ]
    after: Annotated[
        float | None,
        doc("The value published now; null when the session is gone, or withheld as before."),
    ]
    names_changed: Annotated[
        int | None, doc("scores: the names whose score changed, came or went that week; null otherwise.")
    ]
    withheld_reason: Annotated[
        str | None,
        doc("Why before and after are withheld from this key (access_limited: ...); null when they are not."),
    ]
