"""The OpenAPI 3.1 document served at `/openapi.json` and `/schema/openapi.json` (outside `/v1`).

Litestar generates it from the mounted route handlers (paths, path parameters, operation ids,
operations), and `DeclaredOperation`, its `operation_class`, completes each operation from the
registry entry the handler was mounted from: the query parameters its `schemas.query` Struct
declares, the wire field sets of its bodies (`schemas.wire`, typed from `schemas.lake`), its
`meta` keys and summary, so the document cannot drift from what is served. Every response property carries its entry of `schemas.field_docs` (meaning, unit, when
null or absent, raw-only), and the document refuses a property without one. Each operation
declares only the statuses its route can answer, and the response headers
the app sets (`X-Request-ID` and `X-Content-Type-Options` always; `X-RateLimit-*` on metered routes; `Retry-After` on 429;
`WWW-Authenticate` on 401). The signed archive download route outside `/v1` is declared too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from litestar.datastructures import ResponseHeader
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, OpenAPI, Operation, Parameter, PathItem
from litestar.router import Router

from datasets.layout import ALPHA_ID_PATTERN
from schemas import choices, exports, field_docs, wire
from schemas.query import Param
from schemas.registry import BY_ID, ENDPOINTS, REGISTRY_VERSION
from serve import exports as exports_wire
from serve.archives import (
    DOWNLOAD_ROUTE_PREFIX,
    EXPIRES_PATTERN,
    HOLDER_PATTERN,
    SHA256_HEX_PATTERN,
    SIGNATURE_PATTERN,
)

ERROR_STATUSES = {
    "400": "Invalid parameters (bad_request, unknown_book)",
    "401": "Missing, malformed or unusable API key",
    "403": "Not allowed (account, IP, endpoint, alpha or run allow-list)",
    "404": "The addressed resource does not exist",
    "408": "The request head did not arrive whole in time (request_head_timeout); the connection is closed",
    "414": "The request target (path and query string) is longer than the server reads "
    "(request_target_too_long, 8,192 bytes by default); the connection is closed",
    "406": "A collection route was asked (Accept) for no representation it offers (not_acceptable; "
    "error.details.offered lists them)",
    "429": "Rate limit or monthly quota exceeded",
    "431": "The request head is larger than the server reads (request_head_too_large, 64 KiB by default); "
    "the connection is closed",
    "500": "Unhandled failure (no detail in the body)",
    "503": "A backend (key store, lake, market data, object store) is temporarily unreachable or not configured, "
    "or the server process holds as many connections as it accepts (too_many_connections, with Retry-After)",
}
"""Every error status a `/v1` route may answer; `error_statuses` picks those of one route."""

CONNECTION_STATUSES = frozenset({"400", "408", "414", "431", "503"})
"""What the server answers on any route before a request reaches the app
(`serve.http_protocol`): a head it cannot parse, too slow, too long or too large, and a connection
over the per-worker cap."""

NOT_FOUND_ENDPOINTS = frozenset({"admin.keys.usage", "analytics.screen"})
"""Routes answering 404 besides those addressing an alpha (`{alpha}` in the path): the screener's
`correlated_to` names an alpha."""


def error_statuses(endpoint_id: str) -> tuple[str, ...]:
    """The error statuses of one `/v1` route. Every route rejects unknown parameters (400), may
    fail unexpectedly (500) and may meet the connection refusals (`CONNECTION_STATUSES`: 408, 414,
    431, 503), `/v1/health` included, which otherwise answers 200 even when a backend is down.
    Keyed routes also authenticate (401), check allow-lists (403), meter (429) and read the key
    store (503). 404 belongs to routes that address something that may not exist."""
    endpoint = BY_ID[endpoint_id]
    statuses = {"400", "500", *CONNECTION_STATUSES}
    if not endpoint.public:
        statuses |= {"401", "403", "429", "503"}
    if "{alpha" in endpoint.path or endpoint_id in NOT_FOUND_ENDPOINTS:
        statuses.add("404")
    if endpoint.collection:
        statuses.add("406")
    return tuple(sorted(statuses))


def _header(description: str, schema: dict[str, Any], required: bool = False) -> dict[str, Any]:
    return {"description": description, "required": required, "schema": schema}


_INTEGER = {"type": "integer", "minimum": 0}
RATE_LIMIT_HEADERS = ("Limit", "Remaining", "Used", "Reset", "Window")
HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": _header("Id of this request; quote it to support.", {"type": "string"}, True),
    "X-Content-Type-Options": _header(
        "`nosniff`, on every answer: no body is to be read as another type than it says.",
        {"type": "string", "enum": ["nosniff"]},
        True,
    ),
    "X-RateLimit-Limit": _header("Limit of the binding window.", _INTEGER),
    "X-RateLimit-Remaining": _header("Requests left in the binding window.", _INTEGER),
    "X-RateLimit-Used": _header("Requests counted in the binding window.", _INTEGER),
    "X-RateLimit-Reset": _header("Epoch second at which the binding window resets.", _INTEGER),
    "X-RateLimit-Window": _header(
        "The binding window.", {"type": "string", "enum": ["second", "minute", "day", "month"]}
    ),
    "Retry-After": _header("Seconds until the exhausted window allows a request.", _INTEGER, True),
    "WWW-Authenticate": _header("`Bearer`, when no key was presented (missing_api_key).", {"type": "string"}),
    "Link": _header(
        'RFC 8288 links to the next and previous pages (`rel="next"`, `rel="prev"`), in the same '
        "representation; absent on a single page.",
        {"type": "string"},
    ),
    "X-Total-Count": _header(
        "Rows in the whole window (`pagination.total`); on every representation but JSON.", _INTEGER
    ),
    "X-Pagination": _header(
        "The envelope's `pagination` object as ASCII JSON; on every representation but JSON.",
        {"type": "string"},
    ),
    "X-Meta": _header(
        "The envelope's `meta` object as ASCII JSON; on every representation but JSON.", {"type": "string"}
    ),
    "X-Warnings": _header(
        "`meta.warnings` as an ASCII JSON array, when a block degraded; on every representation but JSON.",
        {"type": "string"},
    ),
}
"""Response headers, referenced from each response (`components.headers`)."""


EVERY_ANSWER = ("X-Request-ID", "X-Content-Type-Options")
"""The headers every answer carries, whatever its route and status."""


def _headers(names: Sequence[str], required: Sequence[str] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name in required:
            out[name] = {**HEADERS[name], "required": True}
        else:
            out[name] = {"$ref": f"#/components/headers/{name}"}
    return out


def _response_headers(endpoint_id: str, status: str) -> dict[str, Any]:
    """Metered routes carry the `X-RateLimit-*` headers once the request was counted (from the
    limiter's decision on; not on 401 nor before the limiter ran, and never while it is down)."""
    names = [*EVERY_ANSWER]
    metered = not BY_ID[endpoint_id].public
    if metered and status != "401":
        names += [f"X-RateLimit-{part}" for part in RATE_LIMIT_HEADERS]
    if status == "429":
        names.append("Retry-After")
        return _headers(names, required=[*names])
    if status == "401":
        names.append("WWW-Authenticate")
    return _headers(names)


_NUMBER = {"type": ["number", "null"]}
_DATE = {"type": "string", "format": "date"}


def _arrow_schema(dtype: pa.DataType) -> dict[str, Any]:
    if pa.types.is_timestamp(dtype):
        return {"type": ["string", "null"], "format": "date-time"}
    if pa.types.is_date(dtype):
        return {"type": ["string", "null"], "format": "date"}
    if pa.types.is_boolean(dtype):
        return {"type": ["boolean", "null"]}
    if pa.types.is_integer(dtype):
        return {"type": ["integer", "null"]}
    if pa.types.is_floating(dtype):
        return _NUMBER
    if pa.types.is_list(dtype):
        return {"type": ["array", "null"], "items": {"type": "string"}}
    return {"type": ["string", "null"]}


def _row(fields: tuple[str, ...], overrides: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    overrides = overrides or {}
    props = {f: overrides.get(f) or _arrow_schema(wire.wire_type(f)) for f in fields}
    return {"type": "object", "properties": props}


_SERIES_ROW = {"date": _DATE}
# Types no lake column gives; every other field is typed from the lake or wire.COMPUTED_FIELD_TYPES.
_ROW_TYPES: dict[str, dict[str, dict[str, Any]]] = {
    "catalog.alphas.list": {"alpha_id": {"type": "string"}, "name": {"type": "string"}},
    "analytics.screen": {
        "alpha_id": {"type": "string"},
        "name": {"type": "string"},
        "complete": {"type": "boolean"},
        "production": {"type": "boolean"},
        "sessions": {"type": "integer"},
        "weeks": {"type": "integer"},
    },
    "portfolio.trades": {"decision_at": _DATE},
    "portfolio.equity_curve": _SERIES_ROW,
    "benchmarks.daily": _SERIES_ROW,
}
_SUMMARY_TYPES: dict[str, dict[str, dict[str, Any]]] = {
    "portfolio.equity_curve": {"book": {"type": "string"}},
    "benchmarks.daily": {"symbol": {"type": "string"}},
}
ROW_SCHEMAS: dict[str, dict[str, Any]] = {
    e.id: _row(fields, _ROW_TYPES.get(e.id)) for e in ENDPOINTS if (fields := e.row_fields) is not None
}
SUMMARIES = {
    e.id: _row(fields, _SUMMARY_TYPES.get(e.id))
    for e in ENDPOINTS
    if (fields := e.summary_field_names) is not None
}

_ALLOW_LIST = {
    "type": "object",
    "required": ["mode"],
    "properties": {
        "mode": {"type": "string", "enum": ["all", "list", "prefix"]},
        "ids": {"type": "array", "items": {"type": "string"}},
        "prefixes": {"type": "array", "items": {"type": "string"}},
    },
}
_ALLOW = {
    "type": "object",
    "required": ["endpoints", "alphas", "runs"],
    "properties": {"endpoints": _ALLOW_LIST, "alphas": _ALLOW_LIST, "runs": _ALLOW_LIST},
}
_COUNT = {"type": "integer", "minimum": 0}
_RATE_LIMIT = {
    "type": "object",
    "required": ["per_second", "per_minute", "per_day", "monthly_requests"],
    "properties": {
        "per_second": _COUNT,
        "per_minute": _COUNT,
        "per_day": _COUNT,
        "monthly_requests": {"type": ["integer", "null"], "minimum": 0},
    },
}
_USAGE_FIELDS = ("second", "minute", "day", "month")
_USAGE = {
    "type": "object",
    "required": [*_USAGE_FIELDS, *(f"remaining_{w}" for w in _USAGE_FIELDS)],
    "properties": {
        **{w: _COUNT for w in _USAGE_FIELDS},
        **{f"remaining_{w}": _COUNT for w in ("second", "minute", "day")},
        "remaining_month": {"type": ["integer", "null"], "minimum": 0},
    },
}
_FIELD_POLICY = {
    "type": "object",
    "required": ["expose_raw_book"],
    "properties": {"expose_raw_book": {"type": "boolean"}},
}


def _every_field_required(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": list(properties), "properties": properties}


IDENTITY_SCHEMAS: dict[str, Any] = {
    "Me": _every_field_required(
        {
            "key_id": {"type": "string", "minLength": 16, "maxLength": 16},
            "key_name": {"type": "string"},
            "user_id": {"type": "string"},
            "email": {"type": "string", "format": "email"},
            "role": {"type": "string", "enum": ["admin", "member"]},
            "is_admin": {"type": "boolean"},
            "allow": _ALLOW,
            "field_policy": _FIELD_POLICY,
            "rate_limit": _RATE_LIMIT,
            "usage": _USAGE,
            "callable_endpoints": {"type": "array", "items": {"type": "string"}},
            "registry_version": {"type": "string"},
            "ip": {"type": "string"},
        }
    ),
    "KeyInventoryRow": _every_field_required(
        {
            "key_id": {"type": "string", "minLength": 16, "maxLength": 16},
            "display_prefix": {"type": "string"},
            "name": {"type": "string"},
            "status": {"type": "string", "enum": ["active", "suspended"]},
            "allow": _ALLOW,
            "field_policy": _FIELD_POLICY,
            "rate_limit": _RATE_LIMIT,
            "usage": _USAGE,
            "expires_at": {"type": ["string", "null"], "format": "date-time"},
            "created_at": {"type": "string", "format": "date-time"},
        }
    ),
}
"""`/v1/me` data and `/v1/me/keys` rows (serve.identity.payloads); never a secret or its hash."""

ROW_SCHEMAS["meta.keys"] = {"$ref": "#/components/schemas/KeyInventoryRow"}
SINGLE_SCHEMAS: dict[str, dict[str, Any]] = {"meta.me": {"$ref": "#/components/schemas/Me"}}

_STRING_OR_NULL = {"type": ["string", "null"]}
SINGLE_SCHEMAS["catalog.alphas.source.download"] = {
    "type": "object",
    "required": ["url", "expires_in", "filename", "size_bytes", "sha256"],
    "properties": {
        "url": {"type": "string", "format": "uri"},
        "expires_in": {"type": "integer"},
        "filename": {"type": "string"},
        "size_bytes": {"type": ["integer", "null"]},
        "sha256": _STRING_OR_NULL,
    },
}
SINGLE_SCHEMAS["admin.alphas.readiness"] = {
    "type": "object",
    "properties": {
        "alpha_id": {"type": "string"},
        "complete": {"type": "boolean"},
        "kinds_present": {"type": "array", "items": {"type": "string"}},
        "required_kinds": {"type": "array", "items": {"type": "string"}},
        "missing_kinds": {"type": "array", "items": {"type": "string"}},
        "build_id": {"type": "string"},
        "pipeline_version": _STRING_OR_NULL,
        "engine_version": _STRING_OR_NULL,
        "built_at": _STRING_OR_NULL,
        "sealed_at": _STRING_OR_NULL,
        "started_at": _STRING_OR_NULL,
        "has_description": {"type": "boolean"},
        "source_archive": {"type": ["object", "null"]},
        "tables": {"type": "object"},
    },
}
SINGLE_SCHEMAS["admin.keys.usage"] = {
    "type": "object",
    "properties": {
        "key_id": {"type": "string"},
        "user_id": {"type": "string"},
        "name": {"type": "string"},
        "status": {"type": "string"},
        "revoked": {"type": "boolean"},
        "expires_at": _STRING_OR_NULL,
        "rate_limit": _RATE_LIMIT,
        "usage": _USAGE,
    },
}
ROW_SCHEMAS["admin.builds.list"] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["alpha", "benchmark"]},
        "name": {"type": "string"},
        "build_id": {"type": "string"},
        "current": {"type": "boolean"},
        "built_at": _STRING_OR_NULL,
        "sealed_at": _STRING_OR_NULL,
        "pipeline_version": _STRING_OR_NULL,
        "complete": {"type": ["boolean", "null"]},
        "rows": {"type": ["integer", "null"]},
        "bytes": {"type": ["integer", "null"]},
        "first_date": {"type": ["string", "null"], "format": "date"},
        "last_date": {"type": ["string", "null"], "format": "date"},
    },
}

