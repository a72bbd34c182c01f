"""Route handlers, one module per resource group; `ROUTE_HANDLERS` is what the app mounts (the
landing page, `/docs` and the dashboard's pages aside: `developer.routes()`, `dashboard.routes()`)."""

from __future__ import annotations

from typing import Any

from serve.routes import (
    admin,
    analytics,
    approved_health,
    benchmarks,
    catalog,
    checks,
    combine,
    compare,
    crowding,
    downloads,
    events,
    exports,
    meta,
    performance,
    portfolio,
    screen,
    signals,
    source,
)

ROUTE_HANDLERS: list[Any] = [
    *meta.ROUTES,
    *catalog.ROUTES,
    *signals.ROUTES,
    *portfolio.ROUTES,
    *performance.ROUTES,
    *analytics.ROUTES,
    *screen.ROUTES,
    *combine.ROUTES,
    *crowding.ROUTES,
    *approved_health.ROUTES,
    *checks.ROUTES,
    *compare.ROUTES,
    *benchmarks.ROUTES,
    *source.ROUTES,
    *exports.ROUTES,
    *admin.ROUTES,
    *downloads.ROUTES,
    *events.ROUTES,
]
