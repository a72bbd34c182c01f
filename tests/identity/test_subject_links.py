"""A provider's person, (issuer, subject), linked to the account they sign in as (issue 80): the
store's links on both backends, the rule `account_of` applies (`oauth_account_rule`), and the
operator's commands. The same through the real provider: tests/e2e/test_mcp_oauth_provider.py."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from access.oauth import READ_SCOPE, TokenClaims, TokenRules, account_of, verify_token
from access.store import SqlKeyStore
from cli.main import main
from core import errors

ISSUER, OTHER_ISSUER = "https://sso.example.org/realms/research", "https://login.example.net/v2.0"
AUDIENCE = "https://results.example.com/mcp"
BY_SUBJECT = TokenRules(ISSUER, AUDIENCE, builtin=False)
BY_EMAIL = TokenRules(ISSUER, AUDIENCE, builtin=False, account_rule="email")
CREATING = TokenRules(ISSUER, AUDIENCE, builtin=False, create_accounts=True)


def person(subject: str, email: str | None) -> TokenClaims:
    """A verified token's claims: `email` is its verified e-mail (None: none, or not verified)."""
    return TokenClaims(subject, frozenset({READ_SCOPE}), email, "agent", {"iss": ISSUER, "sub": subject})


def account_rule(store: SqlKeyStore, claims: TokenClaims, rules: TokenRules = BY_SUBJECT) -> str:
    """The `token_rule` `account_of` refuses the claims by."""
    with pytest.raises(errors.InvalidApiKey) as refused:
        account_of(store, claims, rules)
    rule: str = refused.value.details["token_rule"]
    return rule


# -- the store -------------------------------------------------------------------------------------


def test_a_link_is_stored_read_listed_and_removed(store: SqlKeyStore) -> None:
    ana = store.create_account("ana@example.com")
    at = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert store.linked_account(ISSUER, "sub-ana") is None
    assert store.link_subject(ISSUER, "sub-ana", ana.user_id, "email", now=at)
    assert store.linked_account(ISSUER, "sub-ana") == ana.user_id
    assert store.linked_account(OTHER_ISSUER, "sub-ana") is None  # a subject is its issuer's
    assert store.link_subject(ISSUER, "sub-ana", ana.user_id, "email")  # already: still True
    (link,) = store.links_of_account(ana.user_id)
    assert (link.issuer, link.subject, link.user_id, link.linked_by, link.created_at) == (
        ISSUER,
        "sub-ana",
        ana.user_id,
        "email",
        at,
    )
    store.unlink_subject(ana.user_id, ISSUER, "sub-ana")
    assert store.linked_account(ISSUER, "sub-ana") is None and store.links_of_account(ana.user_id) == []
    with pytest.raises(Exception, match="has no link"):
        store.unlink_subject(ana.user_id, ISSUER, "sub-ana")


def test_a_sign_in_links_an_account_once_per_issuer_an_operator_may_add(store: SqlKeyStore) -> None:
    ana, bob = store.create_account("ana@example.com"), store.create_account("bob@example.com")
    assert store.link_subject(ISSUER, "sub-1", ana.user_id, "email")
    # The pair names one account; the account takes no second subject of that issuer by sign-in.
    assert not store.link_subject(ISSUER, "sub-1", bob.user_id, "email")
    assert not store.link_subject(ISSUER, "sub-2", ana.user_id, "email")
    assert not store.link_subject(ISSUER, "sub-2", ana.user_id, "created")
    assert store.linked_account(ISSUER, "sub-2") is None
    # Another issuer is another person's namespace; an operator may link more.
    assert store.link_subject(OTHER_ISSUER, "sub-1", ana.user_id, "email")
    assert store.link_subject(ISSUER, "sub-3", ana.user_id, "operator")
    assert not store.link_subject(ISSUER, "sub-1", bob.user_id, "operator")
    assert {(link.issuer, link.subject) for link in store.links_of_account(ana.user_id)} == {
        (ISSUER, "sub-1"),
        (OTHER_ISSUER, "sub-1"),
        (ISSUER, "sub-3"),
    }
    with pytest.raises(Exception, match="linked_by"):
        store.link_subject(ISSUER, "sub-4", bob.user_id, "guessed")


def test_a_sign_in_never_links_an_inactive_account(store: SqlKeyStore) -> None:
    ana, bob = store.create_account("ana@example.com"), store.create_account("bob@example.com")
    store.set_account_status(ana.user_id, "deactivated")
    store.set_account_status(bob.user_id, "deleted")
    assert not store.link_subject(ISSUER, "sub-ana", ana.user_id, "email")
    assert store.link_subject(ISSUER, "sub-ana", ana.user_id, "operator")  # the operator's choice
    assert not store.link_subject(ISSUER, "sub-bob", bob.user_id, "operator")  # deletion is final
    assert not store.link_subject(ISSUER, "sub-x", "u_missing", "operator")


# -- the rule --------------------------------------------------------------------------------------


def test_the_first_sign_in_links_by_verified_email_then_only_the_subject_counts(
    store: SqlKeyStore,
) -> None:
    ana = store.create_account("ana@example.com")
    other = store.create_account("ana.new@example.com")
    assert account_of(store, person("sub-ana", "Ana@Example.com"), BY_SUBJECT) == ana
    (link,) = store.links_of_account(ana.user_id)
    assert (link.issuer, link.subject, link.linked_by) == (ISSUER, "sub-ana", "email")
    # Her address changes at the provider (even to one naming another account): still her account.
    assert account_of(store, person("sub-ana", "ana.new@example.com"), BY_SUBJECT) == ana
    assert account_of(store, person("sub-ana", None), BY_SUBJECT) == ana
    assert store.links_of_account(other.user_id) == []


