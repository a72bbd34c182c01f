"""The analytics stat entry, and the significance and costs objects, declared for the contract.

Every analytics figure is one stat entry (`analytics.entries.declared_stat`): `value, unit, status,
[withheld_reason], source, annualisation`, then the keys its figure adds. One `AnalyticsStat`
declares them all, each absent unless its figure has it; their declared order is the order the
server adds them wherever two meet (`min_track_record`: confidence, sr_benchmark, years; the tail
figures: confidence, horizon_sessions; combine's turnover: approximation, periods_per_year).
What each field means, its formula, unit, annualisation and source are declared on it (`figure`,
schemas/bodies/figures.py); `ANALYTICS_BLOCK` says how `/analytics/_doc` lists them.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, UnsetType

from schemas.bodies import libraries
from schemas.bodies.base import Body, Window, meanings
from schemas.bodies.figures import Block, figure
from schemas.bodies.formats import SEAL_TEXT

STATUS = "`available` or `not_measurable` (then `value` is null and `withheld_reason` says why)."


class DsrTrials(Body, kw_only=True, frozen=True):
    """`dsr.trials` of the significance object."""

    count: int
    count_source: Annotated[
        str,
        Meta(description="`catalogue`, or `request` when `trials=` overrode the count."),
    ]
    sharpe_variance: Annotated[
        float | None,
        Meta(
            description="V, over the Sharpe ratios of the alphas the key may read (null without ledger "
            "access)."
        ),
    ]
    sharpe_variance_unit: Literal["per_session_squared"] = "per_session_squared"
    sharpe_variance_alphas: Annotated[
        int | None,
        Meta(description="How many Sharpe ratios V is over (null without ledger access)."),
    ]
    expected_max_sharpe: float | None
    expected_max_sharpe_unit: Literal["annualised"] = "annualised"
    effective_count: Annotated[
        int | None,
        Meta(
            description="The effective number of trials: the clusters of the trials by the correlation of their "
            "daily returns (null without ledger access, or when the catalogue records no links)."
        ),
    ]


class AnalyticsStat(Body, kw_only=True, frozen=True):
    """One analytics figure: a value with its unit, or `not_measurable` with a null value and a reason."""

    value: Annotated[float | None, Meta(description="The figure; null when not_measurable")]
    unit: Annotated[str, Meta(description="Unit of value")]
    status: Annotated[str, Meta(description=STATUS)]
    withheld_reason: (
        Annotated[
            str,
            Meta(description="Why the figure is not measurable (present only then)"),
        ]
        | UnsetType
    ) = UNSET
    source: Annotated[str, Meta(description="What the figure is computed from")]
    annualisation: Annotated[str, Meta(description="`annualised`, `per_period` or `not_annualisable`.")]
    approximation: (
        Annotated[str, Meta(description="`combine` turnover: how it is approximated.")] | UnsetType
    ) = UNSET
    periods_per_year: (
        Annotated[
            int,
            Meta(description="`sharpe`, `costs.information_ratio.*`: sessions per year used to annualise."),
        ]
        | UnsetType
    ) = UNSET
    confidence: (
        Annotated[
            float,
            Meta(description="`min_track_record`: the confidence the track record reaches (0.95)."),
        ]
        | UnsetType
    ) = UNSET
    sr_benchmark: (
        Annotated[
            float,
            Meta(description="`psr`, `min_track_record`: the request's `sr_benchmark` (annualised)."),
        ]
        | UnsetType
    ) = UNSET
    years: Annotated[float | None, Meta(description="`min_track_record` in years.")] | UnsetType = UNSET
    horizon_sessions: (
        Annotated[
            int,
            Meta(description="`risk.var_95`, `risk.cvar_95`: sessions the loss is measured over (1)."),
        ]
        | UnsetType
    ) = UNSET
    trials: (
        Annotated[
            DsrTrials,
            Meta(description="`dsr`: the catalogue's trials behind the expected maximum Sharpe ratio."),
        ]
        | UnsetType
    ) = UNSET
    lower: (
        Annotated[
            float | None,
            Meta(description="Bootstrap figures: the lower bound of the interval."),
        ]
        | UnsetType
    ) = UNSET
    upper: (
        Annotated[
            float | None,
            Meta(description="Bootstrap figures: the upper bound of the interval."),
        ]
        | UnsetType
    ) = UNSET
    observations: int | UnsetType = UNSET
    block_length: (
        Annotated[float, Meta(description="Bootstrap figures: the mean block length of the resamples.")]
        | UnsetType
    ) = UNSET
    family_size: (
        Annotated[
            int | None,
            Meta(
                description="`holm`, `benjamini_hochberg`: the hypotheses adjusted over (the alphas the key "
                "may read whose `nwt.ic` is measurable); null when the key may not read the rebalance "
                "cross-sections."
            ),
        ]
        | UnsetType
    ) = UNSET
    date: (
        Annotated[
            dt.date | None,
            Meta(description="`risk.best_*`, `risk.worst_*`: the last session of the day, week or month."),
        ]
        | UnsetType
    ) = UNSET
    sessions: (
        Annotated[
            int | None,
            Meta(description="`risk.best_*`, `risk.worst_*`: sessions of the window in that period."),
        ]
        | UnsetType
    ) = UNSET
    alpha: (
        Annotated[
            str | None,
            Meta(description="`contribution.max_correlation_to_member`: the member it is with."),
        ]
        | UnsetType
    ) = UNSET
    members: (
        Annotated[
            int,
            Meta(description="`contribution.mean_correlation_to_member`: the members with a correlation."),
        ]
        | UnsetType
    ) = UNSET


WINDOW = "the requested window (from/to), else the whole history"
SET_SESSIONS = "over the window's sessions on which every alpha of the set has a long_short return"
"""The sessions a combination of alphas is measured over (`/analytics/combine`)."""
WINDOW_ECHO = "The window echoed: from and to, null when open"
WINDOW_FIELD = figure(WINDOW_ECHO)
"""The `window` echo of every analytics object."""
BOOK_LEDGER = "portfolio:{book}"
"""The `source` of a figure read from the requested book's ledger."""
PER_YEAR = {"periods_per_year": figure("Sessions per year used to annualise")}
"""The key an annualised figure adds: the sessions per year it was annualised with."""
WEEKS_PER_YEAR = {
    "periods_per_year": figure(
        "Weeks per year used to annualise (the run's weeks_per_year, 52)",
        term="weeks_per_year",
    )
}
"""The key an annualised figure of weekly values (the ICIR) adds: the weeks per year it was annualised with."""
FAMILY_SIZE = figure(
    "The family adjusted over: the published alphas the key may read whose nwt.ic is measurable (this one "
    "included)",
    source="catalogue",
)