_EXPORT_FILE = {
    "filename": {"type": "string"},
    "size_bytes": {"type": "integer", "minimum": 0},
    "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    "rows": {"type": "integer", "minimum": 0},
    "columns": {"type": "array", "items": {"type": "string"}},
    "build": {"type": "string"},
}
ROW_SCHEMAS["exports.list"] = _every_field_required(
    {
        "dataset": {"type": "string", "enum": list(exports.DATASET_NAMES)},
        "book": {"type": ["string", "null"]},
        **_EXPORT_FILE,
    }
)
SINGLE_SCHEMAS["exports.download"] = _every_field_required(
    {"url": {"type": "string", "format": "uri"}, "expires_in": {"type": "integer"}, **_EXPORT_FILE}
)
"""The Parquet exports (serve/routes/exports.py): a listing row and the signed download."""

COMPONENTS: dict[str, Any] = {
    "schemas": {
        **IDENTITY_SCHEMAS,
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["code", "message", "details", "request_id"],
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "details": {"type": "object"},
                        "request_id": {"type": "string"},
                    },
                }
            },
        },
        "Pagination": {
            "type": "object",
            "required": ["limit", "offset", "returned", "total", "has_more"],
            "properties": {
                "limit": {"type": "integer"},
                "offset": {"type": "integer"},
                "returned": {"type": "integer"},
                "total": {"type": "integer"},
                "has_more": {"type": "boolean"},
            },
        },
        "Warning": {
            "type": "object",
            "required": ["code"],
            "properties": {
                "code": {"type": "string", "enum": list(wire.WARNING_CODES)},
                "block": {"type": "string"},
                "kind": {"type": "string"},
                "message": {"type": "string"},
            },
        },
        "StatEntry": {
            "type": "object",
            "description": "An analytics figure in the `/metrics` stat-entry shape (docs/analytics.md).",
            "required": ["value", "unit", "status", "source", "annualisation"],
            "properties": {
                "value": {"type": ["number", "null"]},
                "unit": {"type": ["string", "null"]},
                "status": {"type": "string", "enum": ["available", "not_measurable"]},
                "source": {"type": "string"},
                "annualisation": {"type": "string", "enum": ["annualised", "per_period", "not_annualisable"]},
                "withheld_reason": {"type": "string"},
                "periods_per_year": {"type": "integer"},
                "approximation": {"type": "string"},
            },
        },
        "Health": {
            "type": "object",
            "required": ["status", "service", "environment", "version", "registry_version", "time"],
            "properties": {
                "status": {"type": "string", "enum": ["ok", "degraded"]},
                "service": {"type": "string"},
                "environment": {"type": "string"},
                "version": {"type": "string"},
                "registry_version": {"type": "string"},
                "time": {"type": "string", "format": "date-time"},
                "down": {"type": "array", "items": {"type": "string"}},
                "lake": {
                    "type": "object",
                    "required": ["degraded_alphas"],
                    "properties": {
                        "degraded_alphas": {"type": "object", "additionalProperties": {"type": "string"}}
                    },
                },
                "worker": {"type": "string"},
            },
        },
    },
    "headers": HEADERS,
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
}


