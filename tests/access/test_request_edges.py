"""Edges of the request path over a real key store: forwarded addresses, canonical paths, the
access line of refused requests, and `/v1/me` while the limiter is down."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from datetime import datetime
from typing import Any

import pytest

from tests.access.conftest import CLIENT_IP, EVERYTHING, World, endpoint_path, mounted_ids
from tests.raw_asgi import exchange

ISO_UTC_SECONDS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def access_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "serve.access"]


# -- X-Forwarded-For ------------------------------------------------------------------------


def raw_get(world: World, path: str, headers: list[tuple[str, str]]) -> tuple[int, dict[str, Any]]:
    """GET through the app with `headers` exactly as listed (the TestClient would merge repeated
    header lines into one), from `CLIENT_IP`."""
    lines = [(name.lower().encode(), value.encode()) for name, value in headers]
    status, _, body = asyncio.run(exchange(world.app, "GET", path, lines, client=(CLIENT_IP, 50000)))
    return status, json.loads(body)


def test_a_client_line_before_the_proxy_line_cannot_forge_the_address(make_world: Any) -> None:
    """With one trusted proxy, the proxy's entry is the last of all X-Forwarded-For lines."""
    world = make_world(trusted_proxy_hops=1)
    world.store.set_key_ips(world.key_ids["wrong_ip"], ["10.0.0.0/8"])
    token = ("Authorization", f"Bearer {world.tokens['wrong_ip']}")
    # The client sends its own line first; the proxy appends its line with the address it saw.
    lines = [("X-Forwarded-For", "10.1.2.3"), ("X-Forwarded-For", "203.0.113.9")]
    status, body = raw_get(world, "/v1/me", [token, *lines])
    assert status == 403, body
    assert (body["error"]["code"], body["error"]["details"]) == ("ip_not_allowed", {"ip": "203.0.113.9"})
    # Two lines are the same list as one line with both entries.
    status, body = raw_get(world, "/v1/me", [token, ("X-Forwarded-For", "10.1.2.3, 203.0.113.9")])
    assert (status, body["error"]["details"]) == (403, {"ip": "203.0.113.9"})
    # With the allowed address last (the proxy's line), the key is admitted.
    status, body = raw_get(
        world, "/v1/me", [token, ("X-Forwarded-For", "192.0.2.1"), ("X-Forwarded-For", "10.1.2.3")]
    )
    assert (status, body["data"]["ip"]) == (200, "10.1.2.3")


@pytest.mark.parametrize(
    ("entry", "seen"),
    [
        ("203.0.113.9:51234", "203.0.113.9"),
        ("[2001:db8::7]:443", "2001:db8::7"),
        ("[2001:DB8::7]", "2001:db8::7"),
        ("2001:db8::7", "2001:db8::7"),
        ("::ffff:198.51.100.7", "198.51.100.7"),  # an IPv4 client through an IPv6 socket
        ("<script>alert(1)</script>", "unparsable"),
        ("x" * 5000, "unparsable"),
        ("203.0.113.9:port", "unparsable"),
        ("[2001:db8::7]junk", "unparsable"),
    ],
)
def test_the_forwarded_entry_is_parsed_as_an_address(make_world: Any, entry: str, seen: str) -> None:
    world = make_world(trusted_proxy_hops=1)
    refused = world.get("/v1/me", "wrong_ip", {"X-Forwarded-For": entry})
    assert refused.status_code == 403
    assert refused.json()["error"]["details"] == {"ip": seen}  # never the client's text as is
    if seen != "unparsable":
        world.store.set_key_ips(world.key_ids["wrong_ip"], [seen])
        assert world.get("/v1/me", "wrong_ip", {"X-Forwarded-For": entry}).json()["data"]["ip"] == seen
    else:
        # A key without an allow-list is admitted; /v1/me shows the stand-in, not the text.
        assert world.get("/v1/me", "full_raw", {"X-Forwarded-For": entry}).json()["data"]["ip"] == seen


def test_without_trusted_hops_the_header_is_ignored(world: World) -> None:
    response = world.get("/v1/me", "full_raw", {"X-Forwarded-For": "garbage, 10.0.0.1"})
    assert response.json()["data"]["ip"] == CLIENT_IP


# -- canonical paths ------------------------------------------------------------------------


