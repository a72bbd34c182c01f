"""The caller's address comes from `ALPHA_RESULTS_TRUSTED_PROXY_HOPS` alone, through the real
`alpha-results serve` process: uvicorn trusts X-Forwarded-For from 127.0.0.1 unless told not to,
which let any local caller pick the address an IP allow-list checks."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from access import open_store
from tests.ops.keys import issue_key
from tests.shared_servers import SharedServer
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e


def get(port: int, path: str, headers: list[tuple[str, str]]) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.putrequest("GET", path)
    for name, value in headers:  # repeated names go out as separate header lines
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    body = json.loads(response.read())
    connection.close()
    return response.status, body


@pytest.mark.parametrize("hops", [0, 1, 2])
def test_a_forged_forwarded_address_never_passes_an_ip_allow_list(
    demo_lake: Path, tmp_path: Path, hops: int, request: pytest.FixtureRequest
) -> None:
    forged = [
        [],
        [("X-Forwarded-For", "10.1.2.3")],
        [("X-Forwarded-For", "10.1.2.3, 10.1.2.3")],
        [("X-Forwarded-For", "10.1.2.3"), ("X-Forwarded-For", "10.1.2.3")],
        [("X-Forwarded-For", "not-an-address")],
        [("Forwarded", "for=10.1.2.3"), ("X-Real-IP", "10.1.2.3")],
    ]
    with server_with_hops(request, demo_lake, tmp_path, hops) as (port, url):
        store = open_store(url)
        key = issue_key(store)
        store.set_key_ips(key.key_id, ["10.1.2.3"])  # the key may be used from 10.1.2.3 only
        store.close()
        auth = ("Authorization", f"Bearer {key.token}")
        for extra in forged:
            status, body = get(port, "/v1/me", [auth, *extra])
            seen = expected_address(hops, [v for name, v in extra if name == "X-Forwarded-For"])
            if seen == "10.1.2.3":
                assert status == 200, (hops, extra, body)
                assert body["data"]["ip"] == seen
            else:
                assert status == 403, (hops, extra, body)
                assert body["error"] == {**body["error"], "code": "ip_not_allowed", "details": {"ip": seen}}


@contextmanager
def server_with_hops(
    request: pytest.FixtureRequest, demo_lake: Path, tmp_path: Path, hops: int
) -> Iterator[tuple[int, str]]:
    """(port, key store URL) of a server trusting `hops` proxies: the shared one for none (the
    default), else one of its own."""
    if hops == 0:
        shared: SharedServer = request.getfixturevalue("shared_server")
        yield shared.port, shared.keystore_url
        return
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    open_store(url).close()
    env = {"ALPHA_RESULTS_TRUSTED_PROXY_HOPS": str(hops)}
    with serving(demo_lake, url, workers=1, env=env) as (port, _):
        yield port, url


def expected_address(hops: int, forwarded_lines: list[str]) -> str:
    """The documented rule (docs/operations.md "Reverse proxies"), written out independently: the
    peer (127.0.0.1 here), or the entry `hops` back from the right of X-Forwarded-For, all lines
    read as one list; an entry that is not an address matches nothing."""
    entries = [e.strip() for line in forwarded_lines for e in line.split(",") if e.strip()]
    chain = [*entries, "127.0.0.1"]
    value = chain[max(0, len(chain) - 1 - hops)]
    return value if value.replace(".", "").isdigit() else "unparsable"


def test_two_authorization_headers_are_refused(shared_server: SharedServer) -> None:
    """Through the real server: which of two headers wins differs between proxies and servers."""
    key, port = shared_server.key(), shared_server.port
    auth = ("Authorization", f"Bearer {key.token}")
    assert get(port, "/v1/me", [auth])[0] == 200
    for pair in ([auth, auth], [auth, ("Authorization", "Bearer ar_live_xxxxxxxxxxxxxxxx.y")]):
        status, body = get(port, "/v1/me", pair)
        assert status == 401 and body["error"]["code"] == "malformed_api_key", body
        assert key.token not in json.dumps(body)
