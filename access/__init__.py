"""Identity and access: API key tokens, the key store, authentication and allow-list clamping.

The app uses `open_store(url)`, the identity cache over it (`access.cache`) with
`access.authenticate.authenticate_async`, `reject_key_in_query`, `me_payload`,
`key_inventory_row` and `ensure_demo_identities`; `authenticate(store, header, client_ip, now)`
reads a store directly. See docs/access.md.
"""

from access.access import build_caller, callable_endpoints, clamp, ip_allowed
from access.authenticate import authenticate, bearer_token, reject_key_in_query
from access.backends import open_store
from access.demo import DEMO_ADMIN_EMAIL, DEMO_MEMBER_EMAIL, ensure_demo_identities
from access.payloads import key_inventory_row, me_payload, zero_usage
from access.records import (
    ADMIN_CEILING,
    DEFAULT_RATE_LIMIT,
    SELF_SERVICE_GRANTS,
    AccountRecord,
    Grants,
    KeyRecord,
    RateLimit,
)
from access.store import (
    DEFAULT_KEYSTORE_URL,
    IdentityError,
    KeyStore,
    KeyStoreUnavailable,
)

__all__ = [
    "ADMIN_CEILING",
    "DEFAULT_KEYSTORE_URL",
    "DEFAULT_RATE_LIMIT",
    "DEMO_ADMIN_EMAIL",
    "DEMO_MEMBER_EMAIL",
    "SELF_SERVICE_GRANTS",
    "AccountRecord",
    "Grants",
    "IdentityError",
    "KeyRecord",
    "KeyStore",
    "KeyStoreUnavailable",
    "RateLimit",
    "authenticate",
    "bearer_token",
    "build_caller",
    "callable_endpoints",
    "clamp",
    "ensure_demo_identities",
    "ip_allowed",
    "key_inventory_row",
    "me_payload",
    "open_store",
    "reject_key_in_query",
    "zero_usage",
]
