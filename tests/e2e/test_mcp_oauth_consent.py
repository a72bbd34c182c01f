"""The built-in authorization server's consent given by the person signed in to the dashboard (issue
80), through the real `alpha-results serve` (`oauth_issuer=builtin`) and a real certified OpenID
provider for the dashboard's sign-in (npm `oidc-provider`, its development login and consent pages,
walked by an HTTP client that keeps cookies as a browser does).

Without a session the consent page offers to sign in and comes back to itself; signed in, it names
the person's account and takes one click, and the token the MCP client gets is that account's. A
forged, expired or another session's cookie, or a form token not bound to this session and request,
gets the sign-in offer and never a code; the sign-in returns to a path of this server only.
(Pasting a key, without a provider: tests/e2e/test_mcp_oauth.py.)
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import httpx
import jwt
import pytest

from access import open_store
from access.oauth import READ_SCOPE
from access.sessions import Session, bound_csrf, seal
from tests.e2e.browser import chromium_or_skip
from tests.ops.keys import IssuedKey, issue_key
from tests.support.oidc import oidc_provider
from tests.support.ports import free_port
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

PERSON = "consenting.person@example.org"
REDIRECT = "http://127.0.0.1:9/callback"  # never reached: the test reads the redirect's Location


@dataclass
class Site:
    base: str
    session_key: bytes
    person: IssuedKey

    @property
    def resource(self) -> str:
        return self.base + "/mcp"


@pytest.fixture(scope="module")
def site(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("consent")
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(keystore_url)
    try:
        person = issue_key(store, email=PERSON)
    finally:
        store.close()
    session_key = secrets.token_bytes(32)
    (folder / "session.key").write_bytes(session_key)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with oidc_provider({}, dashboard_redirect=f"{base}/ui/callback") as issuer:
        env = {
            "ALPHA_RESULTS_PUBLIC_BASE_URL": base,
            "ALPHA_RESULTS_OAUTH_ISSUER": "builtin",
            "ALPHA_RESULTS_OIDC_ISSUER": issuer,
            "ALPHA_RESULTS_OIDC_CLIENT_ID": "dashboard",
            "ALPHA_RESULTS_OIDC_CLIENT_SECRET": "dashboard-secret",
            "ALPHA_RESULTS_OIDC_SESSION_KEY_FILE": str(folder / "session.key"),
        }
        with serving(demo_lake, keystore_url, workers=1, env=env, port=port):
            yield Site(base, session_key, person)


def consent_request(site: Site, redirect: str = REDIRECT) -> tuple[str, str, str]:
    """A client registered, its authorization asked: (client id, PKCE verifier, consent page URL)."""
    client = httpx.post(
        site.base + "/register",
        json={
            "redirect_uris": [redirect],
            "client_name": "consent test",
            "token_endpoint_auth_method": "none",
        },
        timeout=30,
    ).json()
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    answer = httpx.get(
        site.base + "/authorize",
        params={
            "response_type": "code",
            "client_id": client["client_id"],
            "redirect_uri": redirect,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": "s1",
            "resource": site.resource,
        },
        timeout=30,
    )
    assert answer.status_code == 302, answer.text
    return client["client_id"], verifier, answer.headers["location"]


def field(page: str, name: str) -> str | None:
    found = re.search(rf'name={name} value="([^"]+)"', page)
    return html.unescape(found.group(1)) if found else None


def offers_sign_in_only(page: httpx.Response) -> str:
    """The page offers to sign in, and nothing that gives consent; returns the sign-in link."""
    assert (
        "value=allow" not in page.text
        and "api_key" not in page.text
        and field(page.text, "csrf_token") is None
    )
    link = re.search(r'<a href="([^"]+)">Sign in</a>', page.text)
    assert link is not None, page.text
    return html.unescape(link.group(1))


def sign_in_at_the_provider(browser: httpx.Client, start: str, login: str) -> httpx.Response:
    """The dashboard's sign-in from `start`, through the provider's login and consent pages; the
    answer the browser ends at (after the callback's redirect)."""
    answer = browser.get(start)
    for prompt, values in (("login", {"login": login, "password": "any password"}), ("consent", {})):
        assert f'name="prompt" value="{prompt}"' in answer.text, answer.text
        action = re.search(r'<form[^>]* action="([^"]+)"', answer.text)
        assert action is not None
        answer = browser.post(
            urljoin(str(answer.url), html.unescape(action.group(1))), data={"prompt": prompt, **values}
        )
    return answer


def exchange(
    site: Site, client_id: str, code: str, verifier: str, redirect: str = REDIRECT
) -> dict[str, Any]:
    answer = httpx.post(
        site.base + "/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect,
            "client_id": client_id,
            "code_verifier": verifier,
            "resource": site.resource,
        },
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    token: dict[str, Any] = answer.json()
    return token


def me_by_mcp(site: Site, access_token: str) -> dict[str, Any]:
    answer = httpx.post(
        site.resource,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "meta.me", "arguments": {}},
        },
        headers={
            "authorization": f"Bearer {access_token}",
            "accept": "application/json, text/event-stream",
        },
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    me: dict[str, Any] = json.loads(answer.json()["result"]["content"][0]["text"])["data"]
    return me


