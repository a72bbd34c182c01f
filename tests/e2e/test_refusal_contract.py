"""The connection refusals keep the published contract (issue 22, review item 10), through the real
`alpha-results serve`: every `/v1` route's OpenAPI operation declares the statuses the server may
answer before a request reaches the app (408, 414, 431, 503), `/v1/health` included; a screener
request whose free-text values are each within their declared `maxLength` can still exceed the
request-target cap, and its 414 is a declared answer (the fuzz hooks keep positive cases under the
cap); and the refusal of a request the parser cannot read carries the `bad_request` envelope the
spec promises (`details.parameters`)."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from schemas.query import TEXT_MAX_LENGTH
from tests.fuzz.hooks import TARGET_CAP, within_target_cap
from tests.shared_servers import SharedServer
from tests.support.raw_connections import Peer, assert_refused

pytestmark = pytest.mark.e2e

REFUSALS = {"408", "414", "431", "503"}
SCREEN_TEXTS = ("search", "tag", "structure", "method", "correlated_to")


@pytest.fixture
def port(short_head_server: SharedServer) -> int:
    return short_head_server.port


def test_every_v1_operation_declares_the_connection_refusals(port: int) -> None:
    document = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=20).raise_for_status().json()
    operations = {
        (path, method): operation
        for path, item in document["paths"].items()
        if path.startswith("/v1/")
        for method, operation in item.items()
    }
    assert ("/v1/health", "get") in operations
    for (path, method), operation in operations.items():
        missing = REFUSALS - set(operation["responses"])
        assert not missing, f"{method.upper()} {path} does not declare {sorted(missing)}"
    # And /v1/health really answers them: here the target cap.
    peer = Peer(port)
    peer.send(b"GET /v1/health?" + b"q" * (TARGET_CAP + 10) + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert_refused(peer.answer(), 414, "request_target_too_long")


def test_a_screen_within_its_declared_maxima_can_exceed_the_target_cap_and_that_414_is_declared(
    port: int,
) -> None:
    document = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=20).raise_for_status().json()
    operation = document["paths"]["/v1/analytics/screen"]["get"]
    declared = {p["name"]: p["schema"] for p in operation["parameters"]}
    for name in SCREEN_TEXTS:
        assert declared[name].get("maxLength") == TEXT_MAX_LENGTH, name
    query = {name: "\U0001f600" * TEXT_MAX_LENGTH for name in SCREEN_TEXTS}  # 12 bytes each, encoded
    target = "/v1/analytics/screen?" + urlencode(query)
    assert len(target) > TARGET_CAP
    peer = Peer(port)
    peer.send(f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert_refused(peer.answer(), 414, "request_target_too_long")
    assert "414" in operation["responses"]
    # The fuzz hook shortens such a positive case until it fits.
    within_target_cap("/v1/analytics/screen", query)
    assert len("/v1/analytics/screen?" + urlencode(query)) <= TARGET_CAP
    assert all(query[name] for name in SCREEN_TEXTS)


def test_an_unparsable_request_gets_the_bad_request_envelope(port: int) -> None:
    peer = Peer(port)
    peer.send(b"GET /v1/health HTTP/1.1\r\nX-Bad: a\x00b\r\n\r\n")
    answer = peer.answer()
    assert_refused(answer, 400, "bad_request")
    details = answer.error["details"]
    assert details["parameters"] == []  # a list, as the spec promises: no parameter was read
    assert "header" in details["rule"].lower()
    assert peer.closed_within(5)
