"""Structured access logs: one JSON line per request on the `serve.access` logger.

Fields: `time` (UTC), `request_id` (also the `X-Request-ID` header and `error.request_id`),
`key_id` (the caller's public key id once its secret matched, also when the key is then refused:
suspended, revoked, expired, inactive account, IP or endpoint not allowed, 429; null before a key
is identified; never the token or its secret), `route` (the registry id, or the handler's name
outside the registry: `download_archive`, `openapi_json`, `landing_html`, `docs_html`,
`static_asset`; `mcp` for the MCP endpoint's own messages, whose tool calls are lines of their
routes; for another method on a known path the id of that path's GET
route; null when no route matched),
`method`, `path` (without the query string, which could carry a signed URL's signature),
`status`, `duration_ms`, `pid` (the worker process). Nothing else of the request is logged.

`LOG_CONFIG` is the logging set-up `alpha-results serve` hands to uvicorn: the access line as is
on stdout, the service's other records (`serve.*`, `datasets.*`, `access.*`) with level and logger name, and
uvicorn's own access log off (this one replaces it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar.types import Scope
from litestar.utils import normalize_path

from access.tokens import redact_tokens
from serve.auth import OTHER_METHODS
from serve.exchange import exchange_of
from serve.http_protocol import worker_connections

log = logging.getLogger("serve.access")
_encode = msgspec.json.Encoder().encode


ROUTE_NAME = "route_name"
"""A scope key naming the route of a request answered before the router (`/mcp`: `mcp`)."""


def route_of(scope: Scope) -> str | None:
    """The access line's `route` (also the metrics' `route` label, serve/prometheus.py)."""
    named = scope.get(ROUTE_NAME)
    if isinstance(named, str):
        return named
    handler = scope.get("route_handler")
    method = scope.get("method")
    if method != "GET" and (handler is None or method not in handler.opt.get(OTHER_METHODS, ())):
        # HEAD, OPTIONS, POST ... never reach a handler of ours (404 method_not_allowed) but those
        # that declare them (the downloads' HEAD, Delta Sharing's POST): name the route the path
        # belongs to, so those lines group with the path's other requests.
        handler = _get_handler_at(scope)
    if handler is None:
        return None
    endpoint = handler.opt.get("endpoint")
    if isinstance(endpoint, str):
        return endpoint
    return str(handler.name or handler.handler_name or "") or None


def _get_handler_at(scope: Scope) -> Any:
    """The GET handler mounted at the request's path, or None."""
    app, path = scope.get("app"), scope.get("path", "")
    if normalize_path(path) != path:  # a non-canonical path is unknown (serve/app.py)
        return None
    try:
        routed = app.asgi_router.handle_routing(path=path, method="GET")
    except Exception:  # unknown path (NotFoundException) or no app on the scope: no route
        return None
    return routed[1]


def access_record(
    scope: Scope, status: int, duration_ms: float, at: datetime | None = None
) -> dict[str, Any]:
    exchange = exchange_of(scope)
    return {
        "time": (at or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "request_id": exchange.request_id,
        "key_id": exchange.key_id,
        "route": route_of(scope),
        "method": scope.get("method"),
        "path": redact_tokens(str(scope.get("path", ""))),
        "status": status,
        "duration_ms": round(duration_ms, 2),
        "pid": os.getpid(),
    }


def log_access(scope: Scope, status: int, duration_ms: float) -> None:
    """Write the request's access line (msgspec encodes it: json.dumps cost ~4x as much)."""
    if log.isEnabledFor(logging.INFO):
        log.info(_encode(access_record(scope, status, duration_ms)).decode())


class AccessQueue:
    """The access log off the request's path (issue 49, item 1): a request's end appends its scope,
    status, duration and time; the lines are made and written as one logging record of the lines
    joined by newlines (on stdout the same bytes as one record per line: one write and one pass of
    the logging machinery per batch instead of per request). While other connections of the worker
    are busy (requests read or being answered: `serve.http_protocol.HeldConnections.busy`), the
    write waits until the event loop has run the work ready now (`call_soon`), so under load a
    batch holds every request answered in one pass over the ready connections; otherwise (one
    request at a time, or an app driven in process by a test) the line is written as its request
    ends. The fields are `access_record`'s, the time being the request's end. What waits is written
    at shutdown too (the app's `on_shutdown` runs `flush`)."""

    def __init__(self) -> None:
        self._waiting: list[tuple[Scope, int, float, float]] = []
        self._lock = threading.Lock()  # `put` and `flush`, whichever thread runs them
        self._scheduled = False
        self._connections = worker_connections()

    def put(self, scope: Scope, status: int, seconds: float) -> None:
        with self._lock:
            self._waiting.append((scope, status, seconds, time.time()))
            if self._scheduled:
                return
            deferred = self._scheduled = self._connections.busy() > 0
        if deferred:
            asyncio.get_running_loop().call_soon(self.flush)
        else:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            waiting, self._waiting, self._scheduled = self._waiting, [], False
        if not waiting or not log.isEnabledFor(logging.INFO):
            return
        log.info(
            "\n".join(
                _encode(
                    access_record(scope, status, seconds * 1000, datetime.fromtimestamp(at, UTC))
                ).decode()
                for scope, status, seconds, at in waiting
            )
        )


CLIENT_CLOSED_REQUEST = 499
"""The status logged (and counted) for a request whose client disconnected before any response
(serve/front.py `Cycle`)."""


SERVER_LOGGER = "serve.server"


class ServerLogName(logging.Filter):
    """uvicorn's own lines (start, stop, bind failures, bad requests) under `serve.server`.

    uvicorn writes them all to a logger named `uvicorn.error`, so "Started server process" read
    as an error line; each record keeps its own level, only the name changes."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.name = SERVER_LOGGER
        return True


LOG_CONFIG: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"server_name": {"()": "serve.access_log.ServerLogName"}},
    "formatters": {
        "message": {"format": "%(message)s"},
        "service": {"format": "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"},
    },
    "handlers": {
        "access": {"class": "logging.StreamHandler", "formatter": "message", "stream": "ext://sys.stdout"},
        "service": {"class": "logging.StreamHandler", "formatter": "service", "stream": "ext://sys.stderr"},
        "server": {
            "class": "logging.StreamHandler",
            "formatter": "service",
            "filters": ["server_name"],
            "stream": "ext://sys.stderr",
        },
    },
    "loggers": {
        "serve.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        "serve": {"handlers": ["service"], "level": "INFO", "propagate": False},
        "datasets": {"handlers": ["service"], "level": "INFO", "propagate": False},
        # Keys and the identity cache (`access`, serve/identity before issue 46's house move, when
        # `serve` covered it): its change lines name when each worker dropped a key.
        "access": {"handlers": ["service"], "level": "INFO", "propagate": False},
        "uvicorn": {"handlers": ["server"], "level": "INFO", "propagate": False},
        "uvicorn.error": {"level": "INFO"},
        "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
    },
}


def log_config(level: str) -> dict[str, Any]:
    """`LOG_CONFIG` with the service loggers at `level` (access lines stay at INFO)."""
    config = json.loads(json.dumps(LOG_CONFIG))
    for name in ("serve", "datasets", "access", "uvicorn"):
        config["loggers"][name]["level"] = level.upper()
    return config
