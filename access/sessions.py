"""Dashboard sessions: a person signed in through the organisation's OpenID provider, as the third
credential of an account (after keys and access tokens).

A session is a sealed value (HMAC-SHA256 over its JSON, keyed by the server's session key) that
the browser keeps in an HttpOnly cookie: its id, the account, its expiry and its CSRF token. The
server keeps nothing but the ids of sessions signed out before their expiry (`SignedOut`), so a
copy of a signed-out cookie is refused too. A session's caller is the account's ceiling, clamped
exactly as a key's `mode: all` grants are, counted under the account's one credential id, shared
with its access tokens (`access.oauth.account_credential_id`).

No HTTP here (serve/oauth/dashboard.py reads and writes the cookie).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime

from access.access import build_caller
from access.oauth import SCOPES, account_credential_id, scope_grants
from access.records import DEFAULT_RATE_LIMIT, AccountRecord, KeyRecord
from core.context import Caller


@dataclass(frozen=True)
class Session:
    sid: str
    user_id: str
    expires_at: int  # Unix seconds
    csrf: str
    back: str = ""  # a sign-in flow's: the path of this server to return to once signed in


def new_session(user_id: str, lifetime: int, now: float | None = None) -> Session:
    return Session(
        sid=secrets.token_urlsafe(16),
        user_id=user_id,
        expires_at=int((now or time.time()) + lifetime),
        csrf=secrets.token_urlsafe(24),
    )


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def seal(session: Session, key: bytes) -> str:
    fields = [session.sid, session.user_id, session.expires_at, session.csrf]
    payload = _b64(json.dumps(fields + [session.back] if session.back else fields).encode())
    return payload + "." + _b64(hmac.new(key, payload.encode(), hashlib.sha256).digest())


def unseal(text: str, key: bytes, now: float | None = None) -> Session | None:
    """The session `text` seals, None when it is not one of this key's or has expired."""
    payload, _, mac = text.partition(".")
    expected = _b64(hmac.new(key, payload.encode(), hashlib.sha256).digest())
    if not mac or not hmac.compare_digest(mac, expected):
        return None
    try:
        sid, user_id, expires_at, csrf, *back = json.loads(_unb64(payload))
    except (ValueError, TypeError):
        return None
    if not isinstance(expires_at, int) or expires_at <= (now or time.time()) or len(back) > 1:
        return None
    return Session(str(sid), str(user_id), expires_at, str(csrf), str(back[0]) if back else "")


class SignedOut:
    """Ids of sessions signed out before their expiry, each forgotten once it would have expired."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, session: Session) -> None:
        with self._lock:
            now = time.time()
            self._ids = {sid: until for sid, until in self._ids.items() if until > now}
            self._ids[session.sid] = session.expires_at

    def __contains__(self, session: Session) -> bool:
        return session.sid in self._ids


def csrf_matches(session: Session, presented: str | None, bound_to: str = "") -> bool:
    """Whether `presented` is the session's CSRF token, or, `bound_to` given, its token for that one
    form (`bound_csrf`)."""
    expected = bound_csrf(session, bound_to) if bound_to else session.csrf
    return presented is not None and hmac.compare_digest(expected.encode(), presented.encode())


def bound_csrf(session: Session, bound_to: str) -> str:
    """The session's CSRF token for one form (`bound_to` names it, e.g. one consent request): an
    HMAC of it keyed by the session's token, so it is good for that form and that session only."""
    return _b64(hmac.new(session.csrf.encode(), bound_to.encode(), hashlib.sha256).digest())


def session_caller(account: AccountRecord, client_ip: str, now: datetime) -> Caller:
    """The caller of a signed-in person: the account's ceiling, as a key of `mode: all` sees it."""
    key = KeyRecord(
        key_id=account_credential_id(account.user_id),
        user_id=account.user_id,
        name="session",
        env="live",
        status="active",
        revoked_at=None,
        expires_at=None,
        grants=scope_grants(SCOPES),
        rate_limit=DEFAULT_RATE_LIMIT,
        ip_allow=None,
        created_at=now,
    )
    return replace(build_caller(key, account, client_ip), credential="session")
