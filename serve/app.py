"""The Litestar app: settings read once, backends opened once, one error path for every failure.

Request path (DESIGN.md), run by the one-pass layer in front of the router (serve/front.py):
canonical path check (a trailing slash or an empty segment → 404 `not_found`; Litestar would
otherwise normalise `/v1/me/` and `/v1//me` to `/v1/me`) → `/v1/health` from the monitor's state →
router (unknown path → 404 `not_found`) → the method (others → 404 `method_not_allowed`, before any
key is read) → the key in the URL, the key, the endpoint allow-list → the limiter → handler (resolve
the alpha, validate parameters, one reader call) → envelope → msgspec JSON. Every response carries
`X-Request-ID` and `X-Content-Type-Options: nosniff`.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from litestar import Litestar
from litestar.datastructures import State

from access.authenticate import authenticate_async
from access.cache import IdentityCache, identity_cache
from access.deferred_store import open_store_or_defer
from access.usage_ledger import SqlUsageLedger
from analytics.policy import load_policy
from core.settings import Settings
from datasets.reader import LakeReader
from serve.access_log import AccessQueue
from serve.auth import (
    Authenticator,
    Services,
)
from serve.compression import COMPRESSION
from serve.doc_blocks.analytics_doc import shared_analytics_doc
from serve.doc_blocks.llms import llms_text
from serve.doc_blocks.metrics_doc import shared_metrics_doc
from serve.endpoints import registry_version
from serve.envelope import (
    json_bytes,
)
from serve.failures import handle_exception
from serve.front import Front
from serve.health import monitor_of, start_health_monitor, stop_health_monitor
from serve.limits import Limiter, open_limiter
from serve.limits.as_of import AsOfBudget
from serve.model_context.mount import mounted as mcp_mounted
from serve.model_context.tools import tool_hashes
from serve.openapi import DeclaredAnswers, openapi_config, served
from serve.prometheus import ServerMetrics, forget_dead_workers, worker_stopped
from serve.records import RecordsSource
from serve.resources import limit_memory_arenas, log_open_files_limit
from serve.routes import ROUTE_HANDLERS, dashboard, developer, meta, prometheus, sharing
from serve.start_gc import started as collector_started
from serve.warm import ImportWatch, warm

log = logging.getLogger("serve.app")


MOUNTED_ENDPOINTS: tuple[str, ...] = tuple(
    endpoint for handler in ROUTE_HANDLERS if isinstance(endpoint := handler.opt.get("endpoint"), str)
)
"""Registry ids of the handlers the app mounts, in mounting order (the OpenAPI document's paths)."""


def openapi_document_of(app: Litestar) -> dict[str, Any]:
    """The OpenAPI document Litestar generated from `app`'s routes, completed with what no handler
    declares (`serve.openapi.complete`)."""
    return served(app.openapi_schema)


def document_options() -> dict[str, Any]:
    """What the app's OpenAPI document is built with, for `create_app` and `openapi_document`
    alike, so `/openapi.json` and docs/reference.md cannot differ."""
    return {"openapi_config": openapi_config(meta.build_version()), "plugins": [DeclaredAnswers()]}


def openapi_document() -> dict[str, Any]:
    """The document `create_app` serves, without building its services (docs/reference.md)."""
    return openapi_document_of(
        Litestar(
            route_handlers=[*ROUTE_HANDLERS],
            logging_config=None,  # a document is built, nothing is served: leave logging as it is
            **document_options(),
        )
    )


def default_authenticator(store: IdentityCache) -> Authenticator:
    async def run(authorization: str | None, client_ip: str, now: Any) -> Any:
        return await authenticate_async(store, authorization, client_ip, now)

    return run


def create_app(
    settings: Settings | None = None,
    *,
    authenticate: Authenticator | None = None,
    store: Any | None = None,
    limiter: Any | None = None,
    reader: LakeReader | None = None,
    records: RecordsSource | None = None,
) -> Litestar:
    """The app over `settings` (read from the environment when None).

    Tests pass `authenticate` (a Caller factory) and may pass `limiter=None` with a custom
    authenticator to run without a key store; production opens both from the settings, and the
    records (promotions, events) from the key store's database. An app given `authenticate` or a
    `store` keeps the `records` it is given (none: no alpha is approved, no decision served). The
    store the app opens is read through the identity cache that the store's changes invalidate
    (access/cache.py); a store passed in is read on every request.
    """
    settings = settings or Settings.from_env()
    opened_limiter: Any = None  # a limiter passed in belongs to the caller, who starts and closes it
    cache: IdentityCache | None = None
    if authenticate is None and store is None:
        store = open_store_or_defer(settings.keystore_url)
        cache = identity_cache(store, settings.keystore_url)
        # The deployment's records live beside its keys (a store passed in is a test's own).
        if records is None:
            records = RecordsSource(settings.keystore_url)
    elif store is not None:
        # A store passed in (a test's) is read on every request: the test changes it at will.
        cache = IdentityCache(store)
    if authenticate is None:
        assert store is not None and cache is not None
        authenticate = default_authenticator(cache)
        if limiter is None:
            # Day and month usage is durable in the key store, whatever holds the live counters.
            limiter = opened_limiter = open_limiter(settings.limiter_url, ledger=SqlUsageLedger(store))
    services = Services(
        settings=settings,
        reader=reader
        or LakeReader(
            settings.lake,
            settings.lake_refresh_seconds,
            cache_dir=settings.serving_cache_dir,
            cache_bytes=settings.serving_cache_bytes,
            max_open_builds=settings.max_open_builds,
            scrub_builds_per_pass=settings.scrub_builds_per_pass,
            hash_bytes_per_pass=settings.hash_bytes_per_pass,
        ),
        authenticate=authenticate,
        registry_version=registry_version(),
        analytics_doc=shared_analytics_doc(),
        metrics_doc=shared_metrics_doc(),
        limiter=limiter,
        store=cache,
        # A bad policy file stops the start here, with a message naming the setting and the rule.
        checks_policy=load_policy(settings.checks_policy_file),
        records=records,
        metrics=ServerMetrics.for_process() if settings.prometheus else None,
        as_of_budget=AsOfBudget.of(settings),
    )

    imports = ImportWatch()
    app = Litestar(
        # `/`, `/docs`, `/openapi.json` and the assets: public, unmetered, outside the registry
        # (serve/routes/developer.py); Litestar's own `/schema` router serves the same document.
        # `/ui`, the research dashboard, likewise (serve/routes/dashboard.py).
        # `/metrics`, when on: public to keys (its own token), unmetered, not in the document.
        route_handlers=[
            *ROUTE_HANDLERS,
            *developer.routes(),
            *dashboard.routes(),
            *prometheus.routes(settings),
            *sharing.routes(),  # `/delta-sharing`: the protocol's own paths, methods and errors
        ],
        exception_handlers={Exception: handle_exception},
        compression_config=COMPRESSION,
        **document_options(),
        # Logging is configured by whoever runs the app (uvicorn, pytest); the app only emits records.
        logging_config=None,
        state=_state(services),
        # Health is probed in the background from startup on (serve/health.py).
        # The lake's catalogue is read, and then refreshed, by the reader's own thread.
        on_startup=[
            partial(limit_memory_arenas, settings.malloc_arenas),
            partial(log_open_files_limit, settings.max_open_builds),
            services.reader.start,
            # Before the worker takes a request: every route then answers at its steady cost.
            partial(warm, services.reader),
            *metrics_start(services),
            start_health_monitor,
            *usage_sync_start(opened_limiter),
            *([cache.start] if cache is not None else []),
            collector_started,  # the collector's thresholds as they were before the start (serve.start_gc)
            imports.ready,  # last: what startup imported is known
        ],
        on_shutdown=[
            *metrics_stop(services),
            stop_health_monitor,
            *([cache.stop] if cache is not None else []),
            *([limiter.detach] if isinstance(limiter, Limiter) else []),
            *usage_sync_stop(opened_limiter),
            services.reader.close,
            *([records.close] if records is not None else []),
        ],
        debug=False,
    )
    document = openapi_document_of(app)
    developer.publish(app, document, llms_text(document, tool_hashes()))
    # Every HTTP request passes the one-pass layer (serve/front.py): the request's exchange, the
    # canonical path, health, routing, the guard steps, the standard headers and the access line;
    # `/mcp` and what the router refuses go on to the app's own handler (behind the MCP mount).
    access = AccessQueue()
    app.on_shutdown.append(access.flush)
    app.asgi_handler = Front(
        app,
        mcp_mounted(app.asgi_handler, app),
        services,
        imports,
        access,
        services.metrics.record_request if services.metrics is not None else None,
        partial(health_bytes, app, services),
    )
    return app


def health_bytes(app: Litestar, services: Services) -> bytes:
    """`/v1/health`'s body from the monitor's last state (`meta.health_body`, as the routed
    handler answers it): answered before routing, so a flood of probes takes little from keyed
    requests on the same worker."""
    return json_bytes(
        meta.health_body(services.settings, services.registry_version, monitor_of(app).current())
    )


def metrics_start(services: Services) -> list[Any]:
    """With the metrics on, a worker's start forgets workers that died unannounced, and its health
    monitor hands every state to the sampler (before the first probe, so the gauges are set before
    the worker takes a request)."""
    metrics = services.metrics
    if metrics is None:
        return []

    def attach_sampler(app: Litestar) -> None:
        answers = getattr(app.asgi_handler, "answers", None)  # the one-pass layer's (serve/front.py)
        monitor_of(app).observers.append(
            metrics.sampler(services.reader, services.limiter, services.store, answers)
        )

    return [forget_dead_workers, attach_sampler]


def metrics_stop(services: Services) -> list[Any]:
    """Shutdown hooks run last to first: the worker's live gauges leave the merge after its monitor
    stopped writing them."""
    return [] if services.metrics is None else [worker_stopped]


def usage_sync_start(limiter: Any | None) -> list[Any]:
    """The limiter the app opened writes the day and month counts it enforced to the key store
    every second (serve/limits/ledger.py), from startup until shutdown."""
    return [] if limiter is None else [limiter.start_sync]


def usage_sync_stop(limiter: Any | None) -> list[Any]:
    return [] if limiter is None else [limiter.close]


def _state(services: Services) -> Any:

    return State({"services": services})