def test_a_second_subject_with_a_linked_accounts_email_is_refused(store: SqlKeyStore) -> None:
    ana = store.create_account("ana@example.com")
    assert account_of(store, person("sub-ana", "ana@example.com"), BY_SUBJECT) == ana
    # Her old address, re-used for someone else at the provider (or a second subject claiming it).
    assert account_rule(store, person("sub-newcomer", "ana@example.com")) == "account"
    assert account_rule(store, person("sub-newcomer", "ana@example.com"), CREATING) == "account"
    assert store.linked_account(ISSUER, "sub-newcomer") is None
    # Under the `email` rule (as before issue 80) the address alone names the account.
    assert account_of(store, person("sub-newcomer", "ana@example.com"), BY_EMAIL) == ana


def test_an_unverified_email_never_links(store: SqlKeyStore) -> None:
    ana = store.create_account("ana@example.com")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    keys = jwt.PyJWKSet.from_dict({"keys": [{**jwk, "kid": "k0", "use": "sig"}]})
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "sub-ana", "exp": int(time.time()) + 300}
    for verified in (False, "true", None):
        token = jwt.encode(
            {**claims, "email": "ana@example.com", "email_verified": verified},
            key,
            algorithm="RS256",
            headers={"kid": "k0"},
        )
        unverified = verify_token(token, keys, BY_SUBJECT, datetime.now(UTC))
        assert unverified.email is None
        for rules in (BY_SUBJECT, CREATING, BY_EMAIL):
            assert account_rule(store, unverified, rules) == "account"
    assert store.linked_account(ISSUER, "sub-ana") is None and store.links_of_account(ana.user_id) == []


def test_a_first_sign_in_creates_and_links_only_where_allowed(store: SqlKeyStore) -> None:
    assert account_rule(store, person("sub-new", "new@example.com")) == "account"
    assert store.find_account_by_email("new@example.com") is None
    created = account_of(store, person("sub-new", "new@example.com"), CREATING)
    assert created.email == "new@example.com" and created.role == "member"
    (link,) = store.links_of_account(created.user_id)
    assert (link.subject, link.linked_by) == ("sub-new", "created")
    assert account_of(store, person("sub-new", "renamed@example.com"), CREATING) == created


def test_a_linked_but_deactivated_account_is_inactive_and_never_relinked(store: SqlKeyStore) -> None:
    ana = store.create_account("ana@example.com")
    account_of(store, person("sub-ana", "ana@example.com"), BY_SUBJECT)
    store.set_account_status(ana.user_id, "deactivated")
    with pytest.raises(errors.AccountInactive):
        account_of(store, person("sub-ana", "ana@example.com"), BY_SUBJECT)
    # A deactivated account is not linked at a first sign-in either: refused as inactive.
    bob = store.create_account("bob@example.com")
    store.set_account_status(bob.user_id, "deactivated")
    with pytest.raises(errors.AccountInactive):
        account_of(store, person("sub-bob", "bob@example.com"), BY_SUBJECT)
    assert store.links_of_account(bob.user_id) == []


def test_the_built_in_servers_subject_is_the_user_id_whatever_the_rule(store: SqlKeyStore) -> None:
    ana = store.create_account("ana@example.com")
    builtin = TokenRules("https://results.example.com", AUDIENCE, builtin=True)
    assert account_of(store, person(ana.user_id, None), builtin) == ana
    assert store.links_of_account(ana.user_id) == []


# -- the operator's commands -----------------------------------------------------------------------


def test_an_operator_sees_links_removes_and_adds_them(
    store: SqlKeyStore, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ana = store.create_account("ana@example.com")
    account_of(store, person("sub-ana", "ana@example.com"), BY_SUBJECT)

    def run(*argv: str, expect: int = 0) -> Any:
        code = main(["accounts", "--keystore", store_url, *argv])
        out, err = capsys.readouterr()
        assert code == expect, err
        return json.loads(out) if out else {"error": err}

    shown = run("links", "ana@example.com")
    assert shown["user_id"] == ana.user_id
    assert [(x["issuer"], x["subject"], x["linked_by"]) for x in shown["links"]] == [
        (ISSUER, "sub-ana", "email")
    ]
    assert run("unlink", ana.user_id, "--issuer", ISSUER, "--subject", "sub-ana")["links"] == []
    assert "has no link" in str(
        run("unlink", ana.user_id, "--issuer", ISSUER, "--subject", "sub-ana", expect=1)["error"]
    )
    # Unlinked, the person is judged as at a first sign-in (here a new subject, by the same e-mail).
    assert account_of(store, person("sub-ana-2", "ana@example.com"), BY_SUBJECT) == ana
    # An operator links a subject (a provider without verified e-mails: Entra ID).
    linked = run("link", "ana@example.com", "--issuer", OTHER_ISSUER, "--subject", "oid-less-sub")
    assert ("oid-less-sub", "operator") in [(x["subject"], x["linked_by"]) for x in linked["links"]]
    bob = store.create_account("bob@example.com")
    refused = run("link", bob.user_id, "--issuer", ISSUER, "--subject", "sub-ana-2", expect=1)
    assert "unlink" in str(refused["error"])
    # `accounts deactivate` keeps working: the linked person is refused at once.
    run("deactivate", "ana@example.com")
    with pytest.raises(errors.AccountInactive):
        account_of(store, person("sub-ana-2", None), BY_SUBJECT)
