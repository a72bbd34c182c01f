"""The types every answer's envelope is made of, the error classes and the description of an
endpoint, generated from the server's OpenAPI document (/openapi.json) by
client/scripts/generate.py. Do not edit: run `.venv/bin/python client/scripts/generate.py`
against a server of the release.

What the hand-written modules read (paging.py, exports.py, transport.py): no route added changes
it, and it imports none of them; `_generated.py` (every route's types, `ENDPOINTS`, the methods)
imports and re-exports it.
"""

from __future__ import annotations

import datetime as dt
import string
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from msgspec import UNSET, UnsetType

from alpha_results_client._struct import ApiStruct
from alpha_results_client.exceptions import (
    ApiError,
    AuthenticationError,
    InvalidRequestError,
    PermissionDeniedError,
    RateLimitedError,
    ResourceNotFoundError,
    ServerError,
    UnavailableError,
)


class Pagination(ApiStruct, kw_only=True, frozen=True):
    """The `Pagination` object."""

    limit: int
    """The applied page size (request value or default). Unit: rows."""

    offset: int
    """The applied offset. Unit: rows."""

    returned: int
    """Number of rows in this page; equals `data.length`; below `limit` on the last page. Unit: rows."""

    total: int
    """Rows matching the query across all pages, counted before paging. Unit: rows."""

    has_more: bool
    """`offset + returned < total`; false on the last page; clients stop paging when false."""


class ResponseWarning(ApiStruct, kw_only=True, frozen=True):
    """The `ResponseWarning` object."""

    code: str
    """Warning code from the documented vocabulary (e.g. `kind_missing`)."""

    message: str
    """Human-readable explanation of the warning."""

    block: str | UnsetType = UNSET
    """The `/metrics` block the warning is about (e.g. `ic`, `portfolio`). Present on `/metrics`
    warnings that concern one block.
    """

    kind: str | UnsetType = UNSET
    """The dataset (seal kind) the warning is about. Present on `kind_missing` warnings."""


class ErrorBody(ApiStruct, kw_only=True, frozen=True):
    """The `error` object of a failure."""

    code: str
    """Machine-readable error code (e.g. `bad_request`, `unknown_book`)."""

    message: str
    """Human-readable explanation of the failure."""

    details: dict[str, Any]
    """Code-specific details, e.g. `parameters` for `bad_request`, `available` for `unknown_book`;
    empty on `internal_error`.
    """

    request_id: str
    """Id of this request (also in `X-Request-ID`); quote it to support."""


class ErrorEnvelope(ApiStruct, kw_only=True, frozen=True):
    """The body of every failure: `{error: {...}}`."""

    error: ErrorBody
    """The failure: code, message, details and request_id."""


class Meta(ApiStruct, kw_only=True, frozen=True):
    """The `meta` object every response carries."""

    run: str | UnsetType = UNSET
    """The resolved alpha_id that served the response; keep it for reproducibility. Present on
    run-scoped responses.
    """

    alpha_id: str | UnsetType = UNSET
    """Informational source label (here the collection name); address endpoints with the path alpha_id
    or `meta.run`. Present on responses about one alpha.
    """

    source_alpha_id: str | UnsetType = UNSET
    """The research source id of the run. Present only when the run recorded a research source id."""

    book: str | UnsetType = UNSET
    """The book served; on `/rebalances/{date}` the echo of the `book` parameter (the target-weight
    column `min_abs_weight` and `sort=weight` act on). Present on book-scoped responses only.
    """

    as_of: str | UnsetType = UNSET
    """The moment the answer is as of (UTC, ISO 8601): the catalogue generation and builds the API
    served then, and the decisions recorded by then. Present when the request asked `as_of`.
    """

    generation: int | UnsetType = UNSET
    """The catalogue generation the answer read (the one served at `as_of`). Present when the request
    asked `as_of`.
    """

    request_id: str | UnsetType = UNSET
    """Id of this request (also in `X-Request-ID`); quote it to support."""

    generated_at: dt.datetime | UnsetType = UNSET
    """When the server produced this response. Unit: UTC timestamp (ISO 8601, `Z`, whole seconds)."""

    source: str | UnsetType = UNSET
    """What served the response: `lake:<table>@<build_id>` (the published build), `lake:catalog` on
    `/alphas`, `lake:catalogue_index@<version>` on `/analytics/screen`, `limiter` for usage. Absent
    on `/v1/me` and `/v1/me/keys`.
    """

    warnings: list[ResponseWarning] | UnsetType = UNSET
    """Degradations of this answer, e.g. `kind_missing` naming a dataset the run never wrote. Present
    only when a block degraded or the data is empty.
    """


