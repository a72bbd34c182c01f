"""Write `alpha_results_client/_generated.py` and `_envelope.py` from the server's served OpenAPI
document alone.

A dev tool; it reads the document a running server serves (`/openapi.json`) or a saved copy, and
nothing of the server's code:

    .venv/bin/python client/scripts/generate.py                       # from http://127.0.0.1:8000
    .venv/bin/python client/scripts/generate.py --openapi openapi.json --check
                                                   # exit 1 when a committed module is stale

What it reads from the document:
- `paths`: every operation with an `x-registry-id` (the endpoint's id), its path, its query
  parameters (name, type, default, values, `x-python-name` where the wire name is no identifier,
  `x-columns` for a column-set parameter) and `x-admin`;
- the 200 body of each: rows or object, `meta` and its summary, every object named by its
  component name or its `title`;
- `components.schemas`: the shared objects and the bodies the server declares as Structs;
- the error envelope's `code`: `x-codes`, every error code with its status and message;
- `info.x-registry-version`.

From the operations it also writes `GeneratedMethods`, the typed method of every route that
`alpha_results_client.Client` inherits (named after the registry id's last segment, its
parameters the operation's, with their served defaults and choices; `METHODS` maps each id to its
method), so a new route has its method once this runs, and nothing in client.py is edited.

Two modules, so that the client has no import circle and a new route still changes one file:
`_envelope.py` holds what the hand-written modules read (`ENVELOPE_ROOTS`: a page's pagination,
meta and warnings, the error envelope and the error classes, the export listing and a signed
download, with every type they name; `Param` and `Endpoint`), which no route added changes;
`_generated.py` holds the rest (every route's types, `ENDPOINTS`, `COLUMN_SETS`, the methods,
whose answers are `paging.Collection`s) and re-exports `_envelope.py`'s names. `paging.py`,
`exports.py` and `transport.py` import `_envelope.py` only, so `_generated.py` imports
`paging.py` without a circle.

Every class derives from `alpha_results_client._struct.ApiStruct` (a msgspec Struct whose repr
omits the fields the server did not send). tests/client/test_generated.py fails when a committed
module differs from what this writes from the document the test server serves.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import keyword
import re
import shutil
import subprocess
import sys
import textwrap
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_SOURCE = "http://127.0.0.1:8000/openapi.json"
TARGET = Path(__file__).resolve().parents[1] / "src" / "alpha_results_client" / "_generated.py"
ENVELOPE = TARGET.with_name("_envelope.py")
ENVELOPE_ROOTS = (
    "Pagination",
    "ResponseWarning",
    "Meta",
    "ErrorEnvelope",
    "ExportRowPage",
    "ExportDownloadResponse",
    "SourceDownload",
)
"""The types the hand-written modules name (paging.py: a page's pagination, meta and warnings;
transport.py: the error envelope; exports.py: the export listing, a signed download); with the
types they name, `_envelope.py` holds them. None is a route's own, so a new route leaves that
module as it is (tests/client/test_generated.py adds one and checks)."""
WIDTH = 106  # the project's line length (110) less the indentation of a field docstring

MIXINS = {
    "Checks": "ChecksTables",
    "Comparison": "ComparisonTables",
    "CombinedRowMeta": "CombinationTables",
    "Contribution": "ContributionTables",
    "Risk": "RiskTables",
}
"""Generated classes that gain the client's table methods (`alpha_results_client.tables`)."""

METHOD_NAMES = {
    "catalog.alphas.list": "alphas",
    "catalog.families.list": "families",
    "catalog.alphas.get": "alpha",
    "catalog.alphas.source.download": "source_download",
    "signals.rebalances.list": "rebalances",
    "signals.rebalances.get": "cross_section",
    "portfolio.ledger": "portfolio",
    "performance.metrics.doc": "metrics_doc",
    "analytics.doc": "analytics_doc",
    "benchmarks.daily": "benchmark",
    "exports.list": "exports",
    "exports.download": "export",
    "admin.alphas.readiness": "admin_readiness",
    "admin.keys.usage": "admin_key_usage",
    "admin.builds.list": "admin_builds",
    "events.list": "events",
    "events.stream": "stream_events",
}
"""The methods named, before they were generated, otherwise than after their id's last segment
(`analytics.risk` -> `risk`); frozen: a new route takes its last segment, and the generator
refuses a name two routes (or the client's own attributes) would share."""

