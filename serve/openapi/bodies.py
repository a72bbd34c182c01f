"""The JSON Schemas of the response bodies: each route's rows or single object and its `meta` (read
from `schemas.bodies.envelope.EnvelopeMeta`), as the route declares them (`serve.endpoints`), the shared components the
operations reference (`components`), and `success`, a route's 200 response. Every row and body is
a `$ref` to the component msgspec writes from its Struct (`schemas.bodies`), so the document
cannot drift from what is served."""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec

from schemas import choices
from schemas.bodies.base import Body
from schemas.bodies.envelope import (
    SHARED,
    BenchmarkEcho,
    CorrelationMatrix,
)
from schemas.bodies.identity import KeyInventoryRow, Me
from schemas.bodies.rows import DECLARED
from schemas.bodies.service import Error, Health, Pagination, Warning
from serve.endpoints import endpoint, endpoints
from serve.openapi import statuses
from serve.openapi.declared import REF_TEMPLATE, documented, struct_components
from serve.openapi.statuses import HEADERS

SHARED_BODIES: tuple[type[Body], ...] = (Error, Pagination, Warning, Health)
"""The components every operation (or `meta`) may reference: the error envelope, `pagination`,
a `meta.warnings` entry, and the health body."""


META_NESTED: tuple[type[Body], ...] = (BenchmarkEcho, CorrelationMatrix)
"""The objects `meta` holds besides the window, the warnings, the summary and combine's weights,
shrinkage and figures (which are the contribution's Structs, components with the documented
bodies): components of their own."""


def _ref(body: type[Body]) -> dict[str, Any]:
    return {"$ref": REF_TEMPLATE.format(name=body.__name__)}


def _shared_schemas() -> dict[str, Any]:
    """The components of the Structs above and of every Struct they hold; the error envelope's
    `code` lists every code the server declares (`x-codes`), which only serve/ knows."""
    # `Me` and `KeyInventoryRow` first, the shared ones next: the order the components always had.
    first: list[type[Body]] = [Me, KeyInventoryRow, *SHARED_BODIES]
    declared = list(endpoints().values())
    bodies_documented = documented()
    others = [
        s
        for e in declared
        for s in (e.body, e.rows)
        if s is not None and s not in bodies_documented and s not in DECLARED
    ]
    schemas = struct_components([*first, *others, *DECLARED, *META_NESTED])
    schemas["ErrorBody"]["properties"]["code"][statuses.X_CODES] = statuses.error_codes()
    for e in declared:  # a row's path is the route's, named where it is served
        if e.rows in DECLARED:
            schemas[e.rows.__name__]["description"] = f"A row of `GET {e.openapi_path}` ({e.id})."
        if e.meta_summary is not None:
            schemas[e.meta_summary.__name__]["description"] = (
                f"`meta.summary` of `GET {e.openapi_path}` ({e.id}): figures over the whole window, before paging."
            )
    return schemas


@cache
def components() -> dict[str, Any]:
    """The shared components (built when the document is, once every handler has declared its path)."""
    return {
        "schemas": _shared_schemas(),
        "headers": HEADERS,
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    }


@cache
def _answers() -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """msgspec's schema of every enveloped route's answer (`Single[Risk]`, `Collection[DecisionRow]`,
    `Series[EquityRow, EquitySummary]`: `schemas.bodies.envelope`), by registry id, and the
    components they reference: written in one pass, once."""
    declared = [e for e in endpoints().values() if e.enveloped]
    refs, components = msgspec.json.schema_components([e.answer for e in declared], ref_template=REF_TEMPLATE)
    return {e.id: ref for e, ref in zip(declared, refs, strict=True)}, components


def _answer_schema(endpoint_id: str) -> dict[str, Any]:
    """A route's 200 JSON body: the schema of the answer its handler returns (each property with
    its envelope Struct's `doc`, and `data` with its body's `data_meaning` where it declares one),
    with a `meta` of the keys every answer may carry, `summary` on a series, and the keys the
    route's declaration lists, as `EnvelopeMeta` declares them."""
    declared = endpoint(endpoint_id)
    if not declared.enveloped:  # the health probe's body stands alone
        return _ref(declared.answer)
    refs, components = _answers()
    envelope = components[_name(refs[endpoint_id])]
    meta_ref = envelope["properties"]["meta"]
    meta = components[_name(meta_ref)]["properties"]
    names = [*SHARED, *(["summary"] if declared.meta_summary is not None else []), *declared.meta]
    properties = {
        **envelope["properties"],
        "meta": {
            "type": "object",
            "properties": {n: meta[n] for n in names},
            "description": meta_ref["description"],
        },
    }
    if declared.body is not None and declared.body.data_meaning is not None:
        properties["data"] = {**properties["data"], "description": declared.body.data_meaning}
    return {"type": "object", "required": envelope["required"], "properties": properties}


def _name(ref: dict[str, Any]) -> str:
    return str(ref["$ref"]).rsplit("/", 1)[-1]


def success(endpoint_id: str) -> dict[str, Any]:
    schema = _answer_schema(endpoint_id)
    content = {"application/json": {"schema": schema}}
    headers = statuses.response_headers(endpoint_id, "200")
    streamed = getattr(endpoint(endpoint_id).answer, "media_type", None)
    if streamed is not None:
        # A stream (text/event-stream) is text; its body Struct declares each message's `data:`.
        meaning = " ".join(str(endpoint(endpoint_id).answer.__doc__).split("\n\n")[0].split())
        stream = {"type": "string", "description": meaning}
        buffering = "`no`: a proxy that buffers answers (nginx) passes each event at once."
        headers |= {"X-Accel-Buffering": statuses.header(buffering, {"type": "string", "enum": ["no"]}, True)}
        return {
            "description": "OK",
            "headers": headers,
            "content": {streamed: {"schema": stream, "x-data": schema}},
        }
    if endpoint(endpoint_id).collection:
        headers |= statuses.headers(statuses.COLLECTION_HEADERS)
        content |= {
            media: {"schema": {"type": "string", "contentMediaType": media}}
            for name, media in choices.REPRESENTATIONS.items()
            if name != "json"
        }
    return {"description": "OK", "headers": headers, "content": content}
