"""People sign in to the dashboard with the organisation's OpenID provider (`ALPHA_RESULTS_OIDC_*`).

- `GET /ui/sign-in[?next=PATH]`: to the provider's authorization endpoint (authorization code,
  PKCE S256, `state` and `nonce`), the three kept in a sealed, HttpOnly cookie for the callback
  alone, with the path to return to (`next`: a path of this server only, `return_path`; else `/ui`).
- `GET /ui/callback`: the state compared, the code exchanged (client secret, PKCE verifier), the
  ID token checked (signature by the provider's keys, issuer, audience the client id, expiry,
  nonce), the person mapped to an account (`access.oauth.account_of`: by subject, or by verified
  e-mail), then the session cookie set (`access.sessions`): HttpOnly, SameSite=Lax, Secure over
  https, Path=/; and back to the flow's path.
- `GET /ui/session`: whether a provider is configured and who is signed in, with the session's
  CSRF token (read by the page's script only: the answer is same-origin JSON).
- `POST /ui/sign-out`: with the CSRF token (`X-CSRF-Token` header or `csrf_token` form field),
  else 403; the session is ended here (its id kept as signed out until it would have expired)
  and its cookie cleared.

A session authenticates the API's requests (`SessionSignIn.caller`) only when they carry its CSRF
token in `X-CSRF-Token`, which a page of another origin cannot send: a cross-site request with
the cookie alone is no session's.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import time
from dataclasses import replace
from datetime import UTC, datetime
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx2 as httpx
from anyio import to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from access.oauth import TokenRules, account_of
from access.records import AccountRecord
from access.sessions import Session, SignedOut, csrf_matches, new_session, seal, session_caller, unseal
from core import errors
from core.context import Caller
from core.settings import Settings
from serve.oauth.builtin import page
from serve.oauth.resource import IssuerKeys

log = logging.getLogger("serve.oauth")

SESSION_COOKIE = "ar_session"
FLOW_COOKIE = "ar_sign_in"
FLOW_SECONDS = 600
SIGN_IN_PATH = "/ui/sign-in"
PATHS = frozenset({SIGN_IN_PATH, "/ui/callback", "/ui/session", "/ui/sign-out"})


def return_path(text: str) -> str | None:
    """`text` when it is a path of this server to send a browser back to after signing in, else
    None: an absolute path with no scheme or host (never `//host` or `/\\host`, which a browser
    reads as another origin), no backslash, space or control character, at most 2 KiB."""
    if not text.startswith("/") or text.startswith("//") or len(text) > 2048:
        return None
    if "\\" in text or any(ord(c) < 0x21 or ord(c) == 0x7F for c in text):
        return None
    parts = urlsplit(text)
    return text if not parts.scheme and not parts.netloc else None


class SessionSignIn:
    def __init__(self, settings: Settings, store: Any) -> None:
        self.settings = settings
        self.store = store
        self.configured = bool(settings.oidc_issuer and settings.oidc_client_id)
        key_file = settings.oidc_session_key_file
        self.key = Path(key_file).read_bytes() if key_file else secrets.token_bytes(32)
        self.flow_key = hashlib.sha256(b"sign-in flow\n" + self.key).digest()
        self.signed_out = SignedOut()
        self.base = settings.public_base_url.rstrip("/")
        self.secure = self.base.startswith("https://")
        self.rules = TokenRules(
            issuer=settings.oidc_issuer,
            audience=settings.oidc_client_id,
            builtin=False,
            create_accounts=settings.oauth_create_accounts,
            account_rule=settings.oauth_account_rule,
        )
        self.issuer_keys = IssuerKeys(settings.oidc_issuer)

    # the request path's side

    def session_of(self, cookie_lines: list[str]) -> Session | None:
        for line in cookie_lines:
            morsel = SimpleCookie()
            try:
                morsel.load(line)
            except Exception:  # a malformed Cookie header is no session
                continue
            if SESSION_COOKIE in morsel:
                session = unseal(morsel[SESSION_COOKIE].value, self.key)
                if session is not None and session not in self.signed_out:
                    return session
        return None

    async def signed_in(self, cookie_lines: list[str]) -> tuple[Session, AccountRecord] | None:
        """The live session the request's cookie holds and its account, None without one or when
        the account is not active."""
        session = self.session_of(cookie_lines)
        if session is None:
            return None
        account = await to_thread.run_sync(self.store.get_account, session.user_id)
        return (session, account) if account is not None and account.is_active else None

    def sign_in_link(self, back: str) -> str:
        """The address that signs a person in and sends them back to `back` (a path of this server)."""
        return SIGN_IN_PATH + "?" + urlencode({"next": back})

    async def caller(self, cookie_lines: list[str], csrf: str | None, ip: str) -> Caller | None:
        """The signed-in person's caller, None when the request carries no live session with its
        CSRF token (then it is judged as any request without credentials)."""
        session = self.session_of(cookie_lines)
        if session is None or not csrf_matches(session, csrf):
            return None
        account = await to_thread.run_sync(self.store.get_account, session.user_id)
        if account is None or not account.is_active:
            raise errors.AccountInactive()
        return session_caller(account, ip, datetime.now(UTC))

    # the pages

    def cookie(self, response: Response, name: str, value: str, max_age: int, path: str) -> None:
        """Sets a cookie of the sign-in by its one rule: HttpOnly, SameSite=Lax, Secure over https."""
        response.set_cookie(name, value, max_age=max_age, path=path, **self.cookie_rule)

    def forget(self, response: Response, name: str, path: str) -> None:
        """Clears a cookie `cookie` set, by the same rule (a browser matches name, path and flags)."""
        response.delete_cookie(name, path=path, **self.cookie_rule)

    @property
    def cookie_rule(self) -> dict[str, Any]:
        return {"secure": self.secure, "httponly": True, "samesite": "lax"}

    async def sign_in(self, request: Request) -> Response:
        if not self.configured:
            return page(404, "No identity provider is configured: sign in with an API key.")
        back = return_path(request.query_params.get("next", "/ui"))
        if back is None:
            return page(400, "After signing in, this server sends you back to one of its own pages only.")
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        provider = await self.issuer_keys.document()
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.settings.oidc_client_id,
                "redirect_uri": self.base + "/ui/callback",
                "scope": "openid email",
                "state": state,
                "nonce": nonce,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
        )
        response = RedirectResponse(f"{provider['authorization_endpoint']}?{query}", 302)
        flow = Session(
            sid=state, user_id=nonce, expires_at=int(time.time()) + FLOW_SECONDS, csrf=verifier, back=back
        )
        self.cookie(response, FLOW_COOKIE, seal(flow, self.flow_key), FLOW_SECONDS, "/ui/callback")
        response.headers["cache-control"] = "no-store"
        return response

    async def callback(self, request: Request) -> Response:
        if not self.configured:
            return page(404, "No identity provider is configured.")
        flow = unseal(request.cookies.get(FLOW_COOKIE, ""), self.flow_key)
        state = request.query_params.get("state", "")
        if flow is None or not secrets.compare_digest(flow.sid.encode(), state.encode()):
            return page(400, "This sign-in is unknown or has expired. <a href=/ui/sign-in>Sign in again</a>.")
        if "error" in request.query_params or "code" not in request.query_params:
            return page(403, "The identity provider did not sign you in. <a href=/ui>Back</a>.")
        try:
            claims = await self.id_token_claims(request.query_params["code"], flow)
            account = await to_thread.run_sync(account_of, self.store, claims, self.rules)
        except errors.UpstreamUnavailable:  # the provider's keys could not be read (logged there)
            return page(502, "The identity provider could not complete the sign-in; try again.")
        except errors.ApiError as refused:
            log.info("dashboard sign-in refused: %s %s", refused.code, refused.details)
            return page(
                403,
                "You are signed in at the identity provider, but this server has no active account for you.",
            )
        except (httpx.HTTPError, ValueError, KeyError) as failed:
            log.warning("dashboard sign-in failed at the provider: %s", failed)
            return page(502, "The identity provider could not complete the sign-in; try again.")
        session = new_session(account.user_id, self.settings.oidc_session_seconds)
        response = RedirectResponse(flow.back or "/ui", 303)
        self.cookie(
            response, SESSION_COOKIE, seal(session, self.key), self.settings.oidc_session_seconds, "/"
        )
        self.forget(response, FLOW_COOKIE, "/ui/callback")
        log.info("dashboard session started user_id=%s", account.user_id)
        return response

    async def id_token_claims(self, code: str, flow: Session) -> Any:
        provider = await self.issuer_keys.document()
        async with httpx.AsyncClient(timeout=10, follow_redirects=False) as http:
            answer = await http.post(
                provider["token_endpoint"],
                auth=(self.settings.oidc_client_id, self.settings.oidc_client_secret),
                data={
                    "grant_type": "authorization_code",
                    "code": code,
                    "redirect_uri": self.base + "/ui/callback",
                    "code_verifier": flow.csrf,
                },
            )
        if answer.status_code != 200:
            raise ValueError(f"the token endpoint answered {answer.status_code}")
        claims = await self.issuer_keys.verified(answer.json()["id_token"], self.rules, datetime.now(UTC))
        if claims.claims.get("nonce") != flow.user_id:
            raise errors.InvalidApiKey(
                "The ID token's nonce is not this sign-in's.", details={"token_rule": "nonce"}
            )
        if claims.email is None and "userinfo_endpoint" in provider:
            # A provider may keep the e-mail out of the ID token (OpenID Connect Core 5.4): its
            # UserInfo answers it, and only for the same subject (5.3.2).
            async with httpx.AsyncClient(timeout=10, follow_redirects=False) as http:
                info = await http.get(
                    provider["userinfo_endpoint"],
                    headers={"authorization": f"Bearer {answer.json()['access_token']}"},
                )
            person = info.json() if info.status_code == 200 else {}
            if person.get("sub") == claims.subject and person.get("email_verified") is True:
                email = person.get("email")
                claims = replace(claims, email=email if isinstance(email, str) else None)
        return claims

    async def session_info(self, request: Request) -> Response:
        person = await self.signed_in(request.headers.getlist("cookie"))
        body: dict[str, Any] = {"provider": self.configured, "signed_in": False}
        if person is not None:
            session, account = person
            body.update(
                signed_in=True, email=account.email, csrf_token=session.csrf, expires_at=session.expires_at
            )
        return JSONResponse(body, headers={"cache-control": "no-store"})

    async def sign_out(self, request: Request) -> Response:
        session = self.session_of(request.headers.getlist("cookie"))
        presented = request.headers.get("x-csrf-token")
        if presented is None and request.headers.get("content-type", "").startswith("application/x-www-form"):
            presented = str((await request.form()).get("csrf_token", ""))
        if session is not None and not csrf_matches(session, presented):
            return JSONResponse(
                {
                    "error": {
                        "code": "csrf_token_invalid",
                        "message": "Sign out from the dashboard's own page.",
                    }
                },
                status_code=403,
            )
        response = JSONResponse({"signed_in": False}, headers={"cache-control": "no-store"})
        if session is not None:
            self.signed_out.add(session)
            log.info("dashboard session ended user_id=%s", session.user_id)
        self.forget(response, SESSION_COOKIE, "/")
        return response

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route(SIGN_IN_PATH, self.sign_in, methods=["GET"]),
                Route("/ui/callback", self.callback, methods=["GET"]),
                Route("/ui/session", self.session_info, methods=["GET"]),
                Route("/ui/sign-out", self.sign_out, methods=["POST"]),
            ]
        )
