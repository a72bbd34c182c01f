"""The MCP server (issue 38) through the real `alpha-results serve`, with the official `mcp` SDK's
client (`streamable_http_client` + `ClientSession`): each key lists the tools of its allow-list,
every tool answers what its route answers over HTTP, a forbidden alpha and a 429 are tool errors in
the spec's envelope, paging by the result's hint reaches the route's last row, and
`alpha-results mcp` (stdio, the SDK's stdio client) serves the same tools from the same server.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from access import Grants, RateLimit, open_store
from core.context import AllowList
from schemas.registry import ADMIN_IDS, ALL_IDS
from schemas.wire import BENCHMARK_SYMBOLS
from serve.model_context.summary import DETAIL, FULL
from serve.model_context.tools import NEXT_PAGE, RATE_LIMIT, UNSERVED
from tests.health_wait import wait_until
from tests.ops.keys import IssuedKey, issue_key
from tests.shared_servers import SharedServer
from tests.support.mcp_sessions import NARROW, World, keyed, session, tool_arguments

pytestmark = pytest.mark.e2e

VOLATILE_META = ("request_id", "generated_at")
"""`meta` of every answer: this request's id and time, which two requests never share."""


def new_key(world: World, endpoints: tuple[str, ...], rate_limit: RateLimit | None = None) -> IssuedKey:
    """`keyed` in the server's key store, opened for it and closed."""
    store = open_store(world.server.keystore_url)
    try:
        return keyed(store, endpoints, rate_limit)
    finally:
        store.close()


def per_day(n: int) -> RateLimit:
    """Limits that only the day's window can reach in a test."""
    return RateLimit(per_second=100, per_minute=100, per_day=n, monthly_requests=None)


@pytest.fixture(scope="module")
def world(shared_server: SharedServer) -> Iterator[World]:
    store = open_store(shared_server.keystore_url)
    try:
        admin = issue_key(store, role="admin")
        member = issue_key(store)
        narrow = keyed(store, NARROW)
    finally:
        store.close()
    yield World(shared_server, admin, member, narrow)


def run(coroutine: Any) -> Any:
    return anyio.run(lambda: coroutine)


async def listed(world: World, key: IssuedKey) -> list[types.Tool]:
    async with session(world, key) as client:
        return (await client.list_tools()).tools


def test_a_key_lists_the_tools_of_its_allow_list(world: World) -> None:
    narrow = anyio.run(listed, world, world.narrow)
    # meta.health is public: every key may call it.
    assert [tool.name for tool in narrow] == ["meta.health", *NARROW]
    member = {tool.name for tool in anyio.run(listed, world, world.member)}
    admin = {tool.name for tool in anyio.run(listed, world, world.admin)}
    callable_ids = set(ALL_IDS) - set(UNSERVED)
    assert admin == callable_ids
    assert member == callable_ids - ADMIN_IDS
    metrics = next(tool for tool in narrow if tool.name == "performance.metrics")
    # The input schema is the route's: its path parameter and its query Struct's fields.
    openapi = httpx.get(world.url + "/openapi.json", timeout=30).json()
    operation = openapi["paths"]["/v1/alphas/{alpha}/metrics"]["get"]
    assert list(metrics.input_schema["properties"]) == [p["name"] for p in operation["parameters"]]
    for param in operation["parameters"]:
        if param["in"] == "query":
            assert metrics.input_schema["properties"][param["name"]] == {
                **param["schema"],
                "description": param["description"],
            }
    assert metrics.input_schema["required"] == ["alpha"]
    assert metrics.annotations is not None and metrics.annotations.read_only_hint


def test_no_valid_key_is_a_401_at_mcp(world: World) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    for given in ({}, {"Authorization": "Bearer ar_live_nope"}):
        answer = httpx.post(world.url + "/mcp", json=body, headers={**headers, **given}, timeout=30)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] in {"missing_api_key", "malformed_api_key", "invalid_api_key"}
        assert answer.headers["x-request-id"] == answer.json()["error"]["request_id"]
    # A key in the URL is refused as on every route, even beside a valid header.
    leaked = httpx.post(
        world.url + "/mcp",
        params={"api_key": world.member.token},
        json=body,
        headers={**headers, **world.member.headers},
    )
    assert leaked.status_code == 401 and world.member.token not in leaked.text
    # The app's path rules hold: `/mcp/` is another path (404 not_found).
    assert (
        httpx.post(world.url + "/mcp/", json=body, headers={**headers, **world.member.headers}).status_code
        == 404
    )
    # No server-to-client stream on a stateless server: GET is the mount's 405, with the app's headers.
    stream = httpx.get(world.url + "/mcp", headers={**headers, **world.member.headers}, timeout=30)
    assert stream.status_code == 405
    assert stream.headers["x-content-type-options"] == "nosniff" and stream.headers["x-request-id"]


