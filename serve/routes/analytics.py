"""Analytics: significance, correlation to the catalogue, drawdown episodes, rolling and cost views,
live against backtest, capacity, and their documentation block (docs/analytics.md).

Each route authorises and resolves the alpha first (as every run-scoped route), then reads its
build; the per-build tables come from the pipeline, the catalogue-wide figures from the request's
catalogue snapshot (`LakeReader.snapshot`), each figure from `analytics/`. Figures built from the ledger or from the rebalance cross-sections
follow the `/metrics` rule: a key that may not read that data gets them `not_measurable` with an
`access_limited` warning in a single object, and 403 naming the route it lacks for a collection
whose rows are built from it. Work that can take milliseconds (the bootstrap, the catalogue's
figures, pairings) runs in a worker thread.
"""

from __future__ import annotations

from typing import Any, TypeVar

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics import rolling
from analytics.correlation import BASES
from analytics.entries import Warnings
from datasets import answers
from datasets.reader import BuildView
from schemas import wire
from schemas.bodies.analytics import WINDOW, Costs, Significance
from schemas.bodies.attribution import Attribution
from schemas.bodies.capacity import Capacity
from schemas.bodies.decay import CALIBRATION_MIN_ALPHAS, CALIBRATION_MIN_SESSIONS, LITERATURE_HAIRCUT, Decay
from schemas.bodies.docs import AnalyticsDoc
from schemas.bodies.envelope import Collection, EnvelopeMeta, Single
from schemas.bodies.factors import FACTOR_MIN_WEEKS, Factors
from schemas.bodies.live import LIVE_MIN_SESSIONS, Live
from schemas.bodies.overfitting import Overfitting
from schemas.bodies.quantiles import Quantiles
from schemas.bodies.regimes import Regimes
from schemas.bodies.residual import Residual
from schemas.bodies.returns import BookReturns
from schemas.bodies.rows import CorrelationRow, DrawdownRow, RollingRow
from schemas.bodies.service import Warning
from schemas.bodies.uncertainty import Uncertainty
from schemas.query import (
    AttributionQuery,
    BookWindowPageQuery,
    BookWindowQuery,
    CapacityQuery,
    CorrelationQuery,
    LiveQuery,
    NoQuery,
    OverfittingQuery,
    QuantilesQuery,
    Query,
    RegimeWindowQuery,
    ResidualQuery,
    RollingQuery,
    SignificanceQuery,
)
from schemas.wire import MARKET_BENCHMARK
from serve.envelope import single, with_warnings
from serve.routes.base import Context, Ctx, documentation_block
from serve.routes.declare import route

BookArgs = TypeVar(
    "BookArgs", BookWindowPageQuery, RollingQuery, BookWindowQuery, AttributionQuery, CapacityQuery
)
Q = TypeVar("Q", bound=Query)


def _meta(
    ctx: Context,
    build: BuildView,
    table: str,
    kinds: tuple[str, ...],
    warnings: Warnings | list[Warning],
    **extra: Any,
) -> EnvelopeMeta[Any]:
    """`meta` with a `kind_missing` warning for each kind the run never sealed (what is built from
    it is empty or null), after the warnings the body raised."""
    raised = warnings.entries if isinstance(warnings, Warnings) else warnings
    entries = [*raised, *answers.missing_kinds(build, kinds, answers.BUILT_EMPTY)]
    return with_warnings(ctx.run_meta(build, table, **extra), entries)


async def _args(ctx: Context[Q], alpha: str) -> tuple[BuildView, Q]:
    """The build (authorised first, then found) and the parsed parameters (a 400 comes before a
    503 about the build's age, which the answer checks)."""
    build = await ctx.open_run(alpha)
    return build, ctx.args()


