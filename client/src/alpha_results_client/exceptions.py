"""The exceptions the client raises.

Every failure the server answers becomes an `ApiError`: the class of its error code (generated
from the server's declarations, `_envelope.ERROR_CLASSES`), which derives from the class of its
HTTP status, so callers can catch as narrowly as they need:

    try:
        client.trades(alpha, book="long_short").to_polars()
    except UnknownBookError as exc:          # one code
        print(exc.details["available"])
    except PermissionDeniedError:            # any 403
        ...

A code this client does not know (a newer server) still raises the class of its status.
Messages never carry the API token: the server redacts token-shaped text, and the client
redacts its own token again from anything it puts into an exception.

One warning category: `KindMissingWarning`, emitted (at the user's line) when a collection is of
a dataset the alpha's run never wrote.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

PACKAGE_DIRECTORY = os.path.join(os.path.dirname(__file__), "")
"""This package's directory, as its code objects name their files (with a trailing separator)."""


class AlphaResultsError(Exception):
    """Base of every exception this package raises."""


class ApiError(AlphaResultsError):
    """The server answered with the error envelope `{error: {code, message, details, request_id}}`."""

    code: str = "api_error"
    status: int = 0
    retryable: bool = False
    """Transient: the client retries it with backoff (503 `*_unavailable`)."""

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        details: dict[str, Any] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.details: dict[str, Any] = details or {}
        self.request_id = request_id
        self.retry_after = retry_after
        """Seconds the server asked to wait (`Retry-After`), when it sent one."""

    def __str__(self) -> str:
        where = f" (request_id {self.request_id})" if self.request_id else ""
        return f"{self.status} {self.code}: {self.message}{where}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code!r}, status={self.status}, request_id={self.request_id!r})"
        )


class InvalidRequestError(ApiError):
    """400: a parameter is invalid (`details.parameters`) or a book unknown (`details.available`)."""

    status = 400


class AuthenticationError(ApiError):
    """401: the key is missing, malformed, unknown, suspended, revoked or expired."""

    status = 401


class PermissionDeniedError(ApiError):
    """403: the account, the caller's address or an allow-list refuses the request."""

    status = 403


class ResourceNotFoundError(ApiError):
    """404: the addressed alpha, run, date, export or path does not exist."""

    status = 404


class RateLimitedError(ApiError):
    """429: a rate-limit window or the monthly quota is exhausted; `retry_after` says how long."""

    status = 429


class ServerError(ApiError):
    """500: the server failed unexpectedly; quote `request_id` to support."""

    status = 500


class UnavailableError(ApiError):
    """503: a backend is unreachable (`retryable`) or not configured (permanent)."""

    status = 503


STATUS_FAMILIES: dict[int, type[ApiError]] = {
    cls.status: cls
    for cls in (
        InvalidRequestError,
        AuthenticationError,
        PermissionDeniedError,
        ResourceNotFoundError,
        RateLimitedError,
        ServerError,
        UnavailableError,
    )
}


class TransportError(AlphaResultsError):
    """The server could not be reached, or did not answer in time, after every retry."""


class UnexpectedResponseError(AlphaResultsError):
    """The server answered something that is not this API's JSON (a proxy's page, a truncated body)."""


class IntegrityError(AlphaResultsError):
    """A downloaded file does not match the size or SHA-256 the server announced for it."""


class InconsistentPagesError(AlphaResultsError):
    """A new build of the alpha was published while its pages were being read, so the pages
    already returned and the next ones come from different builds; read the collection again."""


# -- warnings --------------------------------------------------------------------------------------


class KindMissingWarning(UserWarning):
    """A collection of a dataset the alpha's run never wrote (the server's `kind_missing` warning):
    its rows are empty, or on the analytics collections the figures built from it are null. The
    collection's `.warnings` holds the server's warning too.

    `alpha` names the alpha, `kind` the missing dataset (`decisions`, `rebalances`, `portfolio`,
    `positions`, `pnl` or `trades`), `endpoint` the registry id of the collection read. Silence
    it with `warnings.filterwarnings("ignore", category=KindMissingWarning)`.
    """

    def __init__(self, message: str, alpha: str | None = None, kind: str = "", endpoint: str = "") -> None:
        super().__init__(message)
        self.alpha = alpha
        self.kind = kind
        self.endpoint = endpoint


def warn_caller(warning: Warning) -> None:
    """`warnings.warn(warning)` attributed to the first frame outside this package: the user's
    line that called the client, however deep inside the package the warning is raised."""
    frame = sys._getframe(1)
    level = 2  # warnings.warn's stacklevel of `frame`
    while frame.f_back is not None and frame.f_code.co_filename.startswith(PACKAGE_DIRECTORY):
        frame = frame.f_back
        level += 1
    warnings.warn(warning, stacklevel=level)
