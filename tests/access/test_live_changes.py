"""Operator changes made with the CLI change the very next HTTP answer of a running app, and the
self-service defaults hold over HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cli.main import main
from schemas.registry import ADMIN_IDS, META_IDS
from tests.access.conftest import ALPHA, PRODUCTION_ALPHA, World


class Cli:
    def __init__(self, world: World, capsys: pytest.CaptureFixture[str]) -> None:
        self.world, self.capsys = world, capsys

    def run(self, *argv: str) -> Any:
        group, *rest = argv
        code = main([group, "--keystore", self.world.store_url, *rest])
        captured = self.capsys.readouterr()
        assert code == 0, captured.err
        return json.loads(captured.out) if captured.out.strip().startswith(("{", "[")) else captured.out


def answer(world: World, path: str, token: str) -> tuple[int, str | None]:
    response = world.get(path, token)
    body = response.json()
    return response.status_code, body["error"]["code"] if "error" in body else None


def test_cli_changes_take_effect_on_the_next_request(make_world: Any, capsys: Any) -> None:
    world = make_world()
    cli = Cli(world, capsys)
    key_id, user = world.key_ids["full_raw"], "member@example.com"
    path = f"/v1/alphas/{ALPHA}/books"
    steps = [
        ((), (200, None)),
        (("keys", "suspend", key_id), (401, "key_suspended")),
        (("keys", "reactivate", key_id), (200, None)),
        (("keys", "set-expiry", key_id, "2020-01-01"), (401, "key_expired")),
        (("keys", "set-expiry", key_id, "never"), (200, None)),
        (("accounts", "deactivate", user), (403, "account_inactive")),
        (("accounts", "activate", user), (200, None)),
        (("keys", "set-ips", key_id, "10.0.0.0/8"), (403, "ip_not_allowed")),
        (("keys", "set-ips", key_id, "any"), (200, None)),
        (("keys", "grant", key_id, "--endpoints", "meta.me"), (403, "endpoint_not_allowed")),
        (("keys", "grant", key_id, "--endpoints", "all"), (200, None)),
        (("keys", "grant", key_id, "--runs", "prefix:Other_"), (403, "run_not_allowed")),
        (("keys", "grant", key_id, "--runs", "all"), (200, None)),
        (("accounts", "delete", user), (403, "account_inactive")),
    ]
    for command, expected in steps:
        if command:
            cli.run(*command)
        assert answer(world, path, "full_raw") == expected, command
    cli.run("keys", "revoke", world.key_ids["test_only"])
    assert answer(world, path, "test_only") == (401, "key_revoked")


def test_expired_key_still_reads_active(make_world: Any, capsys: Any) -> None:
    world = make_world()
    rows = world.get("/v1/me/keys", "full_raw", limit=100).json()["data"]
    expired = next(r for r in rows if r["key_id"] == world.key_ids["expired"])
    assert expired["status"] == "active" and expired["expires_at"] is not None
    shown = Cli(world, capsys).run("keys", "show", world.key_ids["expired"])
    assert shown["status"] == "active"
    assert answer(world, "/v1/me", "expired") == (401, "key_expired")


def test_self_service_defaults_over_http(make_world: Any, capsys: Any) -> None:
    world = make_world(populated=False)
    cli = Cli(world, capsys)
    cli.run("accounts", "create", "--email", "new@example.com")
    created = cli.run("keys", "create", "--user", "new@example.com", "--name", "first", "--json")
    world.tokens["new"] = created["token"]

    me = world.get("/v1/me", "new").json()["data"]
    assert me["callable_endpoints"] == sorted(META_IDS)
    assert me["allow"] == {
        "endpoints": {"mode": "list", "ids": sorted(META_IDS)},
        "alphas": {"mode": "prefix", "prefixes": ["Test_"]},
        "runs": {"mode": "prefix", "prefixes": ["Test_"]},
    }
    assert me["field_policy"] == {"expose_raw_book": False} and me["role"] == "member"
    assert me["rate_limit"] == {
        "per_second": 5,
        "per_minute": 60,
        "per_day": 5000,
        "monthly_requests": 100000,
    }
    # Room for the requests below; the self-service envelope would answer 429 within a second.
    limits = ("--per-second", "1000", "--per-minute", "10000", "--per-day", "100000")
    cli.run("keys", "set-limits", created["key_id"], *limits)
    assert answer(world, "/v1/alphas", "new") == (403, "endpoint_not_allowed")
    assert answer(world, "/v1/me/keys", "new") == (200, None)

    # `mode: all` on the key gives the ceiling as-is: still meta only.
    cli.run("keys", "grant", created["key_id"], "--endpoints", "all", "--alphas", "all", "--runs", "all")
    assert world.get("/v1/me", "new").json()["data"]["callable_endpoints"] == sorted(META_IDS)
    assert answer(world, "/v1/alphas", "new") == (403, "endpoint_not_allowed")

    # The administrator widens the endpoint ceiling: testing alphas open, production ones do not.
    cli.run("accounts", "set-ceiling", "new@example.com", "--endpoints", "all")
    listed = world.get("/v1/alphas", "new", limit=100).json()["data"]
    assert listed and all(row["alpha_id"].startswith("Test_") for row in listed)
    assert answer(world, f"/v1/alphas/{ALPHA}/books", "new") == (200, None)
    assert answer(world, f"/v1/alphas/{PRODUCTION_ALPHA}/books", "new") == (403, "run_not_allowed")
    assert answer(world, f"/v1/alphas/{PRODUCTION_ALPHA}", "new") == (403, "alpha_not_allowed")
    me = world.get("/v1/me", "new").json()["data"]
    assert not ADMIN_IDS & set(me["callable_endpoints"])

    # Production alphas need the administrator's grant on the ceiling.
    cli.run("accounts", "set-ceiling", "new@example.com", "--alphas", "all", "--runs", "all")
    assert answer(world, f"/v1/alphas/{PRODUCTION_ALPHA}/books", "new") == (200, None)
    assert PRODUCTION_ALPHA in {r["alpha_id"] for r in world.get("/v1/alphas", "new").json()["data"]}
    # Administrative routes stay closed to a member, then open with the role, read live.
    assert not ADMIN_IDS & set(world.get("/v1/me", "new").json()["data"]["callable_endpoints"])
    cli.run("accounts", "set-role", "new@example.com", "admin")
    me = world.get("/v1/me", "new").json()["data"]
    assert me["is_admin"] and ADMIN_IDS <= set(me["callable_endpoints"])
