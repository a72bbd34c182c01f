"""Parquet exports (issue 11, item 5) on a local lake: every export equals the JSON pages of the
same build row for row under both field policies, the allow-lists refuse exports like every alpha
route, and a signed URL is refused once tampered with or expired."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from core.settings import Settings
from datasets import layout
from datasets.reader import LakeReader
from pipeline import PIPELINE_VERSION, index_rows
from schemas import exports
from schemas.query import LIMIT_MAX
from serve.app import create_app
from serve.signing.archives import HmacSigner
from tests.api.conftest import CALLERS
from tests.callers import DATA_IDS, authenticator_for, make_caller
from tests.conftest import linked_copy

BASE = "https://api.example.test"
EXPORT_IDS = frozenset({"exports.list", "exports.download"})
TEST_CALLERS = {
    **CALLERS,
    "no_exports": make_caller(endpoints=DATA_IDS - EXPORT_IDS),
    "no_scores": make_caller(endpoints=DATA_IDS - {"signals.scores"}),
}
TOKENS = ("raw", "plain")  # the two field policies
ALPHA = "momentum_12_1"

JSON_ROUTES = {
    "decisions": ("/v1/alphas/{alpha}/scores", {"fields": "all"}),
    "rebalances": ("/v1/alphas/{alpha}/rebalances", {}),
    "portfolio": ("/v1/alphas/{alpha}/portfolio", {}),
    "positions": ("/v1/alphas/{alpha}/positions", {}),
    "pnl": ("/v1/alphas/{alpha}/pnl", {}),
    "trades": ("/v1/alphas/{alpha}/trades", {}),
    "equity-curve": ("/v1/alphas/{alpha}/equity-curve", {}),
    "benchmark": ("/v1/benchmarks/SPY/daily", {}),
}
"""The JSON route of each export, paged from start to end (what the export must equal)."""


def _client(lake: Path, key_dir: Path, **settings: Any) -> TestClient[Any]:
    key = key_dir / "signing.key"
    key.write_bytes(b"s" * 32)
    config = Settings(
        lake=str(lake), environment="test", signing_key_file=str(key), public_base_url=BASE, **settings
    )
    return TestClient(app=create_app(config, authenticate=authenticator_for(TEST_CALLERS), limiter=None))


@pytest.fixture(scope="module")
def client(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    with _client(demo_lake, tmp_path_factory.mktemp("exports_key")) as test_client:
        yield test_client


def get(client: TestClient[Any], path: str, token: str | None = "raw", **params: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(path, params=params or None, headers=headers)


def ok(client: TestClient[Any], path: str, token: str = "raw", **params: Any) -> dict[str, Any]:
    response = get(client, path, token, **params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def error(
    client: TestClient[Any], path: str, status: int, code: str, token: str = "raw", **params: Any
) -> Any:
    response = get(client, path, token, **params)
    assert response.status_code == status, response.text
    body = response.json()["error"]
    assert body["code"] == code, body
    return body


def local(url: str) -> str:
    """Path and query of a signed URL, as the TestClient requests it."""
    assert url.startswith(BASE + "/downloads/"), url
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def json_pages(client: TestClient[Any], token: str, alpha: str, dataset: str, book: str | None) -> list[Any]:
    """Every row of the dataset's JSON route, paged with the largest limit."""
    path, params = JSON_ROUTES[dataset]
    params = {**params, **({"book": book} if book else {})}
    rows: list[Any] = []
    while True:
        body = ok(client, path.format(alpha=alpha), token, limit=LIMIT_MAX, offset=len(rows), **params)
        rows += body["data"]
        if not body["pagination"]["has_more"]:
            assert len(rows) == body["pagination"]["total"]
            return rows


def wire_value(value: Any) -> Any:
    """A Parquet value as the JSON spells it: dates YYYY-MM-DD, timestamps ISO UTC at seconds."""
    if isinstance(value, datetime):
        assert value.utcoffset() is not None and value.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    return value


def check_types(table: pa.Table) -> None:
    """Dates as Parquet dates, timestamps as UTC timestamps, floats as float64, no text dates."""
    for field in table.schema:
        if field.name == "date" or field.name == "decision_at":
            assert pa.types.is_date32(field.type), field
        if field.name.endswith("_at") and field.name != "decision_at" or field.name == "timestamp":
            assert field.type == pa.timestamp("us", tz="UTC"), field  # the lake's unit (docs/lake.md)
        assert not pa.types.is_floating(field.type) or field.type == pa.float64(), field