def _param_schema(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = (
        {"type": "string", "format": "date"} if param.type == "date" else {"type": param.type}
    )
    if param.default is not None:
        schema["default"] = param.default
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    if param.enum is not None:
        schema["enum"] = list(param.enum)
    if param.pattern is not None:
        schema["pattern"] = param.pattern
    if param.max_length is not None:
        schema["maxLength"] = param.max_length
    return schema


_NULLABLE_DATE = {"type": ["string", "null"], "format": "date"}
COMBINED_FIGURES = (
    "information_ratio",
    "excess_sharpe",
    "max_drawdown_pct",
    "annualised_return",
    "volatility",
    "turnover",
    "diversification_ratio",
)
"""The figures of `/analytics/combine` `meta.figures` (docs/analytics.md, Combination)."""

META_TYPES: dict[str, dict[str, Any]] = {
    "key_id": {"type": "string"},
    "date": _DATE,
    "week_status": _arrow_schema(wire.wire_type("week_status")),
    "n_symbols": _arrow_schema(wire.wire_type("n_symbols")),
    "fields": {"type": "string", "enum": list(choices.SCORE_FIELDS_CHOICES)},
    "symbol": {"type": "string"},
    "basis": {"type": "string", "enum": list(choices.CORRELATION_BASES)},
    "window_weeks": {"type": "integer", "enum": [int(w) for w in choices.ROLLING_WINDOWS]},
    "signal": {"type": "string", "enum": ["conditioned", "raw"]},
    "window": {
        "type": "object",
        "required": ["from", "to"],
        "properties": {"from": _NULLABLE_DATE, "to": _NULLABLE_DATE},
    },
    "benchmark": {
        "type": ["object", "null"],
        "required": ["symbol", "basis"],
        "properties": {"symbol": {"type": "string"}, "basis": {"type": "string"}},
    },
    "alphas": {"type": "array", "items": {"type": "string"}},
    "with_source": {"type": "string"},
    "weighting": {"type": "string", "enum": list(choices.WEIGHTINGS)},
    "shrinkage": {
        "type": ["object", "null"],
        "required": ["value", "source"],
        "properties": {
            "value": {"type": "number"},
            "source": {"type": "string", "enum": ["ledoit_wolf", "given"]},
        },
    },
    "weights": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["alpha", "weight"],
            "properties": {"alpha": {"type": "string"}, "weight": {"type": "number"}},
        },
    },
    "sessions": {"type": "integer"},
    "session_rule": {"type": "string"},
    "figures": {
        "type": "object",
        "required": list(COMBINED_FIGURES),
        "properties": {name: {"$ref": "#/components/schemas/StatEntry"} for name in COMBINED_FIGURES},
    },
    "correlation": {
        "type": "object",
        "required": ["alphas", "matrix"],
        "properties": {
            "alphas": {"type": "array", "items": {"type": "string"}},
            "matrix": {"type": "array", "items": {"type": "array", "items": {"type": ["number", "null"]}}},
        },
    },
}
"""The types of the `meta` keys a registry entry may echo (`Endpoint.meta`)."""


