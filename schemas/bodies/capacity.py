"""`/analytics/capacity`: how much capital a book can run before its modelled costs eat its
information ratio, and how much of each name's traded value its fills would take, declared for the
contract (docs/analytics.md, "Capacity").

The seal's ledger is normalised (1.0 of equity at inception) and states no capital: the answer
takes the request's `capital` (default CAPITAL_DEFAULT) as the book's size in its currency at
inception, and the seal's modelled execution costs as the costs at that capital. Each fill's cost
is split in two: its per-share `fee`, a constant cost per unit of notional at any capital, and the
rest (the fill's slippage from the mid: half spread and market impact, which the seal does not
separate), whose cost per unit of notional grows with the square root of the fill's participation.
At capital K the book trades K / K0 times the notional, each fill's participation is K / K0 times
larger, and its slippage costs (K / K0)^(3/2) times as much, sqrt(K / K0) times as much per unit
of the book's equity.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from msgspec import Meta

from schemas import terms
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.conventions import BOOK_CURRENCY
from schemas.terms import Term

CAPITAL_DEFAULT = 1e8
"""The reference capital when the request names none: 100 million of the book's currency."""
CAPITAL_MIN = 1.0
CAPITAL_MAX = 1e15
"""The capitals a request may name (`capital` and each `grid` value), in the book's currency."""
GRID_DEFAULT = tuple(10.0 ** (6 + k / 2) for k in range(9))
"""The default grid: 1e6 to 1e10 in half-decades (nine capitals)."""
GRID_MAX = 25
"""The most capitals `grid` may name."""
PARTICIPATION_LIMIT = 0.10
"""The share of a name's adv at which `participation_capacity` puts the 95th-percentile fill."""
MIN_WINDOW_SESSIONS = 2
"""An information ratio needs 2 sessions: a window holding fewer, in a history holding more, is a
400 naming `from`/`to`."""

CURRENCY = "base_currency"
"""The unit of a capital or a notional: the book's own currency (the seal's adv is in it), which the
service declares (schemas.conventions.BOOK_CURRENCY, served as the answer's `currency`)."""
FILLS = "trades:{book}"
FILLS_ADV = "trades:{book}, exposures.adv"
LEDGER_AND_FILLS = "portfolio:{book}, trades:{book}"
COST_MODEL: Literal["fee_linear_slippage_square_root"] = "fee_linear_slippage_square_root"
COST_MODEL_FORMULA = (
    "cost_i(K) = fee_i x K/K0 + slippage_i x (K/K0)^(3/2) in the book's currency, slippage_i = "
    "-execution_cost_i - fee_i (the fee clipped to [0, -execution_cost_i]); per unit of the book's equity: "
    "r_t(K) = r_t - (sqrt(K/K0) - 1) x sum_{i on t} slippage_i / starting_equity_t"
)
PARTICIPATION = (
    "|quantity x fill_price| / equity_basis x K / adv, adv the exposures' average daily traded value of the "
    "fill's name at its decision (trades.decision_at)"
)


def _share_above(threshold: float, *, term: Term) -> Meta:
    return figure(
        f"Share of the window's fills with an adv whose participation at the reference capital is above "
        f"{threshold:.0%} of adv",
        f"count(p_i > {threshold:g}) / count(p_i)",
        source=FILLS_ADV,
        term=term,
    )


class LargestFill(Body, kw_only=True, frozen=True):
    """The fill of the window with the largest participation at the reference capital."""

    date: Annotated[dt.date, figure("The fill's session")]
    decision_at: Annotated[dt.date, figure("The rebalance week the fill implements (its adv is that week's)")]
    symbol: Annotated[str, figure("The name traded")]
    participation: Annotated[
        float,
        figure(
            "Its participation at the reference capital: " + PARTICIPATION,
            source=FILLS_ADV,
            term=terms.PARTICIPATION,
        ),
    ]
    notional: Annotated[
        float,
        figure(
            "Its traded value at the reference capital",
            "|quantity x fill_price| / equity_basis x K0",
            source=FILLS,
            term=terms.NOTIONAL,
        ),
    ]
    adv: Annotated[
        float,
        figure("The name's average daily traded value at the decision", source="exposures", term=terms.ADV),
    ]


class CapacityParticipation(Body, kw_only=True, frozen=True):
    """How much of each name's average daily traded value the window's fills take at the reference
    capital (fills whose name has no adv at its decision are left out: `fills_with_adv`)."""

    median: Annotated[
        AnalyticsStat,
        figure(
            "Median participation of the window's fills at the reference capital (a fraction of adv: 0.01 is 1%)",
            "percentile(p, 50), linear interpolation; p_i = " + PARTICIPATION,
            source=FILLS_ADV,
            term=terms.MEDIAN,
        ),
    ]
    p95: Annotated[
        AnalyticsStat,
        figure(
            "95th percentile of the window's fills' participation at the reference capital",
            "percentile(p, 95), linear interpolation (numpy's and pandas' default)",
            source=FILLS_ADV,
            term=terms.P95,
        ),
    ]
    max: Annotated[
        AnalyticsStat,
        figure(
            "Largest participation of a fill of the window at the reference capital",
            "max(p)",
            source=FILLS_ADV,
            term=terms.MAX,
        ),
    ]
    above_1pct: Annotated[AnalyticsStat, _share_above(0.01, term=terms.ABOVE_1PCT)]
    above_5pct: Annotated[AnalyticsStat, _share_above(0.05, term=terms.ABOVE_5PCT)]
    above_10pct: Annotated[AnalyticsStat, _share_above(0.10, term=terms.ABOVE_10PCT)]
    largest: Annotated[
        LargestFill | None,
        figure(
            "The fill with the largest participation (the earliest, then the first symbol, on a tie); null when not measurable"
        ),
    ]