def assert_export_equals_json(
    client: TestClient[Any], token: str, alpha: str, dataset: str, book: str | None
) -> dict[str, Any]:
    """Download the export and compare it with the JSON pages, row for row and column for column."""
    body = ok(client, f"/v1/alphas/{alpha}/exports/{dataset}", token, **({"book": book} if book else {}))
    data = body["data"]
    if data["url"].startswith(BASE):
        # No API key: the URL is the credential. A Parquet file is compressed already: sent as it is.
        download = client.get(local(data["url"]), headers={"Accept-Encoding": "zstd, gzip"})
        assert download.headers["content-type"] == "application/vnd.apache.parquet"
        assert "content-encoding" not in download.headers
        assert download.headers["content-length"] == str(data["size_bytes"])
    else:  # presigned by the object store
        download = httpx.get(data["url"])
    assert download.status_code == 200, download.text
    assert download.headers["content-disposition"] == f'attachment; filename="{data["filename"]}"'
    content = download.content
    assert len(content) == data["size_bytes"] and hashlib.sha256(content).hexdigest() == data["sha256"]

    table = pq.read_table(io.BytesIO(content))
    check_types(table)
    assert table.column_names == data["columns"]
    assert table.num_rows == data["rows"]
    expected = json_pages(client, token, alpha, dataset, book)
    assert table.num_rows == len(expected), (alpha, dataset, book, token)
    for index, (got, want) in enumerate(zip(table.to_pylist(), expected, strict=True)):
        # The JSON omits `entry_at` / `maturity_at` where the run never recorded them: null here.
        assert [c for c in table.column_names if c in want] == list(want), (dataset, index)
        assert {k: wire_value(v) for k, v in got.items()} == {c: want.get(c) for c in table.column_names}, (
            alpha,
            dataset,
            book,
            token,
            index,
        )
    return data


def expected_exports(client: TestClient[Any], token: str, alpha: str) -> list[tuple[str, str | None]]:
    """(dataset, book) pairs a key should find: every kind the run wrote and every book /books
    shows it (equity curves per ledger book), and the benchmark."""
    books = ok(client, f"/v1/alphas/{alpha}/books", token, limit=LIMIT_MAX)["data"]
    pairs: set[tuple[str, str | None]] = {(row["kind"], row["book"]) for row in books}
    pairs |= {("equity-curve", book) for kind, book in list(pairs) if kind == "portfolio"}
    for dataset in ("decisions", "rebalances"):
        warnings = ok(client, JSON_ROUTES[dataset][0].format(alpha=alpha), token, limit=1)["meta"]
        if not any(w["code"] == "kind_missing" for w in warnings.get("warnings", [])):
            pairs.add((dataset, None))
    pairs.add(("benchmark", None))
    return sorted(pairs, key=lambda p: (exports.DATASET_NAMES.index(p[0]), p[1] or ""))


# -- equality ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("token", TOKENS)
def test_every_export_equals_the_json_pages(client: TestClient[Any], demo_lake: Path, token: str) -> None:
    alphas = [a["alpha_id"] for a in ok(client, "/v1/alphas", token, limit=LIMIT_MAX)["data"]]
    assert len(alphas) == 7
    checked = 0
    for alpha in alphas:
        listing = ok(client, f"/v1/alphas/{alpha}/exports", token, limit=LIMIT_MAX)
        rows = listing["data"]
        assert listing["meta"]["run"] == alpha and listing["meta"]["source"].startswith("lake:exports@")
        pairs = [(row["dataset"], row["book"]) for row in rows]
        assert sorted(
            pairs, key=lambda p: (exports.DATASET_NAMES.index(p[0]), p[1] or "")
        ) == expected_exports(client, token, alpha)
        for row in rows:
            data = assert_export_equals_json(client, token, alpha, row["dataset"], row["book"])
            assert {k: data[k] for k in ("filename", "rows", "size_bytes", "sha256", "columns", "build")} == {
                k: row[k] for k in ("filename", "rows", "size_bytes", "sha256", "columns", "build")
            }
            checked += 1
    assert checked > 100


