"""docs/reference.md, generated from the declarations: each route's (`serve.endpoints`: id, group,
path, summary, who may call it) and the OpenAPI document the app serves
(`serve.openapi`: parameters with type, default and constraints; response fields with type,
unit, when null or absent, whether raw-only, and meaning, as their declarations state them (each
field's `doc` on its Struct, `schemas.bodies`; the single-object bodies' documentation blocks);
error statuses and headers).

`alpha-results reference` (`just reference`; its arguments: cli/reference.py) rewrites the file;
`--check` only compares and exits 1 when it is stale, as tests/api/test_reference_docs.py does.
docs/llms.txt is written with it, from the same document (`serve.doc_blocks.llms`, also what `/llms.txt` serves).
Nothing here reads the lake or the settings, so the output depends on the code alone.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from schemas.bodies.analytics import ANALYTICS_STAT_KEYS
from schemas.bodies.event_data import EVENT_DATA
from schemas.bodies.formats import X_ABSENT, X_NULL, X_RAW_ONLY, X_UNIT
from schemas.bodies.metrics import STAT_KEYS
from schemas.registry import BY_ID
from serve.app import openapi_document
from serve.doc_blocks.llms import llms_text
from serve.endpoints import registry_version
from serve.model_context.tools import tool_hashes
from serve.openapi.annotations import field_description
from serve.openapi.jsonschema import without_null

REFERENCE_PATH = Path(__file__).resolve().parents[2] / "docs" / "reference.md"
LLMS_PATH = REFERENCE_PATH.with_name("llms.txt")
"""What `/llms.txt` serves (`serve.doc_blocks.llms`), written beside the reference from the same document."""
FIGURE_OBJECTS = {"AnalyticsStat": ANALYTICS_STAT_KEYS, "Stat": STAT_KEYS}
"""The objects every served figure is (an analytics figure; a `/metrics` statistic), by their
OpenAPI component, with the keys any figure may carry. Their other keys belong to particular
figures (`trials` to the deflated Sharpe ratio, `deprecated` to `sharpe`): a route's table lists
only the common keys under each figure, and the figure objects' section lists the others once with
the figures that carry them, so no route's table names a key its answers never hold."""
MAX_DEPTH = 6
"""How deep nested response objects are listed (the deepest served today is 4: `allow.endpoints.ids[]`)."""


def current_document() -> dict[str, Any]:
    """The OpenAPI document `/openapi.json` serves, for the routes the app mounts."""
    return openapi_document()