def test_a_signed_in_person_consents_with_one_click_and_the_token_is_their_accounts(site: Site) -> None:
    client_id, verifier, consent_url = consent_request(site)
    with httpx.Client(timeout=60, follow_redirects=True) as browser:
        # Not signed in: the page offers the dashboard's sign-in, which comes back here.
        offer = browser.get(consent_url)
        assert offer.status_code == 200 and offer.headers["x-frame-options"] == "DENY"
        link = offers_sign_in_only(offer)
        assert link.startswith("/ui/sign-in?")
        back = parse_qs(urlparse(link).query)["next"][0]
        assert back == consent_url.removeprefix(site.base)
        page = sign_in_at_the_provider(browser, site.base + link, PERSON)
        assert str(page.url) == consent_url and page.status_code == 200, page.text
        assert any(c.name == "ar_session" for c in browser.cookies.jar)
        # Signed in: the page names the account, and one click allows.
        assert f"signed in as <strong>{PERSON}</strong>" in page.text and "api_key" not in page.text
        assert "form-action 'self' http://127.0.0.1:9" in page.headers["content-security-policy"]
        csrf = field(page.text, "csrf_token")
        request = field(page.text, "request")
        assert csrf and request
        allowed = browser.post(
            consent_url,
            data={"request": request, "csrf_token": csrf, "decision": "allow"},
            follow_redirects=False,
        )
    assert allowed.status_code == 303, allowed.text
    query = parse_qs(urlparse(allowed.headers["location"]).query)
    assert query["state"] == ["s1"] and query["iss"] == [site.base]
    tokens = exchange(site, client_id, query["code"][0], verifier)
    claims = jwt.decode(tokens["access_token"], options={"verify_signature": False})
    assert claims["sub"] == site.person.user_id and claims["scope"] == READ_SCOPE
    me = me_by_mcp(site, tokens["access_token"])
    assert (me["user_id"], me["email"], me["credential"]) == (site.person.user_id, PERSON, "oauth")


def cookie(site: Site, lifetime: int = 600) -> Session:
    """A session of the person, as the server makes them (seal it to make the cookie)."""
    return Session(
        sid=secrets.token_urlsafe(16),
        user_id=site.person.user_id,
        expires_at=int(time.time()) + lifetime,
        csrf=secrets.token_urlsafe(24),
    )