def _meta_schema(endpoint_id: str) -> dict[str, Any]:
    props: dict[str, Any] = {
        "run": {"type": "string"},
        "alpha_id": {"type": "string"},
        "source_alpha_id": {"type": "string"},
        "book": {"type": "string"},
        "request_id": {"type": "string"},
        "generated_at": {"type": "string", "format": "date-time"},
        "source": {"type": "string"},
        "warnings": {"type": "array", "items": {"$ref": "#/components/schemas/Warning"}},
    }
    if endpoint_id in SUMMARIES:
        props["summary"] = SUMMARIES[endpoint_id]
    props.update({name: META_TYPES[name] for name in BY_ID[endpoint_id].meta})
    return {"type": "object", "properties": props}


def _success(endpoint_id: str) -> dict[str, Any]:
    if endpoint_id == "meta.health":
        schema: dict[str, Any] = {"$ref": "#/components/schemas/Health"}
    elif endpoint_id == "catalog.alphas.get":
        schema = {
            "type": "object",
            "required": ["data", "meta"],
            "properties": {"data": {"type": "object"}, "meta": _meta_schema(endpoint_id)},
        }
    elif endpoint_id in SINGLE_SCHEMAS or endpoint_id not in ROW_SCHEMAS:
        # A single object; one without a declared schema (the metrics blocks) is an open object.
        schema = {
            "type": "object",
            "required": ["data", "meta"],
            "properties": {
                "data": SINGLE_SCHEMAS.get(endpoint_id, {"type": "object"}),
                "meta": _meta_schema(endpoint_id),
            },
        }
    else:
        schema = {
            "type": "object",
            "required": ["data", "pagination", "meta"],
            "properties": {
                "data": {"type": "array", "items": ROW_SCHEMAS[endpoint_id]},
                "pagination": {"$ref": "#/components/schemas/Pagination"},
                "meta": _meta_schema(endpoint_id),
            },
        }
    content = {"application/json": {"schema": schema}}
    headers = _response_headers(endpoint_id, "200")
    if BY_ID[endpoint_id].collection:
        headers |= _headers(COLLECTION_HEADERS)
        content |= {
            media: {"schema": {"type": "string", "contentMediaType": media}}
            for name, media in choices.REPRESENTATIONS.items()
            if name != "json"
        }
    return {"description": "OK", "headers": headers, "content": content}


