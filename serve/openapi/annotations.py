"""The meaning of every response property, as its Struct declares it on the field (`doc`,
`schemas.bodies.formats`): msgspec writes the meaning as the property's `description` and the
unit, when null, when absent and raw-only as its `x-` extensions, and here each `description` is
composed from them (`field_description`). A property without a meaning is refused (`KeyError`),
so no field is served undocumented. The bodies declared as Structs are documented by their
documentation blocks instead (`serve.openapi.declared`)."""

from __future__ import annotations

import json
from typing import Any

from schemas.bodies.formats import X_ABSENT, X_NULL, X_RAW_ONLY, X_UNIT
from serve.openapi.bodies import components
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


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    return [declared] if isinstance(declared, str) else list(declared or [])


def _compose(name: str, schema: dict[str, Any]) -> None:
    """Each property of an object schema, in place: its description composed from its field's
    `doc` (meaning, unit, null, absent, raw-only), and so for the properties of an inline object
    it holds (a route's `meta`); a `$ref` is composed where its component is."""
    for field, prop in schema.get("properties", {}).items():
        if not prop.get("description"):
            raise KeyError(f"field {field!r} of {name} is declared without a `doc`")
        prop["description"] = field_description(
            prop["description"],
            prop.get(X_UNIT),
            prop.get(X_NULL),
            prop.get(X_ABSENT),
            bool(prop.get(X_RAW_ONLY)),
        )
        inner, _ = without_null(prop)  # a Struct's `T | None` is `anyOf: [T, null]`
        target = inner.get("items", {}) if "array" in _types(inner) else inner
        if "$ref" not in target and target.get("properties"):
            _compose(f"{name}.{field}", target)


def documented_responses(responses: dict[str, Any], name: str) -> dict[str, Any]:
    """A copy of `responses` whose body properties carry their fields' meanings (`name`: the
    operation, for the error naming a property without one)."""
    out: dict[str, Any] = json.loads(json.dumps(responses))
    for response in out.values():
        for content in response.get("content", {}).values():
            _compose(name, content["schema"])
    return out


def documented_components() -> dict[str, Any]:
    """The shared components, each property with its field's meaning, and the body Structs'
    components, which carry their documentation block's meanings (`declared`)."""
    out: dict[str, Any] = json.loads(json.dumps(components()))
    for name, schema in out["schemas"].items():
        _compose(name, schema)
    bodies = body_components()
    clashes = set(bodies) & set(out["schemas"])
    if clashes:
        raise ValueError(f"body Structs named like shared components: {sorted(clashes)}")
    out["schemas"] |= bodies
    return out