def test_a_request_from_a_rebound_name_or_a_foreign_origin_is_a_403(world: World) -> None:
    """DNS rebinding (MCP's Streamable HTTP transport): a page whose name was re-pointed at the
    server sends its own name as `Host` and its origin as `Origin`. Either is refused 403 with a
    JSON-RPC error before the key is read (a valid key or none); the server's own names pass."""
    port = world.server.port
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {**world.member.headers, **MCP_POST_HEADERS}

    def post(extra: dict[str, str], key: bool = True) -> httpx.Response:
        sent = {**(headers if key else MCP_POST_HEADERS), **extra}
        return httpx.post(world.url + "/mcp", json=listing, headers=sent, timeout=30)

    refused = {
        "a rebound Host": post({"Host": f"attacker.example:{port}"}),
        "a rebound Host, no key": post({"Host": f"attacker.example:{port}"}, key=False),
        "a foreign Origin": post({"Origin": "http://attacker.example"}),
        "a foreign Origin, no key": post({"Origin": f"http://attacker.example:{port}"}, key=False),
        "a null Origin": post({"Origin": "null"}),
        "another port's Origin": post({"Origin": f"http://127.0.0.1:{port + 1}"}),
    }
    for what, answer in refused.items():
        assert answer.status_code == 403, (what, answer.text)
        reply = answer.json()
        assert (reply["jsonrpc"], reply["id"], reply["error"]["code"]) == ("2.0", None, -32600), what
        assert reply["error"]["message"].startswith("Forbidden: the "), what
        assert "attacker" not in answer.text, what  # the refused value is not echoed
    assert refused["a rebound Host"].json()["error"]["data"] == {"header": "Host"}
    assert refused["a foreign Origin"].json()["error"]["data"] == {"header": "Origin"}
    # The GET of a stream is refused the same, before its 405.
    assert httpx.get(world.url + "/mcp", headers={"Origin": "http://attacker.example"}).status_code == 403
    # The server's own names and origins: the bound address, loopback names, no Origin at all.
    for extra in (
        {},
        {"Origin": f"http://127.0.0.1:{port}"},
        {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
    ):
        assert post(extra).status_code == 200, extra
    # The official client sending a foreign Origin is refused at its handshake, told why.
    error = anyio.run(handshake_error, world, world.member, {"Origin": "http://attacker.example"})
    assert error.code == -32600 and "Origin" in error.message


def without_volatile(answer: dict[str, Any]) -> dict[str, Any]:
    if "meta" not in answer:  # the health probe's bare body: its `time` is the answer's
        return {k: v for k, v in answer.items() if k != "time"}
    return {**answer, "meta": {k: v for k, v in answer["meta"].items() if k not in VOLATILE_META}}


def arguments_from_demo(world: World) -> dict[str, Any]:
    """A value for every path parameter and required query parameter a tool declares, read from
    the demo lake through the routes (a parameter without one fails the test that needs it)."""
    alphas = world.get(world.admin, "/v1/alphas", {"limit": 5000}).json()["data"]
    first, second = alphas[0]["alpha_id"], alphas[1]["alpha_id"]
    weeks = world.get(world.admin, f"/v1/alphas/{first}/rebalances").json()["data"]
    books = world.get(world.admin, f"/v1/alphas/{first}/books").json()["data"]
    return {
        "alpha": first,
        "with": second,
        "alphas": f"{first},{second}",
        "date": weeks[0]["date"],
        "book": books[0]["book"],
        "symbol": BENCHMARK_SYMBOLS[0],
        "key_id": world.member.key_id,
    }


VARYING: dict[str, tuple[str, ...]] = {
    # The key's usage counts, and its account's (issue 80, item 3), which the tool's own request
    # (and the HTTP one) moved.
    "meta.me": ("usage", "account_usage"),
    "meta.keys": ("usage",),
    # Another key's (the member's, whose MCP messages are metered): its second and minute windows
    # may roll over between the tool's request and the HTTP one; and its account's.
    "admin.keys.usage": ("usage", "account_usage"),
    # A signed URL is signed anew (its signature and expiry) on every request.
    "catalog.alphas.source.download": ("url",),
    "exports.download": ("url",),
}
"""Fields of `data` that two requests never share (beyond `meta`'s id and time): compared as
present on both sides, not by value."""


def without_varying(name: str, data: Any) -> Any:
    if isinstance(data, list):
        return [without_varying(name, row) for row in data]
    if isinstance(data, dict):
        return {k: ("(varies)" if k in VARYING.get(name, ()) else v) for k, v in data.items()}
    return data


def route_of(world: World, tool: types.Tool, arguments: dict[str, Any]) -> httpx.Response:
    """The same request over HTTP: the route's path (from the OpenAPI document) and its query."""
    openapi = httpx.get(world.url + "/openapi.json", timeout=30).json()
    [(path, operation)] = [
        (path, item["get"])
        for path, item in openapi["paths"].items()
        if item["get"]["operationId"] == tool.name
    ]
    in_path = {p["name"] for p in operation["parameters"] if p["in"] == "path"}
    for name in in_path:
        path = path.replace("{" + name + "}", str(arguments[name]))
    # `detail` is the tool's own (its summary form: serve/model_context/summary.py), never the route's.
    query = {k: v for k, v in arguments.items() if k not in in_path and k != DETAIL}
    return world.get(world.admin, path, query)


async def call_every_tool(world: World) -> list[tuple[types.Tool, dict[str, Any], types.CallToolResult]]:
    demo = arguments_from_demo(world)
    out = []
    async with session(world, world.admin) as client:
        for tool in (await client.list_tools()).tools:
            arguments = tool_arguments(world, tool, demo)
            if DETAIL in tool.input_schema["properties"]:
                arguments[DETAIL] = (
                    FULL  # the whole answer, the route's (the summary: tests/api/test_mcp_summary.py)
                )
            out.append((tool, arguments, await client.call_tool(tool.name, arguments)))
    return out


NOT_CONFIGURED = {"source_download_not_configured", "export_download_not_configured"}
"""What the shared server answers the two download routes: it has no signing key (a deployment
setting); the tools must answer the same refusal."""


def test_every_tool_answers_its_routes_json(world: World) -> None:
    called = anyio.run(call_every_tool, world)
    assert {tool.name for tool, _, _ in called} == set(ALL_IDS) - set(UNSERVED)
    refused = set()
    for tool, arguments, result in called:
        answer = result.structured_content
        assert isinstance(answer, dict)
        over_http = route_of(world, tool, arguments)
        expected = over_http.json()
        if over_http.status_code != 200:
            # The route's refusal, as the tool's error: the same envelope (but its request id).
            assert result.is_error, tool.name
            assert {**answer["error"], "request_id": None} == {**expected["error"], "request_id": None}
            refused.add((tool.name, expected["error"]["code"]))
            continue
        assert not result.is_error, (tool.name, arguments, answer)
        # The text block is the same JSON, for clients that read text only.
        assert json.loads(result.content[0].text) == answer  # type: ignore[union-attr]
        # The next page's arguments exactly while more rows follow.
        following = (result.meta or {}).get(NEXT_PAGE)
        assert (following is not None) == bool((answer.get("pagination") or {}).get("has_more")), tool.name
        # The route's rate-limit headers, as `_meta` (the same window and limit as over HTTP).
        limited = (result.meta or {}).get(RATE_LIMIT)
        if "x-ratelimit-limit" in over_http.headers:
            assert limited is not None, tool.name
            assert (str(limited["limit"]), limited["window"]) == (
                over_http.headers["x-ratelimit-limit"],
                over_http.headers["x-ratelimit-window"],
            ), tool.name
        else:
            assert limited is None, tool.name
        if tool.name in VARYING:
            answer = {**answer, "data": without_varying(tool.name, answer["data"])}
            expected = {**expected, "data": without_varying(tool.name, expected["data"])}
        assert without_volatile(answer) == without_volatile(expected), tool.name
    assert {code for _, code in refused} <= NOT_CONFIGURED, refused


async def call(
    world: World, key: IssuedKey, *calls: tuple[str, dict[str, Any]]
) -> list[types.CallToolResult]:
    async with session(world, key) as client:
        return [await client.call_tool(name, arguments) for name, arguments in calls]


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error
    assert isinstance(result.structured_content, dict)
    error: dict[str, Any] = result.structured_content["error"]
    return error


def test_a_forbidden_alpha_is_a_tool_error_in_the_envelope(world: World) -> None:
    alphas = [row["alpha_id"] for row in world.get(world.admin, "/v1/alphas").json()["data"]]
    allowed, forbidden = alphas[0], alphas[1]
    store = open_store(world.server.keystore_url)
    try:
        grants = Grants(AllowList.all(), AllowList.of_ids([allowed]), AllowList.all(), expose_raw_book=False)
        key = issue_key(store, grants=grants)
    finally:
        store.close()
    mark = len(world.server.output)
    ok, refused = anyio.run(
        call,
        world,
        key,
        ("performance.metrics", {"alpha": allowed}),
        ("performance.metrics", {"alpha": forbidden}),
    )
    assert not ok.is_error
    error = error_of(refused)
    over_http = world.get(key, f"/v1/alphas/{forbidden}/metrics")
    assert over_http.status_code == 403
    assert {**error, "request_id": None} == {**over_http.json()["error"], "request_id": None}
    assert error["details"]
    # Each call is the route's request: its access line names the route, the key and the status.
    lines = [json.loads(line) for line in world.server.lines_from(mark) if line.startswith("{")]
    metrics = [(line["key_id"], line["status"]) for line in lines if line["route"] == "performance.metrics"]
    assert metrics[:2] == [(key.key_id, 200), (key.key_id, 403)]
    # The MCP messages that carried them have lines of their own, under the route `mcp`.
    assert (key.key_id, 200) in [(line["key_id"], line["status"]) for line in lines if line["route"] == "mcp"]


def test_a_bad_parameter_is_the_routes_400_naming_it(world: World) -> None:
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    bad, unknown, pathless = anyio.run(
        call,
        world,
        world.member,
        ("performance.metrics", {"alpha": alpha, "granularity": "fortnightly"}),
        ("performance.metrics", {"alpha": alpha, "colour": "blue"}),
        ("performance.metrics", {}),
    )
    # Refused by the tool's input schema, in the route's words (less the value it echoes).
    over_http = world.get(world.member, f"/v1/alphas/{alpha}/metrics", {"granularity": "fortnightly"}).json()
    [(name, rule)] = [(p["name"], p["rule"]) for p in error_of(bad)["details"]["parameters"]]
    [route_rule] = [p["rule"] for p in over_http["error"]["details"]["parameters"]]
    assert error_of(bad)["code"] == over_http["error"]["code"] == "bad_request"
    assert name == "granularity" and rule == "must be one of overall, yearly, monthly"
    assert route_rule.startswith(rule)
    assert error_of(unknown)["details"] == {
        "parameters": [{"name": "colour", "rule": "is not a parameter of this tool"}],
        "count": 1,
    }
    assert error_of(pathless)["code"] == "bad_request"
    assert error_of(pathless)["details"]["parameters"] == [{"name": "alpha", "rule": "is required"}]


def test_an_argument_the_tool_refuses_is_one_400_or_414_counted_as_one_message(world: World) -> None:
    key = new_key(world, NARROW, per_day(100))
    many = {f"x{i}": 1 for i in range(3000)}
    mark = len(world.server.output)
    fmt, named, long_name, typed, long_target, counted = anyio.run(
        call,
        world,
        key,
        ("catalog.alphas.list", {"format": "arrow"}),
        ("catalog.alphas.list", many),
        ("catalog.alphas.list", {"y" * 20_000: 1}),
        ("catalog.alphas.list", {"search": {"q": "mom"}}),
        ("performance.metrics", {"alpha": "a" * 9000}),
        ("catalog.alphas.list", {"limit": 2.0}),
    )
    assert error_of(fmt)["details"]["parameters"] == [
        {"name": "format", "rule": "is not taken by a tool: a tool answers JSON"}
    ]
    assert error_of(named)["details"]["count"] == 3000
    assert len(error_of(named)["details"]["parameters"]) == 10
    # A name is echoed cut to 64 characters: the answer stays small whatever the call sends.
    assert error_of(long_name)["details"]["parameters"] == [
        {"name": "y" * 64 + "…", "rule": "is not a parameter of this tool"}
    ]
    assert len(json.dumps(long_name.structured_content)) < 1000
    assert error_of(typed)["details"]["parameters"] == [{"name": "search", "rule": "must be a JSON string"}]
    # The HTTP server's answer to such a request line: its 414, the same envelope.
    error = error_of(long_target)
    assert (error["code"], error["details"]) == ("request_target_too_long", {"limit_bytes": 8192})
    assert not counted.is_error, counted.structured_content
    assert len(counted.structured_content["data"]) == 2  # type: ignore[index]
    # None of the five reached a route (no access line of theirs), yet each message was metered,
    # its result pacing the agent as a route's does.
    assert all(RATE_LIMIT in (r.meta or {}) for r in (fmt, named, long_name, typed, long_target))

    # A route's access line is written once its answer is sent: wait for the one route reached.
    def routes() -> list[str] | None:
        lines = [json.loads(line) for line in world.server.lines_from(mark) if line.startswith("{")]
        found = [line["route"] for line in lines if line["key_id"] == key.key_id and line["route"] != "mcp"]
        return found or None

    assert wait_until(routes, "the counted call's access line") == ["catalog.alphas.list"]
    assert_each_message_cost_one_request(world, key, mark)


def assert_each_message_cost_one_request(world: World, key: IssuedKey, mark: int) -> None:
    """The key's day count is one request per `/mcp` message it sent since `mark` (the handshake
    and every call; a tool call counted by its route, never twice). Read by an administrator's key
    (the key's own `/v1/me` would count itself), until every message's access line is written: a
    message whose answer is a stream (the client's GET) is logged when it closes, after it counted."""

    def counted() -> tuple[int, int] | None:
        lines = (json.loads(line) for line in world.server.lines_from(mark) if line.startswith("{"))
        messages = sum(1 for line in lines if line["key_id"] == key.key_id and line["route"] == "mcp")
        usage = world.get(world.admin, f"/v1/admin/keys/{key.key_id}/usage").json()["data"]["usage"]
        return (usage["day"], messages) if usage["day"] == messages else None

    wait_until(counted, "the key's day count equals its /mcp messages' access lines")


async def unknown_names(world: World, key: IssuedKey, name: str) -> list[str]:
    messages = []
    async with session(world, key) as client:
        for ask in (client.call_tool(name, {}), client.get_prompt(name, {})):
            with pytest.raises(MCPError) as refused:
                await ask
            messages.append(refused.value.error.message)
    return messages


def test_an_unknown_tool_or_prompt_is_named_cut_to_64_characters(world: World) -> None:
    tool, prompt = anyio.run(unknown_names, world, world.member, "t" * 30_000)
    assert (tool, prompt) == ("Unknown tool: " + "t" * 64 + "…", "Unknown prompt: " + "t" * 64 + "…")
    short_tool, _ = anyio.run(unknown_names, world, world.member, "nope")
    assert short_tool == "Unknown tool: nope"


def test_a_body_over_the_mcp_limit_is_refused_unread(world: World) -> None:
    from serve.model_context.mount import MAX_BODY_BYTES

    headers = {**world.member.headers, "Accept": "application/json, text/event-stream"}
    arguments = {"search": "m" * MAX_BODY_BYTES}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "x", "arguments": arguments},
    }
    declared = httpx.post(world.url + "/mcp", json=body, headers=headers, timeout=30)
    # Without a declared length (chunked): refused once the chunks read pass the limit.
    encoded = json.dumps(body).encode()
    chunks = (encoded[i : i + 8192] for i in range(0, len(encoded), 8192))
    chunked = httpx.post(world.url + "/mcp", content=chunks, headers=headers, timeout=30)
    for answer in (declared, chunked):
        assert answer.status_code == 413
        assert answer.json()["error"] == {
            "code": -32600,
            "message": f"Request body too large: at most {MAX_BODY_BYTES} bytes",
        }
    # A body just under the limit is read and answered by the protocol (an unknown tool here).
    body["params"]["arguments"] = {"search": "m" * (MAX_BODY_BYTES - 1000)}
    under = httpx.post(world.url + "/mcp", json=body, headers=headers, timeout=30)
    assert under.status_code == 200 and "Unknown tool: x" in under.text


