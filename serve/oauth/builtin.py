"""The built-in authorization server (`ALPHA_RESULTS_OAUTH_ISSUER=builtin`), for a deployment
without an identity provider: the MCP SDK's own server handlers (`mcp.server.auth`: RFC 8414
metadata, `/authorize`, `/token`, `/register`, `/revoke`, with PKCE S256 required and redirect
URIs compared exactly) over the provider below.

- Clients: registered by Dynamic Client Registration (RFC 7591), or, where the settings allow it,
  named by the https URL of their Client ID Metadata Document, fetched once and kept.
- Consent: `/authorize` sends the person to `/oauth/consent`, which names the client, where it
  will be sent back to, and what it asks. Where the dashboard signs people in with the
  organisation's provider (`oidc_*`), the page names the account of the person's dashboard session
  and they allow or deny with one click (the form's CSRF token bound to the session and the
  consent request); without a session it offers to sign in, and returns here. Without a provider
  the person proves the account by one of its keys. The consent request is single-use and expires
  in `CONSENT_SECONDS`; the page cannot be framed.
- Codes: single-use, `CODE_SECONDS` long, bound to the client, redirect URI, PKCE challenge and
  the resource; a code presented twice is refused, and the refresh token made from it revoked.
- Access tokens: JWTs signed with the server's RSA key (`oauth_signing_key_file`, published at
  `/oauth/jwks.json`), `aud` the resource URL, `sub` the account, `oauth_token_seconds` long;
  refresh tokens are opaque and rotated at each use.

Clients, codes and refresh tokens live in the worker's memory: with a key made at start
(no `oauth_signing_key_file`) the built-in server serves a one-worker deployment; docs/access.md.
"""

from __future__ import annotations

import html
import ipaddress
import json
import logging
import re
import secrets
import socket
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlparse

import httpx2 as httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from access.oauth import ADMIN_SCOPE, READ_SCOPE, SCOPES
from access.sessions import bound_csrf, csrf_matches
from core import errors
from core.settings import Settings

log = logging.getLogger("serve.oauth")

CODE_SECONDS = 60
CONSENT_SECONDS = 600
REFRESH_SECONDS = 30 * 86400
CONSENT_PATH = "/oauth/consent"
METADATA_PATH = "/.well-known/oauth-authorization-server"
JWKS_PATH = "/oauth/jwks.json"
AS_PATHS = frozenset(
    {
        "/.well-known/oauth-authorization-server",
        "/authorize",
        "/token",
        "/register",
        "/revoke",
        CONSENT_PATH,
        JWKS_PATH,
    }
)
"""The paths the built-in server answers (before the router; docs/access.md)."""


def signing_key(settings: Settings) -> rsa.RSAPrivateKey:
    """The RSA key of `oauth_signing_key_file`, else one made now (a one-worker deployment's)."""
    if settings.oauth_signing_key_file:
        loaded = serialization.load_pem_private_key(Path(settings.oauth_signing_key_file).read_bytes(), None)
        if not isinstance(loaded, rsa.RSAPrivateKey):
            raise ValueError("ALPHA_RESULTS_OAUTH_SIGNING_KEY_FILE: expected an RSA private key (PEM)")
        return loaded
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwks(key: rsa.RSAPrivateKey) -> dict[str, Any]:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update(kid=jwt.PyJWK(jwk).key_id or _thumbprint(jwk), use="sig", alg="RS256")
    return {"keys": [jwk]}