RESERVED_NAMES = frozenset(
    {"call", "close", "rate_limit", "base_url", "page_size", "progress", "use_exports"}
)
"""`ClientBase`'s own attributes, which no generated method may shadow."""

WINDOW_PARAMS = ("book", "from", "to")
"""The book and window every book route shares: positional after the path parameters and the
required query parameters (`client.risk(alpha, "long_only", "2021-01-01")`), as the methods
written before generation took them; every other optional parameter is keyword-only."""

POSITIONAL = {
    "catalog.alphas.list": ("search", "complete_only"),
    "analytics.screen": ("search",),
    "analytics.correlation": ("basis",),
    "analytics.contribution": ("reference",),
    "analytics.residual": ("reference",),
    "analytics.promotion_preview": ("effective",),  # named as_of before issue 64
}
"""Parameters, beyond the rule above, that the methods written before generation took
positionally (before `book`, `from`, `to`); kept so existing calls bind. Frozen: a new route
needs no entry."""

UNSENT_PARAMS = frozenset({"limit", "offset", "format"})
"""Query parameters a collection sets itself (its pages and their representation): no method takes them."""

RETRYABLE_STATUS = 503
RETRYABLE_SUFFIX = "_unavailable"
"""A 503 whose code ends in `_unavailable` is transient (the spec: "retry with backoff"); other
503 codes (`*_not_configured`, `exports_not_built`) are permanent."""

EXCEPTIONS = TARGET.with_name("exceptions.py")


def status_families() -> dict[int, str]:
    """The base class of each status: `STATUS_FAMILIES` of `alpha_results_client.exceptions`, loaded
    from its file alone (importing the package would import the module this script writes)."""
    spec = importlib.util.spec_from_file_location("_client_exceptions", EXCEPTIONS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {status: cls.__name__ for status, cls in module.STATUS_FAMILIES.items()}


RENAMED_COMPONENTS = {"Warning": "ResponseWarning"}
"""Component schemas whose name would shadow a Python builtin."""


def component_class(name: str) -> str:
    return RENAMED_COMPONENTS.get(name, name)


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[._\-\s]+", name) if part)


def python_name(wire: str) -> str:
    return f"{wire}_" if keyword.iskeyword(wire) else wire


def wrap_doc(text: str, indent: str) -> list[str]:
    """A docstring of `text`, wrapped to the line length, as source lines."""
    text = " ".join(text.replace('"""', "'''").replace("\\", "\\\\").split())
    if not text:
        return []
    lines = textwrap.wrap(text, WIDTH - len(indent) - 6, break_on_hyphens=False, break_long_words=False)
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}', *(f"{indent}{line}" for line in lines[1:]), f'{indent}"""']


# -- Struct classes from JSON schemas ----------------------------------------------------------


@dataclass
class StructField:
    wire: str
    annotation: str
    optional: bool
    doc: str


@dataclass
class StructClass:
    name: str
    doc: str
    fields: list[StructField]
    base: str = "ApiStruct"  # a msgspec Struct whose repr omits UNSET fields (`_struct.py`)
    base_fields: int = 0  # fields inherited from `base` (a Meta subclass repeats none of them)

    def signature(self) -> tuple[Any, ...]:
        return (self.base, tuple((f.wire, f.annotation, f.optional) for f in self.fields))


@dataclass
class Emitter:
    document: dict[str, Any]
    classes: dict[str, StructClass] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def add(self, cls: StructClass) -> str:
        existing = self.classes.get(cls.name)
        if existing is not None:
            if existing.signature() != cls.signature():
                raise ValueError(f"two different objects would both be named {cls.name}")
            return cls.name
        self.classes[cls.name] = cls
        self.order.append(cls.name)
        return cls.name

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref")
        if ref is None:
            return schema
        name = ref.rsplit("/", 1)[-1]
        resolved: dict[str, Any] = self.document["components"]["schemas"][name]
        return resolved

    def annotation(self, schema: dict[str, Any], hint: str) -> str:
        """The Python type of a property's schema; `hint` names a nested object without a title."""
        if "anyOf" in schema:  # msgspec writes `T | None` as anyOf
            arms = [self.annotation(arm, hint) for arm in schema["anyOf"] if arm.get("type") != "null"]
            nullable = any(arm.get("type") == "null" for arm in schema["anyOf"])
            return " | ".join([*arms, "None"] if nullable else arms)
        if "$ref" in schema:
            name = component_class(schema["$ref"].rsplit("/", 1)[-1])
            self.struct(name, self.resolve(schema), doc=self.resolve(schema).get("description", ""))
            return name
        # msgspec writes a Literal as `enum` alone: its values' type is the property's.
        enum_type = "string" if all(isinstance(v, str) for v in schema.get("enum") or [0]) else "object"
        declared = schema.get("type", enum_type)
        types = [declared] if isinstance(declared, str) else list(declared)
        nullable = "null" in types
        kinds = [t for t in types if t != "null"] or ["object"]
        kind = kinds[0]
        if kind == "string":
            text = {"date": "dt.date", "date-time": "dt.datetime"}.get(schema.get("format", ""), "str")
        elif kind == "integer":
            text = "int"
        elif kind == "number":
            text = "float"
        elif kind == "boolean":
            text = "bool"
        elif kind == "array":
            text = f"list[{self.annotation(schema.get('items', {}), hint)}]"
        elif schema.get("properties"):
            # The meaning is on the property holding it; an inline object (a route's `meta`) is
            # named by its `title` if the server gives one, else after the property holding it.
            text = self.struct(schema.get("title") or hint, schema, doc="")
        elif isinstance(schema.get("additionalProperties"), dict):
            text = f"dict[str, {self.annotation(schema['additionalProperties'], hint)}]"
        else:
            text = "dict[str, Any]"
        return f"{text} | None" if nullable else text

    def fields_of(self, schema: dict[str, Any], all_optional: bool = False) -> list[StructField]:
        required = schema.get("required")
        out = []
        for wire, prop in schema.get("properties", {}).items():
            if all_optional:
                optional = True
            elif required is not None:
                # A field with a default is always served (the server encodes defaults).
                optional = wire not in required and "default" not in prop
            else:
                optional = "x-absent" in prop or "x-raw-only" in prop
            out.append(
                StructField(wire, self.annotation(prop, camel(wire)), optional, prop.get("description", ""))
            )
        return out

    def struct(self, name: str, schema: dict[str, Any], doc: str) -> str:
        return self.add(StructClass(name, doc, self.fields_of(schema)))

    def data_class(self, schema: dict[str, Any], what: str) -> str:
        """The class of an endpoint's `data` object or row: its component (every `data` the server
        declares is one), or a titled inline object."""
        target = self.resolve(schema)
        ref = schema.get("$ref")
        name = component_class(ref.rsplit("/", 1)[-1]) if ref else target["title"]
        return self.struct(name, target, doc=target.get("description") or what)


