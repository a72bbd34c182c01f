"""A `tools/call` is answered by the mount itself, without the SDK's per-POST transport (issue 61,
item 4; `serve.model_context.calls.direct_call`): the same answer as the SDK's for every protocol version it
serves (the handshake era's and 2026-07-28's single exchange, its envelope and routing headers
checked by the SDK's own functions), the route's bytes spliced into it as they are, and every other
message still the SDK's.

Each call is made twice through the app's own `/mcp`, once answered directly and once with the
direct path turned off, and the two answers compared whole: status, content type and the JSON-RPC
body, with only what differs between any two requests (request ids, `generated_at`) set aside."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from serve.model_context import calls
from tests.analytics.conftest import CALLERS, Api, serving
from tests.raw_asgi import exchange
from tests.support.mcp_calls import post

ALPHA = "momentum_12_1"
VOLATILE = ("request_id", "generated_at")
HANDSHAKE_ERA = (None, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
VERSIONS = (*HANDSHAKE_ERA, *MODERN_PROTOCOL_VERSIONS)


@pytest.fixture(scope="module")
def api(demo_lake: Path) -> Iterator[Api]:
    with serving(demo_lake, CALLERS) as found:
        yield found


@pytest.fixture(scope="module")
def week(api: Api) -> str:
    weeks = api.ok(f"/v1/alphas/{ALPHA}/rebalances")["data"]
    return str(weeks[len(weeks) // 2]["date"])


def raw_post(
    api: Api, headers: list[tuple[bytes, bytes]], body: bytes
) -> tuple[int, dict[bytes, bytes], bytes]:
    """A POST to `/mcp` with exactly these header lines and body bytes (`tests.raw_asgi`), in the
    test client's event loop (where the app's lifespan runs)."""
    lines = [(b"authorization", b"Bearer raw"), (b"host", b"localhost"), *headers]
    with api.client.portal() as portal:
        return portal.call(exchange, api.client.app, "POST", "/mcp", lines, body)


def steady(value: Any) -> Any:
    """`value` with what differs between two requests set aside, JSON text within it read."""
    if isinstance(value, dict):
        return {k: None if k in VOLATILE else steady(v) for k, v in value.items()}
    if isinstance(value, list):
        return [steady(v) for v in value]
    if isinstance(value, str) and value.startswith("{"):
        try:
            return {"json text": steady(json.loads(value))}
        except ValueError:
            return value
    return value


def both_ways(
    api: Api,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    arguments: dict[str, Any],
    version: str | None,
    **kw: Any,
) -> tuple[Any, Any]:
    direct = post(api, name, arguments, version, **kw)
    with monkeypatch.context() as patched:
        patched.setattr(calls, "direct_call", lambda scope, parsed: None)
        sdk = post(api, name, arguments, version, **kw)
    return direct, sdk


CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "a week page": ("signals.rebalances.get", {"alpha": ALPHA, "date": "WEEK"}, "raw"),
    "a page of a collection, with the next page's arguments": (
        "signals.rebalances.list",
        {"alpha": ALPHA, "limit": 3},
        "raw",
    ),
    "metrics": ("performance.metrics", {"alpha": ALPHA}, "raw"),
    "an analytics object in summary form": ("analytics.mmc", {"alpha": ALPHA}, "raw"),
    "the same whole": ("analytics.mmc", {"alpha": ALPHA, "detail": "full"}, "raw"),
    "an alpha the key may not read (403)": ("performance.metrics", {"alpha": ALPHA}, "testonly"),
    "a bad parameter (400)": ("performance.metrics", {"alpha": ALPHA, "book": "sideways"}, "raw"),
    "an argument the tool refuses before any request": (
        "performance.metrics",
        {"alpha": ALPHA, "nope": 1},
        "raw",
    ),
}


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v or "no header")
@pytest.mark.parametrize("case", list(CASES))
def test_the_direct_answer_is_the_sdks(
    api: Api, week: str, monkeypatch: pytest.MonkeyPatch, case: str, version: str | None
) -> None:
    name, arguments, token = CASES[case]
    arguments = {k: week if v == "WEEK" else v for k, v in arguments.items()}
    direct, sdk = both_ways(api, monkeypatch, name, arguments, version, token=token)
    assert (direct.status_code, direct.headers["content-type"]) == (
        sdk.status_code,
        sdk.headers["content-type"],
    )
    assert steady(direct.json()) == steady(sdk.json())
    assert direct.json()["id"] == 7


def test_the_routes_bytes_stand_in_the_answer_as_the_route_sent_them(api: Api, week: str) -> None:
    route = api.get(f"/v1/alphas/{ALPHA}/rebalances/{week}")
    assert route.status_code == 200
    answer = post(api, "signals.rebalances.get", {"alpha": ALPHA, "date": week}, "2025-11-25")
    # The route's body, byte for byte, as the structured content (its request id and time aside:
    # the two are requests of their own); and as the text block's JSON string.
    structured = answer.content.split(b'"structuredContent":', 1)[1]
    body = route.content
    meta_at = body.index(b'"meta":')
    assert structured.startswith(body[:meta_at])
    assert json.loads(answer.json()["result"]["content"][0]["text"])["data"] == route.json()["data"]


def test_only_a_plain_tool_call_skips_the_sdk(api: Api, week: str, monkeypatch: pytest.MonkeyPatch) -> None:
    reached: list[str] = []
    real = StreamableHTTPSessionManager.handle_request

    async def counted(self: Any, scope: Any, receive: Any, send: Any) -> None:
        reached.append(dict(scope["headers"]).get(b"mcp-protocol-version", b"").decode())
        await real(self, scope, receive, send)

    monkeypatch.setattr(StreamableHTTPSessionManager, "handle_request", counted)
    arguments = {"alpha": ALPHA, "date": week}
    assert post(api, "signals.rebalances.get", arguments, "2025-11-25").status_code == 200
    assert post(api, "signals.rebalances.get", arguments, None).status_code == 200
    assert post(api, "signals.rebalances.get", arguments, "2026-07-28").status_code == 200
    assert reached == []
    # The SDK answers what it alone checks: a 2026-07-28 request without its envelope, or whose
    # routing header disagrees with the body, or with a `Mcp-Param-*` header; a body it refuses as
    # JSON (`Accept` without JSON: its 406), and a message with `_meta` beyond the envelope (a
    # progress token asks for notifications).
    assert post(api, "signals.rebalances.get", arguments, "2026-07-28", envelope=False).status_code == 400
    wrong_name = post(api, "signals.rebalances.get", arguments, "2026-07-28", **{"Mcp-Name": "nope"})
    assert wrong_name.status_code == 400
    post(api, "signals.rebalances.get", arguments, "2026-07-28", **{"Mcp-Param-Alpha": ALPHA})
    assert reached == ["2026-07-28"] * 3
    reached.clear()
    post(api, "signals.rebalances.get", arguments, "2025-11-25", Accept="text/event-stream")
    assert reached == ["2025-11-25"]
    message = {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "tools/call",
        "params": {"name": "signals.rebalances.get", "arguments": arguments, "_meta": {"progressToken": 1}},
    }
    headers = {
        "Authorization": "Bearer raw",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Host": "localhost",
        "MCP-Protocol-Version": "2025-11-25",
    }
    assert api.client.post("/mcp", content=json.dumps(message), headers=headers).status_code == 200
    assert reached == ["2025-11-25", "2025-11-25"]


JSON = (b"content-type", b"application/json")
ACCEPTS = (b"accept", b"application/json, text/event-stream")


def message(arguments: bytes = b'{"alpha":"momentum_12_1"}') -> bytes:
    head = (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"performance.metrics","arguments":'
    )
    return head + arguments + b"}}"


@pytest.mark.parametrize(
    ("case", "headers", "body"),
    [
        # Bytes the SDK's parser refuses (its 400 parse error): invalid UTF-8 inside the arguments,
        # nesting past its limit; once a 500 with a traceback from the mount, and, nested less deeply
        # than msgspec's own limit, a 200 tool error where the SDK answers 400.
        ("a byte that is no UTF-8", [JSON, ACCEPTS], message(b'{"alpha":"mom\xff"}')),
        ("nested 250 deep", [JSON, ACCEPTS], message(b'{"alpha":' + b"[" * 250 + b"]" * 250 + b"}")),
        ("nested 1000 deep", [JSON, ACCEPTS], message(b'{"alpha":' + b"[" * 1000 + b"]" * 1000 + b"}")),
        # Headers as the SDK reads them: the first of each, its own checks.
        ("a list of content types", [(b"content-type", b"text/plain, application/json"), ACCEPTS], message()),
        (
            "the protocol version twice",
            [
                JSON,
                ACCEPTS,
                (b"mcp-protocol-version", b"2026-07-28"),
                (b"mcp-protocol-version", b"2025-11-25"),
            ],
            message(),
        ),
    ],
)
def test_what_the_sdk_refuses_it_still_refuses(
    api: Api, monkeypatch: pytest.MonkeyPatch, case: str, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    direct = raw_post(api, headers, body)
    with monkeypatch.context() as patched:
        patched.setattr(calls, "direct_call", lambda scope, parsed: None)
        sdk = raw_post(api, headers, body)
    assert direct[0] == sdk[0] == 400, (direct, sdk)
    # A JSON-RPC error, or the SDK's transport security's plain text (a content type it refuses).
    assert steady(readable(direct[2])) == steady(readable(sdk[2]))


def readable(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return body.decode()


def test_a_direct_answer_says_its_length(api: Api, week: str) -> None:
    """As the SDK's answers do: a client reads it whole without a chunked body."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "signals.rebalances.get", "arguments": {"alpha": ALPHA, "date": week}},
        }
    ).encode()
    status, headers, answer = raw_post(api, [JSON, ACCEPTS], body)
    assert status == 200 and int(headers[b"content-length"]) == len(answer)
