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
    public: bool = False  # no key needed (only /v1/health)
    admin: bool = False  # effective only on a platform administrator's key

    @property
    def group(self) -> str:
        """The id's first segment (`analytics.risk`: `analytics`): its OpenAPI tag."""
        return self.id.split(".", 1)[0]


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("meta.health", public=True),
    Endpoint("meta.me"),
    Endpoint("meta.keys"),
    Endpoint("catalog.alphas.list"),
    Endpoint("catalog.alphas.get"),
    Endpoint("catalog.alphas.source.download"),
    Endpoint("catalog.alphas.promotions"),
    Endpoint("catalog.alphas.restatements"),
    Endpoint("catalog.review"),
    Endpoint("catalog.families.list"),
    Endpoint("signals.rebalances.list"),
    Endpoint("signals.rebalances.get"),
    Endpoint("signals.scores"),
    Endpoint("portfolio.books"),
    Endpoint("portfolio.ledger"),
    Endpoint("portfolio.positions"),
    Endpoint("portfolio.pnl"),
    Endpoint("portfolio.trades"),
    Endpoint("portfolio.equity_curve"),
    Endpoint("performance.metrics"),
    Endpoint("performance.metrics.doc"),
    Endpoint("benchmarks.daily"),
    Endpoint("analytics.significance"),
    Endpoint("analytics.overfitting"),
    Endpoint("analytics.family_tests"),
    Endpoint("analytics.correlation"),
    Endpoint("analytics.drawdowns"),
    Endpoint("analytics.rolling"),
    Endpoint("analytics.costs"),
    Endpoint("analytics.uncertainty"),
    Endpoint("analytics.returns"),
    Endpoint("analytics.screen"),
    Endpoint("analytics.combine"),
    Endpoint("analytics.contribution"),
    Endpoint("analytics.checks"),
    Endpoint("analytics.promotion_preview"),
    Endpoint("analytics.compare"),
    Endpoint("analytics.risk"),
    Endpoint("analytics.live"),
    Endpoint("analytics.decay"),
    Endpoint("analytics.monitoring"),
    Endpoint("analytics.catalogue_bound"),
    Endpoint("analytics.drawdown_odds"),
    Endpoint("analytics.expectation"),
    Endpoint("analytics.attribution"),
    Endpoint("analytics.capacity"),
    Endpoint("analytics.factors"),
    Endpoint("analytics.quantiles"),
    Endpoint("analytics.sub_universe"),
    Endpoint("analytics.residual"),
    Endpoint("analytics.regimes"),
    Endpoint("analytics.mmc"),
    Endpoint("analytics.crowding"),
    Endpoint("analytics.approved_health"),
    Endpoint("analytics.doc"),
    Endpoint("exports.list"),
    Endpoint("exports.download"),
    Endpoint("events.list"),
    Endpoint("events.stream"),
    Endpoint("admin.alphas.readiness", admin=True),
    Endpoint("admin.keys.usage", admin=True),
    Endpoint("admin.builds.list", admin=True),
)

BY_ID: dict[str, Endpoint] = {e.id: e for e in ENDPOINTS}
ALL_IDS: tuple[str, ...] = tuple(e.id for e in ENDPOINTS)
ADMIN_IDS: frozenset[str] = frozenset(e.id for e in ENDPOINTS if e.admin)
META_IDS: tuple[str, ...] = ("meta.health", "meta.keys", "meta.me")  # the self-created default

X_REGISTRY_VERSION = "x-registry-version"
"""In the OpenAPI document's `info`: the registry version it declares (`registry_version` of
/v1/health and /v1/me), so that a client generated from the document alone knows it."""
