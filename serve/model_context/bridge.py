"""`alpha-results mcp`: the server's MCP tools and prompts over stdio, for an agent on the caller's
machine (Claude Desktop and other hosts that start a local command).

A bridge, not a second server: each message of the local agent is forwarded to the server's `/mcp`
over HTTP with the caller's key (the SDK's Streamable HTTP client), and its answer returned as is.
So the tools are the server's own (the listing its declarations make, filtered by the key's
allow-list), a call is that server's route request (limits, quota, field
policy, access line), and a command of another version than the server never lists a tool the
server lacks. It imports none of the server (the SDK alone), so it starts without loading the server's stack.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

MCP_PATH = "/mcp"  # serve.pages.MCP_PATH (not imported: that module reads the server's static files)


class Unreachable(Exception):
    """The server refused the key or could not be reached: what to tell the person who started us."""


class Refusals:
    """The API's envelope of the last `/mcp` request the server refused (a key revoked, suspended or
    moved to a disallowed address while the command runs: 401/403), which the SDK's HTTP client
    reduces to a bare JSON-RPC error (`Server returned an error response`); kept from the response
    itself, so that the agent is told the server's code and message."""

    def __init__(self) -> None:
        self.envelope: dict[str, Any] | None = None

    async def keep(self, response: httpx2.Response) -> None:
        if response.status_code not in (401, 403):
            return
        await response.aread()
        try:
            error = response.json()["error"]
            self.envelope = {"error": {k: error[k] for k in ("code", "message", "details", "request_id")}}
        except (ValueError, KeyError, TypeError):
            return

    def take(self) -> dict[str, Any] | None:
        envelope, self.envelope = self.envelope, None
        return envelope


@asynccontextmanager
async def remote(
    url: str, token: str, refusals: Refusals
) -> AsyncIterator[tuple[ClientSession, types.InitializeResult]]:
    headers = {"Authorization": f"Bearer {token}"}
    base = url.rstrip("/")
    async with httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(30, read=300),
        event_hooks={"response": [refusals.keep]},
    ) as http:
        await check_key(http, base)
        async with (
            streamable_http_client(base + MCP_PATH, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            yield session, await session.initialize()


PROBE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": types.DEFAULT_NEGOTIATED_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "alpha-results-mcp", "version": "probe"},
    },
}


async def check_key(http: httpx2.AsyncClient, base: str) -> None:
    """One `initialize` at `/mcp` before serving, so that a wrong key or URL is said plainly (the
    server's error code and message) to whoever started the command, rather than as a failed
    protocol handshake. `/mcp` authenticates the key as every route does (its 401/403 envelope), so
    a key whose allow-list lacks a given route starts; the probe is one message, metered as every
    message is, so a key at a limit is told so (the 429's window and when to retry)."""
    shown = without_password(base)
    try:
        answer = await http.post(
            base + MCP_PATH, json=PROBE, headers={"Accept": "application/json, text/event-stream"}
        )
    except httpx2.HTTPError as failed:
        said = str(failed).replace(base, shown)
        raise Unreachable(f"{shown}: {type(failed).__name__}: {said}") from None
    if answer.status_code != 200:
        try:
            error = answer.json()["error"]
            said = f"{error['code']}: {error['message']}"
        except (ValueError, KeyError, TypeError):
            said = "not the API's JSON"
        raise Unreachable(f"{shown}{MCP_PATH} answered HTTP {answer.status_code} ({said})")


def without_password(url: str) -> str:
    """`url` as it may be printed: a `user:password@` in it keeps the user only."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def bridge(session: ClientSession, initialized: types.InitializeResult, refusals: Refusals) -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> Any:
        return await session.list_tools(params=params)

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Any:
        refusals.take()
        try:
            return await session.call_tool(params.name, params.arguments)
        except MCPError:
            envelope = refusals.take()
            if envelope is None:
                raise
            # The server refused the key itself: a tool error in the envelope, as a route's refusal is.
            error = envelope["error"]
            return types.CallToolResult(
                content=[types.TextContent(text=f"{error['code']}: {error['message']}")],
                structured_content=envelope,
                is_error=True,
            )

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> Any:
        return await session.list_prompts(params=params)

    async def get_prompt(ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams) -> Any:
        return await session.get_prompt(params.name, params.arguments)

    info = initialized.server_info
    return Server(
        info.name,
        version=info.version,
        title=info.title,
        instructions=initialized.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


async def serve_stdio(url: str, token: str) -> None:
    """Serve the agent on stdin/stdout until it closes them."""
    refusals = Refusals()
    async with remote(url, token, refusals) as (session, initialized):
        server = bridge(session, initialized, refusals)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
