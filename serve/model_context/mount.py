"""`/mcp`: the MCP server over Streamable HTTP, answered before the router (like the health fast
path), since the router's guards admit GET alone and MCP messages are POSTs.

Every request to `/mcp` must first name this server in its `Host` and, from a browser, an allowed
`Origin` (`serve.model_context.origins`: DNS rebinding; else a 403 JSON-RPC error). It is then authenticated,
by the guards' own steps (`serve.auth.identify`:
the bearer key, its IP allow-list, the key-in-URL refusal): no valid key is the API's 401 in the
spec's envelope, before the SDK reads a byte. The caller is kept on the request's exchange (so the
access line names its key) for the server's handlers (`serve.model_context.server`). Every message then
costs the key one request (`serve.model_context.metering`): a tool call as the route it calls, any other
message here, before the SDK reads it.

The SDK's session manager runs stateless, answering JSON rather than an SSE stream: a message needs
nothing of an earlier one (the key travels with each), so any worker of a multi-worker server can
answer it without sticky sessions. Its task group lives from the app's startup to its shutdown.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

from litestar import Litestar, Request
from litestar.types import ASGIApp, Receive, Scope, Send
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from access.authenticate import bearer_token, reject_key_in_query
from core import errors
from serve.access_log import ROUTE_NAME
from serve.auth import client_ip, identify, services_of
from serve.envelope import error_response, request_id_of
from serve.exchange import exchange_of
from serve.model_context import calls, metering
from serve.model_context.origins import Allowed
from serve.model_context.server import mcp_server
from serve.model_context.tools import route_tools
from serve.oauth.mount import mounted as oauth_mounted
from serve.oauth.mount import oauth_of, sign_in_of
from serve.oauth.resource import ProtectedResource, is_api_key
from serve.pages import MCP_PATH
from serve.routes.meta import build_version

MAX_BODY_BYTES = 64 << 10
"""The largest `/mcp` request body read (`bounded_body`: a larger one is a 413 before it is parsed): a
tool call's arguments make a request target of at most `max_request_target_bytes` (8 KiB by
default), so 64 KiB holds any call that can succeed, and a worker never decodes megabytes of JSON
for one."""


class McpEndpoint:
    """The session manager of one app, started and stopped with it."""

    def __init__(
        self, target_limit: int, allowed: Allowed, resource: ProtectedResource | None = None
    ) -> None:
        self.allowed = allowed
        self.resource = resource  # None: keys alone (`oauth_issuer` empty)
        self.target_limit = target_limit
        self.manager = StreamableHTTPSessionManager(
            app=mcp_server(build_version(), target_limit),
            json_response=True,
            stateless=True,
            max_request_body_size=MAX_BODY_BYTES,
        )
        # The `serverInfo` a 2026-era result carries (its `_meta`), read once: `calls.answer_direct`.
        self.server_info = self.manager.app.server_info_stamp
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        ready, self._stop = asyncio.Event(), asyncio.Event()
        stop = self._stop

        async def run() -> None:
            async with self.manager.run():
                ready.set()
                await stop.wait()

        self._task = asyncio.create_task(run(), name="mcp-sessions")
        await ready.wait()

    async def stop(self) -> None:
        if self._stop is not None and self._task is not None:
            self._stop.set()
            await self._task

    async def answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        rebound = self.allowed.refusal(scope["headers"])
        if rebound is not None:  # before anything else, the key included (serve/model_context/origins.py)
            await send_json(send, 403, rebound, request_id_of(scope), [])
            return
        request: Request[Any, Any, Any] = Request(scope, receive)
        try:
            reject_key_in_query(exchange_of(scope).query)
            await self.identify(request)
        except errors.ApiError as refused:
            if self.resource is not None:  # the challenge names the resource's metadata (RFC 9728 5.1)
                refused = self.resource.with_challenge(refused)
            await refuse(send, refused, request_id_of(scope))
            return
        if scope.get("method") == "GET":
            # The SDK would open a server-to-client stream that, stateless, never carries a message
            # and holds the connection until the client leaves: the transport's other answer, 405.
            await send_json(send, 405, NO_STREAM, request_id_of(scope), [(b"allow", b"POST")])
            return
        try:
            body = await bounded_body(scope, receive)
        except errors.ApiError as refused:
            # The body's budget (serve/slow_clients.py): too many of the key's still arriving (429),
            # or this one late (408); answered as a refused message (no message was read), then closed.
            answer = metering.refusal(refused, None, request_id_of(scope))
            headers = [*raw_headers(refused), (b"connection", b"close")]
            await send_json(send, refused.status, answer, request_id_of(scope), headers)
            return
        if isinstance(body, Gone):
            return  # the client left before its message was whole: nothing is run, nothing answered
        if body is None:
            await send_json(send, 413, TOO_LARGE, request_id_of(scope), [(b"connection", b"close")])
            return
        message = metering.read(body)
        step_up = self.step_up(scope, message)
        if step_up is not None:
            await send_json(
                send,
                403,
                metering.refusal(step_up, message.id, request_id_of(scope)),
                request_id_of(scope),
                raw_headers(step_up),
            )
            return
        if message.calls_a_tool:
            call = calls.direct_call(scope, message.parsed)
            if call is not None:  # the route's request and its bytes, without the SDK's transport
                status, answer = await calls.answer_direct(scope, call, self.target_limit, self.server_info)
                await send_json(send, status, answer, request_id_of(scope), [])
                return
        else:  # a tool's call is counted as its route's request
            limited = await metering.count_message(scope)
            if limited is not None:
                answer = metering.refusal(limited, message.id, request_id_of(scope))
                await send_json(send, limited.status, answer, request_id_of(scope), raw_headers(limited))
                return
            if message.bad_id:  # counted, then refused as the spec says, the SDK never reached
                answer = metering.invalid_request(request_id_of(scope))
                await send_json(send, 400, answer, request_id_of(scope), [])
                return
        await self.manager.handle_request(scope, replayed(body, receive), send)  # type: ignore[arg-type]

    async def identify(self, request: Request[Any, Any, Any]) -> None:
        """The request's caller, kept on its exchange: an API key by the guards' own steps, or,
        where `/mcp` is a protected resource, an access token (`serve.oauth.resource`)."""
        presented = request.headers.getall("authorization", [])
        if self.resource is None or len(presented) != 1:
            await identify(request)
            return
        token = bearer_token(presented[0])
        if is_api_key(token):
            await identify(request)
            return
        services = services_of(request)
        exchange = exchange_of(request.scope)
        ip = client_ip(request, services.settings.trusted_proxy_hops)
        caller = await self.resource.caller(services.store, token, ip, datetime.now(UTC))
        exchange.caller = caller
        exchange.key_id = caller.key_id

    def step_up(self, scope: Scope, message: metering.Message) -> errors.ApiError | None:
        """403 `insufficient_scope` for a tool call the token's account may make but its scopes
        do not open (the client may ask the person for more, RFC 6750 3.1)."""
        caller = exchange_of(scope).caller
        if self.resource is None or caller is None or not caller.step_up or not message.calls_a_tool:
            return None
        name = message.parsed["params"]["name"]
        endpoint = route_tools()[name].endpoint.id
        return self.resource.step_up(endpoint) if endpoint in caller.step_up else None


class Gone:
    """`bounded_body`'s answer when the client disconnected before the body ended."""


