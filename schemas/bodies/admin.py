"""The operator routes' bodies (serve/routes/admin.py): an alpha's readiness, a key's usage, and a
row of the builds catalogue. Their timestamps are `utc_seconds` text without a declared format,
as the document has always said."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from msgspec import UNSET, UnsetType

from schemas.bodies.base import Body
from schemas.bodies.formats import TEXT
from schemas.bodies.identity import RateLimit, Usage


class Readiness(Body, kw_only=True, frozen=True):
    """`GET /v1/admin/alphas/{alpha}/readiness` `data`: what the served build of one alpha holds."""

    alpha_id: str
    complete: bool
    kinds_present: list[str]
    required_kinds: list[str]
    missing_kinds: list[str]
    build_id: str
    pipeline_version: str | None
    engine_version: str | None
    built_at: str | None
    sealed_at: str | None
    started_at: str | None
    has_description: bool
    source_archive: dict[str, Any] | None
    tables: dict[str, Any]


class KeyUsage(Body, kw_only=True, frozen=True):
    """`GET /v1/admin/keys/{key_id}/usage` `data`: any key's envelope and live usage."""

    key_id: str
    user_id: str
    name: str
    status: str
    revoked: bool
    expires_at: str | None
    rate_limit: RateLimit
    usage: Usage


class BuildRow(Body, kw_only=True, frozen=True):
    """A row of `GET /v1/admin/builds`: one build kept in the lake, of an alpha or a benchmark."""

    kind: Annotated[Literal["alpha", "benchmark"], TEXT]
    name: str
    build_id: str
    current: bool
    built_at: str | None
    sealed_at: str | None
    pipeline_version: str | None
    complete: bool | None
    rows: int | None
    bytes: int | None
    first_date: dt.date | None | UnsetType = UNSET
    last_date: dt.date | None | UnsetType = UNSET
