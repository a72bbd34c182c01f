"""The JSON Schemas of the response bodies: each route's rows (`ROW_SCHEMAS`) or single object
(`SINGLE_SCHEMAS`), its `meta` (read from `schemas.bodies.envelope.EnvelopeMeta`; `SUMMARY_SCHEMAS`), the shared components the
operations reference (`COMPONENTS`), and `success`, a route's 200 response. Every row and body is
a `$ref` to the component msgspec writes from its Struct (`schemas.bodies`), so the document
cannot drift from what is served."""

from __future__ import annotations

import re
from typing import Any

from schemas import choices
from schemas.bodies import BODIES, Body
from schemas.bodies.admin import BuildRow, KeyUsage, Readiness
from schemas.bodies.downloads import ExportDownload, ExportRow, SourceDownload
from schemas.bodies.envelope import (
    SHARED,
    BenchmarkEcho,
    CombinedFigures,
    CorrelationMatrix,
    EnvelopeMeta,
    Shrinkage,
    WeightEntry,
)
from schemas.bodies.identity import KeyInventoryRow, Me
from schemas.bodies.rows import ROWS, SUMMARIES
from schemas.bodies.service import Error, Health, Pagination, StatEntry, Warning
from schemas.registry import BY_ID
from serve.openapi import statuses
from serve.openapi.declared import REF_TEMPLATE, struct_components
from serve.openapi.statuses import HEADERS

SINGLE_BODIES: dict[str, type[Body]] = {
    "meta.me": Me,
    "catalog.alphas.source.download": SourceDownload,
    "admin.alphas.readiness": Readiness,
    "admin.keys.usage": KeyUsage,
    "exports.download": ExportDownload,
}
"""The Struct of the `data` object of the single-object routes outside `schemas.bodies.BODIES`
(documented by `schemas.field_docs`, as the shared components are)."""
ROW_BODIES: dict[str, type[Body]] = {
    "meta.keys": KeyInventoryRow,
    "admin.builds.list": BuildRow,
    "exports.list": ExportRow,
}
"""The Struct of each row of the collections whose rows no `schemas.wire` field set types."""
SHARED_BODIES: tuple[type[Body], ...] = (Error, Pagination, Warning, StatEntry, Health)
"""The components every operation (or `meta`) may reference: the error envelope, `pagination`,
a `meta.warnings` entry, an analytics figure, and the health body."""


META_NESTED: tuple[type[Body], ...] = (
    BenchmarkEcho,
    Shrinkage,
    WeightEntry,
    CombinedFigures,
    CorrelationMatrix,
)
"""The objects `meta` holds besides the window, the warnings and the summary: components of their own."""


def _ref(body: type[Body]) -> dict[str, Any]:
    return {"$ref": REF_TEMPLATE.format(name=body.__name__)}


ROW_SCHEMAS: dict[str, dict[str, Any]] = {
    endpoint_id: _ref(body) for endpoint_id, body in (ROWS | ROW_BODIES).items()
}
SUMMARY_SCHEMAS: dict[str, dict[str, Any]] = {
    endpoint_id: _ref(body) for endpoint_id, body in SUMMARIES.items()
}
SINGLE_SCHEMAS: dict[str, dict[str, Any]] = {
    endpoint_id: _ref(body) for endpoint_id, body in SINGLE_BODIES.items()
}


def _shared_schemas() -> dict[str, Any]:
    """The components of the Structs above and of every Struct they hold; the error envelope's
    `code` lists every code the server declares (`x-codes`), which only serve/ knows."""
    # `Me` and `KeyInventoryRow` first, the shared ones next: the order the components always had.
    first: list[type[Body]] = [Me, KeyInventoryRow, *SHARED_BODIES]
    rows = [*ROWS.values(), *SUMMARIES.values()]
    schemas = struct_components([*first, *SINGLE_BODIES.values(), *ROW_BODIES.values(), *rows, *META_NESTED])
    schemas["ErrorBody"]["properties"]["code"][statuses.X_CODES] = statuses.error_codes()
    for endpoint_id, body in ROWS.items():  # the path is the route's, named where it is served
        schemas[body.__name__]["description"] = f"A row of `GET {_path(endpoint_id)}` ({endpoint_id})."
    for endpoint_id, body in SUMMARIES.items():
        schemas[body.__name__]["description"] = (
            f"`meta.summary` of `GET {_path(endpoint_id)}` ({endpoint_id}): figures over the whole window, "
            "before paging."
        )
    return schemas


def _path(endpoint_id: str) -> str:
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", BY_ID[endpoint_id].path)


COMPONENTS: dict[str, Any] = {
    "schemas": _shared_schemas(),
    "headers": HEADERS,
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
}


_META_FIELDS: dict[str, dict[str, Any]] = struct_components([EnvelopeMeta])["EnvelopeMeta"]["properties"]


def _meta_schema(endpoint_id: str) -> dict[str, Any]:
    """A route's `meta`: the keys every answer may carry, `summary` on the two series (typed by the
    route's summary Struct), and the keys its registry entry lists, as `EnvelopeMeta` declares
    them."""
    names = [*SHARED, *(["summary"] if endpoint_id in SUMMARY_SCHEMAS else []), *BY_ID[endpoint_id].meta]
    props = {name: dict(_META_FIELDS[name]) for name in names}
    if "summary" in props:
        described = {k: v for k, v in props["summary"].items() if k not in ("type", "additionalProperties")}
        props["summary"] = SUMMARY_SCHEMAS[endpoint_id] | described
    return {"type": "object", "properties": props}


def success(endpoint_id: str) -> dict[str, Any]:
    if endpoint_id == "meta.health":
        schema: dict[str, Any] = _ref(Health)
    elif endpoint_id in SINGLE_SCHEMAS or endpoint_id in BODIES:
        data = SINGLE_SCHEMAS.get(endpoint_id) or _ref(BODIES[endpoint_id])
        schema = {
            "type": "object",
            "required": ["data", "meta"],
            "properties": {"data": data, "meta": _meta_schema(endpoint_id)},
        }
    else:
        schema = {
            "type": "object",
            "required": ["data", "pagination", "meta"],
            "properties": {
                "data": {"type": "array", "items": ROW_SCHEMAS[endpoint_id]},
                "pagination": _ref(Pagination),
                "meta": _meta_schema(endpoint_id),
            },
        }
    content = {"application/json": {"schema": schema}}
    headers = statuses.response_headers(endpoint_id, "200")
    if BY_ID[endpoint_id].collection:
        headers |= statuses.headers(statuses.COLLECTION_HEADERS)
        content |= {
            media: {"schema": {"type": "string", "contentMediaType": media}}
            for name, media in choices.REPRESENTATIONS.items()
            if name != "json"
        }
    return {"description": "OK", "headers": headers, "content": content}
