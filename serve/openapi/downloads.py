"""The signed download routes outside `/v1` (`serve.routes.downloads`), which one wildcard route
serves so no route handler declares them: the source archive (`DOWNLOAD_PATH`) and the Parquet
exports (`EXPORT_DOWNLOAD_PATH`), their parameters' patterns anchored from the ones the server
matches."""

from __future__ import annotations

import re
from typing import Any

from datasets.layout import ALPHA_ID_PATTERN
from serve.openapi.statuses import ERROR_STATUSES, EVERY_ANSWER, INTEGER, header, headers
from serve.signing import export_urls as exports_wire
from serve.signing.archives import (
    DOWNLOAD_ROUTE_PREFIX,
    EXPIRES_PATTERN,
    HOLDER_PATTERN,
    SHA256_HEX_PATTERN,
    SIGNATURE_PATTERN,
)


def anchored(pattern: re.Pattern[str]) -> str:
    """A declared pattern (matched whole with `fullmatch`) as a JSON Schema `pattern`, which
    searches: anchored at both ends."""
    return f"^(?:{pattern.pattern})$"


DOWNLOAD_PATH = f"{DOWNLOAD_ROUTE_PREFIX}/archives/{{alpha_id}}/{{sha256}}.zip"


def download_operation() -> dict[str, Any]:
    """`serve.routes.downloads`: the archive behind a signed URL of a local lake; no API key."""
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}

    def error(text: str) -> dict[str, Any]:
        return {"description": text, "headers": headers(EVERY_ANSWER), "content": error_ref}

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
                    **headers(EVERY_ANSWER),
                    "Content-Disposition": header('attachment; filename="<alpha_id>.zip"', string, True),
                    "Content-Length": header("Size of the archive in bytes.", INTEGER, True),
                    "Cache-Control": header("private, no-store", string, True),
                },
                "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
            },
            "403": error(
                "download_url_invalid (signature missing, malformed or not matching; or the holder's key "
                "revoked, suspended, expired or of an inactive account, or its grants no longer cover the "
                "file: details.reason) or download_url_expired"
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


def export_download_operation() -> dict[str, Any]:
    """`serve.routes.downloads`: a Parquet export behind a signed URL of `/exports/{dataset}` on a
    local lake; the archive route's query, headers and statuses with the `export_*` codes."""
    operation = download_operation()
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
    ok["headers"]["Content-Disposition"] = header(
        'attachment; filename="<alpha_id or symbol>.<file>"', string, True
    )
    ok["headers"]["Content-Length"] = header("Size of the file in bytes.", INTEGER, True)
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
