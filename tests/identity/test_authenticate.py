"""Every outcome of `authenticate`, its check order, and live effect of changes, on both stores."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from access import authenticate, open_store, reject_key_in_query
from access.records import SELF_SERVICE_GRANTS
from access.store import SqlKeyStore
from access.tokens import generate_token
from core import errors
from core.context import AllowList

NOW = datetime(2025, 6, 2, 12, 0, tzinfo=UTC)
IP = "203.0.113.9"


def new_key(store: SqlKeyStore, email: str = "m@example.com", **options: object) -> tuple[str, str, str]:
    """(user_id, key_id, token) of a fresh member account and key."""
    account = store.create_account(email)
    key, token = store.create_key(account.user_id, "k", **options)  # type: ignore[arg-type]
    return account.user_id, key.key_id, token


def bearer(token: str) -> str:
    return f"Bearer {token}"


def test_valid_key_gives_a_clamped_caller(store: SqlKeyStore) -> None:
    user_id, key_id, token = new_key(store)
    caller = authenticate(store, bearer(token), IP, NOW)
    assert (caller.key_id, caller.user_id, caller.email, caller.role) == (
        key_id,
        user_id,
        "m@example.com",
        "member",
    )
    assert not caller.is_admin
    assert caller.endpoints == {"meta.health", "meta.keys", "meta.me"}
    assert caller.may_read_alpha("Test_momentum") and not caller.may_read_alpha("Prod_momentum")
    assert caller.may_read_run("Test_x") and not caller.may_read_run("x")
    assert caller.expose_raw_book is False
    assert caller.ip == IP
    assert caller.rate_limit == {
        "per_second": 5,
        "per_minute": 60,
        "per_day": 5000,
        "monthly_requests": 100000,
    }


@pytest.mark.parametrize(
    "header", [None, "", "   ", "Bearer", "Bearer   ", "Basic dXNlcjpwYXNz", "Token abc"]
)
def test_missing_key_carries_the_bearer_challenge(store: SqlKeyStore, header: str | None) -> None:
    with pytest.raises(errors.MissingApiKey) as caught:
        authenticate(store, header, IP, NOW)
    assert caught.value.status == 401
    assert caught.value.headers == {"WWW-Authenticate": "Bearer"}


def test_scheme_is_case_insensitive(store: SqlKeyStore) -> None:
    _, key_id, token = new_key(store)
    assert authenticate(store, f"bearer {token}", IP, NOW).key_id == key_id


@pytest.mark.parametrize("header", ["Bearer not-a-token", "Bearer ar_live_abc.def"])
def test_malformed_key(store: SqlKeyStore, header: str) -> None:
    with pytest.raises(errors.MalformedApiKey):
        authenticate(store, header, IP, NOW)


class NoLookupStore:
    def find_credentials(self, key_id: str, secret_sha256: str) -> None:
        raise AssertionError("the store must not be read for a malformed token")


def test_shape_and_checksum_are_checked_before_any_lookup() -> None:
    token = generate_token().token
    typo = token[:-1] + ("A" if token[-1] != "A" else "B")
    with pytest.raises(errors.MalformedApiKey):
        authenticate(NoLookupStore(), bearer(typo), IP, NOW)  # type: ignore[arg-type]


def test_unknown_key_id_is_invalid(store: SqlKeyStore) -> None:
    new_key(store)
    with pytest.raises(errors.InvalidApiKey):
        authenticate(store, bearer(generate_token().token), IP, NOW)


def test_wrong_secret_is_invalid(store: SqlKeyStore) -> None:
    # The checksum ties key_id to the secret, so a different secret under the same key_id can
    # only be produced by changing the stored hash.
    _, key_id, token = new_key(store)
    other = generate_token()
    store._execute("UPDATE api_keys SET secret_sha256 = ? WHERE key_id = ?", (other.secret_sha256, key_id))
    with pytest.raises(errors.InvalidApiKey):
        authenticate(store, bearer(token), IP, NOW)


def test_revoked_suspended_expired_inactive(store: SqlKeyStore) -> None:
    user_id, key_id, token = new_key(store)
    store.set_key_status(key_id, "suspended")
    with pytest.raises(errors.KeySuspended):
        authenticate(store, bearer(token), IP, NOW)
    store.set_key_status(key_id, "active")
    assert authenticate(store, bearer(token), IP, NOW).key_id == key_id

    store.set_key_expiry(key_id, NOW)
    with pytest.raises(errors.KeyExpired):
        authenticate(store, bearer(token), IP, NOW)
    assert authenticate(store, bearer(token), IP, NOW - timedelta(microseconds=1)).key_id == key_id
    store.set_key_expiry(key_id, None)

    for status in ("deactivated", "deleted"):
        other = store.create_account(f"{status}@example.com")
        _, token_of_other = store.create_key(other.user_id, "k")
        store.set_account_status(other.user_id, status)
        with pytest.raises(errors.AccountInactive) as caught:
            authenticate(store, bearer(token_of_other), IP, NOW)
        assert caught.value.status == 403

    store.revoke_key(key_id, now=NOW)
    with pytest.raises(errors.KeyRevoked):
        authenticate(store, bearer(token), IP, NOW)


def test_ip_allow_list(store: SqlKeyStore) -> None:
    _, key_id, token = new_key(store, ip_allow=["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"])
    for allowed in ("10.1.2.3", "192.0.2.7", "2001:db8::1", "::ffff:10.9.9.9"):
        assert authenticate(store, bearer(token), allowed, NOW).ip == allowed
    for refused in ("11.0.0.1", "192.0.2.8", "2001:db9::1", "not-an-ip"):
        with pytest.raises(errors.IpNotAllowed) as caught:
            authenticate(store, bearer(token), refused, NOW)
        assert caught.value.details == {"ip": refused}
    store.set_key_ips(key_id, None)
    assert authenticate(store, bearer(token), "11.0.0.1", NOW).key_id == key_id


def test_check_order(store: SqlKeyStore) -> None:
    """Each failure shadows the ones after it: revoked > suspended > expired > inactive > IP."""
    user_id, key_id, token = new_key(store, ip_allow=["10.0.0.0/8"], expires_at=NOW - timedelta(days=1))
    store.set_account_status(user_id, "deactivated")
    store.set_key_status(key_id, "suspended")
    expected = [errors.KeySuspended, errors.KeyExpired, errors.AccountInactive, errors.IpNotAllowed]
    undo = [
        lambda: store.set_key_status(key_id, "active"),
        lambda: store.set_key_expiry(key_id, None),
        lambda: store.set_account_status(user_id, "active"),
        lambda: store.set_key_ips(key_id, None),
    ]
    for error, fix in zip(expected, undo, strict=True):
        with pytest.raises(error):
            authenticate(store, bearer(token), IP, NOW)
        fix()
    assert authenticate(store, bearer(token), IP, NOW).key_id == key_id
    # Revocation shadows everything, including a suspended key on an inactive account.
    store.set_key_status(key_id, "suspended")
    store.set_account_status(user_id, "deactivated")
    store.revoke_key(key_id)
    with pytest.raises(errors.KeyRevoked):
        authenticate(store, bearer(token), IP, NOW)


def test_changes_by_another_process_take_effect_on_the_next_call(store: SqlKeyStore, store_url: str) -> None:
    """The serving store stays open; an operator's store (another connection) makes each change."""
    user_id, key_id, token = new_key(store)
    operator = open_store(store_url)
    try:
        assert authenticate(store, bearer(token), IP, NOW).role == "member"

        operator.set_account_role(user_id, "admin")
        caller = authenticate(store, bearer(token), IP, NOW)
        assert caller.is_admin and caller.role == "admin"
        operator.set_account_role(user_id, "member")

        operator.set_account_status(user_id, "deactivated")
        with pytest.raises(errors.AccountInactive):
            authenticate(store, bearer(token), IP, NOW)
        operator.set_account_status(user_id, "active")

        operator.set_key_status(key_id, "suspended")
        with pytest.raises(errors.KeySuspended):
            authenticate(store, bearer(token), IP, NOW)
        operator.set_key_status(key_id, "active")

        operator.set_key_expiry(key_id, NOW - timedelta(seconds=1))
        with pytest.raises(errors.KeyExpired):
            authenticate(store, bearer(token), IP, NOW)
        operator.set_key_expiry(key_id, None)

        widened = replace(SELF_SERVICE_GRANTS, endpoints=AllowList.all())
        operator.set_account_ceiling(user_id, widened)
        operator.set_key_grants(key_id, widened)
        assert authenticate(store, bearer(token), IP, NOW).may_call("catalog.alphas.list")
        operator.set_account_ceiling(user_id, SELF_SERVICE_GRANTS)
        assert not authenticate(store, bearer(token), IP, NOW).may_call("catalog.alphas.list")

        operator.revoke_key(key_id)
        with pytest.raises(errors.KeyRevoked):
            authenticate(store, bearer(token), IP, NOW)
    finally:
        operator.close()


def test_naive_now_is_taken_as_utc(store: SqlKeyStore) -> None:
    _, key_id, token = new_key(store, expires_at=NOW)
    with pytest.raises(errors.KeyExpired):
        authenticate(store, bearer(token), IP, NOW.replace(tzinfo=None))


@pytest.mark.parametrize(
    "query",
    [
        {"api_key": "whatever"},
        {"API_KEY": "x"},
        {"access_token": "x"},
        {"token": "x"},
        {"search": "ar_live_ABCDEFGHIJKLMNOP.rest"},
    ],
)
def test_a_key_in_the_query_string_is_refused_without_echoing_it(query: dict[str, str]) -> None:
    with pytest.raises(errors.MissingApiKey) as caught:
        reject_key_in_query(query)
    assert caught.value.headers == {"WWW-Authenticate": "Bearer"}
    assert caught.value.details == {"parameter": next(iter(query))}
    assert next(iter(query.values())) not in caught.value.message


def test_ordinary_query_parameters_pass() -> None:
    reject_key_in_query({"search": "momentum", "limit": "10", "book": "long_short"})
    reject_key_in_query([("symbol", "SPY"), ("from", "2024-01-01")])