GONE = Gone()


async def bounded_body(scope: Scope, receive: Receive) -> bytes | Gone | None:
    """The request's body, None once it is over `MAX_BODY_BYTES` (by its declared length, before a
    byte is read, or as its chunks arrive), or `GONE` when the client left before it ended (a part
    of a message is never run). Read here rather than by the SDK's own limit so that the refusal is
    a JSON-RPC error, as every other answer of `/mcp` (the SDK's is plain text)."""
    for name, value in scope["headers"]:
        # Digits only, and few: `int` of thousands of digits is refused by Python itself.
        if name == b"content-length" and value.isdigit() and (len(value) > 9 or int(value) > MAX_BODY_BYTES):
            return None
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return GONE
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            return bytes(body)


def replayed(body: bytes, receive: Receive) -> Receive:
    """`receive` with the body already read given back as one message, then the connection's own."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> Any:
        return pending.pop() if pending else await receive()

    return again


NO_STREAM = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "Method Not Allowed: no server-to-client stream; POST each message",
        },
    }
).encode()


TOO_LARGE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": f"Request body too large: at most {MAX_BODY_BYTES} bytes"},
    }
).encode()


async def refuse(send: Send, refused: errors.ApiError, request_id: str) -> None:
    """The API's error answer (its status, headers and envelope), sent as the routes send it."""
    body = error_response(refused, request_id).content
    await send_json(send, refused.status, body, request_id, raw_headers(refused))


def raw_headers(refused: errors.ApiError) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in refused.headers.items()]


async def send_json(
    send: Send, status: int, body: bytes, request_id: str, headers: list[tuple[bytes, bytes]]
) -> None:
    start = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),  # as the SDK's answers: not chunked
        (b"x-request-id", request_id.encode()),
        *headers,
    ]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def mounted(app: ASGIApp, litestar: Litestar) -> ASGIApp:
    """`app` with `/mcp` answered by the MCP endpoint, whose sessions start and stop with `litestar`,
    and, where `/mcp` is an OAuth protected resource, the OAuth paths (serve/oauth/mount.py)."""
    settings = litestar.state["services"].settings
    sign_in = sign_in_of(litestar)
    resource, provider = oauth_of(litestar, sign_in)
    app = oauth_mounted(app, resource, provider, sign_in)
    endpoint = McpEndpoint(settings.max_request_target_bytes, Allowed.of(settings), resource)
    litestar.on_startup.append(endpoint.start)
    litestar.on_shutdown.insert(0, endpoint.stop)

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == MCP_PATH:
            scope[ROUTE_NAME] = "mcp"  # type: ignore[literal-required]  # its access line's route
            await endpoint.answer(scope, receive, send)
        else:
            await app(scope, receive, send)

    return route