def _thumbprint(jwk: dict[str, Any]) -> str:
    import base64
    import hashlib

    canonical = json.dumps({k: jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).decode().rstrip("=")


@dataclass
class Consent:
    client: OAuthClientInformationFull
    params: AuthorizationParams
    expires_at: float


@dataclass
class BuiltinProvider:
    """The SDK's `OAuthAuthorizationServerProvider` for this server's accounts."""

    settings: Settings
    key: rsa.RSAPrivateKey
    authenticate: Any  # serve.auth.Authenticator: a key pasted on the consent page
    sessions: Any = None  # serve.oauth.dashboard.SessionSignIn: the person's dashboard session
    issuer: str = ""
    kid: str = ""
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    consents: dict[str, Consent] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    used_codes: dict[str, str | None] = field(default_factory=dict)  # code -> the refresh token made from it
    refresh_tokens: dict[str, RefreshToken] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.issuer = self.settings.public_base_url.rstrip("/")
        self.jwks = public_jwks(self.key)
        self.kid = self.jwks["keys"][0]["kid"]

    @property
    def audience(self) -> str:
        return self.settings.mcp_resource_url

    # clients

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        known = self.clients.get(client_id)
        if known is not None:
            return known
        if client_id.startswith(("https://", "http://")) and self.settings.oauth_client_metadata_documents:
            document = await self.client_metadata_document(client_id)
            if document is not None:
                self.clients[client_id] = document
            return document
        return None

    async def client_metadata_document(self, url: str) -> OAuthClientInformationFull | None:
        """The client a Client ID Metadata Document describes: fetched from `url` (https, a path;
        http and private addresses only where `oauth_client_metadata_allow_private`), its
        `client_id` equal to the URL, a public client (no secret)."""
        parsed = urlparse(url)
        allow_private = self.settings.oauth_client_metadata_allow_private
        if parsed.scheme != "https" and not (allow_private and parsed.scheme == "http"):
            return None
        if not parsed.hostname or parsed.path in ("", "/") or parsed.username or parsed.fragment:
            return None
        if not allow_private and not _public_host(parsed.hostname):
            return None
        try:
            async with httpx.AsyncClient(timeout=5, follow_redirects=False) as http:
                answer = await http.get(url, headers={"accept": "application/json"})
            if answer.status_code != 200 or len(answer.content) > 16 << 10:
                return None
            document = answer.json()
            if not isinstance(document, dict) or document.get("client_id") != url:
                return None
            document.pop("client_secret", None)
            document["token_endpoint_auth_method"] = "none"
            document.setdefault("scope", " ".join(SCOPES))
            return OAuthClientInformationFull.model_validate(document)
        except (httpx.HTTPError, ValueError, ValidationError) as failed:
            log.info("client metadata document %s refused: %s", url, failed)
            return None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        if client_info.client_id is None:
            raise ValueError("a registered client has an id")
        if not client_info.scope:
            client_info.scope = " ".join(SCOPES)
        self.clients[client_info.client_id] = client_info

    # authorization

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and params.resource.rstrip("/") != self.audience.rstrip("/"):
            raise AuthorizeError("invalid_target", f"This server issues tokens for {self.audience} only.")
        self._forget_expired()
        request = secrets.token_urlsafe(32)
        self.consents[request] = Consent(client, params, time.time() + CONSENT_SECONDS)
        return f"{self.issuer}{CONSENT_PATH}?{urlencode({'request': request})}"

    async def consent_page(self, request: Request) -> Response:
        form = await request.form() if request.method == "POST" else None
        token = str(form.get("request", "")) if form is not None else request.query_params.get("request", "")
        consent = self.consents.get(token)
        if consent is None or consent.expires_at < time.time():
            return page(
                400, "This authorization request is unknown or has expired; start again from the agent."
            )
        by_session = self.sessions is not None and self.sessions.configured
        person = await self.sessions.signed_in(request.headers.getlist("cookie")) if by_session else None
        answer = self._answer(token, person) if by_session else KEY_ANSWER
        redirect = str(consent.params.redirect_uri)
        if form is None:
            return page(200, consent_form(token, consent, answer), redirect)
        self.consents.pop(token, None)  # single use, allowed or not
        if form.get("decision") != "allow":
            return RedirectResponse(
                construct_redirect_uri(redirect, error="access_denied", state=consent.params.state), 303
            )
        if by_session:
            if person is None or not csrf_matches(person[0], str(form.get("csrf_token", "")), token):
                self.consents[token] = consent  # the person may sign in and answer
                return page(
                    401, consent_form(token, consent, answer, "Sign in to answer as your account."), redirect
                )
            user_id, is_admin = person[1].user_id, person[1].is_admin
        else:
            try:
                ip = request.client.host if request.client else "0.0.0.0"
                caller = await _awaited(
                    self.authenticate(f"Bearer {form.get('api_key', '')}", ip, datetime.now(UTC))
                )
            except errors.ApiError as refused:
                self.consents[token] = consent  # another try with the right key
                return page(401, consent_form(token, consent, answer, html.escape(refused.message)), redirect)
            if caller.credential != "key":
                self.consents[token] = consent
                return page(
                    401, consent_form(token, consent, answer, "Paste one of your API keys."), redirect
                )
            user_id, is_admin = caller.user_id, caller.is_admin
        asked = consent.params.scopes or [READ_SCOPE]
        scopes = [s for s in asked if s != ADMIN_SCOPE or is_admin]
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=scopes,
            expires_at=time.time() + CODE_SECONDS,
            client_id=consent.client.client_id or "",
            code_challenge=consent.params.code_challenge,
            redirect_uri=consent.params.redirect_uri,
            redirect_uri_provided_explicitly=consent.params.redirect_uri_provided_explicitly,
            resource=self.audience,
            subject=user_id,
        )
        log.info(
            "consent given user_id=%s client_id=%s scopes=%s by=%s",
            user_id,
            consent.client.client_id,
            scopes,
            "session" if by_session else "key",
        )
        return RedirectResponse(
            construct_redirect_uri(redirect, code=code, state=consent.params.state, iss=self.issuer), 303
        )

    def _answer(self, token: str, person: Any) -> str:
        """How a person with the dashboard's sign-in answers: as the account of their session (its
        e-mail named, the form's CSRF token bound to the session and this request), else after
        signing in, back to this page."""
        if person is None:
            back = f"{CONSENT_PATH}?{urlencode({'request': token})}"
            link = html.escape(self.sessions.sign_in_link(back))
            return f'<p><a href="{link}">Sign in</a> to answer as your account.</p>' + DENY_BUTTON
        session, account = person
        return (
            f"<p>You are signed in as <strong>{html.escape(account.email)}</strong>.</p>"
            f'<input type=hidden name=csrf_token value="{html.escape(bound_csrf(session, token))}">'
            + ALLOW_BUTTON
            + " "
            + DENY_BUTTON
        )

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        if authorization_code in self.used_codes:
            # RFC 9700 4.2.4 / OAuth 2.1 4.1.3: a code presented twice was stolen; what it made is revoked.
            refresh = self.used_codes[authorization_code]
            if refresh is not None:
                self.refresh_tokens.pop(refresh, None)
            log.warning("authorization code replayed by client_id=%s", client.client_id)
            return None
        code = self.codes.get(authorization_code)
        if code is None or code.client_id != client.client_id:
            return None
        return code

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        assert authorization_code.subject is not None
        token = self._issue(client, authorization_code.subject, authorization_code.scopes)
        self.used_codes[authorization_code.code] = token.refresh_token
        return token

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        found = self.refresh_tokens.get(refresh_token)
        if found is None or found.client_id != client.client_id:
            return None
        return found

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh_tokens.pop(refresh_token.token, None)  # rotated: the old one is spent
        if not set(scopes) <= set(refresh_token.scopes):
            raise TokenError("invalid_scope", "A refreshed token cannot ask for more than the consent gave.")
        assert refresh_token.subject is not None
        return self._issue(client, refresh_token.subject, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        try:
            claims = jwt.decode(
                token, self.key.public_key(), algorithms=["RS256"], audience=self.audience, issuer=self.issuer
            )
        except jwt.PyJWTError:
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id", "")),
            scopes=str(claims.get("scope", "")).split(),
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=str(claims["sub"]),
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        # An access token lives `oauth_token_seconds` (it is checked, not looked up); its refresh
        # tokens end now.
        for value, kept in list(self.refresh_tokens.items()):
            if kept.token == token.token or (
                kept.client_id == token.client_id and kept.subject == token.subject
            ):
                self.refresh_tokens.pop(value, None)

    def _issue(self, client: OAuthClientInformationFull, subject: str, scopes: list[str]) -> OAuthToken:
        now = int(time.time())
        lifetime = self.settings.oauth_token_seconds
        claims = {
            "iss": self.issuer,
            "aud": self.audience,
            "sub": subject,
            "client_id": client.client_id,
            "scope": " ".join(scopes),
            "iat": now,
            "nbf": now,
            "exp": now + lifetime,
            "jti": secrets.token_urlsafe(16),
        }
        access = jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid, "typ": "at+jwt"})
        refresh = secrets.token_urlsafe(32)
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh,
            client_id=client.client_id or "",
            scopes=scopes,
            expires_at=now + REFRESH_SECONDS,
            resource=self.audience,
            subject=subject,
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=lifetime,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    def _forget_expired(self) -> None:
        now = time.time()
        for request, consent in list(self.consents.items()):
            if consent.expires_at < now:
                self.consents.pop(request, None)
        for value, code in list(self.codes.items()):
            if code.expires_at < now:
                self.codes.pop(value, None)

    def key_set(self) -> jwt.PyJWKSet:
        return jwt.PyJWKSet.from_dict(self.jwks)

    def app(self) -> Starlette:
        """The server's routes: the SDK's, with its metadata completed (the key set, Client ID
        Metadata Documents), the consent page and the key set."""
        registration = ClientRegistrationOptions(
            enabled=True, valid_scopes=list(SCOPES), default_scopes=[READ_SCOPE]
        )
        issuer, documentation = AnyHttpUrl(self.issuer), AnyHttpUrl(self.issuer + "/docs")
        routes = create_auth_routes(
            self,  # type: ignore[arg-type]
            issuer,
            service_documentation_url=documentation,
            client_registration_options=registration,
            revocation_options=RevocationOptions(enabled=True),
        )
        routes = [r for r in routes if r.path != METADATA_PATH]
        metadata = build_metadata(issuer, documentation, registration, RevocationOptions(enabled=True))
        document = metadata.model_dump(mode="json", exclude_none=True)
        document.update(
            issuer=self.issuer,  # exactly the tokens' `iss` and the resource's server (no "/" added)
            jwks_uri=self.issuer + JWKS_PATH,
            client_id_metadata_document_supported=self.settings.oauth_client_metadata_documents,
            token_endpoint_auth_methods_supported=["none", "client_secret_post", "client_secret_basic"],
            authorization_response_iss_parameter_supported=True,
        )
        headers = {"Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=3600"}
        routes += [
            Route(METADATA_PATH, lambda request: JSONResponse(document, headers=headers), methods=["GET"]),
            Route(CONSENT_PATH, self.consent_page, methods=["GET", "POST"]),
            Route(JWKS_PATH, lambda request: JSONResponse(self.jwks), methods=["GET"]),
        ]
        return Starlette(routes=routes)