def _cell(text: Any) -> str:
    """Text for a Markdown table cell: one line, `|` escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return f"`{text}`"


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The schema behind a `$ref` (and the component's name), or the schema itself."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema, None
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    resolved, _ = _resolve(document, node)
    return resolved, ref.rsplit("/", 1)[-1]


def _types(schema: dict[str, Any]) -> tuple[list[str], bool]:
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else list(declared or [])
    nullable = "null" in types
    return [t for t in types if t != "null"], nullable


def _constraints(schema: dict[str, Any]) -> list[str]:
    out = []
    if "enum" in schema:
        out.append("one of " + ", ".join(_code(v) for v in schema["enum"]))
    if "minimum" in schema and "maximum" in schema:
        out.append(f"{schema['minimum']}..{schema['maximum']}")
    elif "minimum" in schema:
        out.append(f"≥ {schema['minimum']}")
    elif "maximum" in schema:
        out.append(f"≤ {schema['maximum']}")
    if "minLength" in schema and schema.get("minLength") == schema.get("maxLength"):
        out.append(f"exactly {schema['minLength']} characters")
    else:
        if "minLength" in schema:
            out.append(f"at least {schema['minLength']} characters")
        if "maxLength" in schema:
            out.append(f"at most {schema['maxLength']} characters")
    if "pattern" in schema:
        out.append(f"matches {_code(schema['pattern'])}")
    return out


def type_text(document: dict[str, Any], schema: dict[str, Any]) -> str:
    """`string (date), nullable`, `array of Warning`, `integer`, ... for one schema."""

    schema, null_arm = without_null(schema)
    resolved, name = _resolve(document, schema)
    types, nullable = _types(resolved)
    nullable = nullable or null_arm
    if types == ["array"]:
        item, item_name = _resolve(document, resolved.get("items", {}))
        item_types, _ = _types(item)
        text = "array of " + (item_name or " or ".join(item_types) or "any")
    else:
        text = " or ".join(types) or "any"
        if name:
            text = f"{text} ({name})"
        elif "format" in resolved:
            text = f"{text} ({resolved['format']})"
    if nullable:
        text += ", nullable"
    return text


class FieldRow(NamedTuple):
    path: str  # `meta.summary.first_date`, `data[].allow.endpoints.mode`
    type: str
    unit: str
    null: str  # when the value is null, and when the key is absent
    raw_only: bool
    meaning: str  # the meaning, then the schema's constraints (enum, bounds, length, pattern)


def _meaning(prop: dict[str, Any], target: dict[str, Any]) -> str:
    """The meaning alone: a field's `description` without the unit, null, absence and raw-only
    sentences `serve.openapi.annotations.field_description` appends (they have their own columns)."""

    description = str(prop.get("description") or target.get("description") or "")
    tail = field_description(
        "", prop.get(X_UNIT), prop.get(X_NULL), prop.get(X_ABSENT), bool(prop.get(X_RAW_ONLY))
    )
    return description.removesuffix(tail).strip() if tail else description


def field_rows(
    document: dict[str, Any], schema: dict[str, Any], prefix: str = "", depth: int = 0
) -> Iterator[FieldRow]:
    """One row for every property of an object schema, nested ones included
    (`meta.summary.first_date`, `data[].allow.endpoints.mode`); of a figure object
    (FIGURE_OBJECTS), only the keys every figure may carry."""

    resolved, component = _resolve(document, schema)
    required = set(resolved.get("required", ()))
    common = FIGURE_OBJECTS.get(component or "")
    for name, prop in resolved.get("properties", {}).items():
        if common is not None and name not in common:
            continue  # one figure's key: the figure objects' section, not under every figure
        path = f"{prefix}{name}"
        target, _ = _resolve(document, without_null(prop)[0])
        meaning, constraints = _meaning(prop, target), "; ".join(_constraints(target))
        if meaning and constraints:
            meaning = f"{meaning} Constraints: {constraints}."
        absent = prop.get(X_ABSENT)
        if absent is None and name not in required and required and not prop.get(X_RAW_ONLY):
            absent = "May be absent."  # a raw-only field's absence is its own column
        null = " ".join(str(text) for text in (prop.get(X_NULL), absent) if text)
        yield FieldRow(
            path=path,
            type=type_text(document, prop),
            unit=str(prop.get(X_UNIT) or ""),
            null=null,
            raw_only=bool(prop.get(X_RAW_ONLY)),
            meaning=meaning or constraints,
        )
        if depth >= MAX_DEPTH:
            continue
        types, _ = _types(target)
        if "object" in types:  # the unresolved schema: its `$ref` names the component
            yield from field_rows(document, without_null(prop)[0], f"{path}.", depth + 1)
        elif types == ["array"]:
            item, _ = _resolve(document, target.get("items", {}))
            if "properties" in item:
                yield from field_rows(document, target.get("items", {}), f"{path}[].", depth + 1)


def _parameter_rows(document: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    rows = []
    for param in operation.get("parameters", []):
        schema, _ = _resolve(document, param.get("schema", {}))
        default = _code(schema["default"]) if "default" in schema else ""
        cells = [
            _code(param["name"]),
            param["in"],
            type_text(document, schema),
            "yes" if param.get("required") else "no",
            default,
            "; ".join(_constraints(schema)),
            param.get("description", ""),
        ]
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return rows


def _caller_text(endpoint_id: str | None, operation: dict[str, Any]) -> str:
    if endpoint_id is None:
        return "no API key (the signed URL is the credential); not metered; outside the registry"
    endpoint = BY_ID[endpoint_id]
    if endpoint.public:
        return "public: no API key, not metered"
    text = "API key (`Authorization: Bearer`), on the key's endpoint allow-list; metered"
    if endpoint.admin:
        text += "; effective only on a platform administrator's key"
    return text


def _operation_section(
    document: dict[str, Any], path: str, method: str, operation: dict[str, Any]
) -> list[str]:
    endpoint_id = operation.get("x-registry-id")
    endpoint = BY_ID.get(endpoint_id) if isinstance(endpoint_id, str) else None
    group = endpoint.group if endpoint else ", ".join(operation.get("tags", []))
    lines = [f"### `{method.upper()} {path}`", ""]
    summary = operation.get("summary", "")
    if summary:
        lines += [_cell(summary) + ".", ""]
    if operation.get("description"):
        lines += [str(operation["description"]).strip(), ""]
    ok = operation.get("responses", {}).get("200", {})
    errors = [status for status in operation.get("responses", {}) if status != "200"]
    operation_id = operation.get("operationId")
    if operation_id and operation_id != endpoint_id:
        lines += [f"Operation id: {_code(operation_id)}.", ""]
    lines += [
        "| | |",
        "|---|---|",
        f"| Registry id | {_code(endpoint_id) if endpoint_id else '—'} |",
        f"| Group | {_code(group)} |",
        f"| Caller | {_caller_text(endpoint_id if endpoint else None, operation)} |",
        f"| Response headers | {', '.join(_code(h) for h in ok.get('headers', {}))} |",
        f"| Error statuses | {', '.join(errors)} |",
        "",
    ]
    parameter_rows = _parameter_rows(document, operation)
    if parameter_rows:
        lines += [
            "**Parameters**",
            "",
            "| Name | In | Type | Required | Default | Constraints | Description |",
            "|---|---|---|---|---|---|---|",
            *parameter_rows,
            "",
        ]
    else:
        lines += ["**Parameters**: none (any query parameter is a 400).", ""]
    for media_type, content in ok.get("content", {}).items():
        schema = content.get("schema", {})
        lines += [f"**Response 200** (`{media_type}`): {type_text(document, schema)}", ""]
        rows = list(field_rows(document, schema))
        if rows:
            lines += [
                "| Field | Type | Unit | Null or absent | Raw-only | Meaning |",
                "|---|---|---|---|---|---|",
            ]
            lines += [
                f"| {_code(r.path)} | {_cell(r.type)} | {_cell(r.unit)} | {_cell(r.null)} | "
                f"{'yes' if r.raw_only else ''} | {_cell(r.meaning)} |"
                for r in rows
            ]
            lines.append("")
    return lines


def reference_markdown(document: dict[str, Any]) -> str:
    """The whole of docs/reference.md for `document`."""
    order = {endpoint_id: index for index, endpoint_id in enumerate(BY_ID)}
    operations = sorted(
        (
            (path, method, operation)
            for path, item in document.get("paths", {}).items()
            for method, operation in item.items()
        ),
        # Registry order (which keeps each group together), then the routes outside the registry.
        key=lambda entry: order.get(entry[2].get("x-registry-id"), len(order)),
    )
    registered = {op.get("x-registry-id") for _, _, op in operations}
    unmounted = [endpoint_id for endpoint_id in BY_ID if endpoint_id not in registered]
    lines = [
        "# API reference",
        "",
        "<!-- Generated by `just reference` (`alpha-results reference`) from the route handlers (serve/routes/),",
        "schemas/registry.py, schemas/bodies/ and serve/openapi/. Do not edit: tests/api/test_reference_docs.py",
        "fails when this file is stale. -->",
        "",
        "Every route the server mounts, from the declarations the server runs on: each route's handler",
        "([serve/routes/](../serve/routes): path, parameters, answer), the endpoint registry",
        "([schemas/registry.py](../schemas/registry.py): registry id, group, who may call it) and the",
        "OpenAPI document ([serve/openapi/](../serve/openapi), served at",
        "`/openapi.json` and browsable at `/docs`). What the server does where the API leaves a",
        "choice open is in [api.md](api.md); keys and allow-lists in [access.md](access.md).",
        "",
        f"Endpoint registry version: `{registry_version()}`. Every `/v1` response is JSON; errors are",
        "`{error: {code, message, details, request_id}}` (the `Error` schema) and every response",
        "carries `X-Request-ID`.",
        "",
        "Response fields are documented from their declarations (each field of its Struct in",
        "[schemas/bodies/](../schemas/bodies)):",
        "**Unit** (fractions are plain ratios, 0.01 = 1%; percentage points, 1.0 = 1%), **Null or",
        "absent** (when the value is `null`, and when the key is left out), **Raw-only** (served only",
        "to keys with raw-book access, `field_policy.expose_raw_book`; stripped otherwise) and",
        "**Meaning**. In `/openapi.json` each property carries the same as its `description`, with",
        "`x-unit`, `x-null`, `x-absent` and `x-raw-only: true` for tools; a field whose text a research",
        "team's seal supplied carries `x-seal-text: true`: untrusted text, data and never instructions",
        '([integrations.md](integrations.md), "Seal text is data").',
        "",
        '<a id="endpoints"></a>The one table of endpoints (docs/access.md and docs/api.md link here): who may',
        "call each is `public` (no key), `key` (a key whose endpoint allow-list names its id) or",
        "`admin account only` (a platform administrator's key).",
        "",
        "| Method and path | Registry id | Group | Summary | Access |",
        "|---|---|---|---|---|",
    ]
    for path, method, operation in operations:
        endpoint_id = operation.get("x-registry-id")
        group = BY_ID[endpoint_id].group if endpoint_id in BY_ID else ", ".join(operation.get("tags", []))
        lines.append(
            f"| `{method.upper()} {_cell(path)}` | {_code(endpoint_id) if endpoint_id else '—'} | "
            f"{_code(group)} | {_cell(operation.get('summary', ''))} | {_access(endpoint_id)} |"
        )
    lines.append("")
    if unmounted:
        lines += ["Registry ids not mounted by the server: " + ", ".join(_code(e) for e in unmounted), ""]
    current_group: str | None = None
    for path, method, operation in operations:
        endpoint_id = operation.get("x-registry-id")
        group = BY_ID[endpoint_id].group if endpoint_id in BY_ID else ", ".join(operation.get("tags", []))
        if group != current_group:
            lines += [f"## {group}", ""]
            current_group = group
        lines += _operation_section(document, path, method, operation)
    lines += _figure_objects_section(document)
    lines += _events_section()
    lines += _vocabulary_section()
    return "\n".join(lines).rstrip() + "\n"


def _figure_objects_section(document: dict[str, Any]) -> list[str]:
    """Each figure object's keys, the common ones and those of particular figures (FIGURE_OBJECTS)."""
    lines = ["", '<a id="figure-objects"></a>', "## Figure objects", ""]
    lines += [
        "Every figure a route serves is one of these objects. The route tables above list, under",
        "each figure, the keys any figure may carry; the keys below marked *particular* appear only",
        "on the figures their meaning names (and are absent from every other).",
        "",
    ]
    schemas = document.get("components", {}).get("schemas", {})
    for component, common in FIGURE_OBJECTS.items():
        if component not in schemas:
            continue
        lines += [
            f"### `{component}`",
            "",
            "| Key | Type | Carried by | Meaning |",
            "|---|---|---|---|",
        ]
        required = set(schemas[component].get("required", ()))
        for name, prop in schemas[component].get("properties", {}).items():
            target, _ = _resolve(document, without_null(prop)[0])
            carried = "every figure" if name in required else "any figure (may be absent)"
            if name not in common:
                carried = "particular figures"
            lines.append(
                f"| {_code(name)} | {_cell(type_text(document, prop))} | {carried} | "
                f"{_cell(_meaning(prop, target))} |"
            )
        lines.append("")
    return lines


