"""`/analytics/attribution`: where a book's P&L came from over a window (by name, by leg, by sector),
how fragile its information ratio is (without its best days, without its best names, the share of
P&L its best days made) and how concentrated it was (docs/analytics.md, "Attribution").

Units: P&L in normalised equity (`equity`: 1.0 = the book's equity at inception, the ledger's and
/pnl's unit; times `equity_basis` it is base currency); a return contribution is a fraction of the
book's equity summed over sessions (each session's net P&L over that session's starting equity), so
contributions add up across names, legs and sectors to the sum of the book's daily returns.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from schemas import terms
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.bodies.formats import SEAL_TEXT
from schemas.terms import Term

TOP_DEFAULT, TOP_MAX = 10, 50
"""`top`: contributors and detractors listed, each."""
DROP_DEFAULT, DROP_MAX = 5, 20
"""`drop`: best days and best names the fragility figures leave out."""
DAY_SHARES = (1, 5)
"""The best percentages of days whose share of the window's P&L is served."""
MIN_SESSIONS = 2
"""A window holding fewer sessions of the book (the whole history holding more) is a 400."""

PNL = "pnl:{book}"
"""The `source` of a figure read from the book's per-name P&L rows (/pnl)."""
PNL_AND_LEDGER = "pnl:{book}, portfolio:{book}"
"""A per-name return contribution: /pnl's net_pnl over the ledger's starting equity."""
POSITIONS = "positions:{book}"
"""A figure read from the book's positions (/positions)."""

RANKING = "names ranked by window P&L (the sum of their net_pnl over the window's sessions), ties by symbol ascending"
SHARE_RULE = (
    "the name's window P&L over the names' window P&L (the sum of net_pnl over every name and session of the "
    "window: the ledger's cash carry and rounding adjustment belong to no name and are left out of it, see "
    "totals); the shares of all names add up to 1; not measurable when the names' P&L is not positive (a share "
    "of a loss or of nothing is no share: in a losing window a name that made money would have a negative "
    "'share' and a losing name one above 1)"
)
LEG_RULE = (
    "the leg of a P&L row is the sign of the position held at the start of its session (the quantity at the "
    "close of the book's previous session), else, for a position opened that session, the sign of the quantity "
    "at its close; a row with neither (a round trip inside the session, a cost alone) is in no leg"
)
SECTOR_RULE = (
    "the sector of a P&L row is the sector the seal's exposures give its name at the latest rebalance on or "
    "before the row's session"
)
CONTRIBUTION = "sum over the window's sessions t of net_pnl_t / starting_equity_t"


def _pnl(what: str, *, term: Term) -> Meta:
    return figure(
        f"Net P&L of {what} over the window (market P&L, execution cost and borrow), in normalised equity",
        "sum of net_pnl over the window's sessions",
        source=PNL,
        term=term,
    )


def _contribution(what: str, *, term: Term) -> Meta:
    return figure(
        f"Return contribution of {what}: its net P&L each session over the book's starting equity that session, "
        "summed over the window's sessions (additive: the contributions of every name, the cash carry and the "
        "rounding add up to the sum of the book's daily returns, not to the compounded return)",
        CONTRIBUTION,
        source=PNL_AND_LEDGER,
        term=term,
    )


def _share(what: str, *, term: Term) -> Meta:
    return figure(
        f"Share of the names' window P&L made by {what}: " + SHARE_RULE,
        "pnl / sum of net_pnl over every name and session of the window",
        source=PNL,
        term=term,
    )


class NameAttribution(Body, kw_only=True, frozen=True):
    """One name of the contributors or detractors."""

    symbol: Annotated[str, figure("The name")]
    pnl: Annotated[AnalyticsStat, _pnl("the name", term=terms.PNL)]
    return_contribution: Annotated[AnalyticsStat, _contribution("the name", term=terms.RETURN_CONTRIBUTION)]
    share: Annotated[AnalyticsStat, _share("the name", term=terms.SHARE)]


Status = Literal["available", "not_measurable"]
STATUS = figure(
    "available, or not_measurable (then the lists are empty and withheld_reason says why: never zeros)"
)
WITHHELD = figure("Why the part is not measurable (present only then)")


