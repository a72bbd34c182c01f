"""Demo identities for a fresh machine: an administrator and a self-service member, each with a key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from access.records import ADMIN_CEILING, DEFAULT_RATE_LIMIT, SELF_SERVICE_GRANTS, Grants, RateLimit
from access.store import DuplicateEmail, KeyStore

DEMO_ADMIN_EMAIL = "demo-admin@example.com"
DEMO_MEMBER_EMAIL = "demo@example.com"

LOCAL_RATE_LIMIT = RateLimit(per_second=200, per_minute=12_000, per_day=1_000_000, monthly_requests=None)
"""The demo administrator's limits: a laptop's paging loop, the client's bulk reads and the
dashboard never meet a 429 (a new key's default is 5 per second)."""


@dataclass(frozen=True)
class DemoIdentity:
    label: str
    email: str
    role: str
    key_name: str
    grants: Grants
    rate_limit: RateLimit
    can: str  # what the banner says the key can and cannot do
    cannot: str


DEMO_IDENTITIES = (
    DemoIdentity(
        "admin",
        DEMO_ADMIN_EMAIL,
        "admin",
        "demo administrator key",
        ADMIN_CEILING,
        LOCAL_RATE_LIMIT,
        can="every endpoint (admin routes included), every alpha and run, raw books and raw fields",
        cannot="nothing is withheld; limits are local-friendly",
    ),
    DemoIdentity(
        "member",
        DEMO_MEMBER_EMAIL,
        "member",
        "demo self-service key",
        SELF_SERVICE_GRANTS,
        DEFAULT_RATE_LIMIT,
        can="/v1/health, /v1/me and /v1/me/keys (a new account's self-service ceiling)",
        cannot="read alpha data (403 endpoint_not_allowed) or raw fields; it meets a 429 above 5/s",
    ),
)
"""The two demo keys `serve --init-demo` creates: an administrator to explore everything, and a
self-service member showing what a new account sees before an operator grants it more."""


def limits_text(limit: RateLimit) -> str:
    month = "unlimited" if limit.monthly_requests is None else f"{limit.monthly_requests:,}"
    return f"{limit.per_second}/s, {limit.per_minute:,}/min, {limit.per_day:,}/day, {month}/month"


def ensure_demo_identities(store: KeyStore) -> dict[str, Any] | None:
    """Create the demo accounts and keys once; return their tokens then, None on later calls.

    Returns `{"admin": {...}, "member": {...}}`, each with `email`, `user_id`, `key_id`, `token`
    (only the identities created by this call are present).
    """
    created: dict[str, Any] = {}
    for demo in DEMO_IDENTITIES:
        if store.find_account_by_email(demo.email) is not None:
            continue
        try:
            account = store.create_account(demo.email, role=demo.role)
        except DuplicateEmail:  # another process created it between our read and write
            continue
        key, token = store.create_key(
            account.user_id, demo.key_name, grants=demo.grants, rate_limit=demo.rate_limit
        )
        created[demo.label] = {
            "email": demo.email,
            "user_id": account.user_id,
            "key_id": key.key_id,
            "token": token,
        }
    return created or None
