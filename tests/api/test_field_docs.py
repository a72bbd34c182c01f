"""Every response field's meaning is declared once, on the field of its Struct (`doc`,
`schemas.bodies.formats`): the envelope (`Single`, `Collection`, `Series`), the shared components
(identity, errors, pagination, warnings, stat entries, health, administration, downloads), the
rows and `meta` (tests/api/test_row_structs.py) alike; the single-object bodies are documented by
their documentation blocks (tests/api/test_bodies.py). The served document carries each field's
meaning on its property (`description` composed with the unit, null, absence and raw-only
sentences; each rule in its `x-` key) and refuses a property without one."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Annotated, Any

import msgspec
import pytest

from schemas.bodies.base import Body, field_schemas
from schemas.bodies.envelope import Collection, EnvelopeMeta, Series, Single
from schemas.bodies.formats import doc
from serve import openapi
from serve.app import openapi_document
from serve.endpoints import endpoints
from serve.openapi import annotations
from serve.openapi.annotations import X_ABSENT, X_NULL, X_RAW_ONLY, X_UNIT, field_description
from serve.openapi.bodies import SHARED_BODIES
from serve.openapi.declared import struct_components
from serve.openapi.jsonschema import without_null
from tests.declared import DOCUMENTED

Field = tuple[str, str, dict[str, Any]]
"""(where: a component or an operation, field name, the property's schema)"""
RULES = (X_UNIT, X_NULL, X_ABSENT, X_RAW_ONLY)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi_document()


def _types(schema: dict[str, Any]) -> list[str]:
    """The schema's types; a Struct's `T | None`, written `anyOf: [T, null]`, has T's and null."""
    inner, null_arm = without_null(schema)
    declared = inner.get("type")
    types = [declared] if isinstance(declared, str) else list(declared or [])
    return [*types, "null"] if null_arm else types


def _walk(schema: dict[str, Any], where: str) -> Iterator[Field]:
    """Every property of an inline object schema, nested ones included (a route's `meta`); a
    `$ref` is walked once, from `components.schemas`."""
    for name, prop in schema.get("properties", {}).items():
        yield where, name, prop
        inner, _ = without_null(prop)
        target = inner.get("items", {}) if "array" in _types(inner) else inner
        if "$ref" not in target and target.get("properties"):
            yield from _walk(target, f"{where}.{name}")


def _structs(annotation: Any, found: dict[Any, None]) -> None:
    """Every Struct reachable from `annotation` (a generic one as it is parameterised)."""
    nodes = [msgspec.inspect.type_info(annotation)]
    while nodes:
        node = nodes.pop()
        if isinstance(node, msgspec.inspect.StructType):
            if node.cls in found:
                continue
            found[node.cls] = None
            nodes += [field.type for field in node.fields]
        for attribute in ("type", "item_type", "key_type", "value_type"):
            if isinstance(getattr(node, attribute, None), msgspec.inspect.Type):
                nodes.append(getattr(node, attribute))
        nodes += list(getattr(node, "types", ()))


def declared_structs() -> dict[str, type[msgspec.Struct]]:
    """The Struct of every shared component the document serves (the envelopes themselves are
    inlined into each route's 200 body), but the single-object bodies' (their documentation
    blocks describe them)."""
    found: dict[Any, None] = {}
    for answer in (*(e.answer for e in endpoints().values()), *SHARED_BODIES):  # `Error`: no route's 200
        _structs(answer, found)
    bodies = set(struct_components(DOCUMENTED))
    inlined = (Single, Collection, Series, EnvelopeMeta)  # `meta`: tests/api/test_row_structs.py
    return {
        cls.__name__: cls
        for cls in found
        if cls.__name__ not in bodies and (typing.get_origin(cls) or cls) not in inlined
    }


def served_fields(document: dict[str, Any]) -> list[Field]:
    """Every property of every response body the document declares: each operation's responses
    and the shared component schemas (not the bodies documented by their blocks)."""
    fields: list[Field] = []
    for item in document["paths"].values():
        for operation in item.values():
            for response in operation["responses"].values():
                for content in response.get("content", {}).values():
                    fields.extend(_walk(content["schema"], operation["operationId"]))
    for name, schema in field_components(document).items():
        fields.extend(_walk(schema, name))
    return fields


def field_components(document: dict[str, Any]) -> dict[str, Any]:
    """The shared components whose Structs declare each field's `doc`."""
    schemas: dict[str, Any] = document["components"]["schemas"]
    bodies = set(struct_components(DOCUMENTED))
    return {name: schema for name, schema in schemas.items() if name not in bodies}


def _all_properties(node: Any) -> int:
    """How many properties a JSON Schema tree declares, however it nests (an independent count)."""
    if isinstance(node, dict):
        properties = node.get("properties")
        own = len(properties) if isinstance(properties, dict) else 0
        under = [v for k, v in node.items() if k != "properties"]
        if isinstance(properties, dict):
            under += list(properties.values())
        return own + sum(_all_properties(v) for v in under)
    if isinstance(node, list):
        return sum(_all_properties(v) for v in node)
    return 0


def _composed(declared: dict[str, Any]) -> str:
    return field_description(
        str(declared["description"]),
        declared.get(X_UNIT),
        declared.get(X_NULL),
        declared.get(X_ABSENT),
        bool(declared.get(X_RAW_ONLY)),
    )


def test_the_walk_reaches_every_response_property(document: dict[str, Any]) -> None:
    responses = [
        response
        for item in document["paths"].values()
        for operation in item.values()
        for response in operation["responses"].values()
    ]
    expected = _all_properties(responses) + _all_properties(field_components(document))
    assert len(served_fields(document)) == expected


def test_every_served_response_field_has_a_meaning(document: dict[str, Any]) -> None:
    missing = sorted({(w, n) for w, n, prop in served_fields(document) if not prop.get("description")})
    assert not missing, f"response fields without a meaning: {missing}"


def test_every_shared_component_is_a_declared_struct(document: dict[str, Any]) -> None:
    assert set(field_components(document)) == set(declared_structs())


def test_every_component_property_carries_its_fields_doc(document: dict[str, Any]) -> None:
    """The description is the field's meaning composed with its rules, each rule in its `x-` key:
    nothing but the Struct says what a field means."""
    served = document["components"]["schemas"]
    checked = 0
    for name, cls in declared_structs().items():
        properties = served[name]["properties"]
        declared = field_schemas(cls)
        assert list(properties) == list(declared), name
        for field, rule in declared.items():
            assert rule.get("description"), f"{name}.{field} declares no `doc`"
            assert properties[field]["description"] == _composed(rule), (name, field)
            assert {k: properties[field].get(k) for k in RULES} == {k: rule.get(k) for k in RULES}, (
                name,
                field,
            )
            checked += 1
    assert checked >= 320  # every field of every shared component (326 today)


def test_the_envelope_declares_data_pagination_and_meta(document: dict[str, Any]) -> None:
    """Each route's 200 body: `data`, `pagination` and `meta` with the envelope Struct's `doc`,
    `data` with its body's own meaning where the body declares one (`Body.data_meaning`)."""
    declared = {cls: field_schemas(cls) for cls in (Single, Collection, Series)}
    by_id = {
        op["x-registry-id"]: op
        for item in document["paths"].values()
        for op in item.values()
        if "x-registry-id" in op
    }
    own = set()
    for e in endpoints().values():
        if not e.enveloped:
            continue
        body = by_id[e.id]["responses"]["200"]["content"]["application/json"]["schema"]
        envelope = declared[typing.get_origin(e.answer)]
        assert list(body["properties"]) == list(envelope), e.id
        for name, prop in body["properties"].items():
            meaning = _composed(envelope[name])
            if name == "data" and e.body is not None and e.body.data_meaning is not None:
                meaning = e.body.data_meaning
                own.add(e.id)
            assert prop["description"] == meaning, (e.id, name)
    assert own == {"catalog.alphas.get", "performance.metrics", "performance.metrics.doc"}


def test_a_documented_null_is_allowed_by_the_declared_type(document: dict[str, Any]) -> None:
    """A field saying when it is null needs a schema that admits null."""
    wrong = sorted(
        (w, n)
        for w, n, prop in served_fields(document)
        if prop.get(X_NULL) is not None and "$ref" not in prop and "null" not in _types(prop)
    )
    assert not wrong, wrong


def test_meanings_are_sentences() -> None:
    structs: list[type[msgspec.Struct]] = [*declared_structs().values(), Single, Collection, Series]
    for cls in structs:
        for field, rule in field_schemas(cls).items():
            meaning, null, absent = str(rule["description"]), rule.get(X_NULL), rule.get(X_ABSENT)
            assert meaning.strip() and meaning.rstrip("`").endswith((".", ")")), (cls.__name__, field)
            for text in (null, absent):
                assert text is None or (str(text)[0].isupper() and str(text).endswith(".")), (cls, field)
            assert null is None or str(null).startswith("Null"), (cls.__name__, field)
            assert rule.get(X_UNIT) is None or not str(rule[X_UNIT]).endswith("."), (cls.__name__, field)
    for body in DOCUMENTED:
        assert body.data_meaning is None or body.data_meaning.endswith("."), body


def test_the_document_refuses_a_response_field_without_a_meaning() -> None:
    responses = {
        "200": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "data": {
                                "type": "array",
                                "description": "The rows.",
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
        openapi.documented_responses(responses, "admin.builds.list")


class Undocumented(Body, kw_only=True, frozen=True):
    """A shared component one of whose fields has no `doc`."""

    said: Annotated[str, doc("A field with its meaning.")]
    unsaid: str


def test_the_document_refuses_a_struct_field_without_a_doc(monkeypatch: pytest.MonkeyPatch) -> None:
    shared = {"schemas": struct_components([Undocumented]), "headers": {}, "securitySchemes": {}}
    monkeypatch.setattr(annotations, "components", lambda: shared)
    with pytest.raises(KeyError, match="unsaid"):
        annotations.documented_components()