def render_struct(cls: StructClass) -> list[str]:
    bases = ", ".join([cls.base, *([MIXINS[cls.name]] if cls.name in MIXINS else [])])
    lines = [f"class {cls.name}({bases}, kw_only=True, frozen=True):"]
    lines += wrap_doc(cls.doc or f"The `{cls.name}` object.", "    ")
    for item in cls.fields[cls.base_fields :]:
        lines.append("")
        name = python_name(item.wire)
        renamed = name != item.wire
        if item.optional:
            annotation = f"{item.annotation} | UnsetType"
            default = f'msgspec.field(default=UNSET, name="{item.wire}")' if renamed else "UNSET"
            lines.append(f"    {name}: {annotation} = {default}")
        elif renamed:
            lines.append(f'    {name}: {item.annotation} = msgspec.field(name="{item.wire}")')
        else:
            lines.append(f"    {name}: {item.annotation}")
        lines += wrap_doc(item.doc, "    ")
    return lines


# -- endpoints -----------------------------------------------------------------------------------


def success_schema(document: dict[str, Any], path: str) -> dict[str, Any]:
    """The 200 body's schema; of a stream (`text/event-stream`), its messages' `data:` (`x-data`)."""
    content = document["paths"][path]["get"]["responses"]["200"]["content"]
    schema: dict[str, Any] = (
        content["application/json"]["schema"] if "application/json" in content else content[STREAM]["x-data"]
    )
    return schema


STREAM = "text/event-stream"