@route(
    "analytics.significance",
    "/v1/alphas/{alpha:str}/analytics/significance",
    "Significance of the long_short Sharpe ratio and the IC, corrected for the catalogue's trials",
    documented="Significance of the long_short Sharpe ratio and of the IC over " + WINDOW,
)
async def get_significance(
    ctx: Ctx[SignificanceQuery], alpha: FromPath[str]
) -> Response[Single[Significance]]:
    build, args = await _args(ctx, alpha)
    reading = ctx.reading()
    answer = await to_thread.run_sync(reading.significance, build, args)
    ctx.validate_with(answer.version)
    return single(answer.data, _meta(ctx, build, "portfolio", ("portfolio", "decisions"), answer.warnings))


@route(
    "analytics.overfitting",
    "/v1/alphas/{alpha:str}/analytics/overfitting",
    "Probability of backtest overfitting of the alpha's trial family",
    documented=(
        "Combinatorially symmetric cross-validation (Bailey, Borwein, López de Prado and Zhu 2015) over the "
        "members of the trial family the alpha's seal names that the key may read (never a member it may not "
        "read): their common sessions of daily long_short returns cut into `splits` blocks, each of the C(S, S/2) "
        "halves taken in sample, the trials ranked by their Sharpe ratio. PBO, the logit distribution, the "
        "performance degradation (slope of out-of-sample on in-sample Sharpe) and the probability of loss out "
        "of sample; not_measurable with a reason without a family, below 6 readable members or without "
        "portfolio.ledger. Whole history: from/to do not apply"
    ),
)
async def get_overfitting(ctx: Ctx[OverfittingQuery], alpha: FromPath[str]) -> Response[Single[Overfitting]]:
    build, args = await _args(ctx, alpha)
    reading = ctx.reading()
    # At most C(16, 8) = 12,870 splits over a few dozen members: a few milliseconds, in a worker thread.
    answer = await to_thread.run_sync(reading.overfitting, build, args)
    ctx.validate_with("overfitting:" + answer.version)
    source = f"lake:catalogue_index@{answer.version}"
    return single(
        answer.data, _meta(ctx, build, "catalogue_index", ("portfolio",), answer.warnings, source=source)
    )


@route(
    "analytics.correlation",
    "/v1/alphas/{alpha:str}/analytics/correlation",
    "Correlation with every other alpha the key may read",
    meta=("basis",),
    documented="One row per other alpha the key may read (never the alpha itself, never one it may not read)",
)
async def list_correlation(
    ctx: Ctx[CorrelationQuery], alpha: FromPath[str]
) -> Response[Collection[CorrelationRow]]:
    build, args = await _args(ctx, alpha)
    reading = ctx.reading()
    answer = await to_thread.run_sync(reading.correlation, build, args)
    ctx.validate_with(answer.version)
    basis = BASES[args.basis]
    meta = _meta(ctx, build, basis.table, (basis.kind,), answer.warnings, basis=args.basis)
    return ctx.collection(answer.data, args.limit, args.offset, meta)


@route(
    "analytics.drawdowns",
    "/v1/alphas/{alpha:str}/analytics/drawdowns",
    "Drawdown episodes of a book",
    documented="Drawdown episodes of the book over " + WINDOW + ", deepest first",
)
async def list_drawdowns(
    ctx: Ctx[BookWindowPageQuery], alpha: FromPath[str]
) -> Response[Collection[DrawdownRow]]:
    build, args = await _args(ctx, alpha)
    answer = ctx.reading().drawdowns(build, args)
    meta = _meta(ctx, build, "analytics_drawdowns", ("portfolio",), answer.warnings, book=args.book)
    return ctx.collection(answer.data, args.limit, args.offset, meta)


@route(
    "analytics.rolling",
    "/v1/alphas/{alpha:str}/analytics/rolling",
    "Trailing-window IC and return figures per rebalance week",
    meta=("window_weeks", "signal"),
    documented=(
        "One row per rebalance week from the window-th on: figures over the trailing window of weeks ending at "
        "it (it may start before from). A figure needs half the window's weeks ("
        + ", ".join(f"{w} weeks: {rolling.min_observations(w)}" for w in rolling.WINDOWS)
        + "); null below"
    ),
)
async def list_rolling(ctx: Ctx[RollingQuery], alpha: FromPath[str]) -> Response[Collection[RollingRow]]:
    build, args = await _args(ctx, alpha)
    answer = ctx.reading().rolling(build, args)
    signal = "raw" if wire.is_raw_book(args.book) else "conditioned"
    meta = _meta(
        ctx,
        build,
        "analytics_rolling",
        ("rebalances", "portfolio"),
        answer.warnings,
        book=args.book,
        window_weeks=int(args.window),
        signal=signal,
    )
    return ctx.collection(answer.data, args.limit, args.offset, meta)