def test_trailing_slashes_and_empty_segments_are_unknown_paths(world: World) -> None:
    paths = ["/openapi.json", "/v1/health", "/downloads/archives/x/y.zip"]
    paths += [endpoint_path(world, endpoint_id)[0] for endpoint_id in mounted_ids(world.app)]
    for path in paths:
        variants = {path + "/", path + "//", "/" + path[1:].replace("/", "//", 1)} - {path}
        for variant in variants:
            response = world.get(variant, "admin")
            assert response.status_code == 404, (variant, response.text)
            error = response.json()["error"]
            assert (error["code"], error["details"]) == ("not_found", {"path": variant})
            assert error["request_id"] == response.headers["x-request-id"]
    assert world.get("/v1/me", "admin").status_code == 200


def test_a_non_canonical_path_is_not_found_for_every_method(world: World) -> None:
    for method in ("HEAD", "OPTIONS", "POST"):
        response = world.client.request(method, "/v1/me/")
        assert response.status_code == 404
        if method != "HEAD":
            assert response.json()["error"]["code"] == "not_found"


# -- the access line of refused requests ----------------------------------------------------


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("suspended", "key_suspended"),
        ("revoked", "key_revoked"),
        ("expired", "key_expired"),
        ("deactivated", "account_inactive"),
        ("deleted", "account_inactive"),
        ("wrong_ip", "ip_not_allowed"),
        ("meta_only", "endpoint_not_allowed"),
    ],
)
def test_a_refused_identified_key_is_named_in_the_access_line(
    world: World, caplog: pytest.LogCaptureFixture, token: str, code: str
) -> None:
    with caplog.at_level(logging.INFO, logger="serve.access"):
        response = world.get("/v1/alphas", token)
    assert response.json()["error"]["code"] == code
    (line,) = access_lines(caplog)
    assert (line["key_id"], line["route"], line["status"]) == (
        world.key_ids[token],
        "catalog.alphas.list",
        response.status_code,
    )


def test_an_unidentified_key_is_not_named(world: World, caplog: pytest.LogCaptureFixture) -> None:
    real = world.tokens["full_raw"]
    wrong_secret = real[:-3] + ("AAA" if not real.endswith("AAA") else "BBB")
    with caplog.at_level(logging.INFO, logger="serve.access"):
        assert world.get("/v1/alphas", wrong_secret).status_code == 401
    assert [line["key_id"] for line in access_lines(caplog)] == [None]


def test_a_rate_limited_key_is_named(make_world: Any, caplog: pytest.LogCaptureFixture) -> None:
    from access import RateLimit

    world = make_world(populated=False)
    world.account("tight")
    # One request a day: a per-second window could turn between the two requests on a slow machine.
    world.key("tight", "tight", EVERYTHING, rate_limit=RateLimit(100, 100, 1, None))
    with caplog.at_level(logging.INFO, logger="serve.access"):
        statuses = [world.get("/v1/me", "tight").status_code for _ in range(2)]
    assert statuses == [200, 429]
    assert [line["key_id"] for line in access_lines(caplog)] == [world.key_ids["tight"]] * 2


def test_other_methods_on_a_known_path_log_its_route(world: World, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="serve.access"):
        for method in ("HEAD", "OPTIONS", "POST"):
            response = world.client.request(method, "/v1/alphas/Test_planted_factor/books")
            assert response.status_code == 404
        world.client.request("HEAD", "/v1/nothing")
    lines = access_lines(caplog)
    assert [(line["method"], line["route"]) for line in lines] == [
        ("HEAD", "portfolio.books"),
        ("OPTIONS", "portfolio.books"),
        ("POST", "portfolio.books"),
        ("HEAD", None),
    ]


# -- /v1/me while the limiter is down -------------------------------------------------------


# -- timestamps of /v1/me/keys --------------------------------------------------------------


def test_inventory_timestamps_are_utc_seconds_with_z(make_world: Any) -> None:
    from datetime import UTC, timedelta

    world = make_world(populated=False)
    world.account("owner")
    expiry = datetime(2031, 5, 6, 7, 8, 9, 987654, tzinfo=UTC)
    world.key("dated", "owner", EVERYTHING, expires_at=expiry)
    rows = world.get("/v1/me/keys", "dated").json()["data"]
    assert len(rows) == 1
    assert rows[0]["expires_at"] == "2031-05-06T07:08:09Z"
    assert ISO_UTC_SECONDS.fullmatch(rows[0]["created_at"]), rows[0]["created_at"]
    created = datetime.fromisoformat(rows[0]["created_at"].replace("Z", "+00:00"))
    assert abs(datetime.now(UTC) - created) < timedelta(minutes=5)