def render_param(param: dict[str, Any]) -> str:
    """A `Param(...)` of the generated module from an operation's query parameter."""
    schema = param["schema"]
    kind = "date" if schema.get("format") == "date" else schema["type"]
    enum = "None" if "enum" not in schema else repr(tuple(schema["enum"]))
    return (
        f"Param({param['name']!r}, {param.get('x-python-name', param['name'])!r}, {kind!r}, "
        f"{schema.get('default')!r}, required={param.get('required', False)!r}, enum={enum})"
    )


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(registry id, path, operation) of every registry route, in the document's order."""
    return [
        (operation["x-registry-id"], path, operation)
        for path, item in document["paths"].items()
        if "x-registry-id" in (operation := item.get("get", {}))
    ]


def query_params(operation: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in operation.get("parameters", []) if p.get("in") == "query"]


def method_name(endpoint_id: str) -> str:
    return METHOD_NAMES.get(endpoint_id, endpoint_id.rsplit(".", 1)[-1])


def is_list(param: dict[str, Any]) -> bool:
    """A parameter that takes several values, comma-separated (a pattern that repeats after a comma,
    or a description that says so)."""
    schema = param["schema"]
    return "(?:," in schema.get("pattern", "") or "comma-separated" in param.get("description", "")


def param_annotation(param: dict[str, Any]) -> str:
    """The Python type of a path or query parameter: its choices as a `Literal` (an integer choice
    also as an int), a date as a date or its ISO string, a list as a comma-separated string or an
    iterable of its values."""
    schema = param["schema"]
    if "enum" in schema:
        values: list[Any] = list(schema["enum"])
        values += [int(v) for v in schema["enum"] if isinstance(v, str) and re.fullmatch(r"-?[0-9]+", v)]
        return f"Literal[{', '.join(repr(v) for v in values)}]"
    if schema.get("format") == "date":
        return "dt.date | str"
    kind = schema.get("type", "string")
    if kind == "integer":
        return "int"
    if kind == "number":
        return "float"
    if kind == "boolean":
        return "bool"
    if is_list(param):
        return (
            "str | Iterable[float]" if "decimals" in param.get("description", "") else "str | Iterable[str]"
        )
    return "str"


def method_doc(summary: str, path: str, endpoint_id: str, params: list[dict[str, Any]]) -> list[str]:
    """The method's docstring: the operation's summary, its route, and each parameter's meaning."""
    indent = "        "
    paragraphs = [summary.rstrip(".") + ".", f"`GET {path}` (`{endpoint_id}`)."]
    for param in params:
        attr = param.get("x-python-name", param["name"])
        text = param.get("description") or ""
        if param["in"] == "path" and not text:
            continue
        paragraphs.append(f"`{attr}`: {text}")
    width = WIDTH - len(indent) - 6
    lines: list[str] = []
    for paragraph in paragraphs:
        text = " ".join(paragraph.replace('"""', "'''").replace("\\", "\\\\").split())
        if lines:
            lines.append("")
        lines += textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)
    return [
        f'{indent}"""{lines[0]}',
        *(f"{indent}{line}" if line else "" for line in lines[1:]),
        f'{indent}"""',
    ]


def render_method(
    endpoint_id: str, path: str, operation: dict[str, Any], returns: str
) -> tuple[str, list[str]]:
    """The method of one operation: its name and source lines."""
    name = method_name(endpoint_id)
    declared = operation.get("parameters", [])
    path_params = [p for p in declared if p.get("in") == "path"]
    query = [p for p in query_params(operation) if p["name"] not in UNSENT_PARAMS]
    by_name = {p["name"]: p for p in query}
    required = [p for p in query if p.get("required")]
    legacy = [by_name[n] for n in POSITIONAL.get(endpoint_id, ()) if n in by_name and n not in required]
    window = [by_name[n] for n in WINDOW_PARAMS if n in by_name and by_name[n] not in [*required, *legacy]]
    positional = [*path_params, *required, *legacy, *window]
    keyword = [p for p in query if p not in positional]

    def declaration(param: dict[str, Any]) -> str:
        attr = python_name(param.get("x-python-name", param["name"]))
        annotation = param_annotation(param)
        if param.get("required") or param.get("in") == "path":
            return f"{attr}: {annotation}"
        default = param["schema"].get("default")
        if default is None:
            return f"{attr}: {annotation} | None = None"
        return f"{attr}: {annotation} = {default!r}"

    arguments = [
        "self",
        *map(declaration, positional),
        *(["*", *map(declaration, keyword)] if keyword else []),
    ]
    path_values = ", ".join(f'"{p["name"]}": {python_name(p["name"])}' for p in path_params)
    values = ", ".join(
        f'"{attr}": {python_name(attr)}'
        for p in [*required, *legacy, *window, *keyword]
        if (attr := p.get("x-python-name", p["name"]))
    )
    lines = [f"    def {name}({', '.join(arguments)}) -> {returns}:"]
    lines += method_doc(operation.get("summary", ""), path, endpoint_id, [*positional, *keyword])
    lines.append(f'        return self._answer("{endpoint_id}", {{{path_values}}}, {{{values}}})')
    return name, lines