@route(
    "analytics.costs",
    "/v1/alphas/{alpha:str}/analytics/costs",
    "Break-even cost, turnover by score decile and holding period of a book",
    documented=(
        "What the book's modelled execution costs take over "
        + WINDOW
        + "; flows in normalised equity (1.0 = the book's equity at inception). With `regime`, over that "
        "regime's sessions of "
        + MARKET_BENCHMARK
        + " only (its fills and rebalance weeks on them), which needs benchmarks.daily"
    ),
)
async def get_costs(ctx: Ctx[RegimeWindowQuery], alpha: FromPath[str]) -> Response[Single[Costs]]:
    build, args = await _args(ctx, alpha)
    if args.regime is None:
        # Under a millisecond of numpy on the full-size alpha: answered on the event loop, as the
        # ledger pages are, where a thread hop would cost as much as the work.
        answer = ctx.reading().costs(build, args)
    else:  # the benchmark's build may be opened first
        answer = await to_thread.run_sync(ctx.reading().costs, build, args)
        ctx.validate_with(answer.version)  # the run's build and the benchmark's
    return single(answer.data, _meta(ctx, build, "portfolio", ("portfolio", "decisions"), answer.warnings))


@route(
    "analytics.regimes",
    "/v1/alphas/{alpha:str}/analytics/regimes",
    "A book's information ratio, mean IC and hit rate in each regime of " + MARKET_BENCHMARK,
    documented=(
        "The book over "
        + WINDOW
        + " split by the regimes of "
        + MARKET_BENCHMARK
        + ' labelled when the benchmark is published (docs/analytics.md "Regimes"): trend (its price above or '
        "below its 200-session average), volatility (terciles of its 63-session realised volatility over its "
        "whole history) and drawdown (more than 10 % below its running peak), each with its unlabelled sessions. "
        "Per regime: sessions, the information ratio of the daily returns, the weeks, the rebuilt mean IC and "
        "hit rate by rebalance date; row all is the window. `regime` keeps one regime's row. Regime figures need "
        "benchmarks.daily, ledger figures portfolio.ledger, IC figures signals.rebalances.get or signals.scores"
    ),
)
async def get_regimes(ctx: Ctx[RegimeWindowQuery], alpha: FromPath[str]) -> Response[Single[Regimes]]:
    build, args = await _args(ctx, alpha)
    answer = await to_thread.run_sync(ctx.reading().regimes, build, args)  # may open the benchmark's build
    ctx.validate_with(answer.version)  # the run's build and, for a key that may read it, the benchmark's
    return single(
        answer.data, _meta(ctx, build, "portfolio", ("portfolio",), answer.warnings, book=args.book)
    )


@route(
    "analytics.uncertainty",
    "/v1/alphas/{alpha:str}/analytics/uncertainty",
    "Bootstrap confidence intervals of a book's headline figures",
    documented=(
        "Stationary block-bootstrap percentile intervals of the book's information ratio, excess Sharpe ratio, "
        "maximum drawdown, turnover and rebuilt mean IC, ICIR and hit rate over "
        + WINDOW
        + "; each figure's value is the one /analytics/live and /analytics/checks serve under its name, its "
        "bounds in its unit"
    ),
)
async def get_uncertainty(ctx: Ctx[BookWindowQuery], alpha: FromPath[str]) -> Response[Single[Uncertainty]]:
    build, args = await _args(ctx, alpha)
    # Tens of milliseconds of numpy for a window (the whole history's once per build): a worker thread,
    # as significance's bootstrap.
    answer = await to_thread.run_sync(ctx.reading().uncertainty, build, args)
    return single(answer.data, _meta(ctx, build, "portfolio", ("portfolio", "decisions"), answer.warnings))


