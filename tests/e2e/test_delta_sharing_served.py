"""Delta Sharing (issue 38) through the real `alpha-results serve` process, read by the protocol's
official Python client (`delta-sharing`, PyPI) from a profile file holding a key.

What a user sees: the share lists exactly the tables the key's allow-lists imply (worked out here
from the JSON API, not from the sharing code); `load_as_pandas` of every table of the demo lake
equals the JSON pages of the same build, row for row; a revoked key is refused, and so are the
URLs it was handed; a table outside the allow-lists does not exist (404 in the protocol's error
shape); a key without raw-book access is never handed a URL to a file with raw fields; the table
version moves when a new build of the alpha is published.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import delta_sharing
import httpx
import pyarrow.parquet as pq
import pytest
from requests import HTTPError

from access import RateLimit, open_store
from access.records import Grants
from core.context import AllowList
from pipeline.publish import publish_seal
from schemas.query import LIMIT_MAX
from tests.conftest import linked_copy
from tests.health_wait import wait_until
from tests.ops.keys import DATA_GRANTS, ROOMY, IssuedKey, issue_key
from tests.pipeline.factory import write_factory_seal
from tests.support.pandas_json import json_of
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

SHARE = "alpha_results"
ALPHA = "momentum_12_1"
JSON_ROUTES = {
    "decisions": ("scores", {"fields": "all"}),
    "rebalances": ("rebalances", {}),
    "portfolio": ("portfolio", {}),
    "positions": ("positions", {}),
    "pnl": ("pnl", {}),
    "trades": ("trades", {}),
    "equity_curve": ("equity-curve", {}),
}
"""The JSON route of each shared dataset (table name prefix), paged from start to end."""


@dataclass
class Served:
    base: str
    keystore_url: str
    lake: Path
    folder: Path

    def issue(
        self,
        *,
        raw: bool = False,
        alphas: AllowList | None = None,
        endpoints: AllowList | None = None,
        rate_limit: RateLimit = ROOMY,
    ) -> IssuedKey:
        store = open_store(self.keystore_url)
        try:
            if not raw and alphas is None and endpoints is None:
                return issue_key(store)
            ceiling = Grants(AllowList.all(), AllowList.all(), AllowList.all(), expose_raw_book=raw)
            account = store.create_account(f"{uuid.uuid4().hex[:10]}@example.com")
            store.set_account_ceiling(account.user_id, ceiling)
            grants = Grants(
                endpoints or DATA_GRANTS.endpoints,
                alphas or AllowList.all(),
                AllowList.all(),
                expose_raw_book=raw,
            )
            key, token = store.create_key(
                account.user_id, "sharing test key", grants=grants, rate_limit=rate_limit
            )
            return IssuedKey(key.key_id, token, account.user_id)
        finally:
            store.close()

    def profile(self, key: IssuedKey) -> str:
        """A Delta Sharing profile file (PROTOCOL.md, "Profile File Format") holding the key."""
        path = self.folder / f"{key.key_id}.share"
        document = {
            "shareCredentialsVersion": 1,
            "endpoint": f"{self.base}/delta-sharing",
            "bearerToken": key.token,
        }
        path.write_text(json.dumps(document))
        return str(path)


@pytest.fixture(scope="module")
def served(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("delta_sharing")
    lake = folder / "lake"
    linked_copy(demo_lake, lake)  # the version test publishes into it
    signing_key = folder / "signing.key"
    signing_key.write_bytes(b"k" * 32)
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    open_store(keystore_url).close()
    profiles = folder / "profiles"
    profiles.mkdir()
    env = {"ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key), "ALPHA_RESULTS_LAKE_REFRESH_SECONDS": "1"}
    with serving(lake, keystore_url, workers=1, env=env) as (port, _output):
        yield Served(f"http://127.0.0.1:{port}", keystore_url, lake, profiles)


def api(served: Served, key: IssuedKey, path: str, **params: Any) -> dict[str, Any]:
    response = httpx.get(f"{served.base}{path}", params=params, headers=key.headers, timeout=60)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def json_pages(
    served: Served, key: IssuedKey, alpha: str, route: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    while True:
        body = api(served, key, f"/v1/alphas/{alpha}/{route}", limit=LIMIT_MAX, offset=len(rows), **params)
        rows += body["data"]
        if not body["pagination"]["has_more"]:
            return rows


def expected_tables(served: Served, key: IssuedKey) -> set[tuple[str, str]]:
    """(schema, table) the key's share must hold, from the JSON API: every alpha `/v1/alphas`
    lists for it, every (kind, book) its `/books` shows (an equity curve per ledger book), and
    the decisions and rebalances its run wrote."""
    alphas: list[str] = []
    while True:
        body = api(served, key, "/v1/alphas", limit=LIMIT_MAX, offset=len(alphas))
        alphas += [row["alpha_id"] for row in body["data"]]
        if not body["pagination"]["has_more"]:
            break
    tables: set[tuple[str, str]] = set()
    for alpha in alphas:
        for row in api(served, key, f"/v1/alphas/{alpha}/books", limit=LIMIT_MAX)["data"]:
            tables.add((alpha, f"{row['kind']}_{row['book']}"))
            if row["kind"] == "portfolio":
                tables.add((alpha, f"equity_curve_{row['book']}"))
        for dataset in ("decisions", "rebalances"):
            route, _ = JSON_ROUTES[dataset]
            meta = api(served, key, f"/v1/alphas/{alpha}/{route}", limit=1)["meta"]
            if not any(w["code"] == "kind_missing" for w in meta.get("warnings", [])):
                tables.add((alpha, dataset))
    return tables


def shared(profile: str) -> set[tuple[str, str]]:
    return {(t.schema, t.name) for t in delta_sharing.SharingClient(profile).list_all_tables()}


def route_of(table: str) -> tuple[str, dict[str, Any]]:
    for prefix, (route, params) in JSON_ROUTES.items():
        if table == prefix:
            return route, params
        if table.startswith(prefix + "_") and prefix not in ("decisions", "rebalances"):
            return route, {**params, "book": table[len(prefix) + 1 :]}
    raise AssertionError(f"no JSON route for table {table}")


def assert_table_equals_json(served: Served, key: IssuedKey, profile: str, alpha: str, table: str) -> int:
    frame = delta_sharing.load_as_pandas(f"{profile}#{SHARE}.{alpha}.{table}")
    route, params = route_of(table)
    expected = json_pages(served, key, alpha, route, params)
    assert len(frame) == len(expected), (alpha, table)
    columns = list(frame.columns)
    for index, (got, want) in enumerate(zip(frame.to_dict("records"), expected, strict=True)):
        # The JSON omits `entry_at` / `maturity_at` where the run never recorded them: null here.
        assert [c for c in columns if c in want] == list(want), (alpha, table, index)
        assert {c: json_of(got[c]) for c in columns} == {c: want.get(c) for c in columns}, (
            alpha,
            table,
            index,
        )
    return len(frame)


def query(served: Served, key: IssuedKey, alpha: str, table: str) -> httpx.Response:
    path = f"/delta-sharing/shares/{SHARE}/schemas/{alpha}/tables/{table}/query"
    return httpx.post(f"{served.base}{path}", json={}, headers=key.headers, timeout=60)


def file_url(served: Served, key: IssuedKey, alpha: str, table: str) -> str:
    response = query(served, key, alpha, table)
    assert response.status_code == 200, response.text
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert [next(iter(line)) for line in lines] == ["protocol", "metaData", "file"]
    url: str = lines[2]["file"]["url"]
    return url


# -- the tests --------------------------------------------------------------------------------


def test_every_table_of_the_demo_lake_equals_its_json_pages(served: Served) -> None:
    key = served.issue()
    profile = served.profile(key)
    tables = shared(profile)
    assert tables == expected_tables(served, key)
    assert {alpha for alpha, _ in tables} >= {ALPHA, "value_composite_legacy"}
    rows = sum(
        assert_table_equals_json(served, key, profile, alpha, table) for alpha, table in sorted(tables)
    )
    assert rows > 0


def test_the_share_schemas_and_metadata_as_the_client_reads_them(served: Served) -> None:
    key = served.issue()
    profile = served.profile(key)
    client = delta_sharing.SharingClient(profile)
    assert [s.name for s in client.list_shares()] == [SHARE]
    schemas = [s.name for s in client.list_schemas(client.list_shares()[0])]
    assert schemas == sorted({alpha for alpha, _ in expected_tables(served, key)})
    # Table metadata: the Delta schema of the Parquet file the query hands out.
    rest = delta_sharing.rest_client.DataSharingRestClient(
        delta_sharing.protocol.DeltaSharingProfile.read_from_file(profile)
    )
    table = delta_sharing.protocol.Table(name="decisions", share=SHARE, schema=ALPHA)
    metadata = rest.query_table_metadata(table)
    fields = json.loads(metadata.metadata.schema_string)["fields"]
    downloaded = pq.read_schema(_fetch(file_url(served, key, ALPHA, "decisions")))
    assert [f["name"] for f in fields] == downloaded.names
    kinds = {f["name"]: f["type"] for f in fields}
    assert kinds["date"] == "date" and kinds["symbol"] == "string" and kinds["score"] == "double"
    assert kinds["entry_at"] == "timestamp" and kinds["next_open_tradeable"] == "boolean"
    assert metadata.metadata.format.provider == "parquet" and metadata.metadata.partition_columns == []
    version = rest.query_table_version(table).delta_table_version
    assert version == metadata.delta_table_version > 0
    # Names are case-insensitive (PROTOCOL.md); the client loads the same rows either way.
    upper = delta_sharing.load_as_pandas(f"{profile}#{SHARE.upper()}.{ALPHA.upper()}.DECISIONS", limit=5)
    assert len(upper) == 5


def test_a_table_outside_the_allow_lists_does_not_exist(served: Served) -> None:
    narrow = served.issue(alphas=AllowList.of_ids([ALPHA]))
    profile = served.profile(narrow)
    tables = shared(profile)
    assert tables and {alpha for alpha, _ in tables} == {ALPHA}
    assert tables == expected_tables(served, narrow)
    with pytest.raises(HTTPError) as refused:
        delta_sharing.load_as_pandas(f"{profile}#{SHARE}.value_composite_legacy.decisions")
    assert refused.value.response.status_code == 404
    body = refused.value.response.json()
    assert body["errorCode"] == "RESOURCE_DOES_NOT_EXIST" and "value_composite_legacy" in body["message"]
    # A table of a readable alpha that does not exist answers alike; and so does another share.
    missing = query(served, narrow, ALPHA, "no_such_table")
    assert missing.status_code == 404 and missing.json()["errorCode"] == "RESOURCE_DOES_NOT_EXIST"
    other = httpx.get(f"{served.base}/delta-sharing/shares/other/schemas", headers=narrow.headers)
    assert other.status_code == 404 and set(other.json()) == {"errorCode", "message"}


def test_a_key_without_the_export_routes_is_refused_in_the_protocols_shape(served: Served) -> None:
    no_download = served.issue(
        endpoints=AllowList.of_ids(["exports.list", "signals.scores", "catalog.alphas.list"])
    )
    listed = shared(served.profile(no_download))
    assert (ALPHA, "decisions") in listed and not any(t.startswith("positions") for _, t in listed)
    refused = query(served, no_download, ALPHA, "decisions")
    assert refused.status_code == 403
    assert refused.json() == {
        "errorCode": "ENDPOINT_NOT_ALLOWED",
        "message": "This key may not call exports.download.",
    }


def test_a_refused_call_is_metered_as_every_call(served: Served) -> None:
    """Issue 60, finding 4, on this surface: a call the key's grant refuses costs it a request, as on
    /v1 and at /mcp, so the 403 carries the window's count and a key at its limit gets the 429."""
    limited = RateLimit(per_second=100, per_minute=100, per_day=2, monthly_requests=None)
    key = served.issue(endpoints=AllowList.of_ids(["exports.list"]), rate_limit=limited)
    answers = [query(served, key, ALPHA, "decisions") for _ in range(3)]
    assert [answer.status_code for answer in answers] == [403, 403, 429]
    assert [answer.headers["x-ratelimit-used"] for answer in answers[:2]] == ["1", "2"]
    assert answers[2].json()["errorCode"] == "RATE_LIMIT_DAY"


