"""One MCP tool per registry endpoint, derived from its declaration (`serve.endpoints`): the name is
the registry id (what a key's allow-list names), the description the route's summary and path,
the input schema the route's path parameters and its query Struct's fields (`schemas.query`:
types, defaults, bounds, enums and descriptions, through the same `param_schema` as the OpenAPI
document), so nothing a tool says is written twice.

Each tool's declaration (as `tools/list` serves it) has a SHA-256 that `/llms.txt` lists
(`declaration_sha256`), so a client can pin the tools it approved and notice any change to a
description or an input schema (a "rug pull"): docs/integrations.md, "Pinning the tools".

A tool call is the route's own request (`serve.model_context.calls`): the arguments become the path and the
query string here, once they are checked against the input schema the tool publishes (names, JSON
types, bounds, enums, patterns: one 400 `bad_request` naming each broken parameter and its rule,
before any request is built) and the target they make is no longer than the HTTP server accepts
(`max_request_target_bytes`: the same 414). What the schema cannot say (a date that does not exist,
an alpha the key may not read) is the route's own 400 or 403.

An analytics tool whose answer holds a series takes one argument more, `detail`, its own (never sent
to the route): the answer in summary form by default, or whole (`serve.model_context.summary`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote, unquote, urlencode

import mcp_types as types
import msgspec
from jsonschema import Draft202012Validator, ValidationError

from core import errors
from schemas.query import params_of, path_params_of
from serve.declaration import PATH_PARAMETER, Endpoint
from serve.endpoints import endpoints
from serve.model_context import summary
from serve.model_context.summary import Path
from serve.model_context.untrusted import seal_text_paths
from serve.openapi.parameters import param_schema

UNSERVED: Mapping[str, str] = {
    "events.stream": "a Server-Sent Events stream never ends, and a tool answers once: "
    "`events.list` is its paged form (`after=` the last page's `meta.next_cursor`)",
}
"""Registry ids without a tool, and why (docs/integrations.md lists them)."""

WITHOUT: frozenset[str] = frozenset({"format"})
"""Query parameters a tool does not take: a tool answers the route's JSON (structured content), never
one of its columnar representations."""
NOT_TAKEN = "is not taken by a tool: a tool answers JSON"

NOT_A_PARAMETER = "is not a parameter of this tool"

MAX_NAMED = 10
"""How many refused argument names a 400 names (`details.count` says how many there were): its answer
stays small whatever number of names a call sends."""

MAX_NAME_SHOWN = 64
"""The characters of a refused name an answer echoes (an argument's, a tool's, a prompt's): a call's
body may hold names of 64 KiB; every name the API takes is shorter than this. Refused names that
agree in their first 64 characters are listed once (`details.count` counts each)."""


def shown(name: str) -> str:
    """A name as an answer echoes it: whole up to `MAX_NAME_SHOWN` characters, else cut there with `…`."""
    return name if len(name) <= MAX_NAME_SHOWN else f"{name[:MAX_NAME_SHOWN]}…"


PATH_PARAMETERS: Mapping[str, str] = {
    "alpha": "The alpha_id (as `catalog.alphas.list` lists them).",
    "symbol": "The benchmark's ticker (as an alpha's `benchmark` names it).",
    "dataset": "The export dataset (as `exports.list` lists them).",
    "key_id": "The public key id (`key_...`) of the key whose usage to read.",
}
"""What a path parameter the query Struct does not type means (`{date}` is typed there, with its
description; these are plain strings on every route that has them)."""

NEXT_PAGE = "alpha-results/next"
"""The `_meta` key of a tool result holding the arguments of the next page, when more rows exist."""

UNTRUSTED = "alpha-results/untrusted"
"""The `_meta` key of a tool result listing the JSON Pointers into `structuredContent` of the values a
research team's seal supplied, which a host must treat as data, never as instructions
(`serve.model_context.untrusted`); on the first text block (the same JSON), `true`."""

SUMMARISED = "alpha-results/summarised"
"""The `_meta` key of a tool result in summary form (`serve.model_context.summary`) listing the JSON Pointers
into `structuredContent` of the lists it summarised, each with how many items the whole holds."""

RATE_LIMIT = "alpha-results/rate_limit"
"""The `_meta` key of a tool result holding the route's `X-RateLimit-*` headers (docs/limits.md) as
`{limit, remaining, used, reset, window}`: an agent paces its calls as an HTTP client would."""


@dataclass(frozen=True)
class RouteTool:
    """An endpoint as a tool: the MCP declaration and how its arguments become the route's request."""

    endpoint: Endpoint
    tool: types.Tool
    path_names: tuple[str, ...]
    query_names: frozenset[str]
    validator: Draft202012Validator
    """The tool's input schema, compiled once (a call validates against it)."""
    sha256: str
    """`declaration_sha256` of the tool: what `/llms.txt` lists for clients to pin."""
    seal_text: tuple[Path, ...]
    """Where its answers hold seal text (`serve.model_context.untrusted.seal_text_paths`), found once."""
    lists: tuple[Path, ...] = ()
    """The series its summary form cuts (`serve.model_context.summary.list_paths`, under `data`); empty for a
    tool that does not take `detail`."""

    @property
    def summarises(self) -> bool:
        """Whether the tool takes `detail` and answers in summary form by default."""
        return bool(self.lists)

    def target(self, arguments: Mapping[str, Any], limit: int) -> tuple[str, bytes, bytes] | errors.ApiError:
        """(path, raw path, query string) of the route's request for `arguments`, or the API's error:
        400 `bad_request` for names the tool does not take or values its input schema refuses (each
        name with its rule), 414 `request_target_too_long` for a target over `limit` bytes (what the
        HTTP server answers such a request line).

        A null argument is an absent one. A path value is percent-encoded whole (`/` too), as an
        HTTP client sends it; the server then refuses what it refuses over HTTP (an encoded `/` is a
        404, serve/app.py)."""
        given = {name: value for name, value in arguments.items() if value is not None}
        # Names first, without reading a value: an unknown name is never passed on, and however
        # many a call sends, the answer names MAX_NAMED of them, each `shown` (bounded).
        taken = self.query_names | set(self.path_names) | ({summary.DETAIL} if self.summarises else set())
        foreign = [name for name in given if name not in taken]
        if foreign:
            named = {
                shown(name): NOT_TAKEN if name in WITHOUT else NOT_A_PARAMETER for name in foreign[:MAX_NAMED]
            }
            return errors.bad_parameters(named, {"count": len(foreign)})
        problems = schema_problems(self.validator, given)
        problems.update(
            {name: "is required (a path parameter)" for name in self.path_names if given.get(name) == ""}
        )
        if problems:
            return errors.bad_parameters(problems)

        def segment(match: re.Match[str]) -> str:
            return quote(wire_text(given[match.group(1)]), safe="")

        raw = PATH_PARAMETER.sub(segment, self.endpoint.path)
        # `detail` is the tool's own: the route answers in full, and the tool cuts (serve.model_context.calls).
        sent = {k: v for k, v in given.items() if k not in self.path_names and k != summary.DETAIL}
        query = urlencode([(k, wire_text(v)) for k, v in sent.items()])
        if len(raw) + (len(query) + 1 if query else 0) > limit:
            return errors.target_too_long(limit)
        return unquote(raw), raw.encode("ascii"), query.encode("ascii")


def schema_problems(validator: Draft202012Validator, arguments: Mapping[str, Any]) -> dict[str, str]:
    """Each argument the input schema refuses, with the rule it broke in the routes' words (never
    the value, which may be long or hostile). JSON Schema's `integer` takes an integral number
    (`5.0`), as the specification says."""
    problems: dict[str, str] = {}
    for error in validator.iter_errors(arguments):
        if error.validator == "required":
            for name in error.validator_value:
                if name not in arguments:
                    problems.setdefault(name, "is required")
            continue
        name = str(error.path[0]) if error.path else "arguments"
        problems.setdefault(name, rule_of(error))
    return problems


def rule_of(error: ValidationError) -> str:
    keyword, value = error.validator, error.validator_value
    if keyword == "type":
        return f"must be a JSON {value}" if value != "integer" else "must be an integer"
    if keyword == "enum":
        return f"must be one of {', '.join(map(str, value))}"
    if keyword == "minimum":
        return f"must be at least {value}"
    if keyword == "maximum":
        return f"must be at most {value}"
    if keyword == "maxLength":
        return f"must be at most {value} characters"
    if keyword == "pattern":
        return f"must match {value}"
    return f"breaks the input schema's `{keyword}`"


def wire_text(value: Any) -> str:
    """A JSON argument as the query string writes it: `true`/`false`, numbers as Python prints
    them, text as given; anything else (which the input schema refuses first) as its JSON text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # an integral number, as an `integer` parameter reads it
    if isinstance(value, int | float | str):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def input_schema(endpoint: Endpoint, summarises: bool = False) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments: the path parameters (required), then the query
    parameters in documentation order, each as the OpenAPI document declares it, then `detail` on a
    tool answering in summary form (`serve.model_context.summary`)."""
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
    if summarises:
        properties[summary.DETAIL] = summary.detail_schema()
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return whole_numbers(schema)


def whole_numbers(value: Any) -> Any:
    """`value` with every integral float written as an integer (`minimum: 0`, not `0.0`): the same
    JSON Schema, and a declaration without floats, whose canonical JSON any client writes alike
    (`canonical_json`)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


def canonical_json(value: Any) -> bytes:
    """RFC 8785's canonical JSON (JCS) of a document holding no float: keys sorted, no whitespace,
    UTF-8 with only the characters JSON requires escaped. Exactly what Python's
    `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` writes then; a
    float is refused, since there the two ways of writing a number part (`1.0` against JCS's `1`)."""

    def check(item: Any) -> None:
        if isinstance(item, float):
            raise TypeError(f"no float in a hashed declaration (got {item!r}): write it as an integer")
        for child in item.values() if isinstance(item, dict) else item if isinstance(item, list) else ():
            check(child)

    check(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def declaration_sha256(tool: types.Tool) -> str:
    """The SHA-256 (hex) of the tool's declaration as `tools/list` serves it (`name`, `title`,
    `description`, `inputSchema`, `annotations`: the SDK's `by_alias`, `exclude_none` JSON), in
    canonical JSON: stable for as long as the declaration is, whatever the process or machine."""
    served = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
    return hashlib.sha256(canonical_json(served)).hexdigest()


def path_names(endpoint: Endpoint) -> tuple[str, ...]:
    return tuple(endpoint.path_parameters)


def description(endpoint: Endpoint, summarises: bool = False) -> str:
    """The route's summary, its path, what a page is, what its summary form is, and who may call
    it (the registry's flags)."""
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
    if summarises:
        lines.append(
            f"Answered in summary form unless `{summary.DETAIL}` is `{summary.FULL}`: every figure, with each "
            f"series longer than {summary.LONGEST} items cut to its first and last {summary.KEPT}, its `count` "
            f"and `omitted` items said (the result's `_meta.{SUMMARISED}` lists them)."
        )
    if endpoint.admin:
        lines.append("Effective only on a platform administrator's key.")
    return " ".join(lines)


@cache
def route_tools() -> dict[str, RouteTool]:
    """Every endpoint's tool by registry id, in registry order (built once per process)."""
    out: dict[str, RouteTool] = {}
    served = {endpoint_id: e for endpoint_id, e in endpoints().items() if endpoint_id not in UNSERVED}
    answers = dict(
        zip(served, msgspec.inspect.multi_type_info([e.answer for e in served.values()]), strict=True)
    )
    for endpoint_id, endpoint in served.items():
        lists = summary.summarised_lists(endpoint, answers[endpoint_id])
        tool = types.Tool(
            name=endpoint_id,
            title=endpoint.summary,
            description=description(endpoint, bool(lists)),
            input_schema=input_schema(endpoint, bool(lists)),
            annotations=types.ToolAnnotations(
                title=endpoint.summary,
                read_only_hint=True,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
        )
        names = path_names(endpoint)
        query_names = frozenset(p.name for p in endpoint.params) - WITHOUT - set(names)
        validator = Draft202012Validator(tool.input_schema)
        seal_text = seal_text_paths(answers[endpoint_id])
        out[endpoint_id] = RouteTool(
            endpoint, tool, names, query_names, validator, declaration_sha256(tool), seal_text, lists
        )
    return out


def tool_hashes() -> dict[str, str]:
    """Every tool's `declaration_sha256` by name, in registry order (what `/llms.txt` lists)."""
    return {name: tool.sha256 for name, tool in route_tools().items()}