def interval(meaning: str, formula: str, annualisation: str, source: str) -> Meta:
    """A bootstrapped figure: the statistic, with its interval's bounds."""
    return figure(
        meaning,
        formula,
        source=source,
        keys={
            "lower": figure("Lower bound: the 2.5% quantile of the resampled statistic"),
            "upper": figure("Upper bound: the 97.5% quantile of the resampled statistic"),
            "observations": figure("Observations of the series in the window"),
            "block_length": figure("Mean block length of the resamples (block_length_rule)"),
        },
    )


LEDGER = "portfolio:long_short"
"""The `source` of a significance figure read from the long_short ledger."""
SR_BENCHMARK = figure(
    "The request's sr_benchmark (annualised); per session it is sr_benchmark / sqrt(252)",
    source="request",
)


class Bootstrap(Body, kw_only=True, frozen=True):
    """Stationary block-bootstrap confidence intervals (seeded: the same request, the same answer)."""

    method: Annotated[str, figure("The resampling scheme and the interval")]
    confidence: Annotated[float, figure("Confidence level of the intervals")]
    resamples: Annotated[int, figure("Number of resamples")]
    seed: Annotated[
        int,
        figure("Seed of numpy's PCG64 generator: the same request always gives the same answer"),
    ]
    block_length_rule: Annotated[str, figure("How the mean block length is chosen")]
    streams: Annotated[
        str,
        figure("The generator stream of each statistic (PCG64(SeedSequence([seed, stream])))"),
    ]
    rebuilt_mean_ic: Annotated[
        AnalyticsStat,
        interval(
            "Mean weekly conditioned IC rebuilt from the rebalance cross-sections (not the run's sealed /metrics "
            "core.ic)",
            "mean of weekly_signal.ic",
            "per_period",
            "weekly_signal",
        ),
    ]
    rebuilt_icir: Annotated[
        AnalyticsStat,
        interval(
            "Information ratio of the rebuilt weekly IC, annualised with the run's weeks_per_year (52), bounds "
            "included (not the run's sealed /metrics core.icir)",
            "mean / std(ddof=1) of weekly IC, times sqrt(weeks_per_year)",
            "annualised",
            "weekly_signal",
        ),
    ]
    information_ratio: Annotated[
        AnalyticsStat,
        interval(
            "Information ratio of daily long_short returns (after costs, not in excess of the risk-free rate), "
            "daily times sqrt(252) as /metrics core.information_ratio (rolling's is weekly times sqrt(52)): "
            f"{libraries.INFORMATION_RATIO}",
            "mean / std(ddof=1) times sqrt(252)",
            "annualised",
            LEDGER,
        ),
    ]