class ByName(Body, kw_only=True, frozen=True):
    """Contributors and detractors by name."""

    status: Annotated[Status, STATUS]
    withheld_reason: Annotated[str, WITHHELD] | UnsetType = UNSET
    names: Annotated[
        int | None,
        figure("Names with a P&L row in the window; null when not measurable", source=PNL, term=terms.NAMES),
    ]
    contributors: Annotated[
        list[NameAttribution],
        figure(
            "The top names: the `top` names of largest window P&L among those that made money (P&L > 0), largest "
            "first; " + RANKING
        ),
    ]
    detractors: Annotated[
        list[NameAttribution],
        figure(
            "The bottom names: the `top` names of smallest window P&L among those that lost money (P&L < 0), "
            "largest loss first; " + RANKING
        ),
    ]


class LegPart(Body, kw_only=True, frozen=True):
    """One leg of the book: `{what}`."""

    pnl: Annotated[AnalyticsStat, _pnl("{what}", term=terms.PNL)]
    return_contribution: Annotated[AnalyticsStat, _contribution("{what}", term=terms.RETURN_CONTRIBUTION)]
    share: Annotated[AnalyticsStat, _share("{what}", term=terms.SHARE)]
    names: Annotated[
        int | None,
        figure(
            "Distinct names with a P&L row in {what}; null when not measurable", source=PNL, term=terms.NAMES
        ),
    ]


class ByLeg(Body, kw_only=True, frozen=True):
    """The long leg against the short leg."""

    rule: Annotated[str, figure("How a P&L row's leg is decided")] = LEG_RULE
    long: Annotated[LegPart, figure("The long leg", what="the long leg's P&L rows")]
    short: Annotated[LegPart, figure("The short leg", what="the short leg's P&L rows")]
    neither: Annotated[
        LegPart,
        figure(
            "P&L rows in no leg (no position at the session's start nor at its close), so that the legs add up "
            "to the names' P&L",
            what="the P&L rows in no leg",
        ),
    ]


class SectorPart(Body, kw_only=True, frozen=True):
    """One sector: `{what}`."""

    sector: Annotated[
        str | None, SEAL_TEXT, figure("The sector as the seal names it; null for the names without one")
    ]
    pnl: Annotated[AnalyticsStat, _pnl("{what}", term=terms.PNL)]
    return_contribution: Annotated[AnalyticsStat, _contribution("{what}", term=terms.RETURN_CONTRIBUTION)]
    share: Annotated[AnalyticsStat, _share("{what}", term=terms.SHARE)]
    names: Annotated[
        int | None, figure("Distinct names with a P&L row in {what}", source=PNL, term=terms.NAMES)
    ]


class BySector(Body, kw_only=True, frozen=True):
    """The P&L by sector."""

    status: Annotated[Status, STATUS]
    withheld_reason: Annotated[str, WITHHELD] | UnsetType = UNSET
    rule: Annotated[str, figure("How a P&L row's sector is decided")] = SECTOR_RULE
    sectors: Annotated[
        list[SectorPart],
        figure(
            "One entry per sector with a P&L row in the window, largest window P&L first (ties by sector), then "
            "one with sector null for the rows whose name had no sector sealed at that rebalance (only when there "
            "are some), so that the sectors add up to the names' P&L",
            what="the sector's P&L rows",
        ),
    ]


class Totals(Body, kw_only=True, frozen=True):
    """The window's P&L and how the parts add up to it."""

    pnl: Annotated[
        AnalyticsStat,
        figure(
            "The book's P&L over the window, from the ledger: names_pnl + cash_carry + rounding_adjustment",
            "sum(ending_equity - starting_equity) over the window's sessions",
            source=BOOK_LEDGER,
            term=terms.PNL,
        ),
    ]
    names_pnl: Annotated[
        AnalyticsStat,
        figure(
            "The names' P&L over the window: the denominator of every share",
            "sum of net_pnl over every name and session of the window",
            source=PNL,
            term=terms.NAMES_PNL,
        ),
    ]
    cash_carry: Annotated[
        AnalyticsStat,
        figure(
            "Interest the book's cash earned over the window: the ledger's, no name's",
            "sum(cash_carry)",
            source=BOOK_LEDGER,
            term=terms.CASH_CARRY,
        ),
    ]
    rounding_adjustment: Annotated[
        AnalyticsStat,
        figure(
            "The ledger's rounding adjustments over the window: no name's",
            "sum(rounding_adjustment)",
            source=BOOK_LEDGER,
            term=terms.ROUNDING_ADJUSTMENT,
        ),
    ]
    sum_of_daily_returns: Annotated[
        AnalyticsStat,
        figure(
            "Sum of the book's daily returns over the window (not compounded): what the return contributions add "
            "up to",
            "sum(r), r = ending_equity / starting_equity - 1",
            source=BOOK_LEDGER,
            term=terms.SUM_OF_DAILY_RETURNS,
        ),
    ]
    names_return_contribution: Annotated[
        AnalyticsStat, _contribution("every name", term=terms.NAMES_RETURN_CONTRIBUTION)
    ]
    cash_carry_return_contribution: Annotated[
        AnalyticsStat,
        figure(
            "Return contribution of the cash carry",
            "sum(cash_carry / starting_equity)",
            source=BOOK_LEDGER,
            term=terms.CASH_CARRY_RETURN_CONTRIBUTION,
        ),
    ]
    rounding_return_contribution: Annotated[
        AnalyticsStat,
        figure(
            "Return contribution of the rounding adjustments",
            "sum(rounding_adjustment / starting_equity)",
            source=BOOK_LEDGER,
            term=terms.ROUNDING_RETURN_CONTRIBUTION,
        ),
    ]


