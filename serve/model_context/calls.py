"""A tool call as the route's own request: an in-process ASGI call into the app, GET on the route's
path with the arguments as its query string and the caller's `Authorization` (and the forwarding
headers the app reads the client's address from).

So the call is authorised (key, endpoint and alpha allow-lists, IP allow-list), limited and counted
(rate windows, monthly quota: the route's usage, and its access line) and shaped (the field policy:
raw fields only for keys with raw access) by the very code that serves the route over HTTP, and
nothing of it is restated here. The answer becomes the tool's result: the route's JSON as structured
content (and as text, for clients that read only text), or, on an error status, a tool error
carrying the spec's envelope `{error: {code, message, details, request_id}}`.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from typing import Any, Literal

import mcp_types as types
import msgspec
from litestar.types import ASGIApp, Message
from mcp.server.streamable_http import check_accept_headers
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PARAM_HEADER_PREFIX,
    X_MCP_HEADER_KEY,
    InboundModernRoute,
    classify_inbound_request,
    find_duplicated_routing_header,
    validate_mcp_param_headers,
)
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    DEFAULT_NEGOTIATED_VERSION,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)
from mcp_types.methods import serialize_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request

from core import errors
from serve.envelope import error_response, request_id_of
from serve.exchange import exchange_of
from serve.model_context import summary as summary_form
from serve.model_context.metering import count_message, summary
from serve.model_context.tools import NEXT_PAGE, RATE_LIMIT, SUMMARISED, UNTRUSTED, RouteTool, route_tools
from serve.model_context.untrusted import untrusted_pointers

FORWARDED = (b"authorization", b"x-forwarded-for", b"host", b"user-agent")
"""Headers of the `/mcp` request the route's request carries: the key, what the client's address is
read from (`trusted_proxy_hops`), and the host and agent for the access line's context."""

ACCEPT = (b"accept", b"application/json")

log = logging.getLogger(__name__)


