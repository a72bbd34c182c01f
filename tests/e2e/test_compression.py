"""Compression and conditional requests through the real `alpha-results serve` (uvicorn): what a
client on the wire gets, not only what the ASGI app hands over."""

from __future__ import annotations

import gzip
import http.client
import json
from pathlib import Path
from typing import Any

import pytest
import zstandard

from serve.identity import open_store
from tests.e2e.test_serve_stack import serving
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e

PAGE = "/v1/alphas/Test_planted_factor/scores?limit=5000&fields=all"


def fetch(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def data_of(body: bytes) -> Any:
    decoded = json.loads(body)
    return decoded["data"], decoded["pagination"]


def test_gzip_and_zstd_round_trip_and_small_bodies_stay_plain(demo_lake: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    key = issue_key(open_store(url))
    auth = {"Authorization": f"Bearer {key.token}"}
    with serving(demo_lake, url, workers=1) as (port, _):
        status, headers, plain = fetch(port, PAGE, {**auth, "Accept-Encoding": "identity"})
        assert status == 200 and "content-encoding" not in headers and len(plain) > 100_000
        status, headers, packed = fetch(port, PAGE, {**auth, "Accept-Encoding": "gzip"})
        assert status == 200 and headers["content-encoding"] == "gzip"
        assert int(headers["content-length"]) == len(packed) < len(plain) / 3
        assert data_of(gzip.decompress(packed)) == data_of(plain)
        for accept in ("zstd", "gzip, deflate, br, zstd"):
            status, headers, packed = fetch(port, PAGE, {**auth, "Accept-Encoding": accept})
            assert status == 200 and headers["content-encoding"] == "zstd"
            whole = zstandard.ZstdDecompressor().decompressobj().decompress(packed)
            assert data_of(whole) == data_of(plain)
        # Under 1 KiB: sent as is, whatever the client accepts.
        status, headers, small = fetch(port, "/v1/alphas/Test_planted_factor/books?limit=0", auth)
        assert status == 400 and len(small) < 1024 and "content-encoding" not in headers


def test_a_304_over_the_wire_has_no_body_and_names_the_coding(demo_lake: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    key = issue_key(open_store(url))
    auth = {"Authorization": f"Bearer {key.token}"}
    with serving(demo_lake, url, workers=1) as (port, _):
        _, headers, _ = fetch(port, PAGE, {**auth, "Accept-Encoding": "gzip"})
        tag = headers["etag"]
        assert tag.endswith('-gzip"') and headers["vary"] == "Authorization, Accept-Encoding"
        status, headers, body = fetch(port, PAGE, {**auth, "Accept-Encoding": "gzip", "If-None-Match": tag})
        assert (status, body) == (304, b"")
        assert headers["etag"] == tag and "content-encoding" not in headers
        # The same content without compression has its own tag, and the old one still validates it.
        status, headers, body = fetch(
            port, PAGE, {**auth, "Accept-Encoding": "identity", "If-None-Match": tag}
        )
        assert (status, body) == (304, b"") and headers["etag"] == tag.replace("-gzip", "")
        # Keep-alive survives a 304: the next request on the connection is answered in full.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", PAGE, headers={**auth, "If-None-Match": tag})
        first = connection.getresponse()
        assert first.status == 304 and first.read() == b""
        connection.request("GET", PAGE, headers=auth)
        second = connection.getresponse()
        assert second.status == 200 and len(second.read()) > 100_000
        connection.close()
