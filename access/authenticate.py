"""Authentication: from an `Authorization` header to a clamped `Caller`, or one named error.

Check order (the first failure wins):
missing → shape and checksum → lookup by key_id and the secret's SHA-256 → constant-time secret
comparison → revoked → suspended → expired → account inactive → IP allow-list.
Key and account come from the store; the server's request path asks its identity cache
(access/cache.py, `authenticate_async`), which every change of a key or an account
invalidates.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from access.access import build_caller, ip_allowed
from access.records import AccountRecord, Credentials, KeyRecord, as_utc
from access.store import KeyStore
from access.tokens import (
    TOKEN_LIKE,
    ParsedToken,
    hash_secret,
    parse_token,
    redact_tokens,
    secret_matches,
)
from core import errors
from core.context import Caller

if TYPE_CHECKING:
    from access.cache import IdentityCache

log = logging.getLogger("access")

CHALLENGE = {"WWW-Authenticate": "Bearer"}

QUERY_KEY_PARAMETERS = frozenset({"api_key", "apikey", "api-key", "key", "token", "access_token"})
"""Query parameter names under which clients commonly (and wrongly) send keys."""


def bearer_token(authorization: str | None) -> str:
    """The token of `Authorization: Bearer <token>`; any other or empty header is a missing key."""
    if authorization is None:
        raise errors.MissingApiKey(headers=dict(CHALLENGE))
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise errors.MissingApiKey(headers=dict(CHALLENGE))
    return token


def reject_key_in_query(query: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
    """Refuse any request that carries a key in its query string, even with a valid header.

    Raises 401 `missing_api_key` (with the Bearer challenge) naming the parameter, never its value:
    a key in a URL ends up in proxy and browser logs, so the request is refused outright.
    """
    items = query.items() if isinstance(query, Mapping) else query
    for name, value in items:
        if name.lower() in QUERY_KEY_PARAMETERS or TOKEN_LIKE.search(name) or TOKEN_LIKE.search(str(value)):
            raise errors.MissingApiKey(
                "API keys are accepted only in the Authorization: Bearer header, never in the query "
                "string; treat a key sent in a URL as leaked and revoke it.",
                details={"parameter": redact_tokens(name)},
                headers=dict(CHALLENGE),
            )


def standing_refusal(key: KeyRecord, account: AccountRecord, now: datetime) -> type[errors.ApiError] | None:
    """Why a key whose secret matched may not make requests, in the documented order (revoked,
    suspended, expired, account inactive); None when it may. Signed download URLs ask it too."""
    for refused, error in (
        (key.is_revoked, errors.KeyRevoked),
        (key.status == "suspended", errors.KeySuspended),
        (key.is_expired(as_utc(now)), errors.KeyExpired),
        (not account.is_active, errors.AccountInactive),
    ):
        if refused:
            return error
    return None


def authenticate(store: KeyStore, authorization: str | None, client_ip: str, now: datetime) -> Caller:
    parsed = parse_token(bearer_token(authorization))
    # Looked up by key_id and the secret's hash together: a wrong secret finds no row, exactly as
    # an unknown key_id does, so the two cost the same.
    credentials = store.find_credentials(parsed.key_id, hash_secret(parsed.secret))
    return admit(parsed, credentials, client_ip, now)


async def authenticate_async(
    cache: IdentityCache, authorization: str | None, client_ip: str, now: datetime
) -> Caller:
    """`authenticate` on the event loop: from the identity cache when it holds the key, else the
    store is read (in a worker thread when that means network I/O)."""
    parsed = parse_token(bearer_token(authorization))
    credentials = await cache.find_credentials_async(parsed.key_id, hash_secret(parsed.secret))
    return admit(parsed, credentials, client_ip, now)


def admit(parsed: ParsedToken, credentials: Credentials | None, client_ip: str, now: datetime) -> Caller:
    """The caller of a presented token, given what the store holds for its key_id and secret hash."""
    if credentials is None:
        log.debug("authentication failed: unknown key_id=%s or wrong secret", parsed.key_id)
        raise errors.InvalidApiKey()
    # Defence in depth: the stored hash is compared again, in constant time.
    if not secret_matches(parsed.secret, credentials.secret_sha256):
        log.debug("authentication failed: wrong secret for key_id=%s", parsed.key_id)
        raise errors.InvalidApiKey()
    key, account = credentials.key, credentials.account
    if key.env != parsed.env:
        raise errors.InvalidApiKey()
    refused = standing_refusal(key, account, now)
    if refused is not None:
        raise refused()
    if not ip_allowed(key.ip_allow, client_ip):
        raise errors.IpNotAllowed(details={"ip": client_ip})
    return credentials.caller(client_ip, build_caller)
