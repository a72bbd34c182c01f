"""The `/analytics/_doc` fields of `/analytics/compare` (merged by serve.analytics.doc)."""

from __future__ import annotations

from typing import Any

from serve.analytics.doc import WINDOW, _f, _stat, window_fields

COMMON = "over the common sessions (dates both books hold in the window), each side's figure included"
COMMON_WEEKS = (
    "over the common weeks (weeks both alphas have a weekly IC in the window), each side's figure included"
)

# name -> (meaning, formula, unit, annualisation, source, common observations, test)
FIGURES: dict[str, tuple[str, str, str, str, str, str, str | None]] = {
    "information_ratio": (
        "Information ratio of daily book returns (after costs, not in excess of the risk-free rate), daily times "
        "sqrt(252) as /metrics core.information_ratio",
        "mean / std(ddof=1) of r = ending/starting - 1, times sqrt(252)",
        "ratio",
        "annualised",
        "portfolio:{book}",
        COMMON,
        "Jobson-Korkie test with Memmel's (2003) correction: SR per session, rho the Pearson correlation, "
        "z = (SR_a - SR_b) / sqrt((2 - 2 rho + (SR_a^2 + SR_b^2) / 2 - SR_a SR_b rho^2) / n), p = 2 (1 - Phi(|z|))",
    ),
    "annualised_return": (
        "Mean daily book return, annualised",
        "mean(r) * 252",
        "ratio",
        "annualised",
        "portfolio:{book}",
        COMMON,
        "Paired t-test of the daily return differences d = r_alpha - r_with (scipy.stats.ttest_rel): "
        "t = mean(d) / (std(d, ddof=1) / sqrt(n)), n - 1 degrees of freedom, two-sided",
    ),
    "volatility": (
        "Volatility of daily book returns, annualised",
        "std(r, ddof=1) * sqrt(252)",
        "ratio",
        "annualised",
        "portfolio:{book}",
        COMMON,
        None,
    ),
    "max_drawdown_pct": (
        "Largest fall of the compounded equity from a running peak, in percentage points of the peak (20.0 is "
        "20%), as /metrics core.max_drawdown_pct",
        "max_t (1 - E_t / max_{s<=t} E_s) * 100, E_0 = 1 before the first common session, E_t = prod(1 + r)",
        "percentage_points",
        "not_annualisable",
        "portfolio:{book}",
        COMMON,
        None,
    ),
    "mean_ic": (
        "Mean weekly conditioned IC (weekly_signal.ic, whatever the book)",
        "mean of the weekly IC",
        "ratio",
        "per_period",
        "weekly_signal",
        COMMON_WEEKS,
        "Paired t-test of the weekly IC differences (scipy.stats.ttest_rel): t = mean(d) / (std(d, ddof=1) / "
        "sqrt(n)), n - 1 degrees of freedom, two-sided",
    ),
    "icir": (
        "Weekly IC information ratio, per week: never annualised (as rolling and significance)",
        "mean / std(ddof=1) of the weekly IC",
        "ratio",
        "per_period",
        "weekly_signal",
        COMMON_WEEKS,
        None,
    ),
}


NO_TEST = {
    "volatility": "no test is stated: the paired test of two variances (Pitman-Morgan) assumes normal "
    "returns, which daily returns are not, and its size is wrong under fat tails",
    "max_drawdown_pct": "no test is stated: a path statistic with no standard sampling distribution (a test "
    "would need a resampling scheme of its own)",
    "icir": "no test is stated: the weekly IC difference is tested on mean_ic, and a ratio test over a few "
    "dozen serially dependent weeks would say little more",
}
"""Why the untested figures have no test (their `test` is always null)."""


def _figures() -> dict[str, dict[str, Any]]:
    p = "compare.figures"
    fields = {
        p: _f(
            "Each headline figure of both alphas over the common observations only (so the difference compares "
            "like with like), the difference, and its paired test where one is stated. Annualised with the path "
            "alpha's sessions_per_year on both sides"
        )
    }
    for name, (meaning, formula, unit, annualisation, source, common, test) in FIGURES.items():
        f = f"{p}.{name}"
        fields[f] = _f(f"{meaning}: both alphas {common}")
        extra = {}
        if annualisation == "annualised":
            extra["periods_per_year"] = _f("Sessions per year used to annualise", unit="sessions")
        for side, who in (("alpha", "the path alpha"), ("with", "the alpha `with` names")):
            fields |= _stat(
                f"{f}.{side}", _f(f"{meaning}, of {who}", formula, unit, annualisation, source), **extra
            )
        fields[f"{f}.difference"] = _f(
            "alpha minus with; null when either is not measurable",
            "alpha.value - with.value",
            unit,
            annualisation,
        )
        if test is None:
            fields[f"{f}.test"] = _f(f"Always null: {NO_TEST[name]}")
            continue
        t = f"{f}.test"
        fields |= {
            t: _f(f"The two-sided test of the difference: {test}"),
            f"{t}.name": _f("The test's name"),
            f"{t}.statistic": _f(
                "The test statistic (t or z); null when the test cannot run", test, "statistic"
            ),
            f"{t}.p_value": _f("Two-sided p-value; null when the test cannot run", None, "probability"),
            f"{t}.significant": _f("p_value < level; null when the test cannot run"),
            f"{t}.level": _f("The significance level the test is read at (0.05)", unit="probability"),
            f"{t}.withheld_reason": _f("Why the test cannot run (present only then)"),
        }
    return fields