def test_raw_columns_and_books_only_with_raw_access(client: TestClient[Any]) -> None:
    raw = ok(client, f"/v1/alphas/{ALPHA}/exports", "raw")["data"]
    plain = ok(client, f"/v1/alphas/{ALPHA}/exports", "plain")["data"]
    assert any(r["book"] and r["book"].startswith("raw_") for r in raw)
    assert not any(r["book"] and r["book"].startswith("raw_") for r in plain)
    assert not any(c.startswith("raw_") for r in plain for c in r["columns"])
    decisions = {r["dataset"]: r for r in raw}["decisions"]
    assert "raw_score" in decisions["columns"] and decisions["filename"] == f"{ALPHA}.decisions.raw.parquet"
    plain_decisions = {r["dataset"]: r for r in plain}["decisions"]
    assert plain_decisions["filename"] == f"{ALPHA}.decisions.parquet"
    # A raw_ book is refused to a plain key exactly as a book that does not exist.
    invisible = error(
        client, f"/v1/alphas/{ALPHA}/exports/positions", 400, "unknown_book", "plain", book="raw_long_short"
    )
    missing = error(
        client, f"/v1/alphas/{ALPHA}/exports/positions", 400, "unknown_book", "plain", book="no_such_book"
    )
    assert invisible["details"]["available"] == missing["details"]["available"]
    assert all(r["build"] == decisions["build"] for r in raw if r["dataset"] != "benchmark")


# -- parameters and missing data ------------------------------------------------------------------


def test_book_rules_follow_the_json_routes(client: TestClient[Any]) -> None:
    base = f"/v1/alphas/{ALPHA}/exports"
    default = ok(client, f"{base}/portfolio")["data"]
    assert default["filename"] == f"{ALPHA}.portfolio.long_short.parquet"
    trades = error(client, f"{base}/trades", 400, "bad_request")
    assert trades["details"]["parameters"][0]["name"] == "book" and "available" in trades["details"]
    assert (
        error(client, f"{base}/decisions", 400, "bad_request", book="long_short")["details"]["parameters"][0][
            "name"
        ]
        == "book"
    )
    assert error(client, f"{base}/decisions", 400, "bad_request", limit=5)["details"]["parameters"][0][
        "name"
    ] == ("limit")
    unknown = error(client, f"{base}/nothing", 404, "export_not_found")
    assert unknown["details"]["available"] == list(exports.DATASET_NAMES)


def test_a_dataset_the_run_never_wrote_has_no_export(client: TestClient[Any]) -> None:
    alpha = "Test_ledger_only"
    listing = {r["dataset"] for r in ok(client, f"/v1/alphas/{alpha}/exports")["data"]}
    scores = ok(client, f"/v1/alphas/{alpha}/scores")
    assert scores["meta"]["warnings"][0]["code"] == "kind_missing" and "decisions" not in listing
    details = error(client, f"/v1/alphas/{alpha}/exports/decisions", 404, "export_not_found")["details"]
    assert details["dataset"] == "decisions" and sorted(details["available"]) == sorted(
        listing - {"benchmark"}
    )


# -- allow-lists ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/alphas/{alpha}/exports", "/v1/alphas/{alpha}/exports/decisions"])
def test_exports_are_refused_like_every_alpha_route(client: TestClient[Any], path: str) -> None:
    for alpha in (ALPHA, "never_published"):
        # The alpha (a prefix the key does not hold) or the run not granted: 403 whether or not it exists.
        for token in ("testonly", "alphaonly"):
            refused = error(client, path.format(alpha=alpha), 403, "run_not_allowed", token)
            assert refused["details"] == {"alpha": alpha}
            scores = error(client, f"/v1/alphas/{alpha}/scores", 403, "run_not_allowed", token)
            assert scores["details"] == refused["details"]
    # The group not granted: the endpoint allow-list, before anything else.
    for token in ("metaonly", "no_exports"):
        refused = error(client, path.format(alpha=ALPHA), 403, "endpoint_not_allowed", token)
        assert refused["details"]["endpoint"].startswith("exports.")
    assert error(client, path.format(alpha="never_published"), 404, "run_not_found")["details"] == {
        "alpha": "never_published"
    }
    assert get(client, path.format(alpha="Test_planted_factor"), "testonly").status_code == 200


