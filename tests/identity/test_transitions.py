"""Final states stay final even when a check and a change race; e-mails are case-insensitive;
rate limits are at least 1 per window.

A race is reproduced deterministically by a stale read: the store is made to see the record as it
was before another process revoked the key or deleted the account. A rule checked by a read and
then applied by a separate write follows the stale read; a rule inside the write does not.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from access import RateLimit
from access.records import SELF_SERVICE_GRANTS
from access.store import DuplicateEmail, IdentityError, InvalidTransition, SqlKeyStore, UnknownAccount
from tests.support.operator_cli import Cli


@pytest.fixture
def stale(store: SqlKeyStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`stale(record)`: from now on the store reads `record` for its id, whatever the database holds."""

    def freeze(record: Any) -> None:
        if hasattr(record, "key_id"):
            monkeypatch.setattr(store, "get_key", lambda key_id: record)
        else:
            monkeypatch.setattr(store, "get_account", lambda user_id: record)

    yield freeze


def test_a_revoked_key_is_never_changed_even_after_a_stale_read(store: SqlKeyStore, stale: Any) -> None:
    account = store.create_account("race-key@example.com")
    key, _ = store.create_key(account.user_id, "k")
    store.revoke_key(key.key_id)
    revoked_at = store.get_key(key.key_id).revoked_at  # type: ignore[union-attr]
    stale(key)  # the key as read before the revocation
    for change in (
        lambda: store.set_key_status(key.key_id, "active"),
        lambda: store.revoke_key(key.key_id),
        lambda: store.set_key_expiry(key.key_id, None),
        lambda: store.set_key_grants(key.key_id, SELF_SERVICE_GRANTS),
        lambda: store.set_key_limits(key.key_id, RateLimit(9, 9, 9, None)),
        lambda: store.set_key_ips(key.key_id, None),
    ):
        with pytest.raises(InvalidTransition):
            change()
    rows, _ = store._execute("SELECT revoked_at, per_second FROM api_keys WHERE key_id = ?", (key.key_id,))
    assert rows[0][1] == key.rate_limit.per_second  # nothing was written
    assert rows[0][0] is not None and revoked_at is not None


def test_a_deleted_account_stays_deleted_even_after_a_stale_read(store: SqlKeyStore, stale: Any) -> None:
    account = store.create_account("race-account@example.com")
    store.set_account_status(account.user_id, "deleted")
    stale(account)  # the account as read before the deletion: active
    with pytest.raises(InvalidTransition):
        store.set_account_status(account.user_id, "active")
    with pytest.raises(InvalidTransition):
        store.create_key(account.user_id, "after deletion")
    with pytest.raises(InvalidTransition):
        store.set_account_role(account.user_id, "admin")
    rows, _ = store._execute("SELECT status, role FROM accounts WHERE user_id = ?", (account.user_id,))
    assert rows == [("deleted", "member")]
    keys, _ = store._execute("SELECT count(*) FROM api_keys WHERE user_id = ?", (account.user_id,))
    assert keys == [(0,)]


def test_deletion_and_role_rules(store: SqlKeyStore) -> None:
    account = store.create_account("role@example.com")
    assert store.set_account_role(account.user_id, "admin").role == "admin"
    store.set_account_status(account.user_id, "deactivated")
    assert store.set_account_role(account.user_id, "member").role == "member"  # deactivated: allowed
    store.set_account_status(account.user_id, "deleted")
    assert store.set_account_status(account.user_id, "deleted").status == "deleted"  # idempotent
    with pytest.raises(InvalidTransition):
        store.set_account_role(account.user_id, "admin")
    with pytest.raises(UnknownAccount):
        store.set_account_role("u_nobody", "admin")
    with pytest.raises(UnknownAccount):
        store.set_account_status("u_nobody", "deleted")


def test_emails_are_one_account_whatever_their_case(store: SqlKeyStore) -> None:
    account = store.create_account("  Alice@Example.COM ")
    assert account.email == "alice@example.com"
    with pytest.raises(DuplicateEmail):
        store.create_account("alice@example.com")
    with pytest.raises(DuplicateEmail):
        store.create_account("ALICE@EXAMPLE.COM")
    assert store.find_account_by_email("aLiCe@example.com") == account


def test_an_older_mixed_case_row_is_found_and_still_unique(store: SqlKeyStore) -> None:
    """A row written before e-mails were normalised keeps its case; lookups and uniqueness ignore it."""
    account = store.create_account("bob@example.com")
    store._execute("UPDATE accounts SET email = ? WHERE user_id = ?", ("Bob@Example.com", account.user_id))
    assert store.find_account_by_email("BOB@example.com") == replace(account, email="Bob@Example.com")
    with pytest.raises(DuplicateEmail):
        store.create_account("bob@example.com")


@pytest.mark.parametrize(
    "limits",
    [
        RateLimit(0, 60, 5000, None),
        RateLimit(5, 0, 5000, None),
        RateLimit(5, 60, 0, None),
        RateLimit(5, 60, 5000, 0),
        RateLimit(-1, 60, 5000, None),
        RateLimit(5, 60, 5000, -3),
    ],
)
def test_rate_limits_are_at_least_one_per_window(store: SqlKeyStore, limits: RateLimit) -> None:
    account = store.create_account(f"limits{abs(hash(limits))}@example.com")
    key, _ = store.create_key(account.user_id, "k")
    with pytest.raises(IdentityError):
        store.set_key_limits(key.key_id, limits)
    with pytest.raises(IdentityError):
        store.create_key(account.user_id, "k2", rate_limit=limits)
    assert store.get_key(key.key_id).rate_limit == key.rate_limit  # type: ignore[union-attr]
    assert store.set_key_limits(key.key_id, RateLimit(1, 1, 1, 1)).rate_limit == RateLimit(1, 1, 1, 1)


@pytest.mark.parametrize("option", ["--per-second", "--per-minute", "--per-day", "--monthly"])
@pytest.mark.parametrize("value", ["0", "-2"])
def test_cli_set_limits_refuses_zero_and_negative(
    store_url: str, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    cli = Cli(store_url, capsys)
    cli.run("accounts", "create", "--email", "cap@example.com")
    created = cli.json("keys", "create", "--user", "cap@example.com", "--name", "k", "--json")
    assert isinstance(created, dict)
    with pytest.raises(SystemExit) as refused:  # argparse: a usage error, exit status 2
        cli.run("keys", "set-limits", created["key_id"], option, value)
    assert refused.value.code == 2
    assert "positive integer" in capsys.readouterr().err
    shown = cli.json("keys", "set-limits", created["key_id"], "--monthly", "unlimited")
    assert isinstance(shown, dict) and shown["rate_limit"]["monthly_requests"] is None


def test_cli_set_role_on_a_deleted_account_is_refused(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(store_url, capsys)
    cli.run("accounts", "create", "--email", "gone@example.com")
    cli.run("accounts", "delete", "gone@example.com")
    cli.run("accounts", "set-role", "gone@example.com", "admin", expect=1)
    assert "deleted" in cli.outputs[-1]
