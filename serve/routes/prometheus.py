"""`GET /metrics`: the Prometheus scrape, outside `/v1` (docs/operations.md "Monitoring").

Mounted only when `ALPHA_RESULTS_PROMETHEUS` is on (off, `/metrics` is 404 `not_found` like any
unknown path). Like `/openapi.json` it carries no registry id, so no API key is read and it is never
metered (`serve.auth.is_public`), and it is left out of the OpenAPI document; it follows the app's
path rules (`/metrics/` 404, HEAD or POST 404 `method_not_allowed`) and ignores any query string.
With `ALPHA_RESULTS_PROMETHEUS_TOKEN_FILE` set it answers only a request that presents that token:
none is 401 `missing_api_key`, another 401 `invalid_api_key` (compared in constant time).

Any worker answers for all of them (the multiprocess folder, serve/prometheus.py), in a worker
thread: merging the workers' files and reading the records database never stall the event loop.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from anyio import to_thread
from litestar import Request, Response, get
from litestar.types import ControllerRouterHandler

from core import errors
from core.settings import Settings
from serve.auth import services_of
from serve.prometheus import backlog_families, read_events_backlog
from serve.scrape_token import matches, presented, read_scrape_token

log = logging.getLogger("serve.prometheus")

METRICS_PATH = "/metrics"


def routes(settings: Settings) -> list[ControllerRouterHandler]:
    """`/metrics` when the metrics are on, else nothing."""
    if not settings.prometheus:
        return []
    token = read_scrape_token(settings.prometheus_token_file) if settings.prometheus_token_file else None

    @get(METRICS_PATH, include_in_schema=False, name="metrics")
    async def metrics(request: Request[Any, Any, Any]) -> Response[bytes]:
        if token is not None:
            given = presented(request.headers.get("authorization"))
            if given is None:
                raise errors.MissingApiKey(
                    "/metrics needs the operator's metrics token; send Authorization: Bearer <token>.",
                    headers={"WWW-Authenticate": "Bearer"},
                )
            if not matches(given, token):
                raise errors.InvalidApiKey("The bearer token is not the metrics token.")
        services = services_of(request)
        assert services.metrics is not None  # mounted with the metrics on (serve.app)
        extra = await records_figures(services.records)
        body, content_type = await to_thread.run_sync(
            services.metrics.exposition, extra, request.headers.get("accept")
        )
        return Response(body, media_type=content_type, headers={"Cache-Control": "no-store"})

    return [metrics]


async def records_figures(records: Any | None) -> list[Any]:
    """The records database's figures (`serve.prometheus.backlog_families`); none when the app
    keeps no records or the database cannot be read now (the scrape still answers, with every
    worker's figures: `alpha_results_keystore_up` says the database is down)."""
    if records is None:
        return []
    try:
        last, backlog, followups = await records.read(read_events_backlog)
    except errors.UpstreamUnavailable:
        return []
    except Exception:  # a bug here must not take every worker's figures out of the scrape
        log.exception("metrics: the records' figures could not be read")
        return []
    return list(backlog_families(last, backlog, dt.datetime.now(dt.UTC), followups))