class MultipleTesting(Body, kw_only=True, frozen=True):
    """The `nwt.ic` p-value of `/metrics`, adjusted within the family of the alphas the key may read."""

    p_value: Annotated[
        AnalyticsStat,
        figure(
            "Two-sided Newey-West p-value of the mean weekly IC (as /metrics nwt.ic.p_value)",
            source="nwt.ic",
        ),
    ]
    holm: Annotated[
        AnalyticsStat,
        figure(
            "Holm step-down adjusted p-value within the family",
            "max over j <= k of min(1, (m - j + 1) p_(j)), k this alpha's rank",
            keys={"family_size": FAMILY_SIZE},
        ),
    ]
    benjamini_hochberg: Annotated[
        AnalyticsStat,
        figure(
            "Benjamini-Hochberg adjusted p-value (false discovery rate) within the family",
            "min over j >= k of min(1, m / j p_(j))",
            keys={"family_size": FAMILY_SIZE},
        ),
    ]


class Significance(Body, kw_only=True, frozen=True):
    """Significance of the long_short Sharpe ratio and of the IC (`/analytics/significance`)."""

    alpha: Annotated[str, figure("The alpha served (meta.run)")]
    alpha_id: Annotated[str, SEAL_TEXT, figure("The run's research source id")]
    book: Annotated[str, figure("Always long_short")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[
        int | None,
        figure(
            "Sessions of the long_short book in the window, as /portfolio and costs count them (the figures need 3 "
            "daily returns with variance); null for a key that may not read the ledger (a count of it, withheld "
            "as its figures are)",
            source=LEDGER,
        ),
    ]
    sharpe: Annotated[
        AnalyticsStat,
        figure(
            "Sharpe ratio of daily long_short total returns, after costs and not in excess of the risk-free rate: "
            f"the /metrics core.information_ratio convention (daily, times sqrt(252)), {libraries.INFORMATION_RATIO}",
            "mean / std(ddof=1) of ending/starting - 1, times sqrt(252)",
            source=LEDGER,
            keys=PER_YEAR,
        ),
    ]
    skewness: Annotated[
        AnalyticsStat,
        figure(
            "Sample skewness of the daily returns",
            "m3 / m2^(3/2) (biased moments)",
            source=LEDGER,
        ),
    ]
    kurtosis: Annotated[
        AnalyticsStat,
        figure(
            "Sample kurtosis of the daily returns, not in excess (3 for a normal)",
            "m4 / m2^2 (biased moments)",
            source=LEDGER,
        ),
    ]
    psr: Annotated[
        AnalyticsStat,
        figure(
            "Probabilistic Sharpe Ratio: the probability that the true Sharpe ratio exceeds sr_benchmark",
            "Phi((SR - SR*) sqrt(n - 1) / sqrt(1 - skew SR + (kurt - 1) / 4 SR^2)), SR per session",
            keys={"sr_benchmark": SR_BENCHMARK},
        ),
    ]
    min_track_record: Annotated[
        AnalyticsStat,
        figure(
            "Minimum track record length for PSR(sr_benchmark) to reach the confidence",
            "1 + (1 - skew SR + (kurt - 1) / 4 SR^2) (z_0.95 / (SR - SR*))^2; not measurable when SR <= SR*",
            keys={
                "confidence": figure("Confidence of the minimum track record (0.95)"),
                "sr_benchmark": SR_BENCHMARK,
                "years": figure("min_track_record in years (sessions / 252)"),
            },
        ),
    ]
    dsr: Annotated[
        AnalyticsStat,
        figure(
            "Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the catalogue's trials",
            "PSR(SR0), SR0 = sqrt(V) ((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e))), gamma the "
            "Euler-Mascheroni constant",
            keys={
                "trials": figure(
                    "The trials behind SR0: the catalogue's count, and the Sharpe variance over the alphas the key "
                    "may read (no other alpha is named, and no figure of an alpha the key may not read enters)"
                ),
                "trials.count": figure(
                    "N: alphas of the published catalogue with a measurable long_short Sharpe ratio, or the "
                    "request's trials",
                    source="catalogue",
                ),
                "trials.count_source": figure("catalogue, or request when trials= overrides the count"),
                "trials.sharpe_variance": figure(
                    "V: sample variance (ddof=1) of the per-session Sharpe ratios of the alphas the key may read "
                    "(the whole catalogue's for a key that reads it all), each over its whole history; not "
                    "measurable below 2 of them; null for a key that may not read the ledger",
                    source="catalogue",
                ),
                "trials.sharpe_variance_unit": figure("Unit of sharpe_variance"),
                "trials.sharpe_variance_alphas": figure(
                    "How many Sharpe ratios V is over: the alphas the key may read with a measurable Sharpe "
                    "ratio; null for a key that may not read the ledger",
                    source="catalogue",
                ),
                "trials.expected_max_sharpe": figure(
                    "SR0 annualised (times sqrt(252)); null for a key that may not read the ledger",
                ),
                "trials.expected_max_sharpe_unit": figure("Unit of expected_max_sharpe"),
                "trials.effective_count": figure(
                    "The effective number of trials: the clusters of the trials linked when their whole-history "
                    "daily long_short returns correlate at least 0.9 (single linkage: connected components), "
                    "over the alphas the key may read, every other trial of N one cluster of its own; null for "
                    "a key that may not read the ledger or when the catalogue generation records no links",
                    source="catalogue",
                ),
            },
        ),
    ]
    effective_dsr: Annotated[
        AnalyticsStat,
        figure(
            "Deflated Sharpe Ratio against the expected maximum Sharpe ratio of the effective number of trials "
            "(dsr.trials.effective_count in place of N; V as dsr's)",
            "PSR(SR0), SR0 = sqrt(V) ((1 - gamma) Phi^-1(1 - 1/K) + gamma Phi^-1(1 - 1/(K e))), K the effective "
            "number of trials",
        ),
    ]
    bootstrap: Annotated[
        Bootstrap,
        figure("Stationary block-bootstrap confidence intervals (at `confidence`) over " + WINDOW),
    ]
    multiple_testing: Annotated[
        MultipleTesting,
        figure(
            "The nwt.ic p-value of /metrics adjusted within the family of the alphas the key may read (whole "
            "histories; from/to do not narrow it)"
        ),
    ]


def side(meaning: str, formula: str) -> Meta:
    """One side of the costs object's information ratio."""
    return figure(
        f"Information ratio of daily returns {meaning}, daily times sqrt(252): {libraries.INFORMATION_RATIO}",
        f"mean / std(ddof=1) times sqrt(252) of {formula}",
        source=BOOK_LEDGER,
        keys=PER_YEAR,
    )


class InformationRatioSides(Body, kw_only=True, frozen=True):
    """`information_ratio` of the costs object."""

    gross: Annotated[
        AnalyticsStat,
        side("before execution costs", "daily g = r - execution_cost / starting_equity"),
    ]
    net: Annotated[
        AnalyticsStat,
        side(
            "after execution costs, with the convention of /metrics core.information_ratio but over the window "
            "(/metrics never narrows core: its figure is the whole history's, so the two agree only there)",
            "daily r = ending / starting - 1",
        ),
    ]


class TurnoverBucket(Body, kw_only=True, frozen=True):
    """An entry of `turnover_by_decile.buckets` of the costs object."""

    bucket: Annotated[str, figure("Q1 .. Q10")]
    rank: Annotated[int, figure("1 .. 10")]
    weeks: Annotated[int, figure("Bucketed weeks the decile held names")]
    mean_turnover: Annotated[
        float | None,
        figure(
            "Mean over bucketed weeks of the decile's one-way turnover",
            "sum over bucketed weeks of 1/2 sum_{i in decile} |w_t,i - w_t-1,i|, divided by bucketed_weeks",
        ),
    ]
    annual_turnover: Annotated[
        float | None,
        figure(
            "The decile's mean weekly one-way turnover annualised: mean_turnover x the run's weeks per year "
            "(turnover_by_decile.weeks_per_year), the dashboard's one turnover basis",
            "mean_turnover * weeks_per_year",
        ),
    ]


class TurnoverByDecile(Body, kw_only=True, frozen=True):
    """`turnover_by_decile` of the costs object."""

    score_field: Annotated[str, figure("Score bucketed: score, or raw_score for raw_ books")]
    weight_field: Annotated[str, figure("Decision column of the book's target weight")]
    weeks: Annotated[int, figure("Weeks in the window with a previous week (turnover needs one)")]
    bucketed_weeks: Annotated[
        int,
        figure("Of them, weeks bucketed into deciles (at least 20 scored names, not all equal)"),
    ]
    mean_weekly_turnover: Annotated[
        float | None,
        figure(
            "Mean over weeks of the whole book's one-way turnover",
            "mean_t 1/2 sum_i |w_t,i - w_t-1,i|",
        ),
    ]
    weeks_per_year: Annotated[
        int,
        figure("Weeks per year the annual figures are annualised with (the run's, 52)"),
    ]
    mean_annual_turnover: Annotated[
        float | None,
        figure(
            "The book's mean weekly one-way turnover annualised: mean_weekly_turnover x weeks_per_year",
            "mean_weekly_turnover * weeks_per_year",
        ),
    ]
    unbucketed_mean_turnover: Annotated[
        float | None,
        figure(
            "Mean weekly turnover of names in no decile at t (unbucketed weeks, names that left the cross-section)",
        ),
    ]
    buckets: Annotated[list[TurnoverBucket], figure("Q1 (lowest score) .. Q10")]


COST_GRID_BPS = (0.0, 5.0, 10.0, 20.0, 30.0, 50.0, 75.0, 100.0)
"""The fixed cost levels of `net_ir_by_cost`, in basis points of traded notional."""
CostLevelKind = Literal["grid", "modelled", "break_even"]


class CostLevel(Body, kw_only=True, frozen=True):
    """An entry of `net_ir_by_cost` of the costs object: the book at one cost level."""

    cost_bps: Annotated[
        float,
        figure(
            "The cost level: execution cost per unit of traded notional, in basis points (a level of the fixed "
            "grid 0, 5, 10, 20, 30, 50, 75, 100, the modelled cost, or the break-even cost)",
            "cost_multiple * modelled_cost_bps",
        ),
    ]
    cost_multiple: Annotated[
        float | None,
        figure(
            "The multiple m of the modelled execution cost that costs cost_bps (every session's modelled cost "
            "scaled by m); null when the modelled cost is not measurable",
            "cost_bps / modelled_cost_bps",
        ),
    ]
    level: Annotated[
        CostLevelKind,
        figure(
            "grid (a level of the fixed grid), modelled (modelled_cost_bps) or break_even (break_even_cost_bps)"
        ),
    ]
    net_information_ratio_at_cost: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the book's daily returns with every modelled cost scaled to cost_bps: "
            "information_ratio.gross at 0 bps, information_ratio.net at the modelled cost, 0 at the break-even",
            "mean / std(ddof=1) times sqrt(252) of r_t - (m - 1) k_t, m = cost_multiple, r_t = ending / starting - "
            "1, k_t = -execution_cost_t / starting_equity_t",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
        ),
    ]