async def _awaited(value: Any) -> Any:
    import inspect

    return await value if inspect.isawaitable(value) else value


def _public_host(host: str) -> bool:
    """Whether every address `host` resolves to is public (a document is never fetched from this
    server's own network: SSRF)."""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return all(ipaddress.ip_address(info[4][0]).is_global for info in infos)


CSP_SOURCE = re.compile(r"[a-z][a-z0-9+.-]*:(//[A-Za-z0-9.\-\[\]:]+)?")
"""A scheme or scheme://host[:port] as a CSP source (nothing that could end the directive)."""
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}


def page(status: int, body: str, sent_to: str = "") -> HTMLResponse:
    """An HTML page of the authorization server; `sent_to`: the URL a form of the page ends at (the
    client's redirect URI), whose origin the page's `form-action` then allows besides its own, since
    a browser (Chromium) holds each redirect that follows a form to it."""
    text = (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>alpha-results: authorize</title>"
        "<style>body{font-family:system-ui;max-width:36rem;margin:3rem auto;padding:0 1rem}</style>"
        f"</head><body><h1>alpha-results</h1>{body}</body></html>"
    )
    headers = SECURITY_HEADERS
    target = urlparse(sent_to)
    source = f"{target.scheme}://{target.netloc}" if target.netloc else f"{target.scheme}:"
    if sent_to and CSP_SOURCE.fullmatch(source):
        policy = headers["Content-Security-Policy"].replace(
            "form-action 'self'", f"form-action 'self' {source}"
        )
        headers = {**headers, "Content-Security-Policy": policy}
    return HTMLResponse(text, status_code=status, headers=headers)


