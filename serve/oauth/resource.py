"""`/mcp` as an OAuth 2.1 protected resource (RFC 9728, RFC 8707, RFC 6750).

- Its metadata, at `/.well-known/oauth-protected-resource` and at the path-suffixed form
  `/.well-known/oauth-protected-resource/mcp`: the resource URL, the authorization server, the
  scopes (`access.oauth.SCOPES`).
- Its challenge: a 401 on `/mcp` names the metadata (`WWW-Authenticate: Bearer
  resource_metadata="..."`, with `error="invalid_token"` when a token was refused); a tool the
  token's scopes leave out is 403 with `error="insufficient_scope"` and the scope that opens it.
- Its tokens: a bearer that is not an API key is a JWT checked by `access.oauth.verify_token`
  against the issuer's keys: the built-in server's own, or those the organisation's provider
  publishes (its discovery document's `jwks_uri`, read at the first token and again when a token
  names a key it does not hold, at most once a minute).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx2 as httpx
import jwt
from anyio import to_thread

from access.oauth import (
    ADMIN_SCOPE,
    READ_SCOPE,
    SCOPES,
    TokenClaims,
    TokenRules,
    account_of,
    token_caller,
    verify_token,
)
from access.tokens import TOKEN_PREFIX
from core import errors
from core.context import Caller
from core.settings import Settings

log = logging.getLogger("serve.oauth")

METADATA_PATH = "/.well-known/oauth-protected-resource"
BUILTIN = "builtin"
KEYS_REFRESH_SECONDS = 60.0
"""The shortest interval between two reads of an organisation's key set (a token naming an unknown
key makes the next read; a flood of such tokens makes one a minute)."""


def is_api_key(token: str) -> bool:
    """Whether a bearer token is one of this server's API keys rather than an access token."""
    return token.startswith(TOKEN_PREFIX + "_")


@dataclass
class IssuerKeys:
    """An issuer's signing keys and the verification of its tokens by them: the built-in server's
    (`fixed`, never read again), else those the issuer publishes (its discovery document's
    `jwks_uri`), read at the first token and again when a token names a key not held, at most once
    every `KEYS_REFRESH_SECONDS` (the provider rotated its keys). One holder for `/mcp`'s access
    tokens and for the dashboard's ID tokens (serve/oauth/dashboard.py)."""

    issuer: str
    keys: jwt.PyJWKSet | None = None  # the built-in server's, or the issuer's last read
    fixed: bool = False
    read_at: float = 0.0
    discovery: dict[str, Any] | None = None  # the issuer's discovery document, read once

    async def verified(self, token: str, rules: TokenRules, now: datetime) -> TokenClaims:
        """`verify_token` by the keys held; a signature no key held verifies is checked once more
        against the issuer's keys read again (rotation)."""
        keys = await self.key_set(refresh=False)
        try:
            return verify_token(token, keys, rules, now)
        except errors.InvalidApiKey as refused:
            if refused.details.get("token_rule") != "signature" or self.fixed:
                raise
            fresh = await self.key_set(refresh=True)
            if fresh is keys:
                raise
            return verify_token(token, fresh, rules, now)

    async def document(self) -> dict[str, Any]:
        """The issuer's discovery document (`discover`), read once."""
        if self.discovery is None:
            async with httpx.AsyncClient(timeout=10, follow_redirects=False) as http:
                self.discovery = await discover(http, self.issuer)
        return self.discovery

    async def key_set(self, refresh: bool) -> jwt.PyJWKSet:
        """The issuer's keys: the built-in server's, else the issuer's as last read."""
        stale = time.monotonic() - self.read_at > KEYS_REFRESH_SECONDS
        if self.keys is not None and (self.fixed or not (refresh and stale)):
            return self.keys
        try:
            jwks_uri = (await self.document())["jwks_uri"]
            async with httpx.AsyncClient(timeout=10, follow_redirects=False) as http:
                answer = await http.get(jwks_uri)
                answer.raise_for_status()
                self.keys = jwt.PyJWKSet.from_dict(answer.json())
        except (httpx.HTTPError, KeyError, ValueError, jwt.PyJWTError) as failed:
            log.warning("the key set of %s could not be read: %s", self.issuer, failed)
            if self.keys is None:
                raise errors.UpstreamUnavailable(
                    "The identity provider's signing keys could not be read.", details={"issuer": self.issuer}
                ) from None
        self.read_at = time.monotonic()
        return self.keys


