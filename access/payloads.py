"""`data` of `/v1/me`, the rows of `/v1/me/keys` and the administrative key usage, as their
Structs (schemas/bodies/identity.py, admin.py); routes wrap them in the envelope.

`usage` comes from the rate limiter (a dict with the eight documented windows); `zero_usage`
gives the documented shape for a key with no traffic.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal, cast

import msgspec

from access.access import clamp
from access.records import AccountRecord, KeyRecord, RateLimit, iso
from access.tokens import display_prefix
from core.context import AllowList, Caller
from schemas.bodies.admin import KeyUsage
from schemas.bodies.identity import AccountUsage, Allow, Credential, FieldPolicy, KeyInventoryRow, Me, Usage
from schemas.bodies.identity import RateLimit as RateLimitBody

USAGE_FIELDS = (
    "second",
    "minute",
    "day",
    "month",
    "remaining_second",
    "remaining_minute",
    "remaining_day",
    "remaining_month",
)


Role = Literal["admin", "member"]
KeyStatus = Literal["active", "suspended"]


def zero_usage(rate_limit: RateLimit) -> dict[str, int | None]:
    """Usage of a key with no requests counted yet: remaining = the whole envelope."""
    return {
        "second": 0,
        "minute": 0,
        "day": 0,
        "month": 0,
        "remaining_second": rate_limit.per_second,
        "remaining_minute": rate_limit.per_minute,
        "remaining_day": rate_limit.per_day,
        "remaining_month": rate_limit.monthly_requests,
    }


def _usage(usage: Mapping[str, int | None]) -> Usage:
    missing = [f for f in USAGE_FIELDS if f not in usage]
    if missing:
        raise ValueError(f"usage lacks {', '.join(missing)}")
    return msgspec.convert({f: usage[f] for f in USAGE_FIELDS}, Usage)


def _account_usage(usage: Mapping[str, int | None]) -> AccountUsage:
    missing = [f for f in USAGE_FIELDS if f not in usage]
    if missing:
        raise ValueError(f"account usage lacks {', '.join(missing)}")
    return msgspec.convert({f: usage[f] for f in USAGE_FIELDS}, AccountUsage)


def _allow(allow: Mapping[str, Any]) -> Allow:
    """The allow-lists as stored (`Grants.allow_to_wire`), as the answer's Struct."""
    return msgspec.convert(allow, Allow)


def _rate_limit(rate_limit: Mapping[str, int | None]) -> RateLimitBody:
    return msgspec.convert(rate_limit, RateLimitBody)


# The parts of `/v1/me` that are a function of the key's allow-lists and envelope, made once per
# value (frozen Structs and a tuple, shared by the answers that hold them): every request of a key
# asks the same ones (issue 49, item 1).
@lru_cache(maxsize=1024)
def _allow_of(endpoints: AllowList, alphas: AllowList, runs: AllowList) -> Allow:
    return _allow({"endpoints": endpoints.to_wire(), "alphas": alphas.to_wire(), "runs": runs.to_wire()})


@lru_cache(maxsize=1024)
def _rate_limit_of(rate_limit: tuple[tuple[str, int | None], ...]) -> RateLimitBody:
    return _rate_limit(dict(rate_limit))


@lru_cache(maxsize=1024)
def _sorted_endpoints(endpoints: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(endpoints))


def me_payload(
    caller: Caller,
    key_record: KeyRecord | None,
    usage: Mapping[str, int | None],
    rate_limit: Mapping[str, int | None] | None,
    registry_version: str,
    account_usage: Mapping[str, int | None],
) -> Me:
    """`GET /v1/me` `data`. `rate_limit` is the envelope the limiter enforces (the key's when None;
    an access token's caller has no key record, and is always given it); `account_usage`, the
    account's pooled usage (`Limiter.usage` of its pooled id)."""
    if rate_limit is None:
        assert key_record is not None
        rate_limit = key_record.rate_limit.to_wire()
    return Me(
        credential=cast(Credential, caller.credential),
        key_id=caller.key_id,
        key_name=caller.key_name,
        user_id=caller.user_id,
        email=caller.email,
        role=cast(Role, caller.role),  # one of ROLES: the store refuses any other
        is_admin=caller.is_admin,
        allow=_allow_of(caller.endpoint_allow, caller.alphas, caller.runs),
        field_policy=FieldPolicy(expose_raw_book=caller.expose_raw_book),
        rate_limit=_rate_limit_of(tuple(rate_limit.items())),
        usage=_usage(usage),
        account_usage=_account_usage(account_usage),
        callable_endpoints=list(_sorted_endpoints(caller.endpoints)),
        registry_version=registry_version,
        ip=caller.ip,
    )


def key_inventory_row(
    key_record: KeyRecord, account: AccountRecord, usage: Mapping[str, int | None]
) -> KeyInventoryRow:
    """One `GET /v1/me/keys` row: allow-lists clamped to the owner's ceiling now, no secret."""
    effective = clamp(key_record.grants, account)
    created_at = iso(key_record.created_at)
    assert created_at is not None  # every key has one
    return KeyInventoryRow(
        key_id=key_record.key_id,
        display_prefix=display_prefix(key_record.env, key_record.key_id),
        name=key_record.name,
        status=cast(KeyStatus, key_record.status),  # one of KEY_STATUSES, as stored
        allow=_allow(effective.allow_to_wire()),
        field_policy=FieldPolicy(expose_raw_book=effective.expose_raw_book),
        rate_limit=_rate_limit(key_record.rate_limit.to_wire()),
        usage=_usage(usage),
        expires_at=iso(key_record.expires_at),
        created_at=created_at,
    )


def key_usage(
    key_record: KeyRecord, usage: Mapping[str, int | None], account_usage: Mapping[str, int | None]
) -> KeyUsage:
    """`data` of the administrative `/v1/admin/keys/{key_id}/usage`: the key's usage, and its
    account's pooled usage."""
    return KeyUsage(
        key_id=key_record.key_id,
        user_id=key_record.user_id,
        name=key_record.name,
        status=key_record.status,
        revoked=key_record.is_revoked,
        expires_at=iso(key_record.expires_at),
        rate_limit=_rate_limit(key_record.rate_limit.to_wire()),
        usage=_usage(usage),
        account_usage=_account_usage(account_usage),
    )
