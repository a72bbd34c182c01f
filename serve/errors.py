"""One exception type per error code of the spec, each carrying its HTTP status.

Everything that fails on the request path raises one of these; a single exception handler on the
app turns them into the envelope `{error: {code, message, details, request_id}}`.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ApiError(Exception):
    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = 500
    default_message: ClassVar[str] = "The service failed to answer this request."

    def __init__(
        self,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.message = message or self.default_message
        self.details = details or {}
        self.headers = headers or {}
        super().__init__(self.message)


def _error(code: str, status: int, message: str) -> type[ApiError]:
    name = "".join(part.capitalize() for part in code.split("_"))
    return type(name, (ApiError,), {"code": code, "status": status, "default_message": message})


MissingApiKey = _error("missing_api_key", 401, "No API key was presented; send Authorization: Bearer <key>.")
MalformedApiKey = _error("malformed_api_key", 401, "The API key is not of the documented shape.")
InvalidApiKey = _error("invalid_api_key", 401, "The API key is not recognised.")
KeySuspended = _error("key_suspended", 401, "The API key is suspended.")
KeyRevoked = _error("key_revoked", 401, "The API key has been revoked.")
KeyExpired = _error("key_expired", 401, "The API key has expired.")
AccountInactive = _error("account_inactive", 403, "The account that owns this key is not active.")
IpNotAllowed = _error("ip_not_allowed", 403, "The caller address is not on the key's IP allow-list.")
EndpointNotAllowed = _error("endpoint_not_allowed", 403, "The key may not call this endpoint.")
AlphaNotAllowed = _error("alpha_not_allowed", 403, "The key may not read this alpha.")
RunNotAllowed = _error("run_not_allowed", 403, "The key may not read this run.")
BadRequest = _error("bad_request", 400, "The request has invalid parameters.")
UnknownBook = _error("unknown_book", 400, "The book does not exist for this alpha.")
AlphaNotFound = _error("alpha_not_found", 404, "No alpha with that id.")
RunNotFound = _error("run_not_found", 404, "No run with that id.")
RebalanceNotFound = _error("rebalance_not_found", 404, "The date is not a rebalance date of this alpha.")
AlphaDescriptionNotFound = _error(
    "alpha_description_not_found", 404, "The run sealed no written description."
)
SourceNotReady = _error("source_not_ready", 404, "The source archive is not packaged yet; retry later.")
SourceObjectMissing = _error(
    "source_object_missing", 404, "The source archive was recorded as delivered but is absent."
)
ExportNotFound = _error(
    "export_not_found", 404, "No such Parquet export for this key; see /v1/alphas/{alpha}/exports."
)
KeyNotFound = _error("key_not_found", 404, "No key with that id.")
NotFound = _error("not_found", 404, "No such path.")
MethodNotAllowed = _error("method_not_allowed", 404, "Only GET is served.")
NotAcceptable = _error(
    "not_acceptable", 406, "None of the representations in Accept is offered; see error.details.offered."
)
RateLimitSecond = _error("rate_limit_second", 429, "Per-second rate limit exceeded.")
RateLimitMinute = _error("rate_limit_minute", 429, "Per-minute rate limit exceeded.")
RateLimitDay = _error("rate_limit_day", 429, "Per-day rate limit exceeded.")
QuotaExceeded = _error("quota_exceeded", 429, "Monthly quota exhausted.")
# The download route outside /v1 (signed local archive URLs); not part of the /v1 vocabulary.
DownloadUrlInvalid = _error("download_url_invalid", 403, "The download URL's signature does not match.")
DownloadUrlExpired = _error("download_url_expired", 403, "The download URL has expired; request a new one.")
# Refusals of the connection itself, before any request reaches the app (serve/http_protocol.py).
RequestHeadTimeout = _error("request_head_timeout", 408, "The request head did not arrive in time.")
RequestTargetTooLong = _error(
    "request_target_too_long", 414, "The request target (path and query string) is too long."
)
RequestHeadTooLarge = _error(
    "request_head_too_large", 431, "The request head (request line and header fields) is too large."
)
TooManyConnections = _error(
    "too_many_connections", 503, "The server holds as many connections as it accepts; retry shortly."
)
InternalError = ApiError
UpstreamUnavailable = _error(
    "upstream_unavailable", 503, "The results store is temporarily unreachable; retry with backoff."
)
BenchmarkUnavailable = _error(
    "benchmark_unavailable", 503, "Market data is temporarily unreachable; retry with backoff."
)
BenchmarkNotConfigured = _error(
    "benchmark_not_configured", 503, "This deployment has no market-data service."
)
SourceDownloadUnavailable = _error(
    "source_download_unavailable", 503, "The object store failed while signing; retry with backoff."
)
SourceDownloadNotConfigured = _error(
    "source_download_not_configured",
    503,
    "Source downloads are not configured on this deployment (no object-store credentials for an S3 "
    "lake, or no readable signing key for a local one).",
)

ExportsNotBuilt = _error(
    "exports_not_built",
    503,
    "The served build predates Parquet exports (pipeline 2.0); an operator rebuilds it with "
    "`alpha-results build`.",
)
AnalyticsNotBuilt = _error(
    "analytics_not_built",
    503,
    "The served build predates the analytics tables (pipeline 2.1); an operator rebuilds it with "
    "`alpha-results build`.",
)
ExportDownloadUnavailable = _error(
    "export_download_unavailable", 503, "The object store failed while signing; retry with backoff."
)
ExportDownloadNotConfigured = _error(
    "export_download_not_configured",
    503,
    "Export downloads are not configured on this deployment (no object-store credentials for an S3 "
    "lake, or no readable signing key for a local one).",
)


def bad_parameters(problems: dict[str, str]) -> ApiError:
    """A 400 naming every offending parameter and the constraint it broke."""
    names = ", ".join(sorted(problems))
    return BadRequest(
        f"Invalid parameter(s): {names}.",
        details={"parameters": [{"name": k, "rule": v} for k, v in sorted(problems.items())]},
    )