def test_a_call_whose_client_leaves_mid_body_is_not_run(world: World) -> None:
    """A tools/call cut off before its body ends (the client closed the connection) is never
    run: no route's access line, nothing metered; its own line is 499 (the client left), not a
    server error."""
    key = new_key(world, NARROW)
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    call = {"name": "performance.metrics", "arguments": {"alpha": alpha}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        f"{next(f'{k}: {v}' for k, v in key.headers.items())}\r\nContent-Length: {len(body) + 10}\r\n\r\n"
    ).encode()
    mark = len(world.server.output)
    with socket.create_connection(("127.0.0.1", world.server.port), timeout=30) as connection:
        connection.sendall(head + body)  # ten bytes short of what it declared

    def lines_of_key() -> list[dict[str, Any]]:
        lines = (json.loads(line) for line in world.server.lines_from(mark) if line.startswith("{"))
        return [line for line in lines if line["key_id"] == key.key_id]

    mcp_line = wait_until(
        lambda: next((line for line in lines_of_key() if line["route"] == "mcp"), None), "the /mcp line"
    )
    assert mcp_line["status"] == 499
    assert [line["route"] for line in lines_of_key()] == ["mcp"]  # no tool's route ran
    usage = world.get(key, "/v1/me").json()["data"]["usage"]
    assert usage["day"] == 1, usage  # this /v1/me alone


