"""Every response field of the served OpenAPI document outside the Structs that declare their own
(the bodies, tests/api/test_bodies.py; the rows, tests/api/test_row_structs.py) has exactly one
entry in `schemas.field_docs`, every entry names a field something serves, and the document
carries each entry on its property (`description`, `x-unit`, `x-null`, `x-absent`, `x-raw-only`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from schemas import field_docs
from schemas.field_docs import FIELD_DOCS, field_doc
from serve import openapi
from serve.app import openapi_document
from serve.openapi.annotations import X_ABSENT, X_NULL, X_RAW_ONLY, X_UNIT, field_description
from serve.openapi.bodies import META_NESTED
from serve.openapi.jsonschema import without_null
from tests.declared import BODIES, ROWS, SUMMARIES

ROW_COMPONENTS = {body.__name__ for body in (*ROWS.values(), *SUMMARIES.values(), *META_NESTED)}
Field = tuple[str, str, dict[str, Any]]
"""(context, field name, the property's schema)"""


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi_document()


def _types(schema: dict[str, Any]) -> list[str]:
    """The schema's types; a Struct's `T | None`, written `anyOf: [T, null]`, has T's and null."""
    inner, null_arm = without_null(schema)
    declared = inner.get("type")
    types = [declared] if isinstance(declared, str) else list(declared or [])
    return [*types, "null"] if null_arm else types


def _child_context(context: str, name: str, endpoint_id: str | None) -> str:
    if name == "data" and endpoint_id is not None:
        return field_docs.DATA_CONTEXTS[endpoint_id]
    return field_docs.NESTED_CONTEXTS[name]


def _walk(schema: dict[str, Any], context: str, endpoint_id: str | None) -> Iterator[Field]:
    """Every property of an inline object schema, nested ones included; a `$ref` is walked once,
    from `components.schemas`."""
    for name, prop in schema.get("properties", {}).items():
        yield context, name, prop
        if name == "meta":  # its keys: `EnvelopeMeta` (tests/api/test_row_structs.py)
            continue
        inner, _ = without_null(prop)
        target = inner.get("items", {}) if "array" in _types(inner) else inner
        if "$ref" not in target and target.get("properties"):
            yield from _walk(target, _child_context(context, name, endpoint_id), endpoint_id)


def served_fields(document: dict[str, Any]) -> list[Field]:
    """Every property of every response body the document declares: each operation's responses
    (the context of their top level is the registry id) and the shared component schemas."""
    fields: list[Field] = []
    for item in document["paths"].values():
        for operation in item.values():
            endpoint_id = operation.get("x-registry-id")
            for response in operation["responses"].values():
                for content in response.get("content", {}).values():
                    root = endpoint_id or operation["operationId"]
                    fields.extend(_walk(content["schema"], root, endpoint_id))
    for name, schema in field_components(document).items():
        fields.extend(_walk(schema, field_docs.COMPONENT_CONTEXTS[name], None))
    return fields


def field_components(document: dict[str, Any]) -> dict[str, Any]:
    """The shared components documented by `schemas.field_docs`: all but the bodies declared as
    Structs (`schemas.bodies`), which their documentation blocks document (tests/api/test_bodies.py),
    and the rows, whose Structs declare each field's `doc` (tests/api/test_row_structs.py)."""
    body_components = set(msgspec.json.schema_components(list(BODIES.values()))[1]) | ROW_COMPONENTS
    schemas: dict[str, Any] = document["components"]["schemas"]
    return {name: schema for name, schema in schemas.items() if name not in body_components}


def _all_properties(node: Any) -> int:
    """How many properties a JSON Schema tree declares, however it nests (an independent count),
    but those under `meta`, which `EnvelopeMeta` declares."""
    if isinstance(node, dict):
        properties = node.get("properties")
        own = len(properties) if isinstance(properties, dict) else 0
        under = [v for k, v in node.items() if k != "properties"]
        if isinstance(properties, dict):
            under += [v for k, v in properties.items() if k != "meta"]
        return own + sum(_all_properties(v) for v in under)
    if isinstance(node, list):
        return sum(_all_properties(v) for v in node)
    return 0


def test_the_walk_reaches_every_response_property(document: dict[str, Any]) -> None:
    responses = [
        response
        for item in document["paths"].values()
        for operation in item.values()
        for response in operation["responses"].values()
    ]
    expected = _all_properties(responses) + _all_properties(field_components(document))
    assert len(served_fields(document)) == expected


def test_every_served_response_field_has_an_entry(document: dict[str, Any]) -> None:
    missing = sorted({(c, n) for c, n, _ in served_fields(document) if field_doc(c, n) is None})
    assert not missing, f"response fields without an entry in schemas/field_docs.py: {missing}"


def _entry_key(context: str, name: str) -> str | tuple[str, str]:
    return (context, name) if (context, name) in FIELD_DOCS else name


def test_every_entry_names_a_served_field(document: dict[str, Any]) -> None:
    used = {_entry_key(c, n) for c, n, _ in served_fields(document)}
    unused = sorted((k for k in FIELD_DOCS if k not in used), key=str)
    assert not unused, f"entries of schemas/field_docs.py that no response field uses: {unused}"


def test_every_context_is_declared_for_a_served_schema(document: dict[str, Any]) -> None:
    contexts = {c for c, _, _ in served_fields(document)}
    declared = {
        *field_docs.DATA_CONTEXTS.values(),
        *field_docs.COMPONENT_CONTEXTS.values(),
        *field_docs.NESTED_CONTEXTS.values(),
    }
    keyed = {k[0] for k in FIELD_DOCS if isinstance(k, tuple)}
    assert keyed <= contexts | declared, sorted(keyed - contexts - declared)
    assert set(field_docs.COMPONENT_CONTEXTS) == set(field_components(document))


def test_a_documented_null_is_allowed_by_the_declared_type(document: dict[str, Any]) -> None:
    """An entry saying when a field is null needs a schema that admits null."""
    wrong = sorted(
        (c, n)
        for c, n, prop in served_fields(document)
        if (doc := field_doc(c, n)) is not None
        and doc.null is not None
        and "$ref" not in prop
        and "null" not in _types(prop)
    )
    assert not wrong, wrong


def test_entries_are_sentences() -> None:
    for key, doc in FIELD_DOCS.items():
        assert doc.meaning.strip() and doc.meaning.rstrip("`").endswith((".", ")")), key
        for text in (doc.null, doc.absent):
            assert text is None or (text[0].isupper() and text.endswith(".")), key
        assert doc.null is None or doc.null.startswith("Null"), key
        assert doc.unit is None or not doc.unit.endswith("."), key


def test_every_response_property_carries_its_entry(document: dict[str, Any]) -> None:
    for context, name, prop in served_fields(document):
        doc = field_doc(context, name)
        assert doc is not None
        expected = field_description(doc.meaning, doc.unit, doc.null, doc.absent, raw_only=False)
        assert prop.get("description") == expected, (context, name)
        assert (prop.get(X_UNIT), prop.get(X_NULL), prop.get(X_ABSENT)) == (doc.unit, doc.null, doc.absent)
        assert X_RAW_ONLY not in prop, (context, name)  # raw-only fields are row fields
        if doc.unit:
            assert f"Unit: {doc.unit}." in prop["description"]


def test_the_document_refuses_a_response_field_without_an_entry() -> None:
    responses = {
        "200": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "data": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {"undocumented": {"type": "string"}},
                                },
                            }
                        },
                    }
                }
            }
        }
    }
    with pytest.raises(KeyError, match="undocumented"):
        openapi.documented_responses(responses, "admin.builds.list", "admin.builds.list")
