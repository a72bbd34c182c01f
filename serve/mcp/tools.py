"""One MCP tool per registry endpoint, derived from its declaration (`serve.endpoints`): the name is
the registry id (what a key's allow-list names), the description the route's summary and path,
the input schema the route's path parameters and its query Struct's fields (`schemas.query`:
types, defaults, bounds, enums and descriptions, through the same `param_schema` as the OpenAPI
document), so nothing a tool says is written twice.

A tool call is the route's own request (`serve.mcp.calls`): the arguments become the path and the
query string here, unchecked beyond their JSON types, so that the route answers a bad value with its
own 400 naming the parameter and its rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote, unquote, urlencode

import mcp_types as types

from schemas.query import params_of, path_params_of
from serve.declaration import Endpoint
from serve.endpoints import endpoints
from serve.openapi.parameters import param_schema

UNSERVED: Mapping[str, str] = {
    "events.stream": "a Server-Sent Events stream never ends, and a tool answers once: "
    "`events.list` is its paged form (`after=` the last page's `meta.next_cursor`)",
}
"""Registry ids without a tool, and why (docs/integrations.md lists them)."""

WITHOUT: frozenset[str] = frozenset({"format"})
"""Query parameters a tool does not take: a tool answers the route's JSON (structured content), never
one of its columnar representations."""

PATH_PARAMETERS: Mapping[str, str] = {
    "alpha": "The alpha_id (as `catalog.alphas.list` lists them).",
    "symbol": "The benchmark's ticker (as an alpha's `benchmark` names it).",
    "dataset": "The export dataset (as `exports.list` lists them).",
    "key_id": "The public key id (`key_...`) of the key whose usage to read.",
}
"""What a path parameter the query Struct does not type means (`{date}` is typed there, with its
description; these are plain strings on every route that has them)."""

_PATH_SEGMENT = re.compile(r"\{(\w+)(?::\w+)?\}")

NEXT_PAGE = "alpha-results/next"
"""The `_meta` key of a tool result holding the arguments of the next page, when more rows exist."""


@dataclass(frozen=True)
class RouteTool:
    """An endpoint as a tool: the MCP declaration and how its arguments become the route's request."""

    endpoint: Endpoint
    tool: types.Tool
    path_names: tuple[str, ...]
    query_names: frozenset[str]

    def target(self, arguments: Mapping[str, Any]) -> tuple[str, bytes, bytes] | dict[str, str]:
        """(path, raw path, query string) of the route's request for `arguments`, or the missing
        path parameters by name (each with the rule it broke: a path cannot be built without it).

        A path value is percent-encoded whole (`/` too), as an HTTP client sends it; the server
        then refuses what it refuses over HTTP (an encoded `/` is a 404, serve/app.py)."""
        missing = {
            name: "is required (a path parameter)"
            for name in self.path_names
            if arguments.get(name) is None or arguments.get(name) == ""
        }
        if missing:
            return missing

        def segment(match: re.Match[str]) -> str:
            return quote(wire_text(arguments[match.group(1)]), safe="")

        raw = _PATH_SEGMENT.sub(segment, self.endpoint.path)
        pairs: list[tuple[str, str]] = []
        for name, value in arguments.items():
            if name in self.path_names or value is None:
                continue
            # Every other name goes to the route, known or not: an unknown one is its 400.
            values = value if isinstance(value, list) else [value]
            pairs += [(name, wire_text(item)) for item in values]
        return unquote(raw), raw.encode("ascii"), urlencode(pairs).encode("ascii")


def wire_text(value: Any) -> str:
    """A JSON argument as the query string writes it: `true`/`false`, numbers as Python prints
    them, text as given; anything else as its JSON text (which the route then refuses, naming it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def input_schema(endpoint: Endpoint) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments: the path parameters (required), then the query
    parameters in documentation order, each as the OpenAPI document declares it."""
    typed = {param.name: param for param in path_params_of(endpoint.query)}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name in path_names(endpoint):
        param = typed.get(name)
        if param is None:
            properties[name] = {"type": "string", "description": PATH_PARAMETERS[name]}
        else:
            properties[name] = {**param_schema(param), "description": param.description}
        required.append(name)
    for param in params_of(endpoint.query):
        if param.name in WITHOUT:
            continue
        properties[param.name] = {**param_schema(param), "description": param.description}
        if param.required:
            required.append(param.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def path_names(endpoint: Endpoint) -> tuple[str, ...]:
    return tuple(match.group(1) for match in _PATH_SEGMENT.finditer(endpoint.path))


def description(endpoint: Endpoint) -> str:
    """The route's summary, its path, what a page is, and who may call it (the registry's flags)."""
    lines = [
        f"{endpoint.summary}. `GET {endpoint.openapi_path}` of the alpha-results API, answered as its JSON."
    ]
    if any(param.name == "offset" for param in endpoint.params):
        lines.append(
            "A page of rows: `limit` and `offset` page it; `pagination.has_more` says whether more "
            f"rows follow, and the result's `_meta.{NEXT_PAGE}` holds the next page's arguments."
        )
    elif endpoint.id == "events.list":
        lines.append(
            f"A page of events: resume with `after` = `meta.next_cursor` (the result's `_meta.{NEXT_PAGE}` "
            "holds the next page's arguments while `pagination.has_more`)."
        )
    if endpoint.admin:
        lines.append("Effective only on a platform administrator's key.")
    return " ".join(lines)


@cache
def route_tools() -> dict[str, RouteTool]:
    """Every endpoint's tool by registry id, in registry order (built once per process)."""
    out: dict[str, RouteTool] = {}
    for endpoint_id, endpoint in endpoints().items():
        if endpoint_id in UNSERVED:
            continue
        tool = types.Tool(
            name=endpoint_id,
            title=endpoint.summary,
            description=description(endpoint),
            input_schema=input_schema(endpoint),
            annotations=types.ToolAnnotations(
                title=endpoint.summary,
                read_only_hint=True,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
        )
        names = path_names(endpoint)
        out[endpoint_id] = RouteTool(
            endpoint, tool, names, frozenset(p.name for p in endpoint.params) - WITHOUT
        )
    return out