def test_a_key_without_raw_access_never_gets_a_raw_file(served: Served) -> None:
    plain, raw = served.issue(), served.issue(raw=True)
    plain_tables, raw_tables = shared(served.profile(plain)), shared(served.profile(raw))
    assert not any(t.split("_", 1)[-1].startswith("raw_") or "_raw_" in t for _, t in plain_tables)
    assert any("_raw_" in t for _, t in raw_tables) and plain_tables < raw_tables
    for alpha, table in sorted(plain_tables):
        url = file_url(served, plain, alpha, table)
        name = urlsplit(url).path.rsplit("/", 1)[-1]
        assert ".raw." not in name and ".raw_" not in name, (alpha, table, url)
    # The decisions file of each: the raw key's holds the raw mirrors, the plain key's none.
    plain_columns = pq.read_schema(_fetch(file_url(served, plain, ALPHA, "decisions"))).names
    raw_columns = pq.read_schema(_fetch(file_url(served, raw, ALPHA, "decisions"))).names
    assert not any(c.startswith("raw_") for c in plain_columns)
    assert "raw_score" in raw_columns
    # A raw file's URL is the raw key's own: the plain key's grants cannot fetch it either way.
    raw_frame = delta_sharing.load_as_pandas(f"{served.profile(raw)}#{SHARE}.{ALPHA}.decisions", limit=3)
    assert "raw_score" in raw_frame.columns


