"""`/analytics/compare`: two alphas side by side, declared for the contract (schemas/bodies/base.py
says how a body is declared)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec
from msgspec import UNSET, Meta, UnsetType

from schemas import terms
from schemas.bodies import libraries
from schemas.bodies.analytics import BOOK_LEDGER, PER_YEAR, WEEKS_PER_YEAR, WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.terms import Term

COMMON = "over the common sessions (dates both books hold in the window), each side's figure included"
COMMON_WEEKS = (
    "over the common weeks (weeks both alphas have a weekly IC in the window, common_weeks), each side's figure "
    "included: rebuilt from the cross-sections over those weeks only, so it differs on purpose from /metrics "
    "core.ic and core.icir and the screener's ic and icir (each run's sealed figures over all its weeks)"
)


def compared(
    meaning: str,
    formula: str,
    term: Term,
    source: str,
    common: str,
    test: str | None = None,
    untested: str | None = None,
    annualised_with: dict[str, Meta] = PER_YEAR,
    kind: str = "t",
) -> Meta:
    """A headline figure of both alphas: each side's figure, the difference, and its paired test
    (`test`, the test's formula) or why none is stated (`untested`); an annualised one states
    `periods_per_year` (`annualised_with`: sessions, or weeks for the ICIR); `kind` is the test's
    statistic_kind (t, or z for Jobson-Korkie-Memmel); `term` is the figure's
    (`schemas.terms`), the unit and annualisation of both sides and the difference."""
    per_year = annualised_with if term.annualisation == "annualised" else {}

    def side(who: str) -> Meta:
        return figure(
            f"{meaning}, of {who}",
            formula,
            source=source,
            keys=per_year,
            term=term,
        )

    tested = (
        figure(
            f"The two-sided test of the difference: {test}",
            keys={
                "statistic": figure(
                    f"The test statistic, a {kind}-statistic (statistic_kind {kind}); null when the test cannot run",
                    test,
                    term=terms.STATISTIC,
                ),
                "statistic_kind": figure(f"What statistic is: {kind}"),
                "p_value": figure("Two-sided p-value; null when the test cannot run", term=terms.P_VALUE),
            },
        )
        if test is not None
        else figure(f"Always null: {untested}", leaf=True)
    )
    return figure(
        f"{meaning}: both alphas {common}",
        keys={
            "alpha": side("the path alpha"),
            "with": side("the alpha `with` names"),
            "difference": figure(
                "alpha minus with; null when either is not measurable",
                "alpha.value - with.value",
                term=term,
            ),
            "test": tested,
            **(
                {
                    "common_weeks": figure(
                        "The common weeks the figure is over (the answer's weeks): rebuilt from the cross-sections "
                        "over these weeks only, it differs on purpose from /metrics and the screener; null for a "
                        "key that may not read the rebalance cross-sections",
                        term=terms.COMMON_WEEKS,
                    )
                }
                if common == COMMON_WEEKS
                else {
                    "common_sessions": figure(
                        "The common sessions the figure is over (the answer's sessions); null for a key that may "
                        "not read the ledger",
                        term=terms.COMMON_SESSIONS,
                    )
                }
            ),
        },
    )


class DifferenceTest(Body, kw_only=True, frozen=True):
    """The paired test of a difference (docs/analytics.md, Comparison)."""

    name: Annotated[
        str,
        figure(
            "The test's name, in words: a paired t-test (mean daily return, mean weekly IC) or the "
            "Jobson-Korkie test with Memmel's correction (information ratio)"
        ),
    ]
    statistic: Annotated[
        float | None,
        figure(
            "The test statistic, a t-statistic or a z-statistic as statistic_kind says; null when the test "
            "cannot run",
            term=terms.STATISTIC,
        ),
    ]
    statistic_kind: Annotated[
        str,
        figure(
            "What statistic is: t (a paired t-test's t-statistic, n - 1 degrees of freedom) or z (the "
            "Jobson-Korkie-Memmel z-statistic, read against the normal distribution)"
        ),
    ]
    p_value: Annotated[
        float | None, figure("Two-sided p-value; null when the test cannot run", term=terms.P_VALUE)
    ]
    significant: Annotated[bool | None, figure("p_value < level; null when the test cannot run")]
    level: Annotated[float, figure("The significance level the test is read at (0.05)", term=terms.LEVEL)]
    withheld_reason: Annotated[str, figure("Why the test cannot run (present only then)")] | UnsetType = UNSET


class ComparedFigure(Body, kw_only=True, frozen=True):
    """One headline figure of both alphas over their common sessions (or weeks); what each part
    means is declared where the figure is (`compared`)."""

    alpha: Annotated[AnalyticsStat, Meta(description="The figure of the path alpha.")]
    with_: Annotated[AnalyticsStat, Meta(description="The figure of the alpha `with` names.")] = (
        msgspec.field(name="with")
    )
    difference: Annotated[
        float | None,
        Meta(description="alpha - with; null where either side is not measurable."),
    ]
    test: Annotated[
        DifferenceTest | None,
        Meta(description="Null for volatility, max_drawdown_pct and icir (no test is stated for them)."),
    ]
    common_sessions: (
        Annotated[
            int | None,
            Meta(
                description="The return figures (information_ratio, annualised_return, volatility, "
                "max_drawdown_pct): the common sessions both sides are over (the answer's sessions); null for a "
                "key that may not read the ledger."
            ),
        ]
        | UnsetType
    ) = UNSET
    common_weeks: (
        Annotated[
            int | None,
            Meta(
                description="The IC figures (rebuilt_mean_ic, icir): the common weeks both sides are over (the answer's "
                "weeks). Both are rebuilt from the cross-sections (weekly_signal.ic) over these weeks only, so "
                "they differ on purpose from each alpha's /metrics core.ic and core.icir and the screener's "
                "ic and icir (the run's sealed figures, over all its weeks). Null for a key that may not "
                "read the rebalance cross-sections."
            ),
        ]
        | UnsetType
    ) = UNSET


class ComparedFigures(Body, kw_only=True, frozen=True):
    """`figures` of the comparison object."""

    information_ratio: Annotated[
        ComparedFigure,
        compared(
            "Information ratio of daily book returns (after costs, not in excess of the risk-free rate), daily "
            f"times sqrt(252) as /metrics core.information_ratio: {libraries.INFORMATION_RATIO}",
            "mean / std(ddof=1) of r = ending/starting - 1, times sqrt(252)",
            terms.INFORMATION_RATIO,
            BOOK_LEDGER,
            COMMON,
            test="Jobson-Korkie test with Memmel's (2003) correction: SR per session, rho the Pearson correlation, "
            "z = (SR_a - SR_b) / sqrt((2 - 2 rho + (SR_a^2 + SR_b^2) / 2 - SR_a SR_b rho^2) / n), p = 2 (1 - "
            "Phi(|z|))",
            kind="z",
        ),
    ]
    annualised_return: Annotated[
        ComparedFigure,
        compared(
            f"Mean daily book return, annualised: {libraries.ANNUALISED_RETURN}",
            "mean(r) * 252",
            terms.ANNUALISED_RETURN,
            BOOK_LEDGER,
            COMMON,
            test="Paired t-test of the daily return differences d = r_alpha - r_with (scipy.stats.ttest_rel): "
            "t = mean(d) / (std(d, ddof=1) / sqrt(n)), n - 1 degrees of freedom, two-sided",
        ),
    ]
    volatility: Annotated[
        ComparedFigure,
        compared(
            "Volatility of daily book returns, annualised",
            "std(r, ddof=1) * sqrt(252)",
            terms.VOLATILITY,
            BOOK_LEDGER,
            COMMON,
            untested="no test is stated: the paired test of two variances (Pitman-Morgan) assumes normal "
            "returns, which daily returns are not, and its size is wrong under fat tails",
        ),
    ]
    max_drawdown_pct: Annotated[
        ComparedFigure,
        compared(
            "Largest fall of the compounded equity from a running peak, in percentage points of the peak (20.0 "
            "is 20%), as /metrics core.max_drawdown_pct",
            "max_t (1 - E_t / max_{s<=t} E_s) * 100, E_0 = 1 before the first common session, E_t = prod(1 + r)",
            terms.MAX_DRAWDOWN_PCT,
            BOOK_LEDGER,
            COMMON,
            untested="no test is stated: a path statistic with no standard sampling distribution (a test would "
            "need a resampling scheme of its own)",
        ),
    ]
    rebuilt_mean_ic: Annotated[
        ComparedFigure,
        compared(
            "Mean weekly conditioned IC (weekly_signal.ic, whatever the book)",
            "mean of the weekly IC",
            terms.REBUILT_MEAN_IC,
            "weekly_signal",
            COMMON_WEEKS,
            test="Paired t-test of the weekly IC differences (scipy.stats.ttest_rel): t = mean(d) / (std(d, "
            "ddof=1) / sqrt(n)), n - 1 degrees of freedom, two-sided",
        ),
    ]
    icir: Annotated[
        ComparedFigure,
        compared(
            "Weekly IC information ratio (conditioned IC, whatever the book), annualised with the path alpha's "
            "weeks_per_year (52) on both sides, the basis of every icir (/metrics core.icir and the screener's)",
            "mean / std(ddof=1) of the weekly IC, times sqrt(weeks_per_year)",
            terms.ICIR,
            "weekly_signal",
            COMMON_WEEKS,
            untested="no test is stated: the weekly IC difference is tested on rebuilt_mean_ic, and a ratio test over a "
            "few dozen serially dependent weeks would say little more",
            annualised_with=WEEKS_PER_YEAR,
        ),
    ]


class CompareEquityRow(Body, kw_only=True, frozen=True):
    """An entry of `equity` of the comparison object."""

    date: Annotated[dt.date, figure("The common session", source=BOOK_LEDGER)]
    cumulative_return_alpha: Annotated[
        float | None,
        figure(
            "The path alpha's compounded return to this session",
            "prod(1 + r) - 1",
            source=BOOK_LEDGER,
            term=terms.CUMULATIVE_RETURN_ALPHA,
        ),
    ]
    cumulative_return_with: Annotated[
        float | None,
        figure(
            "The compared alpha's compounded return to this session",
            "prod(1 + r) - 1",
            source=BOOK_LEDGER,
            term=terms.CUMULATIVE_RETURN_WITH,
        ),
    ]
    difference: Annotated[
        float | None,
        figure("cumulative_return_alpha - cumulative_return_with", source=BOOK_LEDGER, term=terms.DIFFERENCE),
    ]


class RollingCorrelationRow(Body, kw_only=True, frozen=True):
    """An entry of `rolling_return_correlation` or `rolling_ic_correlation`; what each means is
    declared where the series is."""

    date: Annotated[
        dt.date,
        Meta(description="The common session or week ending the trailing window."),
    ]
    correlation: Annotated[
        float | None,
        Meta(description="Null until the trailing window is full, or where a side is constant over it."),
    ]


class RollingWindow(Body, kw_only=True, frozen=True):
    """`rolling_window` of the comparison object: the trailing windows of the rolling series."""

    sessions: Annotated[
        int,
        figure(
            "Trailing common sessions of rolling_return_correlation (the request's window)",
            term=terms.SESSIONS,
        ),
    ]
    weeks: Annotated[
        int,
        figure(
            "Trailing common weeks of rolling_ic_correlation: the same span (21 -> 4, 63 -> 13, 126 -> 26, "
            "252 -> 52)",
            term=terms.WEEKS,
        ),
    ]


class Comparison(Body, kw_only=True, frozen=True):
    """Two alphas side by side over their common sessions (`/analytics/compare`)."""

    alpha: Annotated[str, figure("The alpha served (meta.run)")]
    with_: Annotated[str, figure("The alpha compared with")] = msgspec.field(name="with")
    book: Annotated[str, figure("The book of both alphas compared")]
    window: Annotated[Window, WINDOW_FIELD]
    rolling_window: Annotated[RollingWindow, figure("The trailing windows of the rolling correlations")]
    sessions: Annotated[
        int | None,
        figure(
            "Common sessions: dates both books hold in the window with a daily return on each side; null for a "
            "key that may not read the ledger",
            source=BOOK_LEDGER,
            term=terms.SESSIONS,
        ),
    ]
    weeks: Annotated[
        int | None,
        figure(
            "Common weeks: weeks both alphas have a weekly IC in the window; null for a key that may not read the "
            "rebalance cross-sections",
            source="weekly_signal",
            term=terms.WEEKS,
        ),
    ]
    equity: Annotated[
        list[CompareEquityRow] | None,
        figure(
            "One entry per common session: both books' returns compounded from the window's first common session "
            "(returns of sessions only one book holds are left out); null for a key that may not read the ledger"
        ),
    ]
    rolling_return_correlation: Annotated[
        list[RollingCorrelationRow] | None,
        figure(
            "One entry per common session: Pearson correlation of the two books' daily returns over the trailing "
            "rolling_window.sessions common sessions of the window; null for a key that may not read the ledger",
            keys={
                "date": figure("The common session ending the trailing window"),
                "correlation": figure(
                    "Pearson correlation; null until the window is full (its first rolling_window.sessions - 1 "
                    "entries) or when a side is constant over it",
                    "corr(r_alpha, r_with) over the trailing window",
                    source=BOOK_LEDGER,
                    term=terms.CORRELATION,
                ),
            },
        ),
    ]
    rolling_ic_correlation: Annotated[
        list[RollingCorrelationRow] | None,
        figure(
            "One entry per common week: Pearson correlation of the two weekly IC series over the trailing "
            "rolling_window.weeks common weeks of the window; null for a key that may not read the rebalance "
            "cross-sections",
            keys={
                "date": figure("The common week ending the trailing window"),
                "correlation": figure(
                    "Pearson correlation; null until the window is full or when a side is constant over it",
                    "corr(ic_alpha, ic_with) over the trailing window",
                    source="weekly_signal",
                    term=terms.CORRELATION,
                ),
            },
        ),
    ]
    return_correlation: Annotated[
        AnalyticsStat,
        figure(
            "Pearson correlation of the two books' daily returns over the window's common sessions (at least 3, "
            "neither side constant)",
            "corr(r_alpha, r_with)",
            source=BOOK_LEDGER,
            term=terms.RETURN_CORRELATION,
        ),
    ]
    ic_correlation: Annotated[
        AnalyticsStat,
        figure(
            "Pearson correlation of the two weekly conditioned IC series over the window's common weeks (at "
            "least 3, neither side constant)",
            "corr(ic_alpha, ic_with)",
            source="weekly_signal",
            term=terms.IC_CORRELATION,
        ),
    ]
    figures: Annotated[
        ComparedFigures,
        figure(
            "Each headline figure of both alphas over the common observations only (so the difference compares "
            "like with like), the difference, and its paired test where one is stated. Annualised with the path "
            "alpha's sessions_per_year on both sides"
        ),
    ]