def test_an_export_needs_the_route_that_serves_its_rows(client: TestClient[Any]) -> None:
    listed = {r["dataset"] for r in ok(client, f"/v1/alphas/{ALPHA}/exports", "no_scores")["data"]}
    assert "decisions" not in listed and "rebalances" in listed
    refused = error(client, f"/v1/alphas/{ALPHA}/exports/decisions", 403, "endpoint_not_allowed", "no_scores")
    assert refused["details"] == {"endpoint": "signals.scores"}


# -- signed URLs ----------------------------------------------------------------------------------


def _signed(client: TestClient[Any], dataset: str = "decisions", token: str = "plain") -> str:
    return str(ok(client, f"/v1/alphas/{ALPHA}/exports/{dataset}", token)["data"]["url"])


def _with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()} | changes
    return f"{parts.path}?{urlencode(query)}"


def test_tampered_export_urls_are_refused(client: TestClient[Any]) -> None:
    url = _signed(client)
    parts = urlsplit(url)
    signature = parse_qs(parts.query)["signature"][0]
    flipped = "0" if signature[-1] != "0" else "1"
    tampered = [
        _with_query(url, signature=signature[:-1] + flipped),  # another signature
        _with_query(url, expires=str(int(parse_qs(parts.query)["expires"][0]) + 3600)),  # a later expiry
        # The plain variant's signature on the raw variant's path: no upgrade to raw columns.
        local(url).replace("/decisions.parquet?", "/decisions.raw.parquet?"),
        local(url).replace("/exports/decisions.parquet", "/exports/../alpha.json"),
        f"{parts.path}?expires={parse_qs(parts.query)['expires'][0]}",  # no signature
    ]
    for path in tampered:
        response = client.get(path)
        assert response.status_code in (403, 404), (path, response.text)
        code = response.json()["error"]["code"]
        assert code in ("download_url_invalid", "not_found"), (path, code)
        assert signature not in response.text
    assert client.get(local(url)).status_code == 200  # the URL as signed still works


def test_expired_export_urls_are_refused(client: TestClient[Any]) -> None:
    _signed(client)  # builds the app's signer
    signer = client.app.state["archive_signer"]
    assert isinstance(signer, HmacSigner)
    data = ok(client, f"/v1/alphas/{ALPHA}/exports/rebalances", "plain")["data"]
    object_path = urlsplit(data["url"]).path.removeprefix("/downloads/")
    expired = signer.sign(object_path, data["filename"], time.time() - 2 * 3600, "k" * 16)
    response = client.get(local(expired))
    assert response.status_code == 403 and response.json()["error"]["code"] == "download_url_expired"


def test_an_export_url_answers_at_most_the_fetch_limit(demo_lake: Path, tmp_path: Path) -> None:
    with _client(demo_lake, tmp_path, download_fetch_limit=2) as capped:
        url = local(_signed(capped, "rebalances"))
        assert [capped.get(url).status_code for _ in range(2)] == [200, 200]
        refused = capped.get(url)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "download_url_expired"
        assert refused.json()["error"]["details"] == {"fetch_limit": 2}


def test_exports_without_a_signing_key_are_not_configured(demo_lake: Path, tmp_path: Path) -> None:
    config = Settings(lake=str(demo_lake), environment="test", signing_key_file=str(tmp_path / "absent.key"))
    app = create_app(config, authenticate=authenticator_for(TEST_CALLERS), limiter=None)
    with TestClient(app=app) as bare:
        assert len(ok(bare, f"/v1/alphas/{ALPHA}/exports")["data"]) > 10  # listing needs no signer
        error(bare, f"/v1/alphas/{ALPHA}/exports/decisions", 503, "export_download_not_configured")


# -- the lake -------------------------------------------------------------------------------------


def _served_build(lake: Path, alpha: str) -> Path:
    build_id = json.loads((lake / "alphas" / alpha / layout.POINTER_FILE).read_text())["build_id"]
    return lake / "alphas" / alpha / "builds" / build_id


