"""Write `alpha_results_client/_generated.py` from the server's own declarations.

A dev tool, run in the server's repository (it imports the server's packages; the client never
does):

    .venv/bin/python client/scripts/generate.py          # rewrite the module
    .venv/bin/python client/scripts/generate.py --check  # exit 1 when the committed one is stale

Sources, each read where the server itself reads it:
- `serve.app.openapi_document()`: the body of every endpoint (rows, objects, `meta`, summaries),
  typed from the lake's Arrow schemas, with which fields may be absent (`x-absent`, `x-raw-only`);
- `schemas.registry`: the endpoints, their paths and query parameters (one `schemas.query` Struct
  each, whose field names are the Python names of `from`/`to`);
- `schemas.wire`: the column sets of `fields=` on /scores;
- `schemas.field_docs`: the context names the server gives each object (class names here);
- `serve.errors`: every error code with its HTTP status and default message.

Every class derives from `alpha_results_client._struct.ApiStruct` (a msgspec Struct whose repr
omits the fields the server did not send), as the hand-typed ones do.

The document leaves six bodies open (the description, the metrics and their documentation
block, the analytics significance and costs objects and their documentation block); their types
are written by hand in `alpha_results_client.models` and referenced here.
tests/client/test_generated.py fails when the committed module differs from what this writes.
"""

from __future__ import annotations

import argparse
import importlib.util
import keyword
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TARGET = Path(__file__).resolve().parents[1] / "src" / "alpha_results_client" / "_generated.py"
WIDTH = 106  # the project's line length (110) less the indentation of a field docstring

HAND_TYPED = {
    "catalog.alphas.get": "AlphaDescription",
    "performance.metrics": "Metrics",
    "performance.metrics.doc": "MetricsDoc",
    "analytics.significance": "Significance",
    "analytics.costs": "Costs",
    "analytics.contribution": "Contribution",
    "analytics.checks": "Checks",
    "analytics.compare": "Comparison",
    "analytics.risk": "Risk",
    "analytics.doc": "AnalyticsDoc",
}
"""Endpoints whose `data` the OpenAPI document declares as an open object: typed by hand."""

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
    nested_contexts: dict[str, str]
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
        """The Python type of a property's schema; `hint` names a nested object's class."""
        if "$ref" in schema:
            name = component_class(schema["$ref"].rsplit("/", 1)[-1])
            self.struct(name, self.resolve(schema), doc=self.resolve(schema).get("description", ""))
            return name
        declared = schema.get("type", "object")
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
            text = self.struct(hint, schema, doc="")  # the meaning is on the property holding it
        elif isinstance(schema.get("additionalProperties"), dict):
            text = f"dict[str, {self.annotation(schema['additionalProperties'], hint)}]"
        else:
            text = "dict[str, Any]"
        return f"{text} | None" if nullable else text

    def fields_of(
        self, schema: dict[str, Any], context_hint: str | None = None, all_optional: bool = False
    ) -> list[StructField]:
        required = schema.get("required")
        out = []
        for wire, prop in schema.get("properties", {}).items():
            if all_optional:
                optional = True
            elif required is not None:
                optional = wire not in required
            else:
                optional = "x-absent" in prop or "x-raw-only" in prop
            hint = self.nested_contexts.get(wire, wire)
            if wire == "summary" and context_hint:
                hint = context_hint
            out.append(
                StructField(wire, self.annotation(prop, camel(hint)), optional, prop.get("description", ""))
            )
        return out

    def struct(self, name: str, schema: dict[str, Any], doc: str, summary_hint: str | None = None) -> str:
        return self.add(StructClass(name, doc, self.fields_of(schema, summary_hint)))


def render_struct(cls: StructClass) -> list[str]:
    lines = [f"class {cls.name}({cls.base}, kw_only=True, frozen=True):"]
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


def openapi_path(path: str) -> str:
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", path)


def success_schema(document: dict[str, Any], path: str) -> dict[str, Any]:
    operation = document["paths"][path]["get"]
    schema: dict[str, Any] = operation["responses"]["200"]["content"]["application/json"]["schema"]
    return schema


