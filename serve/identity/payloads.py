"""Wire objects of `/v1/me` and `/v1/me/keys`; routes wrap them in the envelope.

`usage` comes from the rate limiter (a dict with the eight documented windows); `zero_usage`
gives the documented shape for a key with no traffic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from serve.context import Caller
from serve.identity.access import clamp
from serve.identity.records import AccountRecord, KeyRecord, RateLimit, iso
from serve.identity.tokens import display_prefix

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


def _usage(usage: Mapping[str, int | None]) -> dict[str, int | None]:
    missing = [f for f in USAGE_FIELDS if f not in usage]
    if missing:
        raise ValueError(f"usage lacks {', '.join(missing)}")
    return {f: usage[f] for f in USAGE_FIELDS}


def me_payload(
    caller: Caller,
    key_record: KeyRecord,
    usage: Mapping[str, int | None],
    rate_limit: Mapping[str, int | None] | None,
    registry_version: str,
) -> dict[str, Any]:
    """`GET /v1/me` `data`. `rate_limit` is the envelope the limiter enforces (the key's when None)."""
    return {
        "key_id": caller.key_id,
        "key_name": caller.key_name,
        "user_id": caller.user_id,
        "email": caller.email,
        "role": caller.role,
        "is_admin": caller.is_admin,
        "allow": {
            "endpoints": caller.endpoint_allow.to_wire(),
            "alphas": caller.alphas.to_wire(),
            "runs": caller.runs.to_wire(),
        },
        "field_policy": {"expose_raw_book": caller.expose_raw_book},
        "rate_limit": dict(rate_limit) if rate_limit is not None else key_record.rate_limit.to_wire(),
        "usage": _usage(usage),
        "callable_endpoints": sorted(caller.endpoints),
        "registry_version": registry_version,
        "ip": caller.ip,
    }


def key_inventory_row(
    key_record: KeyRecord, account: AccountRecord, usage: Mapping[str, int | None]
) -> dict[str, Any]:
    """One `GET /v1/me/keys` row: allow-lists clamped to the owner's ceiling now, no secret."""
    effective = clamp(key_record.grants, account)
    return {
        "key_id": key_record.key_id,
        "display_prefix": display_prefix(key_record.env, key_record.key_id),
        "name": key_record.name,
        "status": key_record.status,
        "allow": effective.allow_to_wire(),
        "field_policy": {"expose_raw_book": effective.expose_raw_book},
        "rate_limit": key_record.rate_limit.to_wire(),
        "usage": _usage(usage),
        "expires_at": iso(key_record.expires_at),
        "created_at": iso(key_record.created_at),
    }
