"""Percent-encoded paths through the real `alpha-results serve` process: an encoded `/` or an
encoded unreserved character is a second spelling of a path, 404 `not_found` before any key is
read (uvicorn hands the app both the decoded path and the raw one)."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from serve.front import NONCANONICAL_ESCAPE
from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e

UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def test_the_refused_escapes_are_exactly_slash_and_the_unreserved_characters() -> None:
    """Brute force over every byte, in both hex cases."""
    for byte in range(256):
        refused = chr(byte) in UNRESERVED or chr(byte) == "/"
        for escape in (f"%{byte:02X}", f"%{byte:02x}"):
            assert bool(NONCANONICAL_ESCAPE.search(escape.encode())) == refused, escape


def get(port: int, raw_path: str, token: str | None) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.putrequest("GET", raw_path, skip_accept_encoding=True)
    if token is not None:
        connection.putheader("Authorization", f"Bearer {token}")
    connection.endheaders()
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    return response.status, body


def test_encoded_spellings_of_a_path_are_not_found_before_any_key_is_read(
    shared_server: SharedServer,
) -> None:
    key, port = shared_server.key(), shared_server.port
    assert get(port, "/v1/alphas/Test_planted_factor/books", key.token)[0] == 200
    for raw in (
        "/v1/alphas/Test_planted_factor%2Fbooks",
        "/v1/alphas/Test_planted_factor%2fbooks",
        "/v1/alphas/%54est_planted_factor/books",
        "/v1/alphas/Test_planted_factor/book%73",
        "/v1/%61lphas",
        "/v1/alphas/Test%5Fplanted_factor/books",
        "/v1/alphas/Test_planted_factor/rebalances/2024%2D01%2D05",
    ):
        for token in (None, key.token):
            status, body = get(port, raw, token)
            assert status == 404 and body["error"]["code"] == "not_found", (raw, body)
    # An escape of a reserved or other character is not a second spelling: it routes as usual
    # and finds nothing (no alpha has a space in its id).
    status, body = get(port, "/v1/alphas/Test%20planted/books", key.token)
    assert status == 404 and body["error"]["code"] == "run_not_found", body
