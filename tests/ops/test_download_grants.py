"""A signed download URL lives no longer than its key's grants (issue 33, audit item 18), through
the real `alpha-results serve` process over a copy of the demo lake, the grants narrowed by the
operator CLI (`alpha-results keys ...`) on the same SQLite key store.

Every fetch of a URL re-reads the key it was signed for and checks what the key may do now: call
the route that signed the URL (`exports.download`, `catalog.alphas.source.download`), read the
alpha and its run, call the JSON route of the export's rows, and, for a raw file, read raw books.
Otherwise 403 `download_url_invalid` with `details.reason` (`endpoint_not_allowed` with
`details.endpoint`, `run_not_allowed` with `details.alpha`, `raw_book_not_allowed`). Before, a
URL signed with a raw-book key still returned the raw columns for up to an hour after
`keys set-raw-book KID off`, and likewise after the alpha or the endpoint was taken away.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from access import Grants, open_store
from core.context import AllowList
from schemas.registry import ENDPOINTS
from tests.lake.conftest import Http, Served
from tests.ops.conftest import signed_downloads_server
from tests.ops.keys import ROOMY, IssuedKey, issue_key

pytestmark = pytest.mark.e2e

ALPHA = "Test_planted_factor"
EXPORT = f"/v1/alphas/{ALPHA}/exports/decisions"
PLAIN_EXPORT = f"/v1/alphas/{ALPHA}/exports/rebalances"
SOURCE = f"/v1/alphas/{ALPHA}/source/download"
EVERYTHING = Grants(AllowList.all(), AllowList.all(), AllowList.all(), expose_raw_book=True)


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('grant_keys')}/keys.sqlite3"


@pytest.fixture(scope="module")
def served(demo_lake: Path, store_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with signed_downloads_server(demo_lake, store_url, tmp_path_factory, "grants") as server:
        yield server


def raw_key(store_url: str) -> IssuedKey:
    """A key of an account whose ceiling allows everything, raw books included, granted all."""
    store = open_store(store_url)
    key = issue_key(store, rate_limit=ROOMY)
    store.set_account_ceiling(key.user_id, EVERYTHING)
    store.set_key_grants(key.key_id, EVERYTHING)
    return key


def cli(store_url: str, *args: str) -> None:
    """`alpha-results keys ...` as an operator runs it, on the server's key store."""
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "keys", args[0], "--keystore", store_url, *args[1:]],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def signed(served: Served, key: IssuedKey, route: str) -> tuple[str, str]:
    """The path and query of a fresh URL from `route`, and the file name it names."""
    client = Http(served.port, key.headers)
    try:
        status, body = client.json(route)
    finally:
        client.close()
    assert status == 200, body
    parts = urlsplit(body["data"]["url"])
    return f"{parts.path}?{parts.query}", body["data"]["filename"]


def fetch(served: Served, path: str) -> tuple[int, bytes]:
    client = Http(served.port)  # no API key: the URL is the credential
    try:
        return client.get(path)
    finally:
        client.close()


def refusal(served: Served, path: str) -> dict[str, Any]:
    status, body = fetch(served, path)
    assert status == 403, (status, body[:200])
    error: dict[str, Any] = json.loads(body)["error"]
    assert error["code"] == "download_url_invalid", error
    details: dict[str, Any] = error["details"]
    return details


def all_endpoints_but(*removed: str) -> str:
    return ",".join(e.id for e in ENDPOINTS if not e.admin and e.id not in removed)


def test_a_raw_export_url_stops_once_the_key_loses_raw_books(served: Served, store_url: str) -> None:
    key = raw_key(store_url)
    raw, filename = signed(served, key, EXPORT)
    assert filename == f"{ALPHA}.decisions.raw.parquet"
    plain, plain_name = signed(served, key, PLAIN_EXPORT)  # a file every key reads (audience all)
    assert fetch(served, raw)[0] == 200 and fetch(served, plain)[0] == 200

    cli(store_url, "set-raw-book", key.key_id, "off")
    assert refusal(served, raw) == {"reason": "raw_book_not_allowed"}
    assert fetch(served, plain)[0] == 200  # nothing raw in it
    # The key's new URL is the plain variant, and it works.
    again, again_name = signed(served, key, EXPORT)
    assert again_name == f"{ALPHA}.decisions.parquet" and fetch(served, again)[0] == 200

    cli(store_url, "set-raw-book", key.key_id, "on")  # granted again: the unexpired URL works again
    assert fetch(served, raw)[0] == 200


@pytest.mark.parametrize("allow_list", ["--alphas", "--runs"])
def test_export_and_source_urls_stop_once_the_alpha_is_taken_away(
    served: Served, store_url: str, allow_list: str
) -> None:
    key = raw_key(store_url)
    export, _ = signed(served, key, EXPORT)
    source, _ = signed(served, key, SOURCE)
    assert fetch(served, export)[0] == 200 and fetch(served, source)[0] == 200

    cli(store_url, "grant", key.key_id, allow_list, "list:other")
    for path in (export, source):
        assert refusal(served, path) == {"reason": "run_not_allowed", "alpha": ALPHA}


@pytest.mark.parametrize(
    ("removed", "refused", "still_working"),
    [
        ("exports.download", EXPORT, SOURCE),  # the route that signed the export URL
        ("signals.scores", EXPORT, SOURCE),  # the JSON route of the export's rows
        ("catalog.alphas.source.download", SOURCE, EXPORT),
    ],
)
def test_a_url_stops_once_its_endpoint_is_removed_from_the_key(
    served: Served, store_url: str, removed: str, refused: str, still_working: str
) -> None:
    key = raw_key(store_url)
    gone, _ = signed(served, key, refused)
    kept, _ = signed(served, key, still_working)
    assert fetch(served, gone)[0] == 200

    cli(store_url, "grant", key.key_id, "--endpoints", all_endpoints_but(removed))
    assert refusal(served, gone) == {"reason": "endpoint_not_allowed", "endpoint": removed}
    assert fetch(served, kept)[0] == 200
