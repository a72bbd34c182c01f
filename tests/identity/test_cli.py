"""The operator CLI, run in-process through `cli.main.main`, on both stores."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from access import authenticate, open_store
from access.tokens import hash_secret, parse_token
from cli.main import main
from core import errors
from schemas.registry import ADMIN_IDS, ALL_IDS, META_IDS
from tests.support.operator_cli import Cli

NOW = datetime(2025, 6, 2, tzinfo=UTC)


@pytest.fixture
def cli(store_url: str, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(store_url, capsys)


def test_create_account_create_key_authenticate(
    cli: Cli, store_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    account = cli.json("accounts", "create", "--email", "ops@example.com")
    created = cli.json("keys", "create", "--user", "ops@example.com", "--name", "laptop", "--json")
    assert isinstance(account, dict) and isinstance(created, dict)
    token, key_id = created["token"], created["key_id"]
    assert parse_token(token).key_id == key_id

    store = open_store(store_url)
    try:
        caller = authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
        assert (caller.key_id, caller.user_id) == (key_id, account["user_id"])

        cli.run("keys", "suspend", key_id)
        with pytest.raises(errors.KeySuspended):
            authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
        cli.run("keys", "reactivate", key_id)
        cli.run("accounts", "deactivate", account["user_id"])
        with pytest.raises(errors.AccountInactive):
            authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
        cli.run("accounts", "activate", "ops@example.com")
        cli.run("keys", "set-expiry", key_id, "2025-06-01")
        with pytest.raises(errors.KeyExpired):
            authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
        cli.run("keys", "set-expiry", key_id, "never")
        cli.run("keys", "set-ips", key_id, "10.0.0.0/8,192.0.2.1")
        with pytest.raises(errors.IpNotAllowed):
            authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
        cli.run("keys", "set-ips", key_id, "any")
        assert authenticate(store, f"Bearer {token}", "127.0.0.1", NOW).key_id == key_id
        cli.run("keys", "revoke", key_id)
        with pytest.raises(errors.KeyRevoked):
            authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
    finally:
        store.close()

    # After issuance, neither the secret nor its hash is ever shown or logged.
    secret = parse_token(token).secret
    cli.run("keys", "show", key_id)
    cli.run("keys", "list", "--user", "ops@example.com", "--all")
    later_outputs = "".join(cli.outputs[4:])  # everything after `keys create`
    assert key_id in later_outputs
    assert secret not in later_outputs and hash_secret(secret) not in later_outputs
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert key_id in logged
    assert secret not in logged and hash_secret(secret) not in logged


def test_keys_create_without_json_prints_the_token_once(cli: Cli) -> None:
    cli.run("accounts", "create", "--email", "plain@example.com")
    out = cli.run("keys", "create", "--user", "plain@example.com", "--name", "k", "--env", "test")
    token = out.strip()
    assert parse_token(token).env == "test"
    assert "shown only once" in cli.outputs[-1]


def test_ceiling_grant_raw_book_and_limits(cli: Cli) -> None:
    cli.run("accounts", "create", "--email", "g@example.com")
    key_id = cli.json("keys", "create", "--user", "g@example.com", "--name", "k", "--json")["key_id"]  # type: ignore[index]
    shown = cli.json("keys", "grant", key_id, "--endpoints", "all", "--alphas", "prefix:Test_,Prod_mom")
    assert isinstance(shown, dict)
    # The ceiling is still self-service: granted widely, effective meta-only and Test_ only.
    assert shown["granted"]["endpoints"] == {"mode": "all"}
    assert shown["effective"]["endpoints"] == {"mode": "list", "ids": ["meta.health", "meta.keys", "meta.me"]}
    assert shown["effective"]["alphas"] == {"mode": "prefix", "prefixes": ["Test_"]}

    ceiling = cli.json(
        "accounts",
        "set-ceiling",
        "g@example.com",
        "--endpoints",
        "all",
        "--alphas",
        "all",
        "--raw-book",
        "on",
    )
    assert isinstance(ceiling, dict) and ceiling["ceiling"]["expose_raw_book"] is True
    assert ceiling["ceiling"]["runs"] == {"mode": "prefix", "prefixes": ["Test_"]}  # untouched
    shown = cli.json("keys", "show", key_id)
    assert isinstance(shown, dict)
    assert "admin.keys.usage" not in shown["callable_endpoints"]
    assert "performance.metrics" in shown["callable_endpoints"]
    assert shown["effective"]["alphas"] == {"mode": "prefix", "prefixes": ["Prod_mom", "Test_"]}
    assert shown["effective"]["expose_raw_book"] is False
    shown = cli.json("keys", "set-raw-book", key_id, "on")
    assert isinstance(shown, dict) and shown["effective"]["expose_raw_book"] is True

    shown = cli.json("keys", "set-limits", key_id, "--per-second", "50", "--monthly", "unlimited")
    assert isinstance(shown, dict)
    assert shown["rate_limit"] == {
        "per_second": 50,
        "per_minute": 60,
        "per_day": 5000,
        "monthly_requests": None,
    }
    shown = cli.json("keys", "set-limits", key_id, "--per-day", "7")
    assert isinstance(shown, dict) and shown["rate_limit"]["monthly_requests"] is None

    promoted = cli.json("accounts", "set-role", "g@example.com", "admin")
    assert isinstance(promoted, dict) and promoted["is_admin"] is True
    shown = cli.json("keys", "show", key_id)
    assert isinstance(shown, dict) and "admin.keys.usage" in shown["callable_endpoints"]


def test_operator_mistakes_exit_non_zero_with_a_message(cli: Cli) -> None:
    cli.run("accounts", "show", "nobody@example.com", expect=1)
    assert "no account" in cli.outputs[-1]
    cli.run("accounts", "create", "--email", "dup@example.com")
    cli.run("accounts", "create", "--email", "dup@example.com", expect=1)
    cli.run("keys", "revoke", "AAAAAAAAAAAAAAAA", expect=1)
    cli.run("accounts", "delete", "dup@example.com")
    cli.run("accounts", "activate", "dup@example.com", expect=1)
    with pytest.raises(SystemExit):
        main(["keys", "grant", "x", "--endpoints", "meta.me,not.an.endpoint"])
    with pytest.raises(SystemExit):
        main(["keys", "grant", "x", "--alphas", "Test_"])


def test_keystore_from_environment(
    store_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ALPHA_RESULTS_KEYSTORE_URL", store_url)
    assert main(["accounts", "create", "--email", "env@example.com"]) == 0
    capsys.readouterr()
    store = open_store(store_url)
    try:
        assert store.find_account_by_email("env@example.com") is not None
    finally:
        store.close()


def test_a_grant_the_ceiling_clamps_is_reported_with_the_command_that_widens_it(cli: Cli) -> None:
    cli.json("accounts", "create", "--email", "member@example.com")
    key_id = cli.json("keys", "create", "--user", "member@example.com", "--name", "k", "--json")["key_id"]  # type: ignore[index]
    shown = cli.json("keys", "grant", key_id, "--alphas", "all", "--endpoints", "signals.scores,meta.me")
    warning = cli.outputs[-1]
    # The self-service ceiling opens meta.* and Test_ alphas only: both lists were clamped.
    assert "warning: the ceiling of account member@example.com clamps this grant" in warning
    assert "  endpoints: meta.me (granted meta.me,signals.scores)" in warning
    assert "  alphas: prefix:Test_ (granted all)" in warning
    widen = next(line for line in warning.splitlines() if line.startswith("to widen the ceiling: "))
    command = widen.removeprefix("to widen the ceiling: alpha-results ").split()
    assert isinstance(shown, dict) and shown["effective"]["alphas"] == {
        "mode": "prefix",
        "prefixes": ["Test_"],
    }
    # The suggested command, run as printed, lifts the clamp: the same grant then warns of nothing.
    cli.json(*command)
    cli.json("keys", "grant", key_id, "--alphas", "all", "--endpoints", "signals.scores,meta.me")
    assert cli.outputs[-1] == ""
    after = cli.json("keys", "show", key_id)
    assert isinstance(after, dict) and after["effective"] == after["granted"]


def test_a_grant_within_the_ceiling_says_nothing(cli: Cli) -> None:
    cli.json("accounts", "create", "--email", "quiet@example.com")
    key_id = cli.json("keys", "create", "--user", "quiet@example.com", "--name", "k", "--json")["key_id"]  # type: ignore[index]
    cli.json("keys", "grant", key_id, "--alphas", "prefix:Test_", "--endpoints", "meta.me")
    assert cli.outputs[-1] == ""


def test_a_key_for_an_unknown_account_names_the_command_that_creates_it(cli: Cli) -> None:
    cli.run("keys", "create", "--user", "new@example.com", "--name", "k", expect=1)
    assert cli.outputs[-1].strip() == (
        "error: no account 'new@example.com'; create it first: alpha-results accounts create --email new@example.com"
    )


def test_the_widening_command_never_narrows_the_ceiling(cli: Cli) -> None:
    """A ceiling of prefixes and a grant of ids cannot be joined in one list: the suggestion is
    `all`, never the grant's ids alone (which would take the prefixes from every other key)."""
    cli.json("accounts", "create", "--email", "mixed@example.com")
    key_id = cli.json("keys", "create", "--user", "mixed@example.com", "--name", "k", "--json")["key_id"]  # type: ignore[index]
    cli.json("keys", "grant", key_id, "--alphas", "list:momentum_12_1")
    widen = next(line for line in cli.outputs[-1].splitlines() if line.startswith("to widen the ceiling: "))
    assert widen.endswith("--alphas all"), widen


