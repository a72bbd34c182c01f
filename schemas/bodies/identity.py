"""`GET /v1/me` (`Me`) and the rows of `GET /v1/me/keys` (`KeyInventoryRow`), as
serve/identity/payloads.py builds them, and the envelope and live usage the administrative key
usage route shares with them. Never a secret or its hash."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, UnsetType

from schemas.bodies.base import Body
from schemas.bodies.formats import TEXT, Count, Email, KeyId, Timestamp


class AllowList(Body, kw_only=True, frozen=True):
    """One allow-list: every id, the ids listed, or the ids starting with a listed prefix."""

    mode: Annotated[Literal["all", "list", "prefix"], TEXT]
    ids: list[str] | UnsetType = UNSET
    prefixes: list[str] | UnsetType = UNSET


class Allow(Body, kw_only=True, frozen=True):
    """The key's allow-lists in force: endpoints, alphas, runs."""

    endpoints: AllowList
    alphas: AllowList
    runs: AllowList


class FieldPolicy(Body, kw_only=True, frozen=True):
    """The key's field policy."""

    expose_raw_book: bool


class RateLimit(Body, kw_only=True, frozen=True):
    """The key's rate envelope; a null monthly quota is an unlimited month."""

    per_second: Count
    per_minute: Count
    per_day: Count
    monthly_requests: Count | None


class Usage(Body, kw_only=True, frozen=True):
    """Requests counted in each window by the enforcing limiter, and what remains of each."""

    second: Count
    minute: Count
    day: Count
    month: Count
    remaining_second: Count
    remaining_minute: Count
    remaining_day: Count
    remaining_month: Count | None


class Me(Body, kw_only=True, frozen=True):
    """`GET /v1/me` `data`: the calling key, its owner and what the key may do now."""

    key_id: KeyId
    key_name: str
    user_id: str
    email: Email
    role: Annotated[Literal["admin", "member"], TEXT]
    is_admin: bool
    allow: Allow
    field_policy: FieldPolicy
    rate_limit: RateLimit
    usage: Usage
    callable_endpoints: list[str]
    registry_version: str
    ip: str


class KeyInventoryRow(Body, kw_only=True, frozen=True):
    """A row of `GET /v1/me/keys`: one unrevoked key of the caller's account."""

    key_id: KeyId
    display_prefix: str
    name: str
    status: Annotated[Literal["active", "suspended"], TEXT]
    allow: Allow
    field_policy: FieldPolicy
    rate_limit: RateLimit
    usage: Usage
    expires_at: Timestamp | None
    created_at: Timestamp
