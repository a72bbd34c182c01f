"""The rules an access token and a dashboard session must pass (access/oauth.py, access/sessions.py),
each asked of tokens made here with the `jwt` library: the rule each breaks is the one named.
The same refusals through the real server: tests/e2e/test_mcp_oauth.py."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from datetime import UTC, datetime

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from access.oauth import (
    ADMIN_SCOPE,
    READ_SCOPE,
    SCOPES,
    TokenClaims,
    TokenRules,
    account_credential_id,
    scope_grants,
    token_caller,
    verify_token,
)
from access.records import AccountRecord
from access.sessions import Session, bound_csrf, csrf_matches, new_session, seal, session_caller, unseal
from core import errors
from schemas.registry import ADMIN_IDS, ALL_IDS
from serve.auth import caller_limits
from serve.limits.memory import MemoryLimiter
from serve.oauth.dashboard import return_path

ISSUER, AUDIENCE = "https://sso.example.org/realms/research", "https://results.example.com/mcp"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER = rsa.generate_private_key(public_exponent=65537, key_size=2048)
RULES = TokenRules(ISSUER, AUDIENCE, builtin=False)


def key_set(*keys: rsa.RSAPrivateKey) -> jwt.PyJWKSet:
    published = []
    for number, key in enumerate(keys):
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
        published.append({**jwk, "kid": f"k{number}", "use": "sig"})
    return jwt.PyJWKSet.from_dict({"keys": published})


def token(key: object = KEY, kid: str | None = "k0", algorithm: str = "RS256", **changes: object) -> str:
    claims: dict[str, object] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "person-1",
        "exp": int(time.time()) + 300,
        "scope": READ_SCOPE,
        "email": "a@example.org",
        "email_verified": True,
    }
    claims.update(changes)
    headers = {"kid": kid} if kid is not None else {}
    return jwt.encode(
        {k: v for k, v in claims.items() if v is not None}, key, algorithm=algorithm, headers=headers
    )


def rule_broken(text: str, keys: jwt.PyJWKSet | None = None) -> str:
    with pytest.raises(errors.InvalidApiKey) as refused:
        verify_token(text, keys or key_set(KEY), RULES, datetime.now(UTC))
    rule: str = refused.value.details["token_rule"]
    return rule


def test_a_good_token_gives_its_subject_scopes_and_verified_email() -> None:
    claims = verify_token(token(aud=[AUDIENCE, "other"]), key_set(KEY), RULES, datetime.now(UTC))
    assert (claims.subject, claims.scopes, claims.email) == (
        "person-1",
        frozenset({READ_SCOPE}),
        "a@example.org",
    )
    unverified = verify_token(token(email_verified=False), key_set(KEY), RULES, datetime.now(UTC))
    assert unverified.email is None


def test_each_broken_rule_is_named() -> None:
    assert rule_broken(token(aud="https://other.example/mcp")) == "audience"
    assert rule_broken(token(iss="https://other.example")) == "issuer"
    assert rule_broken(token(exp=int(time.time()) - 120)) == "expiry"
    assert rule_broken(token(key=OTHER)) == "signature"
    assert rule_broken(token(kid="unknown")) == "signature"
    assert rule_broken(token(exp=None)) == "shape"
    assert rule_broken("not.a.jwt") == "shape"


def test_a_token_without_kid_is_tried_against_each_published_key() -> None:
    assert verify_token(token(key=OTHER, kid=None), key_set(KEY, OTHER), RULES, datetime.now(UTC)).subject
    assert rule_broken(token(key=OTHER, kid=None)) == "signature"


def test_unsigned_and_shared_secret_tokens_are_refused() -> None:
    assert rule_broken(token(key=None, algorithm="none")) == "signature"
    # The classic confusion: an HMAC keyed with the published public key.
    public = KEY.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    forged = base64.urlsafe_b64encode(public).decode()
    assert rule_broken(token(key=forged, algorithm="HS256")) == "signature"


def test_a_changed_claim_breaks_the_signature() -> None:
    header, payload, signature = token().split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "admin"
    changed = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    assert rule_broken(f"{header}.{changed}.{signature}") == "signature"


def test_scopes_ask_endpoints_the_ceiling_then_clamps() -> None:
    read = set(scope_grants([READ_SCOPE]).endpoints.ids)
    assert read == set(ALL_IDS) - ADMIN_IDS
    assert set(scope_grants([READ_SCOPE, ADMIN_SCOPE]).endpoints.ids) == set(ALL_IDS)
    assert scope_grants(["openid"]).endpoints.ids == ()


def test_a_session_unseals_only_whole_unexpired_and_with_its_key() -> None:
    secret = b"k" * 32
    session = new_session("u_1", 60)
    sealed = seal(session, secret)
    assert unseal(sealed, secret) == session
    assert unseal(sealed, b"x" * 32) is None
    assert unseal(sealed[:-2] + ("AA" if sealed[-2:] != "AA" else "BB"), secret) is None
    payload, mac = sealed.split(".")
    other = seal(Session(session.sid, "u_admin", session.expires_at, session.csrf), secret).split(".")[0]
    assert unseal(f"{other}.{mac}", secret) is None
    assert unseal(seal(Session("s", "u_1", int(time.time()) - 1, "c"), secret), secret) is None
    assert csrf_matches(session, session.csrf) and not csrf_matches(session, "guess")
    assert not csrf_matches(session, None)
    assert len(account_credential_id("u_1")) == 16


def test_an_accounts_tokens_and_sessions_spend_one_envelope() -> None:
    """Issue 80: the rate windows, the quota and the egress budgets are the account's whatever the
    credential, so a person reaching the server through an agent's connector (tokens of any
    client) and through the dashboard (a session) spends one envelope, not one per credential."""
    now = datetime.now(UTC)
    person = AccountRecord("u_1", "a@example.org", "member", "active", scope_grants(SCOPES), now)
    other = AccountRecord("u_2", "b@example.org", "member", "active", scope_grants(SCOPES), now)
    by_connector = token_caller(
        person, TokenClaims("u_1", frozenset({READ_SCOPE}), None, "agent", {}), "1.2.3.4", now
    )
    by_other_client = token_caller(
        person, TokenClaims("u_1", frozenset(SCOPES), None, "cli", {}), "1.2.3.4", now
    )
    by_dashboard = session_caller(person, "1.2.3.4", now)
    assert (
        by_connector.key_id == by_other_client.key_id == by_dashboard.key_id == account_credential_id("u_1")
    )
    assert session_caller(other, "1.2.3.4", now).key_id != by_dashboard.key_id
    assert (by_connector.credential, by_dashboard.credential) == ("oauth", "session")

    async def spend() -> list[bool]:
        # The default envelope of a new key: 5 a second. Five by the connector, then the dashboard's
        # sixth request in the same second is refused (a clock fixed inside one second).
        limiter = MemoryLimiter()
        at = now.replace(microsecond=0)
        answers = [(await limiter.hit(c.key_id, caller_limits(c), at)).allowed for c in [by_connector] * 5]
        answers.append((await limiter.hit(by_dashboard.key_id, caller_limits(by_dashboard), at)).allowed)
        answers.append(
            (await limiter.hit(account_credential_id("u_2"), caller_limits(by_dashboard), at)).allowed
        )
        return answers

    assert asyncio.run(spend()) == [True] * 5 + [False, True]


def test_what_one_worker_keeps_refuses_to_start_with_several() -> None:
    from core.settings import Settings
    from serve.startup import StartRefused, prepare

    # Refused before `prepare` writes anything to the environment.
    with pytest.raises(StartRefused, match="--workers 1"):
        prepare(Settings(workers=2, oauth_issuer="builtin"))
    with pytest.raises(StartRefused, match="OIDC_SESSION_KEY_FILE"):
        prepare(Settings(workers=2, oidc_issuer="https://sso.example.org", oidc_client_id="c"))


def test_the_client_secret_is_not_in_the_settings_text() -> None:
    """The settings object reaches log lines and tracebacks (a refused start names it): the
    provider's client secret is never in its text."""
    from core.settings import Settings

    settings = Settings(
        oidc_issuer="https://sso.example.org", oidc_client_id="c", oidc_client_secret="s3cr3t-v4lue"
    )
    assert settings.oidc_client_secret == "s3cr3t-v4lue"
    assert "s3cr3t-v4lue" not in repr(settings) and "s3cr3t-v4lue" not in str(settings)