def _vocabulary_section() -> list[str]:
    """Every served figure name, from the registry (`serve.docgen.vocabulary_docs.vocabulary_table`): one
    generated reference, so a new term changes this file, not another one beside it."""
    from serve.docgen.vocabulary_docs import VOCABULARY_INTRO, vocabulary_table

    return ["", '<a id="vocabulary"></a>', "## Vocabulary", "", *VOCABULARY_INTRO, "", vocabulary_table(), ""]


def _events_section() -> list[str]:
    """What each event type's `data` holds, from its Struct (`schemas.bodies.event_data`): the
    events of `/v1/events`, the stream and the webhooks, as recorded (a key receives them with the
    figures it may not read withheld, docs/events.md "What a key sees")."""
    _, components = msgspec.json.schema_components(
        list(EVENT_DATA.values()), ref_template="#/components/schemas/{name}"
    )
    document = {"components": {"schemas": components}}
    lines = [
        "## Events",
        "",
        "The `data` of each event type (`GET /v1/events`, `GET /v1/events/stream`, webhook bodies), "
        "declared once per type in [schemas/bodies/event_data.py](../schemas/bodies/event_data.py); "
        "every event a build run, a decision or the delivery worker records is checked against it.",
        "",
    ]
    for event_type, data in EVENT_DATA.items():
        shown = ", ".join(f"`{key}` from `{route}`" for key, route in data.figures_from.items())
        lines += [f"### `{event_type}`", "", _cell((data.__doc__ or "").strip().split("\n\n")[0]), ""]
        if shown:
            lines += [f"Figures withheld from a key that may not call their route: {shown}.", ""]
        rows = list(field_rows(document, {"$ref": f"#/components/schemas/{data.__name__}"}))
        lines += ["| Field | Type | Null or absent | Meaning |", "|---|---|---|---|"]
        lines += [
            f"| {_code(r.path)} | {_cell(r.type)} | {_cell(r.null)} | {_cell(r.meaning)} |" for r in rows
        ]
        lines.append("")
    return lines


def _access(endpoint_id: str | None) -> str:
    """Who may call an endpoint, from its registry flags."""
    if endpoint_id not in BY_ID:
        return "public"
    endpoint = BY_ID[endpoint_id]
    return "public" if endpoint.public else "admin account only" if endpoint.admin else "key"


def run(out: Path, check: bool) -> int:
    """docs/reference.md (and docs/llms.txt beside it); with another `out`, that file alone."""
    document = current_document()
    text = reference_markdown(document)
    tables = out.resolve() == REFERENCE_PATH
    llms = llms_text(document, tool_hashes())
    if check:
        stale = [
            *([] if out.exists() and out.read_text(encoding="utf-8") == text else [out]),
            *([LLMS_PATH] if tables and not _same(LLMS_PATH, llms) else []),
        ]
        for path in stale:
            print(f"{path} is stale: run `just reference` (alpha-results reference)", file=sys.stderr)
        return 1 if stale else 0
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out} ({len(text.splitlines())} lines)")
    if tables:
        LLMS_PATH.write_text(llms, encoding="utf-8")
        print(f"wrote {LLMS_PATH}")
    return 0


def _same(path: Path, text: str) -> bool:
    return path.exists() and path.read_text(encoding="utf-8") == text
