"""An account's pooled envelope in the key store (issue 80, item 3), on SQLite and PostgreSQL: set,
read with the account wherever the account is read, cleared, refused when it would block every
request; its changes reach the identity caches; a store made before it existed opens as is; and the
callers of every credential of the account carry it, with one pooled id for all of them."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import psycopg
import pytest

from access import authenticate, build_caller, open_store
from access.oauth import (
    READ_SCOPE,
    TokenClaims,
    account_credential_id,
    account_pool_id,
    token_caller,
)
from access.records import PooledLimit
from access.sessions import session_caller
from access.store import IdentityError, SqlKeyStore, UnknownAccount
from access.tables import CHANGES_CHANNEL
from access.tokens import hash_secret, parse_token
from cli.main import main
from serve.auth import caller_pool
from serve.limits.model import NO_LIMITS, Limits

NOW = datetime(2030, 1, 1, tzinfo=UTC)
CAP = PooledLimit(per_second=None, per_minute=100, per_day=None, monthly_requests=50_000)


def test_a_pooled_envelope_is_read_with_its_account_everywhere(store: SqlKeyStore) -> None:
    account = store.create_account("pool@example.com")
    assert account.pooled_limit is None  # the default: no pooled cap
    key, token = store.create_key(account.user_id, "laptop")
    changed = store.set_account_limits(account.user_id, CAP)
    assert changed.pooled_limit == CAP
    assert store.get_account(account.user_id) == changed
    assert store.find_account_by_email("POOL@example.com") == changed
    credentials = store.find_credentials(key.key_id, parse_hash(token))
    assert credentials is not None and credentials.account.pooled_limit == CAP
    caller = authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
    assert caller.account_rate_limit == CAP.to_wire()
    assert caller_pool(caller) == (account_pool_id(account.user_id), Limits(None, 100, None, 50_000))
    # Cleared: whole, or by setting every window to none.
    assert store.set_account_limits(account.user_id, None).pooled_limit is None
    store.set_account_limits(account.user_id, CAP)
    assert store.set_account_limits(account.user_id, PooledLimit()).pooled_limit is None
    caller = authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
    assert caller.account_rate_limit is None
    assert caller_pool(caller) == (account_pool_id(account.user_id), NO_LIMITS)


def parse_hash(token: str) -> str:
    return hash_secret(parse_token(token).secret)


def test_a_pooled_envelope_that_would_block_every_request_is_refused(store: SqlKeyStore) -> None:
    account = store.create_account("zero@example.com")
    with pytest.raises(IdentityError, match="per_minute must be a positive integer or none"):
        store.set_account_limits(account.user_id, PooledLimit(per_minute=0))
    with pytest.raises(UnknownAccount):
        store.set_account_limits("u_nobody", CAP)
    assert store.get_account(account.user_id).pooled_limit is None  # type: ignore[union-attr]


def test_a_change_of_the_pooled_envelope_signals_the_identity_caches(store_url: str) -> None:
    """The servers' identity caches keep accounts with their keys: a change of `account_limits`
    is signalled as a change of the account (access/tables.py), on SQLite by the change counter,
    on PostgreSQL by a notification naming the account."""
    store = open_store(store_url)
    try:
        account = store.create_account("signal@example.com")
        if store_url.startswith("sqlite"):
            before = store.identity_version()
            store.set_account_limits(account.user_id, CAP)
            assert store.identity_version() > before
            moved = store.identity_version()
            store.set_account_limits(account.user_id, None)
            assert store.identity_version() > moved
            return
        with psycopg.connect(store_url, autocommit=True) as listener:
            listener.execute(f"LISTEN {CHANGES_CHANNEL}")
            store.set_account_limits(account.user_id, CAP)
            store.set_account_limits(account.user_id, None)
            wanted, heard = f"account:{account.user_id}", 0
            for notification in listener.notifies(timeout=60):  # other tests share the channel
                heard += notification.payload == wanted
                if heard == 2:
                    break
            assert heard == 2, f"{heard} notification(s) {wanted} for two changes"
    finally:
        store.close()


def test_a_store_made_before_pooled_envelopes_opens_as_is(store_url: str) -> None:
    """No migration: opening a store made by an earlier release (no `account_limits` table) adds
    the table, and its accounts and keys read as before, without a pooled cap."""
    store = open_store(store_url)
    account = store.create_account("earlier@example.com")
    key, token = store.create_key(account.user_id, "old key")
    for trigger in ("account_limits_changed", "account_limits_truncated"):
        if not store_url.startswith("sqlite"):
            store._execute(f"DROP TRIGGER IF EXISTS {trigger} ON account_limits")
    store._execute("DROP TABLE account_limits")
    store.close()
    reopened = open_store(store_url)
    try:
        caller = authenticate(reopened, f"Bearer {token}", "127.0.0.1", NOW)
        assert (caller.key_id, caller.account_rate_limit) == (key.key_id, None)
        assert reopened.set_account_limits(account.user_id, CAP).pooled_limit == CAP
    finally:
        reopened.close()


def test_every_credential_of_an_account_names_one_pool() -> None:
    """A key, an access token of any client and a dashboard session of one account are counted in
    one pooled envelope (and carry its cap); another account's credentials in another."""
    store = open_store("sqlite:///:memory:")
    try:
        person = store.set_account_limits(store.create_account("p@example.org").user_id, CAP)
        other = store.create_account("o@example.org")
        key, _ = store.create_key(person.user_id, "laptop")
        by_key = build_caller(key, person, "1.2.3.4")
        by_token = token_caller(
            person, TokenClaims(person.user_id, frozenset({READ_SCOPE}), None, "a", {}), "", NOW
        )
        by_session = session_caller(person, "1.2.3.4", NOW)
    finally:
        store.close()
    pools = {caller_pool(c) for c in (by_key, by_token, by_session)}
    assert pools == {(account_pool_id(person.user_id), Limits(None, 100, None, 50_000))}
    assert by_token.key_id == by_session.key_id == account_credential_id(person.user_id) != by_key.key_id
    assert account_pool_id(other.user_id) != account_pool_id(person.user_id)
    pool_id = account_pool_id(person.user_id)
    assert len(pool_id) == 16 and pool_id.startswith("pool")  # the ledger's and Redis's ids are 16 long


