"""What each operation of the OpenAPI document answers besides its body: the error statuses a
route may answer (`error_statuses`) and the response headers the app sets on each status
(`HEADERS`, `response_headers`, `COLLECTION_HEADERS`), shared as `components.headers`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core import errors
from serve import endpoints

ERROR_STATUSES = {
    "400": "Invalid parameters (bad_request, unknown_book)",
    "401": "Missing, malformed or unusable API key",
    "403": "Not allowed (account, IP, endpoint, alpha or run allow-list)",
    "404": "The addressed resource does not exist",
    "408": "The request head did not arrive whole in time (request_head_timeout); the connection is closed",
    "410": "`as_of` names a moment the lake no longer keeps (as_of_gone)",
    "414": "The request target (path and query string) is longer than the server reads "
    "(request_target_too_long, 8,192 bytes by default); the connection is closed",
    "406": "A collection route was asked (Accept) for no representation it offers (not_acceptable; "
    "error.details.offered lists them)",
    "429": "Rate limit or monthly quota exceeded, the key's day of rows or bytes taken "
    "(egress_budget_exceeded, with Retry-After), as many distinct as_of moments as the key may ask "
    "(as_of_budget_exceeded, with Retry-After), or (the event stream) as many of the key's streams open "
    "as it may (too_many_streams, with Retry-After)",
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
    endpoint = endpoints.endpoint(endpoint_id)
    statuses = {"400", "500", *CONNECTION_STATUSES}
    if not endpoint.public:
        statuses |= {"401", "403", "429", "503"}
    if "{alpha" in endpoint.path or endpoint_id in NOT_FOUND_ENDPOINTS:
        statuses.add("404")
    if endpoint.collection:
        statuses.add("406")
    if any(param.name == "as_of" for param in endpoint.params):
        statuses.add("410")
    return tuple(sorted(statuses))


def header(description: str, schema: dict[str, Any], required: bool = False) -> dict[str, Any]:
    return {"description": description, "required": required, "schema": schema}


INTEGER = {"type": "integer", "minimum": 0}
RATE_LIMIT_HEADERS = ("Limit", "Remaining", "Used", "Reset", "Window")
HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": header("Id of this request; quote it to support.", {"type": "string"}, True),
    "X-Content-Type-Options": header(
        "`nosniff`, on every answer: no body is to be read as another type than it says.",
        {"type": "string", "enum": ["nosniff"]},
        True,
    ),
    "X-RateLimit-Limit": header("Limit of the binding window.", INTEGER),
    "X-RateLimit-Remaining": header("Requests left in the binding window.", INTEGER),
    "X-RateLimit-Used": header("Requests counted in the binding window.", INTEGER),
    "X-RateLimit-Reset": header("Epoch second at which the binding window resets.", INTEGER),
    "X-RateLimit-Window": header(
        "The binding window.", {"type": "string", "enum": ["second", "minute", "day", "month"]}
    ),
    "Retry-After": header("Seconds until the exhausted window allows a request.", INTEGER, True),
    "WWW-Authenticate": header("`Bearer`, when no key was presented (missing_api_key).", {"type": "string"}),
    "Link": header(
        'RFC 8288 links to the next and previous pages (`rel="next"`, `rel="prev"`), in the same '
        "representation; absent on a single page.",
        {"type": "string"},
    ),
    "X-Total-Count": header(
        "Rows in the whole window (`pagination.total`); on every representation but JSON.", INTEGER
    ),
    "X-Pagination": header(
        "The envelope's `pagination` object as ASCII JSON; on every representation but JSON.",
        {"type": "string"},
    ),
    "X-Meta": header(
        "The envelope's `meta` object as ASCII JSON; on every representation but JSON.", {"type": "string"}
    ),
    "X-Warnings": header(
        "`meta.warnings` as an ASCII JSON array, when a block degraded; on every representation but JSON.",
        {"type": "string"},
    ),
}
"""Response headers, referenced from each response (`components.headers`)."""


EVERY_ANSWER = ("X-Request-ID", "X-Content-Type-Options")
"""The headers every answer carries, whatever its route and status."""


def headers(names: Sequence[str], required: Sequence[str] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name in required:
            out[name] = {**HEADERS[name], "required": True}
        else:
            out[name] = {"$ref": f"#/components/headers/{name}"}
    return out


def response_headers(endpoint_id: str, status: str) -> dict[str, Any]:
    """Metered routes carry the `X-RateLimit-*` headers once the request was counted (from the
    limiter's decision on; not on 401 nor before the limiter ran, and never while it is down)."""
    names = [*EVERY_ANSWER]
    metered = not endpoints.endpoint(endpoint_id).public
    if metered and status != "401":
        names += [f"X-RateLimit-{part}" for part in RATE_LIMIT_HEADERS]
    if status == "429":
        names.append("Retry-After")
        return headers(names, required=[*names])
    if status == "401":
        names.append("WWW-Authenticate")
    return headers(names)


COLLECTION_HEADERS = ("Link", "X-Total-Count", "X-Pagination", "X-Meta", "X-Warnings")
"""What a collection's 200 carries besides the envelope (`serve.representation`)."""


X_CODES = "x-codes"
"""On the error envelope's `code`: every code the server declares, with its status and message."""


def error_codes() -> dict[str, dict[str, Any]]:
    """Every error code of `core.errors` with its HTTP status and default message, by status
    then code (a generated client makes one exception class of each)."""
    classes = {
        cls.code: cls
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.ApiError)
    }
    return {
        code: {"status": cls.status, "message": cls.default_message}
        for code, cls in sorted(classes.items(), key=lambda item: (item[1].status, item[0]))
    }
