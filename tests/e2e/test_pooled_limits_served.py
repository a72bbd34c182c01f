"""The account's pooled envelope (issue 80, item 3) through the real `alpha-results serve`, with the
in-process limiter and with Redis: two keys and a dashboard session of one account spend one pooled
per-minute cap set with `alpha-results accounts set-limits`; the refusal is the window's 429 naming
the account's envelope, and the refused request moved no count; without a pooled cap a key is
limited exactly as before; the pooled day survives a restart of the server through the ledger."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from access import RateLimit, open_store
from access.oauth import account_pool_id
from access.sessions import new_session, seal
from access.usage_ledger import SqlUsageLedger
from tests.health_wait import wait_until
from tests.ops.keys import DATA_GRANTS, ROOMY, IssuedKey, issue_key
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

SESSION_KEY = b"s" * 32
POOLED_PER_MINUTE = 5


@dataclass
class Site:
    base: str
    keystore_url: str
    folder: Path
    admin: IssuedKey

    def account(self, keys: int = 2, rate_limit: RateLimit = ROOMY) -> list[IssuedKey]:
        """A new member account with `keys` keys (data endpoints, `rate_limit` each)."""
        store = open_store(self.keystore_url)
        try:
            first = issue_key(store, rate_limit=rate_limit)
            issued = [first]
            for n in range(keys - 1):
                key, token = store.create_key(
                    first.user_id, f"key {n + 2}", grants=DATA_GRANTS, rate_limit=rate_limit
                )
                issued.append(IssuedKey(key.key_id, token, first.user_id))
            return issued
        finally:
            store.close()

    def get(self, headers: dict[str, str], path: str = "/v1/me") -> httpx.Response:
        return httpx.get(self.base + path, headers=headers, timeout=60)

    def set_limits(self, user_id: str, *options: str) -> dict[str, Any]:
        """`alpha-results accounts set-limits`, the operator's command, in a process of its own."""
        command = [sys.executable, "-m", "cli.main", "accounts", "--keystore", self.keystore_url]
        done = subprocess.run(
            [*command, "set-limits", user_id, *options], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        shown: dict[str, Any] = json.loads(done.stdout)
        return shown


def session_headers(user_id: str) -> dict[str, str]:
    """A dashboard session of the account, sealed with the server's session key, and its CSRF token
    (what the dashboard's page sends)."""
    session = new_session(user_id, 3600)
    return {"Cookie": f"ar_session={seal(session, SESSION_KEY)}", "X-CSRF-Token": session.csrf}


@contextmanager
def serve_site(demo_lake: Path, folder: Path, env: dict[str, str]) -> Iterator[Site]:
    """`alpha-results serve` over the key store in `folder` (made with an administrator's key the
    first time), sessions sealed with `SESSION_KEY`."""
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(keystore_url)
    try:
        admin = issue_key(store, role="admin")
    finally:
        store.close()
    key_file = folder / "session.key"
    key_file.write_bytes(SESSION_KEY)
    settings = {"ALPHA_RESULTS_OIDC_SESSION_KEY_FILE": str(key_file), **env}
    with serving(demo_lake, keystore_url, workers=1, env=settings) as (port, _):
        yield Site(f"http://127.0.0.1:{port}", keystore_url, folder, admin)


@pytest.fixture(scope="module", params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def site(
    request: pytest.FixtureRequest, demo_lake: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    env = {}
    if request.param == "redis":
        from tests.limits.conftest import redis_or_skip

        env["ALPHA_RESULTS_LIMITER_URL"] = redis_or_skip()  # db 15; the counters' ids are this run's own
    with serve_site(demo_lake, tmp_path_factory.mktemp(f"pooled_{request.param}"), env) as served:
        yield served


def minute_with_room(seconds: float = 20.0) -> None:
    """Waits, if need be, until the current UTC minute has `seconds` left, so that the requests
    counted against a per-minute cap all fall in one minute."""
    wait_until(
        lambda: 60 - datetime.now(UTC).second >= seconds,
        f"a UTC minute with {seconds} s left",
        limit=70,
    )


def test_two_keys_and_a_session_spend_the_accounts_pooled_minute(site: Site) -> None:
    first, second = site.account(keys=2)
    shown = site.set_limits(first.user_id, "--per-minute", str(POOLED_PER_MINUTE))
    assert shown["pooled_rate_limit"]["per_minute"] == POOLED_PER_MINUTE
    session = session_headers(first.user_id)
    minute_with_room()
    # Five requests across the two keys and the session: each admitted, each counted in its own
    # credential's windows and in the account's.
    spenders = [first.headers, second.headers, session, first.headers, second.headers]
    answers = [site.get(headers) for headers in spenders]
    assert [a.status_code for a in answers] == [200] * 5, [a.text for a in answers if a.status_code != 200]
    bodies = [a.json()["data"] for a in answers]
    assert [b["account_usage"]["minute"] for b in bodies] == [1, 2, 3, 4, 5]
    assert [b["usage"]["minute"] for b in bodies] == [1, 1, 1, 2, 2]  # each credential's own
    assert bodies[2]["credential"] == "session"
    assert bodies[4]["account_usage"]["remaining_minute"] == 0
    assert bodies[4]["account_usage"]["remaining_second"] is None  # no pooled cap on the second
    assert answers[4].headers["x-ratelimit-window"] == "minute"  # the binding window is the account's
    assert answers[4].headers["x-ratelimit-limit"] == str(POOLED_PER_MINUTE)
    assert f'"account-minute";q={POOLED_PER_MINUTE};w=60' in answers[4].headers["ratelimit-policy"]

    # The sixth, on the first key (whose own envelope has plenty of room), and on the session.
    for headers in (first.headers, session):
        refused = site.get(headers)
        assert refused.status_code == 429, refused.text
        error = refused.json()["error"]
        assert error["code"] == "rate_limit_minute"
        assert error["details"]["window"] == "minute" and error["details"]["envelope"] == "account"
        assert "account" in error["message"]
        assert int(refused.headers["retry-after"]) >= 1
        assert (refused.headers["x-ratelimit-remaining"], refused.headers["x-ratelimit-used"]) == ("0", "5")

    # The refused requests moved nothing: the first key's own minute is still 2, the account's 5.
    usage = site.get(site.admin.headers, f"/v1/admin/keys/{first.key_id}/usage").json()["data"]
    assert usage["usage"]["minute"] == 2
    assert usage["account_usage"]["minute"] == POOLED_PER_MINUTE
    assert usage["account_usage"]["remaining_minute"] == 0


def test_without_a_pooled_cap_keys_are_limited_as_before(site: Site) -> None:
    tight = RateLimit(per_second=1000, per_minute=3, per_day=1_000_000, monthly_requests=None)
    first, second = site.account(keys=2, rate_limit=tight)
    minute_with_room()
    answers = [site.get(headers) for headers in (first.headers, second.headers) * 3]
    assert [a.status_code for a in answers] == [200] * 6  # 3 a minute each, not 3 in all
    body = answers[-1].json()["data"]
    assert body["account_usage"] == {
        "second": body["account_usage"]["second"],
        "minute": 6,
        "day": 6,
        "month": 6,
        "remaining_second": None,
        "remaining_minute": None,
        "remaining_day": None,
        "remaining_month": None,
    }
    assert "account-" not in answers[-1].headers["ratelimit-policy"]
    refused = site.get(first.headers)
    error = refused.json()["error"]
    assert (refused.status_code, error["code"]) == (429, "rate_limit_minute")
    assert "envelope" not in error["details"]  # the key's own envelope, as before
    assert refused.headers["x-ratelimit-limit"] == "3"


def test_the_pooled_day_survives_a_restart(demo_lake: Path, tmp_path: Path) -> None:
    """The pooled day is written to the key store's ledger; a restarted server (the in-process
    limiter's counters gone) starts the account's windows from it."""
    with serve_site(demo_lake, tmp_path, {}) as site:
        first, second = site.account(keys=2)
        site.set_limits(first.user_id, "--per-day", "3")
        for headers in (first.headers, second.headers, first.headers):
            assert site.get(headers).status_code == 200
        refused = site.get(second.headers)
        assert refused.status_code == 429 and refused.json()["error"]["details"]["envelope"] == "account"
        now = datetime.now(UTC)
        day = int(datetime(now.year, now.month, now.day, tzinfo=UTC).timestamp())
        month = int(datetime(now.year, now.month, 1, tzinfo=UTC).timestamp())
        store = open_store(site.keystore_url)
        try:
            ledger = SqlUsageLedger(store)
            wait_until(
                lambda: ledger.read(account_pool_id(first.user_id), day, month) == (3, 3),
                "the pooled day and month in the ledger",
            )
        finally:
            store.close()

    with serve_site(demo_lake, tmp_path, {}) as again:  # the same key store, a new server process
        answer = again.get(second.headers)
        assert answer.status_code == 429, answer.text
        error = answer.json()["error"]
        assert (error["code"], error["details"]["envelope"]) == ("rate_limit_day", "account")
        usage = again.get(again.admin.headers, f"/v1/admin/keys/{first.key_id}/usage").json()["data"]
        assert (usage["usage"]["day"], usage["account_usage"]["day"]) == (2, 3)
