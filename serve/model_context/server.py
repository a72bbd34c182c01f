"""The MCP server behind `/mcp`: the SDK's low-level `Server` with four handlers, each reading the
caller that `serve.model_context.mount` authenticated for the HTTP request carrying the message.

- `tools/list`: the tools of the endpoints the key may call (its endpoint allow-list, already clamped
  to the account's ceiling; admin endpoints only on an administrator's key), prebuilt once;
- `tools/call`: the route's own request (`serve.model_context.calls`);
- `prompts/list` and `prompts/get`: the research prompts whose tools the key may call.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from core.context import Caller
from serve.exchange import exchange_of
from serve.model_context import prompts
from serve.model_context.calls import call_route
from serve.model_context.summary import DETAIL, FULL
from serve.model_context.tools import RouteTool, route_tools, shown

NAME = "alpha-results"
INSTRUCTIONS = (
    "Read-only research results of trading signals (alphas). Each tool is one route of the "
    "alpha-results API, named by its registry id, answering the route's JSON: `data` and `meta` "
    "(`meta.run` identifies the build that answered). Start with `catalog.alphas.list` and "
    "`analytics.screen`; page with `limit`/`offset` while `pagination.has_more`. An analytics tool "
    "holding a series answers a summary (each long series cut to its ends, every figure kept) unless "
    f'called with `"{DETAIL}": "{FULL}"`.'
)


def _request_scope(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    request = ctx.request
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):  # only the HTTP transport serves this server
        raise MCPError(types.INTERNAL_ERROR, "no HTTP request behind this message")
    return scope


def _caller(scope: dict[str, Any]) -> Caller:
    caller = exchange_of(scope).caller
    if caller is None:  # the mount authenticates every request before the SDK reads it
        raise MCPError(types.INTERNAL_ERROR, "unauthenticated")
    return caller


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    caller = _caller(_request_scope(ctx))
    return types.ListToolsResult(tools=[t.tool for t in route_tools().values() if callable_by(caller, t)])


def callable_by(caller: Caller, tool: RouteTool) -> bool:
    """A public route (`/v1/health`) for every key; another on the key's allow-list."""
    return tool.endpoint.public or caller.may_call(tool.endpoint.id)


def call_tool(target_limit: int) -> Any:
    """The `tools/call` handler of a server whose HTTP request targets are capped at `target_limit`."""

    async def handler(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        scope = _request_scope(ctx)
        tool = route_tools().get(params.name)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {shown(params.name)}")
        # A tool the key may not call is still called: the route refuses it (403 endpoint_not_allowed)
        # as it would over HTTP, and the refusal is metered and logged as that route's.
        return await call_route(scope["app"], scope, tool, params.arguments or {}, target_limit)

    return handler


async def list_prompts(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=prompts.listed(_caller(_request_scope(ctx)).may_call))


async def get_prompt(
    ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    caller = _caller(_request_scope(ctx))
    prompt = prompts.BY_NAME.get(params.name)
    if prompt is None or not all(caller.may_call(tool) for tool in prompt.tools):
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {shown(params.name)}")
    result = prompts.rendered(prompt, params.arguments)
    if isinstance(result, dict):
        raise MCPError(
            types.INVALID_PARAMS, f"Missing argument(s): {', '.join(sorted(result))}", {"missing": result}
        )
    return result


def input_schema_of(name: str) -> dict[str, Any] | None:
    """A tool's input schema by name, for the SDK's check of `Mcp-Param-*` headers (2026-07-28),
    which otherwise runs the whole `tools/list` on every call to find one schema."""
    tool = route_tools().get(name)
    return None if tool is None else tool.tool.input_schema


def mcp_server(version: str, target_limit: int) -> Server[Any]:
    return Server(
        NAME,
        version=version,
        title="alpha-results",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=input_schema_of,
        on_list_tools=list_tools,
        on_call_tool=call_tool(target_limit),
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
