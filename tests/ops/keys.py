"""Real keys in a real key store for the ops tests: one factory with overrides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from access import ADMIN_CEILING, Grants, RateLimit
from core.context import AllowList

DATA_GRANTS = Grants(AllowList.all(), AllowList.all(), AllowList.all(), expose_raw_book=False)
ROOMY = RateLimit(per_second=1000, per_minute=100_000, per_day=1_000_000, monthly_requests=None)


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    token: str
    user_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def issue_key(
    store: Any,
    *,
    role: str = "member",
    rate_limit: RateLimit = ROOMY,
    email: str | None = None,
    grants: Grants | None = None,
) -> IssuedKey:
    """A new account (admins get every endpoint, members every data endpoint) and one key."""
    import uuid

    account = store.create_account(email or f"{uuid.uuid4().hex[:10]}@example.com", role=role)
    if role == "member":
        account = store.set_account_ceiling(account.user_id, DATA_GRANTS)
    chosen = grants or (ADMIN_CEILING if role == "admin" else DATA_GRANTS)
    key, token = store.create_key(account.user_id, "ops test key", grants=chosen, rate_limit=rate_limit)
    return IssuedKey(key.key_id, token, account.user_id)
