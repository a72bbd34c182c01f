"""`/v1/me` and `/v1/me/keys`: every documented field, usage from the enforcing limiter, the inventory."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from access import RateLimit
from access.records import PooledLimit
from serve.limits import Limits
from tests.access.conftest import ALPHA, CLIENT_IP, EVERYTHING, World
from tests.representation_rows import rows_of

ME_FIELDS = {
    "key_id", "key_name", "user_id", "email", "role", "is_admin", "allow", "field_policy",
    "rate_limit", "usage", "account_usage", "callable_endpoints", "registry_version", "ip", "credential",
}  # fmt: skip
ROW_FIELDS = {
    "key_id", "display_prefix", "name", "status", "allow", "field_policy", "rate_limit", "usage",
    "expires_at", "created_at",
}  # fmt: skip
USAGE_FIELDS = {f"{p}{w}" for p in ("", "remaining_") for w in ("second", "minute", "day", "month")}
ENVELOPE = RateLimit(per_second=50, per_minute=100, per_day=1000, monthly_requests=5000)


def test_me_has_every_field_and_nothing_secret(world: World) -> None:
    response = world.get("/v1/me", "full_raw")
    assert response.status_code == 200
    body = response.json()
    data = body["data"]
    assert set(data) == ME_FIELDS
    assert set(data["usage"]) == set(data["account_usage"]) == USAGE_FIELDS
    assert data["credential"] == "key"  # a key's request (issue 80: key, oauth or session)
    assert set(data["rate_limit"]) == {"per_second", "per_minute", "per_day", "monthly_requests"}
    assert data["key_name"] == "full_raw" and data["email"] == "member@example.com"
    assert data["user_id"] == world.users["member"] and data["role"] == "member"
    assert data["ip"] == CLIENT_IP
    assert data["registry_version"] == world.get("/v1/health", None).json()["registry_version"]
    assert data["callable_endpoints"] == sorted(data["callable_endpoints"])
    assert body["meta"]["key_id"] == data["key_id"]
    assert body["meta"]["request_id"] == response.headers["x-request-id"]


def test_usage_is_what_the_enforcing_limiter_counted(make_world: Any, frozen_clock: datetime) -> None:
    world = make_world()
    world.key("metered", "member", EVERYTHING, rate_limit=ENVELOPE)
    n = 6
    for path in ["/v1/alphas", f"/v1/alphas/{ALPHA}/books", "/v1/me/keys"] * (n // 3):
        assert world.get(path, "metered").status_code == 200
    assert world.get("/v1/alphas", "metered", limit="0").status_code == 400  # counted: it was served
    assert world.get("/v1/me", "not-a-token").status_code == 401  # not this key's
    response = world.get("/v1/me", "metered")
    data = response.json()["data"]
    used = n + 2  # the six, the 400, and this request itself
    assert data["rate_limit"] == {
        "per_second": 50,
        "per_minute": 100,
        "per_day": 1000,
        "monthly_requests": 5000,
    }
    expected = {"second": used, "minute": used, "day": used, "month": used}
    for window, limit in (("second", 50), ("minute", 100), ("day", 1000), ("month", 5000)):
        expected[f"remaining_{window}"] = limit - used
    assert data["usage"] == expected
    # The same numbers as the limiter itself reports, and as the headers of the same response.
    limits = Limits(per_second=50, per_minute=100, per_day=1000, monthly_requests=5000)
    assert world.limiter.usage(world.key_ids["metered"], limits, frozen_clock) == expected
    assert response.headers["x-ratelimit-used"] == str(used)
    assert response.headers["x-ratelimit-remaining"] == str(50 - used)
    assert response.headers["x-ratelimit-window"] == "second"

    rows = world.get("/v1/me/keys", "metered", limit=100).json()["data"]
    mine = next(r for r in rows if r["key_id"] == world.key_ids["metered"])
    assert mine["usage"]["minute"] == used + 1 and mine["usage"]["remaining_minute"] == 100 - used - 1
    assert mine["rate_limit"] == data["rate_limit"]
    untouched = next(r for r in rows if r["key_id"] == world.key_ids["suspended"])
    assert untouched["usage"]["month"] == 0 and untouched["usage"]["remaining_month"] is None


def test_account_usage_is_every_key_of_the_account(make_world: Any, frozen_clock: datetime) -> None:
    """Issue 80, item 3: `account_usage` counts the requests of all the account's keys; with no
    pooled cap nothing is remaining-limited; with one (set in the store, read on the next request)
    the account's envelope refuses a key whose own envelope has room, and `usage` stays the key's."""
    world = make_world()
    world.key("metered", "member", EVERYTHING, rate_limit=ENVELOPE)
    for token in ("metered", "full_raw", "metered", "full_raw"):
        assert world.get("/v1/alphas", token).status_code == 200
    data = world.get("/v1/me", "metered").json()["data"]
    assert data["usage"]["minute"] == 3  # the key's own: its two, and this request
    assert data["account_usage"] == {
        "second": 5, "minute": 5, "day": 5, "month": 5,
        "remaining_second": None, "remaining_minute": None, "remaining_day": None, "remaining_month": None,
    }  # fmt: skip
    world.store.set_account_limits(world.users["member"], PooledLimit(per_minute=7))
    data = world.get("/v1/me", "full_raw").json()["data"]
    assert (data["account_usage"]["minute"], data["account_usage"]["remaining_minute"]) == (6, 1)
    assert data["account_usage"]["remaining_second"] is None
    assert world.get("/v1/alphas", "metered").status_code == 200
    refused = world.get("/v1/alphas", "metered")
    error = refused.json()["error"]
    assert (refused.status_code, error["code"], error["details"]["envelope"]) == (
        429,
        "rate_limit_minute",
        "account",
    )
    assert refused.headers["x-ratelimit-limit"] == "7" and refused.headers["x-ratelimit-window"] == "minute"
    # The refused request is in neither count: the key's minute is its 4 admitted, the account's 7.
    limits = Limits(per_second=50, per_minute=100, per_day=1000, monthly_requests=5000)
    assert world.limiter.usage(world.key_ids["metered"], limits, frozen_clock)["minute"] == 4


def test_remaining_is_floored_and_null_without_a_monthly_quota(
    make_world: Any, frozen_clock: datetime
) -> None:
    world = make_world()
    world.key("tight", "member", EVERYTHING, rate_limit=RateLimit(3, 100, 1000, None))
    for _ in range(3):
        assert world.get("/v1/alphas", "tight").status_code == 200
    assert world.get("/v1/me", "tight").json()["error"]["code"] == "rate_limit_second"
    limits = Limits(per_second=3, per_minute=100, per_day=1000, monthly_requests=None)
    usage = world.limiter.usage(world.key_ids["tight"], limits, frozen_clock)
    assert usage["second"] == 3 and usage["remaining_second"] == 0 and usage["remaining_month"] is None
    # A sibling key reads the inventory: the refused request was not counted.
    row = next(
        r for r in world.get("/v1/me/keys", "full_raw", limit=100).json()["data"]
        if r["key_id"] == world.key_ids["tight"]
    )  # fmt: skip
    assert row["usage"] == usage
    assert row["rate_limit"]["monthly_requests"] is None


def test_inventory_is_newest_first_paged_masked_and_without_revoked_keys(make_world: Any) -> None:
    world = make_world(populated=False)
    user = world.account("owner", ceiling=EVERYTHING)
    base = datetime(2030, 1, 1, tzinfo=UTC)
    created = {}
    for name, days in (("b", 2), ("d", 4), ("a", 1), ("e", 5), ("c", 3)):
        record, token = world.store.create_key(user, name, grants=EVERYTHING, now=base + timedelta(days=days))
        created[name] = record.key_id
        world.tokens[name] = token
    world.store.revoke_key(created["d"])
    world.store.set_key_status(created["b"], "suspended")

    pages = [world.get("/v1/me/keys", "a", limit=2, offset=o).json() for o in (0, 2)]
    assert [p["pagination"]["total"] for p in pages] == [4, 4]
    assert [p["pagination"]["has_more"] for p in pages] == [True, False]
    rows = pages[0]["data"] + pages[1]["data"]
    assert [r["name"] for r in rows] == ["e", "c", "b", "a"]
    assert [r["created_at"] for r in rows] == sorted((r["created_at"] for r in rows), reverse=True)
    assert rows[0]["created_at"] == "2030-01-06T00:00:00Z"
    assert {r["name"]: r["status"] for r in rows}["b"] == "suspended"
    for row in rows:
        assert set(row) == ROW_FIELDS
        assert re.fullmatch(r"ar_live_[0-9A-Za-z]{4}…", row["display_prefix"])
        assert row["display_prefix"] == f"ar_live_{row['key_id'][:4]}…"
    assert all(p["meta"]["key_id"] == created["a"] for p in pages)
    # Another account's keys never appear.
    world.account("other")
    world.key("other_key", "other")
    assert world.key_ids["other_key"] not in {r["key_id"] for r in rows}


def test_a_never_granted_key_reports_the_meta_only_list(make_world: Any) -> None:
    world = make_world(populated=False)
    world.account("fresh")
    world.key("fresh_key", "fresh")
    row = world.get("/v1/me/keys", "fresh_key").json()["data"][0]
    assert row["allow"]["endpoints"] == {"mode": "list", "ids": ["meta.health", "meta.keys", "meta.me"]}
    assert row["field_policy"] == {"expose_raw_book": False}


def test_openapi_declares_the_identity_shapes(world: World) -> None:
    document = world.get("/openapi.json", None).json()
    schemas = document["components"]["schemas"]
    assert set(schemas["Me"]["required"]) == ME_FIELDS
    assert set(schemas["KeyInventoryRow"]["required"]) == ROW_FIELDS
    keys = document["paths"]["/v1/me/keys"]["get"]
    assert [p["name"] for p in keys["parameters"] if p["in"] == "query"] == ["limit", "offset", "format"]
    assert keys["operationId"] == "meta.keys" and keys["security"] == [{"bearer": []}]
    assert document["paths"]["/v1/me"]["get"]["operationId"] == "meta.me"


@pytest.mark.parametrize("name", ["arrow", "csv", "ndjson", "parquet"])
def test_the_inventory_in_every_representation(make_world: Any, name: str) -> None:
    """The key inventory's rows hold nested objects (allow-lists, limits, usage) no wire type
    declares: typed from their values in Arrow and Parquet, JSON text in CSV cells."""
    world = make_world(populated=False)
    user = world.account("owner", ceiling=EVERYTHING)
    for key in ("a", "b"):
        world.tokens[key] = world.store.create_key(user, key, grants=EVERYTHING)[1]
    body = world.get("/v1/me/keys", "a").json()
    response = world.get("/v1/me/keys", "a", format=name)
    assert response.status_code == 200
    rows = rows_of(name, response.content, body["data"])
    # `usage` counts this very request: one more than in the JSON answer before it.
    assert [r["usage"]["minute"] for r in rows] == [
        r["usage"]["minute"] + (r["name"] == "a") for r in body["data"]
    ]
    assert [{**r, "usage": None} for r in rows] == [{**r, "usage": None} for r in body["data"]]
    assert response.headers["x-total-count"] == "2"
