"""`GET /v1/me` (`Me`) and the rows of `GET /v1/me/keys` (`KeyInventoryRow`), as
access/payloads.py builds them, and the envelope and live usage the administrative key
usage route shares with them. Never a secret or its hash."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, UnsetType

from schemas import units
from schemas.bodies.base import Body
from schemas.bodies.formats import TEXT, Count, Email, KeyId, Timestamp, doc
from schemas.bodies.service import REGISTRY_VERSION

KEY_ID = doc("16-character key id: the part of the token between the second underscore and the dot.")
USER_ID = doc("The key's owner.")
KEY_NAME = doc("Label given to the key at issuance.")
EXPIRES_AT = doc("When the key expires.", unit=units.TIMESTAMP, null="Null means no expiry.")
RATE_LIMIT = doc("The key's rate envelope.")
USAGE = doc("Requests counted in each window, read from the limiter that enforces them, and what remains.")
ALLOW = doc("The key's allow-lists in force (endpoints, alphas, runs), clamped to the owner's ceiling.")
FIELD_POLICY = doc("The key's field policy.")
"""The meanings of the fields `Me`, `KeyInventoryRow` and the administrative `KeyUsage` share."""


class AllowList(Body, kw_only=True, frozen=True):
    """One allow-list: every id, the ids listed, or the ids starting with a listed prefix."""

    mode: Annotated[
        Literal["all", "list", "prefix"],
        TEXT,
        doc("`all`, `list` (the ids in `ids`) or `prefix` (ids starting with a prefix)."),
    ]
    ids: (
        Annotated[list[str], doc("Ids allowed in `list` mode.", absent="Present in `list` mode.")] | UnsetType
    ) = UNSET
    prefixes: (
        Annotated[list[str], doc("Id prefixes allowed in `prefix` mode.", absent="Present in `prefix` mode.")]
        | UnsetType
    ) = UNSET


class Allow(Body, kw_only=True, frozen=True):
    """The key's allow-lists in force: endpoints, alphas, runs."""

    endpoints: Annotated[AllowList, doc("Endpoint allow-list: registry ids the key may call.")]
    alphas: Annotated[
        AllowList, doc("Alpha allow-list: alphas the key may list and whose description it may read.")
    ]
    runs: Annotated[
        AllowList,
        doc("Run allow-list: runs whose data the key may read (every `/v1/alphas/{alpha}/...` data route)."),
    ]


class FieldPolicy(Body, kw_only=True, frozen=True):
    """The key's field policy."""

    expose_raw_book: Annotated[
        bool,
        doc("Raw-book access: when false, every `raw_*` field is stripped and `raw_` books are invisible."),
    ]


class RateLimit(Body, kw_only=True, frozen=True):
    """The key's rate envelope; a null monthly quota is an unlimited month."""

    per_second: Annotated[Count, doc("Requests allowed per second.", unit=units.REQUESTS)]
    per_minute: Annotated[Count, doc("Requests allowed per minute.", unit=units.REQUESTS)]
    per_day: Annotated[Count, doc("Requests allowed per day.", unit=units.REQUESTS)]
    monthly_requests: Annotated[
        Count | None,
        doc("Monthly request quota.", unit=units.REQUESTS, null="Null means an unlimited month."),
    ]


class Usage(Body, kw_only=True, frozen=True):
    """Requests counted in each window by the enforcing limiter, and what remains of each."""

    second: Annotated[Count, doc("Requests counted in the current second.", unit=units.REQUESTS)]
    minute: Annotated[Count, doc("Requests counted in the current minute.", unit=units.REQUESTS)]
    day: Annotated[Count, doc("Requests counted in the current day.", unit=units.REQUESTS)]
    month: Annotated[Count, doc("Requests counted in the current month.", unit=units.REQUESTS)]
    remaining_second: Annotated[Count, doc("`per_second` minus usage, floored at 0.", unit=units.REQUESTS)]
    remaining_minute: Annotated[Count, doc("`per_minute` minus usage, floored at 0.", unit=units.REQUESTS)]
    remaining_day: Annotated[Count, doc("`per_day` minus usage, floored at 0.", unit=units.REQUESTS)]
    remaining_month: Annotated[
        Count | None,
        doc(
            "`monthly_requests` minus usage, floored at 0.",
            unit=units.REQUESTS,
            null="Null only with no monthly quota.",
        ),
    ]