class CostAtCapital(Body, kw_only=True, frozen=True):
    """An entry of `net_ir_by_capital` of the costs object: the book at one capital, its cost rising
    with its participation as /analytics/capacity models it."""

    capital: Annotated[
        float,
        figure(
            "The capital K: the book's size at inception in its currency (the grid of /analytics/capacity's "
            "default, 1e6 to 1e10 in half-decades, the seal's modelled costs taken as the costs at its default "
            "reference capital K0 = 1e8)"
        ),
    ]
    cost_bps: Annotated[
        AnalyticsStat,
        figure(
            "The book's execution cost per unit of traded notional at capital K, its fees in proportion to "
            "capital and its slippage as a square-root impact on participation (/analytics/capacity's cost_model, "
            "fee_linear_slippage_square_root): modelled_cost_bps at K0",
            "(execution_cost + (sqrt(K/K0) - 1) x slippage) / traded_notional * 10^4, slippage the window's fills' "
            "cost beyond their fees on the ledger's sessions",
            source="portfolio:{book}, trades:{book}",
        ),
    ]
    participation_p95: Annotated[
        AnalyticsStat,
        figure(
            "95th percentile of the window's fills' participation at capital K, as /analytics/capacity "
            "grid[].participation_p95 (K / K0 times the reference's)",
            "percentile(p(K), 95), p_i(K) = |quantity x fill_price| / equity_basis x K / adv_i",
            source="trades:{book}, exposures.adv",
        ),
    ]
    net_information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the book's daily returns at capital K, as /analytics/capacity "
            "grid[].net_information_ratio at capital=1e8",
            "mean(r(K)) / std(r(K), ddof=1) * sqrt(252), r_t(K) = r_t - (sqrt(K/K0) - 1) x slippage_t / "
            "starting_equity_t",
            source="portfolio:{book}, trades:{book}",
            keys=PER_YEAR,
        ),
    ]


