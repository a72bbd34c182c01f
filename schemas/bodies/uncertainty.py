"""`/analytics/uncertainty`: stationary block-bootstrap confidence intervals of a book's headline
figures over a window (docs/analytics.md, "Uncertainty"), declared for the contract.

Each figure is a stat entry whose `value` is the figure itself, as the routes that serve it under its
name compute it (`/analytics/live`'s parts, `/analytics/checks`, `/analytics/significance`), and whose
`lower` and `upper` bound its interval in the same unit: their term is the figure's.
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from schemas import terms
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WEEKS_PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.bodies.live import WEEKLY_IC
from schemas.terms import Term

SESSION_FIGURES = ("information_ratio", "excess_sharpe", "max_drawdown_pct", "turnover")
"""Resampled together: the book's sessions (stream 0)."""
WEEK_FIGURES = ("rebuilt_mean_ic", "rebuilt_icir", "rebuilt_hit_rate")
"""Resampled together: the weeks with a measurable rebuilt IC (stream 1)."""
BLOCK_LENGTH_RULE = (
    "Politis and White (2004) automatic mean block length of the stationary bootstrap, with Patton, Politis "
    "and White's (2009) correction, at least 1; the series resampled together (the sessions, the weeks) take "
    "the longest block length of their series"
)


def interval(meaning: str, formula: str, source: str, *, term: Term, **keys: Any) -> Meta:
    """A figure with its interval: its bounds in its own unit (their term is the figure's)."""
    return figure(
        meaning,
        formula,
        source=source,
        term=term,
        keys={
            "lower": figure(
                "Lower bound: the (1 - confidence) / 2 quantile of the resampled figure, in the figure's unit",
                term=term,
            ),
            "upper": figure(
                "Upper bound: the (1 + confidence) / 2 quantile of the resampled figure, in the figure's unit",
                term=term,
            ),
            "observations": figure(
                "Observations of the figure's series in the window (its finite values)",
                term=terms.OBSERVATIONS,
            ),
            "block_length": figure(
                "Mean block length of the resamples (block_length_rule)", term=terms.BLOCK_LENGTH
            ),
            **keys,
        },
    )


class Uncertainty(Body, kw_only=True, frozen=True):
    """Bootstrap confidence intervals of a book's headline figures (`/analytics/uncertainty`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[
        int | None,
        figure(
            "Sessions of the book in the window with a daily return (what the session figures resample); null "
            "for a key that may not read the ledger",
            source=BOOK_LEDGER,
            term=terms.SESSIONS,
        ),
    ]
    weeks: Annotated[
        int | None,
        figure(
            "Weeks of the window with a measurable rebuilt IC (what the IC figures resample); null for a key "
            "that may not read the rebalance cross-sections",
            source=WEEKLY_IC,
            term=terms.WEEKS,
        ),
    ]
    method: Annotated[str, figure("The resampling scheme and the interval")]
    confidence: Annotated[float, figure("Confidence level of the intervals", term=terms.CONFIDENCE)]
    resamples: Annotated[int, figure("Number of resamples", term=terms.RESAMPLES)]
    seed: Annotated[
        int,
        figure("Seed of numpy's PCG64 generator: the same request always gives the same answer"),
    ]
    block_length_rule: Annotated[str, figure("How the mean block length is chosen")]
    streams: Annotated[
        str,
        figure("The generator stream of each group of figures (PCG64(SeedSequence([seed, stream])))"),
    ]
    information_ratio: Annotated[
        AnalyticsStat,
        interval(
            "Information ratio of the book's daily returns over the window (not in excess of the risk-free "
            "rate), as /analytics/checks information_ratio and /analytics/live",
            "mean(r) / std(r, ddof=1) * sqrt(252), r = ending_equity / starting_equity - 1",
            BOOK_LEDGER,
            **PER_YEAR,
            term=terms.INFORMATION_RATIO,
        ),
    ]
    excess_sharpe: Annotated[
        AnalyticsStat,
        interval(
            "Sharpe ratio of the book's daily returns over the window in excess of the risk-free return the "
            "ledger accrued each session, as /analytics/live",
            "mean(r - rf) / std(r - rf, ddof=1) * sqrt(252), rf = risk_free_return",
            BOOK_LEDGER,
            **PER_YEAR,
            term=terms.EXCESS_SHARPE,
        ),
    ]
    max_drawdown_pct: Annotated[
        AnalyticsStat,
        interval(
            "Deepest fall of the compounded equity over the window from its running peak (the window's start at "
            "1.0), in percentage points of the peak, as /analytics/live",
            "max(1 - E / cummax(E)) * 100, E = (1, cumprod(1 + r))",
            BOOK_LEDGER,
            term=terms.MAX_DRAWDOWN_PCT,
        ),
    ]
    turnover: Annotated[
        AnalyticsStat,
        interval(
            "Mean one-way turnover of the window's sessions, annualised, as /analytics/checks turnover",
            "mean(turnover) * 252",
            BOOK_LEDGER,
            **PER_YEAR,
            term=terms.TURNOVER,
        ),
    ]
    rebuilt_mean_ic: Annotated[
        AnalyticsStat,
        interval(
            "Mean of the weekly rank IC rebuilt from the rebalance cross-sections over the window's weeks, as "
            "/analytics/significance bootstrap.rebuilt_mean_ic (not the run's sealed /metrics core.ic)",
            "mean(ic)",
            WEEKLY_IC,
            term=terms.REBUILT_MEAN_IC,
        ),
    ]
    rebuilt_icir: Annotated[
        AnalyticsStat,
        interval(
            "ICIR of the rebuilt weekly IC over the window's weeks, annualised, as /analytics/significance "
            "bootstrap.rebuilt_icir (not the run's sealed /metrics core.icir)",
            "mean(ic) / std(ic, ddof=1) * sqrt(52)",
            WEEKLY_IC,
            **WEEKS_PER_YEAR,
            term=terms.REBUILT_ICIR,
        ),
    ]
    rebuilt_hit_rate: Annotated[
        AnalyticsStat,
        interval(
            "Share of the window's weeks whose rebuilt IC is > 0, as /analytics/live (not the run's sealed "
            "/metrics rank_ic.conditioned.hit_rate)",
            "count(ic > 0) / count(ic)",
            WEEKLY_IC,
            term=terms.REBUILT_HIT_RATE,
        ),
    ]
