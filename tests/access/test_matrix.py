"""Every endpoint the app mounts × every key situation, over HTTP, on both key stores."""

from __future__ import annotations

from typing import Any

import pytest

from access.tokens import generate_token, parse_token
from schemas.registry import ADMIN_IDS
from serve.endpoints import endpoints
from tests.access.conftest import (
    ALPHA,
    CLIENT_IP,
    MISSING_ALPHA,
    PRODUCTION_ALPHA,
    World,
    endpoint_path,
    mounted_ids,
)
from tests.support.tokens import checksum_typo


def keyed_ids(world: World) -> list[str]:
    return [i for i in mounted_ids(world.app) if not endpoints()[i].public]


def refusal(
    world: World, endpoint_id: str, token: str | None, **extra: Any
) -> tuple[int, dict[str, Any], Any]:
    path, params = endpoint_path(world, endpoint_id)
    response = world.get(path, token, **params, **extra)
    # A refusal is JSON; a granted /v1/events/stream answers Server-Sent Events.
    streamed = response.headers.get("content-type", "").startswith("text/event-stream")
    body = {} if streamed and response.status_code == 200 else response.json()
    return response.status_code, body.get("error", {}), response


# situation -> (token or a function of the world giving one, status, code)
SITUATIONS: dict[str, tuple[Any, int, str]] = {
    "none": (None, 401, "missing_api_key"),
    "malformed": ("not-a-token", 401, "malformed_api_key"),
    "wrong shape": ("ar_live_short.secret", 401, "malformed_api_key"),
    "checksum typo": (lambda w: checksum_typo(w.tokens["full_raw"]), 401, "malformed_api_key"),
    "unknown": (lambda w: generate_token("live").token, 401, "invalid_api_key"),
    "suspended": ("suspended", 401, "key_suspended"),
    "revoked": ("revoked", 401, "key_revoked"),
    "expired": ("expired", 401, "key_expired"),
    "deactivated account": ("deactivated", 403, "account_inactive"),
    "deleted account": ("deleted", 403, "account_inactive"),
    "wrong IP": ("wrong_ip", 403, "ip_not_allowed"),
}


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
def test_every_endpoint_refuses_the_key_situation(world: World, situation: str) -> None:
    token, status, code = SITUATIONS[situation]
    if callable(token):
        token = token(world)
    wrong = []
    for endpoint_id in keyed_ids(world):
        got_status, error, response = refusal(world, endpoint_id, token)
        if (got_status, error.get("code")) != (status, code):
            wrong.append((endpoint_id, got_status, error.get("code")))
            continue
        assert set(error) == {"code", "message", "details", "request_id"}
        assert error["request_id"] == response.headers["x-request-id"]
        if code == "missing_api_key":
            assert response.headers["www-authenticate"] == "Bearer"
        if code == "ip_not_allowed":
            assert error["details"] == {"ip": CLIENT_IP}
    assert not wrong, f"{situation}: expected {status} {code}, got {wrong}"


def test_checksum_typo_is_named_as_such(world: World) -> None:
    _, error, _ = refusal(world, "meta.me", checksum_typo(world.tokens["full_raw"]))
    assert "checksum" in error["message"]


def test_every_endpoint_refuses_a_key_without_the_endpoint(world: World) -> None:
    for endpoint_id in keyed_ids(world):
        token = "meta_only" if endpoint_id == "catalog.alphas.list" else "alphas_list_only"
        status, error, _ = refusal(world, endpoint_id, token)
        assert (status, error["code"]) == (403, "endpoint_not_allowed"), endpoint_id
        assert error["details"] == {"endpoint": endpoint_id}


def test_a_granted_key_passes_every_access_check(world: World) -> None:
    for endpoint_id in keyed_ids(world):
        token = "admin" if endpoint_id in ADMIN_IDS else "full_raw"
        status, error, response = refusal(world, endpoint_id, token)
        assert status not in (401, 403), (endpoint_id, response.text)
        # Signed URLs need a signing key, which this app has not: 503 not configured.
        if endpoint_id not in ADMIN_IDS | {"catalog.alphas.source.download", "exports.download"}:
            assert status == 200, (endpoint_id, response.text)


