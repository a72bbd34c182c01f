"""The meaning of every response property: each carries its `schemas.field_docs` entry, or for a
row or a `meta` key its Struct's `doc` (`schemas.bodies.rows`, `schemas.bodies.envelope`), as its
`description` and `x-` extensions (unit, when null, when absent, raw-only), and a property
without one is refused (`KeyError`), so no field is served undocumented. The bodies declared as Structs are documented by their
documentation blocks instead (`serve.openapi.declared`)."""

from __future__ import annotations

import json
import re
from typing import Any

from schemas import field_docs
from schemas.bodies.formats import X_ABSENT, X_NULL, X_RAW_ONLY, X_UNIT
from schemas.bodies.rows import DECLARED
from serve.openapi.bodies import META_NESTED, components
from serve.openapi.declared import body_components
from serve.openapi.jsonschema import without_null

RAW_ONLY_TEXT = (
    "Raw-only: served only to keys with raw-book access (`field_policy.expose_raw_book`); stripped otherwise."
)


def field_description(
    meaning: str, unit: str | None, null: str | None, absent: str | None, raw_only: bool
) -> str:
    """A property's `description`: the meaning, then its unit, when it is null, when it is
    absent, and whether it is raw-only (each also in its own `x-` extension)."""
    parts = [meaning] if meaning else []
    if unit:
        parts.append(f"Unit: {unit}.")
    parts += [text for text in (null, absent) if text]
    if raw_only:
        parts.append(RAW_ONLY_TEXT)
    return " ".join(parts)


def _field_annotations(doc: field_docs.FieldDoc) -> dict[str, Any]:
    annotations: dict[str, Any] = {
        "description": field_description(doc.meaning, doc.unit, doc.null, doc.absent, raw_only=False)
    }
    for key, value in ((X_UNIT, doc.unit), (X_NULL, doc.null), (X_ABSENT, doc.absent)):
        if value:
            annotations[key] = value
    return annotations


def class_name(context: str) -> str:
    """The `title` of an inline object: its context in CamelCase (`decision_row`: `DecisionRow`),
    the name a generated client gives its class."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[._\-\s]+", context) if part)


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    return [declared] if isinstance(declared, str) else list(declared or [])


def _nested_context(context: str, name: str, endpoint_id: str | None) -> str:
    """The `schemas.field_docs` context of the object held by property `name` of `context`."""
    if name == "data" and endpoint_id is not None:
        return field_docs.DATA_CONTEXTS[endpoint_id]
    return field_docs.NESTED_CONTEXTS[name]


def _document_properties(schema: dict[str, Any], context: str, endpoint_id: str | None) -> None:
    """Describe every property of an inline object schema, nested ones included, in place (a
    `$ref` is described where its component is)."""
    for name, prop in schema.get("properties", {}).items():
        doc = field_docs.field_doc(context, name)
        if doc is None:
            raise KeyError(f"response field {name!r} ({context}) has no entry in schemas.field_docs")
        prop.update(_field_annotations(doc))
        if name == "meta":  # its keys are declared with their meanings on `EnvelopeMeta`
            _compose(name, prop)
            continue
        inner, _ = without_null(prop)  # a Struct's `T | None` is `anyOf: [T, null]`
        target = inner.get("items", {}) if "array" in _types(inner) else inner
        if "$ref" not in target and target.get("properties"):
            nested = _nested_context(context, name, endpoint_id)
            target.setdefault("title", class_name(nested))
            _document_properties(target, nested, endpoint_id)


def documented_responses(responses: dict[str, Any], root: str, endpoint_id: str | None) -> dict[str, Any]:
    """A copy of `responses` whose body properties carry their `schemas.field_docs` entries
    (`root`: the context of the bodies' top level)."""
    out: dict[str, Any] = json.loads(json.dumps(responses))
    for response in out.values():
        for content in response.get("content", {}).values():
            _document_properties(content["schema"], root, endpoint_id)
    return out


def _compose(name: str, schema: dict[str, Any]) -> None:
    """An object declared by a Struct (a row, `meta`): each property's description composed from
    its `doc` (meaning, unit, null, absent, raw-only), as the `schemas.field_docs` entries are."""
    for field, prop in schema["properties"].items():
        if not prop.get("description"):
            raise KeyError(f"field {field!r} of {name} is declared without a `doc`")
        prop["description"] = field_description(
            prop["description"],
            prop.get(X_UNIT),
            prop.get(X_NULL),
            prop.get(X_ABSENT),
            bool(prop.get(X_RAW_ONLY)),
        )


_DECLARED_COMPONENTS = frozenset(body.__name__ for body in (*DECLARED, *META_NESTED))
"""The shared components whose Structs declare each field's `doc`."""


def documented_components() -> dict[str, Any]:
    """The shared components, each property with its `schemas.field_docs` entry, the rows' with
    their Structs' `doc`, and the body Structs' components, which carry their documentation
    block's meanings (`declared`)."""
    out: dict[str, Any] = json.loads(json.dumps(components()))
    for name, schema in out["schemas"].items():
        if name in _DECLARED_COMPONENTS:
            _compose(name, schema)
        else:
            _document_properties(schema, field_docs.COMPONENT_CONTEXTS[name], None)
    bodies = body_components()
    clashes = set(bodies) & set(out["schemas"])
    if clashes:
        raise ValueError(f"body Structs named like shared components: {sorted(clashes)}")
    out["schemas"] |= bodies
    return out