def test_a_429_is_a_tool_error_with_its_retry_after(world: World) -> None:
    # Five requests a day: the SDK client's three protocol messages (initialize,
    # notifications/initialized, and the tools/list it checks a result's schema against) and two
    # tool calls; the third call is refused whatever the clock (the day's window).
    key = new_key(world, NARROW, per_day(5))
    first, second, third = anyio.run(call, world, key, *[("meta.me", {})] * 3)
    assert not first.is_error and not second.is_error
    # Each result carries the route's X-RateLimit-* headers: the agent sees the day run out.
    paced = [result.meta[RATE_LIMIT] for result in (first, second, third)]  # type: ignore[index]
    assert [(m["window"], m["limit"]) for m in paced] == [("day", 5)] * 3
    assert paced[0]["remaining"] > 0
    assert [(m["used"], m["remaining"]) for m in paced[1:]] == [(5, 0), (5, 0)]
    assert paced[0]["reset"] == paced[2]["reset"] > time.time()
    error = error_of(third)
    assert error["code"] == "rate_limit_day"
    assert error["details"]["window"] == "day" and error["details"]["retry_after"] > 0
    assert any("Retry after" in block.text for block in third.content if isinstance(block, types.TextContent))


MCP_POST_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def post_message(world: World, key: IssuedKey, message: dict[str, Any] | bytes) -> httpx.Response:
    """One message POSTed to `/mcp` as a client sends it (a dict as JSON, bytes as they are)."""
    headers = {**key.headers, **MCP_POST_HEADERS, "Content-Type": "application/json"}
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return httpx.post(world.url + "/mcp", content=body, headers=headers, timeout=30)


