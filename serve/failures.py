"""What an exception raised while answering becomes: the error envelope (`as_api_error`), answered
by the app's one exception handler (`handle_exception`, which `serve.app.create_app` registers for
every exception) and by the one-pass layer (serve/front.py), which calls it for a refusal it raises
itself or a failure of a route it answers below the framework (`answering_failures`): one handler,
so a refusal is the same status, headers and bytes whichever path met it, and no import of
Litestar's private exception middleware.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException
from litestar.types import ASGIApp, ExceptionHandler, Message, Receive, Scope, Send
from litestar.types.empty import Empty
from litestar.utils.scope.state import ScopeState

from access.tokens import redact_tokens
from analytics.errors import AnalyticsNotBuilt, BadParameters, DataNotReadable, NotReadable
from core import errors
from datasets import answers
from datasets.faults import BenchmarkMissing, CatalogueIncomplete, HistoryGone
from datasets.reader import LakeUnavailable
from serve.envelope import error_response, request_id_of
from serve.routes import sharing

log = logging.getLogger("serve.app")
"""The logger these lines have always had (an operator's logging configuration names it)."""


def as_api_error(request: Request[Any, Any, Any], exc: Exception) -> errors.ApiError:
    if isinstance(exc, errors.ApiError):
        return exc
    if isinstance(exc, LakeUnavailable):
        return errors.UpstreamUnavailable()
    if isinstance(exc, HistoryGone):
        return errors.AsOfGone(details={"reason": str(exc)})
    if isinstance(exc, BadParameters):
        return errors.bad_parameters(exc.problems, exc.details)
    if isinstance(exc, NotReadable):
        return errors.RunNotAllowed(details={"alpha": exc.alpha, "parameter": exc.parameter})
    if isinstance(exc, DataNotReadable):
        return errors.EndpointNotAllowed(exc.message, details={"endpoint": exc.endpoint})
    if isinstance(exc, AnalyticsNotBuilt):
        return errors.AnalyticsNotBuilt(exc.message, details=exc.details)
    if isinstance(exc, CatalogueIncomplete):
        return errors.UpstreamUnavailable(exc.message)
    if isinstance(exc, BenchmarkMissing):
        missing = errors.BenchmarkUnavailable if exc.configured else errors.BenchmarkNotConfigured
        return missing(details={"symbol": exc.symbol})
    if isinstance(exc, answers.NotARebalance):
        return errors.RebalanceNotFound(
            f"{exc.day.isoformat()} is not a rebalance date of {request.path_params.get('alpha')}.",
            details={k: v.isoformat() if v is not None else None for k, v in exc.neighbours.items()},
        )
    if isinstance(exc, answers.NoSuchBook):
        return errors.UnknownBook(
            f"No book {exc.book!r} of kind {exc.kind} for this key; see error.details.available.",
            details={"book": exc.book, "kind": exc.kind, "available": exc.available},
        )
    if isinstance(exc, MethodNotAllowedException):
        return errors.MethodNotAllowed(details={"method": request.method, "allowed": ["GET"]})
    if isinstance(exc, NotFoundException):
        return errors.NotFound(f"No such path: {request.url.path}", details={"path": request.url.path})
    if isinstance(exc, HTTPException) and exc.status_code == 400:
        return errors.BadRequest(str(exc.detail))
    return errors.InternalError()


def handle_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    if sharing.is_sharing_path(request.url.path):
        # The router's refusals (no such path, another method) of a sharing path: a protocol
        # client reads the protocol's error body; its routes' own failures are answered there.
        return sharing.sharing_error(request, exc)
    request_id = request_id_of(request.scope)
    error = as_api_error(request, exc)
    if isinstance(exc, LakeUnavailable):
        # The reader logs the lake's state once per change; one short line per request here.
        log.info("request %s answered %s: %s", request_id, error.code, type(exc).__name__)
    elif error.status >= 500 and not isinstance(exc, errors.ApiError):
        log.error(
            "request %s failed: %s %s",
            request_id,
            request.method,
            redact_tokens(request.url.path),
            exc_info=exc,
        )
    elif error.status >= 500:
        log.warning("request %s answered %s: %s", request_id, error.code, exc)
    return error_response(error, request_id)


def handler_of(scope: Scope, exc: Exception) -> ExceptionHandler:
    """The handler of `exc` among the route's (`ScopeState.exception_handlers`, which the one-pass
    layer sets from the routed handler, as Litestar's router does), chosen as Litestar chooses: an
    `HTTPException`'s status code first, then the exception's classes in order, then a 500 handler for
    any other exception; `handle_exception` when the route has none (the app registers it for every
    exception; the Delta Sharing routes register `serve.routes.sharing.sharing_error`)."""
    handlers = ScopeState.from_scope(scope).exception_handlers
    if handlers is Empty or not handlers:
        return handle_exception
    if isinstance(exc, HTTPException) and (by_status := handlers.get(exc.status_code)) is not None:
        return by_status
    for cls in type(exc).__mro__:
        if cls in handlers:
            return handlers[cls]
    fallback = None if isinstance(exc, HTTPException) else handlers.get(500)
    return fallback or handle_exception


def answering_failures(app: ASGIApp) -> ASGIApp:
    """`app`, with an exception it raises before its response starts answered by the route's handler
    of it (`handler_of`), as Litestar's exception middleware answers a route's: the app registers no
    `after_exception` hook and no logging configuration, so that is all the middleware would do. An
    exception after the response started is raised on: its status line is gone."""

    async def answered(scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await app(scope, receive, sending)
        except Exception as exc:
            if started:
                raise
            request: Request[Any, Any, Any] = Request(scope=scope, receive=receive, send=send)
            response = handler_of(scope, exc)(request, exc)
            await response.to_asgi_response(app=None, request=request)(scope, receive, send)

    return answered
