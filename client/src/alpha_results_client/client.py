"""`Client`: one method per `/v1` endpoint.

Collections (`alphas`, `scores`, `trades`, ...) return a `Collection` that pages lazily;
single objects (`alpha`, `metrics`, `me`, ...) return the typed 200 body, `data` and `meta`.
Parameters keep the API's names, except `from`/`to`, which are `start`/`end` in Python; None
means "not sent" (the server's default applies).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from alpha_results_client._base import ClientBase, DateLike, Symbols, wire_value
from alpha_results_client._generated import (
    REGISTRY_VERSION,
    AlphaDescriptionResponse,
    AlphaListRow,
    AnalyticsDocResponse,
    AttributionResponse,
    BookReturnsResponse,
    BookRow,
    BuildRow,
    CapacityResponse,
    ChecksResponse,
    CombinedRow,
    ComparisonResponse,
    ContributionResponse,
    CorrelationRow,
    CostsResponse,
    DecisionRow,
    DrawdownRow,
    EquityRow,
    EquitySummary,
    ExportDownloadResponse,
    ExportRow,
    FactorsResponse,
    Health,
    KeyInventoryRow,
    KeyUsageResponse,
    LedgerRow,
    LiveResponse,
    MeResponse,
    MetricsDocResponse,
    MetricsResponse,
    PnlRow,
    PositionRow,
    PromotionPreviewResponse,
    PromotionsResponse,
    QuantilesResponse,
    ReadinessResponse,
    RebalanceIndexRow,
    ResidualResponse,
    RiskResponse,
    RollingRow,
    ScoreRow,
    ScreenRow,
    SignificanceResponse,
    SourceDownloadResponse,
    TradeRow,
)
from alpha_results_client.events import (
    FEED_PAGE_SIZE,
    STREAM_READ_TIMEOUT,
    EventFeed,
    EventStream,
    verify_webhook_signature,
)
from alpha_results_client.paging import BenchmarkSeries, Collection, Series

log = logging.getLogger("alpha_results_client")


class Client(ClientBase):
    """A client of the alpha-results API.

    >>> client = Client("https://api.example.com", token=None)  # token: else $ALPHA_RESULTS_TOKEN
    >>> client.alphas(search="momentum").to_polars()
    >>> curve = client.equity_curve("momentum_12_1")
    >>> curve.summary.max_drawdown_pct, curve.to_polars()

    `timeouts` and `retry` (config.py) tune each request; `page_size` is the rows per request of
    a collection (the server's maximum, 5000, by default); `progress=True` draws a progress line
    on long reads; `use_exports=False` keeps whole reads on JSON pages. The last two are the
    defaults of every read; one read overrides them: `collection.to_polars(use_exports=False,
    progress=True)` (also `to_pandas`, `to_arrow`; `progress=` on `to_list` and `pages`).
    """

    # -- meta -----------------------------------------------------------------------------------------

    def health(self) -> Health:
        """`/v1/health` (no key needed, never metered). Logs a warning when the server's endpoint
        registry is not the one this client was generated from (see docs/client.md)."""
        health: Health = self._single("meta.health", {})
        if health.registry_version != REGISTRY_VERSION:
            log.warning(
                "the server's endpoint registry is %s, this client was generated from %s",
                health.registry_version,
                REGISTRY_VERSION,
            )
        return health

    def me(self) -> MeResponse:
        """Identity, allow-lists, rate limits and live usage of the calling key."""
        return self._single("meta.me", {})

    def keys(self) -> Collection[KeyInventoryRow]:
        """The caller's keys, newest first (never a secret)."""
        return self._collection("meta.keys", {})

    # -- catalogue ------------------------------------------------------------------------------------

    def alphas(
        self, search: str | None = None, complete_only: bool | None = None
    ) -> Collection[AlphaListRow]:
        """The alphas this key may read; `search` matches alpha_id, name and tldr (case-insensitive)."""
        return self._collection("catalog.alphas.list", {}, search=search, complete_only=complete_only)

    def alpha(self, alpha: str) -> AlphaDescriptionResponse:
        """The written description of one alpha."""
        return self._single("catalog.alphas.get", {"alpha": alpha})

    def source_download(self, alpha: str) -> SourceDownloadResponse:
        """A freshly signed URL of the alpha's source archive (valid `expires_in` seconds)."""
        return self._single("catalog.alphas.source.download", {"alpha": alpha})

    def download_source(self, alpha: str) -> bytes:
        """The alpha's source archive (a zip), fetched from a signed URL and checked against its SHA-256."""
        return self._exports.fetch(self.source_download(alpha).data)

    # -- signals --------------------------------------------------------------------------------------

    def rebalances(
        self, alpha: str, start: DateLike | None = None, end: DateLike | None = None
    ) -> Collection[RebalanceIndexRow]:
        """The index of weekly rebalance dates, with each week's status and size."""
        return self._collection(
            "signals.rebalances.list", {"alpha": alpha}, export="rebalances", start=start, end=end
        )

    def cross_section(
        self,
        alpha: str,
        date: DateLike,
        *,
        symbol: Symbols | None = None,
        direction: str | int | None = None,
        min_abs_weight: float | None = None,
        book: str | None = None,
        sort: str | None = None,
        order: str | None = None,
    ) -> Collection[DecisionRow]:
        """The decision rows of one rebalance week (`/rebalances/{date}`); `meta` echoes the week.

        `direction` keeps one side (1/long, -1/short, 0/flat); `book` picks the target-weight
        column `min_abs_weight` and `sort="weight"` act on; `sort` is score, rank, weight or
        symbol; `order` asc or desc."""
        return self._collection(
            "signals.rebalances.get",
            {"alpha": alpha, "date": wire_value(date)},
            symbol=symbol,
            direction=direction,
            min_abs_weight=min_abs_weight,
            book=book,
            sort=sort,
            order=order,
        )

    def scores(
        self,
        alpha: str,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        symbol: Symbols | None = None,
        fields: str | None = None,
    ) -> Collection[ScoreRow]:
        """The per-symbol per-week score panel; `fields="all"` serves the whole decision record."""
        return self._collection(
            "signals.scores",
            {"alpha": alpha},
            export="decisions",
            start=start,
            end=end,
            symbol=symbol,
            fields=fields,
        )

    # -- portfolio ------------------------------------------------------------------------------------

    def books(self, alpha: str) -> Collection[BookRow]:
        """The (book, kind) pairs the run wrote, with their sessions, rows and dates; `.warnings`
        has a `kind_missing` per book kind the run never wrote (no `KindMissingWarning`: this
        listing is how to find out)."""
        return self._collection("portfolio.books", {"alpha": alpha}, warn_kind_missing=False)

    def portfolio(
        self, alpha: str, book: str | None = None, start: DateLike | None = None, end: DateLike | None = None
    ) -> Collection[LedgerRow]:
        """The daily ledger of a book (default long_short)."""
        return self._collection(
            "portfolio.ledger", {"alpha": alpha}, export="portfolio", book=book, start=start, end=end
        )

    def positions(
        self,
        alpha: str,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        symbol: Symbols | None = None,
    ) -> Collection[PositionRow]:
        """The daily positions of a book (default long_short)."""
        return self._collection(
            "portfolio.positions",
            {"alpha": alpha},
            export="positions",
            book=book,
            start=start,
            end=end,
            symbol=symbol,
        )

    def pnl(
        self,
        alpha: str,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        symbol: Symbols | None = None,
    ) -> Collection[PnlRow]:
        """The daily per-symbol P&L of a book (default long_short)."""
        return self._collection(
            "portfolio.pnl", {"alpha": alpha}, export="pnl", book=book, start=start, end=end, symbol=symbol
        )

    def trades(
        self,
        alpha: str,
        book: str,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        symbol: Symbols | None = None,
    ) -> Collection[TradeRow]:
        """The fills of a book (required: see `books()`; `UnknownBookError.details["available"]`)."""
        return self._collection(
            "portfolio.trades",
            {"alpha": alpha},
            export="trades",
            book=book,
            start=start,
            end=end,
            symbol=symbol,
        )

    def equity_curve(
        self, alpha: str, book: str | None = None, start: DateLike | None = None, end: DateLike | None = None
    ) -> Series[EquityRow, EquitySummary]:
        """The equity curve of a book, and `.summary` of the whole window (returns, drawdowns)."""
        return self._collection(
            "portfolio.equity_curve",
            {"alpha": alpha},
            export="equity-curve",
            kind=Series,
            book=book,
            start=start,
            end=end,
        )

    # -- performance and benchmarks -------------------------------------------------------------------

    def metrics(
        self,
        alpha: str,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        granularity: str | None = None,
        doc: bool | None = None,
        panel: bool | None = None,
    ) -> MetricsResponse:
        """Performance and signal-quality metrics; `granularity` overall, yearly or monthly; `doc=True`
        embeds the documentation block, `panel=True` the weekly series. Degraded blocks are null
        with a warning in `meta.warnings`."""
        values = {"start": start, "end": end, "granularity": granularity, "doc": doc, "panel": panel}
        return self._single("performance.metrics", {"alpha": alpha}, **values)

    def metrics_doc(self, alpha: str) -> MetricsDocResponse:
        """What every metrics field means (identical for every alpha)."""
        return self._single("performance.metrics.doc", {"alpha": alpha})

    def benchmark(
        self, symbol: str = "SPY", start: DateLike | None = None, end: DateLike | None = None
    ) -> BenchmarkSeries:
        """A daily market index series (returns and drawdowns in the window), with `.summary`.

        The rows are every session the lake holds for `symbol` from `start` to `end`, both
        inclusive. Without them the window is the benchmark's whole stored series, not an alpha's:
        it starts at the series' first session, which is usually before an alpha's first date (in
        the demo lakes SPY starts on 2021-01-04, four sessions before the alphas' first rebalance
        on 2021-01-08). `cumulative_return` and `drawdown_pct` are measured from the window's
        first session (0 there, `period_return` None), so to compare with an alpha pass the
        window of its equity curve; both series then start at 0 on the same date and join on
        `date`:

            curve = client.equity_curve("momentum_12_1")
            spy = client.benchmark("SPY", curve.summary.first_date, curve.summary.last_date)

        The returns are on `adjusted_close` only when every session of the window has one, else
        on `close` (a price return, without dividends): see docs/client.md "Benchmarks"."""
        return self._collection(
            "benchmarks.daily", {"symbol": symbol}, kind=BenchmarkSeries, start=start, end=end
        )

    # -- analytics ------------------------------------------------------------------------------------

    def significance(
        self,
        alpha: str,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        sr_benchmark: float | None = None,
        trials: int | None = None,
    ) -> SignificanceResponse:
        """Significance of the long_short Sharpe ratio and the IC: PSR and MinTRL against
        `sr_benchmark` (annualised, default 0), the DSR over the catalogue's trials (`trials`
        overrides their count), bootstrap intervals, and the IC p-value adjusted (Holm, BH)."""
        values = {"start": start, "end": end, "sr_benchmark": sr_benchmark, "trials": trials}
        return self._single("analytics.significance", {"alpha": alpha}, **values)

    def correlation(
        self,
        alpha: str,
        basis: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
    ) -> Collection[CorrelationRow]:
        """Correlation with every other alpha the key may read, largest absolute first; `basis` returns
        (daily long_short, the default), ic (weekly IC) or scores (weekly cross-sections)."""
        return self._collection("analytics.correlation", {"alpha": alpha}, basis=basis, start=start, end=end)

    def drawdowns(
        self, alpha: str, book: str | None = None, start: DateLike | None = None, end: DateLike | None = None
    ) -> Collection[DrawdownRow]:
        """The drawdown episodes of a book (default long_short), deepest first."""
        return self._collection("analytics.drawdowns", {"alpha": alpha}, book=book, start=start, end=end)

    def rolling(
        self,
        alpha: str,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        window: int | str | None = None,
    ) -> Collection[RollingRow]:
        """Trailing-window IC and return figures per rebalance week; `window` 13, 26 (the
        default) or 52 weeks, echoed in `meta.window_weeks`."""
        return self._collection(
            "analytics.rolling", {"alpha": alpha}, book=book, window=window, start=start, end=end
        )

    def costs(
        self, alpha: str, book: str | None = None, start: DateLike | None = None, end: DateLike | None = None
    ) -> CostsResponse:
        """Break-even cost, gross and net information ratio, turnover by score decile and holding
        period of a book (default long_short)."""
        return self._single("analytics.costs", {"alpha": alpha}, book=book, start=start, end=end)

    def screen(
        self,
        search: str | None = None,
        *,
        tag: str | Iterable[str] | None = None,
        structure: str | None = None,
        method: str | None = None,
        complete_only: bool | None = None,
        production: bool | None = None,
        ic_reproduces: bool | None = None,
        min_information_ratio: float | None = None,
        max_information_ratio: float | None = None,
        min_excess_sharpe: float | None = None,
        max_excess_sharpe: float | None = None,
        min_mean_ic: float | None = None,
        max_mean_ic: float | None = None,
        min_icir: float | None = None,
        max_icir: float | None = None,
        min_max_drawdown_pct: float | None = None,
        max_max_drawdown_pct: float | None = None,
        min_turnover: float | None = None,
        max_turnover: float | None = None,
        min_sessions: int | None = None,
        max_sessions: int | None = None,
        sort: str | None = None,
    ) -> Collection[ScreenRow]:
        """The alphas this key may read whose headline figures and classification pass every
        filter: `tag` (one tag or several, all required), `structure`, `method`, `production`
        (True: production only, False: `Test_` only), `ic_reproduces` (True: the sealed mean IC
        is reproduced by the run's cross-sections, False: it is not) and the inclusive
        `min_`/`max_` bounds (a null figure fails a bound on it; `icir` is annualised for every
        alpha). `sort` is a column, `-` first for descending (default:
        catalogue order): `client.screen(tag=["momentum"], min_information_ratio=0.5, sort="-icir")`."""
        return self._collection(
            "analytics.screen",
            {},
            search=search,
            tag=tag,
            structure=structure,
            method=method,
            complete_only=complete_only,
            production=production,
            ic_reproduces=ic_reproduces,
            min_information_ratio=min_information_ratio,
            max_information_ratio=max_information_ratio,
            min_excess_sharpe=min_excess_sharpe,
            max_excess_sharpe=max_excess_sharpe,
            min_mean_ic=min_mean_ic,
            max_mean_ic=max_mean_ic,
            min_icir=min_icir,
            max_icir=max_icir,
            min_max_drawdown_pct=min_max_drawdown_pct,
            max_max_drawdown_pct=max_max_drawdown_pct,
            min_turnover=min_turnover,
            max_turnover=max_turnover,
            min_sessions=min_sessions,
            max_sessions=max_sessions,
            sort=sort,
        )

    def risk(
        self, alpha: str, book: str | None = None, start: DateLike | None = None, end: DateLike | None = None
    ) -> RiskResponse:
        """Benchmark-relative (beta, alpha and tracking error against SPY) and tail figures (Sortino,
        Calmar, CAGR, tail ratio, 95% VaR and CVaR, best and worst day, week and month) of a book.
        `.data.to_polars()` (`to_pandas`, `to_arrow`) is one row per figure with its stat entry."""
        return self._single("analytics.risk", {"alpha": alpha}, book=book, start=start, end=end)

    def returns(
        self, alpha: str, book: str | None = None, start: DateLike | None = None, end: DateLike | None = None
    ) -> BookReturnsResponse:
        """Monthly and yearly returns of a book (default long_short), SPY's year over the book's
        sessions, and the book's trailing 126-session beta to SPY, session by session."""
        return self._single("analytics.returns", {"alpha": alpha}, book=book, start=start, end=end)

    def checks(
        self,
        alpha: str,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        min_information_ratio: float | None = None,
        min_deflated_sharpe: float | None = None,
        min_turnover: float | None = None,
        max_turnover: float | None = None,
        max_weight: float | None = None,
        min_recent_information_ratio: float | None = None,
        min_yearly_consistency: float | None = None,
        min_stressed_net_information_ratio: float | None = None,
        max_production_correlation: float | None = None,
        min_ic_t_stat: float | None = None,
    ) -> ChecksResponse:
        """The pass/fail checks of a book against the operator's policy; each bound tightens it
        (never loosens: 400). `client.checks(a).data.to_polars()` (`to_pandas`, `to_arrow`) is one
        row per check."""
        return self._single(
            "analytics.checks",
            {"alpha": alpha},
            book=book,
            start=start,
            end=end,
            min_information_ratio=min_information_ratio,
            min_deflated_sharpe=min_deflated_sharpe,
            min_turnover=min_turnover,
            max_turnover=max_turnover,
            max_weight=max_weight,
            min_recent_information_ratio=min_recent_information_ratio,
            min_yearly_consistency=min_yearly_consistency,
            min_stressed_net_information_ratio=min_stressed_net_information_ratio,
            max_production_correlation=max_production_correlation,
            min_ic_t_stat=min_ic_t_stat,
        )

    def compare(
        self,
        alpha: str,
        other: str,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        window: int | str | None = None,
    ) -> ComparisonResponse:
        """`alpha` against `other` (sent as `with`): both equity curves and their difference, rolling
        correlations of returns (`window` sessions: 21, 63, 126 or 252) and of weekly IC, and each
        headline figure side by side with a paired test of the difference.
        `.data.equity_frame()`, `.data.rolling_return_correlation_frame()` and
        `.data.rolling_ic_correlation_frame()` are the curves and the rolling correlations as polars
        DataFrames (`library="pandas"` or `"arrow"`: the others)."""
        return self._single(
            "analytics.compare", {"alpha": alpha}, other=other, book=book, window=window, start=start, end=end
        )

    def combine(
        self,
        alphas: Iterable[str],
        book: str | None = None,
        *,
        weighting: str | None = None,
        weights: Iterable[float] | None = None,
        shrinkage: float | None = None,
        fit_to: DateLike | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
    ) -> Collection[CombinedRow]:
        """The books of `alphas` (2 to 50; `book` long_short, the default and the only one the
        catalogue holds) combined by `weighting` (equal, given with `weights` in the order of
        `alphas`, inverse_volatility, or max_ir with optional `shrinkage`): the daily series
        (`.to_polars()`), and in `.meta` the weights, figures, correlation matrix and
        diversification ratio (`.meta.weights_frame()`, `.meta.correlation_frame()`). Computed
        weights (inverse_volatility, max_ir) are fitted on the sessions they are judged on unless
        `fit_to` fits them on the sessions up to it (`.meta.fit`, the `in_sample_weights` warning)."""
        return self._collection(
            "analytics.combine",
            {},
            alphas=list(alphas),
            book=book,
            weighting=weighting,
            weights=None if weights is None else [repr(float(w)) for w in weights],
            shrinkage=shrinkage,
            fit_to=fit_to,
            start=start,
            end=end,
        )

    def contribution(
        self,
        alpha: str,
        reference: Iterable[str] | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        weight: float | None = None,
        weighting: str | None = None,
        weights: Iterable[float] | None = None,
        shrinkage: float | None = None,
        fit_to: DateLike | None = None,
    ) -> ContributionResponse:
        """A reference set's figures (default: every production alpha the key may read) before and
        after adding `alpha` at `weight` (default: the weight that maximises the information ratio
        after), their change and the alpha's correlation to the set. With `weighting` (and
        `weights`, `shrinkage`, `fit_to`, as `combine` takes them) the set is the combination `combine`
        builds of `reference`, and `before` equals its figures. `.data.to_polars()` (`to_pandas`,
        `to_arrow`) is one row per figure: before, after, change."""
        return self._single(
            "analytics.contribution",
            {"alpha": alpha},
            reference=None if reference is None else list(reference),
            weight=weight,
            weighting=weighting,
            weights=None if weights is None else [repr(float(w)) for w in weights],
            shrinkage=shrinkage,
            fit_to=fit_to,
            start=start,
            end=end,
        )

    def live(self, alpha: str, book: str | None = None, *, split: DateLike | None = None) -> LiveResponse:
        """The book's in-sample part against its out-of-sample part (live against backtest): each
        part's figures, the decay ratio and the PSR of the live part. The split is `split`, else
        the alpha's latest approval, else its seal's research_cutoff, else its first publish date
        (`data.split_origin` says which)."""
        return self._single("analytics.live", {"alpha": alpha}, book=book, split=split)

    def promotion_preview(self, alpha: str, as_of: DateLike | None = None) -> PromotionPreviewResponse:
        """What the alpha's next decision (`alpha-results promote`, or `retire` when it stands
        approved) would record and change, read-only: the verdict of its long_short checks up to
        `as_of` (default: its last session), each check, and for the other alphas of the live book
        this key may read the reference-set checks that move or flip (the others counted in
        `data.others_not_shown`), with the command that records it (`data.command`)."""
        return self._single("analytics.promotion_preview", {"alpha": alpha}, as_of=as_of)

    def attribution(
        self,
        alpha: str,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        top: int | None = None,
        drop: int | None = None,
    ) -> AttributionResponse:
        """Where the book's P&L came from: the `top` contributors and detractors by name, the legs
        and the sectors, fragility (without the `drop` best days and names) and concentration."""
        return self._single(
            "analytics.attribution", {"alpha": alpha}, book=book, start=start, end=end, top=top, drop=drop
        )

    def capacity(
        self,
        alpha: str,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        capital: float | None = None,
        grid: Iterable[float] | None = None,
    ) -> CapacityResponse:
        """Each fill's participation in its name's traded value and the net information ratio as the
        book's capital grows (`capital`, default 1e8; `grid` the capitals of the curve)."""
        return self._single(
            "analytics.capacity",
            {"alpha": alpha},
            book=book,
            start=start,
            end=end,
            capital=capital,
            grid=None if grid is None else [repr(float(c)) for c in grid],
        )

    def factors(
        self, alpha: str, book: str | None = None, start: DateLike | None = None, end: DateLike | None = None
    ) -> FactorsResponse:
        """Factor attribution of the book (each factor's part of its return, the specific part) and
        the signal's feature-neutral IC."""
        return self._single("analytics.factors", {"alpha": alpha}, book=book, start=start, end=end)

    def quantiles(
        self,
        alpha: str,
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        score: str | None = None,
        quantiles: int | None = None,
    ) -> QuantilesResponse:
        """Forward returns by score quantile (`quantiles` buckets of `score` or `raw_score`), their
        spread and monotonicity."""
        return self._single(
            "analytics.quantiles", {"alpha": alpha}, score=score, quantiles=quantiles, start=start, end=end
        )

    def residual(
        self,
        alpha: str,
        reference: Iterable[str] | None = None,
        book: str | None = None,
        start: DateLike | None = None,
        end: DateLike | None = None,
    ) -> ResidualResponse:
        """The book's daily returns regressed on SPY's and a reference set's (default: the approved
        alphas the key may read, else the production ones): betas, the intercept and the appraisal
        ratio of what they do not explain."""
        return self._single(
            "analytics.residual",
            {"alpha": alpha},
            reference=None if reference is None else list(reference),
            book=book,
            start=start,
            end=end,
        )

    def promotions(self, alpha: str) -> PromotionsResponse:
        """The operator's decisions about the alpha, oldest first, each with what its checks said
        that day (`data.standing`: where it stands now)."""
        return self._single("catalog.alphas.promotions", {"alpha": alpha})

    def analytics_doc(self, alpha: str) -> AnalyticsDocResponse:
        """What every analytics field means (identical for every alpha)."""
        return self._single("analytics.doc", {"alpha": alpha})

    # -- Parquet exports ------------------------------------------------------------------------------

    def exports(self, alpha: str) -> Collection[ExportRow]:
        """The Parquet files this key may export from the alpha's served build."""
        return self._collection("exports.list", {"alpha": alpha})

    def export(self, alpha: str, dataset: str, book: str | None = None) -> ExportDownloadResponse:
        """A freshly signed URL of one dataset as a Parquet file (`book` on book datasets)."""
        return self._single("exports.download", {"alpha": alpha, "dataset": dataset}, book=book)

    def download_export(self, alpha: str, dataset: str, book: str | None = None) -> bytes:
        """The Parquet file of one dataset, checked against its announced size and SHA-256."""
        return self._exports.fetch(self.export(alpha, dataset, book).data)

    # -- events ---------------------------------------------------------------------------------------

    def events(
        self,
        after: str | None = None,
        *,
        type: str | Iterable[str] | None = None,
        alpha: str | Iterable[str] | None = None,
        page_size: int = FEED_PAGE_SIZE,
    ) -> EventFeed:
        """Every event this key may see after the cursor `after` (from the oldest kept when None),
        oldest first, read page by page as it is iterated, up to the newest; `type` and `alpha` (one
        or several) narrow it. `.cursor` is where to resume: keep it, and pass it as `after` later
        (or as `last_event_id` to `stream_events`)."""
        return EventFeed(self._transport, after, type, alpha, page_size)

    def stream_events(
        self,
        last_event_id: str | None = None,
        *,
        after: str | None = None,
        type: str | Iterable[str] | None = None,
        alpha: str | Iterable[str] | None = None,
        read_timeout: float = STREAM_READ_TIMEOUT,
        max_failures: int | None = None,
    ) -> EventStream:
        """The events this key may see as they are recorded (Server-Sent Events), after
        `last_event_id` (or `after`; neither: from now on), for as long as it is iterated. It
        reconnects by itself with the last id it saw: no event is missed or repeated. `.close()`
        ends it; `.last_event_id` is where to resume."""
        return EventStream(
            self._transport,
            last_event_id,
            after,
            type,
            alpha,
            read_timeout=read_timeout,
            max_failures=max_failures,
        )

    verify_webhook_signature = staticmethod(verify_webhook_signature)
    """`alpha_results_client.verify_webhook_signature`: check a webhook delivery (no request made)."""

    # -- administration (a platform administrator's key only) -----------------------------------------

    def admin_readiness(self, alpha: str) -> ReadinessResponse:
        return self._single("admin.alphas.readiness", {"alpha": alpha})

    def admin_key_usage(self, key_id: str) -> KeyUsageResponse:
        return self._single("admin.keys.usage", {"key_id": key_id})

    def admin_builds(self) -> Collection[BuildRow]:
        return self._collection("admin.builds.list", {})