def test_every_protocol_message_is_metered_as_a_request(world: World) -> None:
    """Issue 48: `tools/list` and the other protocol messages were free (286 a second on a key
    limited to 5). Each is one request of the key now, and at a limit it is refused with the
    window's 429 as a route's request is, its body a JSON-RPC error carrying the API's envelope."""
    from serve.model_context.metering import REFUSED

    key = new_key(world, NARROW, per_day(3))
    listing = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    admitted = [post_message(world, key, listing) for _ in range(3)]
    assert [answer.status_code for answer in admitted] == [200, 200, 200]
    assert [answer.headers["x-ratelimit-used"] for answer in admitted] == ["1", "2", "3"]
    assert {answer.headers["x-ratelimit-window"] for answer in admitted} == {"day"}
    initialize = {
        "jsonrpc": "2.0",
        "id": "init-1",
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "metering-test", "version": "1"},
        },
    }
    refused = {
        "tools/list": (post_message(world, key, listing), 7),
        "ping": (post_message(world, key, {"jsonrpc": "2.0", "id": 8, "method": "ping"}), 8),
        "initialize": (post_message(world, key, initialize), "init-1"),
        "a notification": (
            post_message(world, key, {"jsonrpc": "2.0", "method": "notifications/initialized"}),
            None,
        ),
        "a call naming no tool": (
            post_message(
                world,
                key,
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "tools/call",
                    "params": {"name": "nope", "arguments": {}},
                },
            ),
            9,
        ),
        "a body that is no message": (post_message(world, key, b"[not json"), None),
    }
    for what, (answer, message_id) in refused.items():
        assert answer.status_code == 429, (what, answer.text)
        assert int(answer.headers["retry-after"]) > 0, what
        assert answer.headers["x-ratelimit-remaining"] == "0", what
        reply = answer.json()
        assert (reply["jsonrpc"], reply["id"], reply["error"]["code"]) == ("2.0", message_id, REFUSED), what
        envelope = reply["error"]["data"]["error"]
        assert envelope["code"] == "rate_limit_day", what
        assert envelope["details"]["window"] == "day" and envelope["details"]["retry_after"] > 0, what
        assert envelope["request_id"] == answer.headers["x-request-id"], what
        assert reply["error"]["message"].startswith("HTTP 429 rate_limit_day: "), what
        assert "Retry after" in reply["error"]["message"], what
    # A tool's call at the limit is the tool error of a route's 429, whether its arguments make a
    # request (the route refuses it) or not (refused before any request is built: counted all the same).
    for arguments in ({}, {"format": "arrow"}):
        call = {"name": "catalog.alphas.list", "arguments": arguments}
        answer = post_message(
            world, key, {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": call}
        )
        result = answer.json()["result"]
        assert result["isError"] and result["structuredContent"]["error"]["code"] == "rate_limit_day", (
            arguments
        )
        assert result["_meta"][RATE_LIMIT]["remaining"] == 0, arguments
    # The official client is told the same: its handshake fails with the envelope.
    error = anyio.run(handshake_error, world, key)
    assert error.code == REFUSED
    assert isinstance(error.data, dict) and error.data["error"]["code"] == "rate_limit_day"


def test_a_tool_call_outside_the_grant_is_metered(world: World) -> None:
    """Issue 60, finding 4: a 5/s key sent 1,946 `tools/call` of a tool outside its grant in 10 s,
    each answered 403 `endpoint_not_allowed` inside a 200 and none counted. Each is one request of
    the key now: the 403 carries the window's count, and at the limit the call is the route's 429."""
    key = new_key(world, NARROW, per_day(2))
    call = {"name": "analytics.significance", "arguments": {"alpha": "anything"}}
    codes, used = [], []
    for n in range(4):
        answer = post_message(world, key, {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call})
        result = answer.json()["result"]
        assert result["isError"]
        codes.append(result["structuredContent"]["error"]["code"])
        used.append(result["_meta"][RATE_LIMIT]["remaining"])
    assert codes == ["endpoint_not_allowed", "endpoint_not_allowed", "rate_limit_day", "rate_limit_day"]
    assert used == [1, 0, 0, 0]


def test_a_tool_call_whose_id_is_not_a_string_or_integer_is_metered_and_refused(world: World) -> None:
    """Issue 81, item 8 (a): a `tools/call` whose id was null, a float or a boolean was never
    metered (3,158 messages in 10 s from a 5/s key, usage 1). Each is one request of the key now,
    answered JSON-RPC's Invalid Request (id null: MCP's ids are strings or integers, never null),
    and at the limit the window's 429."""
    from serve.model_context.metering import REFUSED

    invalid_request = -32600  # JSON-RPC 2.0's Invalid Request
    key = new_key(world, NARROW, per_day(3))
    call = {"name": "catalog.alphas.list", "arguments": {}}
    answers = [
        post_message(world, key, {"jsonrpc": "2.0", "id": bad, "method": "tools/call", "params": call})
        for bad in (None, 1.5, True)
    ]
    assert [a.status_code for a in answers] == [400, 400, 400], [a.text for a in answers]
    assert [a.headers["x-ratelimit-used"] for a in answers] == ["1", "2", "3"]
    for answer in answers:
        reply = answer.json()
        assert (reply["id"], reply["error"]["code"]) == (None, invalid_request), reply
        assert "result" not in reply
    over = post_message(world, key, {"jsonrpc": "2.0", "id": False, "method": "tools/call", "params": call})
    assert over.status_code == 429 and over.json()["error"]["code"] == REFUSED
    # A valid id after them: the window is spent, the call is the route's 429.
    valid = post_message(world, key, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    assert valid.json()["result"]["structuredContent"]["error"]["code"] == "rate_limit_day"


def leaves(group: BaseExceptionGroup[MCPError]) -> list[MCPError]:
    return [
        leaf
        for exception in group.exceptions
        for leaf in (leaves(exception) if isinstance(exception, BaseExceptionGroup) else [exception])
    ]


async def handshake_error(
    world: World, key: IssuedKey, extra: dict[str, str] | None = None
) -> types.ErrorData:
    """The JSON-RPC error the SDK client's `initialize` raises (the session's task group wraps it)."""
    refusals: list[types.ErrorData] = []
    try:
        async with session(world, key, extra):
            pass
    except* MCPError as group:
        refusals += [refused.error for refused in leaves(group)]
    [error] = refusals
    return error


async def all_pages(world: World, name: str, arguments: dict[str, Any]) -> tuple[list[Any], int]:
    rows: list[Any] = []
    pages = 0
    async with session(world, world.member) as client:
        following: dict[str, Any] | None = arguments
        while following is not None:
            result = await client.call_tool(name, following)
            assert not result.is_error and isinstance(result.structured_content, dict)
            rows += result.structured_content["data"]
            pages += 1
            following = (result.meta or {}).get(NEXT_PAGE)
            has_more = result.structured_content["pagination"]["has_more"]
            assert (following is not None) == has_more
    return rows, pages


def test_paging_by_the_hint_reaches_the_routes_last_row(world: World) -> None:
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    week = world.get(world.admin, f"/v1/alphas/{alpha}/rebalances").json()["data"][0]["date"]
    whole = world.get(world.member, f"/v1/alphas/{alpha}/rebalances/{week}", {"limit": 5000}).json()["data"]
    rows, pages = anyio.run(
        all_pages, world, "signals.rebalances.get", {"alpha": alpha, "date": week, "limit": 7}
    )
    assert pages == -(-len(whole) // 7) > 1
    assert rows == whole


def stdio_command(world: World, token: str | None) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k != "ALPHA_RESULTS_TOKEN"}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "cli.main", "mcp", "--url", world.url],
        env={**env, **({"ALPHA_RESULTS_TOKEN": token} if token else {})},
    )