def fields() -> dict[str, dict[str, Any]]:
    """Dotted path (under "compare") -> entry built with serve.analytics.doc's _f / _stat helpers."""
    p = "compare"
    book = "portfolio:{book}"
    fields = {
        p: _f(
            "This alpha against another (with) over one book and "
            + WINDOW
            + ": compounded curves, rolling correlations, and each headline figure's difference with its paired test"
        ),
        f"{p}.alpha": _f("The alpha served (meta.run)"),
        f"{p}.with": _f("The alpha compared with"),
        f"{p}.book": _f("The book of both alphas compared"),
        **window_fields(p),
        f"{p}.rolling_window": _f("The trailing windows of the rolling correlations"),
        f"{p}.rolling_window.sessions": _f(
            "Trailing common sessions of rolling_return_correlation (the request's window)", unit="sessions"
        ),
        f"{p}.rolling_window.weeks": _f(
            "Trailing common weeks of rolling_ic_correlation: the same span (21 -> 4, 63 -> 13, 126 -> 26, 252 -> 52)",
            unit="weeks",
        ),
        f"{p}.sessions": _f(
            "Common sessions: dates both books hold in the window with a daily return on each side; null for a key "
            "that may not read the ledger",
            unit="sessions",
            source=book,
        ),
        f"{p}.weeks": _f(
            "Common weeks: weeks both alphas have a weekly IC in the window; null for a key that may not read the "
            "rebalance cross-sections",
            unit="weeks",
            source="weekly_signal",
        ),
        f"{p}.equity": _f(
            "One entry per common session: both books' returns compounded from the window's first common session "
            "(returns of sessions only one book holds are left out); null for a key that may not read the ledger"
        ),
        f"{p}.equity[].date": _f("The common session", source=book),
        f"{p}.equity[].cumulative_return_alpha": _f(
            "The path alpha's compounded return to this session", "prod(1 + r) - 1", "ratio", source=book
        ),
        f"{p}.equity[].cumulative_return_with": _f(
            "The compared alpha's compounded return to this session", "prod(1 + r) - 1", "ratio", source=book
        ),
        f"{p}.equity[].difference": _f(
            "cumulative_return_alpha - cumulative_return_with", None, "ratio", source=book
        ),
        f"{p}.rolling_return_correlation": _f(
            "One entry per common session: Pearson correlation of the two books' daily returns over the trailing "
            "rolling_window.sessions common sessions of the window; null for a key that may not read the ledger"
        ),
        f"{p}.rolling_return_correlation[].date": _f("The common session ending the trailing window"),
        f"{p}.rolling_return_correlation[].correlation": _f(
            "Pearson correlation; null until the window is full (its first rolling_window.sessions - 1 entries) or when a side is "
            "constant over it",
            "corr(r_alpha, r_with) over the trailing window",
            "ratio",
            source=book,
        ),
        f"{p}.rolling_ic_correlation": _f(
            "One entry per common week: Pearson correlation of the two weekly IC series over the trailing "
            "rolling_window.weeks common weeks of the window; null for a key that may not read the rebalance "
            "cross-sections"
        ),
        f"{p}.rolling_ic_correlation[].date": _f("The common week ending the trailing window"),
        f"{p}.rolling_ic_correlation[].correlation": _f(
            "Pearson correlation; null until the window is full or when a side is constant over it",
            "corr(ic_alpha, ic_with) over the trailing window",
            "ratio",
            source="weekly_signal",
        ),
    }
    fields |= _stat(
        f"{p}.return_correlation",
        _f(
            "Pearson correlation of the two books' daily returns over the window's common sessions (at least 3, "
            "neither side constant)",
            "corr(r_alpha, r_with)",
            "ratio",
            source=book,
        ),
    )
    fields |= _stat(
        f"{p}.ic_correlation",
        _f(
            "Pearson correlation of the two weekly conditioned IC series over the window's common weeks (at least "
            "3, neither side constant)",
            "corr(ic_alpha, ic_with)",
            "ratio",
            source="weekly_signal",
        ),
    )
    return fields | _figures()