def render_param(param: Any) -> str:
    enum = "None" if param.enum is None else repr(tuple(param.enum))
    default = param.default.isoformat() if hasattr(param.default, "isoformat") else param.default
    return (
        f"Param({param.name!r}, {param.attr!r}, {param.type!r}, {default!r}, "
        f"required={param.required!r}, enum={enum})"
    )


def render() -> str:
    """The source of `_generated.py`."""
    from schemas import field_docs, wire
    from schemas.registry import ENDPOINTS, REGISTRY_VERSION
    from serve import errors
    from serve.app import openapi_document

    document = openapi_document()
    families = status_families()
    emitter = Emitter(document, dict(field_docs.NESTED_CONTEXTS))
    for name in ("Pagination", "Warning"):
        emitter.struct(component_class(name), document["components"]["schemas"][name], doc="")
    error = document["components"]["schemas"]["Error"]
    emitter.struct("ErrorBody", error["properties"]["error"], doc="The `error` object of a failure.")
    emitter.struct("ErrorEnvelope", error, doc="The body of every failure: `{error: {...}}`.")

    meta_names: dict[str, str] = {}
    envelope_names: dict[str, str] = {}
    data_names: dict[str, str] = {}
    collections: dict[str, bool] = {}
    common_meta: list[StructField] | None = None
    for endpoint in ENDPOINTS:
        path = openapi_path(endpoint.path)
        schema = success_schema(document, path)
        if endpoint.id == "meta.health":
            emitter.struct(
                "Health", emitter.resolve(schema), doc="The body of `GET /v1/health` (no envelope)."
            )
            envelope_names[endpoint.id] = "Health"
            continue
        data_name = HAND_TYPED.get(endpoint.id) or camel(field_docs.DATA_CONTEXTS[endpoint.id])
        data_names[endpoint.id] = data_name
        data_schema = schema["properties"]["data"]
        collection = data_schema.get("type") == "array"
        collections[endpoint.id] = collection
        if endpoint.id not in HAND_TYPED:
            target = emitter.resolve(data_schema["items"] if collection else data_schema)
            what = "A row" if collection else "The `data` object"
            emitter.struct(data_name, target, doc=f"{what} of `GET {path}` ({endpoint.id}).")
        summary = field_docs.SUMMARY_CONTEXTS.get(endpoint.id)
        # Every `meta` key may be absent: the spec has `request_id` and `generated_at` "on
        # single-object and some list responses", and `/metrics/_doc` serves `meta: {}`.
        meta_schema = schema["properties"]["meta"]
        meta_fields = emitter.fields_of(meta_schema, camel(summary) if summary else None, all_optional=True)
        shared = [f for f in meta_fields if f.wire not in endpoint.meta and f.wire != "summary"]
        if common_meta is None:
            common_meta = shared
            emitter.add(StructClass("Meta", "The `meta` object every response carries.", shared))
        if shared != common_meta or meta_fields[: len(shared)] != shared:
            raise ValueError(f"{endpoint.id}: its meta does not extend the shared one")
        if meta_fields == common_meta:
            meta_names[endpoint.id] = "Meta"
        else:
            meta_name = f"{data_name}Meta"
            doc = f"The `meta` object of `GET {path}`."
            emitter.add(StructClass(meta_name, doc, meta_fields, base="Meta", base_fields=len(common_meta)))
            meta_names[endpoint.id] = meta_name
        envelope = f"{data_name}{'Page' if collection else 'Response'}"
        envelope_names[endpoint.id] = envelope
        data_type = f"list[{data_name}]" if collection else data_name
        envelope_fields = [StructField("data", data_type, False, "")]
        if collection:
            envelope_fields.append(StructField("pagination", "Pagination", False, ""))
        envelope_fields.append(StructField("meta", meta_names[endpoint.id], False, ""))
        emitter.add(StructClass(envelope, f"The 200 body of `GET {path}` ({endpoint.id}).", envelope_fields))

    out = [
        '"""Types, endpoints and error codes of the alpha-results API, generated from the server\'s',
        "declarations by client/scripts/generate.py. Do not edit: run",
        "`.venv/bin/python client/scripts/generate.py` in the server's repository.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import datetime as dt",
        "from dataclasses import dataclass",
        "from typing import Any",
        "from urllib.parse import quote",
        "",
        "import msgspec",
        "from msgspec import UNSET, UnsetType",
        "",
        "from alpha_results_client._struct import ApiStruct",
        "from alpha_results_client.exceptions import (",
        "    ApiError,",
        *(f"    {family}," for family in sorted(families.values())),
        ")",
        f"from alpha_results_client.models import {', '.join(sorted(set(HAND_TYPED.values())))}",
        "",
        f'REGISTRY_VERSION = "{REGISTRY_VERSION}"',
        '"""The endpoint registry these types were generated from (`registry_version` of /v1/health)."""',
        "",
    ]
    for name in emitter.order:
        out += ["", "", *render_struct(emitter.classes[name])]

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
        "",
        "    def url_path(self, **values: str) -> str:",
        '        """The path with each `{name}` filled in, percent-encoded (a `/` too)."""',
        '        return self.path.format(**{name: quote(value, safe="") for name, value in values.items()})',
        "",
        "",
        "ENDPOINTS: dict[str, Endpoint] = {",
    ]
    for endpoint in ENDPOINTS:
        params = ", ".join(render_param(p) for p in endpoint.params)
        params = f"({params},)" if endpoint.params else "()"
        out += [
            f'    "{endpoint.id}": Endpoint(',
            f'        "{endpoint.id}",',
            f'        "{openapi_path(endpoint.path)}",',
            f"        {params},",
            f"        {envelope_names[endpoint.id]},",
            f"        collection={collections.get(endpoint.id, False)!r},",
            *([f"        admin={endpoint.admin!r},"] if endpoint.admin else []),
            "    ),",
        ]
    out += ["}", '"""Every route of the registry, by registry id."""', ""]
    out += [
        "COLUMN_SETS: dict[str, dict[str, tuple[str, ...]]] = {",
        f'    "signals.scores": {dict(wire.SCORE_FIELD_SETS)!r},',
        "}",
        '"""The columns each value of a column-set parameter (`fields=` on /scores) serves."""',
        "",
    ]

    out += ["", "# -- error codes " + "-" * 83]
    classes = sorted(
        (
            value
            for value in vars(errors).values()
            if isinstance(value, type) and issubclass(value, errors.ApiError)
        ),
        key=lambda cls: (cls.status, cls.code),
    )
    error_names: dict[str, str] = {}
    for cls in classes:
        if cls.code in error_names:  # an alias (`InternalError = ApiError`)
            continue
        name = camel(cls.code) if cls.code.endswith("_error") else f"{camel(cls.code)}Error"
        error_names[cls.code] = name
        retryable = cls.status == RETRYABLE_STATUS and cls.code.endswith(RETRYABLE_SUFFIX)
        family = families.get(cls.status, "ApiError")
        out += ["", "", f"class {name}({family}):"]
        out += wrap_doc(f"{cls.status} `{cls.code}`: {cls.default_message}", "    ")
        out += ["", f'    code = "{cls.code}"', f"    status = {cls.status}"]
        if retryable:
            out.append("    retryable = True")
    out += ["", "", "ERROR_CLASSES: dict[str, type[ApiError]] = {"]
    out += [f'    "{code}": {name},' for code, name in error_names.items()]
    out += ["}", '"""The exception class of each error code the server declares."""', ""]
    exported = [*emitter.order, *error_names.values()]
    out += ["__all__ = [", *(f'    "{name}",' for name in sorted(exported)), "]", ""]
    return formatted("\n".join(out))


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed module is stale")
    args = parser.parse_args(argv)
    source = render()
    if args.check:
        if TARGET.read_text() != source:
            print(f"{TARGET} is stale: run client/scripts/generate.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(source)
    print(f"wrote {TARGET} ({source.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
