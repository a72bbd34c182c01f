"""One exception type per error code of the spec, each carrying its HTTP status.

Everything that fails on the request path raises one of these; a single exception handler on the
app turns them into the envelope `{error: {code, message, details, request_id}}`.
"""

from __future__ import annotations

from collections.abc import Mapping
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


class MissingApiKey(ApiError):
    code = "missing_api_key"
    status = 401
    default_message = "No API key was presented; send Authorization: Bearer <key>."


class MalformedApiKey(ApiError):
    code = "malformed_api_key"
    status = 401
    default_message = "The API key is not of the documented shape."


class InvalidApiKey(ApiError):
    code = "invalid_api_key"
    status = 401
    default_message = "The API key is not recognised."


class KeySuspended(ApiError):
    code = "key_suspended"
    status = 401
    default_message = "The API key is suspended."


class KeyRevoked(ApiError):
    code = "key_revoked"
    status = 401
    default_message = "The API key has been revoked."


class KeyExpired(ApiError):
    code = "key_expired"
    status = 401
    default_message = "The API key has expired."


class AccountInactive(ApiError):
    code = "account_inactive"
    status = 403
    default_message = "The account that owns this key is not active."


class IpNotAllowed(ApiError):
    code = "ip_not_allowed"
    status = 403
    default_message = "The caller address is not on the key's IP allow-list."


class EndpointNotAllowed(ApiError):
    code = "endpoint_not_allowed"
    status = 403
    default_message = "The key may not call this endpoint."


class AlphaNotAllowed(ApiError):
    code = "alpha_not_allowed"
    status = 403
    default_message = "The key may not read this alpha."


class RunNotAllowed(ApiError):
    code = "run_not_allowed"
    status = 403
    default_message = "The key may not read this run."


class BadRequest(ApiError):
    code = "bad_request"
    status = 400
    default_message = "The request has invalid parameters."


class UnknownBook(ApiError):
    code = "unknown_book"
    status = 400
    default_message = "The book does not exist for this alpha."


class AlphaNotFound(ApiError):
    code = "alpha_not_found"
    status = 404
    default_message = "No alpha with that id."


class RunNotFound(ApiError):
    code = "run_not_found"
    status = 404
    default_message = "No run with that id."


class RebalanceNotFound(ApiError):
    code = "rebalance_not_found"
    status = 404
    default_message = "The date is not a rebalance date of this alpha."


class AlphaDescriptionNotFound(ApiError):
    code = "alpha_description_not_found"
    status = 404
    default_message = "The run sealed no written description."


class SourceNotReady(ApiError):
    code = "source_not_ready"
    status = 404
    default_message = "The source archive is not packaged yet; retry later."


class SourceObjectMissing(ApiError):
    code = "source_object_missing"
    status = 404
    default_message = "The source archive was recorded as delivered but is absent."


class ExportNotFound(ApiError):
    code = "export_not_found"
    status = 404
    default_message = "No such Parquet export for this key; see /v1/alphas/{alpha}/exports."


class KeyNotFound(ApiError):
    code = "key_not_found"
    status = 404
    default_message = "No key with that id."


class NotFound(ApiError):
    code = "not_found"
    status = 404
    default_message = "No such path."


class MethodNotAllowed(ApiError):
    code = "method_not_allowed"
    status = 404
    default_message = "Only GET is served."


class NotAcceptable(ApiError):
    code = "not_acceptable"
    status = 406
    default_message = "None of the representations in Accept is offered; see error.details.offered."


class RateLimitSecond(ApiError):
    code = "rate_limit_second"
    status = 429
    default_message = "Per-second rate limit exceeded."


class RateLimitMinute(ApiError):
    code = "rate_limit_minute"
    status = 429
    default_message = "Per-minute rate limit exceeded."


class RateLimitDay(ApiError):
    code = "rate_limit_day"
    status = 429
    default_message = "Per-day rate limit exceeded."


class QuotaExceeded(ApiError):
    code = "quota_exceeded"
    status = 429
    default_message = "Monthly quota exhausted."


# The slow-client budget (serve/slow_clients.py): requests that hold a connection at the client's pace.


class TooManyStreams(ApiError):
    code = "too_many_streams"
    status = 429
    default_message = "This key holds as many open event streams as it may; retry once one has ended."


class EgressBudgetExceeded(ApiError):
    code = "egress_budget_exceeded"
    status = 429
    default_message = "This key has taken today's budget of rows or bytes; retry after 00:00 UTC."