class _CallParams(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    arguments: dict[str, Any] | None = None


class _ModernCallParams(_CallParams, forbid_unknown_fields=True, kw_only=True):
    """A 2026-07-28 call's params: its `_meta` envelope besides (`classify_inbound_request` read it)."""

    meta: dict[str, Any] = msgspec.field(name="_meta")


class DirectCall(msgspec.Struct, forbid_unknown_fields=True):
    """A `tools/call` request the mount answers itself (`direct_call`)."""

    jsonrpc: Literal["2.0"]
    id: int | str
    method: Literal["tools/call"]
    params: _CallParams


class _ModernCall(DirectCall, forbid_unknown_fields=True):
    params: _ModernCallParams


ENVELOPE = frozenset({PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY})
"""The `_meta` keys of a plain 2026-07-28 call: its envelope; any other (a progress token, a log
level) asks for what only the SDK's dispatch gives."""


INTERNAL_ERROR = {"code": types.INTERNAL_ERROR, "message": "Internal error"}


def direct_call(scope: Mapping[str, Any], parsed: Any) -> DirectCall | None:
    """The tool call of the message `parsed` (`metering.read`: the body as the SDK's parser reads
    it) when the mount may answer it without the SDK's transport, else None
    (the SDK answers it: its checks and its refusals stay the protocol's).

    The SDK's stateless JSON transport sets up, per POST, a transport, a dispatcher, a session and
    their task group and memory streams, validates the message and the result with its pydantic
    models and encodes the route's answer again: 1.4 ms of CPU on a week page whose route costs
    0.1 (docs/benchmarks.md, issue 61 item 4). Answered here is exactly the case that transport
    answers with one JSON body and nothing else: a protocol version it serves (the header absent or
    one of `HANDSHAKE_PROTOCOL_VERSIONS`; or a 2026-07-28 request whose envelope and routing headers
    pass the SDK's own checks, `_modern_call`), a body
    the client may receive as JSON and sent as JSON (the transport's own `Accept` test; else its 406
    or 415), and a message that is a `tools/call` request and nothing more (an `id`, a tool name,
    its arguments: no `_meta`, whose progress token asks for notifications). The tool is one the
    key's call reaches the route of (`metering.read` found it); the route, its limits and its access
    line answer as through the SDK (`call_route`)."""
    request = Request(scope)  # type: ignore[arg-type]
    versions = [value for name, value in scope.get("headers") or () if name == b"mcp-protocol-version"]
    if len(versions) > 1:
        return None  # the SDK's 400 for a repeated header
    modern = bool(versions) and versions[0].decode("latin-1") in MODERN_PROTOCOL_VERSIONS
    if versions and not modern and versions[0].decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS:
        return None  # the SDK's era routing and its refusal of a version it does not serve
    content_type = request.headers.get("content-type", "")  # the first, as the SDK reads it
    if not content_type.lower().startswith("application/json"):  # its transport security's 400
        return None
    if "application/json" not in (part.strip() for part in content_type.split(";")[0].split(",")):
        return None  # its 415
    if not check_accept_headers(request)[0]:  # its 406
        return None
    if modern:
        return _modern_call(request, parsed)
    try:
        return msgspec.convert(parsed, type=DirectCall)
    except msgspec.ValidationError:  # another shape: the SDK's validation answers it
        return None


def _modern_call(request: Request, parsed: Any) -> DirectCall | None:
    """A 2026-07-28 `tools/call` the SDK's single-exchange entry would dispatch with no refusal:
    its routing headers once each and agreeing with the body, its envelope whole and nothing else
    in `_meta`, no `Mcp-Param-*` header and its arguments needing none (the SDK's own checks, run
    here as it runs them); else None, and the SDK answers it."""
    if find_duplicated_routing_header(request.headers.items()) is not None:
        return None
    if any(name.startswith(MCP_PARAM_HEADER_PREFIX.lower()) for name in request.headers):
        return None
    if not isinstance(classify_inbound_request(parsed, headers=dict(request.headers)), InboundModernRoute):
        return None
    try:
        call = msgspec.convert(parsed, type=_ModernCall)
    except msgspec.ValidationError:
        return None
    tool = route_tools().get(call.params.name)
    if tool is None or not set(call.params.meta) <= ENVELOPE:
        return None
    if _declares_headers(tool.tool.name) and validate_mcp_param_headers(
        tool.tool.input_schema, call.params.arguments or {}, request.headers
    ):
        return None
    return call


@functools.cache
def _declares_headers(name: str) -> bool:
    """Whether tool `name`'s input schema marks a parameter to be mirrored in an `Mcp-Param-*` header
    (`x-mcp-header`): only then can a call without such headers be refused for lacking one. Read
    once per tool; the SDK's check walks the schema on every call (65 us of a 125 us check)."""
    return X_MCP_HEADER_KEY in json.dumps(route_tools()[name].tool.input_schema)


async def answer_direct(
    scope: Mapping[str, Any], call: DirectCall, target_limit: int, server_info: Mapping[str, Any]
) -> tuple[int, bytes]:
    """The HTTP status and JSON-RPC answer to `call` (`direct_call`): the tool's result as
    `call_route` makes it for the SDK, shaped for the request's protocol version by the SDK's own
    serializer (which drops what that version lacks and fills its defaults; at 2026-07-28 also its
    `resultType` and the `serverInfo` stamp, `server_info`, as its runner adds them), the route's
    body spliced in as its bytes."""
    tool = route_tools()[call.params.name]
    version = protocol_version(scope)
    try:
        result: Any = await call_route(
            scope["app"], scope, tool, call.params.arguments or {}, target_limit, raw=True
        )
        # As the SDK's runner dumps a handler's result (`_dump_result`), then its per-version sieve.
        if isinstance(result, types.CallToolResult):
            result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        raw = result.get("structuredContent")
        if isinstance(raw, msgspec.Raw):  # the route's bytes: the sieve sees a stand-in, not them
            result = {**result, "structuredContent": {}}
        shaped = serialize_server_result("tools/call", version, result)
        if isinstance(raw, msgspec.Raw) and "structuredContent" in shaped:
            shaped["structuredContent"] = raw
        if version in MODERN_PROTOCOL_VERSIONS:  # as the SDK's runner finishes a 2026-era result
            shaped.setdefault("resultType", "complete")
            meta = shaped.get("_meta")
            if meta is None or (isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None):
                shaped["_meta"] = {**(meta or {}), SERVER_INFO_META_KEY: dict(server_info)}
    except Exception:  # a defect: answered as the SDK answers a handler that raised, without its text
        log.exception("tools/call %s failed", tool.tool.name)
        status = (
            ERROR_CODE_HTTP_STATUS.get(types.INTERNAL_ERROR, 500)
            if version in MODERN_PROTOCOL_VERSIONS
            else 200
        )
        return status, msgspec.json.encode({"jsonrpc": "2.0", "id": call.id, "error": INTERNAL_ERROR})
    return 200, msgspec.json.encode({"jsonrpc": "2.0", "id": call.id, "result": shaped})


def protocol_version(scope: Mapping[str, Any]) -> str:
    """The request's protocol version: its header (one at most: `direct_call`), or the handshake
    transport's default."""
    version = next((v for k, v in scope.get("headers") or () if k == b"mcp-protocol-version"), None)
    return DEFAULT_NEGOTIATED_VERSION if version is None else version.decode("latin-1")


async def call_route(
    app: ASGIApp,
    outer: Mapping[str, Any],
    tool: RouteTool,
    arguments: Mapping[str, Any],
    target_limit: int,
    raw: bool = False,
) -> types.CallToolResult:
    """The route's answer to `arguments` as the tool's result; `target_limit` is the HTTP server's
    `max_request_target_bytes`, which the request built here must not exceed either. `raw`: for
    the direct answer (`answer_direct`), the route's bytes stand in the result as they are."""
    target = tool.target(arguments, target_limit)
    if isinstance(target, errors.ApiError):
        # No request is built: the message is still one request of the key (`serve.model_context.metering`),
        # answered as the route (or the HTTP server) answers such a request, or, at a limit, with
        # the window's 429 as the route would answer it.
        answer = await count_message(outer) or target
        counted = exchange_of(outer).rate_limit_headers or {}
        sent = {name.lower(): value for name, value in {**counted, **answer.headers}.items()}
        body = error_response(answer, request_id_of(outer)).content
        return result_of(tool, arguments, answer.status, sent, body, raw)
    path, raw_path, query = target
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": outer.get("http_version", "1.1"),
        "method": "GET",
        "scheme": outer.get("scheme", "http"),
        "path": path,
        "raw_path": raw_path,
        "root_path": "",
        "query_string": query,
        "headers": [*((k, v) for k, v in outer.get("headers", []) if k in FORWARDED), ACCEPT],
        "client": outer.get("client"),
        "server": outer.get("server"),
        "state": {},
    }
    outer_caller = exchange_of(outer).caller
    if outer_caller is not None and outer_caller.credential != "key":
        exchange_of(scope).vouched = outer_caller  # the token was verified by the mount (mount.py)
    status = 500
    headers: dict[str, str] = {}
    chunks: list[bytes] = []

    async def receive() -> Any:  # the request of a GET: no body
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
            headers.update(
                (k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in message.get("headers", [])
            )
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)  # type: ignore[arg-type]
    body = b"".join(chunks)
    exchange_of(outer).egress_counted += len(body)  # counted as the route's request: not again
    return result_of(tool, arguments, status, headers, body, raw)