def test_mode_all_on_a_member_key_never_opens_admin_routes(world: World) -> None:
    me = world.get("/v1/me", "full_raw").json()["data"]
    assert me["allow"]["endpoints"] == {"mode": "all"} and not me["is_admin"]
    assert not ADMIN_IDS & set(me["callable_endpoints"])
    admin = world.get("/v1/me", "admin").json()["data"]
    assert ADMIN_IDS <= set(admin["callable_endpoints"])
    for endpoint_id in sorted(ADMIN_IDS & set(mounted_ids(world.app))):
        status, error, _ = refusal(world, endpoint_id, "full_raw")
        assert (status, error["code"], error["details"]) == (
            403,
            "endpoint_not_allowed",
            {"endpoint": endpoint_id},
        )


def test_health_needs_no_key_and_ignores_a_bad_one(world: World) -> None:
    world.store.calls.clear()
    for token in (None, "not-a-token", "revoked", "deleted", "wrong_ip"):
        response = world.get("/v1/health", token)
        assert response.status_code == 200, (token, response.text)
    assert world.store.calls["find_credentials"] == 0  # the key is not even looked at


ALPHA_GRANT_IDS = frozenset({"catalog.alphas.get", "catalog.alphas.promotions"})
"""Routes about the alpha itself (its description, its decisions): the alpha grant, not the run's."""


def alpha_scoped_ids(world: World) -> list[str]:
    return [i for i in keyed_ids(world) if "{alpha" in endpoints()[i].path and i not in ADMIN_IDS]


@pytest.mark.parametrize("alpha", [PRODUCTION_ALPHA, MISSING_ALPHA])
def test_alpha_not_granted_is_refused_whether_or_not_it_exists(world: World, alpha: str) -> None:
    for endpoint_id in alpha_scoped_ids(world):
        path, params = endpoint_path(world, endpoint_id, alpha)
        response = world.get(path, "test_only", **params)
        code = "alpha_not_allowed" if endpoint_id in ALPHA_GRANT_IDS else "run_not_allowed"
        assert response.status_code == 403, (endpoint_id, response.text)
        error = response.json()["error"]
        assert (error["code"], error["details"]) == (code, {"alpha": alpha}), endpoint_id
        # The same key may read the testing alpha through the same route.
        allowed_path, _ = endpoint_path(world, endpoint_id, ALPHA)
        assert world.get(allowed_path, "test_only", **params).status_code not in (401, 403), endpoint_id


def test_existing_and_missing_forbidden_alphas_read_the_same(world: World) -> None:
    for endpoint_id in alpha_scoped_ids(world):
        bodies = []
        for alpha in (PRODUCTION_ALPHA, MISSING_ALPHA):
            path, params = endpoint_path(world, endpoint_id, alpha)
            response = world.get(path, "test_only", **params)
            error = dict(response.json()["error"])
            error.pop("request_id")
            error["details"] = {k: v for k, v in error["details"].items() if k != "alpha"}
            bodies.append((response.status_code, error, sorted(set(response.headers) - {"x-request-id"})))
        assert bodies[0] == bodies[1], endpoint_id


def test_a_granted_key_tells_a_missing_alpha_apart(world: World) -> None:
    for endpoint_id in alpha_scoped_ids(world):
        path, params = endpoint_path(world, endpoint_id, "Test_never_published")
        response = world.get(path, "full_raw", **params)
        expected = "alpha_not_found" if endpoint_id in ALPHA_GRANT_IDS else "run_not_found"
        assert response.status_code == 404 and response.json()["error"]["code"] == expected, endpoint_id


def test_trusted_proxy_hops_pick_the_client_address(make_world: Any) -> None:
    world = make_world(trusted_proxy_hops=1)
    forwarded = {"X-Forwarded-For": "192.0.2.200, 203.0.113.9"}
    response = world.get("/v1/me", "wrong_ip", forwarded)
    assert response.status_code == 403
    assert response.json()["error"]["details"] == {"ip": "203.0.113.9"}
    world.store.set_key_ips(world.key_ids["wrong_ip"], ["203.0.113.0/24"])
    response = world.get("/v1/me", "wrong_ip", forwarded)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["ip"] == "203.0.113.9"
    # Without the header the socket peer is the only hop there is.
    response = world.get("/v1/me", "wrong_ip")
    assert response.json()["error"]["details"] == {"ip": CLIENT_IP}


def test_key_id_of_me_is_the_token_part(world: World) -> None:
    data = world.get("/v1/me", "full_raw").json()["data"]
    assert data["key_id"] == parse_token(world.tokens["full_raw"]).key_id
