"""Compression and conditional requests through the real `alpha-results serve` (uvicorn): what a
client on the wire gets, not only what the ASGI app hands over."""

from __future__ import annotations

import gzip
import http.client
import json
from typing import Any

import pytest
import zstandard

from tests.shared_servers import SharedServer
from tests.support.http_fetch import fetch

pytestmark = pytest.mark.e2e

PAGE = "/v1/alphas/Test_planted_factor/scores?limit=5000&fields=all"


def data_of(body: bytes) -> Any:
    decoded = json.loads(body)
    return decoded["data"], decoded["pagination"]


def test_gzip_and_zstd_round_trip_and_small_bodies_stay_plain(shared_server: SharedServer) -> None:
    key, port = shared_server.key(), shared_server.port
    auth = {"Authorization": f"Bearer {key.token}"}
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


def test_a_304_over_the_wire_has_no_body_and_names_the_coding(shared_server: SharedServer) -> None:
    key, port = shared_server.key(), shared_server.port
    auth = {"Authorization": f"Bearer {key.token}"}
    _, headers, _ = fetch(port, PAGE, {**auth, "Accept-Encoding": "gzip"})
    tag = headers["etag"]
    assert tag.endswith('-gzip"') and headers["vary"] == "Authorization, Accept, Accept-Encoding"
    status, headers, body = fetch(port, PAGE, {**auth, "Accept-Encoding": "gzip", "If-None-Match": tag})
    assert (status, body) == (304, b"")
    assert headers["etag"] == tag and "content-encoding" not in headers
    # The same content without compression has its own tag, and the old one still validates it.
    status, headers, body = fetch(port, PAGE, {**auth, "Accept-Encoding": "identity", "If-None-Match": tag})
    assert (status, body) == (304, b"") and headers["etag"] == tag.replace("-gzip", "")
    # Keep-alive survives a 304: the next request on the connection is answered in full.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", PAGE, headers={**auth, "If-None-Match": tag})
    first = connection.getresponse()
    assert first.status == 304 and first.read() == b""
    connection.request("GET", PAGE, headers=auth)
    second = connection.getresponse()
    assert second.status == 200 and len(second.read()) > 100_000
    connection.close()


@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        ("zstd;q=0", None),  # RFC 9110 12.5.3: q=0 is "not acceptable"
        ("zstd;q=0, gzip", "gzip"),
        ("gzip, zstd;q=0", "gzip"),
        ("*, zstd;q=0", "gzip"),
        ("ZSTD", "zstd"),  # content-codings are case-insensitive
        ("GZip", "gzip"),
        ("gzip;q=1, zstd;q=0.5", "gzip"),  # the client's weights first
        ("gzip, zstd", "zstd"),  # then the server's preference
        ("*", "zstd"),
        ("*;q=0", None),
        ("identity", None),
        ("br", None),
        ("zstd;q=2", None),  # not a qvalue: the member is ignored
    ],
)
def test_the_coding_follows_the_clients_weights_and_ignores_case(
    shared_server: SharedServer, accept: str, coding: str | None
) -> None:
    """`/openapi.json` (public, 100+ KB) in every coding the client's header allows."""
    status, headers, body = fetch(shared_server.port, "/openapi.json", {"Accept-Encoding": accept})
    assert status == 200 and headers.get("content-encoding") == coding, (accept, headers)
    if coding == "zstd":
        body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
    elif coding == "gzip":
        body = gzip.decompress(body)
    assert json.loads(body)["openapi"].startswith("3.")


def test_representations_over_the_wire(shared_server: SharedServer) -> None:
    """Arrow is compressed over HTTP like JSON (no IPC compression); Parquet, compressed inside,
    is sent as it is whatever the client accepts; an unsupported Accept is a JSON 406."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    key, port = shared_server.key(), shared_server.port
    auth = {"Authorization": f"Bearer {key.token}", "Accept-Encoding": "zstd, gzip"}
    _, _, plain = fetch(port, PAGE, {**auth, "Accept-Encoding": "identity"})
    rows, pagination = data_of(plain)

    status, headers, packed = fetch(port, PAGE, {**auth, "Accept": "application/vnd.apache.arrow.stream"})
    assert status == 200 and headers["content-encoding"] == "zstd"
    assert headers["content-type"] == "application/vnd.apache.arrow.stream"
    table = pa.ipc.open_stream(zstandard.ZstdDecompressor().decompressobj().decompress(packed)).read_all()
    assert table.num_rows == len(rows) and table.column("symbol").to_pylist() == [r["symbol"] for r in rows]
    assert json.loads(headers["x-pagination"]) == pagination

    status, headers, body = fetch(port, PAGE + "&format=parquet", auth)
    assert status == 200 and "content-encoding" not in headers
    assert int(headers["content-length"]) == len(body)
    assert pq.read_table(pa.BufferReader(body)).column("score").to_pylist() == [r["score"] for r in rows]

    status, headers, body = fetch(port, PAGE, {**auth, "Accept": "text/html"})
    assert status == 406 and headers["content-type"].startswith("application/json")
    assert (
        json.loads(
            zstandard.ZstdDecompressor().decompressobj().decompress(body)
            if headers.get("content-encoding") == "zstd"
            else body
        )["error"]["code"]
        == "not_acceptable"
    )


def test_a_kept_answer_over_the_wire_is_the_routes_for_each_request(shared_server: SharedServer) -> None:
    """Answers made once (serve/answer_cache.py) through uvicorn: a page asked again is answered
    from the worker's kept bytes, made for each request (its own request id in the body and the
    head, the same length, the coding asked for), and equals the first, routed answer."""
    key, port = shared_server.key(), shared_server.port
    auth = {"Authorization": f"Bearer {key.token}"}
    page = "/v1/alphas/Test_planted_factor/rebalances?limit=50&offset=3"
    answers = []
    for accept in ("identity", "gzip", "zstd") * 3:  # each kept on its second ask, then answered kept
        status, headers, body = fetch(port, page, {**auth, "Accept-Encoding": accept})
        assert status == 200 and int(headers["content-length"]) == len(body)
        if accept == "gzip":
            body = gzip.decompress(body)
        elif accept == "zstd":
            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
        else:
            assert "content-encoding" not in headers
        decoded = json.loads(body)
        assert decoded["meta"]["request_id"] == headers["x-request-id"]
        answers.append((headers["etag"].split("-")[0].strip('"'), decoded))
    tags = {tag for tag, _ in answers}
    assert len(tags) == 1  # one answer, whatever the coding
    ids = {decoded["meta"]["request_id"] for _, decoded in answers}
    assert len(ids) == len(answers)
    first = answers[0][1]
    for _, decoded in answers[1:]:
        assert decoded["data"] == first["data"] and decoded["pagination"] == first["pagination"]
        assert {k: v for k, v in decoded["meta"].items() if k not in ("request_id", "generated_at")} == {
            k: v for k, v in first["meta"].items() if k not in ("request_id", "generated_at")
        }