def render(document: dict[str, Any]) -> dict[str, str]:
    """The sources of `_envelope.py` and `_generated.py` (by file name), from the served OpenAPI
    `document`."""
    families = status_families()
    emitter = Emitter(document)
    for name in ("Pagination", "Warning"):
        emitter.struct(component_class(name), document["components"]["schemas"][name], doc="")
    error = document["components"]["schemas"]["Error"]
    error_body = emitter.resolve(error["properties"]["error"])
    emitter.struct("ErrorBody", error_body, doc="The `error` object of a failure.")
    emitter.struct("ErrorEnvelope", error, doc="The body of every failure: `{error: {...}}`.")

    routes = operations(document)
    # A body outside the envelope (the health probe, a stream's messages) is a `$ref` of its own.
    meta_schemas = {
        endpoint_id: schema["properties"]["meta"]
        for endpoint_id, path, _ in routes
        if "$ref" not in (schema := success_schema(document, path))
    }
    # The `meta` keys every route carries; each route's own come after them.
    shared_keys = [
        key
        for key in next(iter(meta_schemas.values()))["properties"]
        if all(key in meta["properties"] for meta in meta_schemas.values())
    ]
    meta_names: dict[str, str] = {}
    envelope_names: dict[str, str] = {}
    collections: dict[str, bool] = {}
    returns: dict[str, str] = {}  # the return type of each route's method
    streams: set[str] = set()
    series: set[str] = set()
    common_meta: list[StructField] | None = None
    for endpoint_id, path, _ in routes:
        schema = success_schema(document, path)
        if endpoint_id == "meta.health":
            emitter.struct(
                "Health", emitter.resolve(schema), doc="The body of `GET /v1/health` (no envelope)."
            )
            envelope_names[endpoint_id] = "Health"
            returns[endpoint_id] = "Health"
            continue
        if "$ref" in schema:  # a stream: its messages' `data:` (the client reads it: events.py)
            name = schema["$ref"].rsplit("/", 1)[1]
            doc = f"One message's `data:` of `GET {path}` ({endpoint_id}), Server-Sent Events."
            emitter.struct(name, emitter.resolve(schema), doc=doc)
            envelope_names[endpoint_id] = name
            returns[endpoint_id] = f"Iterator[{name}]"
            streams.add(endpoint_id)
            continue
        data_schema = schema["properties"]["data"]
        collection = data_schema.get("type") == "array"
        collections[endpoint_id] = collection
        what = "A row" if collection else "The `data` object"
        target = data_schema["items"] if collection else data_schema
        data_name = emitter.data_class(target, f"{what} of `GET {path}` ({endpoint_id}).")
        # Every `meta` key may be absent: the spec has `request_id` and `generated_at` "on
        # single-object and some list responses", and `/metrics/_doc` serves `meta: {}`.
        meta_fields = emitter.fields_of(meta_schemas[endpoint_id], all_optional=True)
        shared = [f for f in meta_fields if f.wire in shared_keys]
        if common_meta is None:
            common_meta = shared
            emitter.add(StructClass("Meta", "The `meta` object every response carries.", shared))
        if shared != common_meta or meta_fields[: len(shared)] != shared:
            raise ValueError(f"{endpoint_id}: its meta does not extend the shared one")
        if meta_fields == common_meta:
            meta_names[endpoint_id] = "Meta"
        else:
            meta_name = f"{data_name}Meta"
            doc = f"The `meta` object of `GET {path}`."
            emitter.add(StructClass(meta_name, doc, meta_fields, base="Meta", base_fields=len(common_meta)))
            meta_names[endpoint_id] = meta_name
        envelope = f"{data_name}{'Page' if collection else 'Response'}"
        envelope_names[endpoint_id] = envelope
        summary = next((f.annotation for f in meta_fields if f.wire == "summary"), None)
        if not collection:
            returns[endpoint_id] = envelope
        elif summary is None:
            returns[endpoint_id] = f"Collection[{data_name}]"
        else:  # a dated series with `meta.summary` of its whole window
            returns[endpoint_id] = f"Series[{data_name}, {summary.removesuffix(' | None')}]"
            series.add(endpoint_id)
        data_type = f"list[{data_name}]" if collection else data_name
        envelope_fields = [StructField("data", data_type, False, "")]
        if collection:
            envelope_fields.append(StructField("pagination", "Pagination", False, ""))
        envelope_fields.append(StructField("meta", meta_names[endpoint_id], False, ""))
        emitter.add(StructClass(envelope, f"The 200 body of `GET {path}` ({endpoint_id}).", envelope_fields))

    codes = error_body["properties"]["code"]["x-codes"]
    error_names = {code: camel(code) if code.endswith("_error") else f"{camel(code)}Error" for code in codes}
    shared = envelope_classes(emitter)
    own = [emitter.classes[name] for name in emitter.order if name not in shared]
    endpoints = render_endpoints(routes, envelope_names, collections, series, streams)
    generated = [
        '"""Types, endpoints and methods of the alpha-results API, generated from the server\'s OpenAPI',
        "document (/openapi.json) by client/scripts/generate.py. Do not edit: run",
        "`.venv/bin/python client/scripts/generate.py` against a server of the release.",
        "",
        "The types the hand-written modules read too (a page's meta, the errors, the exports) are in",
        "`_envelope.py`, which no new route changes; they are imported and re-exported here.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import datetime as dt",
        "from collections.abc import Iterable, Iterator",
        "from typing import TYPE_CHECKING, Any, Literal",
        "",
        *third_party_imports(own),
        "from alpha_results_client._envelope import ERROR_CLASSES as ERROR_CLASSES",
        "from alpha_results_client._envelope import (",
        *(f"    {name}," for name in sorted(["Endpoint", "Param", *shared, *error_names.values()])),
        ")",
        "from alpha_results_client._struct import ApiStruct",
        "from alpha_results_client.paging import Collection, Series",
        *mixin_imports(own),
        "",
        f'REGISTRY_VERSION = "{document["info"]["x-registry-version"]}"',
        '"""The endpoint registry these types were generated from (`registry_version` of /v1/health)."""',
        "",
    ]
    for cls in own:
        generated += ["", "", *render_struct(cls)]
    generated += endpoints
    generated += render_methods(routes, returns)
    exported = [*emitter.order, *error_names.values()]
    generated += ["", "__all__ = [", *(f'    "{name}",' for name in sorted(exported)), "]", ""]
    return {
        ENVELOPE.name: render_envelope(
            [emitter.classes[name] for name in shared], codes, error_names, families
        ),
        TARGET.name: formatted("\n".join(generated)),
    }


