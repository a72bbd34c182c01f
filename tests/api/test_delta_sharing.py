"""Delta Sharing's refusals and paging in process (the official client's reads are
tests/e2e/test_delta_sharing_served.py): every bad input is a 4xx in the protocol's error shape
naming the parameter and its rule, never a 500; list pages concatenate to the whole list; a
version or moment the lake does not keep, and change data feed, are refused as the protocol says
(the history it keeps: tests/api/test_delta_sharing_history.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from serve.routes.sharing import PREFIX
from tests.support.exports import TEST_CALLERS, _client, lake_before_exports

ALPHA = "momentum_12_1"
TABLE = f"{PREFIX}/shares/alpha_results/schemas/{ALPHA}/tables/decisions"
HEADERS = {"Authorization": "Bearer plain"}


@pytest.fixture(scope="module")
def client(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    with _client(demo_lake, tmp_path_factory.mktemp("sharing_key")) as test_client:
        yield test_client


def refused(response: Any, status: int, code: str, *words: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"errorCode", "message"} and body["errorCode"] == code, body
    for word in words:
        assert word in body["message"], body


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"maxResults": "-1"}, ("maxResults", "non-negative integer")),
        ({"maxResults": "ten"}, ("maxResults",)),
        ({"maxResults": "99999999999"}, ("maxResults",)),
        ({"pageToken": "not-ours"}, ("pageToken", "not a token this server returned")),
        ({"pageToken": "%%%"}, ("pageToken",)),
    ],
)
def test_bad_list_parameters_are_400_naming_them(
    client: TestClient[Any], params: dict[str, str], words: tuple[str, ...]
) -> None:
    response = client.get(f"{PREFIX}/shares/alpha_results/all-tables", params=params, headers=HEADERS)
    refused(response, 400, "INVALID_PARAMETER_VALUE", *words)


def test_list_pages_concatenate_to_the_whole_list(client: TestClient[Any]) -> None:
    whole = client.get(f"{PREFIX}/shares/alpha_results/all-tables", headers=HEADERS).json()
    assert "nextPageToken" not in whole and len(whole["items"]) > 10
    paged: list[dict[str, Any]] = []
    params: dict[str, str] = {"maxResults": "7"}
    while True:
        page = client.get(f"{PREFIX}/shares/alpha_results/all-tables", params=params, headers=HEADERS).json()
        assert len(page["items"]) <= 7
        paged += page["items"]
        if not page.get("nextPageToken"):
            break
        params["pageToken"] = page["nextPageToken"]
    assert paged == whole["items"]
    zero = client.get(f"{PREFIX}/shares", params={"maxResults": "0"}, headers=HEADERS).json()
    assert zero["items"] == [] and zero["nextPageToken"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"{not json", ("request body", "not a JSON object")),
        (b'{"timestamp": "\xff"}', ("request body", "not UTF-8 JSON")),
        (b"[1, 2]", ("request body", "Expected `object`")),
        (b'{"limitHint": "ten"}', ("limitHint",)),
        (b'{"predicateHints": "date > 1"}', ("predicateHints",)),
        (b'{"version": 1}', ("version", "version 1 is not kept")),
        (b'{"version": -1}', ("version", "non-negative integer")),
        (b'{"timestamp": "2001-01-01T00:00:00Z"}', ("timestamp", "is not kept")),
        (b'{"timestamp": "2999-01-01T00:00:00Z"}', ("timestamp", "in the future")),
        (b'{"timestamp": "yesterday"}', ("timestamp", "ISO 8601")),
        (b'{"startingVersion": 0}', ("startingVersion",)),
        (b'{"version": 1, "timestamp": "2001-01-01T00:00:00Z"}', ("version, timestamp", "only one of")),
        (
            b'{"timestamp": "2999-01-01T00:00:00Z", "startingVersion": 0}',
            ("timestamp, startingVersion", "only one of"),
        ),
    ],
)
def test_bad_query_bodies_are_400_naming_the_field(
    client: TestClient[Any], body: bytes, words: tuple[str, ...]
) -> None:
    response = client.post(
        f"{TABLE}/query", content=body, headers={**HEADERS, "Content-Type": "application/json"}
    )
    refused(response, 400, "INVALID_PARAMETER_VALUE", *words)


def test_the_current_version_is_served_and_hints_change_nothing(client: TestClient[Any]) -> None:
    version = client.get(f"{TABLE}/version", headers=HEADERS).headers["delta-table-version"]
    hinted = {"version": int(version), "limitHint": 1, "predicateHints": ["date > '2021-01-01'"]}
    response = client.post(f"{TABLE}/query", json=hinted, headers=HEADERS)
    assert response.status_code == 200 and response.headers["delta-table-version"] == version
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert [next(iter(line)) for line in lines] == ["protocol", "metaData", "file"]
    assert json.loads(lines[2]["file"]["stats"])["numRecords"] > 1  # the whole file, whatever the hints
    head = client.head(f"{PREFIX}/shares/alpha_results/schemas/{ALPHA}/tables/decisions", headers=HEADERS)
    assert head.status_code == 200 and head.headers["delta-table-version"] == version
    later = client.get(
        f"{TABLE}/version", params={"startingTimestamp": "2999-01-01T00:00:00Z"}, headers=HEADERS
    )
    refused(later, 400, "INVALID_PARAMETER_VALUE", "startingTimestamp")
    # Even both naming the current version: a read names one point in time.
    both = {"version": version, "timestamp": "2999-01-01T00:00:00Z"}
    refused(
        client.get(f"{TABLE}/metadata", params=both, headers=HEADERS),
        400,
        "INVALID_PARAMETER_VALUE",
        "version, timestamp",
        "only one of version, timestamp, startingVersion",
    )
    current = client.get(f"{TABLE}/metadata", params={"version": version}, headers=HEADERS)
    assert current.status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", f"{PREFIX}/shares", "GET"),
        ("POST", f"{PREFIX}/shares", "GET"),
        ("OPTIONS", f"{PREFIX}/shares", "GET"),
        ("HEAD", f"{PREFIX}/shares", "GET"),
        ("GET", f"{TABLE}/query", "POST"),
        ("PUT", f"{TABLE}/query", "POST"),
        ("OPTIONS", f"{TABLE}/query", "POST"),
        ("POST", f"{TABLE}/metadata", "GET"),
        ("GET", TABLE, "HEAD"),
    ],
)
def test_another_method_is_405_in_the_protocols_terms_with_the_paths_own_methods(
    client: TestClient[Any], method: str, path: str, allow: str
) -> None:
    """Outside `/v1` the protocol's client reads its own error body: a method the path does not
    answer is 405 with `Allow` naming the ones it does (never "GET" for `query`, a POST)."""
    response = client.request(method, path, headers=HEADERS)
    assert response.headers["allow"] == allow
    if method == "HEAD":
        assert response.status_code == 405 and response.content == b""
    else:
        refused(response, 405, "MALFORMED_REQUEST", f"{method} is not answered", f"it answers {allow}")


@pytest.mark.parametrize(
    "path",
    [
        f"{PREFIX}/nope",
        f"{TABLE}/nope",
        PREFIX,
        # Not written canonically, answered before routing (serve.app.canonical_paths_only).
        f"{PREFIX}/",
        f"{PREFIX}//shares",
        f"{PREFIX}/shares/%2e%2e/x",
    ],
)
def test_an_unknown_sharing_path_is_404_in_the_protocols_terms(client: TestClient[Any], path: str) -> None:
    refused(client.get(path, headers=HEADERS), 404, "RESOURCE_DOES_NOT_EXIST", "no such path")
    api = client.post("/v1/me", headers=HEADERS)  # the API's own contract is unchanged
    assert api.status_code == 404 and api.json()["error"]["code"] == "method_not_allowed"


def test_change_data_feed_is_refused_as_not_enabled(client: TestClient[Any]) -> None:
    response = client.get(f"{TABLE}/changes", params={"startingVersion": "0"}, headers=HEADERS)
    refused(response, 400, "INVALID_PARAMETER_VALUE", "change data feed is not enabled")
    missing = client.get(
        f"{PREFIX}/shares/alpha_results/schemas/{ALPHA}/tables/nope/changes", headers=HEADERS
    )
    refused(missing, 404, "RESOURCE_DOES_NOT_EXIST", '"nope"')


def test_only_the_delta_response_format_is_refused(client: TestClient[Any]) -> None:
    delta_only = {
        **HEADERS,
        "delta-sharing-capabilities": "responseformat=delta;readerfeatures=deletionvectors",
    }
    refused(
        client.get(f"{TABLE}/metadata", headers=delta_only), 400, "INVALID_PARAMETER_VALUE", "responseformat"
    )
    both = {**HEADERS, "delta-sharing-capabilities": "responseformat=delta,parquet"}
    answered = client.get(f"{TABLE}/metadata", headers=both)
    assert (
        answered.status_code == 200
        and answered.headers["delta-sharing-capabilities"] == "responseformat=parquet"
    )


def test_keys_and_allow_lists_are_refused_in_the_protocols_shape(client: TestClient[Any]) -> None:
    refused(client.get(f"{PREFIX}/shares"), 401, "MISSING_API_KEY")
    refused(
        client.get(f"{PREFIX}/shares", headers={"Authorization": "Bearer nobody"}), 401, "INVALID_API_KEY"
    )
    no_exports = {"Authorization": "Bearer no_exports"}
    assert "no_exports" in TEST_CALLERS
    refused(client.get(f"{PREFIX}/shares", headers=no_exports), 403, "ENDPOINT_NOT_ALLOWED", "exports.list")
    # A hostile name is quoted as JSON text, cut at 255 characters, never markup.
    hostile = "<script>" + "x" * 400
    response = client.get(f"{PREFIX}/shares/alpha_results/schemas/{hostile}/tables", headers=HEADERS)
    refused(response, 404, "RESOURCE_DOES_NOT_EXIST")
    assert len(response.json()["message"]) < 300


def test_an_alpha_built_before_exports_has_no_tables_and_the_others_stay_listed(
    demo_lake: Path, tmp_path: Path
) -> None:
    lake = lake_before_exports(demo_lake, tmp_path, ALPHA)
    with _client(lake, tmp_path) as old:
        listed = old.get(f"{PREFIX}/shares/alpha_results/all-tables", headers=HEADERS).json()["items"]
        assert listed and ALPHA not in {t["schema"] for t in listed}
        # The table itself names why, as its export route does (503: the client retries, then says so).
        refused(
            old.get(f"{TABLE}/metadata", headers=HEADERS), 503, "EXPORTS_NOT_BUILT", "alpha-results build"
        )
