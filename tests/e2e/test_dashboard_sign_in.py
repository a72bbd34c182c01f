"""People sign in to the dashboard through the organisation's OpenID provider (issue 80): a real
browser (Debian's Chromium through Playwright), a real certified provider (npm `oidc-provider`,
its own development login and consent pages) and the real `alpha-results serve`.

The person sees exactly what their account may read (its ceiling opens one alpha), signs out with
the CSRF token, and a copy of their cookie is then refused; the session cookie is HttpOnly and
SameSite=Lax; the API takes the cookie only with its CSRF token; a sign-out without the token is
refused; a callback without this browser's state, and a person without an account, sign no one in.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from access import Grants, open_store
from access.oauth import account_credential_id
from core.context import AllowList
from tests.e2e.browser import chromium_or_skip
from tests.ops.keys import issue_key
from tests.support.oidc import oidc_provider
from tests.support.ports import free_port
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

PERSON = "head.of.research@example.org"
TIMEOUT_MS = 120_000


@dataclass
class Site:
    base: str
    browser: Any
    allowed_alpha: str
    every_alpha: list[str]
    keystore_url: str


@pytest.fixture(scope="module")
def site(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    executable, sync_playwright = chromium_or_skip()
    folder = tmp_path_factory.mktemp("sign_in")
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(keystore_url)
    try:
        person = issue_key(store, email=PERSON)
        admin = issue_key(store, role="admin")
    finally:
        store.close()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with oidc_provider({}, dashboard_redirect=f"{base}/ui/callback") as issuer:
        env = {
            "ALPHA_RESULTS_PUBLIC_BASE_URL": base,
            "ALPHA_RESULTS_OIDC_ISSUER": issuer,
            "ALPHA_RESULTS_OIDC_CLIENT_ID": "dashboard",
            "ALPHA_RESULTS_OIDC_CLIENT_SECRET": "dashboard-secret",
        }
        with serving(demo_lake, keystore_url, workers=1, env=env, port=port), sync_playwright() as playwright:
            every = [
                row["alpha_id"]
                for row in httpx.get(
                    base + "/v1/alphas", headers=admin.headers, params={"limit": 200}, timeout=60
                ).json()["data"]
            ]
            store = open_store(keystore_url)
            try:
                ceiling = Grants(
                    AllowList.all(), AllowList.of_ids([every[0]]), AllowList.of_ids([every[0]]), False
                )
                store.set_account_ceiling(person.user_id, ceiling)
            finally:
                store.close()
            browser = playwright.chromium.launch(executable_path=executable)
            try:
                yield Site(base, browser, every[0], every, keystore_url)
            finally:
                browser.close()


def sign_in(site: Site, context: Any, login: str) -> Any:
    """The person's way in: the dashboard's button, the provider's login and consent pages."""
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(site.base + "/ui", wait_until="load")
    page.click("#sign-in-provider")
    page.wait_for_selector("input[name=login]")
    page.fill("input[name=login]", login)
    page.fill("input[name=password]", "any password")
    page.click("button[type=submit]")
    page.wait_for_selector("button[type=submit]")  # the provider's consent page
    page.click("button[type=submit]")
    return page


def session_cookie(context: Any) -> dict[str, Any]:
    cookies = [c for c in context.cookies() if c["name"] == "ar_session"]
    assert len(cookies) == 1, context.cookies()
    cookie: dict[str, Any] = cookies[0]
    return cookie


def test_a_person_signs_in_sees_their_accounts_alphas_and_signs_out(site: Site) -> None:
    context = site.browser.new_context()
    try:
        page = sign_in(site, context, PERSON)
        page.wait_for_selector("#signed-in-person")
        assert PERSON in page.inner_text("#signed-in-person")
        page.wait_for_selector("#catalogue-results a.alpha-link")
        shown = page.eval_on_selector_all(
            "#catalogue-results a.alpha-link", "links => links.map(a => a.textContent)"
        )
        assert shown == [site.allowed_alpha] and len(site.every_alpha) > 1
        cookie = session_cookie(context)
        assert cookie["httpOnly"] is True and cookie["sameSite"] == "Lax" and cookie["path"] == "/"
        assert cookie["secure"] is False  # http here; Secure over https (docs/access.md)
        jar = {"ar_session": cookie["value"]}
        state = httpx.get(site.base + "/ui/session", cookies=jar, timeout=30).json()
        assert state["signed_in"] is True and state["email"] == PERSON
        csrf = state["csrf_token"]
        # The API: the cookie with its CSRF token is the person; the cookie alone is no one.
        me = httpx.get(site.base + "/v1/me", cookies=jar, headers={"x-csrf-token": csrf}, timeout=30).json()[
            "data"
        ]
        assert me["credential"] == "session" and me["email"] == PERSON
        # Counted under the account's one credential id, the one its access tokens share (issue 80).
        assert me["key_id"] == account_credential_id(me["user_id"])
        assert me["allow"]["alphas"] == {"mode": "list", "ids": [site.allowed_alpha]}
        assert httpx.get(site.base + "/v1/me", cookies=jar, timeout=30).status_code == 401
        # A sign-out without the CSRF token (another site's form) is refused, and ends nothing.
        forged = httpx.post(site.base + "/ui/sign-out", cookies=jar, data={"csrf_token": "guess"}, timeout=30)
        assert forged.status_code == 403
        assert httpx.get(site.base + "/ui/session", cookies=jar, timeout=30).json()["signed_in"] is True
        # The person signs out on the page: back to the sign-in, and the copied cookie is dead.
        page.click("#sign-out")
        page.wait_for_selector("#sign-in-provider")
        assert httpx.get(site.base + "/ui/session", cookies=jar, timeout=30).json()["signed_in"] is False
        refused = httpx.get(site.base + "/v1/me", cookies=jar, headers={"x-csrf-token": csrf}, timeout=30)
        assert refused.status_code == 401
    finally:
        context.close()


def test_a_person_without_an_account_is_not_signed_in(site: Site) -> None:
    context = site.browser.new_context()
    try:
        page = sign_in(site, context, "stranger@example.org")
        page.wait_for_load_state("load")
        page.wait_for_selector("text=no active account")
        assert not [c for c in context.cookies() if c["name"] == "ar_session"]
    finally:
        context.close()


def test_a_callback_without_this_browsers_state_signs_no_one_in(site: Site) -> None:
    answer = httpx.get(site.base + "/ui/callback", params={"code": "stolen", "state": "guessed"}, timeout=30)
    assert answer.status_code == 400 and "set-cookie" not in answer.headers


def test_pasting_a_key_still_works_beside_the_provider(site: Site) -> None:
    store = open_store(site.keystore_url)
    try:
        key = issue_key(store)
    finally:
        store.close()
    context = site.browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(site.base + "/ui", wait_until="load")
        page.fill("#api-key", key.token)
        page.click("#sign-in button[type=submit]")
        page.wait_for_selector("#key-id")
        assert page.inner_text("#key-id") == key.key_id
    finally:
        context.close()
