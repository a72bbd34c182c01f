"""Store rules on both backends, secrets kept as hashes only, payloads of /me and /me/keys, demo identities."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from access import (
    DEFAULT_RATE_LIMIT,
    SELF_SERVICE_GRANTS,
    authenticate,
    ensure_demo_identities,
    key_inventory_row,
    me_payload,
    zero_usage,
)
from access.demo import LOCAL_RATE_LIMIT
from access.records import DEFAULT_KEY_GRANTS, RateLimit
from access.store import DuplicateEmail, IdentityError, InvalidTransition, SqlKeyStore, UnknownAccount
from access.tokens import parse_token
from core.context import AllowList
from serve.endpoints import registry_version

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def test_new_account_and_key_get_the_self_service_defaults(store: SqlKeyStore) -> None:
    account = store.create_account("new@example.com", now=T0)
    assert (account.role, account.status, account.created_at) == ("member", "active", T0)
    assert account.ceiling == SELF_SERVICE_GRANTS
    key, _ = store.create_key(account.user_id, "laptop", now=T0)
    # Endpoints omitted: the account ceiling as-is, which is meta-only for a self-service account.
    assert key.grants == DEFAULT_KEY_GRANTS
    assert key.grants.endpoints.intersect(account.ceiling.endpoints) == SELF_SERVICE_GRANTS.endpoints
    assert key.rate_limit == RateLimit(5, 60, 5000, 100_000) == DEFAULT_RATE_LIMIT
    assert (key.status, key.revoked_at, key.expires_at, key.ip_allow, key.env) == (
        "active",
        None,
        None,
        None,
        "live",
    )
    assert store.get_key(key.key_id) == key
    assert store.get_account(account.user_id) == account == store.find_account_by_email("new@example.com")


def test_values_round_trip_identically(store: SqlKeyStore) -> None:
    account = store.create_account("rt@example.com")
    grants = replace(
        SELF_SERVICE_GRANTS,
        endpoints=AllowList.of_ids(["meta.me", "performance.metrics"]),
        alphas=AllowList.of_ids(["Test_a", "Prod_b"]),
        runs=AllowList.all(),
        expose_raw_book=True,
    )
    expires = datetime(2030, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    key, _ = store.create_key(
        account.user_id,
        "ci",
        env="test",
        grants=grants,
        rate_limit=RateLimit(1, 2, 3, None),
        ip_allow=["10.0.0.1", "10.1.0.0/16", "10.1.2.3/16"],
        expires_at=expires,
    )
    again = store.get_key(key.key_id)
    assert again is not None
    assert again.grants == grants and again.env == "test" and again.expires_at == expires
    assert again.rate_limit == RateLimit(1, 2, 3, None)
    assert again.ip_allow == ("10.0.0.1/32", "10.1.0.0/16")


def test_keys_of_a_user_newest_first_revoked_omitted(store: SqlKeyStore) -> None:
    account = store.create_account("list@example.com")
    other = store.create_account("other@example.com")
    ids = [store.create_key(account.user_id, f"k{i}", now=T0 + timedelta(days=i))[0].key_id for i in range(4)]
    store.create_key(other.user_id, "not mine")
    store.revoke_key(ids[1])
    assert [k.key_id for k in store.list_keys_of_user(account.user_id)] == [ids[3], ids[2], ids[0]]
    assert [k.key_id for k in store.list_keys_of_user(account.user_id, include_revoked=True)] == ids[::-1]


def test_only_the_secret_hash_is_stored(store: SqlKeyStore) -> None:
    account = store.create_account("hash@example.com")
    _, token = store.create_key(account.user_id, "k")
    secret = parse_token(token).secret
    rows, _ = store._execute("SELECT * FROM api_keys")
    stored = " ".join(str(value) for row in rows for value in row)
    assert secret not in stored and token not in stored
    assert hashlib.sha256(secret.encode()).hexdigest() in stored


def test_refused_operations(store: SqlKeyStore) -> None:
    account = store.create_account("rules@example.com")
    with pytest.raises(DuplicateEmail):
        store.create_account("rules@example.com")
    with pytest.raises(IdentityError):
        store.create_account("no-at-sign")
    with pytest.raises(IdentityError):
        store.create_account("x@example.com", role="owner")
    with pytest.raises(UnknownAccount):
        store.create_key("u_nobody", "k")
    with pytest.raises(IdentityError):
        store.create_key(account.user_id, "  ")
    key, _ = store.create_key(account.user_id, "k")
    with pytest.raises(IdentityError):
        store.set_key_ips(key.key_id, ["10.0.0.300"])
    with pytest.raises(IdentityError):
        store.set_key_limits(key.key_id, RateLimit(-1, 1, 1, None))
    with pytest.raises(IdentityError):
        store.set_key_status(key.key_id, "revoked")  # revocation has its own operation
    store.revoke_key(key.key_id)
    for change in (
        lambda: store.set_key_status(key.key_id, "active"),
        lambda: store.revoke_key(key.key_id),
        lambda: store.set_key_expiry(key.key_id, None),
        lambda: store.set_key_grants(key.key_id, SELF_SERVICE_GRANTS),
    ):
        with pytest.raises(InvalidTransition):
            change()
    store.set_account_status(account.user_id, "deleted")
    with pytest.raises(InvalidTransition):
        store.set_account_status(account.user_id, "active")
    with pytest.raises(InvalidTransition):
        store.create_key(account.user_id, "after deletion")


def test_ping(store: SqlKeyStore) -> None:
    store.ping()


def test_me_payload_has_every_documented_field(store: SqlKeyStore) -> None:
    account = store.create_account("me@example.com")
    key, token = store.create_key(account.user_id, "notebook")
    caller = authenticate(store, f"Bearer {token}", "198.51.100.4", datetime.now(UTC))
    usage = {**zero_usage(key.rate_limit), "minute": 3, "remaining_minute": 57}
    pooled = {"second": 1, "minute": 4, "day": 9, "month": 9, "remaining_second": None,
              "remaining_minute": 96, "remaining_day": None, "remaining_month": None}  # fmt: skip
    payload = msgspec.to_builtins(
        me_payload(caller, key, usage, None, registry_version(), pooled)
    )  # as served
    assert set(payload) == {
        "credential", "key_id", "key_name", "user_id", "email", "role", "is_admin", "allow", "field_policy",
        "rate_limit", "usage", "account_usage", "callable_endpoints", "registry_version", "ip",
    }  # fmt: skip
    assert payload["account_usage"] == pooled
    assert payload["credential"] == "key"
    assert payload["key_id"] == key.key_id and len(payload["key_id"]) == 16
    assert payload["key_name"] == "notebook" and payload["email"] == "me@example.com"
    assert payload["allow"] == {
        "endpoints": {"mode": "list", "ids": ["meta.health", "meta.keys", "meta.me"]},
        "alphas": {"mode": "prefix", "prefixes": ["Test_"]},
        "runs": {"mode": "prefix", "prefixes": ["Test_"]},
    }
    assert payload["field_policy"] == {"expose_raw_book": False}
    assert payload["rate_limit"] == {
        "per_second": 5,
        "per_minute": 60,
        "per_day": 5000,
        "monthly_requests": 100000,
    }
    assert payload["usage"]["minute"] == 3 and payload["usage"]["remaining_month"] == 100000
    assert payload["callable_endpoints"] == ["meta.health", "meta.keys", "meta.me"]
    assert payload["registry_version"] == registry_version() and payload["ip"] == "198.51.100.4"
    assert parse_token(token).secret not in repr(payload)
    with pytest.raises(ValueError):
        me_payload(caller, key, {"second": 0}, None, registry_version(), pooled)
    with pytest.raises(ValueError):
        me_payload(caller, key, usage, None, registry_version(), {"second": 0})


def test_inventory_row_is_masked_and_clamped_at_read_time(store: SqlKeyStore) -> None:
    account = store.create_account("inv@example.com")
    key, token = store.create_key(account.user_id, "wide", expires_at=T0, now=T0)
    key = store.set_key_grants(
        key.key_id, replace(SELF_SERVICE_GRANTS, endpoints=AllowList.all(), alphas=AllowList.all())
    )
    row = msgspec.to_builtins(key_inventory_row(key, account, zero_usage(key.rate_limit)))  # as served
    assert set(row) == {
        "key_id", "display_prefix", "name", "status", "allow", "field_policy", "rate_limit", "usage",
        "expires_at", "created_at",
    }  # fmt: skip
    assert row["display_prefix"] == f"ar_live_{key.key_id[:4]}…"
    assert row["allow"]["endpoints"] == {"mode": "list", "ids": ["meta.health", "meta.keys", "meta.me"]}
    assert row["allow"]["alphas"] == {"mode": "prefix", "prefixes": ["Test_"]}
    assert row["expires_at"] == "2025-01-01T00:00:00Z" and row["created_at"] == "2025-01-01T00:00:00Z"
    assert parse_token(token).secret not in repr(row) and key.key_id[4:] not in row["display_prefix"]

    widened = store.set_account_ceiling(
        account.user_id,
        replace(SELF_SERVICE_GRANTS, endpoints=AllowList.of_ids(["meta.me", "catalog.alphas.list"])),
    )
    row = msgspec.to_builtins(key_inventory_row(key, widened, zero_usage(key.rate_limit)))
    assert row["allow"]["endpoints"] == {"mode": "list", "ids": ["catalog.alphas.list", "meta.me"]}


def test_demo_identities_are_created_once(store: SqlKeyStore) -> None:
    first = ensure_demo_identities(store)
    assert first is not None and set(first) == {"admin", "member"}
    assert ensure_demo_identities(store) is None
    now = datetime.now(UTC)
    admin = authenticate(store, f"Bearer {first['admin']['token']}", "127.0.0.1", now)
    assert admin.is_admin and admin.email == "demo-admin@example.com" and admin.expose_raw_book
    assert admin.may_call("admin.keys.usage") and admin.may_read_alpha("Prod_anything")
    member = authenticate(store, f"Bearer {first['member']['token']}", "127.0.0.1", now)
    assert not member.is_admin and member.email == "demo@example.com"
    assert member.endpoints == {"meta.health", "meta.keys", "meta.me"} and not member.may_read_alpha("Prod_x")
    # The administrator's key carries local-friendly limits; the member keeps a new key's default.
    admin_key, member_key = store.get_key(admin.key_id), store.get_key(member.key_id)
    assert admin_key is not None and member_key is not None
    assert admin_key.rate_limit == LOCAL_RATE_LIMIT and admin_key.rate_limit.per_second >= 100
    assert member_key.rate_limit == DEFAULT_RATE_LIMIT