@dataclass
class ProtectedResource:
    settings: Settings
    issuer: str
    rules: TokenRules
    keys: IssuerKeys

    @classmethod
    def of(cls, settings: Settings, builtin_keys: jwt.PyJWKSet | None) -> ProtectedResource | None:
        """The resource of `settings`, None when `/mcp` takes keys alone (`oauth_issuer` empty)."""
        if not settings.oauth_issuer:
            return None
        builtin = settings.oauth_issuer == BUILTIN
        issuer = settings.public_base_url.rstrip("/") if builtin else settings.oauth_issuer
        rules = TokenRules(
            issuer=issuer,
            audience=settings.mcp_resource_url,
            builtin=builtin,
            create_accounts=settings.oauth_create_accounts,
            account_rule=settings.oauth_account_rule,
        )
        return cls(settings, issuer, rules, IssuerKeys(issuer, builtin_keys, fixed=builtin))

    @property
    def metadata_url(self) -> str:
        base = self.settings.public_base_url.rstrip("/")
        return base + METADATA_PATH + "/mcp"

    def metadata(self) -> bytes:
        return json.dumps(
            {
                "resource": self.rules.audience,
                "authorization_servers": [self.issuer],
                "scopes_supported": list(SCOPES),
                "bearer_methods_supported": ["header"],
                "resource_name": "alpha-results",
                "resource_documentation": self.settings.public_base_url.rstrip("/") + "/docs",
            }
        ).encode()

    def challenge(self, error: str | None = None, scope: str | None = None) -> str:
        """The `WWW-Authenticate` value of a refusal (RFC 6750 3, RFC 9728 5.1)."""
        parts = [f'resource_metadata="{self.metadata_url}"']
        if error is not None:
            parts.append(f'error="{error}"')
        parts.append(f'scope="{scope or READ_SCOPE}"')
        return "Bearer " + ", ".join(parts)

    def with_challenge(self, refusal: errors.ApiError) -> errors.ApiError:
        """`refusal` (a 401) with this resource's challenge in place of the bare `Bearer`."""
        if refusal.status == 401:
            invalid = "token_rule" in refusal.details or isinstance(refusal, errors.InvalidApiKey)
            refusal.headers["WWW-Authenticate"] = self.challenge("invalid_token" if invalid else None)
        return refusal

    def step_up(self, endpoint: str) -> errors.ApiError:
        """403 `insufficient_scope`: the token's account may call `endpoint`, its scopes may not."""
        scope = f"{READ_SCOPE} {ADMIN_SCOPE}"
        return errors.EndpointNotAllowed(
            f"This access token's scopes do not open {endpoint}; authorize again with the scope {scope!r}.",
            details={"endpoint": endpoint, "required_scope": scope},
            headers={"WWW-Authenticate": self.challenge("insufficient_scope", scope)},
        )

    async def caller(self, store: Any, token: str, client_ip: str, now: datetime) -> Caller:
        """The caller of an access token, or the 401/403 of the rule it breaks."""
        claims = await self.keys.verified(token, self.rules, now)
        account = await to_thread.run_sync(account_of, store, claims, self.rules)
        return token_caller(account, claims, client_ip, now)


async def discover(http: httpx.AsyncClient, issuer: str) -> dict[str, Any]:
    """The issuer's discovery document: OpenID Connect's, else RFC 8414's; its `issuer` must be
    the one configured (OpenID Connect Discovery 4.3)."""
    base = issuer.rstrip("/")
    for url in (base + "/.well-known/openid-configuration", base + "/.well-known/oauth-authorization-server"):
        answer = await http.get(url)
        if answer.status_code == 200:
            document: dict[str, Any] = answer.json()
            if document.get("issuer") != issuer:
                raise ValueError(f"the discovery document at {url} names another issuer")
            return document
    raise ValueError(f"{issuer} publishes no discovery document")