class AccountUsage(Body, kw_only=True, frozen=True):
    """The account's pooled usage: requests of every credential of the account (its keys, access
    tokens and dashboard sessions) counted in each window, and what remains of the account's pooled
    envelope, which an operator may set on top of each credential's own."""

    second: Annotated[
        Count, doc("Requests of the account counted in the current second.", unit=units.REQUESTS)
    ]
    minute: Annotated[
        Count, doc("Requests of the account counted in the current minute.", unit=units.REQUESTS)
    ]
    day: Annotated[Count, doc("Requests of the account counted in the current day.", unit=units.REQUESTS)]
    month: Annotated[Count, doc("Requests of the account counted in the current month.", unit=units.REQUESTS)]
    remaining_second: Annotated[
        Count | None,
        doc(
            "The account's pooled per-second cap minus its usage, floored at 0.",
            unit=units.REQUESTS,
            null="Null when the account has no pooled per-second cap.",
        ),
    ]
    remaining_minute: Annotated[
        Count | None,
        doc(
            "The account's pooled per-minute cap minus its usage, floored at 0.",
            unit=units.REQUESTS,
            null="Null when the account has no pooled per-minute cap.",
        ),
    ]
    remaining_day: Annotated[
        Count | None,
        doc(
            "The account's pooled per-day cap minus its usage, floored at 0.",
            unit=units.REQUESTS,
            null="Null when the account has no pooled per-day cap.",
        ),
    ]
    remaining_month: Annotated[
        Count | None,
        doc(
            "The account's pooled monthly quota minus its usage, floored at 0.",
            unit=units.REQUESTS,
            null="Null when the account has no pooled monthly quota.",
        ),
    ]


ACCOUNT_USAGE = doc(
    "Requests of every credential of the owner's account (its keys, access tokens and dashboard "
    "sessions) counted in each window, and what remains of the account's pooled envelope: a request "
    "is admitted only when both its credential's envelope and the account's admit it."
)

Credential = Literal["key", "oauth", "session"]


class Me(Body, kw_only=True, frozen=True):
    """`GET /v1/me` `data`: the calling key, its owner and what the key may do now."""

    credential: Annotated[
        Credential,
        TEXT,
        doc(
            "What this request presented: `key` (an API key), `oauth` (an access token of the OAuth "
            "authorization server, `/mcp` only; `key_name` `oauth:<client_id>`) or `session` (a person "
            "signed in to the dashboard; `key_name` `session`). A token's and a session's `key_id` is "
            "the account's one credential id, `acc` and 13 hex digits: the account's tokens and "
            "sessions share its windows, quota and egress budgets."
        ),
    ]

    key_id: Annotated[KeyId, KEY_ID]
    key_name: Annotated[str, KEY_NAME]
    user_id: Annotated[str, USER_ID]
    email: Annotated[Email, doc("Owner's e-mail address.")]
    role: Annotated[Literal["admin", "member"], TEXT, doc("Platform role, read live.")]
    is_admin: Annotated[bool, doc("Whether the role confers admin powers.")]
    allow: Annotated[Allow, ALLOW]
    field_policy: Annotated[FieldPolicy, FIELD_POLICY]
    rate_limit: Annotated[RateLimit, RATE_LIMIT]
    usage: Annotated[Usage, USAGE]
    account_usage: Annotated[AccountUsage, ACCOUNT_USAGE]
    callable_endpoints: Annotated[list[str], doc("Registry ids the key may actually call.")]
    registry_version: Annotated[str, REGISTRY_VERSION]
    ip: Annotated[
        str,
        doc("Caller address as the service sees it (through the configured number of trusted proxy hops)."),
    ]


class KeyInventoryRow(Body, kw_only=True, frozen=True):
    """A row of `GET /v1/me/keys`: one unrevoked key of the caller's account."""

    key_id: Annotated[KeyId, KEY_ID]
    display_prefix: Annotated[
        str,
        doc("Masked token: the fixed key prefix, the environment word and a short start of the key_id."),
    ]
    name: Annotated[str, KEY_NAME]
    status: Annotated[
        Literal["active", "suspended"],
        TEXT,
        doc("`active` or `suspended`; an expired key still reads `active`; revoked keys are omitted."),
    ]
    allow: Annotated[Allow, ALLOW]
    field_policy: Annotated[FieldPolicy, FIELD_POLICY]
    rate_limit: Annotated[RateLimit, RATE_LIMIT]
    usage: Annotated[Usage, USAGE]
    expires_at: Annotated[Timestamp | None, EXPIRES_AT]
    created_at: Annotated[Timestamp, doc("When the key was issued.", unit=units.TIMESTAMP)]
