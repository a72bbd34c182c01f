"""Test callers: one factory with overrides, and an authenticator that maps a bearer token to one.

Data-endpoint tests use these instead of the key store, so they do not depend on it; the key
store itself is exercised end to end in tests/identity and tests/access.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from core import errors
from core.context import AllowList, Caller
from schemas.registry import ADMIN_IDS, ALL_IDS
from serve.auth import Authenticator

DATA_IDS = frozenset(i for i in ALL_IDS if i not in ADMIN_IDS)


def make_caller(**overrides: Any) -> Caller:
    """A member key that may call every data endpoint on every alpha, without raw access."""
    base = Caller(
        key_id="k" * 16,
        key_name="test key",
        user_id="u_test",
        email="test@example.com",
        role="member",
        is_admin=False,
        endpoints=DATA_IDS,
        endpoint_allow=AllowList.all(),
        alphas=AllowList.all(),
        runs=AllowList.all(),
        expose_raw_book=False,
        ip="127.0.0.1",
        rate_limit={"per_second": 10**6, "per_minute": 10**6, "per_day": 10**7, "monthly_requests": None},
    )
    return replace(base, **overrides)


def authenticator_for(callers: Mapping[str, Caller]) -> Authenticator:
    """`Authorization: Bearer <name>` authenticates as `callers[name]`, seen from the client address."""

    def authenticate(authorization: str | None, client_ip: str, now: datetime) -> Caller:
        if authorization is None:
            raise errors.MissingApiKey(headers={"WWW-Authenticate": "Bearer"})
        caller = callers.get(authorization.removeprefix("Bearer ").strip())
        if caller is None:
            raise errors.InvalidApiKey()
        return replace(caller, ip=client_ip)

    return authenticate
