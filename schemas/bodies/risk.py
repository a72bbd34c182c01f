"""`/analytics/risk`: benchmark-relative and tail figures of one book against the market benchmark, declared for the contract (docs/analytics.md, "Risk")."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from schemas import terms
from schemas.bodies import libraries
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.terms import Term

RISK_MIN_SESSIONS = 2
"""Returns a risk figure needs for a standard deviation, a regression or an annualised figure."""
RISK_MIN_TAIL_SESSIONS = 20
"""Returns a 5% tail figure needs (with fewer, the 5th percentile interpolates the lowest one or two)."""
RELATIVE = "portfolio:{book}+benchmark:SPY"
SESSIONS = figure(
    "Sessions of the book in the window; null for a key that may not read the ledger (a count of it, withheld "
    "as its figures are)",
    source=BOOK_LEDGER,
    term=terms.SESSIONS,
)
"""`sessions` of the risk and checks objects."""
TAIL = {
    "confidence": figure("Confidence level: 0.95", term=terms.CONFIDENCE),
    "horizon_sessions": figure("Horizon of the loss: one session", term=terms.HORIZON_SESSIONS),
}


def extreme(pick: str, period: str, elsewhere: str | None = None, *, term: Term) -> Meta:
    """The best or worst compounded return of a day, week or month (`elsewhere`: how other libraries'
    same-named figures differ)."""
    return figure(
        f"The {pick} compounded return of a {period} over the window's sessions (the first and last periods "
        "may be cut by the window); the earliest on a tie" + ("" if elsewhere is None else f"; {elsewhere}"),
        "prod(1 + r) - 1 over the period's sessions",
        source=BOOK_LEDGER,
        keys={
            "date": figure("The period's last session in the window; null when not measurable"),
            "sessions": figure(
                "Sessions of the window in the period; null when not measurable", term=terms.SESSIONS
            ),
        },
        term=term,
    )


WEEK = "week ending Friday (pandas W-FRI; a weekend session belongs to the next Friday)"


class RiskBenchmark(Body, kw_only=True, frozen=True):
    """The book against SPY: OLS beta and annualised alpha, tracking error, on the sessions both have."""

    symbol: Annotated[str, figure("The benchmark: SPY")]
    return_basis: Annotated[
        str | None,
        figure(
            "SPY's return basis: adjusted_close when every row of its whole series has one, else close "
            "(as /v1/benchmarks/SPY/daily period_return); null for a key without benchmarks.daily",
            source="benchmark:SPY",
        ),
    ]
    observations: Annotated[
        int | None,
        figure(
            "Sessions of the window with both a book and a SPY return, the sessions the figures are over; null "
            "when withheld",
            source=RELATIVE,
            term=terms.OBSERVED_SESSIONS,
        ),
    ]
    beta: Annotated[
        AnalyticsStat,
        figure(
            f"OLS slope of the book's daily returns on SPY's, with an intercept; needs {RISK_MIN_SESSIONS} common "
            "sessions and a SPY series with variance",
            "cov(r, b) / var(b) over the common sessions",
            source=RELATIVE,
            term=terms.BETA,
        ),
    ]
    alpha: Annotated[
        AnalyticsStat,
        figure(
            "The OLS intercept of the same regression, annualised arithmetically (times 252, not compounded): "
            f"the return per year beyond beta times SPY's, not in excess of the risk-free rate; {libraries.ALPHA}",
            "(mean(r) - beta mean(b)) * 252",
            source=RELATIVE,
            keys=PER_YEAR,
            term=terms.ALPHA,
        ),
    ]
    tracking_error: Annotated[
        AnalyticsStat,
        figure(
            f"Annualised standard deviation of the book's daily return in excess of SPY's; needs "
            f"{RISK_MIN_SESSIONS} common sessions",
            "std(r - b, ddof=1) * sqrt(252)",
            source=RELATIVE,
            keys=PER_YEAR,
            term=terms.TRACKING_ERROR,
        ),
    ]


class Risk(Body, kw_only=True, frozen=True):
    """Benchmark-relative and tail figures of a book (`/analytics/risk`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[int | None, SESSIONS]
    benchmark: Annotated[
        RiskBenchmark,
        figure(
            "The book against SPY's daily total returns b on the same sessions (sessions where both have a "
            "return); needs benchmarks.daily besides portfolio.ledger"
        ),
    ]
    sortino: Annotated[
        AnalyticsStat,
        figure(
            "Sortino ratio with required return 0 (empyrical's convention); not measurable without a losing "
            "session",
            "mean(r) * 252 / (sqrt(mean(min(r, 0)^2)) * sqrt(252))",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.SORTINO,
        ),
    ]
    cagr: Annotated[
        AnalyticsStat,
        figure(
            "Compound annual growth rate of the book over the window's sessions",
            "prod(1 + r)^(252 / n) - 1, n the sessions",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.CAGR,
        ),
    ]
    max_drawdown_pct: Annotated[
        AnalyticsStat,
        figure(
            "Deepest fall of the compounded equity from its running peak, the start at 1.0 included, in "
            "percentage points of the peak (25.0 is 25%; 0 without a fall), as /metrics core.max_drawdown_pct; "
            f"{libraries.MAX_DRAWDOWN}",
            "max(1 - E / cummax(E)) * 100, E = (1, cumprod(1 + r))",
            source=BOOK_LEDGER,
            term=terms.MAX_DRAWDOWN_PCT,
        ),
    ]
    calmar: Annotated[
        AnalyticsStat,
        figure(
            "Calmar ratio over the window; not measurable without a drawdown",
            "cagr / (max_drawdown_pct / 100)",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.CALMAR,
        ),
    ]
    tail_ratio: Annotated[
        AnalyticsStat,
        figure(
            f"Right tail over left tail of daily returns (empyrical's convention); needs {RISK_MIN_TAIL_SESSIONS} "
            "sessions, not measurable when the 5th percentile is 0",
            "|percentile(r, 95)| / |percentile(r, 5)|, numpy's linear interpolation",
            source=BOOK_LEDGER,
            term=terms.TAIL_RATIO,
        ),
    ]
    var_95: Annotated[
        AnalyticsStat,
        figure(
            f"Historical value at risk at 95% over one session, as a return (negative = a loss); needs "
            f"{RISK_MIN_TAIL_SESSIONS} sessions; {libraries.VALUE_AT_RISK}",
            "percentile(r, 5), numpy's linear interpolation",
            source=BOOK_LEDGER,
            keys=TAIL,
            term=terms.VAR_95,
        ),
    ]
    cvar_95: Annotated[
        AnalyticsStat,
        figure(
            "Historical conditional value at risk (expected shortfall) at 95% over one session, as a return; "
            f"needs {RISK_MIN_TAIL_SESSIONS} sessions; {libraries.CONDITIONAL_VALUE_AT_RISK}",
            "mean(r | r <= var_95)",
            source=BOOK_LEDGER,
            keys=TAIL,
            term=terms.CVAR_95,
        ),
    ]
    best_day: Annotated[AnalyticsStat, extreme("highest", "session", term=terms.BEST_DAY)]
    worst_day: Annotated[AnalyticsStat, extreme("lowest", "session", term=terms.WORST_DAY)]
    best_week: Annotated[
        AnalyticsStat, extreme("highest", WEEK, libraries.BEST_WORST_WEEK, term=terms.BEST_WEEK)
    ]
    worst_week: Annotated[
        AnalyticsStat, extreme("lowest", WEEK, libraries.BEST_WORST_WEEK, term=terms.WORST_WEEK)
    ]
    best_month: Annotated[
        AnalyticsStat, extreme("highest", "calendar month", libraries.BEST_WORST_MONTH, term=terms.BEST_MONTH)
    ]
    worst_month: Annotated[
        AnalyticsStat, extreme("lowest", "calendar month", libraries.BEST_WORST_MONTH, term=terms.WORST_MONTH)
    ]


# -- /analytics/checks ------------------------------------------------------------------------------
