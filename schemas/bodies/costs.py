"""`/analytics/costs`: what a book's modelled execution costs take, declared for the contract (docs/analytics.md, "Costs")."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from schemas import terms
from schemas.bodies import libraries
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.conventions import BOOK_CURRENCY
from schemas.terms import Term


def side(meaning: str, formula: str, *, term: Term) -> Meta:
    """One side of the costs object's information ratio."""
    return figure(
        f"Information ratio of daily returns {meaning}, daily times sqrt(252): {libraries.INFORMATION_RATIO}",
        f"mean / std(ddof=1) times sqrt(252) of {formula}",
        source=BOOK_LEDGER,
        keys=PER_YEAR,
        term=term,
    )


class InformationRatioSides(Body, kw_only=True, frozen=True):
    """`information_ratio` of the costs object."""

    gross: Annotated[
        AnalyticsStat,
        side("before execution costs", "daily g = r - execution_cost / starting_equity", term=terms.GROSS),
    ]
    net: Annotated[
        AnalyticsStat,
        side(
            "after execution costs, with the convention of /metrics core.information_ratio but over the window "
            "(/metrics never narrows core: its figure is the whole history's, so the two agree only there)",
            "daily r = ending / starting - 1",
            term=terms.NET,
        ),
    ]


class TurnoverBucket(Body, kw_only=True, frozen=True):
    """An entry of `turnover_by_decile.buckets` of the costs object."""

    bucket: Annotated[str, figure("Q1 .. Q10")]
    rank: Annotated[int, figure("1 .. 10")]
    weeks: Annotated[int, figure("Bucketed weeks the decile held names", term=terms.WEEKS)]
    decile_weekly_target_turnover: Annotated[
        float | None,
        figure(
            "Mean over bucketed weeks of the decile's one-way turnover of the book's target weights (the decisions, "
            "not the ledger's traded turnover of /metrics core.annual_turnover and the turnover check)",
            "sum over bucketed weeks of 1/2 sum_{i in decile} |w_t,i - w_t-1,i|, divided by bucketed_weeks",
            term=terms.DECILE_WEEKLY_TARGET_TURNOVER,
        ),
    ]
    decile_annual_target_turnover: Annotated[
        float | None,
        figure(
            "The decile's weekly one-way target-weight turnover annualised: decile_weekly_target_turnover x the "
            "run's weeks per year (turnover_by_decile.weeks_per_year)",
            "decile_weekly_target_turnover * weeks_per_year",
            term=terms.DECILE_ANNUAL_TARGET_TURNOVER,
        ),
    ]


class TurnoverByDecile(Body, kw_only=True, frozen=True):
    """`turnover_by_decile` of the costs object."""

    score_field: Annotated[str, figure("Score bucketed: score, or raw_score for raw_ books")]
    weight_field: Annotated[str, figure("Decision column of the book's target weight")]
    weeks: Annotated[
        int, figure("Weeks in the window with a previous week (turnover needs one)", term=terms.WEEKS)
    ]
    bucketed_weeks: Annotated[
        int,
        figure(
            "Of them, weeks bucketed into deciles (at least 20 scored names, not all equal)",
            term=terms.BUCKETED_WEEKS,
        ),
    ]
    weekly_target_turnover: Annotated[
        float | None,
        figure(
            "Mean over weeks of the whole book's one-way turnover of its target weights (the decisions, weekly; "
            "not the ledger's traded turnover)",
            "mean_t 1/2 sum_i |w_t,i - w_t-1,i|",
            term=terms.WEEKLY_TARGET_TURNOVER,
        ),
    ]
    weeks_per_year: Annotated[
        int,
        figure(
            "Weeks per year the annual figures are annualised with (the run's, 52)", term=terms.WEEKS_PER_YEAR
        ),
    ]
    annual_target_turnover: Annotated[
        float | None,
        figure(
            "The book's weekly one-way target-weight turnover annualised: weekly_target_turnover x weeks_per_year "
            "(not /metrics core.annual_turnover, the ledger's traded turnover per session x 252)",
            "weekly_target_turnover * weeks_per_year",
            term=terms.ANNUAL_TARGET_TURNOVER,
        ),
    ]
    unbucketed_weekly_target_turnover: Annotated[
        float | None,
        figure(
            "Mean weekly target-weight turnover of names in no decile at t (unbucketed weeks, names that left the cross-section)",
            term=terms.UNBUCKETED_WEEKLY_TARGET_TURNOVER,
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
            term=terms.COST_BPS,
        ),
    ]
    cost_multiple: Annotated[
        float | None,
        figure(
            "The multiple m of the modelled execution cost that costs cost_bps (every session's modelled cost "
            "scaled by m); null when the modelled cost is not measurable",
            "cost_bps / modelled_cost_bps",
            term=terms.COST_MULTIPLE,
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
            term=terms.NET_INFORMATION_RATIO_AT_COST,
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
            "reference capital K0 = 1e8)",
            term=terms.CAPITAL,
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
            term=terms.COST_BPS,
        ),
    ]
    participation_p95: Annotated[
        AnalyticsStat,
        figure(
            "95th percentile of the window's fills' participation at capital K, as /analytics/capacity "
            "grid[].participation_p95 (K / K0 times the reference's)",
            "percentile(p(K), 95), p_i(K) = |quantity x fill_price| / equity_basis x K / adv_i",
            source="trades:{book}, exposures.adv",
            term=terms.PARTICIPATION_P95,
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
            term=terms.NET_INFORMATION_RATIO,
        ),
    ]