@route(
    "analytics.returns",
    "/v1/alphas/{alpha:str}/analytics/returns",
    "Monthly and yearly returns of a book and its trailing beta to " + MARKET_BENCHMARK,
    documented=(
        "The book's daily returns compounded by calendar month and year, beside "
        + MARKET_BENCHMARK
        + "'s year over the book's sessions, and its beta to "
        + MARKET_BENCHMARK
        + " over a trailing window, session by session, over "
        + WINDOW
        + "; needs portfolio.ledger, the benchmark's figures also benchmarks.daily"
    ),
)
async def get_returns(ctx: Ctx[BookWindowQuery], alpha: FromPath[str]) -> Response[Single[BookReturns]]:
    build, args = await _args(ctx, alpha)
    answer = await to_thread.run_sync(ctx.reading().returns, build, args)  # numpy over every session, as risk
    # The answer depends on the run's build and, for a key that may read it, the benchmark's.
    ctx.validate_with(answer.version)
    return single(
        answer.data, _meta(ctx, build, "portfolio", ("portfolio",), answer.warnings, book=args.book)
    )


@route(
    "analytics.doc",
    "/v1/alphas/{alpha:str}/analytics/_doc",
    "Analytics documentation block",
    sync_to_thread=False,
)
def get_analytics_doc(ctx: Ctx[NoQuery], alpha: FromPath[str]) -> Response[Single[AnalyticsDoc]]:
    return documentation_block(ctx, alpha, ctx.analytics_doc)


@route(
    "analytics.live",
    "/v1/alphas/{alpha:str}/analytics/live",
    "In-sample against out-of-sample of a book (live against backtest)",
    documented=(
        "The book's in-sample and out-of-sample parts side by side: sessions on or before the split date are "
        "in-sample, after it out-of-sample. The split is the request's `split`, else the alpha's tenure (the "
        "last session the lake had published when its approval was recorded: the out-of-sample part is then "
        "live, first seen after the decision), else its seal's research_cutoff (out of sample, not live), else "
        "the last session of its first publication (split_origin). Each part's information ratio, excess Sharpe ratio, mean IC, annualised ICIR, hit rate, "
        "max drawdown and turnover; the decay ratio (out-of-sample IR over in-sample IR) and the probabilistic "
        "Sharpe ratio of the out-of-sample part against the in-sample Sharpe ratio, both not measurable below "
        f"{LIVE_MIN_SESSIONS} out-of-sample sessions. Ledger figures need portfolio.ledger, IC figures "
        "signals.rebalances.get or signals.scores"
    ),
)
async def get_live(ctx: Ctx[LiveQuery], alpha: FromPath[str]) -> Response[Single[Live]]:
    build, args = await _args(ctx, alpha)
    answer = await to_thread.run_sync(ctx.reading().live, build, args)
    # The answer depends on the build and on the tenure (replaces the tag open_run set).
    ctx.validate_with(answer.version)
    entries = [*answer.warnings, *answers.missing_kinds(build, ("portfolio",), answers.BUILT_EMPTY)]
    return single(answer.data, with_warnings(ctx.run_meta(build, "portfolio", book=args.book), entries))