COLLECTION_HEADERS = ("Link", "X-Total-Count", "X-Pagination", "X-Meta", "X-Warnings")
"""What a collection's 200 carries besides the envelope (`serve.representation`)."""


PATH_PARAMS: dict[str, dict[str, Any]] = {
    "date": _DATE,
    "symbol": {"type": "string", "enum": list(wire.BENCHMARK_SYMBOLS)},
}
"""Path parameters narrower than a string: a rebalance `{date}` is YYYY-MM-DD (else 400) and a
benchmark `{symbol}` one of the served symbols (else 400 with the list); others are any string."""


def _query_parameters(endpoint_id: str) -> list[dict[str, Any]]:
    return [
        {
            "name": param.name,
            "in": "query",
            "required": param.required,
            "description": param.description,
            "schema": _param_schema(param),
        }
        for param in BY_ID[endpoint_id].params
    ]


def _responses(endpoint_id: str) -> dict[str, Any]:
    """Every status the route may answer, with the headers the app sets and its documented bodies."""
    responses: dict[str, Any] = {"200": _success(endpoint_id)}
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for status in error_statuses(endpoint_id):
        responses[status] = {
            "description": ERROR_STATUSES[status],
            "headers": _response_headers(endpoint_id, status),
            "content": error_ref,
        }
    return documented_responses(responses, endpoint_id, endpoint_id)