def _fetch(url: str) -> Any:
    response = httpx.get(url, timeout=60)
    assert response.status_code == 200, response.text
    return io.BytesIO(response.content)


def test_a_revoked_key_is_refused_and_its_urls_with_it(served: Served) -> None:
    key = served.issue()
    profile = served.profile(key)
    url = file_url(served, key, ALPHA, "rebalances")
    store = open_store(served.keystore_url)
    try:
        store.revoke_key(key.key_id)
    finally:
        store.close()

    def refused() -> Any:
        try:
            delta_sharing.SharingClient(profile).list_all_tables()
        except HTTPError as exc:
            return [exc.response]  # a list: a requests Response with a 4xx status is falsy
        return None

    [response] = wait_until(refused, "the revoked key refused")
    assert response.status_code == 401 and response.json()["errorCode"] == "KEY_REVOKED"
    download = httpx.get(url, timeout=60)
    assert download.status_code == 403 and download.json()["error"]["code"] == "download_url_invalid"


def test_the_table_version_moves_when_a_new_build_is_published(served: Served, tmp_path: Path) -> None:
    """Runs last in the module: it adds an alpha to the lake the other tests read. The earlier
    version stays readable by version (the lake keeps the build it names)."""
    key = served.issue()
    client = delta_sharing.rest_client.DataSharingRestClient(
        delta_sharing.protocol.DeltaSharingProfile.read_from_file(served.profile(key))
    )
    table = delta_sharing.protocol.Table(name="decisions", share=SHARE, schema="Test_factory")
    publish_seal(str(write_factory_seal(tmp_path / "first", seed=3)), str(served.lake))

    def version() -> int | None:
        try:
            return client.query_table_version(table).delta_table_version
        except HTTPError:
            return None  # not in the worker's catalogue yet

    first = wait_until(version, "the first build shared")
    first_rows = len(delta_sharing.load_as_pandas(f"{served.profile(key)}#{SHARE}.Test_factory.decisions"))
    # A build's version is its build time in seconds: the next one is built in a later second.
    wait_until(lambda: datetime.now(UTC).timestamp() >= first + 1, "a second after the first build")
    publish_seal(str(write_factory_seal(tmp_path / "second", seed=4, weeks=10)), str(served.lake))
    second = wait_until(lambda: (v := version()) is not None and v != first and v, "the new build shared")
    assert second > first
    url = f"{served.profile(key)}#{SHARE}.Test_factory.decisions"
    assert len(delta_sharing.load_as_pandas(url)) > first_rows
    # Time travel with the official client: the first version is still the first build's table.
    assert len(delta_sharing.load_as_pandas(url, version=first)) == first_rows