def lake_before_exports(demo_lake: Path, tmp_path: Path, alpha: str) -> Path:
    """A copy of the demo lake in which `alpha`'s served build is as a pipeline before the Parquet
    exports published it (version 2.0.0, no exports folder, none in its manifest)."""
    lake = tmp_path / "lake"
    linked_copy(demo_lake, lake)
    build = _served_build(lake, alpha)
    entry = json.loads((build / layout.ALPHA_JSON).read_text())
    entry["files"] = {p: f for p, f in entry["files"].items() if not p.startswith(layout.EXPORTS_DIR + "/")}
    entry["pipeline_version"] = "2.0.0"
    (build / layout.ALPHA_JSON).write_text(json.dumps(entry))
    shutil.rmtree(build / layout.EXPORTS_DIR)
    index_rows.rebuild(str(lake))  # the index holds each build's alpha.json as published
    return lake


def test_exports_are_in_the_build_manifest(demo_lake: Path) -> None:
    build = _served_build(demo_lake, ALPHA)
    entry = json.loads((build / layout.ALPHA_JSON).read_text())
    assert entry["pipeline_version"] == PIPELINE_VERSION
    on_disk = {p.relative_to(build).as_posix() for p in (build / layout.EXPORTS_DIR).iterdir()}
    listed = {p for p in entry["files"] if p.startswith(layout.EXPORTS_DIR + "/")}
    assert on_disk == listed and f"{layout.EXPORTS_DIR}/{layout.EXPORTS_INDEX}" in listed
    for relative in listed:
        payload = (build / relative).read_bytes()
        assert entry["files"][relative] == {
            "bytes": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
        }


def test_a_damaged_export_marks_the_build_damaged(demo_lake: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(demo_lake, lake)  # damaged in place below: a copy of its own
    export = _served_build(lake, ALPHA) / layout.EXPORTS_DIR / "decisions.parquet"
    payload = bytearray(export.read_bytes())
    payload[len(payload) // 2] ^= 0xFF  # same size, other bytes: only the SHA-256 tells
    export.write_bytes(bytes(payload))
    reader = LakeReader(str(lake))
    reader.refresh()
    build = reader.alpha(ALPHA)
    assert build is not None
    view = reader.view(build)
    view.verify_hashes()
    assert view.damage is not None and view.damage.reason == "corrupt_file"
    assert "exports/decisions.parquet" in str(view.damage)


def test_a_build_published_before_exports_answers_503_naming_the_rebuild(
    demo_lake: Path, tmp_path: Path
) -> None:
    lake = lake_before_exports(demo_lake, tmp_path, ALPHA)
    build = _served_build(lake, ALPHA)
    with _client(lake, tmp_path) as old:
        for path in (f"/v1/alphas/{ALPHA}/exports", f"/v1/alphas/{ALPHA}/exports/decisions"):
            refused = error(old, path, 503, "exports_not_built")
            assert refused["details"] == {"build": build.name, "pipeline_version": "2.0.0"}
            assert "alpha-results build" in refused["message"]
        assert len(ok(old, f"/v1/alphas/{ALPHA}/scores")["data"]) == 100  # the JSON routes still answer


def test_an_export_of_a_retired_build_is_gone(demo_lake: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    linked_copy(demo_lake, lake)
    with _client(lake, tmp_path) as test_client:
        url = local(_signed(test_client, "rebalances"))
        shutil.rmtree(_served_build(lake, ALPHA) / layout.EXPORTS_DIR)  # as retention deletes a build
        gone = test_client.get(url)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "export_not_found"
        assert gone.json()["error"]["details"] == {"filename": f"{ALPHA}.rebalances.parquet"}


# -- caching --------------------------------------------------------------------------------------


def test_the_listing_is_a_data_route_and_the_signed_url_is_never_a_304(client: TestClient[Any]) -> None:
    path = f"/v1/alphas/{ALPHA}/exports"
    first = get(client, path, "plain")
    tag = first.headers["etag"]
    again = client.get(path, headers={"Authorization": "Bearer plain", "If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    # Keys that see other files never share a tag.
    for token in ("raw", "no_scores"):
        assert get(client, path, token).headers["etag"] != tag
    paged = get(client, path, "plain", limit=2)
    assert 'rel="next"' in paged.headers["link"]
    download = get(client, f"{path}/decisions", "plain")
    assert download.status_code == 200 and "etag" not in download.headers
