"""The OpenAPI 3.1 document served at `/openapi.json` and `/schema/openapi.json` (outside `/v1`).

Litestar generates it from the mounted route handlers (paths, path parameters, operation ids,
operations), and `complete` replaces each operation by a `DeclaredOperation`, completed from the
declaration of the handler it was mounted from (`serve.endpoints`): the query parameters its `schemas.query` Struct
declares, the Structs of its rows and bodies (`schemas.bodies`), its `meta` keys and summary, so
the document cannot drift from what is served. Every response property carries its meaning (the
`doc` on its field of its Struct, or for a single-object body its documentation block: meaning, unit,
when null or absent, raw-only), and the document refuses a property without one. Each operation
declares only the statuses its route can answer, and the response headers
the app sets (`X-Request-ID` and `X-Content-Type-Options` always; `X-RateLimit-*` on metered routes; `Retry-After` on 429;
`WWW-Authenticate` on 401). The signed archive download route outside `/v1` is declared too.

The package splits it by job: `statuses` (error statuses and response headers), `bodies` (the
JSON Schemas of the bodies and the shared components), `parameters` (query and path
parameters), `downloads` (the signed download routes) and `annotations` (each property's
description, composed from its field's `doc`); this module assembles them into Litestar's configuration.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields
from typing import Any

from litestar.datastructures import ResponseHeader
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, Info, OpenAPI, Operation, Parameter, PathItem, Schema
from litestar.plugins import OpenAPISchemaPlugin
from litestar.router import Router
from litestar.typing import FieldDefinition

from schemas.bodies.base import Body
from schemas.registry import BY_ID, X_REGISTRY_VERSION
from serve.endpoints import registry_version
from serve.openapi.annotations import documented_components, documented_responses
from serve.openapi.bodies import success
from serve.openapi.downloads import (
    DOWNLOAD_PATH,
    EXPORT_DOWNLOAD_PATH,
    download_operation,
    export_download_operation,
)
from serve.openapi.parameters import path_parameter, query_parameters
from serve.openapi.statuses import ERROR_STATUSES, error_statuses, response_headers
from serve.pages import DOCS_CSP, swagger_plugin


def _responses(endpoint_id: str) -> dict[str, Any]:
    """Every status the route may answer, with the headers the app sets and its documented bodies."""
    responses: dict[str, Any] = {"200": success(endpoint_id)}
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for status in error_statuses(endpoint_id):
        responses[status] = {
            "description": ERROR_STATUSES[status],
            "headers": response_headers(endpoint_id, status),
            "content": error_ref,
        }
    return documented_responses(responses, endpoint_id)


X_ADMIN = "x-admin"
"""On an operation only a platform administrator's key may call."""

TITLE = "Alpha Research Results API"
SCHEMA_PATH = "/schema"
"""Where Litestar serves the document it generates (`/schema/openapi.json`) and Swagger UI
(`/schema`); `/openapi.json` and `/docs` serve the same document (serve/routes/developer.py)."""


@dataclass
class DeclaredOperation(Operation):
    """The operation Litestar generated for a registry route, completed from the route's
    declaration when the document is completed (`complete`): its query parameters
    (`schemas.query`), its path parameters typed where that Struct types them,
    every status it may answer with the headers it sets, and its documented response bodies.

    The 200 body is the handler's return type (`Response[Collection[DecisionRow]]`), written by
    msgspec with each field's documentation and narrowed to the route's `meta` keys
    (`serve.openapi.bodies`) rather than by Litestar's schema generation, which knows neither."""

    def __post_init__(self) -> None:
        endpoint_id = self.operation_id or ""
        # Plain dicts are valid here: Litestar's `to_schema` passes a dict through as it is.
        parameters: list[Any] = [
            path_parameter(endpoint_id, p.to_schema())
            for p in self.parameters or []
            if isinstance(p, Parameter) and p.param_in == "path"
        ]
        parameters += query_parameters(endpoint_id)
        self.parameters = parameters
        self.responses = _responses(endpoint_id)
        # Litestar drops an empty security list; `[]` says the public route needs no key.
        self.security = [] if BY_ID[endpoint_id].public else [{"bearer": []}]

    def to_schema(self) -> dict[str, Any]:
        admin = {X_ADMIN: True} if BY_ID[self.operation_id or ""].admin else {}
        return {**super().to_schema(), "x-registry-id": self.operation_id, **admin}


class DeclaredAnswers(OpenAPISchemaPlugin):
    """Litestar's schema of a handler's return type (`Response[Collection[DecisionRow]]`), left
    empty: the 200 body the document serves is written from the same type by msgspec, with each
    field's documentation, by `DeclaredOperation`, so Litestar need not describe it first (which
    cost half a second at every start)."""

    def is_plugin_supported_field(self, field_definition: FieldDefinition) -> bool:
        annotation = field_definition.annotation
        declared = typing.get_origin(annotation) or annotation
        return isinstance(declared, type) and issubclass(declared, Body)

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: object) -> Schema:
        return Schema()


def openapi_config(version: str) -> OpenAPIConfig:
    """Litestar's OpenAPI configuration: the document's info, the shared headers and security
    scheme, and the router serving it under `/schema` (with Swagger UI from this origin)."""
    components = documented_components()
    return OpenAPIConfig(
        title=TITLE,
        version=version,
        description=f"Endpoint registry {registry_version()}: the `registry_version` of /v1/health and /v1/me.",
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


@dataclass
class RegistryInfo(Info):
    """The document's `info`, with the version of the registry it declares, so that a client can
    be generated from the served document alone."""

    def to_schema(self) -> dict[str, Any]:
        return {**super().to_schema(), X_REGISTRY_VERSION: registry_version()}


def served(document: OpenAPI) -> dict[str, Any]:
    """The document as served (`/openapi.json` and Litestar's `/schema/openapi.json`)."""
    complete(document)
    return document.to_schema()


def complete(document: OpenAPI) -> None:
    """Add to the document Litestar generated what no route handler declares: the body schemas
    the operations reference, and the signed download paths, which one wildcard route serves.

    The schemas are the ones msgspec writes from the declared Structs with their documentation
    (`serve.openapi.bodies`); those Litestar generated from the handlers' return types are left
    out, as no operation references them once `DeclaredOperation` has declared its responses."""
    document.components.schemas = documented_components()["schemas"]
    paths = dict(document.paths or {})
    for item in paths.values():
        declared = item.get
        if declared is not None and declared.operation_id in BY_ID:
            item.get = DeclaredOperation(**{f.name: getattr(declared, f.name) for f in fields(Operation)})
    for path, operation in (
        (DOWNLOAD_PATH, download_operation()),
        (EXPORT_DOWNLOAD_PATH, export_download_operation()),
    ):
        paths[path] = PathItem(
            get=Operation(
                operation_id=operation["operationId"],
                summary=operation["summary"],
                tags=operation["tags"],
                security=operation["security"],
                parameters=operation["parameters"],
                responses=documented_responses(operation["responses"], operation["operationId"]),
            )
        )
    document.paths = paths
    document.info = RegistryInfo(**{f.name: getattr(document.info, f.name) for f in fields(Info)})
