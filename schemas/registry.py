"""The endpoint registry: every route's id (also its OpenAPI operationId), group, path, summary,
query parameters (a `schemas.query` Struct) and response row and summary fields.

The app mounts each route from its entry here (`serve.routes.declare.route`), so none of these
is written a second time.

The endpoint allow-list on a key names these ids. `REGISTRY_VERSION` is derived from the registry
itself, so it changes whenever an endpoint or a group changes (and only then).
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass

from schemas.query import (
    BenchmarkQuery,
    BookQuery,
    BookWindowPageQuery,
    BookWindowQuery,
    CatalogueQuery,
    ChecksQuery,
    CombineQuery,
    CompareQuery,
    ContributionQuery,
    CorrelationQuery,
    ExportQuery,
    LedgerQuery,
    MetricsQuery,
    NoQuery,
    PageQuery,
    Param,
    Query,
    RiskQuery,
    RollingQuery,
    ScoresQuery,
    ScreenQuery,
    SeriesQuery,
    SignificanceQuery,
    TradesQuery,
    WeekQuery,
    WindowPageQuery,
    params_of,
)


@dataclass(frozen=True)
class Endpoint:
    id: str
    group: str
    path: str  # Litestar path template
    summary: str
    query: type[Query] = NoQuery  # the query parameters it accepts (schemas.query)
    rows: str | None = None  # a collection's row fields: the name of a field set of schemas.wire
    summary_fields: str | None = None  # the fields of its `meta.summary`, likewise, if any
    meta: tuple[str, ...] = ()  # `meta` keys it echoes besides the shared ones (bodies.envelope)
    public: bool = False  # no key needed (only /v1/health)
    admin: bool = False  # effective only on a platform administrator's key

    @property
    def row_fields(self) -> tuple[str, ...] | None:
        """The row fields, in wire order (named, not imported: `schemas.wire` derives them from the
        lake's Arrow schemas, and the registry's ids must load without pyarrow)."""
        return _wire_fields(self.rows)

    @property
    def summary_field_names(self) -> tuple[str, ...] | None:
        return _wire_fields(self.summary_fields)

    @property
    def collection(self) -> bool:
        """A collection answers pages in every representation: its query declares `format`."""
        return any(param.name == "format" for param in self.params)

    @property
    def params(self) -> tuple[Param, ...]:
        """The query parameters, in documentation order."""
        return params_of(self.query)


def _wire_fields(name: str | None) -> tuple[str, ...] | None:
    if name is None:
        return None
    fields: tuple[str, ...] = getattr(importlib.import_module("schemas.wire"), name)
    return fields


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("meta.health", "meta", "/v1/health", "Health probe", public=True),
    Endpoint("meta.me", "meta", "/v1/me", "Identity, limits and usage of the calling key", meta=("key_id",)),
    Endpoint(
        "meta.keys",
        "meta",
        "/v1/me/keys",
        "Inventory of the caller's keys",
        query=PageQuery,
        meta=("key_id",),
    ),
    Endpoint(
        "catalog.alphas.list",
        "catalog",
        "/v1/alphas",
        "List of alphas",
        rows="ALPHA_LIST_FIELDS",
        query=CatalogueQuery,
    ),
    Endpoint(
        "catalog.alphas.get",
        "catalog",
        "/v1/alphas/{alpha:str}",
        "Written description of one alpha",
    ),
    Endpoint(
        "catalog.alphas.source.download",
        "catalog",
        "/v1/alphas/{alpha:str}/source/download",
        "Signed download URL of the alpha's source archive",
    ),
    Endpoint(
        "signals.rebalances.list",
        "signals",
        "/v1/alphas/{alpha:str}/rebalances",
        "Rebalance index",
        rows="REBALANCE_INDEX_FIELDS",
        query=WindowPageQuery,
    ),
    Endpoint(
        "signals.rebalances.get",
        "signals",
        "/v1/alphas/{alpha:str}/rebalances/{date:str}",
        "Cross-section of one rebalance week",
        rows="DECISION_FIELDS",
        query=WeekQuery,
        meta=("date", "week_status", "n_symbols"),
    ),
    Endpoint(
        "signals.scores",
        "signals",
        "/v1/alphas/{alpha:str}/scores",
        "Per-symbol per-week score panel",
        rows="SCORE_ALL_FIELDS",
        query=ScoresQuery,
        meta=("fields",),
    ),
    Endpoint(
        "portfolio.books",
        "portfolio",
        "/v1/alphas/{alpha:str}/books",
        "Books and kinds written",
        rows="BOOK_FIELDS",
        query=PageQuery,
    ),
    Endpoint(
        "portfolio.ledger",
        "portfolio",
        "/v1/alphas/{alpha:str}/portfolio",
        "Daily ledger of a book",
        rows="PORTFOLIO_FIELDS",
        query=LedgerQuery,
    ),
    Endpoint(
        "portfolio.positions",
        "portfolio",
        "/v1/alphas/{alpha:str}/positions",
        "Daily positions",
        rows="POSITION_FIELDS",
        query=BookQuery,
    ),
    Endpoint(
        "portfolio.pnl",
        "portfolio",
        "/v1/alphas/{alpha:str}/pnl",
        "Daily per-symbol P&L",
        rows="PNL_FIELDS",
        query=BookQuery,
    ),
    Endpoint(
        "portfolio.trades",
        "portfolio",
        "/v1/alphas/{alpha:str}/trades",
        "Fills of a book",
        rows="TRADE_FIELDS",
        query=TradesQuery,
    ),
    Endpoint(
        "portfolio.equity_curve",
        "portfolio",
        "/v1/alphas/{alpha:str}/equity-curve",
        "Equity curve of a book",
        rows="EQUITY_CURVE_FIELDS",
        summary_fields="EQUITY_SUMMARY_FIELDS",
        query=SeriesQuery,
    ),
    Endpoint(
        "performance.metrics",
        "performance",
        "/v1/alphas/{alpha:str}/metrics",
        "Metrics",
        query=MetricsQuery,
    ),
    Endpoint(
        "performance.metrics.doc",
        "performance",
        "/v1/alphas/{alpha:str}/metrics/_doc",
        "Metrics documentation block",
    ),
    Endpoint(
        "benchmarks.daily",
        "benchmarks",
        "/v1/benchmarks/{symbol:str}/daily",
        "Daily benchmark series",
        rows="BENCHMARK_FIELDS",
        summary_fields="BENCHMARK_SUMMARY_FIELDS",
        query=BenchmarkQuery,
        meta=("symbol",),
    ),
    Endpoint(
        "analytics.significance",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/significance",
        "Significance of the long_short Sharpe ratio and the IC, corrected for the catalogue's trials",
        query=SignificanceQuery,
    ),
    Endpoint(
        "analytics.correlation",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/correlation",
        "Correlation with every other alpha the key may read",
        rows="CORRELATION_FIELDS",
        query=CorrelationQuery,
        meta=("basis",),
    ),
    Endpoint(
        "analytics.drawdowns",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/drawdowns",
        "Drawdown episodes of a book",
        rows="DRAWDOWN_FIELDS",
        query=BookWindowPageQuery,
    ),
    Endpoint(
        "analytics.rolling",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/rolling",
        "Trailing-window IC and return figures per rebalance week",
        rows="ROLLING_FIELDS",
        query=RollingQuery,
        meta=("window_weeks", "signal"),
    ),
    Endpoint(
        "analytics.costs",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/costs",
        "Break-even cost, turnover by score decile and holding period of a book",
        query=BookWindowQuery,
    ),
    Endpoint(
        "analytics.screen",
        "analytics",
        "/v1/analytics/screen",
        "Alphas the key may read, filtered and sorted on their headline figures and classification",
        rows="SCREEN_FIELDS",
        query=ScreenQuery,
    ),
    Endpoint(
        "analytics.combine",
        "analytics",
        "/v1/analytics/combine",
        "A weighted combination of alphas: its daily series, figures, weights and correlations",
        rows="COMBINED_FIELDS",
        query=CombineQuery,
        meta=(
            "window",
            "benchmark",
            "alphas",
            "weighting",
            "shrinkage",
            "weights",
            "sessions",
            "session_rule",
            "figures",
            "correlation",
        ),
    ),
    Endpoint(
        "analytics.contribution",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/contribution",
        "What adding the alpha does to a reference set's figures",
        query=ContributionQuery,
    ),
    Endpoint(
        "analytics.checks",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/checks",
        "Pass/fail checks of a book against the operator's policy",
        query=ChecksQuery,
    ),
    Endpoint(
        "analytics.compare",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/compare",
        "Two alphas side by side: curves, rolling correlations and the significance of differences",
        query=CompareQuery,
        meta=("with_source",),
    ),
    Endpoint(
        "analytics.risk",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/risk",
        "Benchmark-relative and tail figures of a book against SPY",
        query=RiskQuery,
    ),
    Endpoint(
        "analytics.doc",
        "analytics",
        "/v1/alphas/{alpha:str}/analytics/_doc",
        "Analytics documentation block",
    ),
    Endpoint(
        "exports.list",
        "exports",
        "/v1/alphas/{alpha:str}/exports",
        "Parquet exports of the alpha's datasets",
        query=PageQuery,
    ),
    Endpoint(
        "exports.download",
        "exports",
        "/v1/alphas/{alpha:str}/exports/{dataset:str}",
        "Signed download URL of one dataset as a Parquet file",
        query=ExportQuery,
    ),
    Endpoint(
        "admin.alphas.readiness",
        "admin",
        "/v1/admin/alphas/{alpha:str}/readiness",
        "Readiness of one alpha",
        admin=True,
    ),
    Endpoint(
        "admin.keys.usage",
        "admin",
        "/v1/admin/keys/{key_id:str}/usage",
        "Usage of one key",
        admin=True,
        meta=("key_id",),
    ),
    Endpoint(
        "admin.builds.list",
        "admin",
        "/v1/admin/builds",
        "Catalogue of published builds",
        query=PageQuery,
        admin=True,
    ),
)

BY_ID: dict[str, Endpoint] = {e.id: e for e in ENDPOINTS}
ALL_IDS: tuple[str, ...] = tuple(e.id for e in ENDPOINTS)
ADMIN_IDS: frozenset[str] = frozenset(e.id for e in ENDPOINTS if e.admin)
META_IDS: tuple[str, ...] = ("meta.health", "meta.keys", "meta.me")  # the self-created default


def _registry_version() -> str:
    canonical = json.dumps([[e.id, e.group, e.path, e.admin] for e in ENDPOINTS], separators=(",", ":"))
    return "r-" + hashlib.sha256(canonical.encode()).hexdigest()[:12]


REGISTRY_VERSION = _registry_version()
