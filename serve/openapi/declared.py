"""The bodies declared as Structs (`schemas.bodies`): their JSON Schemas, written by msgspec from
the Structs, and each property's meaning and unit taken from the documentation block that already
documents every path of the body (`/metrics/_doc`, `/analytics/_doc`), so neither is written twice.

A component reached from two paths (`core` and `periods[].core` share `CoreStats`) takes each
property's meaning from the first path that documents it, in the order the Structs declare their
fields; the documentation block keeps the per-path wording. A property the block does not list keeps its Struct's own `Meta` description.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import Any

import msgspec

from schemas.bodies.base import struct_info, structs_within
from schemas.bodies.figures import term_units
from serve.doc_blocks.analytics_doc import shared_analytics_doc
from serve.doc_blocks.metrics_doc import shared_metrics_doc
from serve.endpoints import endpoint, endpoints
from serve.openapi.jsonschema import without_null

REF_TEMPLATE = "#/components/schemas/{name}"
X_DOCUMENTED_BY = "x-documented-by"
"""On a body's top-level component: the registry id of the route whose `fields` document it."""

METRICS_DOC = "performance.metrics.doc"
ANALYTICS_DOC = "analytics.doc"


def _doc_blocks() -> dict[str, tuple[str, str]]:
    """The documentation route of each body a block documents, and the prefix of its paths in that
    route's `fields`: the metrics object in `/metrics/_doc` at the top, each analytics object in
    `/analytics/_doc` under its route's name (`risk.` for `analytics.risk`)."""
    blocks = {"performance.metrics": (METRICS_DOC, "")}
    for e in endpoints().values():
        if e.group == "analytics" and e.body is not None and e.id != ANALYTICS_DOC:
            blocks[e.id] = (ANALYTICS_DOC, e.id.removeprefix("analytics.") + ".")
    return blocks


def struct_components(structs: Iterable[type[msgspec.Struct]]) -> dict[str, Any]:
    """The JSON Schema of each of `structs` and of every Struct they hold, by class name, each
    reference written `#/components/schemas/{name}`: the one place the document's components are
    made from Structs (the bodies here; the shared components, serve.openapi.bodies)."""
    _, components = msgspec.json.schema_components(list(structs), ref_template=REF_TEMPLATE)
    for cls in held_structs(structs):
        for name, unit in term_units(cls).items():
            prop = components.get(cls.__name__, {}).get("properties", {}).get(name)
            if prop is not None and "x-unit" not in prop:
                prop["x-unit"] = unit  # a figure's unit is its term's (schemas.vocabulary)
    return components


def held_structs(structs: Iterable[type[msgspec.Struct]]) -> list[type[msgspec.Struct]]:
    """`structs` and every Struct they hold, each once."""
    return list(structs_within([struct_info(cls) for cls in structs]))


def _fields(doc_route: str) -> dict[str, dict[str, Any]]:
    block = shared_metrics_doc() if doc_route == METRICS_DOC else shared_analytics_doc()
    fields: dict[str, dict[str, Any]] = block["fields"]
    return fields


def component_name(endpoint_id: str) -> str:
    body = endpoint(endpoint_id).body
    if body is None:
        raise TypeError(f"{endpoint_id} declares no body")
    return body.__name__


def _target(components: dict[str, Any], prop: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The object schema a property holds (through `anyOf` with null, arrays and `$ref`) and
    whether it is an array's items."""
    node, _ = without_null(prop)
    array = node.get("type") == "array"
    if array:
        node = node.get("items", {})
    ref = node.get("$ref", "")
    name = ref.rsplit("/", 1)[-1] if ref else ""
    return (components[name] if name else node), array


def _describe(
    components: dict[str, Any],
    schema: dict[str, Any],
    prefix: str,
    fields: dict[str, dict[str, Any]],
) -> None:
    """Give each property of `schema` (at `prefix`) the meaning and unit of its path, unless an
    earlier path (or the Struct's own `Meta`) gave it one: the Structs hold no cycle."""
    for name, prop in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        entry = fields.get(path)
        if entry is not None:
            if "description" not in prop and entry.get("meaning"):
                prop["description"] = entry["meaning"]
            if entry.get("unit") and "x-unit" not in prop:
                prop["x-unit"] = entry["unit"]
        target, array = _target(components, prop)
        if target.get("properties"):
            _describe(components, target, f"{path}[]." if array else f"{path}.", fields)


def documented() -> list[type[msgspec.Struct]]:
    """The bodies a documentation block documents (`_doc_blocks`: the metrics object and every
    single-object analytics body) and the two blocks' own, read from the handlers' return types,
    so a new route's body is described without being listed anywhere."""
    ids = [*_doc_blocks(), METRICS_DOC, ANALYTICS_DOC]
    return [body for body in (endpoint(endpoint_id).body for endpoint_id in ids) if body is not None]


@cache
def _components() -> str:
    components = struct_components(documented())
    for endpoint_id, (doc_route, prefix) in _doc_blocks().items():
        name = component_name(endpoint_id)
        components[name][X_DOCUMENTED_BY] = doc_route
        _describe(components, components[name], prefix, _fields(doc_route))
    return json.dumps(components)


def body_components() -> dict[str, Any]:
    """The JSON Schema of every body Struct and of the Structs it holds, by component name (a
    fresh copy: the document's assembly annotates what it is given)."""
    components: dict[str, Any] = json.loads(_components())
    return components
