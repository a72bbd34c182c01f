"""A key that reads one alpha, through every surface of the real `alpha-results serve` (issue 46,
item 2: "a one-alpha key receives no figure, name or symbol from outside its grants on any
surface"). The key is the broadest that still reads one alpha: every endpoint a member may call,
raw books, its alpha alone on both allow-lists (Test_planted_factor: the demo approved then
retired it, and it is approved again here with the command line so that its `/promotions` holds a
real snapshot taken with the pipeline's full view).

What it may not receive is collected with an administrator's key: every other demo alpha's id,
name, source id and build id, and every security symbol held in another alpha's positions that
appears nowhere in its own alpha's scores, positions, trades or P&L (the demo alphas share a
universe: a symbol of its own book is its own to see). Each surface is then read as a user reads
it, with the official clients, and every byte it was handed is scanned for them:

- the routes: one pass over every GET route of the OpenAPI document the key may call (its
  `callable_endpoints`), each with every book it serves, every rebalance date, every export, every
  page to the last; the two signed downloads followed and their files read (zip members, Parquet
  rows);
- MCP (the `mcp` SDK's client): the tool list, every tool called with the same arguments, each
  collection paged by the result's next-page hint; the prompts, each rendered for the alpha; the
  server declares no resources (its capabilities say so, and that is asserted);
- Delta Sharing (the `delta_sharing` client): shares, schemas, tables, and every table loaded;
- the dashboard in Chromium: the tear sheet of the alpha and the comparison report of it alone,
  once drawn (their footers' page numbers written last): the page's text, its HTML (the charts'
  data attributes included), the printed PDF's text and every API answer the page was given.

Figures computed over alphas it may not read are checked where they can occur: a check marked
`over_catalogue` (schemas.checks) is null with the withheld reason in a stored snapshot or event,
and on a live route is either null or the value its own `/analytics/checks` computes over what it
reads (whose reference sets, correlation rows and DSR trial variance hold no other alpha). The one
disclosure the design keeps, the DSR's trial count N (docs/security.md, "learning that hidden
alphas exist"), is a count: it is not scanned for.

Each test prints what it compared, per surface: answers and bytes scanned.
"""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
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
from cli.main import main as cli_main
from core.context import AllowList
from delivery.event_answers import OVER_CATALOGUE
from schemas.checks import CHECKS
from schemas.query import LIMIT_MAX
from schemas.wire import BENCHMARK_SYMBOLS
from serve.model_context.tools import NEXT_PAGE, UNSERVED
from tests.conftest import linked_copy
from tests.e2e.browser import chromium_or_skip
from tests.ops.keys import ROOMY, IssuedKey, issue_key
from tests.support.one_alpha_sweep import Call, Foreign, World, expand, path_arguments
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

ALPHA = "Test_planted_factor"
OVER_CATALOGUE_CHECKS = frozenset(check.id for check in CHECKS if check.over_catalogue)
SHARE = "alpha_results"
TIMEOUT_MS = 180_000  # only catches a hang, on a busy machine too
NOT_SWEPT = {"events.stream": "a stream never ends: tests/e2e/test_events_served.py reads it"}
"""GET routes the one-pass sweep does not call, and why."""
NEEDS_ANOTHER = {
    "analytics.combine": "a set of two alphas or more",
    "analytics.compare": "another alpha than the one compared",
    "analytics.contribution": "a reference set, by default the approved alphas it reads: none",
}
"""Routes a key of one alpha is refused with a 400 by their own rules (the 400 is scanned)."""


@dataclass
class Scan:
    """Every answer one surface handed the key, scanned for what is foreign; what was found."""

    foreign: Foreign
    surface: str
    answers: int = 0
    bytes: int = 0
    found: list[str] = field(default_factory=list)

    def text(self, where: str, text: str) -> None:
        self.answers += 1
        self.bytes += len(text.encode())
        for string in sorted(self.foreign.ids | self.foreign.strings):
            if string in text:
                at = text.index(string)
                self.found.append(f"{where}: {string!r} in ...{text[max(0, at - 80) : at + 80]}...")
        for hit in self.foreign.pattern.finditer(text):
            self.found.append(
                f"{where}: symbol {hit.group(1)} in ...{text[max(0, hit.start() - 80) : hit.end() + 80]}..."
            )

    def report(self) -> None:
        print(
            f"[{self.surface}] {self.answers} answers, {self.bytes:,} bytes scanned, {len(self.found)} foreign"
        )
        assert not self.found, "\n".join(self.found[:20])