class BestDay(Body, kw_only=True, frozen=True):
    """One of the best days the fragility figures drop."""

    date: Annotated[dt.date, figure("The session")]
    day_return: Annotated[
        AnalyticsStat,
        figure(
            "The book's return that session",
            "ending_equity / starting_equity - 1",
            source=BOOK_LEDGER,
            term=terms.DAY_RETURN,
        ),
    ]
    pnl: Annotated[
        AnalyticsStat,
        figure(
            "The book's P&L that session",
            "ending_equity - starting_equity",
            source=BOOK_LEDGER,
            term=terms.PNL,
        ),
    ]
    top_symbol: Annotated[
        str | None,
        figure(
            "The name of largest return contribution that session (ties by symbol); null when not measurable",
            source=PNL,
        ),
    ]
    top_contribution: Annotated[
        AnalyticsStat,
        figure(
            "That name's return contribution that session: its net P&L over the session's starting equity (of "
            "day_return, the rest is the other names', the cash carry and the rounding)",
            "net_pnl / starting_equity",
            source=PNL_AND_LEDGER,
            term=terms.TOP_CONTRIBUTION,
        ),
    ]


def _days_share(percent: int, *, term: Term) -> Meta:
    return figure(
        f"Share of the window's P&L made by its best {percent}% of days: the P&L of the k sessions of largest P&L "
        f"over the window's P&L (totals.pnl), k = ceil({percent} x sessions / 100), at least 1 (15 of 1,406 "
        "sessions for 1%); above 1 when the other days lost in sum; not measurable when the window's P&L is not "
        "positive (a share of a loss is no share)",
        "sum of the k largest (ending_equity - starting_equity) / sum(ending_equity - starting_equity)",
        source=BOOK_LEDGER,
        term=term,
    )


IR = (
    "as /analytics/checks information_ratio: mean / std(ddof=1) of the daily returns, times sqrt(252), not in "
    "excess of the risk-free rate"
)


class Fragility(Body, kw_only=True, frozen=True):
    """How much of the information ratio depends on a few days or a few names."""

    drop: Annotated[int, figure("N: the best days and best names left out (the request's `drop`)")]
    information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the book's daily returns over the window, " + IR,
            "mean(r) / std(r, ddof=1) * sqrt(252), r = ending_equity / starting_equity - 1",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.INFORMATION_RATIO,
        ),
    ]
    without_best_days: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the window's daily returns without its N best sessions (largest r, ties by "
            "date, earliest first; best_days): those sessions dropped, " + IR,
            "information_ratio of r with the N largest returns removed",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.WITHOUT_BEST_DAYS,
        ),
    ]
    best_days_kept: Annotated[
        AnalyticsStat,
        figure(
            "The share of the information ratio kept without the N best days (the fragility check's figure with "
            "N = 5): not measurable when the information ratio is not positive",
            "without_best_days / information_ratio",
            source=BOOK_LEDGER,
            term=terms.BEST_DAYS_KEPT,
        ),
    ]
    without_best_names: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the window's daily returns without the N best names (best_names): each session's "
            "return less those names' return contributions that session, " + IR,
            "information_ratio of r_t - sum over the N names of net_pnl_t / starting_equity_t",
            source=PNL_AND_LEDGER,
            keys=PER_YEAR,
            term=terms.WITHOUT_BEST_NAMES,
        ),
    ]
    best_names: Annotated[
        list[str],
        figure(
            "The N names of largest window P&L (whether or not they made money), largest first: the contributors' "
            "ranking; empty when not measurable"
        ),
    ]
    best_days: Annotated[
        list[BestDay],
        figure("The N best sessions of the window (largest return first), each with its top name"),
    ]
    top_1pct_days: Annotated[
        int | None,
        figure(
            "k for the best 1% of days: ceil(sessions / 100), at least 1; null when not measurable",
            term=terms.TOP_1PCT_DAYS,
        ),
    ]
    top_1pct_days_share: Annotated[AnalyticsStat, _days_share(DAY_SHARES[0], term=terms.TOP_1PCT_DAYS_SHARE)]
    top_5pct_days: Annotated[
        int | None,
        figure(
            "k for the best 5% of days: ceil(5 x sessions / 100), at least 1; null when not measurable",
            term=terms.TOP_5PCT_DAYS,
        ),
    ]
    top_5pct_days_share: Annotated[AnalyticsStat, _days_share(DAY_SHARES[1], term=terms.TOP_5PCT_DAYS_SHARE)]


