"""A key without raw-book access, through every surface of the real `alpha-results serve` (issue
81, item 1: such a key got `raw_long_short` / `raw_long_only` rows with their values from
`/v1/alphas/{alpha}/restatements`, the `alpha.restated` events and the MCP restatements tool, while
`/portfolio?book=raw_long_short` answered it `unknown_book`). The rule is declared once
(`schemas.wire.book_visible`, `field_visible`) and every surface asks it.

The key is the issue's: `--alphas list:momentum_12_1` (the demo restated its run, raw books
included), every endpoint, raw books off. A key like it with raw books on is the control: it finds
the raw books where the raw-off key must not (so the scan can fail). What is looked for: a raw book
named anywhere (`raw_long_short`, `raw_long_only`, and their `_adjustments` / `_settlements`
variants), and a raw-only field (`schemas.wire.RAW_FIELDS`) as a key or a column. Surfaces:

- the routes: every GET route of the OpenAPI document the key may call, with every book it
  serves, every rebalance date, every export, every page to the last; exports' signed downloads
  followed and their files read;
- the event feed, and the event stream (Server-Sent Events) read until it has sent every event
  the feed holds for the key;
- a webhook's body, as the delivery worker makes it (`delivery.event_answers.event_body` with the
  key's own access, read from the key store);
- MCP (the `mcp` SDK's client): every tool the key may call, with the sweep's arguments, paged;
- Delta Sharing (the `delta_sharing` client): shares, schemas, tables, every table loaded.

The dashboard draws what these routes answer it (its data is the routes' JSON: the JavaScript
computes nothing), so the routes' sweep covers its data.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import delta_sharing
import httpx
import httpx2
import pyarrow.parquet as pq
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from access import Grants, open_store
from core.context import AllowList
from delivery.event_answers import Viewer
from delivery.webhooks import event_body, key_access
from records.store import open_records
from schemas.query import LIMIT_MAX
from schemas.wire import BENCHMARK_SYMBOLS, RAW_FIELDS
from serve.model_context.tools import NEXT_PAGE
from tests.conftest import linked_copy
from tests.ops.keys import ROOMY, IssuedKey, KeyedSite, issue_key
from tests.support.one_alpha_sweep import Call, expand, path_arguments
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"
RAW_BOOK = re.compile(r"(?<![A-Za-z0-9_])raw_long_(short|only)")
NOT_SWEPT = {"events.stream": "read below, until it has sent every event"}


@dataclass
class World(KeyedSite):
    folder: Path
    plain: IssuedKey  # raw books off: the issue's key
    raw: IssuedKey  # the same grants with raw books on: the control


def grants(raw: bool) -> Grants:
    alpha = AllowList.of_ids([ALPHA])
    return Grants(AllowList.all(), alpha, alpha, expose_raw_book=raw)


@pytest.fixture(scope="module")
def world(demo_lake: Path, demo_records: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("raw_off_key")
    lake = linked_copy(demo_lake, folder / "lake")
    shutil.copyfile(demo_records, folder / "keys.sqlite3")  # the demo's events, the keys beside them
    keystore = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(keystore)
    try:
        keys = {}
        for raw in (False, True):
            account = store.create_account(f"raw-{raw}@example.com")
            store.set_account_ceiling(account.user_id, grants(raw))
            key, token = store.create_key(account.user_id, f"raw {raw}", grants=grants(raw), rate_limit=ROOMY)
            keys[raw] = IssuedKey(key.key_id, token, account.user_id)
        issue_key(store, role="admin")
    finally:
        store.close()
    signing_key = folder / "signing.key"
    signing_key.write_bytes(b"r" * 32)
    env = {"ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key)}
    with serving(lake, keystore, workers=1, env=env) as (port, _output):
        yield World(f"http://127.0.0.1:{port}", folder, keys[False], keys[True])


@dataclass
class Scan:
    """Every answer one surface handed a key, searched for raw books and raw-only fields."""

    surface: str
    answers: int = 0
    bytes: int = 0

    def __post_init__(self) -> None:
        self.found: list[str] = []

    def json(self, where: str, value: Any) -> None:
        self.answers += 1
        self.bytes += len(json.dumps(value, default=str))
        self.found += [f"{where}: {hit}" for hit in raw_in(value)]

    def text(self, where: str, text: str) -> None:
        """A text that is not JSON (CSV, a file's rows): a raw book named anywhere in it, or a
        raw-only field as a whole word."""
        self.answers += 1
        self.bytes += len(text.encode())
        for hit in RAW_BOOK.finditer(text):
            self.found.append(
                f"{where}: {hit.group(0)} in ...{text[max(0, hit.start() - 60) : hit.end() + 60]}..."
            )
        for field in RAW_FIELDS:
            if re.search(rf"(?<![A-Za-z0-9_]){field}(?![A-Za-z0-9_])", text):
                self.found.append(f"{where}: field {field}")

    def report(self, expect_raw: bool = False) -> None:
        print(f"[{self.surface}] {self.answers} answers, {self.bytes:,} bytes scanned, {len(self.found)} raw")
        if expect_raw:
            assert self.found, f"the control found no raw book on {self.surface}: the scan proves nothing"
        else:
            assert not self.found, "\n".join(self.found[:20])


def raw_in(value: Any, where: str = "$") -> list[str]:
    """Every raw-only field as a key, and every string value naming a raw book (a text may name a
    raw-only field: the documentation says which score a figure ranks; never a raw book)."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in RAW_FIELDS:
                found.append(f"{where}.{key}")
            if RAW_BOOK.search(str(key)):
                found.append(f"{where}.{key} (a raw book as a key)")
            found += raw_in(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += raw_in(item, f"{where}[{index}]")
    elif isinstance(value, str) and RAW_BOOK.search(value):
        found.append(f"{where} = {value[:120]!r}")
    return found


def calls_of(world: World, key: IssuedKey) -> list[Call]:
    """Every GET `key` may make about ALPHA, from the OpenAPI document and its own listings."""
    callable_ids = set(world.ok(key, "/v1/me")["data"]["callable_endpoints"])
    openapi = httpx.get(world.base + "/openapi.json", timeout=60).json()
    book_rows = world.rows(key, f"/v1/alphas/{ALPHA}/books")
    by_kind: dict[str, list[str]] = {}
    for r in book_rows:
        by_kind.setdefault(r["kind"], []).append(r["book"])
    dates = [r["date"] for r in world.rows(key, f"/v1/alphas/{ALPHA}/rebalances")]
    exports = world.rows(key, f"/v1/alphas/{ALPHA}/exports")
    values = {"alpha": [ALPHA], "date": dates, "symbol": list(BENCHMARK_SYMBOLS)}
    calls: list[Call] = []
    for template, item in openapi["paths"].items():
        operation = item["get"]
        endpoint = operation["operationId"]
        if endpoint not in callable_ids or endpoint in NOT_SWEPT:
            continue
        parameters = {p["name"]: p for p in operation["parameters"]}
        in_path = [name for name, p in parameters.items() if p["in"] == "path"]
        variants: list[dict[str, Any]] = [{}]
        if endpoint == "exports.download":
            variants = [
                {"dataset": e["dataset"], **({"book": e["book"]} if e["book"] else {})} for e in exports
            ]
        elif "book" in parameters:
            kind = {"portfolio.positions": "positions", "portfolio.pnl": "pnl", "portfolio.trades": "trades"}
            served = set(by_kind.get(kind.get(endpoint, "portfolio"), []))
            declared = parameters["book"]["schema"].get("enum")
            variants = [{"book": book} for book in sorted(served & set(declared or served))]
        for name in ("with", "alphas"):
            if name in parameters and parameters[name].get("required"):
                variants = [{**v, name: ALPHA} for v in variants]
        if endpoint == "signals.scores":
            variants = [{**v, "fields": "all"} for v in variants]
        if endpoint == "performance.metrics":
            variants = [{**v, "doc": "true", "panel": "true"} for v in variants]
        for variant in variants:
            for path_values in expand(in_path, values, variant):
                path = template
                for name in in_path:
                    path = path.replace("{" + name + "}", str(path_values[name]))
                query = {k: v for k, v in variant.items() if k not in in_path}
                calls.append(Call(endpoint, path, query, "offset" in parameters))
    return calls


def read_file(url: str) -> list[tuple[str, str]]:
    response = httpx.get(url, timeout=120, follow_redirects=False)
    assert response.status_code == 200, response.text[:300]
    body = response.content
    if body[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return [(name, archive.read(name).decode("utf-8", "replace")) for name in archive.namelist()]
    table = pq.read_table(io.BytesIO(body))
    return [("rows", json.dumps(table.to_pylist(), default=str)), ("columns", " ".join(table.schema.names))]


def sweep(world: World, key: IssuedKey, scan: Scan) -> set[str]:
    """Every route `key` may call, every page, each answer scanned; the endpoints that answered."""
    answered: set[str] = set()
    for call in calls_of(world, key):
        offset = 0
        while True:
            params = {**call.params, **({"limit": LIMIT_MAX, "offset": offset} if call.collection else {})}
            response = world.get(key, call.path, params)
            where = f"{call.endpoint} {call.path} {call.params}"
            for name, value in response.headers.items():
                scan.text(f"{where} header {name}", value)
            try:
                body = response.json()
            except ValueError:
                scan.text(where, response.text)
                break
            scan.json(where, body)
            if response.status_code != 200:
                break
            answered.add(call.endpoint)
            if call.endpoint in ("catalog.alphas.source.download", "exports.download"):
                for name, text in read_file(body["data"]["url"]):
                    scan.text(f"{where} file {name}", text)
            if not (call.collection and body.get("pagination", {}).get("has_more")):
                break
            offset += body["pagination"]["returned"]
    for fmt in ("csv", "arrow"):  # the other representations of a page (the restatements')
        response = world.get(key, f"/v1/alphas/{ALPHA}/restatements", {"format": fmt, "limit": LIMIT_MAX})
        assert response.status_code == 200, response.text[:300]
        scan.text(f"restatements as {fmt}", response.content.decode("latin-1"))
    return answered


def test_the_issue_s_report_through_the_server(world: World) -> None:
    """The issue's reproduction: the raw-off key's restatements name no raw book, and
    `/portfolio?book=raw_long_short` is its `unknown_book`; the control's name both raw books."""
    plain = world.rows(world.plain, f"/v1/alphas/{ALPHA}/restatements")
    raw = world.rows(world.raw, f"/v1/alphas/{ALPHA}/restatements")
    assert {"raw_long_short", "raw_long_only"} <= {r["book"] for r in raw}
    assert plain and not [r for r in plain if RAW_BOOK.search(str(r["book"]))]
    refused = world.get(world.plain, f"/v1/alphas/{ALPHA}/portfolio", {"book": "raw_long_short"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "unknown_book"


def test_every_route_the_raw_off_key_may_call_names_no_raw_book(world: World) -> None:
    control = Scan("routes (raw on)")
    sweep(world, world.raw, control)
    control.report(expect_raw=True)
    scan = Scan("routes")
    answered = sweep(world, world.plain, scan)
    assert "catalog.alphas.restatements" in answered and "events.list" in answered
    scan.report()


def feed(world: World, key: IssuedKey) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = None
    while True:
        body = world.ok(key, "/v1/events", {"limit": 100, **({"after": after} if after else {})})
        events += body["data"]
        if not body["pagination"]["has_more"]:
            return events
        after = body["meta"]["next_cursor"]


def streamed(world: World, key: IssuedKey, count: int) -> list[dict[str, Any]]:
    """The first `count` events the stream sends from the start of the log (a stream starts after
    the cursor it is given: the log's start's, written by the deployment's own cursors)."""
    records = open_records(f"sqlite:///{world.folder}/keys.sqlite3", create=False)
    try:
        start = records.cursors.write(0)
    finally:
        records.close()
    got: list[dict[str, Any]] = []
    headers = {**key.headers, "Accept": "text/event-stream"}
    url = world.base + "/v1/events/stream"
    with httpx.stream("GET", url, params={"after": start}, headers=headers, timeout=120) as response:
        assert response.status_code == 200, response.read()[:300]
        for line in response.iter_lines():
            if line.startswith("data:"):
                got.append(json.loads(line[5:]))
                if len(got) >= count:
                    return got
    return got


def test_the_event_feed_stream_and_webhooks_name_no_raw_book(world: World) -> None:
    control = feed(world, world.raw)
    assert any(e["type"] == "alpha.restated" and "raw_books" in e["data"] for e in control)
    scan = Scan("events")
    events = feed(world, world.plain)
    restated = [e for e in events if e["type"] == "alpha.restated"]
    assert restated and all("raw_books" not in e["data"] for e in restated)
    scan.json("feed", events)
    sent = streamed(world, world.plain, len(events))
    assert [e["id"] for e in sent] == [e["id"] for e in events]
    scan.json("stream", sent)
    # A webhook's body: the delivery worker's own function, with the key's access as it reads it.
    store = open_store(f"sqlite:///{world.folder}/keys.sqlite3")
    records = open_records(f"sqlite:///{world.folder}/keys.sqlite3", create=False)
    try:
        access = key_access(store, world.plain.key_id, datetime.now(UTC))
        assert not isinstance(access, str) and access.expose_raw_book is False
        recorded = records.events.latest(ALPHA, ("alpha.restated",))
        assert recorded is not None
        scan.json("webhook body", json.loads(event_body(recorded, "cursor", Viewer.of(access))))
    finally:
        records.close()
        store.close()
    scan.report()


async def mcp_pass(world: World, key: IssuedKey, calls: list[Call]) -> list[tuple[str, Any]]:
    got: list[tuple[str, Any]] = []
    async with (
        httpx2.AsyncClient(headers=key.headers, timeout=httpx2.Timeout(120)) as http,
        streamable_http_client(f"{world.base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        got.append(("tools/list", [t.model_dump(mode="json") for t in tools.values()]))
        for call in calls:
            tool = tools.get(call.endpoint)
            if tool is None:
                continue
            arguments = {**path_arguments(call, world), **call.params}  # type: ignore[arg-type]
            taken = set(tool.input_schema.get("properties", {}))
            arguments = {k: v for k, v in arguments.items() if k in taken}
            if "limit" in taken:
                arguments["limit"] = LIMIT_MAX
            while True:
                result = await client.call_tool(tool.name, arguments)
                got.append((f"{tool.name} {arguments}", result.model_dump(mode="json", by_alias=True)))
                following = (result.meta or {}).get(NEXT_PAGE)
                if not following:
                    break
                arguments = following
    return got


def test_mcp_tools_name_no_raw_book(world: World) -> None:
    scan = Scan("mcp")
    got = anyio.run(mcp_pass, world, world.plain, calls_of(world, world.plain))
    called = {what.split(" ", 1)[0] for what, _ in got}
    assert "catalog.alphas.restatements" in called and "events.list" in called
    for what, answer in got:
        scan.json(what, answer)
    control = Scan("mcp (raw on)")
    restatements = [c for c in calls_of(world, world.raw) if c.endpoint == "catalog.alphas.restatements"]
    for what, answer in anyio.run(mcp_pass, world, world.raw, restatements):
        control.json(what, answer)
    control.report(expect_raw=True)
    scan.report()


def test_delta_sharing_shares_no_raw_book(world: World) -> None:
    scan = Scan("delta sharing")
    profile = world.sharing_profile(world.plain, world.folder)
    client = delta_sharing.SharingClient(str(profile))
    tables = client.list_all_tables()
    assert tables
    scan.text("tables", repr(tables))
    for table in tables:
        url = f"{profile}#{table.share}.{table.schema}.{table.name}"
        scan.text(f"{table.name} metadata", repr(delta_sharing.get_table_metadata(url)))
        frame = delta_sharing.load_as_pandas(url)
        scan.text(f"{table.name} columns", " ".join(map(str, frame.columns)))
        scan.text(f"{table.name} rows", frame.to_json(orient="records", date_format="iso"))
    scan.report()