class AsOfBudgetExceeded(ApiError):
    code = "as_of_budget_exceeded"
    status = 429
    default_message = (
        "This key has asked for as many distinct as_of moments as it may for now; retry after Retry-After."
    )


class TooManyRequestBodies(ApiError):
    code = "too_many_request_bodies"
    status = 429
    default_message = "This key has as many request bodies still arriving as it may; retry shortly."


class RequestBodyTimeout(ApiError):
    code = "request_body_timeout"
    status = 408
    default_message = "The request body did not arrive in time."


# The download route outside /v1 (signed local archive URLs); not part of the /v1 vocabulary.


class DownloadUrlInvalid(ApiError):
    code = "download_url_invalid"
    status = 403
    default_message = "The download URL's signature does not match."


class DownloadUrlExpired(ApiError):
    code = "download_url_expired"
    status = 403
    default_message = "The download URL has expired; request a new one."


# Refusals of the connection itself, before any request reaches the app (serve/http_protocol.py).


class RequestHeadTimeout(ApiError):
    code = "request_head_timeout"
    status = 408
    default_message = "The request head did not arrive in time."


class RequestTargetTooLong(ApiError):
    code = "request_target_too_long"
    status = 414
    default_message = "The request target (path and query string) is too long."


class RequestHeadTooLarge(ApiError):
    code = "request_head_too_large"
    status = 431
    default_message = "The request head (request line and header fields) is too large."


class TooManyConnections(ApiError):
    code = "too_many_connections"
    status = 503
    default_message = "The server holds as many connections as it accepts; retry shortly."


InternalError = ApiError


class AsOfGone(ApiError):
    code = "as_of_gone"
    status = 410
    default_message = (
        "The lake no longer keeps what was served at as_of (older than its history retention and pinned by "
        "no decision, or collected since); ask a later as_of."
    )


class UpstreamUnavailable(ApiError):
    code = "upstream_unavailable"
    status = 503
    default_message = "The results store is temporarily unreachable; retry with backoff."


class BenchmarkUnavailable(ApiError):
    code = "benchmark_unavailable"
    status = 503
    default_message = "Market data is temporarily unreachable; retry with backoff."


class BenchmarkNotConfigured(ApiError):
    code = "benchmark_not_configured"
    status = 503
    default_message = "This deployment has no market-data service."


class SourceDownloadUnavailable(ApiError):
    code = "source_download_unavailable"
    status = 503
    default_message = "The object store failed while signing; retry with backoff."


class SourceDownloadNotConfigured(ApiError):
    code = "source_download_not_configured"
    status = 503
    default_message = (
        "Source downloads are not configured on this deployment (no object-store credentials for an "
        "S3 lake, or no readable signing key for a local one)."
    )


class ExportsNotBuilt(ApiError):
    code = "exports_not_built"
    status = 503
    default_message = (
        "The served build predates Parquet exports (pipeline 2.0); an operator rebuilds it with "
        "`alpha-results build`."
    )


class AnalyticsNotBuilt(ApiError):
    code = "analytics_not_built"
    status = 503
    default_message = (
        "The served build predates the analytics tables (pipeline 2.1); an operator rebuilds it "
        "with `alpha-results build`."
    )


class ExportDownloadUnavailable(ApiError):
    code = "export_download_unavailable"
    status = 503
    default_message = "The object store failed while signing; retry with backoff."


class ExportDownloadNotConfigured(ApiError):
    code = "export_download_not_configured"
    status = 503
    default_message = (
        "Export downloads are not configured on this deployment (no object-store credentials for an "
        "S3 lake, or no readable signing key for a local one)."
    )


def target_too_long(limit: int) -> ApiError:
    """414: what the HTTP server answers a request line over `max_request_target_bytes`, and `/mcp`
    a tool call whose arguments make such a target."""
    return RequestTargetTooLong(
        f"The request target (path and query string) is longer than {limit:,} bytes.",
        details={"limit_bytes": limit},
    )


def bad_parameters(problems: Mapping[str, str], details: Mapping[str, Any] | None = None) -> ApiError:
    """A 400 naming every offending parameter and the constraint it broke (and `details` besides)."""
    names = ", ".join(sorted(problems))
    return BadRequest(
        f"Invalid parameter(s): {names}.",
        details={
            "parameters": [{"name": k, "rule": v} for k, v in sorted(problems.items())],
            **(details or {}),
        },
    )