async def over_stdio(world: World, key: IssuedKey, name: str, arguments: dict[str, Any]) -> Any:
    async with (
        stdio_client(stdio_command(world, key.token)) as (read, write),
        ClientSession(read, write) as client,
    ):
        initialized = await client.initialize()
        tools = (await client.list_tools()).tools
        prompts = (await client.list_prompts()).prompts
        return initialized, tools, prompts, await client.call_tool(name, arguments)


def test_the_stdio_command_serves_the_same_tools_from_the_server(world: World) -> None:
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    mark = len(world.server.output)
    initialized, tools, prompts, result = anyio.run(
        over_stdio, world, world.narrow, "performance.metrics", {"alpha": alpha}
    )
    assert initialized.server_info.name == "alpha-results"
    assert tools == anyio.run(listed, world, world.narrow)
    # The narrow key may call none of the prompts' tools but performance.metrics: none is listed.
    assert prompts == []
    assert not result.is_error
    expected = world.get(world.narrow, f"/v1/alphas/{alpha}/metrics").json()
    assert without_volatile(result.structured_content) == without_volatile(expected)
    # The seal's values are named through the bridge as by the server (tests/e2e/test_mcp_seal_text.py).
    from serve.model_context.tools import UNTRUSTED, route_tools
    from serve.model_context.untrusted import untrusted_pointers

    named = untrusted_pointers(route_tools()["performance.metrics"].seal_text, result.structured_content)
    assert named and (result.meta or {}).get(UNTRUSTED) == named
    lines = [json.loads(line) for line in world.server.lines_from(mark) if line.startswith("{")]
    assert (world.narrow.key_id, 200) in [
        (x["key_id"], x["status"]) for x in lines if x["route"] == "performance.metrics"
    ]