def printed_commands(said: str) -> list[list[str]]:
    """The `alpha-results ...` commands printed on lines of their own, as argv after the script."""
    return [
        line.strip().removeprefix("alpha-results ").split()
        for line in said.splitlines()
        if line.strip().startswith("alpha-results keys ")
    ]


@pytest.mark.parametrize("json_output", [False, True], ids=["token", "json"])
def test_a_new_key_says_what_it_reads_and_how_to_give_it_what_the_ceiling_allows(
    cli: Cli, store_url: str, json_output: bool
) -> None:
    """A new key on an account whose ceiling is `all` reads only `Test_` alphas and runs until a
    `keys grant` (issue 33): `keys create` says so, with the commands that widen it."""
    cli.json("accounts", "create", "--email", "wide@example.com")
    cli.json(
        "accounts", "set-ceiling", "wide@example.com", "--endpoints", "all", "--alphas", "all", "--runs", "all",
        "--raw-book", "on",
    )  # fmt: skip
    out = cli.run(
        "keys", "create", "--user", "wide@example.com", "--name", "k", *(["--json"] if json_output else [])
    )
    said = cli.outputs[-1]
    token = json.loads(out)["token"] if json_output else out.strip()
    key_id = parse_token(token).key_id
    member_endpoints = len([i for i in ALL_IDS if i not in ADMIN_IDS])  # a member never calls admin routes
    assert said.splitlines()[1:6] == [
        "It reads:",
        f"  endpoints: all ({member_endpoints} callable)",
        "  alphas: prefix:Test_",
        "  runs: prefix:Test_",
        "  raw books and raw fields: off",
    ]
    assert (
        "The ceiling of account wide@example.com allows more than this key's grants "
        "(alphas all, runs all, raw books and raw fields); to give it to this key:"
    ) in said
    commands = printed_commands(said)
    assert commands == [
        ["keys", "grant", key_id, "--alphas", "all", "--runs", "all"],
        ["keys", "set-raw-book", key_id, "on"],
    ]
    store = open_store(store_url)
    try:
        before = authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
        assert not before.may_read_alpha("momentum_12_1") and not before.expose_raw_book
        for command in commands:  # run as printed
            cli.json(*command)
        after = authenticate(store, f"Bearer {token}", "127.0.0.1", NOW)
    finally:
        store.close()
    assert after.may_read_alpha("momentum_12_1") and after.may_read_run("momentum_12_1")
    assert after.expose_raw_book


