"""Every collection in every representation (issue 23 item 2): `format=` or `Accept` chooses the
JSON envelope, an Arrow IPC stream, CSV, NDJSON or Parquet; each holds the JSON page's rows, in
its order, with its field policy, and the envelope's paging and meta travel in headers (and, for
Arrow and Parquet, in the schema's metadata).

Rows are compared by value: a date column against the JSON text it is served as, a NaN or an
omitted field against null; numbers exactly (the same float64 the JSON writes, read back).
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from datasets.queries import Page
from schemas import wire
from schemas.bodies.base import field_names
from schemas.bodies.downloads import ExportRow
from schemas.choices import REPRESENTATIONS
from serve.representation import Body, negotiate
from tests.api.conftest import Api
from tests.representation_rows import filled, metadata_of, rows_of

ALPHA = "/v1/alphas/Test_planted_factor"
COLUMNAR = ("arrow", "csv", "ndjson", "parquet")
PAGES = [
    ("/v1/alphas", {}),
    (f"{ALPHA}/rebalances", {"limit": 7, "offset": 3}),
    (f"{ALPHA}/rebalances/{{week}}", {"limit": 40, "sort": "rank"}),
    (f"{ALPHA}/scores", {"limit": 300, "offset": 20, "fields": "all"}),
    (f"{ALPHA}/scores", {"limit": 50, "symbol": "AAA,BBB,CCC"}),
    (f"{ALPHA}/books", {}),
    (f"{ALPHA}/portfolio", {"limit": 30}),
    (f"{ALPHA}/positions", {"limit": 60, "offset": 5}),
    (f"{ALPHA}/pnl", {"limit": 60}),
    (f"{ALPHA}/trades", {"book": "long_short", "limit": 80}),
    (f"{ALPHA}/equity-curve", {"limit": 40, "offset": 2}),
    ("/v1/benchmarks/SPY/daily", {"limit": 25}),
    (f"{ALPHA}/analytics/drawdowns", {}),
    (f"{ALPHA}/analytics/rolling", {"limit": 20}),
    (f"{ALPHA}/analytics/correlation", {}),
    ("/v1/analytics/screen", {"sort": "-information_ratio"}),
    (f"{ALPHA}/exports", {}),
]
VOLATILE_META = ("request_id", "generated_at")


@pytest.fixture(scope="module")
def week(api: Api) -> str:
    first: str = api.ok(f"{ALPHA}/rebalances", limit=1, offset=4)["data"][0]["date"]
    return first


def _meta(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k not in VOLATILE_META}


@pytest.mark.parametrize("name", COLUMNAR)
@pytest.mark.parametrize(("template", "params"), PAGES)
def test_every_representation_holds_the_json_page(
    api: Api, week: str, template: str, params: dict[str, Any], name: str
) -> None:
    path = template.format(week=week)
    body = api.ok(path, **params)
    expected = body["data"]
    response = api.get(path, format=name, **params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].split(";")[0] == REPRESENTATIONS[name]
    rows = rows_of(name, response.content, expected)
    columns = list(rows[0]) if rows else []
    assert len(rows) == len(expected)
    if expected:
        assert set(columns) >= set().union(*(set(r) for r in expected))
    assert rows == filled(expected, columns) if name != "ndjson" else rows == expected

    assert response.headers["x-total-count"] == str(body["pagination"]["total"])
    assert json.loads(response.headers["x-pagination"]) == body["pagination"]
    assert _meta(json.loads(response.headers["x-meta"])) == _meta(body["meta"])
    assert json.loads(response.headers.get("x-warnings", "[]")) == body["meta"].get("warnings", [])
    # The links keep the representation: the next page comes as this one did.
    link = response.headers.get("link")
    assert (link or "").replace(f"format={name}&", "") == (api.get(path, **params).headers.get("link") or "")
    assert link is None or link.count(f"format={name}&") == link.count("rel=")
    if name in ("arrow", "parquet"):
        metadata = metadata_of(name, response.content)
        assert json.loads(metadata[b"pagination"]) == body["pagination"]
        assert _meta(json.loads(metadata[b"meta"])) == _meta(body["meta"])


@pytest.mark.parametrize("name", ["arrow", "parquet"])
def test_columns_carry_the_declared_types_and_the_field_policy(api: Api, name: str) -> None:
    response = api.get(f"{ALPHA}/scores", token="plain", format=name, fields="all", limit=10)
    schema = (
        pa.ipc.open_stream(response.content).schema
        if name == "arrow"
        else pq.read_schema(io.BytesIO(response.content))
    )
    assert not [f for f in schema.names if f.startswith("raw_")]
    assert schema.field("date").type == pa.date32()
    assert schema.field("score").type == pa.float64()
    raw = api.get(f"{ALPHA}/scores", token="raw", format=name, fields="all", limit=10)
    raw_schema = (
        pa.ipc.open_stream(raw.content).schema if name == "arrow" else pq.read_schema(io.BytesIO(raw.content))
    )
    assert "raw_score" in raw_schema.names


@pytest.mark.parametrize("name", ["arrow", "parquet"])
@pytest.mark.parametrize(("template", "params"), PAGES)
def test_every_column_has_its_declared_wire_type(
    api: Api, week: str, template: str, params: dict[str, Any], name: str
) -> None:
    """A serving table stores instants as ISO text and names as large strings; the columns are
    still of the types the declarations give (the same field, the same type, on every route)."""
    response = api.get(template.format(week=week), format=name, **params)
    schema = (
        pa.ipc.open_stream(response.content).schema
        if name == "arrow"
        else pq.read_schema(io.BytesIO(response.content))
    )
    declared = {}
    for field in schema:
        try:
            declared[field.name] = wire.wire_type(field.name)
        except KeyError:
            continue
    assert {f.name: f.type for f in schema if f.name in declared} == declared


def test_csv_says_its_charset_once(api: Api) -> None:
    response = api.get(f"{ALPHA}/rebalances", format="csv")
    assert response.headers["content-type"] == "text/csv; charset=utf-8"


def test_an_infinity_is_null_in_every_representation() -> None:
    """msgspec writes a non-finite float as null in JSON; the columns and cells say null too."""
    page = Page([{"alpha": "a", "correlation": math.inf, "pearson": -math.inf, "spearman": math.nan}], 1)
    paging = {"limit": 1, "offset": 0, "returned": 1, "total": 1, "has_more": False}
    body = Body(page, None, None, paging, {})
    for name in ("arrow", "parquet", "csv", "ndjson"):
        rows = rows_of(
            name, body.encode(name)[0], [{"alpha": "a", "correlation": 0.0, "pearson": 0.0, "spearman": 0.0}]
        )
        assert rows == [{"alpha": "a", "correlation": None, "pearson": None, "spearman": None}], name


def test_an_empty_page_of_a_run_without_the_kind_has_the_asked_columns(api: Api) -> None:
    """`Test_ledger_only` sealed no decisions: its empty `/scores` page has the `fields=core`
    columns, as a page of an alpha with decisions has."""
    core = pa.ipc.open_stream(api.get("/v1/alphas/Test_ledger_only/scores", format="arrow").content).schema
    assert core.names == list(wire.SCORE_CORE_FIELDS)
    whole = api.get(f"{ALPHA}/scores", format="arrow", limit=1)
    assert pa.ipc.open_stream(whole.content).schema.names == core.names


def test_an_empty_page_keeps_its_columns(api: Api) -> None:
    response = api.get(f"{ALPHA}/scores", format="arrow", **{"from": "1990-01-01", "to": "1990-01-31"})
    table = pa.ipc.open_stream(response.content).read_all()
    assert table.num_rows == 0
    assert "score" in table.column_names and table.schema.field("date").type == pa.date32()
    assert api.get(
        f"{ALPHA}/scores", format="csv", **{"from": "1990-01-01", "to": "1990-01-31"}
    ).text.startswith('"date","symbol"')


def test_an_empty_page_of_exports_keys_or_builds_has_its_row_structs_columns(api: Api) -> None:
    """The collections the lake does not type have their columns too: their row Struct's fields,
    typed null in Arrow when no row types them."""
    csv = api.get(f"{ALPHA}/exports", format="csv", offset=10_000)
    assert csv.status_code == 200 and csv.text.splitlines() == [
        ",".join(f'"{n}"' for n in field_names(ExportRow))
    ]
    table = pa.ipc.open_stream(api.get(f"{ALPHA}/exports", format="arrow", offset=10_000).content).read_all()
    assert table.num_rows == 0 and table.column_names == list(field_names(ExportRow))


ACCEPTED = [
    (None, "json"),
    ("", "json"),
    ("*/*", "json"),
    ("application/*", "json"),
    ("text/csv", "csv"),
    ("TEXT/CSV; charset=utf-8", "csv"),
    ("text/*", "csv"),
    ("application/vnd.apache.arrow.stream", "arrow"),
    ("application/x-ndjson", "ndjson"),
    ("application/vnd.apache.parquet", "parquet"),
    ("application/json;q=0.5, application/vnd.apache.arrow.stream", "arrow"),
    ("*/*;q=0.1, text/csv;q=0.2", "csv"),
    ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "json"),  # a browser
    ("application/*, application/json;q=0", "arrow"),
    ("text/csv;q=0, */*", "json"),
    ("text/csv;q=abc", None),
    ("text/html", None),
    ("application/json;q=0", None),
    ("image/png, text/plain", None),
]


@pytest.mark.parametrize(("accept", "chosen"), ACCEPTED)
def test_accept_is_negotiated(accept: str | None, chosen: str | None) -> None:
    assert negotiate(accept) == chosen


def _get(api: Api, path: str, accept: str | None = None, **params: Any) -> Any:
    headers = {"Authorization": "Bearer raw"}
    if accept is not None:
        headers["Accept"] = accept
    return api.client.get(path, params=params or None, headers=headers)


def test_accept_chooses_and_format_overrides_it(api: Api) -> None:
    response = _get(api, f"{ALPHA}/rebalances", "text/csv")
    assert response.headers["content-type"].startswith("text/csv")
    response = _get(api, f"{ALPHA}/rebalances", "text/html", format="NDJSON")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson"


def test_an_unsupported_accept_is_a_406_listing_what_is_offered(api: Api) -> None:
    response = _get(api, f"{ALPHA}/rebalances", "text/html")
    assert response.status_code == 406
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "not_acceptable"
    assert error["details"]["offered"] == list(REPRESENTATIONS.values())
    assert error["details"]["format"] == list(REPRESENTATIONS)


def test_a_bad_format_is_a_400_naming_it(api: Api) -> None:
    error = api.error(f"{ALPHA}/rebalances", 400, "bad_request", format="xml")
    assert [p["name"] for p in error["details"]["parameters"]] == ["format"]
    assert "json, arrow, csv, ndjson, parquet" in error["details"]["parameters"][0]["rule"]


def test_errors_are_json_whatever_is_accepted(api: Api) -> None:
    response = _get(api, "/v1/alphas/no_such_alpha/rebalances", "text/csv")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    response = _get(api, f"{ALPHA}/rebalances", "text/csv", limit="0")
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"


def test_single_objects_are_json_whatever_is_accepted(api: Api) -> None:
    """Only collections have other representations; a single object answers JSON (documented)."""
    response = _get(api, f"{ALPHA}/metrics", "text/csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    error = api.error(f"{ALPHA}/metrics", 400, "bad_request", format="csv")
    assert [p["name"] for p in error["details"]["parameters"]] == ["format"]


def test_each_representation_has_its_own_entity_tag_and_304(api: Api) -> None:
    path = f"{ALPHA}/positions"
    tags = {}
    for name in ("json", *COLUMNAR):
        response = _get(api, path, REPRESENTATIONS[name], limit=20)
        assert response.status_code == 200
        assert "Accept" in response.headers["vary"]
        tags[name] = response.headers["etag"]
        again = api.client.get(
            path,
            params={"limit": 20},
            headers={
                "Authorization": "Bearer raw",
                "Accept": REPRESENTATIONS[name],
                "If-None-Match": tags[name],
            },
        )
        assert again.status_code == 304, name
    assert len(set(tags.values())) == len(tags)


def test_parquet_is_never_compressed_again_and_arrow_is_over_http(api: Api) -> None:
    headers = {"Authorization": "Bearer raw", "Accept-Encoding": "zstd, gzip"}
    parquet = api.client.get(f"{ALPHA}/scores", params={"limit": 2000, "format": "parquet"}, headers=headers)
    assert parquet.status_code == 200 and "content-encoding" not in parquet.headers
    assert pq.read_table(io.BytesIO(parquet.content)).num_rows == 2000
    arrow = api.client.get(f"{ALPHA}/scores", params={"limit": 2000, "format": "arrow"}, headers=headers)
    assert arrow.headers["content-encoding"] == "zstd"
    table = pa.ipc.open_stream(arrow.content).read_all()
    assert table.num_rows == 2000
    # Never both: the stream itself carries no IPC compression (it is as large as a plain one).
    plain = pa.BufferOutputStream()
    with pa.ipc.new_stream(plain, table.schema) as writer:
        writer.write_table(table)
    assert len(arrow.content) >= 0.9 * len(plain.getvalue().to_pybytes())
    zstd_ipc = pa.BufferOutputStream()
    with pa.ipc.new_stream(
        zstd_ipc, table.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")
    ) as writer:
        writer.write_table(table)
    assert len(zstd_ipc.getvalue().to_pybytes()) < 0.9 * len(arrow.content)  # so the check can tell