def test_the_stdio_command_without_a_usable_key_says_so(world: World) -> None:
    missing = stdio_command(world, None)
    answer = subprocess.run(
        [missing.command, *missing.args], env=missing.env, capture_output=True, text=True, timeout=60
    )
    assert answer.returncode == 2 and "ALPHA_RESULTS_TOKEN" in answer.stderr
    wrong = stdio_command(world, "ar_live_nope")
    answer = subprocess.run(
        [wrong.command, *wrong.args], env=wrong.env, capture_output=True, text=True, timeout=60, input=""
    )
    assert answer.returncode == 1, answer.stderr
    assert "401" in answer.stderr and "ar_live_nope" not in answer.stderr
    # A token no header can carry: a plain message, not a traceback.
    foreign = stdio_command(world, "ar_live_clé")
    answer = subprocess.run(
        [foreign.command, *foreign.args],
        env=foreign.env,
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )
    assert answer.returncode == 2 and "Traceback" not in answer.stderr, answer.stderr
    assert "ALPHA_RESULTS_TOKEN" in answer.stderr and "clé" not in answer.stderr
    # A URL's password is never printed (here the server refuses the key: the message names the URL).
    secret = stdio_command(world, "ar_live_nope")
    secret.args[-1] = world.url.replace("http://", "http://someone:hunter2secret@")
    answer = subprocess.run(
        [secret.command, *secret.args], env=secret.env, capture_output=True, text=True, timeout=60, input=""
    )
    assert answer.returncode == 1 and "401" in answer.stderr, answer.stderr
    assert "someone" in answer.stderr and "hunter2secret" not in answer.stderr


def test_the_stdio_command_starts_on_a_key_without_meta_me(world: World) -> None:
    """The start-up check is `/mcp`'s own authentication: a key whose allow-list lacks `meta.me` is a
    valid key, and serves its tools; a key at its limit is told so, as the probe is metered too."""
    key = new_key(world, ("performance.metrics",), per_day(100))
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    _, tools, _, result = anyio.run(over_stdio, world, key, "performance.metrics", {"alpha": alpha})
    assert [tool.name for tool in tools] == ["meta.health", "performance.metrics"]
    assert not result.is_error
    spent = new_key(world, ("performance.metrics",), per_day(1))
    # The day's one request spent over HTTP: the key is at its limit when the command starts.
    assert world.get(spent, f"/v1/alphas/{alpha}/metrics").status_code == 200
    command = stdio_command(world, spent.token)
    answer = subprocess.run(
        [command.command, *command.args],
        env=command.env,
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )
    assert answer.returncode == 1, answer.stderr
    assert (
        "HTTP 429" in answer.stderr and "rate_limit_day" in answer.stderr and "Retry after" in answer.stderr
    )


