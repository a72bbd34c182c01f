"""The API's figures in a notebook: open a lake (a local folder or `s3://...`) and ask for any
route's figure of an alpha, a set or a window, as the same Struct the API serves
(docs/analytics.md, "In a notebook").

    from analytics.figures import Figures

    figures = Figures.open("var/lake")
    risk = figures.risk("momentum_12_1", start=date(2022, 1, 1))   # schemas.bodies.decisions.Risk
    page = figures.correlation("momentum_12_1", basis="ic", limit=10)
    risk.sortino.value, risk.sortino.unit
    msgspec.json.encode(risk)   # byte for byte the `data` of /v1/alphas/momentum_12_1/analytics/risk

Each method takes the route's query parameters as keywords, with the route's defaults and names
(its `schemas.query` Struct: `from`/`to` are `start`/`end`). A notebook reads as a key that may read everything: every alpha and book, raw books included, and
every dataset a figure is built from. The computation is the server's own (the same functions, the
same builds): the served `data` of a route and the Struct returned here encode to the same bytes
(tests/analytics/test_in_process.py). Warnings the API would put in `meta.warnings` are collected
in `warnings` when one is given. A bad argument raises the domain error the API answers 400 for
(`analytics.errors.BadParameters`); an unknown alpha or book raises `LookupError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics import correlation, costs, drawdowns, metrics, risk, rolling, significance
from analytics.access import FULL_ACCESS
from analytics.entries import Warnings
from analytics.inputs import require_built
from datasets import answers
from datasets.catalogue_snapshot import CatalogueSnapshot
from datasets.queries import Page, page_of
from datasets.reader import BuildView, LakeReader
from datasets.series import benchmark_series
from schemas import wire
from schemas.bodies.analytics import Costs, Significance
from schemas.bodies.decisions import Risk
from schemas.bodies.metrics import Metrics
from schemas.query import (
    BookWindowPageQuery,
    BookWindowQuery,
    CorrelationQuery,
    MetricsQuery,
    RiskQuery,
    RollingQuery,
    SignificanceQuery,
)


@dataclass
class Figures:
    """One lake, read in-process (see the module's docstring)."""

    reader: LakeReader

    @classmethod
    def open(cls, root: str) -> Figures:
        """The lake at `root` (a folder or `s3://bucket/prefix`), as the server reads it."""
        reader = LakeReader(root)
        reader.refresh()
        return cls(reader)

    def build(self, alpha: str) -> BuildView:
        """The served build of `alpha`; `LookupError` when the lake publishes none."""
        found = self.reader.alpha(alpha)
        if found is None:
            raise LookupError(f"no alpha {alpha!r} in {self.reader.root}")
        return self.reader.view(found)

    def _analytics_build(self, alpha: str) -> BuildView:
        view = self.build(alpha)
        require_built(view)
        return view

    def _book(self, view: BuildView, book: str) -> str:
        try:
            return answers.checked_book(view, "portfolio", book, raw=True)
        except answers.NoSuchBook as exc:
            raise LookupError(f"no book {book!r}: {', '.join(exc.available)}") from exc

    def metrics(self, alpha: str, warnings: Warnings | None = None, **params: Any) -> Metrics:
        """`/v1/alphas/{alpha}/metrics`; `params` those of `MetricsQuery` (`doc` aside)."""
        q = MetricsQuery(**params)
        found, entries = metrics.compute_metrics(
            metrics.metrics_inputs(self.build(alpha)), q.granularity, q.start, q.end, q.panel, FULL_ACCESS
        )
        _collect(warnings, entries)
        return found

    def significance(self, alpha: str, warnings: Warnings | None = None, **params: Any) -> Significance:
        """`/analytics/significance` (`SignificanceQuery`), its catalogue figures over every alpha."""
        q = SignificanceQuery(**params)
        view = self._analytics_build(alpha)
        snapshot = self.reader.snapshot()
        seen = significance.seen(snapshot.trials(), self._everything(snapshot), view.alpha_id)
        return significance.significance_payload(
            view, (q.start, q.end), q.sr_benchmark, q.trials, seen, FULL_ACCESS, warnings or Warnings()
        )

    def costs(self, alpha: str, warnings: Warnings | None = None, **params: Any) -> Costs:
        """`/analytics/costs` of one book (`BookWindowQuery`)."""
        q = BookWindowQuery(**params)
        view = self._analytics_build(alpha)
        book = self._book(view, q.book)
        return costs.costs_payload(view, book, (q.start, q.end), FULL_ACCESS, warnings or Warnings())

    def risk(self, alpha: str, warnings: Warnings | None = None, **params: Any) -> Risk:
        """`/analytics/risk` of one book against the market benchmark (`RiskQuery`)."""
        q = RiskQuery(**params)
        view = self._analytics_build(alpha)
        book = self._book(view, q.book)
        symbol = wire.MARKET_BENCHMARK
        found = self.reader.benchmark(symbol)
        bench = None if found is None else benchmark_series(self.reader.view(found), symbol)
        return risk.risk_payload(
            view, book, (q.start, q.end), FULL_ACCESS, bench, warnings or Warnings(), symbol
        )

    def correlation(self, alpha: str, **params: Any) -> Page:
        """`/analytics/correlation` (`CorrelationQuery`): against every other alpha of the lake."""
        q = CorrelationQuery(**params)
        view = self._analytics_build(alpha)
        snapshot = self.reader.snapshot()
        return correlation.correlation_page(
            snapshot, view.alpha_id, self._everything(snapshot), q.basis, (q.start, q.end), q.limit, q.offset
        )

    def drawdowns(self, alpha: str, **params: Any) -> Page:
        """`/analytics/drawdowns` of one book (`BookWindowPageQuery`), deepest first."""
        q = BookWindowPageQuery(**params)
        view = self._analytics_build(alpha)
        book = self._book(view, q.book)
        return page_of(drawdowns.drawdown_rows(view, book, (q.start, q.end)), q.limit, q.offset)

    def rolling(self, alpha: str, **params: Any) -> Page:
        """`/analytics/rolling` of one book (`RollingQuery`)."""
        q = RollingQuery(**params)
        view = self._analytics_build(alpha)
        book = self._book(view, q.book)
        return rolling.rolling_page(view, book, int(q.window), (q.start, q.end), q.limit, q.offset)

    @staticmethod
    def _everything(snapshot: CatalogueSnapshot) -> np.ndarray:
        """The readable mask of a caller that may read every alpha."""
        listing = snapshot.catalogue.listing
        assert listing is not None
        return np.ones(len(listing.ids), dtype=bool)


def _collect(warnings: Warnings | None, entries: list[dict[str, str]]) -> None:
    if warnings is not None:
        for entry in entries:
            warnings.add(entry["code"], entry["message"], block=entry.get("block"), kind=entry.get("kind"))