def anchored(pattern: re.Pattern[str]) -> str:
    """A declared pattern (matched whole with `fullmatch`) as a JSON Schema `pattern`, which
    searches: anchored at both ends."""
    return f"^(?:{pattern.pattern})$"


DOWNLOAD_PATH = f"{DOWNLOAD_ROUTE_PREFIX}/archives/{{alpha_id}}/{{sha256}}.zip"


def _download_operation() -> dict[str, Any]:
    """`serve.routes.downloads`: the archive behind a signed URL of a local lake; no API key."""
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}

    def error(text: str) -> dict[str, Any]:
        return {"description": text, "headers": _headers(EVERY_ANSWER), "content": error_ref}

    string = {"type": "string"}
    return {
        "operationId": "downloadArchive",
        "summary": "Source archive behind a signed URL of /source/download (local lake)",
        "tags": ["downloads"],
        "security": [],
        "parameters": [
            {
                "name": "alpha_id",
                "in": "path",
                "required": True,
                "schema": {**string, "pattern": anchored(ALPHA_ID_PATTERN)},
            },
            {
                "name": "sha256",
                "in": "path",
                "required": True,
                "schema": {**string, "pattern": anchored(SHA256_HEX_PATTERN)},
            },
            {
                "name": "expires",
                "in": "query",
                "required": True,
                "description": "Epoch second after which the URL is refused, as signed.",
                "schema": {**string, "pattern": anchored(EXPIRES_PATTERN)},
            },
            {
                "name": "holder",
                "in": "query",
                "required": True,
                "description": "Key id of the API key the URL was signed for, as signed (the key must still "
                "be able to make requests).",
                "schema": {**string, "pattern": anchored(HOLDER_PATTERN)},
            },
            {
                "name": "signature",
                "in": "query",
                "required": True,
                "description": "HMAC-SHA256 (lowercase hex) over the object path, `expires` and `holder`.",
                "schema": {**string, "pattern": anchored(SIGNATURE_PATTERN)},
            },
        ],
        "responses": {
            "200": {
                "description": "The archive, streamed",
                "headers": {
                    **_headers(EVERY_ANSWER),
                    "Content-Disposition": _header('attachment; filename="<alpha_id>.zip"', string, True),
                    "Content-Length": _header("Size of the archive in bytes.", _INTEGER, True),
                    "Cache-Control": _header("private, no-store", string, True),
                },
                "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
            },
            "403": error(
                "download_url_invalid (signature missing, malformed or not matching; or the holder's key "
                "revoked, suspended, expired or of an inactive account: details.reason) or download_url_expired"
            ),
            "404": error(
                "source_object_missing (deleted since signing), or not_found (not an archive path, "
                "or an S3 lake, whose URLs point at the object store)"
            ),
            "500": error(ERROR_STATUSES["500"]),
            "503": error(
                "source_download_not_configured (no usable signing key) or "
                "source_download_unavailable (the lake folder or the fetch count is unreachable, or "
                "the archive does not match its SHA-256: details.reason)"
            ),
        },
    }