class SourceDownload(ApiStruct, kw_only=True, frozen=True):
    """`GET /v1/alphas/{alpha}/source/download` `data`: a freshly signed URL of the archive."""

    url: str
    """Freshly signed, time-limited HTTPS GET URL of the source archive; fetch it directly."""

    expires_in: int
    """Lifetime of the signed URL (3600); do not cache it beyond. Unit: seconds."""

    filename: str
    """Archive file name, `<alpha_id>.zip`."""

    size_bytes: int | None
    """Size of the archive. Unit: bytes. Null when the run did not record it."""

    sha256: str | None
    """SHA-256 of the archive (hex). Null when the run did not record it."""


class ExportRow(ApiStruct, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/exports`: one Parquet file the key may export."""

    dataset: str
    """The `{dataset}` to ask `/exports/{dataset}` for (decisions, rebalances, portfolio, positions,
    pnl, trades, equity-curve, benchmark).
    """

    book: str | None
    """The book of a book dataset, to pass as `book=`. Null for `decisions`, `rebalances` and
    `benchmark`.
    """

    filename: str
    """`<alpha_id>.<dataset>[.<book>][.raw].parquet`; `.raw` marks the variant with raw columns."""

    rows: int
    """Rows in the file. Unit: rows."""

    size_bytes: int
    """Size of the Parquet file. Unit: bytes."""

    sha256: str
    """SHA-256 of the Parquet file (hex); check the bytes with it."""

    columns: list[str]
    """The file's column names, in order (`raw_*` columns only in the raw variant, for raw-book keys)."""

    build: str
    """The build the file belongs to (the benchmark's own build for `benchmark`)."""


class ExportRowPage(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/exports` (exports.list)."""

    data: list[ExportRow]

    pagination: Pagination

    meta: Meta


class ExportDownload(ApiStruct, kw_only=True, frozen=True):
    """`GET /v1/alphas/{alpha}/exports/{dataset}` `data`: a freshly signed URL of one Parquet file."""

    url: str
    """Freshly signed, time-limited GET URL of the Parquet file; fetch it directly."""

    expires_in: int
    """Lifetime of the signed URL (3600); do not cache it beyond. Unit: seconds."""

    filename: str
    """`<alpha_id>.<dataset>[.<book>][.raw].parquet`; `.raw` marks the variant with raw columns."""

    size_bytes: int
    """Size of the Parquet file. Unit: bytes."""

    sha256: str
    """SHA-256 of the Parquet file (hex); check the bytes with it."""

    rows: int
    """Rows in the file. Unit: rows."""

    columns: list[str]
    """The file's column names, in order (`raw_*` columns only in the raw variant, for raw-book keys)."""

    build: str
    """The build the file belongs to (the benchmark's own build for `benchmark`)."""


class ExportDownloadResponse(ApiStruct, kw_only=True, frozen=True):
    """The 200 body of `GET /v1/alphas/{alpha}/exports/{dataset}` (exports.download)."""

    data: ExportDownload

    meta: Meta


# -- endpoints --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One query parameter: its name on the wire, its Python name, type, default and values."""

    name: str
    attr: str
    type: str
    default: Any
    required: bool = False
    enum: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Endpoint:
    """One `GET` route: registry id, path template, its parameters and the type of its 200 body."""

    id: str
    path: str
    params: tuple[Param, ...]
    response: type[Any]
    collection: bool
    admin: bool = False
    series: bool = False
    """A collection whose `meta.summary` covers the whole window (a `Series`)."""
    stream: bool = False
    """Server-Sent Events (`text/event-stream`): `response` is one message's `data:`."""

    def url_path(self, **values: str) -> str:
        """The path with each `{name}` filled in, percent-encoded (a `/` too)."""
        return self.path.format(**{name: quote(value, safe="") for name, value in values.items()})

    def path_names(self) -> tuple[str, ...]:
        """The names of the path's parameters, in order."""
        return tuple(name for _, name, _, _ in string.Formatter().parse(self.path) if name)


# -- error codes -----------------------------------------------------------------------------------


class BadRequestError(InvalidRequestError):
    """400 `bad_request`: The request has invalid parameters."""

    code = "bad_request"
    status = 400


class UnknownBookError(InvalidRequestError):
    """400 `unknown_book`: The book does not exist for this alpha."""

    code = "unknown_book"
    status = 400


class InvalidApiKeyError(AuthenticationError):
    """401 `invalid_api_key`: The API key is not recognised."""

    code = "invalid_api_key"
    status = 401


class KeyExpiredError(AuthenticationError):
    """401 `key_expired`: The API key has expired."""

    code = "key_expired"
    status = 401


class KeyRevokedError(AuthenticationError):
    """401 `key_revoked`: The API key has been revoked."""

    code = "key_revoked"
    status = 401


class KeySuspendedError(AuthenticationError):
    """401 `key_suspended`: The API key is suspended."""

    code = "key_suspended"
    status = 401


class MalformedApiKeyError(AuthenticationError):
    """401 `malformed_api_key`: The API key is not of the documented shape."""

    code = "malformed_api_key"
    status = 401


class MissingApiKeyError(AuthenticationError):
    """401 `missing_api_key`: No API key was presented; send Authorization: Bearer <key>."""

    code = "missing_api_key"
    status = 401


class AccountInactiveError(PermissionDeniedError):
    """403 `account_inactive`: The account that owns this key is not active."""

    code = "account_inactive"
    status = 403


class AlphaNotAllowedError(PermissionDeniedError):
    """403 `alpha_not_allowed`: The key may not read this alpha."""

    code = "alpha_not_allowed"
    status = 403


class DownloadUrlExpiredError(PermissionDeniedError):
    """403 `download_url_expired`: The download URL has expired; request a new one."""

    code = "download_url_expired"
    status = 403


class DownloadUrlInvalidError(PermissionDeniedError):
    """403 `download_url_invalid`: The download URL's signature does not match."""

    code = "download_url_invalid"
    status = 403


class EndpointNotAllowedError(PermissionDeniedError):
    """403 `endpoint_not_allowed`: The key may not call this endpoint."""

    code = "endpoint_not_allowed"
    status = 403


class IpNotAllowedError(PermissionDeniedError):
    """403 `ip_not_allowed`: The caller address is not on the key's IP allow-list."""

    code = "ip_not_allowed"
    status = 403


class RunNotAllowedError(PermissionDeniedError):
    """403 `run_not_allowed`: The key may not read this run."""

    code = "run_not_allowed"
    status = 403


class AlphaDescriptionNotFoundError(ResourceNotFoundError):
    """404 `alpha_description_not_found`: The run sealed no written description."""

    code = "alpha_description_not_found"
    status = 404


class AlphaNotFoundError(ResourceNotFoundError):
    """404 `alpha_not_found`: No alpha with that id."""

    code = "alpha_not_found"
    status = 404


class ExportNotFoundError(ResourceNotFoundError):
    """404 `export_not_found`: No such Parquet export for this key; see /v1/alphas/{alpha}/exports."""

    code = "export_not_found"
    status = 404


class KeyNotFoundError(ResourceNotFoundError):
    """404 `key_not_found`: No key with that id."""

    code = "key_not_found"
    status = 404


class MethodNotAllowedError(ResourceNotFoundError):
    """404 `method_not_allowed`: Only GET is served."""

    code = "method_not_allowed"
    status = 404


class NotFoundError(ResourceNotFoundError):
    """404 `not_found`: No such path."""

    code = "not_found"
    status = 404


class RebalanceNotFoundError(ResourceNotFoundError):
    """404 `rebalance_not_found`: The date is not a rebalance date of this alpha."""

    code = "rebalance_not_found"
    status = 404


class RunNotFoundError(ResourceNotFoundError):
    """404 `run_not_found`: No run with that id."""

    code = "run_not_found"
    status = 404


class SourceNotReadyError(ResourceNotFoundError):
    """404 `source_not_ready`: The source archive is not packaged yet; retry later."""

    code = "source_not_ready"
    status = 404


class SourceObjectMissingError(ResourceNotFoundError):
    """404 `source_object_missing`: The source archive was recorded as delivered but is absent."""

    code = "source_object_missing"
    status = 404


class NotAcceptableError(ApiError):
    """406 `not_acceptable`: None of the representations in Accept is offered; see
    error.details.offered.
    """

    code = "not_acceptable"
    status = 406


class RequestBodyTimeoutError(ApiError):
    """408 `request_body_timeout`: The request body did not arrive in time."""

    code = "request_body_timeout"
    status = 408


class RequestHeadTimeoutError(ApiError):
    """408 `request_head_timeout`: The request head did not arrive in time."""

    code = "request_head_timeout"
    status = 408


class AsOfGoneError(ApiError):
    """410 `as_of_gone`: The lake no longer keeps what was served at as_of (older than its history
    retention and pinned by no decision, or collected since); ask a later as_of.
    """

    code = "as_of_gone"
    status = 410


class RequestTargetTooLongError(ApiError):
    """414 `request_target_too_long`: The request target (path and query string) is too long."""

    code = "request_target_too_long"
    status = 414


class AsOfBudgetExceededError(RateLimitedError):
    """429 `as_of_budget_exceeded`: This key has asked for as many distinct as_of moments as it may for
    now; retry after Retry-After.
    """

    code = "as_of_budget_exceeded"
    status = 429


class EgressBudgetExceededError(RateLimitedError):
    """429 `egress_budget_exceeded`: This key has taken today's budget of rows or bytes; retry after
    00:00 UTC.
    """

    code = "egress_budget_exceeded"
    status = 429


class QuotaExceededError(RateLimitedError):
    """429 `quota_exceeded`: Monthly quota exhausted."""

    code = "quota_exceeded"
    status = 429


class RateLimitDayError(RateLimitedError):
    """429 `rate_limit_day`: Per-day rate limit exceeded."""

    code = "rate_limit_day"
    status = 429


class RateLimitMinuteError(RateLimitedError):
    """429 `rate_limit_minute`: Per-minute rate limit exceeded."""

    code = "rate_limit_minute"
    status = 429


class RateLimitSecondError(RateLimitedError):
    """429 `rate_limit_second`: Per-second rate limit exceeded."""

    code = "rate_limit_second"
    status = 429


class TooManyRequestBodiesError(RateLimitedError):
    """429 `too_many_request_bodies`: This key has as many request bodies still arriving as it may;
    retry shortly.
    """

    code = "too_many_request_bodies"
    status = 429


class TooManyStreamsError(RateLimitedError):
    """429 `too_many_streams`: This key holds as many open event streams as it may; retry once one has
    ended.
    """

    code = "too_many_streams"
    status = 429


class RequestHeadTooLargeError(ApiError):
    """431 `request_head_too_large`: The request head (request line and header fields) is too large."""

    code = "request_head_too_large"
    status = 431


class InternalError(ServerError):
    """500 `internal_error`: The service failed to answer this request."""

    code = "internal_error"
    status = 500


class AnalyticsNotBuiltError(UnavailableError):
    """503 `analytics_not_built`: The served build predates the analytics tables (pipeline 2.1); an
    operator rebuilds it with `alpha-results build`.
    """

    code = "analytics_not_built"
    status = 503


class BenchmarkNotConfiguredError(UnavailableError):
    """503 `benchmark_not_configured`: This deployment has no market-data service."""

    code = "benchmark_not_configured"
    status = 503


class BenchmarkUnavailableError(UnavailableError):
    """503 `benchmark_unavailable`: Market data is temporarily unreachable; retry with backoff."""

    code = "benchmark_unavailable"
    status = 503
    retryable = True


class ExportDownloadNotConfiguredError(UnavailableError):
    """503 `export_download_not_configured`: Export downloads are not configured on this deployment (no
    object-store credentials for an S3 lake, or no readable signing key for a local one).
    """

    code = "export_download_not_configured"
    status = 503


class ExportDownloadUnavailableError(UnavailableError):
    """503 `export_download_unavailable`: The object store failed while signing; retry with backoff."""

    code = "export_download_unavailable"
    status = 503
    retryable = True


class ExportsNotBuiltError(UnavailableError):
    """503 `exports_not_built`: The served build predates Parquet exports (pipeline 2.0); an operator
    rebuilds it with `alpha-results build`.
    """

    code = "exports_not_built"
    status = 503


class SourceDownloadNotConfiguredError(UnavailableError):
    """503 `source_download_not_configured`: Source downloads are not configured on this deployment (no
    object-store credentials for an S3 lake, or no readable signing key for a local one).
    """

    code = "source_download_not_configured"
    status = 503


class SourceDownloadUnavailableError(UnavailableError):
    """503 `source_download_unavailable`: The object store failed while signing; retry with backoff."""

    code = "source_download_unavailable"
    status = 503
    retryable = True


class TooManyConnectionsError(UnavailableError):
    """503 `too_many_connections`: The server holds as many connections as it accepts; retry shortly."""

    code = "too_many_connections"
    status = 503


class UpstreamUnavailableError(UnavailableError):
    """503 `upstream_unavailable`: The results store is temporarily unreachable; retry with backoff."""

    code = "upstream_unavailable"
    status = 503
    retryable = True


ERROR_CLASSES: dict[str, type[ApiError]] = {
    "bad_request": BadRequestError,
    "unknown_book": UnknownBookError,
    "invalid_api_key": InvalidApiKeyError,
    "key_expired": KeyExpiredError,
    "key_revoked": KeyRevokedError,
    "key_suspended": KeySuspendedError,
    "malformed_api_key": MalformedApiKeyError,
    "missing_api_key": MissingApiKeyError,
    "account_inactive": AccountInactiveError,
    "alpha_not_allowed": AlphaNotAllowedError,
    "download_url_expired": DownloadUrlExpiredError,
    "download_url_invalid": DownloadUrlInvalidError,
    "endpoint_not_allowed": EndpointNotAllowedError,
    "ip_not_allowed": IpNotAllowedError,
    "run_not_allowed": RunNotAllowedError,
    "alpha_description_not_found": AlphaDescriptionNotFoundError,
    "alpha_not_found": AlphaNotFoundError,
    "export_not_found": ExportNotFoundError,
    "key_not_found": KeyNotFoundError,
    "method_not_allowed": MethodNotAllowedError,
    "not_found": NotFoundError,
    "rebalance_not_found": RebalanceNotFoundError,
    "run_not_found": RunNotFoundError,
    "source_not_ready": SourceNotReadyError,
    "source_object_missing": SourceObjectMissingError,
    "not_acceptable": NotAcceptableError,
    "request_body_timeout": RequestBodyTimeoutError,
    "request_head_timeout": RequestHeadTimeoutError,
    "as_of_gone": AsOfGoneError,
    "request_target_too_long": RequestTargetTooLongError,
    "as_of_budget_exceeded": AsOfBudgetExceededError,
    "egress_budget_exceeded": EgressBudgetExceededError,
    "quota_exceeded": QuotaExceededError,
    "rate_limit_day": RateLimitDayError,
    "rate_limit_minute": RateLimitMinuteError,
    "rate_limit_second": RateLimitSecondError,
    "too_many_request_bodies": TooManyRequestBodiesError,
    "too_many_streams": TooManyStreamsError,
    "request_head_too_large": RequestHeadTooLargeError,
    "internal_error": InternalError,
    "analytics_not_built": AnalyticsNotBuiltError,
    "benchmark_not_configured": BenchmarkNotConfiguredError,
    "benchmark_unavailable": BenchmarkUnavailableError,
    "export_download_not_configured": ExportDownloadNotConfiguredError,
    "export_download_unavailable": ExportDownloadUnavailableError,
    "exports_not_built": ExportsNotBuiltError,
    "source_download_not_configured": SourceDownloadNotConfiguredError,
    "source_download_unavailable": SourceDownloadUnavailableError,
    "too_many_connections": TooManyConnectionsError,
    "upstream_unavailable": UpstreamUnavailableError,
}
"""The exception class of each error code the server declares."""
