"""A signed download URL lives no longer than its key (issue 22, review item 9), through the real
`alpha-results serve` process with a SQLite key store over a copy of the demo lake.

A URL carries its key's id (`holder`, covered by the signature); every fetch reads that key from
the key store. Revoked, suspended or expired, or its account deactivated: the next fetch is 403
`download_url_invalid` with `details.reason` the code the key now gets on the API, while another
key's URL for the same file keeps working. Before, such URLs kept working until they expired (up
to an hour).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from access import open_store
from tests.lake.conftest import Http, Served
from tests.ops.conftest import signed_downloads_server
from tests.ops.keys import IssuedKey, issue_key

pytestmark = pytest.mark.e2e

SOURCE = "/v1/alphas/Test_planted_factor/source/download"


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('holder_keys')}/keys.sqlite3"


@pytest.fixture(scope="module")
def served(demo_lake: Path, store_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with signed_downloads_server(demo_lake, store_url, tmp_path_factory, "holder") as server:
        yield server


def signed_url(served: Served, key: IssuedKey) -> str:
    """The path and query of a fresh download URL of `key`."""
    client = Http(served.port, key.headers)
    try:
        status, body = client.json(SOURCE)
    finally:
        client.close()
    assert status == 200, body
    parts = urlsplit(body["data"]["url"])
    assert parse_qs(parts.query)["holder"] == [key.key_id]
    return f"{parts.path}?{parts.query}"


def fetch(served: Served, path: str) -> tuple[int, bytes]:
    client = Http(served.port)  # no API key: the URL is the credential
    try:
        return client.get(path)
    finally:
        client.close()


def refused_for(served: Served, path: str) -> str:
    status, body = fetch(served, path)
    assert status == 403, (status, body[:200])
    error: dict[str, Any] = json.loads(body)["error"]
    assert error["code"] == "download_url_invalid", error
    reason: str = error["details"]["reason"]
    return reason


def past() -> datetime:
    return datetime.now(UTC) - timedelta(minutes=1)


CHANGES: dict[str, Callable[[Any, IssuedKey], Any]] = {
    "key_revoked": lambda store, key: store.revoke_key(key.key_id),
    "key_suspended": lambda store, key: store.set_key_status(key.key_id, "suspended"),
    "key_expired": lambda store, key: store.set_key_expiry(key.key_id, past()),
    "account_inactive": lambda store, key: store.set_account_status(key.user_id, "deactivated"),
}


@pytest.mark.parametrize("reason", sorted(CHANGES))
def test_a_url_stops_working_once_its_key_may_no_longer_make_requests(
    served: Served, store_url: str, reason: str
) -> None:
    store = open_store(store_url)
    key, other = issue_key(store), issue_key(store)
    path, others = signed_url(served, key), signed_url(served, other)
    assert path != others  # each key's URL is its own
    assert fetch(served, path)[0] == 200

    CHANGES[reason](store, key)
    assert refused_for(served, path) == reason
    assert fetch(served, others)[0] == 200  # the other key's URL of the same file still works


def test_a_reinstated_key_gets_its_unexpired_urls_back(served: Served, store_url: str) -> None:
    store = open_store(store_url)
    key = issue_key(store)
    path = signed_url(served, key)
    store.set_key_status(key.key_id, "suspended")
    assert refused_for(served, path) == "key_suspended"
    store.set_key_status(key.key_id, "active")
    assert fetch(served, path)[0] == 200