class Costs(Body, kw_only=True, frozen=True):
    """What a book's modelled execution costs take (`/analytics/costs`), flows in normalised equity."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[int, figure("Sessions of the book in the window", source=BOOK_LEDGER)]
    net_pnl: Annotated[
        AnalyticsStat,
        figure(
            "Net P&L, every flow included",
            "sum(ending_equity - starting_equity)",
            source=BOOK_LEDGER,
        ),
    ]
    execution_cost: Annotated[
        AnalyticsStat,
        figure("Modelled execution cost paid", "-sum(execution_cost)", source=BOOK_LEDGER),
    ]
    gross_pnl: Annotated[
        AnalyticsStat,
        figure("P&L before execution costs", "net_pnl + execution_cost", source=BOOK_LEDGER),
    ]
    traded_notional: Annotated[
        AnalyticsStat,
        figure(
            "Notional traded, in equity units",
            "sum(turnover_notional / equity_basis)",
            source=BOOK_LEDGER,
        ),
    ]
    break_even_multiple: Annotated[
        AnalyticsStat,
        figure(
            "Multiple m of the modelled execution cost at which the window's compounded net return is zero; not "
            "measurable when the book loses before costs or paid none",
            "root of prod_t(1 + g_t - m k_t) = 1 (Brent's method), g_t the gross daily return, k_t = "
            "-execution_cost_t / starting_equity_t",
        ),
    ]
    break_even_bps: Annotated[
        AnalyticsStat,
        figure(
            "Cost per unit of traded notional at which the window's compounded net return is zero",
            "break_even_multiple * modelled_cost_bps",
        ),
    ]
    modelled_cost_bps: Annotated[
        AnalyticsStat,
        figure(
            "The modelled cost per unit of traded notional (break_even_bps / break_even_multiple)",
            "execution_cost / traded_notional * 10^4 (both in equity units)",
        ),
    ]
    break_even_cost_bps: Annotated[
        AnalyticsStat,
        figure(
            "Execution cost per unit of traded notional at which the book's net information ratio over the window "
            "is 0: every session's modelled cost scaled by the multiple m at which the mean daily net return is 0, "
            "in bps as modelled_cost_bps (an arithmetic mean, so above break_even_bps, where the compounded return "
            "is 0); not measurable when the mean daily return before costs is not positive, the book paid no cost or "
            "traded nothing",
            "mean(g) / mean(k) * modelled_cost_bps, g_t = r_t + k_t the gross daily return, k_t = -execution_cost_t "
            "/ starting_equity_t",
            source=BOOK_LEDGER,
        ),
    ]
    information_ratio: Annotated[
        InformationRatioSides,
        figure(
            "Information ratio before (gross) and after (net) execution costs, side by side; gross here means "
            "before costs, not the /metrics sense (not in excess of the risk-free rate: neither side is)"
        ),
    ]
    net_ir_by_cost: Annotated[
        list[CostLevel],
        figure(
            "The curve of the net information ratio against the cost level: the fixed grid (0, 5, 10, 20, 30, 50, 75 and "
            "100 bps), the modelled cost and the break-even cost, in ascending cost (the modelled and break-even "
            "levels only when measurable)"
        ),
    ]
    net_ir_by_capital: Annotated[
        list[CostAtCapital],
        figure(
            "The same curve tied to capacity: at each capital of /analytics/capacity's default grid the cost rises "
            "with the fills' participation (fees in proportion, slippage as a square-root impact), with the cost "
            "per traded notional, the 95th-percentile participation and the net information ratio it gives"
        ),
    ]
    turnover_by_decile: Annotated[
        TurnoverByDecile | None,
        figure(
            "One-way turnover of the book's target weights by decile of the score it trades (score and the "
            "long_short or long_only target weight; raw_score and the raw_ book's own target weight for raw_ "
            "books; bucketed as /metrics ic_deciles); null for a book without target weights (a run without "
            "decisions)"
        ),
    ]
    holding_period: Annotated[
        AnalyticsStat,
        figure(
            "Average holding period of a position",
            "mean_t sum_i |w_t,i| / mean_t 1/2 sum_i |w_t,i - w_t-1,i|",
            source="decisions",
        ),
    ]


ANALYTICS_STAT_KEYS = (
    "value",
    "unit",
    "status",
    "source",
    "annualisation",
    "withheld_reason",
)
"""The keys `/analytics/_doc` documents under every figure."""
_STAT_MEANINGS = meanings(AnalyticsStat)


def _stat_entries(path: str, entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A figure's standard keys: `value` carries the figure's formula, unit, annualisation and
    source; the others mean what `AnalyticsStat` says of them."""
    plain = {key: None for key in entry} | {
        "annualisation": "not_annualisable",
        "source": "computed",
    }
    out = {f"{path}.{key}": {**plain, "meaning": _STAT_MEANINGS[key]} for key in ANALYTICS_STAT_KEYS}
    out[f"{path}.value"] = {**entry, "meaning": _STAT_MEANINGS["value"]}
    return out


ANALYTICS_BLOCK = Block(
    keys=("meaning", "formula", "unit", "annualisation", "source"),
    defaults={"annualisation": "not_annualisable", "source": "computed"},
    inherited=frozenset(),
    stat=_stat_entries,
    stat_type=AnalyticsStat,
)
"""How `/analytics/_doc` writes an entry of a body or a row read from its declaration (its horizon
and granularity are the route's, added by serve/analytics_doc.py)."""