def result_of(
    tool: RouteTool,
    arguments: Mapping[str, Any],
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    raw: bool = False,
) -> types.CallToolResult:
    """The tool's result for the route's answer (its status, headers and JSON body). `raw`: a
    successful answer's structured content is the route's own bytes (`msgspec.Raw`, encoded into
    the JSON-RPC answer as they are; a summarised answer's own encoding) rather than its decoded
    value, which the SDK's models would encode again."""
    try:
        answer = msgspec.json.decode(body)
    except msgspec.DecodeError:
        answer = None
    if status >= 400 or not isinstance(answer, dict):
        envelope = (
            answer
            if isinstance(answer, dict) and "error" in answer
            else unreadable(status, headers.get("x-request-id"))
        )
        return types.CallToolResult(
            _meta=rate_limit_meta(headers),
            content=[
                types.TextContent(text=summary(status, envelope["error"], headers)),
                types.TextContent(text=body.decode("utf-8", "replace")),
            ],
            structured_content=envelope,
            is_error=True,
        )
    cut: dict[str, int] = {}
    if tool.summarises and arguments.get(summary_form.DETAIL) in (None, summary_form.SUMMARY):
        whole = (
            f'call {tool.tool.name} with "{summary_form.DETAIL}": "{summary_form.FULL}", '
            f"or GET {tool.endpoint.openapi_path} for them all"
        )
        answer, cut = summary_form.summarised(answer, tool.lists, whole)
        body = msgspec.json.encode(answer)
    content: list[dict[str, Any]] = [{"type": "text", "text": body.decode("utf-8")}]
    result: dict[str, Any] = {
        "content": content,
        "structuredContent": msgspec.Raw(body) if raw else answer,
        "isError": False,
        "resultType": "complete",
    }
    meta = rate_limit_meta(headers) or {}
    untrusted = untrusted_pointers(tool.seal_text, answer)
    if untrusted:
        # Seal text, named as data (serve/model_context/untrusted.py): in structuredContent and in the same JSON
        # of the first text block.
        meta[UNTRUSTED] = untrusted
        content[0]["_meta"] = {UNTRUSTED: True}
    if cut:
        meta[SUMMARISED] = cut
        full = json.dumps({**arguments, summary_form.DETAIL: summary_form.FULL}, separators=(",", ":"))
        listed = ", ".join(f"{pointer} ({count} items)" for pointer, count in cut.items())
        content.append(
            {
                "type": "text",
                "text": f"Summarised lists: {listed}. Call {tool.tool.name} with {full} for them whole.",
            }
        )
    following = next_page(tool, arguments, answer)
    if following is not None:
        meta[NEXT_PAGE] = following
        hint = f"More rows follow: call {tool.tool.name} with {json.dumps(following, separators=(',', ':'))}."
        content.append({"type": "text", "text": hint})
    if meta:
        result["_meta"] = meta
    return result  # type: ignore[return-value]