class Costs(Body, kw_only=True, frozen=True):
    """What a book's modelled execution costs take (`/analytics/costs`), flows in normalised equity."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[
        int, figure("Sessions of the book in the window", source=BOOK_LEDGER, term=terms.SESSIONS)
    ]
    net_pnl: Annotated[
        AnalyticsStat,
        figure(
            "Net P&L, every flow included",
            "sum(ending_equity - starting_equity)",
            source=BOOK_LEDGER,
            term=terms.NET_PNL,
        ),
    ]
    execution_cost: Annotated[
        AnalyticsStat,
        figure(
            "Modelled execution cost paid",
            "-sum(execution_cost)",
            source=BOOK_LEDGER,
            term=terms.EXECUTION_COST,
        ),
    ]
    gross_pnl: Annotated[
        AnalyticsStat,
        figure(
            "P&L before execution costs", "net_pnl + execution_cost", source=BOOK_LEDGER, term=terms.GROSS_PNL
        ),
    ]
    traded_notional: Annotated[
        AnalyticsStat,
        figure(
            "Notional traded, in equity units",
            "sum(turnover_notional / equity_basis)",
            source=BOOK_LEDGER,
            term=terms.TRADED_NOTIONAL,
        ),
    ]
    break_even_multiple: Annotated[
        AnalyticsStat,
        figure(
            "Multiple m of the modelled execution cost at which the window's compounded net return is zero; not "
            "measurable when the book loses before costs or paid none",
            "root of prod_t(1 + g_t - m k_t) = 1 (Brent's method), g_t the gross daily return, k_t = "
            "-execution_cost_t / starting_equity_t",
            term=terms.BREAK_EVEN_MULTIPLE,
        ),
    ]
    break_even_bps: Annotated[
        AnalyticsStat,
        figure(
            "Cost per unit of traded notional at which the window's compounded net return is zero",
            "break_even_multiple * modelled_cost_bps",
            term=terms.BREAK_EVEN_BPS,
        ),
    ]
    modelled_cost_bps: Annotated[
        AnalyticsStat,
        figure(
            "The modelled cost per unit of traded notional (break_even_bps / break_even_multiple)",
            "execution_cost / traded_notional * 10^4 (both in equity units)",
            term=terms.MODELLED_COST_BPS,
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
            term=terms.BREAK_EVEN_COST_BPS,
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
    currency: Annotated[
        str,
        figure(
            "The currency of each capital of net_ir_by_capital: the books' currency the service declares "
            "(schemas.conventions.BOOK_CURRENCY; a seal states none), /analytics/capacity's `currency`"
        ),
    ] = BOOK_CURRENCY
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
            term=terms.HOLDING_PERIOD,
        ),
    ]
