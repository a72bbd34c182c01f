"""Typed Python client of the alpha-results API.

    from alpha_results_client import Client

    with Client("http://127.0.0.1:8000") as client:      # token: argument or $ALPHA_RESULTS_TOKEN
        alphas = client.alphas(search="momentum").to_polars()
        curve = client.equity_curve("momentum_12_1", book="long_short")
        print(curve.summary.total_return, len(curve.to_list()))

See docs/client.md.
"""

from alpha_results_client import _generated, log_redaction
from alpha_results_client._generated import *  # noqa: F403 - every row, object and error type
from alpha_results_client._generated import ENDPOINTS, METHODS, REGISTRY_VERSION
from alpha_results_client._version import __version__
from alpha_results_client.client import BenchmarkSeries, Client
from alpha_results_client.config import NO_RETRIES, RetryPolicy, Timeouts
from alpha_results_client.events import (
    EventFeed,
    EventStream,
    WebhookSignatureError,
    decode_event,
    verify_webhook_signature,
)
from alpha_results_client.exceptions import (
    AlphaResultsError,
    ApiError,
    AuthenticationError,
    InconsistentPagesError,
    IntegrityError,
    InvalidRequestError,
    KindMissingWarning,
    PermissionDeniedError,
    RateLimitedError,
    ResourceNotFoundError,
    ServerError,
    TransportError,
    UnavailableError,
    UnexpectedResponseError,
)
from alpha_results_client.frames import MissingDependencyError
from alpha_results_client.paging import Collection, Series
from alpha_results_client.ratelimit import RateLimitStatus

__all__ = [
    "ENDPOINTS",
    "METHODS",
    "NO_RETRIES",
    "REGISTRY_VERSION",
    "AlphaResultsError",
    "ApiError",
    "AuthenticationError",
    "BenchmarkSeries",
    "Client",
    "Collection",
    "EventFeed",
    "EventStream",
    "InconsistentPagesError",
    "IntegrityError",
    "InvalidRequestError",
    "KindMissingWarning",
    "MissingDependencyError",
    "PermissionDeniedError",
    "RateLimitStatus",
    "RateLimitedError",
    "ResourceNotFoundError",
    "RetryPolicy",
    "Series",
    "ServerError",
    "Timeouts",
    "TransportError",
    "UnavailableError",
    "UnexpectedResponseError",
    "WebhookSignatureError",
    "__version__",
    "decode_event",
    "verify_webhook_signature",
    *_generated.__all__,
]

log_redaction.install()