EXPORT_DOWNLOAD_PATH = f"{DOWNLOAD_ROUTE_PREFIX}/{{collection}}/{{name}}/builds/{{build_id}}/exports/{{file}}"


def _export_download_operation() -> dict[str, Any]:
    """`serve.routes.downloads`: a Parquet export behind a signed URL of `/exports/{dataset}` on a
    local lake; the archive route's query, headers and statuses with the `export_*` codes."""
    operation = _download_operation()
    string = {"type": "string"}
    operation["operationId"] = "downloadExport"
    operation["summary"] = "Parquet export behind a signed URL of /exports/{dataset} (local lake)"

    def path(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
        return {"name": name, "in": "path", "required": True, "description": description, "schema": schema}

    operation["parameters"] = [
        path("collection", {**string, "enum": ["alphas", "benchmarks"]}, "alphas or benchmarks"),
        path("name", string, "alpha_id or benchmark symbol"),
        path("build_id", string, "The build the URL was signed for"),
        path("file", string, "{dataset}[.{book}][.raw].parquet"),
        *(p for p in operation["parameters"] if p["in"] == "query"),
    ]
    ok = operation["responses"]["200"]
    ok["description"] = "The Parquet file, streamed"
    ok["headers"]["Content-Disposition"] = _header(
        'attachment; filename="<alpha_id or symbol>.<file>"', string, True
    )
    ok["headers"]["Content-Length"] = _header("Size of the file in bytes.", _INTEGER, True)
    ok["content"] = {exports_wire.PARQUET: {"schema": {"type": "string", "format": "binary"}}}
    responses = operation["responses"]
    responses["404"]["description"] = (
        "export_not_found (its build was retired since signing), or not_found (not an export path, "
        "or an S3 lake, whose URLs point at the object store)"
    )
    responses["503"]["description"] = (
        "export_download_not_configured (no usable signing key) or export_download_unavailable "
        "(the lake folder or the fetch count is unreachable, or the file is damaged: details.reason)"
    )
    return operation


X_UNIT = "x-unit"
X_NULL = "x-null"
X_ABSENT = "x-absent"
X_RAW_ONLY = "x-raw-only"
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
        "description": field_description(doc.meaning, doc.unit, doc.null, doc.absent, doc.raw_only)
    }
    for key, value in ((X_UNIT, doc.unit), (X_NULL, doc.null), (X_ABSENT, doc.absent)):
        if value:
            annotations[key] = value
    if doc.raw_only:
        annotations[X_RAW_ONLY] = True
    return annotations


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    return [declared] if isinstance(declared, str) else list(declared or [])


def _nested_context(context: str, name: str, endpoint_id: str | None) -> str:
    """The `schemas.field_docs` context of the object held by property `name` of `context`."""
    if name == "data" and endpoint_id is not None:
        return field_docs.DATA_CONTEXTS[endpoint_id]
    if context == "meta" and name == "summary" and endpoint_id is not None:
        return field_docs.SUMMARY_CONTEXTS[endpoint_id]
    return field_docs.NESTED_CONTEXTS[name]


