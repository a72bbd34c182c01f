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

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

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
    sub_universe,
    uncertainty,
)
from analytics.access import Access, ReaderScope, require_readable
from analytics.answer import Answer, book_meta, served
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
from schemas import wire
from schemas.bodies.analytics import WINDOW
from schemas.bodies.attribution import Attribution
from schemas.bodies.capacity import Capacity
from schemas.bodies.comparison import Comparison
from schemas.bodies.costs import Costs
from schemas.bodies.factors import FACTOR_MIN_WEEKS, Factors
from schemas.bodies.live import LIVE_MIN_SESSIONS, Live
from schemas.bodies.metrics import Metrics
from schemas.bodies.quantiles import Quantiles
from schemas.bodies.regimes import Regimes
from schemas.bodies.returns import BookReturns
from schemas.bodies.risk import RISK_MIN_SESSIONS, RISK_MIN_TAIL_SESSIONS, Risk
from schemas.bodies.rows import DrawdownRow, RollingRow
from schemas.bodies.sub_universe import SubUniverse
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
    WindowQuery,
)
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK

if TYPE_CHECKING:
    from analytics.series import BenchmarkSeries

B = TypeVar("B")


class BuildAnswers:
    """The answers of one build, in a reader's scope; mixed into `analytics.reading.Reading`, which
    gives `scope`, `book` and `market`."""

    scope: ReaderScope

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

    def _of_book(
        self,
        view: BuildView,
        q: BookWindowQuery,
        payload: Callable[[BuildView, str, Window, Access, Warnings], B],
    ) -> Answer[B]:
        """A book's figures over the window that read this build alone (`payload`: the figure's
        computation), versioned by the build."""
        window: Window = (q.start, q.end)
        # The book is checked (400) once the tables are found built (503), as `_book` does.
        return self._of_build(
            view, lambda warnings: payload(view, self.book(view, q.book), window, self.scope.access, warnings)
        )

    def _of_build(self, view: BuildView, payload: Callable[[Warnings], B]) -> Answer[B]:
        """Figures that read this build alone, once its analytics tables are built (503 while they are
        being made), with the warnings `payload` adds; versioned by the build."""
        require_built(view)
        warnings = Warnings()
        return self._answer(payload(warnings), warnings, view.build_id)

    def metrics(self, view: BuildView, q: MetricsQuery) -> Answer[Metrics]:
        """`/metrics`: the sealed headline figures and the series computed from the build."""
        data, entries = metrics.compute_metrics(
            metrics.metrics_inputs(view), q.granularity, q.start, q.end, q.panel, self.scope.access
        )
        warnings = Warnings()
        warnings.extend(entries)
        return self._answer(data, warnings, view.build_id)

    @served(
        "Break-even cost, turnover by score decile and holding period of a book",
        "What the book's modelled execution costs take over "
        + WINDOW
        + "; flows in normalised equity (1.0 = the book's equity at inception). With `regime`, over that "
        "regime's sessions of "
        + MARKET_BENCHMARK
        + " only (its fills and rebalance weeks on them), which needs benchmarks.daily",
        kinds=("portfolio", "decisions"),
        # Under a millisecond on the full-size alpha; with a regime the benchmark's build may be opened.
        on_loop=lambda q: q.regime is None,
    )
    def costs(self, view: BuildView, q: RegimeWindowQuery) -> Answer[Costs]:
        """Over `q.regime`'s sessions when it names one (`_regime_filter`)."""
        book = self._book(view, q.book)
        kept, version = self._regime_filter(view, q.regime)
        warnings = Warnings()
        data = costs.costs_payload(view, book, (q.start, q.end), self.scope.access, warnings, kept)
        return self._answer(data, warnings, version)

    @served(
        "A book's information ratio, mean IC and hit rate in each regime of " + MARKET_BENCHMARK,
        "The book over "
        + WINDOW
        + " split by the regimes of "
        + MARKET_BENCHMARK
        + ' labelled when the benchmark is published (docs/analytics.md "Regimes"): trend (its price above or '
        "below its 200-session average), volatility (terciles of its 63-session realised volatility over its "
        "whole history) and drawdown (more than 10 % below its running peak), each with its unlabelled sessions. "
        "Per regime: sessions, the information ratio of the daily returns, the weeks, the rebuilt mean IC and "
        "hit rate by rebalance date; row all is the window. `regime` keeps one regime's row. Regime figures need "
        "benchmarks.daily, ledger figures portfolio.ledger, IC figures signals.rebalances.get or signals.scores",
        meta=book_meta,
    )
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

    @served(
        "Bootstrap confidence intervals of a book's headline figures",
        "Stationary block-bootstrap percentile intervals of the book's information ratio, excess Sharpe ratio, "
        "maximum drawdown, turnover and rebuilt mean IC, ICIR and hit rate over "
        + WINDOW
        + "; each figure's value is the one /analytics/live and /analytics/checks serve under its name, its "
        "bounds in its unit",
        kinds=("portfolio", "decisions"),
    )
    def uncertainty(self, view: BuildView, q: BookWindowQuery) -> Answer[Uncertainty]:
        """Bootstrap intervals of the book's headline figures over the window."""
        return self._of_book(view, q, uncertainty.uncertainty_payload)

    @served(
        "Drawdown episodes of a book",
        "Drawdown episodes of the book over " + WINDOW + ", deepest first",
        table="analytics_drawdowns",
        meta=book_meta,
        rows=DrawdownRow,
        on_loop=True,
    )
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
        rows = restatement_rows(view, (q.start, q.end), self.scope.access, self.scope.raw)
        return self._answer(page_of(rows, q.limit, q.offset), Warnings(), view.build_id)

    @served(
        "Trailing-window IC and return figures per rebalance week",
        "One row per rebalance week from the window-th on: figures over the trailing window of weeks ending at "
        "it (it may start before from). A figure needs half the window's weeks ("
        + ", ".join(f"{w} weeks: {rolling.min_observations(w)}" for w in rolling.WINDOWS)
        + "); null below",
        table="analytics_rolling",
        kinds=("rebalances", "portfolio"),
        meta=lambda q: {
            "book": q.book,
            "window_weeks": int(q.window),
            "signal": "raw" if wire.is_raw_book(q.book) else "conditioned",
        },
        meta_keys=("window_weeks", "signal"),
        rows=RollingRow,
        on_loop=True,
    )
    def rolling(self, view: BuildView, q: RollingQuery) -> Answer[Page]:
        book = self._book(view, q.book)
        require_readable(self.scope.access, "ledger")
        require_readable(self.scope.access, "cross_sections")
        page = rolling.rolling_page(view, book, int(q.window), (q.start, q.end), q.limit, q.offset)
        return self._answer(page, Warnings(), view.build_id)

    @served(
        "Benchmark-relative and tail figures of a book against " + MARKET_BENCHMARK,
        f"Benchmark-relative (against {MARKET_BENCHMARK}) and tail figures of the book's daily returns over "
        + WINDOW
        + "; r = ending_equity / starting_equity - 1 of the book's sessions in the window. Annualised "
        f"figures need {RISK_MIN_SESSIONS} sessions, tail figures {RISK_MIN_TAIL_SESSIONS}; a window holding "
        f"fewer than {RISK_MIN_SESSIONS} sessions of the book (none included) is a 400 naming from and/or to "
        "when the whole history holds more. Every figure needs portfolio.ledger, the benchmark block also "
        "benchmarks.daily",
        meta=book_meta,
    )
    def risk(self, view: BuildView, q: RiskQuery) -> Answer[Risk]:
        """Against the market benchmark when the reader may call its series (its figures are
        withheld otherwise); the version then names both builds."""
        book = self._book(view, q.book)
        market = self._readable_market()
        warnings = Warnings()
        data = risk.risk_payload(view, book, (q.start, q.end), self.scope.access, market, warnings)
        return self._answer(data, warnings, _with_market(view, market))

    @served(
        "Monthly and yearly returns of a book and its trailing beta to " + MARKET_BENCHMARK,
        "The book's daily returns compounded by calendar month and year, beside "
        + MARKET_BENCHMARK
        + "'s year over the book's sessions, and its beta to "
        + MARKET_BENCHMARK
        + " over a trailing window, session by session, over "
        + WINDOW
        + "; needs portfolio.ledger, the benchmark's figures also benchmarks.daily",
        meta=book_meta,
    )
    def returns(self, view: BuildView, q: BookWindowQuery) -> Answer[BookReturns]:
        """Monthly and yearly returns and the trailing beta, against the market benchmark when the
        reader may call its series (withheld otherwise); the version then names both builds."""
        book = self._book(view, q.book)
        market = self._readable_market()
        warnings = Warnings()
        window: Window = (q.start, q.end)
        data = book_returns.returns_payload(view, book, window, self.scope.access, market, warnings)
        return self._answer(data, warnings, _with_market(view, market))

    @served(
        "In-sample against out-of-sample of a book (live against backtest)",
        "The book's in-sample and out-of-sample parts side by side: sessions on or before the split date are "
        "in-sample, after it out-of-sample. The split is the request's `split`, else the alpha's tenure (the "
        "last session the lake had published when its approval was recorded: the out-of-sample part is then "
        "live, first seen after the decision), else its seal's research_cutoff (out of sample, not live), else "
        "the last session of its first publication (split_origin). Each part's information ratio, excess Sharpe ratio, mean IC, annualised ICIR, hit rate, "
        "max drawdown and turnover; the decay ratio (out-of-sample IR over in-sample IR) and the probabilistic "
        "Sharpe ratio of the out-of-sample part against the in-sample Sharpe ratio, both not measurable below "
        f"{LIVE_MIN_SESSIONS} out-of-sample sessions. Ledger figures need portfolio.ledger, IC figures "
        "signals.rebalances.get or signals.scores",
        meta=book_meta,
    )
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

    @served(
        "Where a book's P&L came from: by name, leg and sector; fragility; concentration",
        "Where the book's P&L came from over "
        + WINDOW
        + ": the `top` contributors and detractors by name, the long leg against the short leg and the P&L by "
        "sector (when the seal has exposures), each with its P&L, return contribution and share of the names' "
        "P&L; the information ratio without the `drop` best days and without the `drop` best names, and the "
        "share of the P&L made by the best 1% and 5% of days; the largest realised weight, the names held and "
        "the effective number of names. A window holding fewer than 2 sessions of the book is a 400 naming "
        "from and/or to when the whole history holds more. Ledger figures need portfolio.ledger, figures by "
        "name portfolio.pnl, legs and concentration portfolio.positions",
        kinds=("portfolio", "pnl", "positions", "exposures"),
        meta=book_meta,
    )
    def attribution(self, view: BuildView, q: AttributionQuery) -> Answer[Attribution]:
        book = self._book(view, q.book)
        attribution.require_table(view)
        warnings = Warnings()
        window: Window = (q.start, q.end)
        data = attribution.attribution_payload(view, book, window, q.top, q.drop, self.scope.access, warnings)
        return self._answer(data, warnings, view.build_id)

    @served(
        "Participation and net information ratio of a book against its capital",
        "Each fill's participation in its name's average daily traded value (adv, from the seal's exposures) and "
        "the book's net information ratio as its capital grows over "
        + WINDOW
        + ": the seal's ledger is normalised, so the request's `capital` (default 1e8 of the book's currency) is "
        "the capital its modelled costs are taken at; each fill's fee scales with capital, the rest of its cost "
        "(slippage) as a square-root impact on participation. The capacity is the capital at which the net "
        "information ratio falls to half the reference capital's. Not measurable without adv in the seal. Ledger "
        "figures need portfolio.ledger, fill figures portfolio.trades",
        kinds=("portfolio", "trades", "exposures"),
        meta=book_meta,
    )
    def capacity(self, view: BuildView, q: CapacityQuery) -> Answer[Capacity]:
        book = self._book(view, q.book)
        capacity.capital_grid(q.capital, q.grid)  # its 400 before any figure is computed
        warnings = Warnings()
        data = capacity.capacity_payload(
            view, book, (q.start, q.end), self.scope.access, warnings, q.capital, q.grid
        )
        return self._answer(data, warnings, view.build_id)

    @served(
        "Factor attribution of a book and the signal's feature-neutral IC",
        "Factor attribution (Barra-style, as pyfolio's perf_attrib) of the book over "
        + WINDOW
        + ": each rebalance "
        "week's factor returns estimated by a cross-sectional OLS of the forward returns on the seal's exposures "
        "(sector dummies and style loadings), the book's exposures (realised weights times loadings), its weekly "
        "return split into each factor's part and the specific part, summed over the window's weeks; the "
        "specific information ratio, the share of variance explained; the signal's mean IC beside its mean "
        "feature-neutral IC. Not measurable (missing_kind) without the exposures kind; a window holding fewer "
        f"than {FACTOR_MIN_WEEKS} rebalance weeks with a complete holding period is a 400. Book figures need "
        "portfolio.ledger and portfolio.positions, factor and IC figures signals.rebalances.get or signals.scores",
        table="analytics_factor_attribution",
        kinds=("exposures", "decisions", "portfolio", "positions"),
        meta=book_meta,
    )
    def factors(self, view: BuildView, q: BookWindowQuery) -> Answer[Factors]:
        return self._of_book(view, q, factors.factors_payload)

    @served(
        "Mean forward return by score quantile, the top-minus-bottom spread, and the IC by month and sector",
        "alphalens' quantile returns over the window's rebalance weeks: each week's names with a score and a "
        "forward return cut into `quantiles` quantiles of the score (pd.qcut per week); per quantile the mean over "
        "weeks of its equal-weighted mean forward return (per week, a fraction), its standard error and its "
        "compounded curve; the top-minus-bottom spread with its Newey-West t-statistic and curve; the weekly IC "
        "/metrics uses by calendar month and by month of the year; the IC within each sector of the seal's "
        "exposures (not_measurable without them). raw_score needs raw-book access; every figure needs "
        "signals.rebalances.get or signals.scores. A window holding fewer than 2 bucketed weeks is a 400 naming "
        "from and/or to",
        table="analytics_quantiles",
        kinds=("decisions", "exposures"),
        on_loop=True,
    )
    def quantiles(self, view: BuildView, q: QuantilesQuery) -> Answer[Quantiles]:
        def payload(warnings: Warnings) -> Quantiles:
            score = quantiles.readable_score(q.score, self.scope.raw)
            return quantiles.quantiles_payload(
                view, score, q.quantiles, (q.start, q.end), self.scope.access, warnings
            )

        return self._of_build(view, payload)

    @served(
        "Is the signal robust to where it trades? Its IC and ICIR on the liquid and illiquid halves by adv and on random halves",
        "The conditioned score's weekly rank IC (the weekly IC's rule) on the liquid half of each rebalance week's names "
        "by the sealed average daily volume (adv at or above the week's median), on the illiquid half, and on 50 seeded "
        "random halves, over the window's weeks: per half the mean IC and the ICIR (annualised), the random halves' mean "
        "and 5-95% range, against the full cross-section's (weekly_signal.ic); WorldQuant's sub-universe test passes a "
        "half whose ICIR >= 0.75 x sqrt(n_sub / n) x the full ICIR (the IC's information ratio is the Sharpe tested). "
        "Needs the sealed exposures (not_measurable without them, or without adv: a no_adv warning) and "
        "signals.rebalances.get or signals.scores",
        table="analytics_sub_universe",
        kinds=("decisions", "exposures"),
        on_loop=True,
    )
    def sub_universe(self, view: BuildView, q: WindowQuery) -> Answer[SubUniverse]:
        return self._of_build(
            view, partial(sub_universe.sub_universe_payload, view, (q.start, q.end), self.scope.access)
        )

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
