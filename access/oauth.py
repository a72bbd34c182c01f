"""OAuth 2.1 access tokens as a credential of an account: from a bearer JWT to a clamped `Caller`.

A token is accepted only when every rule holds (the first failure wins, each named):
signature (a key of the issuer's key set, an asymmetric algorithm) → issuer (exactly the one
configured) → audience (this server's resource URL, RFC 8707) → expiry (`exp` required, with a
small leeway for clocks) → the account it names exists and is active.

The account (`account_of`, one rule for `/mcp`'s access tokens and the dashboard's ID tokens): for
the built-in authorization server the token's `sub` is the account's `user_id` (it issued the token
for that account). For an organisation's provider, by `oauth_account_rule`:

- `subject` (the default): the account linked to the token's (`iss`, `sub`) in the key store. A
  person not linked yet is linked by their verified e-mail (`email` with `email_verified` true)
  to the account it names, once: only while that account has no link at this issuer, so a second
  subject presenting the same address (an address re-used or reassigned at the provider) is
  refused, and a later change of the person's e-mail keeps their account. Where the operator
  allows it (`oauth_create_accounts`), a person whose e-mail names no account gets one, linked.
- `email`: the verified e-mail names the account at every sign-in (no link is read or made).

Scopes map onto the account's allow-lists: `alpha-results:read` opens every non-administrative
endpoint, `alpha-results:admin` the administrative ones too; what the token may call is then
clamped to the account's ceiling exactly as a key's grants are (`access.access.build_caller`), so a
token never reads more than its account may. A token's rate envelope is the default one of a new key,
counted under the account's one credential id, shared with its dashboard sessions
(`account_credential_id`), and every request of it is also counted in the account's pooled envelope
with every key of the account (`account_pool_id`).

No HTTP here: the key set is handed in (serve/oauth fetches it from the issuer's discovery).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

import jwt

from access.access import build_caller
from access.records import DEFAULT_RATE_LIMIT, AccountRecord, Grants, KeyRecord
from access.store import KeyStore
from core import errors
from core.context import AllowList, Caller
from schemas.registry import ADMIN_IDS, ALL_IDS

READ_SCOPE = "alpha-results:read"
ADMIN_SCOPE = "alpha-results:admin"
SCOPES = (READ_SCOPE, ADMIN_SCOPE)
"""The scopes this resource understands, in the order its metadata lists them."""

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA")
"""Signature algorithms accepted: asymmetric only (never `none`, never a shared-secret HMAC, so a
key set published for verification cannot be used to forge)."""

LEEWAY_SECONDS = 30
"""Clock difference tolerated on `exp`, `nbf` and `iat`."""


@dataclass(frozen=True)
class TokenRules:
    """What a token must say to be accepted here."""

    issuer: str
    audience: str  # this server's resource URL
    builtin: bool  # `sub` is an account's user_id (the built-in server), else `account_rule` applies
    create_accounts: bool = False
    account_rule: str = "subject"  # `subject` or `email` (settings `oauth_account_rule`)


@dataclass(frozen=True)
class TokenClaims:
    subject: str
    scopes: frozenset[str]
    email: str | None
    client_id: str | None
    claims: Mapping[str, Any]


def refused(rule: str, message: str, **details: str) -> errors.InvalidApiKey:
    """The 401 of a token that breaks `rule` (named in `details.token_rule`)."""
    return errors.InvalidApiKey(
        f"The access token was refused: {message}", details={"token_rule": rule, **details}
    )


def verify_token(token: str, keys: jwt.PyJWKSet, rules: TokenRules, now: datetime) -> TokenClaims:
    """The claims of `token` after every rule of the module's docstring, or a `refused` 401."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise refused("shape", "not a signed JWT.") from None
    algorithm = header.get("alg")
    if algorithm not in ALGORITHMS:
        raise refused("signature", f"its algorithm must be one of {', '.join(ALGORITHMS)}.")
    claims = _decoded(token, _keys_of(keys, header.get("kid")), algorithm)
    # Compared after the signature: an unsigned claim is never believed.
    if claims.get("iss") != rules.issuer:
        raise refused("issuer", "it was not issued by this server's authorization server.")
    audiences = claims.get("aud")
    audiences = [audiences] if isinstance(audiences, str) else list(audiences or [])
    if rules.audience not in audiences:
        raise refused("audience", f"its audience is not this server ({rules.audience}).")
    if isinstance(claims.get("exp"), int | float) and claims["exp"] + LEEWAY_SECONDS < now.timestamp():
        raise refused("expiry", "it has expired.")
    scope_text = claims.get("scope") or claims.get("scp") or ""
    scopes = scope_text.split() if isinstance(scope_text, str) else [str(s) for s in scope_text]
    email = claims.get("email") if claims.get("email_verified") is True else None
    return TokenClaims(
        subject=str(claims["sub"]),
        scopes=frozenset(scopes),
        email=email if isinstance(email, str) else None,
        client_id=_text(claims.get("client_id") or claims.get("azp")),
        claims=claims,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _keys_of(keys: jwt.PyJWKSet, kid: Any) -> list[jwt.PyJWK]:
    """The issuer's keys the token may be signed with: the one its `kid` names, else each."""
    candidates = [k for k in keys.keys if kid is None or k.key_id == kid]
    if not candidates:
        raise refused("signature", "it is signed by a key its issuer does not publish.")
    return candidates


def _decoded(token: str, candidates: list[jwt.PyJWK], algorithm: str) -> dict[str, Any]:
    """The token's claims, its signature verified by one of `candidates` (before any claim is read)."""
    for key in candidates:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key=key.key,
                algorithms=[algorithm],
                options={"require": ["exp", "iss", "aud", "sub"], "verify_aud": False, "verify_iss": False},
                leeway=LEEWAY_SECONDS,
            )
            return claims
        except jwt.InvalidSignatureError:
            continue
        except jwt.ExpiredSignatureError:
            raise refused("expiry", "it has expired.") from None
        except jwt.MissingRequiredClaimError as missing:
            raise refused("shape", f"it lacks the {missing.claim!r} claim.") from None
        except jwt.PyJWTError:
            raise refused("shape", "it is not a valid JWT.") from None
    raise refused("signature", "its signature does not verify.")