def _document_properties(schema: dict[str, Any], context: str, endpoint_id: str | None) -> None:
    """Describe every property of an inline object schema, nested ones included, in place (a
    `$ref` is described where its component is)."""
    for name, prop in schema.get("properties", {}).items():
        doc = field_docs.field_doc(context, name)
        if doc is None:
            raise KeyError(f"response field {name!r} ({context}) has no entry in schemas.field_docs")
        prop.update(_field_annotations(doc))
        target = prop.get("items", {}) if "array" in _types(prop) else prop
        if "$ref" not in target and target.get("properties"):
            _document_properties(target, _nested_context(context, name, endpoint_id), endpoint_id)


TITLE = "Alpha Research Results API"
SCHEMA_PATH = "/schema"
"""Where Litestar serves the document it generates (`/schema/openapi.json`) and Swagger UI
(`/schema`); `/openapi.json` and `/docs` serve the same document (serve/routes/developer.py)."""


@dataclass
class DeclaredOperation(Operation):
    """The operation Litestar generates for a registry route (`operation_class`, Litestar's hook
    for extending an operation), completed from the route's declaration: its query parameters
    (`schemas.query`), its path parameters narrowed where the server checks more than a string,
    every status it may answer with the headers it sets, and its documented response bodies.

    Litestar cannot infer the bodies itself: a handler returns bytes its own encoder wrote
    (serve.envelope), so they are declared from the registry entry's wire fields instead."""

    def __post_init__(self) -> None:
        endpoint_id = self.operation_id or ""
        # Plain dicts are valid here: Litestar's `to_schema` passes a dict through as it is.
        parameters: list[Any] = [
            {**p.to_schema(), "schema": PATH_PARAMS.get(p.name, {"type": "string"})}
            for p in self.parameters or []
            if isinstance(p, Parameter) and p.param_in == "path"
        ]
        parameters += _query_parameters(endpoint_id)
        self.parameters = parameters
        self.responses = _responses(endpoint_id)
        # Litestar drops an empty security list; `[]` says the public route needs no key.
        self.security = [] if BY_ID[endpoint_id].public else [{"bearer": []}]

    def to_schema(self) -> dict[str, Any]:
        return {**super().to_schema(), "x-registry-id": self.operation_id}


def documented_responses(responses: dict[str, Any], root: str, endpoint_id: str | None) -> dict[str, Any]:
    """A copy of `responses` whose body properties carry their `schemas.field_docs` entries
    (`root`: the context of the bodies' top level)."""
    out: dict[str, Any] = json.loads(json.dumps(responses))
    for response in out.values():
        for content in response.get("content", {}).values():
            _document_properties(content["schema"], root, endpoint_id)
    return out


def _documented_components() -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(COMPONENTS))
    for name, schema in out["schemas"].items():
        _document_properties(schema, field_docs.COMPONENT_CONTEXTS[name], None)
    return out


def openapi_config(version: str) -> OpenAPIConfig:
    """Litestar's OpenAPI configuration: the document's info, the shared headers and security
    scheme, and the router serving it under `/schema` (with Swagger UI from this origin)."""
    from serve.routes.developer import DOCS_CSP, swagger_plugin

    components = _documented_components()
    return OpenAPIConfig(
        title=TITLE,
        version=version,
        description=f"Endpoint registry {REGISTRY_VERSION}: the `registry_version` of /v1/health and /v1/me.",
        components=Components(headers=components["headers"], security_schemes=components["securitySchemes"]),
        # The pages' headers of `/docs` on Litestar's router too (serve/routes/developer.py).
        openapi_router=Router(
            SCHEMA_PATH,
            route_handlers=[],
            include_in_schema=False,
            response_headers=[
                ResponseHeader(name="Cache-Control", value="no-cache"),
                ResponseHeader(name="Content-Security-Policy", value=DOCS_CSP),
            ],
        ),
        render_plugins=[swagger_plugin(paths=("/",))],
        create_examples=False,
        use_handler_docstrings=False,
    )


def complete(document: OpenAPI) -> None:
    """Add to the document Litestar generated what no route handler declares: the shared body
    schemas the operations reference (Litestar regenerates `components.schemas` from typed
    handlers only) and the signed download paths, which one wildcard route serves."""
    document.components.schemas = {
        **_documented_components()["schemas"],
        **(document.components.schemas or {}),
    }
    paths = dict(document.paths or {})
    for path, operation in (
        (DOWNLOAD_PATH, _download_operation()),
        (EXPORT_DOWNLOAD_PATH, _export_download_operation()),
    ):
        paths[path] = PathItem(
            get=Operation(
                operation_id=operation["operationId"],
                summary=operation["summary"],
                tags=operation["tags"],
                security=operation["security"],
                parameters=operation["parameters"],
                responses=documented_responses(operation["responses"], operation["operationId"], None),
            )
        )
    document.paths = paths
