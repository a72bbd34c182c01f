"""The endpoint registry: every `/v1` endpoint's id (also its OpenAPI operationId), its group and
its flags: what a key's allow-list names, loadable without the server.

Everything else about an endpoint (path, summary, query parameters, rows and `meta`) is declared by
its handler (`serve.routes.declare.route`, collected by `serve.endpoints`), which also derives
`registry_version` from the ids, groups, paths and flags.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Endpoint:
    id: str
    group: str
    public: bool = False  # no key needed (only /v1/health)
    admin: bool = False  # effective only on a platform administrator's key


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("meta.health", "meta", public=True),
    Endpoint("meta.me", "meta"),
    Endpoint("meta.keys", "meta"),
    Endpoint("catalog.alphas.list", "catalog"),
    Endpoint("catalog.alphas.get", "catalog"),
    Endpoint("catalog.alphas.source.download", "catalog"),
    Endpoint("signals.rebalances.list", "signals"),
    Endpoint("signals.rebalances.get", "signals"),
    Endpoint("signals.scores", "signals"),
    Endpoint("portfolio.books", "portfolio"),
    Endpoint("portfolio.ledger", "portfolio"),
    Endpoint("portfolio.positions", "portfolio"),
    Endpoint("portfolio.pnl", "portfolio"),
    Endpoint("portfolio.trades", "portfolio"),
    Endpoint("portfolio.equity_curve", "portfolio"),
    Endpoint("performance.metrics", "performance"),
    Endpoint("performance.metrics.doc", "performance"),
    Endpoint("benchmarks.daily", "benchmarks"),
    Endpoint("analytics.significance", "analytics"),
    Endpoint("analytics.correlation", "analytics"),
    Endpoint("analytics.drawdowns", "analytics"),
    Endpoint("analytics.rolling", "analytics"),
    Endpoint("analytics.costs", "analytics"),
    Endpoint("analytics.screen", "analytics"),
    Endpoint("analytics.combine", "analytics"),
    Endpoint("analytics.contribution", "analytics"),
    Endpoint("analytics.checks", "analytics"),
    Endpoint("analytics.compare", "analytics"),
    Endpoint("analytics.risk", "analytics"),
    Endpoint("analytics.doc", "analytics"),
    Endpoint("exports.list", "exports"),
    Endpoint("exports.download", "exports"),
    Endpoint("admin.alphas.readiness", "admin", admin=True),
    Endpoint("admin.keys.usage", "admin", admin=True),
    Endpoint("admin.builds.list", "admin", admin=True),
)

BY_ID: dict[str, Endpoint] = {e.id: e for e in ENDPOINTS}
ALL_IDS: tuple[str, ...] = tuple(e.id for e in ENDPOINTS)
ADMIN_IDS: frozenset[str] = frozenset(e.id for e in ENDPOINTS if e.admin)
META_IDS: tuple[str, ...] = ("meta.health", "meta.keys", "meta.me")  # the self-created default