def test_a_forged_or_expired_session_gets_the_sign_in_offer_never_consent(site: Site) -> None:
    _, _, consent_url = consent_request(site)
    request = parse_qs(urlparse(consent_url).query)["request"][0]
    live = cookie(site)
    expired = cookie(site, lifetime=-5)
    cases = {
        "sealed with another key": (seal(live, secrets.token_bytes(32)), bound_csrf(live, request)),
        "expired": (seal(expired, site.session_key), bound_csrf(expired, request)),
        "tampered": (seal(live, site.session_key)[:-3] + "AAA", bound_csrf(live, request)),
        "not a session": ("garbage", "garbage"),
    }
    for case, (value, csrf) in cases.items():
        jar = {"ar_session": value}
        page = httpx.get(consent_url, cookies=jar, timeout=30)
        assert page.status_code == 200, case
        offers_sign_in_only(page)
        tried = httpx.post(
            consent_url,
            cookies=jar,
            data={"request": request, "csrf_token": csrf, "decision": "allow"},
            timeout=30,
        )
        assert tried.status_code == 401 and "location" not in tried.headers, case
        offers_sign_in_only(tried)
    # A live session with a form token of the session alone, or of another request: no consent.
    jar = {"ar_session": seal(live, site.session_key)}
    for csrf in (live.csrf, bound_csrf(live, "another request"), bound_csrf(cookie(site), request), ""):
        tried = httpx.post(
            consent_url,
            cookies=jar,
            data={"request": request, "csrf_token": csrf, "decision": "allow"},
            timeout=30,
        )
        assert tried.status_code == 401 and "location" not in tried.headers
    # The request is still the person's to answer: with the token bound to it, consent, once.
    page = httpx.get(consent_url, cookies=jar, timeout=30)
    assert field(page.text, "csrf_token") == bound_csrf(live, request)
    answer = {"request": request, "csrf_token": bound_csrf(live, request), "decision": "allow"}
    allowed = httpx.post(consent_url, cookies=jar, data=answer, timeout=30)
    assert allowed.status_code == 303 and "code=" in allowed.headers["location"]
    assert httpx.post(consent_url, cookies=jar, data=answer, timeout=30).status_code == 400


def test_the_sign_in_returns_to_a_path_of_this_server_only(site: Site) -> None:
    for elsewhere in (
        "https://evil.example/consent",
        "//evil.example/consent",
        "/\\evil.example/consent",
        "\\\\evil.example",
        "http:/evil.example",
        "javascript:alert(1)",
        "/\t/evil.example",
        "oauth/consent",
    ):
        answer = httpx.get(site.base + "/ui/sign-in", params={"next": elsewhere}, timeout=30)
        assert answer.status_code == 400, elsewhere
        assert "location" not in answer.headers and "set-cookie" not in answer.headers, elsewhere
    going = httpx.get(site.base + "/ui/sign-in", params={"next": "/oauth/consent?request=abc"}, timeout=30)
    assert going.status_code == 302 and "ar_sign_in=" in going.headers["set-cookie"]


@pytest.fixture
def client_callback() -> Iterator[tuple[str, list[str]]]:
    """A loopback page standing for an MCP client's redirect URI: (its URL, the paths it was asked)."""
    asked: list[str] = []

    class Callback(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("content-type", "text/plain")
            self.end_headers()
            self.wfile.write(b"the client has its code")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/callback", asked
    finally:
        server.shutdown()


def test_in_a_browser_the_person_signs_in_and_allows_with_one_click(
    site: Site, client_callback: tuple[str, list[str]]
) -> None:
    """Chromium: the consent form's redirect to the client's origin is allowed by the page's
    `form-action` (Chromium holds a form's redirects to an origin it does not name)."""
    redirect, asked = client_callback
    executable, sync_playwright = chromium_or_skip()
    client_id, verifier, consent_url = consent_request(site, redirect)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            page = browser.new_page()
            page.set_default_timeout(120_000)
            page.goto(consent_url, wait_until="load")
            page.click("text=Sign in")
            page.wait_for_selector("input[name=login]")
            page.fill("input[name=login]", PERSON)
            page.fill("input[name=password]", "any password")
            page.click("button[type=submit]")
            page.wait_for_selector("button[type=submit]")  # the provider's consent page
            page.click("button[type=submit]")
            page.wait_for_selector("button[value=allow]")
            assert page.url == consent_url and PERSON in page.inner_text("body")
            page.click("button[value=allow]")
            page.wait_for_url(redirect + "?*")
        finally:
            browser.close()
    (path,) = [p for p in asked if p.startswith("/callback")]
    query = parse_qs(urlparse(path).query)
    tokens = exchange(site, client_id, query["code"][0], verifier, redirect)
    assert me_by_mcp(site, tokens["access_token"])["user_id"] == site.person.user_id
