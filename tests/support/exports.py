"""Parquet exports on a local lake through a TestClient: the app, its callers and requests, a signed
URL's path, every JSON page of an export's route, an export checked equal to them, and a copy of
the demo lake as it was before the exports."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
from litestar.testing import TestClient

from core.settings import Settings
from datasets import layout
from pipeline import index_rows
from schemas.query import LIMIT_MAX
from serve.app import create_app
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


def _signed(client: TestClient[Any], dataset: str = "decisions", token: str = "plain") -> str:
    return str(ok(client, f"/v1/alphas/{ALPHA}/exports/{dataset}", token)["data"]["url"])


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


def made_exports(build: Path) -> dict[str, bytes]:
    """Every export of a folder lake's alpha build (`exports/{file}` -> its bytes) as the server
    makes the ones the lake did not store (`datasets.export_files.made_export`, pipeline 2.13.0),
    each checked against the size and SHA-256 its index records; a stored one read from the folder."""
    from analytics.series import COMPUTED_EXPORTS
    from datasets.build_view import BuildView
    from datasets.export_files import made_export

    entry = json.loads((build / layout.ALPHA_JSON).read_text())
    view = BuildView(build.parent.parent.name, build.name, entry, str(build))
    index = json.loads((build / layout.EXPORTS_DIR / layout.EXPORTS_INDEX).read_text())
    found = {}
    for listed in index["files"]:
        relative = listed["path"]
        if listed["stored"]:
            payload = (build / relative).read_bytes()
        else:
            payload = made_export(view, relative, COMPUTED_EXPORTS)
        assert (len(payload), hashlib.sha256(payload).hexdigest()) == (listed["bytes"], listed["sha256"]), (
            relative
        )
        found[relative] = payload
    return found