def envelope_classes(emitter: Emitter) -> list[str]:
    """`ENVELOPE_ROOTS` and every class they name (a field's type, a base class), in the order
    they were emitted."""
    wanted: set[str] = set()
    todo = list(ENVELOPE_ROOTS)
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        cls = emitter.classes[name]
        named = set(re.findall(r"\w+", " ".join(f.annotation for f in cls.fields))) | {cls.base}
        todo += sorted(named & emitter.classes.keys())
    return [name for name in emitter.order if name in wanted]


def third_party_imports(classes: list[StructClass]) -> list[str]:
    """The msgspec imports the rendered `classes` use (a renamed field, an optional one)."""
    fields = [f for cls in classes for f in cls.fields[cls.base_fields :]]
    lines = []
    if any(python_name(f.wire) != f.wire for f in fields):
        lines.append("import msgspec")
    if any(f.optional for f in fields):
        lines.append("from msgspec import UNSET, UnsetType")
    return [*lines, ""] if lines else []


def mixin_imports(classes: list[StructClass]) -> list[str]:
    """The table mixins (`alpha_results_client.tables`) the rendered `classes` derive from."""
    mixins = sorted(MIXINS[cls.name] for cls in classes if cls.name in MIXINS)
    return [f"from alpha_results_client.tables import {', '.join(mixins)}"] if mixins else []


