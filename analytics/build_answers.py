"""The answers of one alpha's build (issue 46): metrics, costs, uncertainty, drawdowns, rolling, risk, returns,
live, attribution, capacity, factors, quantiles and the comparison of two builds, each declared once.

Each answer checks what its figures need in the order every surface gives it (the build's analytics
tables, then the book, then what the reader may read), reads its inputs from the build through
`inputs`, and returns an `Answer`: the Struct (or page), the warnings of `meta.warnings` and the
version its ETag is made from. `Reading` holds these answers beside the catalogue's, so a route
(`ctx.reading()`), `Figures` (a notebook, the pipeline's snapshots and events) and MCP (through the
routes) ask the same one in their own scope: the server names the reader's scope, never a figure's
inputs.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from analytics import (
    attribution,
    book_returns,
    capacity,
    comparison,
    costs,
    drawdowns,
    factors,
    live,
    metrics,
    quantiles,
    regimes,
    risk,
    rolling,
    uncertainty,
)
from analytics.access import require_readable
from analytics.answer import Answer
from analytics.costs import DayFilter, every_day
from analytics.entries import Warnings
from analytics.errors import DataNotReadable
from analytics.inputs import require_built
from analytics.regimes import MarketRegimes
from analytics.restatements import restatement_rows
from analytics.tenure import Tenure
from datasets import answers
from datasets.queries import Page, Window, page_of
from datasets.reader import BuildView
from schemas.bodies.analytics import Costs
from schemas.bodies.attribution import Attribution
from schemas.bodies.capacity import Capacity
from schemas.bodies.comparison import Comparison
from schemas.bodies.decisions import Risk
from schemas.bodies.factors import Factors
from schemas.bodies.live import Live
from schemas.bodies.metrics import Metrics
from schemas.bodies.quantiles import Quantiles
from schemas.bodies.regimes import Regimes
from schemas.bodies.returns import BookReturns
from schemas.bodies.uncertainty import Uncertainty
from schemas.query import (
    AttributionQuery,
    BookWindowPageQuery,
    BookWindowQuery,
    CapacityQuery,
    CompareQuery,
    LiveQuery,
    MetricsQuery,
    QuantilesQuery,
    RegimeWindowQuery,
    RiskQuery,
    RollingQuery,
    WindowPageQuery,
)
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK

if TYPE_CHECKING:
    from analytics.reading import Scope
    from analytics.series import BenchmarkSeries


class BuildAnswers:
    """The answers of one build, in a reader's scope; mixed into `analytics.reading.Reading`, which
    gives `scope`, `book` and `market`."""

    scope: Scope

    # What `Reading` gives (the one place the reader's books and the market are read).
    def book(self, view: BuildView, book: str) -> str:
        raise NotImplementedError

    def market(self) -> BenchmarkSeries:
        raise NotImplementedError

    def market_regimes(self) -> MarketRegimes:
        raise NotImplementedError

    def tenure(self, alpha: str) -> Tenure | None:
        raise NotImplementedError

    @staticmethod
    def _answer(data: Any, warnings: Warnings, version: str) -> Answer[Any]:
        return Answer(data, warnings.entries, version)

    def _readable_market(self) -> BenchmarkSeries | None:
        """The market benchmark's series when the reader may call it; None: its figures withheld."""
        return self.market() if self.scope.may_call(BENCHMARK_ENDPOINT) else None

    def _book(self, view: BuildView, book: str) -> str:
        """The build's analytics tables (503 while they are being made), then the book (400)."""
        require_built(view)
        return self.book(view, book)

    def metrics(self, view: BuildView, q: MetricsQuery) -> Answer[Metrics]:
        """`/metrics`: the sealed headline figures and the series computed from the build."""
        data, entries = metrics.compute_metrics(
            metrics.metrics_inputs(view), q.granularity, q.start, q.end, q.panel, self.scope.access
        )
        warnings = Warnings()
        warnings.extend(entries)
        return self._answer(data, warnings, view.build_id)

    def costs(self, view: BuildView, q: RegimeWindowQuery) -> Answer[Costs]:
        """Over `q.regime`'s sessions when it names one (`_regime_filter`)."""
        book = self._book(view, q.book)
        kept, version = self._regime_filter(view, q.regime)
        warnings = Warnings()
        data = costs.costs_payload(view, book, (q.start, q.end), self.scope.access, warnings, kept)
        return self._answer(data, warnings, version)

    def regimes(self, view: BuildView, q: RegimeWindowQuery) -> Answer[Regimes]:
        """The book's figures by regime of the market benchmark, withheld for a key that may not
        read the benchmark; the version then names both builds."""
        book = self._book(view, q.book)
        found = self._readable_regimes()
        warnings = Warnings()
        data = regimes.regimes_payload(
            view, book, (q.start, q.end), q.regime, self.scope.access, found, MARKET_BENCHMARK, warnings
        )
        return self._answer(data, warnings, _with_regimes(view, found))

    def _readable_regimes(self) -> MarketRegimes | None:
        """The market benchmark's regimes when the reader may call its series; None: withheld."""
        return self.market_regimes() if self.scope.may_call(BENCHMARK_ENDPOINT) else None

    def _regime_filter(self, view: BuildView, regime: str | None) -> tuple[DayFilter, str]:
        """The days `regime` keeps and the answer's version. A regime is a label of the benchmark's
        series: a key that may not read it may not filter by it (403 naming its route)."""
        if regime is None:
            return every_day, view.build_id
        if not self.scope.may_call(BENCHMARK_ENDPOINT):
            raise DataNotReadable(
                f"regime splits sessions by labels of {MARKET_BENCHMARK}'s daily series; it needs {BENCHMARK_ENDPOINT}.",
                BENCHMARK_ENDPOINT,
            )
        found = self.market_regimes()
        return partial(regimes.session_filter, found, regime), _with_regimes(view, found)

    def uncertainty(self, view: BuildView, q: BookWindowQuery) -> Answer[Uncertainty]:
        """Bootstrap intervals of the book's headline figures over the window."""
        book = self._book(view, q.book)
        warnings = Warnings()
        data = uncertainty.uncertainty_payload(view, book, (q.start, q.end), self.scope.access, warnings)
        return self._answer(data, warnings, view.build_id)

    def drawdowns(self, view: BuildView, q: BookWindowPageQuery) -> Answer[Page]:
        """Every episode of the window, deepest first (the page is cut by the caller's limit)."""
        book = self._book(view, q.book)
        require_readable(self.scope.access, "ledger")
        page = page_of(drawdowns.drawdown_rows(view, book, (q.start, q.end)), q.limit, q.offset)
        return self._answer(page, Warnings(), view.build_id)

    def restatements(self, view: BuildView, q: WindowPageQuery) -> Answer[Page]:
        """The values later runs changed of what the lake had published (`analytics.restatements`),
        dated inside the window, newest restatement first, each with both values unless the key may
        not read what they are built from."""
        rows = restatement_rows(view, (q.start, q.end), self.scope.access)
        return self._answer(page_of(rows, q.limit, q.offset), Warnings(), view.build_id)

    def rolling(self, view: BuildView, q: RollingQuery) -> Answer[Page]:
        book = self._book(view, q.book)
        require_readable(self.scope.access, "ledger")
        require_readable(self.scope.access, "cross_sections")
        page = rolling.rolling_page(view, book, int(q.window), (q.start, q.end), q.limit, q.offset)
        return self._answer(page, Warnings(), view.build_id)

    def risk(self, view: BuildView, q: RiskQuery) -> Answer[Risk]:
        """Against the market benchmark when the reader may call its series (its figures are
        withheld otherwise); the version then names both builds."""
        book = self._book(view, q.book)
        market = self._readable_market()
        warnings = Warnings()
        data = risk.risk_payload(view, book, (q.start, q.end), self.scope.access, market, warnings)
        return self._answer(data, warnings, _with_market(view, market))

    def returns(self, view: BuildView, q: BookWindowQuery) -> Answer[BookReturns]:
        """Monthly and yearly returns and the trailing beta, against the market benchmark when the
        reader may call its series (withheld otherwise); the version then names both builds."""
        book = self._book(view, q.book)
        market = self._readable_market()
        warnings = Warnings()
        window: Window = (q.start, q.end)
        data = book_returns.returns_payload(view, book, window, self.scope.access, market, warnings)
        return self._answer(data, warnings, _with_market(view, market))

    def live(self, view: BuildView, q: LiveQuery) -> Answer[Live]:
        """The split: the query's, else the alpha's tenure's (`Reading.tenure`), else the seal's."""
        book = self._book(view, q.book)
        held = self.tenure(view.alpha_id)
        split = live.split_of(view, held, q.split)
        warnings = Warnings()
        data = live.live_payload(view, book, split, self.scope.access, warnings)
        return self._answer(
            data, warnings, f"{view.build_id}+{'tenure-none' if held is None else held.tag()}"
        )

    def attribution(self, view: BuildView, q: AttributionQuery) -> Answer[Attribution]:
        book = self._book(view, q.book)
        attribution.require_table(view)
        warnings = Warnings()
        window: Window = (q.start, q.end)
        data = attribution.attribution_payload(view, book, window, q.top, q.drop, self.scope.access, warnings)
        return self._answer(data, warnings, view.build_id)

    def capacity(self, view: BuildView, q: CapacityQuery) -> Answer[Capacity]:
        book = self._book(view, q.book)
        capacity.capital_grid(q.capital, q.grid)  # its 400 before any figure is computed
        warnings = Warnings()
        data = capacity.capacity_payload(
            view, book, (q.start, q.end), self.scope.access, warnings, q.capital, q.grid
        )
        return self._answer(data, warnings, view.build_id)

    def factors(self, view: BuildView, q: BookWindowQuery) -> Answer[Factors]:
        book = self._book(view, q.book)
        warnings = Warnings()
        data = factors.factors_payload(view, book, (q.start, q.end), self.scope.access, warnings)
        return self._answer(data, warnings, view.build_id)

    def quantiles(self, view: BuildView, q: QuantilesQuery) -> Answer[Quantiles]:
        require_built(view)
        score = quantiles.readable_score(q.score, self.scope.raw)
        warnings = Warnings()
        data = quantiles.quantiles_payload(
            view, score, q.quantiles, (q.start, q.end), self.scope.access, warnings
        )
        return self._answer(data, warnings, view.build_id)

    def compare(self, a: BuildView, b: BuildView, q: CompareQuery) -> Answer[Comparison]:
        """`a` against `b` (`q.other`, found and authorised by the caller) over one book both
        builds hold."""
        book = self.book(a, q.book)
        comparison.require_book(b, book, answers.readable_books(b, "portfolio", self.scope.raw))
        require_built(a)
        require_built(b)
        warnings = Warnings()
        data = comparison.compare_payload(
            a, b, book, (q.start, q.end), int(q.window), self.scope.access, warnings
        )
        return self._answer(data, warnings, f"{a.build_id}+{b.build_id}")


def _with_regimes(view: BuildView, found: MarketRegimes | None) -> str:
    """The version of an answer read from the build and, when read, the benchmark's regimes."""
    return view.build_id if found is None else f"{view.build_id}+{found.build_id}"


def _with_market(view: BuildView, market: BenchmarkSeries | None) -> str:
    """The version of an answer read from the build and, when read, the market benchmark's."""
    return view.build_id if market is None else f"{view.build_id}+{market.build_id}"