def test_a_flow_keeps_its_return_path_and_a_form_token_is_bound_to_session_and_form() -> None:
    secret = b"k" * 32
    flow = Session("state", "nonce", int(time.time()) + 60, "verifier", back="/oauth/consent?request=r1")
    assert unseal(seal(flow, secret), secret) == flow
    # A session sealed before return paths (four fields) still unseals, with none.
    session = new_session("u_1", 60)
    assert unseal(seal(session, secret), secret) == session and session.back == ""
    token = bound_csrf(session, "r1")
    assert csrf_matches(session, token, "r1") and not csrf_matches(session, token, "r2")
    assert not csrf_matches(session, session.csrf, "r1") and not csrf_matches(session, token)
    assert not csrf_matches(new_session("u_1", 60), token, "r1")


def test_a_sign_in_returns_to_a_path_of_this_server_only() -> None:
    for path in ("/ui", "/oauth/consent?request=a-b_c", "/ui?x=https://elsewhere"):
        assert return_path(path) == path
    for elsewhere in (
        "https://evil.example/",
        "//evil.example",
        "/\\evil.example",
        "\\/evil.example",
        "/\t/evil.example",
        "/ /evil",
        "javascript:alert(1)",
        "ui",
        "",
        "/" + "a" * 2048,
    ):
        assert return_path(elsewhere) is None, elsewhere