def one_alpha_grants() -> Grants:
    alpha = AllowList.of_ids([ALPHA])
    return Grants(AllowList.all(), alpha, alpha, expose_raw_book=True)


@pytest.fixture(scope="module")
def world(demo_lake: Path, demo_records: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("one_alpha_key")
    lake = linked_copy(demo_lake, folder / "lake")  # a decision records its index row again
    # The records and the keys in one database, as `serve --init-demo` keeps them: the demo's events
    # and its decisions (ALPHA approved then retired), then ALPHA approved again by the command line
    # (its snapshot and event computed with the pipeline's full view, over every alpha).
    shutil.copyfile(demo_records, folder / "keys.sqlite3")
    keystore = f"sqlite:///{folder}/keys.sqlite3"
    where = ["--lake", str(lake), "--keystore", keystore, "--policy", ""]
    decided = ["promote", ALPHA, "--by", "head of research", "--note", "a test", "--override", "a test"]
    assert cli_main([*decided, *where]) == 0
    store = open_store(keystore)
    try:
        admin = issue_key(store, role="admin")
        account = store.create_account("one-alpha@example.com")
        store.set_account_ceiling(account.user_id, one_alpha_grants())
        key, token = store.create_key(
            account.user_id, "one alpha", grants=one_alpha_grants(), rate_limit=ROOMY
        )
        one = IssuedKey(key.key_id, token, account.user_id)
    finally:
        store.close()
    signing_key = folder / "signing.key"
    signing_key.write_bytes(b"s" * 32)  # the signed downloads and Delta Sharing's file URLs
    env = {"ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key)}
    with serving(lake, keystore, workers=1, env=env) as (port, _output):
        world = World(f"http://127.0.0.1:{port}", folder, admin, one)
        world.foreign = collect_foreign(world)
        yield world


def collect_foreign(world: World) -> Foreign:
    admin = world.admin
    listed = world.rows(admin, "/v1/alphas")
    assert ALPHA in {row["alpha_id"] for row in listed}
    others = [row for row in listed if row["alpha_id"] != ALPHA]
    assert len(others) >= 6, others
    strings: set[str] = set()
    held: set[str] = set()
    for row in others:
        alpha = row["alpha_id"]
        strings.add(row["name"])
        meta = world.ok(admin, f"/v1/alphas/{alpha}/books")["meta"]
        strings.add(meta["source_alpha_id"])
        strings.add(meta["source"].rsplit("@", 1)[1])  # its build
        for book in {
            r["book"] for r in world.rows(admin, f"/v1/alphas/{alpha}/books") if r["kind"] == "positions"
        }:
            held |= {r["symbol"] for r in world.rows(admin, f"/v1/alphas/{alpha}/positions", book=book)}
    own: set[str] = {r["symbol"] for r in world.rows(admin, f"/v1/alphas/{ALPHA}/scores", fields="all")}
    for book_row in world.rows(admin, f"/v1/alphas/{ALPHA}/books"):
        kind, book = book_row["kind"], book_row["book"]
        route = {"positions": "positions", "trades": "trades", "pnl": "pnl"}.get(kind)
        if route:
            own |= {r["symbol"] for r in world.rows(admin, f"/v1/alphas/{ALPHA}/{route}", book=book)}
    own_meta = world.ok(admin, f"/v1/alphas/{ALPHA}/books")["meta"]
    assert own_meta["source_alpha_id"] not in strings
    symbols = held - own - set(BENCHMARK_SYMBOLS)
    assert len(symbols) >= 10, (sorted(held), sorted(own))  # else the scan would prove little
    print(
        f"[foreign] {len(others)} other alphas: {len(strings)} names, source and build ids; "
        f"{len(symbols)} symbols held by them and not in {ALPHA}'s data: {sorted(symbols)}"
    )
    return Foreign({row["alpha_id"] for row in others}, strings, symbols)


# ---------------------------------------------------------------------------------------------
# Figures over alphas the key may not read
# ---------------------------------------------------------------------------------------------


def walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from walk(inner)


def own_checks(world: World) -> dict[tuple[str, str], Any]:
    """(book, check id) -> the value the key's own /analytics/checks computes, with the proof that
    its reference sets hold no other alpha."""
    found: dict[tuple[str, str], Any] = {}
    for book in books_of(world):
        checks = world.ok(world.one, f"/v1/alphas/{ALPHA}/analytics/checks", {"book": book})["data"]["checks"]
        found |= {(book, c["id"]): c["value"] for c in checks}
        residual = world.ok(world.one, f"/v1/alphas/{ALPHA}/analytics/residual", {"book": book})["data"]
        assert residual["reference"]["alphas"] == [] and residual["betas"] == [], residual["reference"]
    assert world.ok(world.one, f"/v1/alphas/{ALPHA}/analytics/correlation")["data"] == []
    return found


def books_of(world: World) -> list[str]:
    return sorted(
        {r["book"] for r in world.rows(world.one, f"/v1/alphas/{ALPHA}/books") if r["kind"] == "portfolio"}
    )


def assert_no_catalogue_figure(where: str, answer: Any, own: dict[tuple[str, str], Any]) -> int:
    """Every check over the catalogue in `answer` is withheld (a stored snapshot or event: null with
    its reason) or the key's own (a live route's); the DSR's trial variance is over ALPHA alone.
    Returns how many such figures were looked at."""
    looked = 0
    stored = where.startswith(
        ("catalog.alphas.promotions", "events.list", "/v1/events", "/v1/alphas/" + ALPHA + "/promotions")
    )
    for node in walk(answer):
        if "sharpe_variance_alphas" in node:
            looked += 1
            assert node["sharpe_variance_alphas"] <= 1, (where, node)
        checks = node.get("checks")
        entries: list[tuple[str, dict[str, Any]]] = []
        if isinstance(checks, list):
            entries = [(c["id"], c) for c in checks if isinstance(c, dict) and "id" in c]
        elif isinstance(checks, dict):
            entries = [(k, c) for k, c in checks.items() if isinstance(c, dict)]
        for check_id, check in entries:
            if check_id not in OVER_CATALOGUE_CHECKS or "value" not in check:
                continue
            looked += 1
            if stored:
                assert check["value"] is None and check["verdict"] == "not_measurable", (
                    where,
                    check_id,
                    check,
                )
                reason = check.get("withheld_reason") or check.get("reason")
                assert reason == OVER_CATALOGUE, (where, check_id, check)
            elif check["value"] is not None:
                book = check.get("book") or node.get("book") or "long_short"
                assert check["value"] == own[(book, check_id)], (where, check_id, check)
    return looked


# ---------------------------------------------------------------------------------------------
# The routes, in one pass
# ---------------------------------------------------------------------------------------------


def calls_of(world: World) -> list[Call]:
    """Every GET the key may make about its alpha, from the OpenAPI document and its own listing."""
    me = world.ok(world.one, "/v1/me")["data"]
    callable_ids = set(me["callable_endpoints"])
    openapi = httpx.get(world.base + "/openapi.json", timeout=60).json()
    books = [r["book"] for r in world.rows(world.one, f"/v1/alphas/{ALPHA}/books")]
    by_kind: dict[str, list[str]] = {}
    for r in world.rows(world.one, f"/v1/alphas/{ALPHA}/books"):
        by_kind.setdefault(r["kind"], []).append(r["book"])
    dates = [r["date"] for r in world.rows(world.one, f"/v1/alphas/{ALPHA}/rebalances")]
    exports = world.rows(world.one, f"/v1/alphas/{ALPHA}/exports")
    values = {"alpha": [ALPHA], "date": dates, "symbol": list(BENCHMARK_SYMBOLS)}
    calls: list[Call] = []
    for template, item in openapi["paths"].items():
        operation = item["get"]
        endpoint = operation["operationId"]
        if endpoint not in callable_ids or endpoint in NOT_SWEPT:
            continue
        parameters = {p["name"]: p for p in operation["parameters"]}
        in_path = [name for name, p in parameters.items() if p["in"] == "path"]
        collection = "offset" in parameters
        variants: list[dict[str, Any]] = [{}]
        if endpoint == "exports.download":
            variants = [
                {"dataset": e["dataset"], **({"book": e["book"]} if e["book"] else {})} for e in exports
            ]
        elif "book" in parameters:
            kind = {
                "portfolio.positions": "positions",
                "portfolio.pnl": "pnl",
                "portfolio.trades": "trades",
            }.get(endpoint, "portfolio")
            served = set(by_kind.get(kind, books))
            declared = parameters["book"]["schema"].get("enum")  # the books the route takes, if it says
            variants = [{"book": book} for book in sorted(served & set(declared or served))]
        for name in ("with", "alphas"):  # compare's other alpha, combine's set: its own alpha
            if name in parameters and parameters[name].get("required"):
                variants = [{**v, name: ALPHA} for v in variants]
        if endpoint == "signals.scores":
            variants = [{**v, "fields": "all"} for v in variants]
        for variant in variants:
            for path_values in expand(in_path, values, variant):
                path = template
                for name in in_path:
                    path = path.replace("{" + name + "}", str(path_values[name]))
                query = {k: v for k, v in variant.items() if k not in in_path}
                calls.append(Call(endpoint, path, query, collection))
    return calls


def downloaded(world: World, answer: dict[str, Any]) -> list[tuple[str, str]]:
    """The file a signed URL hands out, as text: each zip member, or a Parquet file's rows."""
    response = httpx.get(answer["data"]["url"], timeout=120, follow_redirects=False)
    assert response.status_code == 200, response.text[:300]
    body = response.content
    if body[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return [(name, archive.read(name).decode("utf-8", "replace")) for name in archive.namelist()]
    table = pq.read_table(io.BytesIO(body))
    return [("rows", json.dumps(table.to_pylist(), default=str)), ("schema", str(table.schema))]


def test_every_route_the_key_may_call_answers_nothing_of_another_alpha(world: World) -> None:
    # The scanner finds what it looks for: an administrator's listing and another alpha's positions.
    control = Scan(world.foreign, "control")
    control.text("admin /v1/alphas", world.get(world.admin, "/v1/alphas").text)
    other = sorted(world.foreign.ids)[0]
    control.text("admin positions", json.dumps(world.rows(world.admin, f"/v1/alphas/{other}/positions")))
    assert len(control.found) > len(world.foreign.ids) and any("symbol" in f for f in control.found)
    scan = Scan(world.foreign, "routes")
    own = own_checks(world)
    calls = calls_of(world)
    swept: set[str] = set()
    statuses: dict[int, int] = {}
    looked = 0
    for call in calls:
        pages = 0
        while True:
            params = {
                **call.params,
                **({"limit": LIMIT_MAX, "offset": pages * LIMIT_MAX} if call.collection else {}),
            }
            response = world.get(world.one, call.path, params)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            where = f"{call.endpoint} {call.path} {call.params}"
            scan.text(where, response.text)
            for name, value in response.headers.items():
                scan.text(f"{where} header {name}", value)
            if response.status_code != 200:
                break
            swept.add(call.endpoint)
            body = response.json()
            looked += assert_no_catalogue_figure(f"{call.path}", body, own)
            if call.endpoint in ("catalog.alphas.source.download", "exports.download"):
                for name, text in downloaded(world, body):
                    scan.text(f"{where} file {name}", text)
            pages += 1
            if not (call.collection and body.get("pagination", {}).get("has_more")):
                break
    me = set(world.ok(world.one, "/v1/me")["data"]["callable_endpoints"])
    # Every route it may call answered 200 at least once, but those that need another alpha than
    # its own (their 400 is scanned as well).
    assert me - set(NOT_SWEPT) - swept == set(NEEDS_ANOTHER), sorted(me - swept)
    # Its listings hold its alpha alone, and what it read of the stored decisions is withheld.
    assert [r["alpha_id"] for r in world.rows(world.one, "/v1/alphas")] == [ALPHA]
    assert [r["alpha_id"] for r in world.rows(world.one, "/v1/analytics/screen")] == [ALPHA]
    events = world.ok(world.one, "/v1/events", {"limit": 100})["data"]
    assert events and {e["alpha"] for e in events} == {ALPHA}
    decisions = world.ok(world.one, f"/v1/alphas/{ALPHA}/promotions")["data"]["decisions"]
    with sqlite3.connect(world.folder / "keys.sqlite3") as db:
        recorded = db.execute("SELECT action FROM promotions WHERE alpha_id = ? ORDER BY id", (ALPHA,))
        assert [d["action"] for d in decisions] == [action for (action,) in recorded]
    assert [d["action"] for d in decisions] == ["approved", "retired", "approved"]
    assert all(d["snapshot"]["checks"] for d in decisions)
    print(
        f"[routes sweep] {len(calls)} requests planned over {len(swept)} endpoints, statuses {statuses}, "
        f"{looked} figures over the catalogue checked"
    )
    scan.report()


# ---------------------------------------------------------------------------------------------
# MCP, with the official SDK's client
# ---------------------------------------------------------------------------------------------


async def mcp_pass(world: World, calls: list[Call]) -> tuple[list[tuple[str, str, Any]], Any, list[str]]:
    """(what, tool, answer) of every message the key's session got: the tool list, each tool called
    with each of the sweep's requests (collections paged by the next-page hint), the prompts."""
    got: list[tuple[str, str, Any]] = []
    async with (
        httpx2.AsyncClient(headers=world.one.headers, timeout=httpx2.Timeout(120)) as http,
        streamable_http_client(f"{world.base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        initialized = await client.initialize()
        got.append(("initialize", "", initialized.model_dump(mode="json")))
        tools = (await client.list_tools()).tools
        got.append(("tools/list", "", [t.model_dump(mode="json") for t in tools]))
        by_name = {tool.name: tool for tool in tools}
        for call in calls:
            tool = by_name.get(call.endpoint)
            if tool is None:
                continue
            arguments = {**path_arguments(call, world), **call.params}
            taken = set(tool.input_schema.get("properties", {}))
            arguments = {k: v for k, v in arguments.items() if k in taken}
            if "limit" in taken:
                arguments["limit"] = LIMIT_MAX
            while True:
                result = await client.call_tool(tool.name, arguments)
                got.append(
                    (f"{tool.name} {arguments}", tool.name, result.model_dump(mode="json", by_alias=True))
                )
                following = (result.meta or {}).get(NEXT_PAGE)
                if not following:
                    break
                arguments = following
        prompts = (await client.list_prompts()).prompts
        got.append(("prompts/list", "", [p.model_dump(mode="json") for p in prompts]))
        for prompt in prompts:
            given = {a.name: ALPHA for a in prompt.arguments or []}
            rendered = await client.get_prompt(prompt.name, given)
            got.append((f"prompt {prompt.name}", "", rendered.model_dump(mode="json")))
        return got, initialized.capabilities, sorted(by_name)


def test_mcp_tools_and_prompts_answer_nothing_of_another_alpha(world: World) -> None:
    scan = Scan(world.foreign, "mcp")
    own = own_checks(world)
    calls = calls_of(world)
    got, capabilities, tools = anyio.run(mcp_pass, world, calls)
    me = set(world.ok(world.one, "/v1/me")["data"]["callable_endpoints"])
    assert set(tools) == me - set(UNSERVED)  # every tool of its allow-list, each called below
    called = {tool for _, tool, _ in got if tool}
    assert called == set(tools), sorted(set(tools) - called)
    # Tools and prompts only: no resource to list or read.
    assert capabilities.resources is None and capabilities.tools is not None
    looked = 0
    errors = 0
    for what, tool, answer in got:
        scan.text(what, json.dumps(answer))
        if tool:
            errors += bool(answer.get("isError"))
            looked += assert_no_catalogue_figure(tool, answer.get("structuredContent"), own)
    listed = next(a for w, t, a in got if t == "catalog.alphas.list")["structuredContent"]["data"]
    assert [row["alpha_id"] for row in listed] == [ALPHA]
    print(
        f"[mcp] {len(tools)} tools, {len(got)} messages ({errors} tool errors: the routes' refusals), "
        f"{looked} figures over the catalogue checked"
    )
    scan.report()


# ---------------------------------------------------------------------------------------------
# Delta Sharing, with the official client
# ---------------------------------------------------------------------------------------------


def test_delta_sharing_lists_and_loads_nothing_of_another_alpha(world: World) -> None:
    scan = Scan(world.foreign, "delta sharing")
    profile = world.sharing_profile(world.one, world.folder)
    client = delta_sharing.SharingClient(str(profile))
    shares = client.list_shares()
    scan.text("shares", repr(shares))
    schemas = [schema for share in shares for schema in client.list_schemas(share)]
    scan.text("schemas", repr(schemas))
    tables = client.list_all_tables()
    scan.text("tables", repr(tables))
    assert {t.schema for t in tables} == {ALPHA} and {s.name for s in schemas} == {ALPHA}
    rows = 0
    for table in tables:
        url = f"{profile}#{table.share}.{table.schema}.{table.name}"
        metadata = delta_sharing.get_table_metadata(url)
        scan.text(f"{table.name} metadata", repr(metadata))
        frame = delta_sharing.load_as_pandas(url)
        rows += len(frame)
        scan.text(f"{table.name} rows", frame.to_json(orient="records", date_format="iso"))
        scan.text(f"{table.name} columns", repr(list(frame.columns)))
    # The protocol's own answers over HTTP too (the client reads them): every table's query answer.
    for table in tables:
        answer = httpx.post(
            f"{world.base}/delta-sharing/shares/{table.share}/schemas/{table.schema}/tables/{table.name}/query",
            json={},
            headers=world.one.headers,
            timeout=120,
        )
        assert answer.status_code == 200, answer.text[:300]
        scan.text(f"{table.name} query", answer.text)
    print(f"[delta sharing] {len(shares)} share(s), {len(tables)} tables, {rows:,} rows loaded")
    scan.report()


# ---------------------------------------------------------------------------------------------
# The tear sheet and the comparison report, drawn by Chromium
# ---------------------------------------------------------------------------------------------


def drawn(world: World, browser: Any, fragment: str, done: str, scan: Scan, tmp_path: Path, name: str) -> str:
    """Open `/ui<fragment>` signed in with the key, wait until `done` is drawn, and scan the page's
    text, its HTML, its printed PDF and every answer it was given. Returns the page's text."""
    from tests.support.tearsheet import pdf_pages

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        answers: list[Any] = []
        requested: list[str] = []
        page.on("response", lambda response: answers.append(response))
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{world.base}/ui{fragment}", wait_until="load")
        page.fill("#api-key", world.one.token)
        page.click("#sign-in button[type=submit]")
        page.wait_for_selector(done)
        text: str = page.inner_text("body")
        scan.text(f"{name} text", text)
        scan.text(f"{name} html", page.content())
        pdf = page.pdf(format="A4")
        (tmp_path / f"{name}.pdf").write_bytes(pdf)
        scan.text(f"{name} pdf", "\n".join(pdf_pages(pdf)))
        for answer in answers:
            if answer.url.startswith(f"{world.base}/v1/"):
                scan.text(f"{name} answer {answer.url}", answer.text())
        assert all(url.startswith(world.base + "/") or url.startswith("data:") for url in requested)
        return text
    finally:
        context.close()


def test_the_tear_sheet_and_report_drawn_show_nothing_of_another_alpha(world: World, tmp_path: Path) -> None:
    executable, sync_playwright = chromium_or_skip()
    scan = Scan(world.foreign, "dashboard")
    name = world.ok(world.one, f"/v1/alphas/{ALPHA}")["data"]["name"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            sheet = drawn(
                world,
                browser,
                f"#/alphas/{ALPHA}/tearsheet",
                "#tearsheet .page-footer .page-number",
                scan,
                tmp_path,
                "tearsheet",
            )
            report = drawn(
                world,
                browser,
                f"#/report?alphas={ALPHA}",
                "#report .page-footer .page-number",
                scan,
                tmp_path,
                "report",
            )
        finally:
            browser.close()
    assert name in sheet and "Decision summary" in sheet
    assert name in report or ALPHA in report
    print(f"[dashboard] tear sheet {len(sheet):,} and report {len(report):,} characters of text")
    scan.report()