def render_envelope(
    classes: list[StructClass], codes: dict[str, Any], error_names: dict[str, str], families: dict[int, str]
) -> str:
    """The source of `_envelope.py`: `classes`, `Param` and `Endpoint`, the error classes."""
    annotations = " ".join(f.annotation for cls in classes for f in cls.fields)
    out = [
        '"""The types every answer\'s envelope is made of, the error classes and the description of an',
        "endpoint, generated from the server's OpenAPI document (/openapi.json) by",
        "client/scripts/generate.py. Do not edit: run `.venv/bin/python client/scripts/generate.py`",
        "against a server of the release.",
        "",
        "What the hand-written modules read (paging.py, exports.py, transport.py): no route added changes",
        "it, and it imports none of them; `_generated.py` (every route's types, `ENDPOINTS`, the methods)",
        "imports and re-exports it.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        *(["import datetime as dt"] if "dt." in annotations else []),
        "import string",
        "from dataclasses import dataclass",
        "from typing import Any",
        "from urllib.parse import quote",
        "",
        *third_party_imports(classes),
        "from alpha_results_client._struct import ApiStruct",
        "from alpha_results_client.exceptions import (",
        "    ApiError,",
        *(f"    {family}," for family in sorted(set(families.values()))),
        ")",
        *mixin_imports(classes),
    ]
    for cls in classes:
        out += ["", "", *render_struct(cls)]
    out += [
        "",
        "",
        "# -- endpoints " + "-" * 86,
        "",
        "",
        "@dataclass(frozen=True)",
        "class Param:",
        '    """One query parameter: its name on the wire, its Python name, type, default and values."""',
        "",
        "    name: str",
        "    attr: str",
        "    type: str",
        "    default: Any",
        "    required: bool = False",
        "    enum: tuple[str, ...] | None = None",
        "",
        "",
        "@dataclass(frozen=True)",
        "class Endpoint:",
        '    """One `GET` route: registry id, path template, its parameters and the type of its 200 body."""',
        "",
        "    id: str",
        "    path: str",
        "    params: tuple[Param, ...]",
        "    response: type[Any]",
        "    collection: bool",
        "    admin: bool = False",
        "    series: bool = False",
        '    """A collection whose `meta.summary` covers the whole window (a `Series`)."""',
        "    stream: bool = False",
        '    """Server-Sent Events (`text/event-stream`): `response` is one message\'s `data:`."""',
        "",
        "    def url_path(self, **values: str) -> str:",
        '        """The path with each `{name}` filled in, percent-encoded (a `/` too)."""',
        '        return self.path.format(**{name: quote(value, safe="") for name, value in values.items()})',
        "",
        "    def path_names(self) -> tuple[str, ...]:",
        '        """The names of the path\'s parameters, in order."""',
        "        return tuple(name for _, name, _, _ in string.Formatter().parse(self.path) if name)",
        "",
        "",
        "# -- error codes " + "-" * 83,
    ]
    for code, declared_code in codes.items():
        status, message = declared_code["status"], declared_code["message"]
        name = error_names[code]
        retryable = status == RETRYABLE_STATUS and code.endswith(RETRYABLE_SUFFIX)
        family = families.get(status, "ApiError")
        out += ["", "", f"class {name}({family}):"]
        out += wrap_doc(f"{status} `{code}`: {message}", "    ")
        out += ["", f'    code = "{code}"', f"    status = {status}"]
        if retryable:
            out.append("    retryable = True")
    out += ["", "", "ERROR_CLASSES: dict[str, type[ApiError]] = {"]
    out += [f'    "{code}": {name},' for code, name in error_names.items()]
    out += ["}", '"""The exception class of each error code the server declares."""', ""]
    return formatted("\n".join(out))


def render_endpoints(
    routes: list[tuple[str, str, dict[str, Any]]],
    envelope_names: dict[str, str],
    collections: dict[str, bool],
    series: set[str],
    streams: set[str],
) -> list[str]:
    """`ENDPOINTS` and `COLUMN_SETS`: every route's declaration (`_envelope.Endpoint`)."""
    out = [
        "",
        "",
        "# -- endpoints " + "-" * 86,
        "",
        "ENDPOINTS: dict[str, Endpoint] = {",
    ]
    column_sets: dict[str, dict[str, tuple[str, ...]]] = {}
    for endpoint_id, path, operation in routes:
        declared = query_params(operation)
        params = ", ".join(render_param(p) for p in declared)
        params = f"({params},)" if declared else "()"
        admin = bool(operation.get("x-admin"))
        out += [
            f'    "{endpoint_id}": Endpoint(',
            f'        "{endpoint_id}",',
            f'        "{path}",',
            f"        {params},",
            f"        {envelope_names[endpoint_id]},",
            f"        collection={collections.get(endpoint_id, False)!r},",
            *(["        admin=True,"] if admin else []),
            *(["        series=True,"] if endpoint_id in series else []),
            *(["        stream=True,"] if endpoint_id in streams else []),
            "    ),",
        ]
        sets = [p["x-columns"] for p in declared if "x-columns" in p]
        if len(sets) > 1:
            raise ValueError(f"{endpoint_id}: more than one column-set parameter")
        if sets:
            column_sets[endpoint_id] = {value: tuple(names) for value, names in sets[0].items()}
    out += ["}", '"""Every route of the registry, by registry id."""', ""]
    out += [
        "COLUMN_SETS: dict[str, dict[str, tuple[str, ...]]] = {",
        *(f"    {endpoint_id!r}: {sets!r}," for endpoint_id, sets in column_sets.items()),
        "}",
        '"""The columns each value of a column-set parameter (`fields=` on /scores) serves."""',
        "",
    ]
    return out


