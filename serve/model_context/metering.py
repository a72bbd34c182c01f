"""Every `/mcp` message costs its key one request (issue 48: a key limited to 5/s made 286
`tools/list` calls a second while only tool calls were metered).

- A `tools/call` of a tool is the route's own request, counted by the route's guard as over HTTP
  (`serve.model_context.calls`); one whose arguments are refused before any request is built is counted
  there by `count_message`.
- Every other message (`initialize`, the notifications, `tools/list`, the prompts, `ping`, a call
  naming no tool, a body that is no message at all) is counted by the mount before the SDK reads it.
- A request whose `id` is neither a string nor an integer (null, a float, a boolean: MCP's
  "Requests MUST include a string or integer ID ... the ID MUST NOT be null") is no call of a tool,
  whatever its method: the mount counts it, then answers it the JSON-RPC error the spec requires,
  -32600 Invalid Request with a null id (`invalid_request`). Issue 81, item 8: such a `tools/call`
  reached neither the route's count nor the mount's (3,158 in 10 s from a 5/s key).

The cost is one request, the limiter's unit: its counters, the usage ledger and the `X-RateLimit-*`
headers all count whole requests, so a cost between zero and one would need fractional counters in
both backends and the ledger. A message refused at a limit is answered as a route's request is
(the window's 429, `Retry-After` and the `X-RateLimit-*` headers), its body a JSON-RPC error whose
`data` is the API's envelope, so an MCP client reads the window and `retry_after` as it does in a
tool call's 429.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import pydantic_core

from core import errors
from serve.auth import count_request
from serve.envelope import error_response
from serve.exchange import exchange_of
from serve.model_context.tools import route_tools

REFUSED = -32010
"""The JSON-RPC error code of a message the API refused (a limit): its `data` is the API's error
envelope. In the band MCP leaves to implementations (-32000 to -32019), clear of the SDK's own."""


async def count_message(scope: Mapping[str, Any]) -> errors.ApiError | None:
    """Count the `/mcp` message of `scope` as one request of the key the mount authenticated: None
    once counted (the counts and headers kept on its exchange), else the API's refusal (a window's
    429, nothing counted)."""
    exchange = exchange_of(scope)
    if exchange.caller is None:  # the mount authenticates every request before anything is counted
        raise RuntimeError("an /mcp message counted before its key was authenticated")
    try:
        await count_request(scope["app"].state["services"], exchange.caller, exchange)
    except errors.ApiError as refused:
        return refused
    return None


def summary(status: int, error: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """One line for an agent: the status, the API's code and message, and when to retry."""
    said = f"HTTP {status} {error.get('code')}: {error.get('message')}"
    retry = next((value for name, value in headers.items() if name.lower() == "retry-after"), None)
    return said if retry is None else f"{said} Retry after {retry} s."


def refusal(refused: errors.ApiError, message_id: Any, request_id: str) -> bytes:
    """The JSON-RPC error answering a message the API refused, with the message's id (null when it
    had none or could not be read)."""
    envelope = json.loads(error_response(refused, request_id).content)
    error = {
        "code": REFUSED,
        "message": summary(refused.status, envelope["error"], refused.headers),
        "data": envelope,
    }
    return json.dumps({"jsonrpc": "2.0", "id": message_id, "error": error}).encode()


class _Params(msgspec.Struct):
    name: Any = None


class _Message(msgspec.Struct):
    method: Any = None
    id: Any = msgspec.UNSET
    params: _Params | None = None


INVALID_REQUEST = -32600
"""JSON-RPC 2.0's Invalid Request."""


def request_id(value: Any) -> bool:
    """Whether `value` is an id a request may carry: a string or an integer (never a boolean,
    which JSON and Python would take for one)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def invalid_request(request_id: str) -> bytes:
    """The answer to a request whose id is not a string or an integer: JSON-RPC's Invalid Request,
    its id null (the id could not be read as one)."""
    error = {
        "code": INVALID_REQUEST,
        "message": "Invalid Request: a request's id must be a string or an integer (MCP: never null)",
        "data": {"request_id": request_id},
    }
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()


@dataclass(frozen=True)
class Message:
    """What the mount reads of a message before the SDK does."""

    calls_a_tool: bool
    """A `tools/call` naming a tool: the route's request counts it (or `serve.model_context.calls`)."""
    id: Any
    """Its JSON-RPC id, for a refusal's answer (None: a notification, or unreadable)."""
    parsed: Any = None
    """The body as the SDK's parser reads it (None when it cannot): what `calls.direct_call` reads."""
    bad_id: bool = False
    """A request (a `method`) whose `id` is there but not a string or an integer: answered
    `invalid_request` once counted."""


NOT_A_CALL = Message(calls_a_tool=False, id=None)


def read(body: bytes) -> Message:
    """The body's `method`, tool name and id; a body that is no JSON-RPC message is one the mount
    counts, answered by the SDK's own error. Parsed as the SDK parses it (`pydantic_core.from_json`:
    its UTF-8 check, its nesting limit, NaN accepted), so that what the mount takes for a tool call
    is what the SDK would; a body it refuses (invalid UTF-8, nesting past its limit) is no call here
    either, and never an exception out of the mount."""
    try:
        parsed = pydantic_core.from_json(body)
        message = msgspec.convert(parsed, type=_Message)
    except (ValueError, RecursionError):  # msgspec's ValidationError and UnicodeDecodeError are ValueErrors
        return NOT_A_CALL
    name = message.params.name if message.params is not None else None
    bad_id = message.method is not None and message.id is not msgspec.UNSET and not request_id(message.id)
    calls_a_tool = (
        message.method == "tools/call" and isinstance(name, str) and name in route_tools() and not bad_id
    )
    given = None if bad_id or message.id is msgspec.UNSET else message.id
    return Message(calls_a_tool=calls_a_tool, id=given, parsed=parsed, bad_id=bad_id)