@route(
    "analytics.decay",
    "/v1/alphas/{alpha:str}/analytics/decay",
    "The IC's half-life by forecast horizon and the book's expected live information ratio",
    documented=(
        "The IC's decay with the forecast horizon: the marginal IC of the k-th week's return fitted as "
        "ic_1 * exp(-decay_rate * (k - 1)) to the IC term structure (1, 2, 4, 8 weeks, /metrics "
        "panel.ic_term_structure, whole history), its half-life ln(2) / decay_rate; and the book's expected live "
        "information ratio, its backtest information ratio (/analytics/live in_sample at the same split) times the "
        "retention the approved alphas the key may read show live (this one excepted: the least-squares slope "
        f"of their live on their backtest information ratios, each with {CALIBRATION_MIN_SESSIONS} sessions "
        f"first published after its approval was recorded), with its standard error and leave-one-out RMSE; below {CALIBRATION_MIN_ALPHAS} "
        f"such alphas, the literature's haircut ({LITERATURE_HAIRCUT:.0%}, McLean and Pontiff 2016). IC figures "
        "need signals.rebalances.get or signals.scores, ledger figures portfolio.ledger"
    ),
)
async def get_decay(ctx: Ctx[LiveQuery], alpha: FromPath[str]) -> Response[Single[Decay]]:
    build, args = await _args(ctx, alpha)
    answer = await to_thread.run_sync(ctx.reading().decay, build, args)
    # The build, the tenure and the index rows of the alphas the key may read.
    ctx.validate_with(answer.version)
    return single(
        answer.data,
        _meta(ctx, build, "portfolio", ("portfolio", "decisions"), answer.warnings, book=args.book),
    )


@route(
    "analytics.attribution",
    "/v1/alphas/{alpha:str}/analytics/attribution",
    "Where a book's P&L came from: by name, leg and sector; fragility; concentration",
    documented=(
        "Where the book's P&L came from over "
        + WINDOW
        + ": the `top` contributors and detractors by name, the long leg against the short leg and the P&L by "
        "sector (when the seal has exposures), each with its P&L, return contribution and share of the names' "
        "P&L; the information ratio without the `drop` best days and without the `drop` best names, and the "
        "share of the P&L made by the best 1% and 5% of days; the largest realised weight, the names held and "
        "the effective number of names. A window holding fewer than 2 sessions of the book is a 400 naming "
        "from and/or to when the whole history holds more. Ledger figures need portfolio.ledger, figures by "
        "name portfolio.pnl, legs and concentration portfolio.positions"
    ),
)
async def get_attribution(ctx: Ctx[AttributionQuery], alpha: FromPath[str]) -> Response[Single[Attribution]]:
    build, args = await _args(ctx, alpha)
    answer = await to_thread.run_sync(ctx.reading().attribution, build, args)
    kinds = ("portfolio", "pnl", "positions", "exposures")
    return single(answer.data, _meta(ctx, build, "portfolio", kinds, answer.warnings, book=args.book))


@route(
    "analytics.capacity",
    "/v1/alphas/{alpha:str}/analytics/capacity",
    "Participation and net information ratio of a book against its capital",
    documented=(
        "Each fill's participation in its name's average daily traded value (adv, from the seal's exposures) and "
        "the book's net information ratio as its capital grows over "
        + WINDOW
        + ": the seal's ledger is normalised, so the request's `capital` (default 1e8 of the book's currency) is "
        "the capital its modelled costs are taken at; each fill's fee scales with capital, the rest of its cost "
        "(slippage) as a square-root impact on participation. The capacity is the capital at which the net "
        "information ratio falls to half the reference capital's. Not measurable without adv in the seal. Ledger "
        "figures need portfolio.ledger, fill figures portfolio.trades"
    ),
)
async def get_capacity(ctx: Ctx[CapacityQuery], alpha: FromPath[str]) -> Response[Single[Capacity]]:
    build, args = await _args(ctx, alpha)
    answer = await to_thread.run_sync(ctx.reading().capacity, build, args)
    kinds = ("portfolio", "trades", "exposures")
    return single(answer.data, _meta(ctx, build, "portfolio", kinds, answer.warnings, book=args.book))


