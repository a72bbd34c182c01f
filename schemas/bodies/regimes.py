"""`/analytics/regimes`: an alpha's figures in each regime of the market benchmark (issue 50, item 5;
docs/analytics.md "Regimes"), declared for the contract.

Each dimension (trend, volatility, drawdown) splits the window's sessions into its regimes and
`unlabelled`: their sessions add up to the window's, and a figure over all of them is the figure of
the whole window (row `all`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure

TREND_SESSIONS = 200
"""Sessions of the benchmark's moving average the trend compares its price with."""
VOLATILITY_SESSIONS = 63
"""Daily returns of the benchmark's realised volatility."""
WEAK_SPOT_SESSIONS = 63
"""The sessions (a quarter) a regime needs before its information ratio can name it the weak spot: over
fewer, the ratio's standard error (about sqrt(252 / sessions), 2 at 63) swamps any difference."""
DRAWDOWN_THRESHOLD = 0.10
"""A session is in drawdown when the benchmark's price is more than this fraction below its running peak."""
WEEKLY_IC = "signals:weekly_signal.ic"
BENCHMARK_REGIMES = "benchmark:{symbol}.regimes"
LABELS = (
    "trend: up when the benchmark's price is above its mean over the 200 sessions ending that session, else "
    "down (the first 199 sessions unlabelled); volatility: the realised volatility of its 63 daily returns ending "
    "that session against the terciles over its whole stored history, low, mid or high (the first 63 sessions "
    "unlabelled; the cut points look ahead: a descriptive label); drawdown: in when its price is more than 10 % "
    "below its running peak, else out"
)
Dimension = Literal["all", "trend", "volatility", "drawdown"]


class RegimeRow(Body, kw_only=True, frozen=True):
    """The book over the sessions of one regime (`all`: the window's)."""

    regime: Annotated[
        str,
        figure(
            "The regime, dimension:label (trend:up, volatility:high, drawdown:in, ...), or all: the window"
        ),
    ]
    dimension: Annotated[Dimension, figure("trend, volatility or drawdown (all: the whole window)")]
    label: Annotated[
        str,
        figure(
            "The label: up/down, low/mid/high, in/out, or unlabelled (sessions the benchmark has not labelled in "
            "this dimension, or does not have); all for the window. " + LABELS
        ),
    ]
    regime_sessions: Annotated[
        int | None,
        figure(
            "Sessions of the book in the window in this regime; a dimension's rows add up to row all's; null "
            "when the ledger or the benchmark is withheld",
            source=BOOK_LEDGER,
            term=terms.REGIME_SESSIONS,
        ),
    ]
    regime_weeks: Annotated[
        int | None,
        figure(
            "Weeks of the window with a measurable IC whose rebalance date is in this regime; a dimension's rows "
            "add up to row all's; null when the cross-sections or the benchmark are withheld",
            source=WEEKLY_IC,
            term=terms.REGIME_WEEKS,
        ),
    ]
    information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the book's daily returns over the regime's sessions (not in excess of the "
            "risk-free rate); row all's is /analytics/costs information_ratio.net over the window",
            "mean(r) / std(r, ddof=1) * sqrt(252), r = ending_equity / starting_equity - 1 on the regime's sessions",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.INFORMATION_RATIO,
        ),
    ]
    rebuilt_mean_ic: Annotated[
        AnalyticsStat,
        figure(
            "Mean of the weekly rank IC rebuilt from the rebalance cross-sections over the regime's weeks (not the "
            "run's sealed mean IC, /metrics core.ic)",
            "mean(ic)",
            source=WEEKLY_IC,
            term=terms.REBUILT_MEAN_IC,
        ),
    ]
    rebuilt_hit_rate: Annotated[
        AnalyticsStat,
        figure(
            "Share of the regime's weeks whose rebuilt IC is > 0 (not the run's sealed /metrics "
            "rank_ic.conditioned.hit_rate)",
            "count(ic > 0) / count(ic)",
            source=WEEKLY_IC,
            term=terms.REBUILT_HIT_RATE,
        ),
    ]


class Regimes(Body, kw_only=True, frozen=True):
    """A book's figures by regime of the market benchmark (`/analytics/regimes`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    window: Annotated[Window, WINDOW_FIELD]
    benchmark: Annotated[str, figure("The benchmark whose regimes split the sessions (SPY)")]
    regime: Annotated[
        str | None, figure("The `regime` requested: rows all and that regime's only; null: every regime")
    ]
    volatility_low_cut: Annotated[
        AnalyticsStat,
        figure(
            "The benchmark's realised volatility at its first tercile: low up to it, mid above it (over the "
            "benchmark build's whole stored history: look-ahead, a descriptive label)",
            "quantile(v, 1/3), v = std(63 daily returns, ddof=1) * sqrt(252) over every labelled session",
            source=BENCHMARK_REGIMES,
            term=terms.VOLATILITY_LOW_CUT,
        ),
    ]
    volatility_high_cut: Annotated[
        AnalyticsStat,
        figure(
            "The benchmark's realised volatility at its second tercile: high above it",
            "quantile(v, 2/3)",
            source=BENCHMARK_REGIMES,
            term=terms.VOLATILITY_HIGH_CUT,
        ),
    ]
    by_regime: Annotated[
        list[RegimeRow],
        figure(
            "Row all (the window), then each regime of trend, volatility and drawdown with its unlabelled "
            "sessions, in that order"
        ),
    ]
    weakest_regime: Annotated[
        str | None,
        figure(
            "The weak spot: the regime of by_regime (not all, not unlabelled) whose information_ratio is the "
            f"lowest among those measured over at least {WEAK_SPOT_SESSIONS} sessions (a quarter: over fewer the "
            "ratio's standard error swamps the difference); null when none is",
            "argmin(information_ratio) over the labelled regimes with regime_sessions >= "
            f"{WEAK_SPOT_SESSIONS}",
            source=BOOK_LEDGER,
        ),
    ] = None