ALLOW_BUTTON = "<button name=decision value=allow>Allow</button>"
DENY_BUTTON = "<button name=decision value=deny formnovalidate>Deny</button>"
KEY_ANSWER = (
    "<p><label>Your API key <input type=password name=api_key autocomplete=off required></label></p>"
    + ALLOW_BUTTON
    + " "
    + DENY_BUTTON
)
"""How a person answers without the dashboard's sign-in: with one of their keys."""


def consent_form(request: str, consent: Consent, answer: str, problem: str = "") -> str:
    client = consent.client
    name = html.escape(client.client_name or client.client_id or "an application")
    target = urlparse(str(consent.params.redirect_uri))
    scopes = ", ".join(html.escape(s) for s in (consent.params.scopes or [READ_SCOPE]))
    warning = f"<p role=alert><strong>{problem}</strong></p>" if problem else ""
    return (
        f"<p><strong>{name}</strong> asks to read this server's results as your account "
        f"(scopes: {scopes}), within what your account may read.</p>"
        f"<p>It will be sent back to <code>{html.escape(target.scheme)}://{html.escape(target.netloc)}</code>.</p>"
        f"{warning}<form method=post>"
        f'<input type=hidden name=request value="{html.escape(request)}">'
        f"{answer}</form>"
    )
