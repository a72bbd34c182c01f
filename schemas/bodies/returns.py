"""`/analytics/returns`: a book's calendar returns (each month's and year's, beside the market
benchmark's year over the book's sessions) and its trailing beta to the market benchmark, session
by session: what the tear sheet's monthly heatmap, the alpha page's returns table and the tear
sheet's rolling beta draw (docs/analytics.md, "Calendar returns and trailing beta")."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from schemas import terms
from schemas.bodies.analytics import BOOK_LEDGER, WINDOW_FIELD
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure

BETA_WINDOW = 126
"""Sessions of the trailing beta: half a year of 252, the span of the rolling route's default 26
weeks."""
BETA_MIN_OBSERVATIONS = 63
"""Sessions with both returns a trailing beta needs (half its window, as the rolling route asks)."""
COMPOUNDED = (
    "prod(1 + r) - 1 over the period's sessions with a return, r = ending_equity / starting_equity - 1"
)


class MonthReturn(Body, kw_only=True, frozen=True):
    """One calendar month of the book."""

    month: Annotated[str, figure("The calendar month, YYYY-MM (UTC session dates)")]
    sessions: Annotated[
        int, figure("Sessions of the month with a return", source=BOOK_LEDGER, term=terms.SESSIONS)
    ]
    book_return: Annotated[
        float,
        figure(
            "The book's return over the month, compounded",
            COMPOUNDED,
            source=BOOK_LEDGER,
            term=terms.MONTHLY_RETURN,
        ),
    ]


class YearReturn(Body, kw_only=True, frozen=True):
    """One calendar year of the book, beside the market benchmark's."""

    year: Annotated[int, figure("The calendar year")]
    sessions: Annotated[
        int, figure("Sessions of the year with a return", source=BOOK_LEDGER, term=terms.SESSIONS)
    ]
    book_return: Annotated[
        float,
        figure(
            "The book's return over the year, compounded (its months compounded)",
            COMPOUNDED,
            source=BOOK_LEDGER,
            term=terms.CALENDAR_YEAR_RETURN,
        ),
    ]
    benchmark_return: Annotated[
        float | None,
        figure(
            "SPY's return over the book's sessions of the year, compounded (a session without a SPY "
            "return adds nothing); null without one, or for a key without benchmarks.daily",
            "prod(1 + b) - 1 over the book's sessions of the year, b SPY's period_return",
            source="benchmark:SPY",
            term=terms.BENCHMARK_RETURN,
        ),
    ]


class BetaPoint(Body, kw_only=True, frozen=True):
    """The trailing beta on one session of the book."""

    date: Annotated[dt.date, figure("The session (the last of the trailing window)")]
    beta: Annotated[
        float | None,
        figure(
            f"OLS slope, with an intercept, of the book's daily returns on SPY's over the {BETA_WINDOW} "
            f"sessions up to this one, as /analytics/risk's benchmark.beta over a window; null before "
            f"the window is full, with fewer than {BETA_MIN_OBSERVATIONS} sessions with both returns, or "
            "when SPY's returns have no measurable variance",
            "sum (b - mean b)(r - mean r) / sum (b - mean b)^2 over the sessions with both returns",
            term=terms.BETA,
        ),
    ]


class TrailingBeta(Body, kw_only=True, frozen=True):
    """The book's beta to SPY over a trailing window, session by session."""

    window_sessions: Annotated[int, figure("Sessions of the trailing window", term=terms.WINDOW_SESSIONS)]
    min_observations: Annotated[
        int, figure("Sessions with both returns a beta needs", term=terms.MIN_OBSERVATIONS)
    ]
    points: Annotated[
        list[BetaPoint] | None,
        figure("One per session of the book in the window; null for a key without benchmarks.daily"),
    ]


class BookReturns(Body, kw_only=True, frozen=True):
    """A book's calendar returns and trailing beta to SPY (`/analytics/returns`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    benchmark: Annotated[str, figure("The benchmark: SPY")]
    return_basis: Annotated[
        str | None,
        figure(
            "SPY's return basis (as /v1/benchmarks/SPY/daily period_return); null for a key without "
            "benchmarks.daily",
            source="benchmark:SPY",
        ),
    ]
    months: Annotated[
        list[MonthReturn], figure("Each calendar month holding a session with a return, in order")
    ]
    years: Annotated[list[YearReturn], figure("Each calendar year holding a session with a return, in order")]
    beta: Annotated[TrailingBeta, figure("The trailing beta to SPY")]
