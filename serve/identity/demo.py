"""Demo identities for a fresh machine: an administrator and a self-service member, each with a key."""

from __future__ import annotations

from typing import Any

from serve.identity.records import ADMIN_CEILING, SELF_SERVICE_GRANTS
from serve.identity.store import DuplicateEmail, KeyStore

DEMO_ADMIN_EMAIL = "demo-admin@example.com"
DEMO_MEMBER_EMAIL = "demo@example.com"


def ensure_demo_identities(store: KeyStore) -> dict[str, Any] | None:
    """Create the demo accounts and keys once; return their tokens then, None on later calls.

    Returns `{"admin": {...}, "member": {...}}`, each with `email`, `user_id`, `key_id`, `token`
    (only the identities created by this call are present).
    """
    created: dict[str, Any] = {}
    plan = (
        ("admin", DEMO_ADMIN_EMAIL, "admin", "demo administrator key", ADMIN_CEILING),
        ("member", DEMO_MEMBER_EMAIL, "member", "demo self-service key", SELF_SERVICE_GRANTS),
    )
    for label, email, role, key_name, grants in plan:
        if store.find_account_by_email(email) is not None:
            continue
        try:
            account = store.create_account(email, role=role)
        except DuplicateEmail:  # another process created it between our read and write
            continue
        key, token = store.create_key(account.user_id, key_name, grants=grants)
        created[label] = {"email": email, "user_id": account.user_id, "key_id": key.key_id, "token": token}
    return created or None