class CapacityPoint(Body, kw_only=True, frozen=True):
    """The book at one capital of the grid."""

    capital: Annotated[
        float, figure("The capital K: the book's size at inception", source="request", term=terms.CAPITAL)
    ]
    net_information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the book's daily returns at capital K, its modelled costs scaled as cost_model says",
            "mean(r(K)) / std(r(K), ddof=1) * sqrt(252); " + COST_MODEL_FORMULA,
            source=LEDGER_AND_FILLS,
            keys=PER_YEAR,
            term=terms.NET_INFORMATION_RATIO,
        ),
    ]
    cost_drag: Annotated[
        AnalyticsStat,
        figure(
            "Modelled execution cost at capital K per year, as a fraction of the book's equity (0.01 = 1% a year), "
            "arithmetic",
            "mean_t(k_t + (sqrt(K/K0) - 1) x slippage_t / starting_equity_t) * 252, k_t = -execution_cost_t / "
            "starting_equity_t",
            source=LEDGER_AND_FILLS,
            keys=PER_YEAR,
            term=terms.COST_DRAG,
        ),
    ]
    participation_p95: Annotated[
        AnalyticsStat,
        figure(
            "95th percentile of the window's fills' participation at capital K (K / K0 times the reference's)",
            "percentile(p(K), 95), p_i(K) = " + PARTICIPATION,
            source=FILLS_ADV,
            term=terms.PARTICIPATION_P95,
        ),
    ]


class Capacity(Body, kw_only=True, frozen=True):
    """Capacity of a book (`/analytics/capacity`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    capital: Annotated[
        float,
        figure(
            "The reference capital K0: the book's size in its currency at inception, which the seal does not "
            "state (its ledger is normalised to 1.0): the request's `capital`, default 1e8. The seal's modelled "
            "execution costs are taken as the costs at K0, so every capital figure of the answer scales with it",
            source="request",
            term=terms.CAPITAL,
        ),
    ]
    currency: Annotated[
        str,
        figure(
            "The currency of every capital, traded value and average daily traded value of the answer (unit "
            "base_currency): the books' currency the service declares (schemas.conventions.BOOK_CURRENCY), as a "
            "seal states none (its ledger is normalised to 1.0, its exposures' adv is in its prices' currency)"
        ),
    ] = BOOK_CURRENCY
    cost_model: Annotated[
        Literal["fee_linear_slippage_square_root"],
        figure(
            "How the seal's modelled cost of each fill grows with capital: its per-share fee in proportion (a "
            "constant cost per unit of notional), the rest (its slippage from the mid: spread and impact, which the "
            "seal does not separate) as a square-root impact on participation, so (K/K0)^(3/2) times the cost at "
            "K0; the spread is scaled as impact too, which overstates the costs above K0",
            COST_MODEL_FORMULA,
        ),
    ] = COST_MODEL
    sessions: Annotated[
        int | None,
        figure(
            "Sessions of the book in the window; null for a key that may not read the ledger",
            source=BOOK_LEDGER,
            term=terms.SESSIONS,
        ),
    ]
    fills: Annotated[
        int | None,
        figure(
            "Fills of the book in the window; null for a key that may not read the trades",
            source=FILLS,
            term=terms.FILLS,
        ),
    ]
    fills_with_adv: Annotated[
        int | None,
        figure(
            "Fills of the window whose name has an adv at its decision (an exposures row with adv): those the "
            "participation figures are over; null for a key that may not read the trades",
            source=FILLS_ADV,
            term=terms.FILLS_WITH_ADV,
        ),
    ]
    participation: Annotated[
        CapacityParticipation, figure("Participation of the window's fills at the reference capital")
    ]
    net_information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Net information ratio at the reference capital: the ledger's own, as /analytics/costs "
            "information_ratio.net over the same window",
            "mean(r) / std(r, ddof=1) * sqrt(252), r = ending_equity / starting_equity - 1",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.NET_INFORMATION_RATIO,
        ),
    ]
    capacity: Annotated[
        AnalyticsStat,
        figure(
            "The capital at which the modelled costs halve the net information ratio at the reference capital: "
            "the smallest K above K0 with net_information_ratio(K) = net_information_ratio(K0) / 2, solved in "
            "closed form (a quadratic in sqrt(K/K0) - 1); not measurable when the net information ratio at K0 is "
            "not positive, or when it never falls to half",
            "K0 (1 + a)^2, a the smallest root > 0 of mean(r - a x) / std(r - a x) = mean(r) / std(r) / 2, "
            "x_t = slippage_t / starting_equity_t",
            source=LEDGER_AND_FILLS,
            term=terms.CAPACITY,
        ),
    ]
    participation_capacity: Annotated[
        AnalyticsStat,
        figure(
            f"The capital at which the 95th-percentile fill of the window takes {PARTICIPATION_LIMIT:.0%} of its "
            "name's adv (participation grows in proportion to capital); does not depend on K0",
            f"{PARTICIPATION_LIMIT:g} / percentile(|quantity x fill_price| / equity_basis / adv, 95)",
            source=FILLS_ADV,
            term=terms.PARTICIPATION_CAPACITY,
        ),
    ]
    grid: Annotated[
        list[CapacityPoint],
        figure(
            "The book at each capital of the request's `grid` (default 1e6 to 1e10 in half-decades), in the order "
            "given"
        ),
    ]