async def revoked_between_calls(world: World, key: IssuedKey, alpha: str) -> list[types.CallToolResult]:
    """One call, the key revoked, then calls until one is refused (the server may cache a key's
    record for a moment), at most 200."""
    async with (
        stdio_client(stdio_command(world, key.token)) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        results = [await client.call_tool("performance.metrics", {"alpha": alpha})]
        store = open_store(world.server.keystore_url)
        try:
            store.revoke_key(key.key_id)
        finally:
            store.close()
        for _ in range(200):
            results.append(await client.call_tool("performance.metrics", {"alpha": alpha}))
            if results[-1].is_error:
                break
        return results


def test_a_key_revoked_while_the_stdio_command_runs_reaches_the_agent_as_its_envelope(world: World) -> None:
    key = new_key(world, NARROW)
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    first, *_, last = anyio.run(revoked_between_calls, world, key, alpha)
    assert not first.is_error
    assert error_of(last)["code"] == "key_revoked"
    assert any("key_revoked" in block.text for block in last.content if isinstance(block, types.TextContent))


async def prompted(world: World, key: IssuedKey, name: str, arguments: dict[str, str]) -> Any:
    async with session(world, key) as client:
        listing = [prompt.name for prompt in (await client.list_prompts()).prompts]
        text = (await client.get_prompt(name, arguments)).messages[0].content.text  # type: ignore[union-attr]
        # Every step the prompt names, called as it is written: tool and JSON arguments.
        steps = re.findall(r"^\d+\. `([\w.]+)` with (\{.*?\}):", text, flags=re.MULTILINE)
        results = [await client.call_tool(tool, json.loads(given)) for tool, given in steps]
        return listing, steps, results


def test_a_prompt_names_tools_that_answer(world: World) -> None:
    first, second = [row["alpha_id"] for row in world.get(world.admin, "/v1/alphas").json()["data"][:2]]
    listing, steps, results = anyio.run(
        prompted, world, world.member, "compare_alphas", {"alpha": first, "other": second}
    )
    assert listing == ["review_alpha", "compare_alphas", "is_it_still_working"]
    assert [tool for tool, _ in steps] == ["analytics.compare", "analytics.checks", "analytics.checks"]
    assert json.loads(steps[0][1]) == {"alpha": first, "with": second}
    assert all(not result.is_error for result in results), [r.structured_content for r in results]


def test_the_review_prompt_names_decision_tools_that_answer(world: World) -> None:
    from serve.model_context.prompts import DECISION_TOOLS

    first = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    _, steps, results = anyio.run(prompted, world, world.member, "review_alpha", {"alpha": first})
    assert [tool for tool, _ in steps] == ["catalog.alphas.get", *(tool for tool, _ in DECISION_TOOLS)]
    failed = [(tool, r.structured_content) for (tool, _), r in zip(steps, results, strict=True) if r.is_error]
    assert failed == []


def test_llms_txt_is_public_and_the_docs_copy(world: World) -> None:
    from serve.docgen.reference import LLMS_PATH

    answer = httpx.get(world.url + "/llms.txt", timeout=30)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/markdown")
    assert answer.text == LLMS_PATH.read_text(encoding="utf-8")


def test_the_tool_hashes_llms_txt_lists_are_those_of_what_tools_list_serves(world: World) -> None:
    """Pinning: `/llms.txt` lists one SHA-256 per tool, and each is the hash of the tool's declaration
    exactly as `tools/list` sends it (the raw JSON of the answer, hashed here as a client would: its
    canonical JSON, keys sorted, no whitespace, UTF-8)."""
    import hashlib

    text = httpx.get(world.url + "/llms.txt", timeout=30).text
    listed = dict(
        re.findall(r"^- `([\w.]+)`: `([0-9a-f]{64})`$", text.split("## MCP tool hashes", 1)[1], re.M)
    )
    headers = {**world.admin.headers, **MCP_POST_HEADERS}
    answer = httpx.post(
        world.url + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers=headers,
        timeout=60,
    )
    served = answer.json()["result"]["tools"]

    def canonical(tool: dict[str, Any]) -> bytes:
        return json.dumps(tool, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    hashes = {tool["name"]: hashlib.sha256(canonical(tool)).hexdigest() for tool in served}
    assert len(hashes) == len(set(ALL_IDS) - set(UNSERVED)) == len(listed)
    assert hashes == listed
    # The member's listing serves the same declarations: a hash is the tool's, not the key's.
    member = post_message(world, world.member, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert {
        t["name"]: hashlib.sha256(canonical(t)).hexdigest() for t in member.json()["result"]["tools"]
    }.items() <= (listed.items())


def test_the_field_policy_is_the_routes(world: World) -> None:
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    books: dict[str, Any] = {}
    for name, key in (("member", world.member), ("admin", world.admin)):
        [result] = anyio.run(call, world, key, ("portfolio.books", {"alpha": alpha}))
        expected = world.get(key, f"/v1/alphas/{alpha}/books").json()
        assert without_volatile(result.structured_content) == without_volatile(expected)
        books[name] = [row["book"] for row in expected["data"]]
    # The raw book reaches the key with raw access only, through the tool as through the route.
    assert set(books["member"]) < set(books["admin"])


async def modern_call(world: World, alpha: str) -> tuple[str, types.CallToolResult]:
    """The SDK's `Client` pinned to protocol 2026-07-28: one self-contained POST per request, no
    handshake (the SDK serves it on its own path, `handle_modern_request`)."""
    from mcp.client import Client

    async with httpx2.AsyncClient(headers=world.member.headers, timeout=httpx2.Timeout(60)) as http:
        transport = streamable_http_client(f"{world.url}/mcp", http_client=http)
        async with Client(transport, mode="2026-07-28") as client:
            result = await client.call_tool("performance.metrics", {"alpha": alpha})
            return client.protocol_version, result  # type: ignore[attr-defined]


def test_a_2026_client_calls_a_tool_without_a_handshake(world: World) -> None:
    alpha = world.get(world.admin, "/v1/alphas").json()["data"][0]["alpha_id"]
    version, result = anyio.run(modern_call, world, alpha)
    assert version == "2026-07-28"
    assert not result.is_error
    expected = world.get(world.member, f"/v1/alphas/{alpha}/metrics").json()
    assert without_volatile(result.structured_content) == without_volatile(expected)


async def calls_until_both_workers_answered(
    server: SharedServer, key: IssuedKey, alpha: str, mark: int
) -> set[int]:
    """Tool calls until both workers served one (each message on a new connection, which either
    worker may accept), at most 200; the worker pids that served `performance.metrics`."""
    url = f"http://127.0.0.1:{server.port}"
    limits = httpx2.Limits(max_keepalive_connections=0)  # no keep-alive: a connection per message
    pids: set[int] = set()
    async with (
        httpx2.AsyncClient(headers=key.headers, timeout=httpx2.Timeout(60), limits=limits) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        for _ in range(200):
            result = await client.call_tool("performance.metrics", {"alpha": alpha})
            assert not result.is_error, result.structured_content
            lines = [json.loads(line) for line in server.lines_from(mark) if line.startswith("{")]
            pids = {line["pid"] for line in lines if line["route"] == "performance.metrics"}
            if len(pids) == 2:
                break
    return pids


def test_a_session_needs_no_sticky_worker(two_workers: SharedServer) -> None:
    """Stateless: the handshake on one worker, the calls on either, each answered."""
    key = two_workers.key()
    url = f"http://127.0.0.1:{two_workers.port}"
    alpha = httpx.get(f"{url}/v1/alphas", headers=key.headers, timeout=60).json()["data"][0]["alpha_id"]
    mark = len(two_workers.output)
    assert len(anyio.run(calls_until_both_workers_answered, two_workers, key, alpha, mark)) == 2