def account_of(store: KeyStore, claims: TokenClaims, rules: TokenRules) -> AccountRecord:
    """The account a verified token (an access token or an ID token) speaks for, by the rule of the
    module's docstring, or a 401 (`token_rule: account`) / 403 `account_inactive`."""
    account: AccountRecord | None
    by_subject = not rules.builtin and rules.account_rule == "subject"
    if rules.builtin:
        account = store.get_account(claims.subject)
    elif by_subject and (linked := store.linked_account(rules.issuer, claims.subject)) is not None:
        account = store.get_account(linked)  # the e-mail it carries now plays no part
    elif claims.email is None:
        raise refused(
            "account", "it carries no verified e-mail to name an account by.", subject=claims.subject
        )
    else:
        account = store.find_account_by_email(claims.email)
        how = "email"
        if account is None and rules.create_accounts:
            account, how = store.create_account(claims.email), "created"
        if by_subject and account is not None and account.is_active:
            if not store.link_subject(rules.issuer, claims.subject, account.user_id, how):
                raise refused(
                    "account",
                    "its verified e-mail names an account that another person of this provider signs in as.",
                    subject=claims.subject,
                )
    if account is None:
        raise refused("account", "no account of this server belongs to its subject.")
    if not account.is_active:
        raise errors.AccountInactive()
    return account


def scope_grants(scopes: Iterable[str]) -> Grants:
    """The grants the scopes ask for, before the account's ceiling clamps them."""
    granted = set(scopes)
    endpoints = [i for i in ALL_IDS if i not in ADMIN_IDS] if READ_SCOPE in granted else []
    if ADMIN_SCOPE in granted:
        endpoints = list(ALL_IDS)
    return Grants(AllowList.of_ids(endpoints), AllowList.all(), AllowList.all(), expose_raw_book=True)


def account_credential_id(user_id: str) -> str:
    """The credential id an account's access tokens and dashboard sessions are counted and logged
    under, in the place of a key's `key_id` (16 characters, as one): `acc` and 13 hex digits of the
    account. One per account, whatever the token, its issuer or the session, so the rate windows,
    the monthly quota and the egress budgets a person spends through an agent's connector and
    through the dashboard are one (issue 80: the account's, whatever the credential). The key
    store is never asked for it: `/v1/me` answers such a caller from the credential (`credential:
    oauth` or `session`)."""
    return "acc" + hashlib.sha256(f"account\n{user_id}".encode()).hexdigest()[:13]


@lru_cache(maxsize=4096)
def account_pool_id(user_id: str) -> str:
    """The id an account's pooled usage is counted under (the limiter's windows and the usage
    ledger, in the place of a key's `key_id`: 16 characters, as one): `pool` and 12 hex digits of
    the account. Every admitted request of every credential of the account (each of its keys, its
    access tokens and dashboard sessions, `account_credential_id`) is counted there too, on top of
    the credential's own windows, and refused there only when the account has a pooled envelope
    (`AccountRecord.pooled_limit`; docs/access.md "One account, several credentials"). Never a
    credential: no request presents it."""
    return "pool" + hashlib.sha256(f"pool\n{user_id}".encode()).hexdigest()[:12]


def token_caller(account: AccountRecord, claims: TokenClaims, client_ip: str, now: datetime) -> Caller:
    """The clamped caller of a verified token: its scopes' grants ∩ the account's ceiling; the
    endpoints the account may call that the scopes leave out are its `step_up` (403
    `insufficient_scope` rather than a plain refusal)."""
    key = KeyRecord(
        key_id=account_credential_id(account.user_id),
        user_id=account.user_id,
        name=f"oauth:{claims.client_id or 'client'}",
        env="live",
        status="active",
        revoked_at=None,
        expires_at=None,
        grants=scope_grants(claims.scopes),
        rate_limit=DEFAULT_RATE_LIMIT,
        ip_allow=None,
        created_at=now,
    )
    caller = build_caller(key, account, client_ip)
    whole = build_caller(replace(key, grants=scope_grants(SCOPES)), account, client_ip)
    return replace(caller, credential="oauth", step_up=whole.endpoints - caller.endpoints)
