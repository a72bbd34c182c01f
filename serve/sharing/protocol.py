"""The Delta Sharing protocol's messages (PROTOCOL.md of delta-io/delta-sharing): list pages with
their page tokens, the NDJSON lines of `metadata` and `query` (parquet response format), the
request body of `query`, and the protocol's error body `{"errorCode", "message"}`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import UTC, datetime
from typing import Any

import msgspec
import pyarrow as pa

from serve.sharing.schema import schema_string
from serve.signing.export_urls import ExportFile

NDJSON = "application/x-ndjson; charset=utf-8"
TABLE_VERSION_HEADER = "Delta-Table-Version"
CAPABILITIES_HEADER = "delta-sharing-capabilities"
PARQUET_FORMAT = "responseformat=parquet"
"""Echoed on `metadata` and `query`: the only response format served (the client's `autoresolve`
asks for `delta,parquet` and reads this header to pick its parquet path)."""
MAX_RESULTS = 1000
"""The largest page a list answers (the protocol lets a server return fewer than `maxResults`)."""

RESOURCE_DOES_NOT_EXIST = "RESOURCE_DOES_NOT_EXIST"
INVALID_PARAMETER_VALUE = "INVALID_PARAMETER_VALUE"
MALFORMED_REQUEST = "MALFORMED_REQUEST"
# The error codes of the protocol's reference server (DeltaSharingService.scala, `ErrorCode`).


class SharingError(Exception):
    """A refusal in the protocol's own terms (a share, schema or table that does not exist for
    this key, a parameter the protocol defines given a value this server does not accept)."""

    def __init__(self, status: int, error_code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code
        self.message = message


def not_found(what: str, name: str) -> SharingError:
    # The name is echoed as JSON text inside the message (quoted, escaped): never markup, never a secret.
    return SharingError(404, RESOURCE_DOES_NOT_EXIST, f"{what} {json.dumps(name[:255])} does not exist")


def invalid(parameter: str, rule: str) -> SharingError:
    return SharingError(400, INVALID_PARAMETER_VALUE, f"{parameter}: {rule}")


def error_body(error_code: str, message: str) -> bytes:
    return msgspec.json.encode({"errorCode": error_code, "message": message})


# -- paging ------------------------------------------------------------------------------------

_DIGITS = re.compile(r"[0-9]{1,9}")


def page_bounds(max_results: str | None, page_token: str | None) -> tuple[int, int]:
    """(offset, limit) of a list request: `maxResults` a non-negative Int32 (capped at
    `MAX_RESULTS`), `pageToken` one this server handed out (an offset, base64url)."""
    limit = MAX_RESULTS
    if max_results is not None:
        if not _DIGITS.fullmatch(max_results):
            raise invalid("maxResults", "must be a non-negative integer")
        limit = min(int(max_results), MAX_RESULTS)
    offset = 0
    if page_token:  # the protocol lets the token be empty: the first page
        try:
            decoded = base64.urlsafe_b64decode(page_token.encode("ascii")).decode("ascii")
        except (UnicodeError, binascii.Error, ValueError):
            decoded = ""
        if not _DIGITS.fullmatch(decoded):
            raise invalid("pageToken", "is not a token this server returned; start again without one")
        offset = int(decoded)
    return offset, limit


def next_token(offset: int, limit: int, more: bool) -> str | None:
    return base64.urlsafe_b64encode(str(offset + limit).encode()).decode() if more else None


def share_body(name: str, share_id: str) -> bytes:
    return msgspec.json.encode({"share": {"name": name, "id": share_id}})


def page(items: list[dict[str, Any]], token: str | None) -> bytes:
    body: dict[str, Any] = {"items": items}
    if token is not None:
        body["nextPageToken"] = token
    return msgspec.json.encode(body)


# -- NDJSON lines ------------------------------------------------------------------------------

PROTOCOL_LINE = msgspec.json.encode({"protocol": {"minReaderVersion": 1}})


def metadata_line(table_id: str, name: str, export: ExportFile, schema: pa.Schema) -> bytes:
    """`metaData` of a table: one Parquet file, unpartitioned."""
    return msgspec.json.encode(
        {
            "metaData": {
                "id": table_id,
                "name": name,
                "format": {"provider": "parquet"},
                "schemaString": schema_string(schema),
                "partitionColumns": [],
                "configuration": {},
                "size": export.size_bytes,
                "numFiles": 1,
            }
        }
    )


def file_line(export: ExportFile, url: str, expires_at: int) -> bytes:
    """`file` of a table's one Parquet file; `id` is the file's SHA-256 (the same file has the same
    id in every answer; a new build with other bytes gets another)."""
    return msgspec.json.encode(
        {
            "file": {
                "url": url,
                "id": export.sha256,
                "partitionValues": {},
                "size": export.size_bytes,
                "stats": json.dumps({"numRecords": export.rows}, separators=(",", ":")),
                "expirationTimestamp": expires_at * 1000,
            }
        }
    )


def ndjson(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


# -- the query body ----------------------------------------------------------------------------


class QueryBody(msgspec.Struct, rename="camel", omit_defaults=True):
    """The body of `POST .../query`; the hints are best effort (each table is one file, so none
    narrows what is returned) and fields a newer client adds are ignored."""

    predicate_hints: list[str] | None = None
    json_predicate_hints: str | None = None
    limit_hint: int | None = None
    version: int | None = None
    timestamp: str | None = None
    starting_version: int | None = None
    ending_version: int | None = None
    include_historical_protocol: bool | None = None
    idempotency_key: str | None = None


def query_body(raw: bytes) -> QueryBody:
    if not raw.strip():
        return QueryBody()
    try:
        return msgspec.json.decode(raw, type=QueryBody)
    except msgspec.ValidationError as exc:
        raise invalid("request body", str(exc)) from exc
    except msgspec.DecodeError as exc:
        raise invalid("request body", "is not a JSON object") from exc
    except UnicodeDecodeError as exc:  # msgspec's error for bytes inside a string that are not UTF-8
        raise invalid("request body", "is not UTF-8 JSON") from exc


_VERSION = re.compile(r"[0-9]{1,18}")


def version_number(parameter: str, value: object) -> int:
    """A table version asked for (a query parameter's text, or the `query` body's integer): a
    non-negative integer, else 400 naming the parameter."""
    if isinstance(value, bool) or not (
        (isinstance(value, int) and value >= 0) or (isinstance(value, str) and _VERSION.fullmatch(value))
    ):
        raise invalid(parameter, "must be a non-negative integer (a table version)")
    return int(value)


def timestamp_seconds(parameter: str, text: str) -> int:
    """A protocol timestamp (ISO 8601 in UTC, `2022-01-01T00:00:00Z`) as epoch seconds."""
    return int(timestamp_moment(parameter, text).timestamp())


def timestamp_moment(parameter: str, text: str) -> datetime:
    """A protocol timestamp as an aware UTC moment, to the microsecond it names."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise invalid(parameter, "must be an ISO 8601 timestamp in UTC such as 2022-01-01T00:00:00Z") from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:  # a moment whose UTC time leaves years 1-9999 cannot be a moment the lake knows
        moment = when.astimezone(UTC)
        moment.timestamp()
    except (OverflowError, ValueError) as exc:
        raise invalid(parameter, "must be a moment in years 1 to 9999 once in UTC") from exc
    return moment