@route(
    "analytics.factors",
    "/v1/alphas/{alpha:str}/analytics/factors",
    "Factor attribution of a book and the signal's feature-neutral IC",
    documented=(
        "Factor attribution (Barra-style, as pyfolio's perf_attrib) of the book over "
        + WINDOW
        + ": each rebalance "
        "week's factor returns estimated by a cross-sectional OLS of the forward returns on the seal's exposures "
        "(sector dummies and style loadings), the book's exposures (realised weights times loadings), its weekly "
        "return split into each factor's part and the specific part, summed over the window's weeks; the "
        "specific information ratio, the share of variance explained; the signal's mean IC beside its mean "
        "feature-neutral IC. Not measurable (missing_kind) without the exposures kind; a window holding fewer "
        f"than {FACTOR_MIN_WEEKS} rebalance weeks with a complete holding period is a 400. Book figures need "
        "portfolio.ledger and portfolio.positions, factor and IC figures signals.rebalances.get or signals.scores"
    ),
)
async def get_factors(ctx: Ctx[BookWindowQuery], alpha: FromPath[str]) -> Response[Single[Factors]]:
    build, args = await _args(ctx, alpha)
    # A build's first answer reads its factor tables and makes the whole history's rows (about 0.2 s
    # on the full-size alpha); later ones slice them: a worker thread, off the event loop.
    answer = await to_thread.run_sync(ctx.reading().factors, build, args)
    kinds = ("exposures", "decisions", "portfolio", "positions")
    meta = _meta(ctx, build, "analytics_factor_attribution", kinds, answer.warnings, book=args.book)
    return single(answer.data, meta)


@route(
    "analytics.quantiles",
    "/v1/alphas/{alpha:str}/analytics/quantiles",
    "Mean forward return by score quantile, the top-minus-bottom spread, and the IC by month and sector",
    documented=(
        "alphalens' quantile returns over the window's rebalance weeks: each week's names with a score and a "
        "forward return cut into `quantiles` quantiles of the score (pd.qcut per week); per quantile the mean over "
        "weeks of its equal-weighted mean forward return (per week, a fraction), its standard error and its "
        "compounded curve; the top-minus-bottom spread with its Newey-West t-statistic and curve; the weekly IC "
        "/metrics uses by calendar month and by month of the year; the IC within each sector of the seal's "
        "exposures (not_measurable without them). raw_score needs raw-book access; every figure needs "
        "signals.rebalances.get or signals.scores. A window holding fewer than 2 bucketed weeks is a 400 naming "
        "from and/or to"
    ),
)
async def get_quantiles(ctx: Ctx[QuantilesQuery], alpha: FromPath[str]) -> Response[Single[Quantiles]]:
    build, args = await _args(ctx, alpha)
    # Numpy over at most a few thousand precomputed weekly means: on the event loop, as costs is.
    answer = ctx.reading().quantiles(build, args)
    return single(
        answer.data, _meta(ctx, build, "analytics_quantiles", ("decisions", "exposures"), answer.warnings)
    )


@route(
    "analytics.residual",
    "/v1/alphas/{alpha:str}/analytics/residual",
    "What is new in a book against the catalogue: its daily returns regressed on a reference set's and SPY's",
    documented=(
        "The book's daily returns over "
        + WINDOW
        + " regressed by OLS, with an intercept, on the same sessions' daily long_short returns of a reference "
        "set (`reference`, else the default set: the approved alphas the key may read, "
        "the alpha excepted, SPY alone when none is) and SPY's: the information ratio of the intercept plus the residual, the intercept "
        "annualised and its Newey-West t-statistic, R^2, the betas, and the reference alphas dropped. Needs "
        "portfolio.ledger and benchmarks.daily"
    ),
)
async def get_residual(ctx: Ctx[ResidualQuery], alpha: FromPath[str]) -> Response[Single[Residual]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    reading = ctx.reading()
    answer = await to_thread.run_sync(reading.residual, build, args)
    ctx.validate_with("residual:" + answer.version)
    source = f"lake:catalogue_index@{answer.version}"
    meta = _meta(ctx, build, "catalogue_index", ("portfolio",), [], source=source, book=args.book)
    return single(answer.data, meta)


ROUTES = [
    get_significance,
    get_overfitting,
    list_correlation,
    list_drawdowns,
    list_rolling,
    get_costs,
    get_regimes,
    get_uncertainty,
    get_returns,
    get_live,
    get_decay,
    get_attribution,
    get_capacity,
    get_factors,
    get_quantiles,
    get_residual,
    get_analytics_doc,
]
