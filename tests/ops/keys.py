"""Real keys in a real key store for the ops tests: one factory with overrides."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from access import ADMIN_CEILING, Grants, RateLimit
from core.context import AllowList
from schemas.query import LIMIT_MAX

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


@dataclass
class KeyedSite:
    """A real server's base URL asked with one key or another: a response, a 200's body, every row
    of a collection (the surface walks of tests/e2e)."""

    base: str

    def get(self, key: IssuedKey, path: str, params: Any = None) -> httpx.Response:
        return httpx.get(self.base + path, params=params, headers=key.headers, timeout=120)

    def ok(self, key: IssuedKey, path: str, params: Any = None) -> Any:
        response = self.get(key, path, params)
        assert response.status_code == 200, (path, params, response.text[:500])
        return response.json()

    def sharing_profile(self, key: IssuedKey, folder: Path) -> Path:
        """A Delta Sharing profile file (PROTOCOL.md, "Profile File Format") holding `key`, in `folder`."""
        path = folder / f"{key.key_id}.share"
        document = {
            "shareCredentialsVersion": 1,
            "endpoint": f"{self.base}/delta-sharing",
            "bearerToken": key.token,
        }
        path.write_text(json.dumps(document))
        return path

    def rows(self, key: IssuedKey, path: str, **params: Any) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        while True:
            body = self.ok(key, path, {**params, "limit": LIMIT_MAX, "offset": len(rows)})
            rows += body["data"]
            if not body["pagination"]["has_more"]:
                return rows