def render_methods(routes: list[tuple[str, str, dict[str, Any]]], returns: dict[str, str]) -> list[str]:
    """`METHODS` and `GeneratedMethods`: the typed method of every route."""
    names: dict[str, str] = {}
    methods: list[str] = []
    for endpoint_id, path, operation in routes:
        name, lines = render_method(endpoint_id, path, operation, returns[endpoint_id])
        if name in RESERVED_NAMES or name in names.values() or keyword.iskeyword(name):
            clash = next((other for other, taken in names.items() if taken == name), "the client")
            raise ValueError(f"{endpoint_id}: its method {name!r} is taken by {clash}: rename the route")
        names[endpoint_id] = name
        methods += ["", *lines]
    return [
        "",
        "# -- methods " + "-" * 88,
        "",
        "METHODS: dict[str, str] = {",
        *(f'    "{endpoint_id}": "{name}",' for endpoint_id, name in names.items()),
        "}",
        '"""The method of `GeneratedMethods` (and so of `Client`) of each route, by registry id."""',
        "",
        "",
        "class GeneratedMethods:",
        '    """The typed method of every route, generated from its operation: positional path parameters',
        "    (then the required query parameters, and `book`, `start`, `end` where the route takes them),",
        "    every other parameter keyword-only with its served default and choices; `None` means not",
        "    sent. A collection comes back as a lazy `Collection` (a `Series` with its `.summary`), a",
        "    single object as its typed 200 body. `alpha_results_client.Client` inherits it.",
        '    """',
        "",
        "    if TYPE_CHECKING:",
        "",
        "        def _answer(self, endpoint_id: str, path_values: dict[str, Any], values: dict[str, Any]) -> Any:",
        '            """The request of one route (`ClientBase._answer`)."""',
        *methods,
        "",
    ]


def formatted(source: str) -> str:
    """`source` as `ruff format` writes it under the repository's configuration, so the module
    passes the lint and a regeneration compares equal byte for byte."""
    ruff = Path(sys.executable).with_name("ruff")
    command = str(ruff) if ruff.exists() else shutil.which("ruff")
    if command is None:
        raise SystemExit("ruff is needed to format the generated module (pip install ruff)")
    result = subprocess.run(
        [command, "format", "--stdin-filename", str(TARGET), "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
        cwd=TARGET.parents[3],
    )
    return result.stdout


def read_document(source: str) -> dict[str, Any]:
    """The OpenAPI document at `source`: a server's `/openapi.json` URL or a saved file."""
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=30) as response:
            document: dict[str, Any] = json.load(response)
    else:
        document = json.loads(Path(source).read_text())
    return document


def stale(sources: dict[str, str], directory: Path = TARGET.parent) -> list[Path]:
    """The modules in `directory` that differ from `sources` (`render`'s, by file name)."""
    return [directory / name for name, source in sources.items() if (directory / name).read_text() != source]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--openapi",
        default=DEFAULT_SOURCE,
        help=f"the served document: a URL or a file (default {DEFAULT_SOURCE})",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a committed module is stale")
    args = parser.parse_args(argv)
    sources = render(read_document(args.openapi))
    if args.check:
        differing = stale(sources)
        for path in differing:
            print(f"{path} is stale: run client/scripts/generate.py", file=sys.stderr)
        return 1 if differing else 0
    for name, source in sources.items():
        TARGET.with_name(name).write_text(source)
        print(f"wrote {TARGET.with_name(name)} ({source.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