class LargestWeight(Body, kw_only=True, frozen=True):
    """The largest realised weight of the window."""

    weight: Annotated[
        AnalyticsStat,
        figure(
            "Largest |weight| the book held at a session's close in the window: the realised weight (/positions "
            "weight = signed_notional / ending_equity), not the decisions' target weight; the first in date and "
            "symbol order on a tie; as the max_weight check",
            "max |weight| over the window's positions",
            source=POSITIONS,
            term=terms.WEIGHT,
        ),
    ]
    symbol: Annotated[str | None, figure("The name held; null when not measurable")]
    date: Annotated[
        dt.date | None, figure("The session at whose close it was held; null when not measurable")
    ]
    side: Annotated[
        Literal["long", "short"] | None, figure("long (weight > 0) or short; null when not measurable")
    ]


class Concentration(Body, kw_only=True, frozen=True):
    """How concentrated the book's realised positions were over the window."""

    largest_weight: Annotated[LargestWeight, figure("The largest realised weight, its name and date")]
    names_held: Annotated[
        AnalyticsStat,
        figure(
            "Distinct names the book held a position in at a session's close in the window",
            "count of distinct symbols with weight != 0",
            source=POSITIONS,
            term=terms.NAMES_HELD,
        ),
    ]
    sessions_held: Annotated[
        int | None,
        figure(
            "Sessions of the window with at least one position at the close: what the two means are over; null "
            "when not measurable",
            source=POSITIONS,
            term=terms.SESSIONS_HELD,
        ),
    ]
    mean_names_per_session: Annotated[
        AnalyticsStat,
        figure(
            "Mean number of names held at the close, over the sessions with a position",
            "mean over sessions_held of the count of names with weight != 0",
            source=POSITIONS,
            term=terms.MEAN_NAMES_PER_SESSION,
        ),
    ]
    effective_names: Annotated[
        AnalyticsStat,
        figure(
            "Effective number of names: per session, one over the sum of the squared gross-normalised weights (N "
            "for N equal positions, 1 for one), averaged over the sessions with a position",
            "mean over sessions_held of 1 / sum_i (|w_i| / sum_j |w_j|)^2 = (sum |w|)^2 / sum w^2",
            source=POSITIONS,
            term=terms.EFFECTIVE_NAMES,
        ),
    ]


class Attribution(Body, kw_only=True, frozen=True):
    """Where a book's P&L came from over a window (`/analytics/attribution`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[
        int | None,
        figure(
            "Sessions of the book in the window (its ledger rows); null for a key that may not read the ledger",
            source=BOOK_LEDGER,
            term=terms.SESSIONS,
        ),
    ]
    top: Annotated[int, figure("Contributors and detractors listed, each (the request's `top`)")]
    totals: Annotated[Totals, figure("The window's P&L and its parts: names, cash carry, rounding")]
    by_name: Annotated[ByName, figure("Contributors and detractors by name")]
    by_leg: Annotated[ByLeg, figure("The long leg against the short leg: " + LEG_RULE)]
    by_sector: Annotated[
        BySector,
        figure(
            "The P&L by sector: "
            + SECTOR_RULE
            + "; not measurable (missing_kind) for a run that sealed no exposures, with a kind_missing warning"
        ),
    ]
    fragility: Annotated[Fragility, figure("The information ratio without the best days and names")]
    concentration: Annotated[Concentration, figure("Realised concentration from the positions")]