RATE_LIMIT_FIELDS = {"limit": int, "remaining": int, "used": int, "reset": int, "window": str}


def rate_limit_meta(headers: Mapping[str, str]) -> dict[str, Any] | None:
    """The route's `X-RateLimit-*` headers under `RATE_LIMIT`, or None when it sent none (a route the
    limiter did not count: `/v1/health`, a request refused before it)."""
    try:
        values = {name: kind(headers[f"x-ratelimit-{name}"]) for name, kind in RATE_LIMIT_FIELDS.items()}
    except (KeyError, ValueError):
        return None
    return {RATE_LIMIT: values}


def next_page(
    tool: RouteTool, arguments: Mapping[str, Any], answer: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The arguments of the page after `answer`, or None on the last page: `offset` moved past the
    rows returned while `pagination.has_more`; on the event feed, `after` = `meta.next_cursor` while
    `pagination.has_more`."""
    meta = answer.get("meta") or {}
    pagination = answer.get("pagination") or {}
    if "offset" in tool.query_names and pagination.get("has_more"):
        return {**arguments, "offset": int(pagination["offset"]) + int(pagination["returned"])}
    cursor = meta.get("next_cursor")
    if "after" in tool.query_names and cursor is not None and pagination.get("has_more"):
        return {**arguments, "after": cursor}
    return None


def unreadable(status: int, request_id: str | None) -> dict[str, Any]:
    """The envelope for an answer that is not the API's JSON (never expected: every route answers
    JSON), with the route's request id when it sent one (its access line's)."""
    return {
        "error": {
            "code": errors.ApiError.code,
            "message": f"The route answered HTTP {status} without the API's JSON.",
            "details": {"status": status},
            "request_id": request_id,
        }
    }
