"""The bodies every route shares, and the health body: the error envelope (serve/envelope.py
`error_response`), `pagination`, a `meta.warnings` entry, the stat entry of analytics figures,
and `GET /v1/health` (serve/routes/meta.py `health_body`, served without an envelope).

`Warning` and `StatEntry` are built in more than one place, not always with their keys in one
order (`kind_missing` warnings put `kind` before `message`, `/metrics` ones `message` before
`block`; a not-measurable stat entry puts `withheld_reason` after `status`, combined turnover
`approximation` before `periods_per_year`); they keep the order the document has always listed.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from msgspec import UNSET, UnsetType

from schemas import wire
from schemas.bodies.base import Body
from schemas.bodies.formats import TEXT, Timestamp, one_of


class ErrorBody(Body, kw_only=True, frozen=True):
    """The `error` object of a failure."""

    code: str
    message: str
    details: dict[str, Any]
    request_id: str


class Error(Body, kw_only=True, frozen=True):
    """The body of every failure: `{error: {...}}`."""

    error: ErrorBody


class Pagination(Body, kw_only=True, frozen=True):
    """`pagination` of a collection: the page applied and whether another follows."""

    limit: int
    offset: int
    returned: int
    total: int
    has_more: bool


class Warning(Body, kw_only=True, frozen=True):
    """An entry of `meta.warnings`: a part of the answer degraded, and why."""

    code: Annotated[str, one_of(wire.WARNING_CODES)]
    block: str | UnsetType = UNSET
    kind: str | UnsetType = UNSET
    message: str | UnsetType = UNSET


class StatEntry(Body, kw_only=True, frozen=True):
    """An analytics figure in the `/metrics` stat-entry shape (docs/analytics.md)."""

    value: float | None
    unit: str | None
    status: Annotated[Literal["available", "not_measurable"], TEXT]
    source: str
    annualisation: Annotated[Literal["annualised", "per_period", "not_annualisable"], TEXT]
    withheld_reason: str | UnsetType = UNSET
    periods_per_year: int | UnsetType = UNSET
    approximation: str | UnsetType = UNSET


class HealthLake(Body, kw_only=True, frozen=True):
    """Damage found in the lake's builds."""

    degraded_alphas: dict[str, str]


class Health(Body, kw_only=True, frozen=True):
    """The body of `GET /v1/health` (no envelope)."""

    outside_envelope: ClassVar[bool] = True

    status: Annotated[Literal["ok", "degraded"], TEXT]
    service: str
    environment: str
    version: str
    registry_version: str
    time: Timestamp
    down: list[str] | UnsetType = UNSET
    lake: HealthLake | UnsetType = UNSET
    worker: str | UnsetType = UNSET