def test_the_cli_sets_and_clears_the_pooled_envelope(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(*argv: str) -> dict[str, object]:
        code = main([argv[0], "--keystore", store_url, *argv[1:]])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        answer: dict[str, object] = json.loads(captured.out)
        return answer

    created = run("accounts", "create", "--email", "ops@example.com")
    assert created["pooled_rate_limit"] is None
    shown = run("accounts", "set-limits", "ops@example.com", "--per-minute", "100", "--monthly", "50000")
    assert shown["pooled_rate_limit"] == {
        "per_second": None,
        "per_minute": 100,
        "per_day": None,
        "monthly_requests": 50000,
    }
    # Only the windows given change; `none` lifts one.
    shown = run("accounts", "set-limits", "ops@example.com", "--per-day", "9000", "--monthly", "none")
    assert shown["pooled_rate_limit"] == {
        "per_second": None,
        "per_minute": 100,
        "per_day": 9000,
        "monthly_requests": None,
    }
    assert run("accounts", "show", "ops@example.com")["pooled_rate_limit"] == shown["pooled_rate_limit"]
    assert run("accounts", "clear-limits", "ops@example.com")["pooled_rate_limit"] is None
    with pytest.raises(SystemExit) as refused:  # a malformed argument: argparse's exit status 2
        main(["accounts", "--keystore", store_url, "set-limits", "ops@example.com", "--per-second", "0"])
    assert refused.value.code == 2 and "positive integer" in capsys.readouterr().err
