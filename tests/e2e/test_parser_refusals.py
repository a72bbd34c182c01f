"""A request the HTTP parser refuses before the app sees it (a NUL byte or a broken header line)
still gets the JSON error envelope, through the real `alpha-results serve` process."""

from __future__ import annotations

import json
import socket

import pytest

from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e

BROKEN_REQUESTS = (
    b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n",
    b"GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
    b"GET /v1/health\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
)


def exchange(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(raw)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("raw", BROKEN_REQUESTS, ids=["nul-in-header", "no-colon", "nul-in-target"])
def test_a_request_the_parser_refuses_gets_the_error_envelope(
    shared_server: SharedServer, raw: bytes
) -> None:
    answer = exchange(shared_server.port, raw)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 400 Bad Request", answer
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    assert headers["content-type"] == "application/json"
    assert headers["x-content-type-options"] == "nosniff" and headers["connection"] == "close"
    error = json.loads(body)["error"]
    # What the spec's bad_request promises (`parameters`, none here), and the parser's reason.
    assert error["code"] == "bad_request" and error["details"]["parameters"] == []
    assert set(error["details"]) == {"parameters", "rule"} and error["details"]["rule"]
    assert error["request_id"] == headers["x-request-id"]