def test_a_new_key_at_its_ceiling_names_the_ceiling_as_the_limit(cli: Cli) -> None:
    cli.json("accounts", "create", "--email", "new@example.com")  # the self-service ceiling
    out = cli.run("keys", "create", "--user", "new@example.com", "--name", "k")
    said = cli.outputs[-1]
    assert parse_token(out.strip())
    assert said.splitlines()[1:7] == [
        "It reads:",
        f"  endpoints: {','.join(META_IDS)} ({len(META_IDS)} callable)",
        "  alphas: prefix:Test_",
        "  runs: prefix:Test_",
        "  raw books and raw fields: off",
        "That is all the ceiling of account new@example.com allows; to widen the ceiling (here to "
        "everything): alpha-results accounts set-ceiling new@example.com --endpoints all --alphas all "
        "--runs all --raw-book on",
    ]
    assert printed_commands(said) == []  # no `keys grant` can give it more


def test_a_new_key_of_an_administrator_calls_every_route_but_reads_test_alphas_only(cli: Cli) -> None:
    cli.json("accounts", "create", "--email", "root@example.com", "--role", "admin")
    out = cli.run("keys", "create", "--user", "root@example.com", "--name", "k")
    said = cli.outputs[-1]
    key_id = parse_token(out.strip()).key_id
    # An administrator's ceiling is everything, admin routes included; the key starts at Test_.
    assert f"  endpoints: all ({len(ALL_IDS)} callable)" in said and "  alphas: prefix:Test_" in said
    assert printed_commands(said) == [
        ["keys", "grant", key_id, "--alphas", "all", "--runs", "all"],
        ["keys", "set-raw-book", key_id, "on"],
    ]
