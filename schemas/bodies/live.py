"""`/analytics/live`: an alpha's in-sample and out-of-sample parts side by side (live against
backtest), declared for the contract (docs/analytics.md, "Live against backtest").

The split is one date: sessions on or before it are in-sample, those after it out-of-sample. It is
the alpha's approval date when an operator approved it (`alpha-results promote`), else the seal's
`research_cutoff`, else the date the catalogue first published the alpha, else the request's
`split` when it names one (a what-if, said as `request`).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from schemas import terms
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WEEKS_PER_YEAR, AnalyticsStat
from schemas.bodies.base import Body
from schemas.bodies.figures import figure
from schemas.checks import LIVE_MIN_SESSIONS as LIVE_MIN_SESSIONS  # declared with the live checks

LIVE_CONSISTENCY_LEVEL = 0.05
"""Below this probability the out-of-sample Sharpe ratio is called inconsistent with the in-sample one."""
SPLIT_ORIGINS = ("approval", "research_cutoff", "first_published", "request")
SplitOrigin = Literal["approval", "research_cutoff", "first_published", "request"]
SplitDate = Annotated[
    dt.date | None, figure("The last backtest session (as /analytics/live): the live weeks follow it")
]
"""`split_date` of an answer about the weeks after /analytics/live's split (expectation, monitoring,
drawdown odds)."""
SplitFrom = Annotated[SplitOrigin | None, figure("Where the split comes from, as /analytics/live")]
"""`split_origin` of the same answers."""
WEEKLY_IC = "signals:weekly_signal.ic"
WEEK_RULE = (
    "a week belongs to the part its IC's forward return is realised in: in-sample when the next rebalance "
    "(the last week: its date plus 7 days) is on or before the split date"
)


class LivePart(Body, kw_only=True, frozen=True):
    """One side of the split: `{what}` is the in-sample or the out-of-sample part."""

    first_session: Annotated[
        dt.date | None, figure("First session of {what}; null when it holds none", source=BOOK_LEDGER)
    ]
    last_session: Annotated[
        dt.date | None, figure("Last session of {what}; null when it holds none", source=BOOK_LEDGER)
    ]
    sessions: Annotated[
        int | None,
        figure(
            "Sessions of the book in {what}; null for a key that may not read the ledger",
            source=BOOK_LEDGER,
            term=terms.SESSIONS,
        ),
    ]
    weeks: Annotated[
        int | None,
        figure(
            "Weeks with a measurable IC in {what} (" + WEEK_RULE + "); null for a key that may not read the "
            "rebalance cross-sections",
            source=WEEKLY_IC,
            term=terms.IC_WEEKS,
        ),
    ]
    information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of the book's daily returns over {what} (not in excess of the risk-free rate), "
            "as /analytics/checks information_ratio",
            "mean(r) / std(r, ddof=1) * sqrt(252), r = ending_equity / starting_equity - 1",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.INFORMATION_RATIO,
        ),
    ]
    excess_sharpe: Annotated[
        AnalyticsStat,
        figure(
            "Sharpe ratio of the book's daily returns over {what} in excess of the risk-free return the ledger "
            "accrued each session",
            "mean(r - rf) / std(r - rf, ddof=1) * sqrt(252), rf = risk_free_return",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.EXCESS_SHARPE,
        ),
    ]
    rebuilt_mean_ic: Annotated[
        AnalyticsStat,
        figure(
            "Mean of the weekly rank IC rebuilt from the rebalance cross-sections over {what}'s weeks (not the run's "
            "sealed mean IC, /metrics core.ic)",
            "mean(ic)",
            source=WEEKLY_IC,
            term=terms.REBUILT_MEAN_IC,
        ),
    ]
    rebuilt_icir: Annotated[
        AnalyticsStat,
        figure(
            "ICIR of the weekly rank IC rebuilt from the rebalance cross-sections over {what}'s weeks, annualised "
            "(not the run's sealed /metrics core.icir)",
            "mean(ic) / std(ic, ddof=1) * sqrt(52)",
            source=WEEKLY_IC,
            keys=WEEKS_PER_YEAR,
            term=terms.REBUILT_ICIR,
        ),
    ]
    rebuilt_hit_rate: Annotated[
        AnalyticsStat,
        figure(
            "Share of {what}'s weeks whose rebuilt IC is > 0 (not the run's sealed /metrics "
            "rank_ic.conditioned.hit_rate)",
            "count(ic > 0) / count(ic)",
            source=WEEKLY_IC,
            term=terms.REBUILT_HIT_RATE,
        ),
    ]
    max_drawdown_pct: Annotated[
        AnalyticsStat,
        figure(
            "Deepest fall of the compounded equity over {what} from its running peak (the part's start at 1.0), "
            "in percentage points of the peak (25.0 is 25%), as /metrics core.max_drawdown_pct",
            "max(1 - E / cummax(E)) * 100, E = (1, cumprod(1 + r))",
            source=BOOK_LEDGER,
            term=terms.MAX_DRAWDOWN_PCT,
        ),
    ]
    turnover: Annotated[
        AnalyticsStat,
        figure(
            "Mean one-way turnover of {what}'s sessions, annualised, as /analytics/checks turnover",
            "mean(turnover) * 252",
            source=BOOK_LEDGER,
            keys=PER_YEAR,
            term=terms.TURNOVER,
        ),
    ]


Verdict = Literal["consistent", "inconsistent", "not_measurable"]


class LiveConsistency(Body, kw_only=True, frozen=True):
    """Is the out-of-sample performance consistent with the in-sample one?"""

    test: Annotated[
        Literal["probabilistic_sharpe_ratio"],
        figure(
            "The test: the probabilistic Sharpe ratio (Bailey and Lopez de Prado) of the out-of-sample daily "
            "returns against the in-sample per-session Sharpe ratio as the benchmark: the probability that the "
            "out-of-sample part's true Sharpe ratio is at least the in-sample one, given its sessions, skewness "
            "and kurtosis"
        ),
    ] = "probabilistic_sharpe_ratio"
    probability: Annotated[
        AnalyticsStat,
        figure(
            "PSR(SR* = the in-sample Sharpe ratio) of the out-of-sample daily returns; not measurable while the "
            f"out-of-sample part holds fewer than {LIVE_MIN_SESSIONS} sessions",
            "Phi((SR_oos - SR_is) * sqrt(n - 1) / sqrt(1 - skew * SR_oos + (kurt - 1) / 4 * SR_oos^2)), per session",
            source=BOOK_LEDGER,
            term=terms.PROBABILITY,
        ),
    ]
    sessions: Annotated[
        int | None,
        figure(
            "Out-of-sample sessions the test is over; null when withheld",
            source=BOOK_LEDGER,
            term=terms.SESSIONS,
        ),
    ]
    level: Annotated[
        float,
        figure(
            f"The probability below which the parts are called inconsistent ({LIVE_CONSISTENCY_LEVEL})",
            term=terms.LEVEL,
        ),
    ] = LIVE_CONSISTENCY_LEVEL
    verdict: Annotated[
        Verdict,
        figure(
            "consistent when the probability is at least the level, inconsistent (the out-of-sample Sharpe ratio "
            "is below the in-sample one beyond chance) when below it, else not_measurable"
        ),
    ]


class Live(Body, kw_only=True, frozen=True):
    """In-sample against out-of-sample (`/analytics/live`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book measured")]
    split_date: Annotated[
        dt.date | None,
        figure(
            "The split: sessions on or before it are in-sample, after it out-of-sample; null when the alpha has "
            "none (never approved, no research_cutoff, no first publish date recorded)"
        ),
    ]
    split_origin: Annotated[
        SplitOrigin | None,
        figure(
            "Where the split comes from: approval (the decision in force: the last session the lake had published "
            "when the approval was recorded), research_cutoff "
            "(the seal's manifest), first_published (the date the catalogue first published the alpha), or "
            "request (the `split` parameter); null with split_date"
        ),
    ]
    in_sample: Annotated[LivePart, figure("The in-sample part", what="the in-sample part")]
    out_of_sample: Annotated[LivePart, figure("The out-of-sample part", what="the out-of-sample part")]
    decay_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Out-of-sample information ratio over the in-sample one: 1 holds up, 0 nothing left, below 0 reversed; "
            f"not measurable while the out-of-sample part holds fewer than {LIVE_MIN_SESSIONS} sessions or the "
            "in-sample information ratio is not positive",
            "out_of_sample.information_ratio / in_sample.information_ratio",
            source=BOOK_LEDGER,
            term=terms.DECAY_RATIO,
        ),
    ]
    consistency: Annotated[
        LiveConsistency, figure("Whether the out-of-sample part is consistent with the in-sample")
    ]
