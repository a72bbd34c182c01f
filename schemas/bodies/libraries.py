"""Where our names mean something else in quantstats and empyrical (empyrical-reloaded), the two
libraries a user most often checks our figures with: one phrase per name, declared once and added to
the documentation of every field bearing it (docs/analytics.md, "Names other libraries use
differently", has them in one table). Checked against quantstats 0.0.81 and empyrical-reloaded 0.7.1.
"""

from __future__ import annotations

from schemas.conventions import SESSIONS_PER_YEAR

EXCESS_SHARPE = (
    "quantstats' sharpe(r, rf) with the run's risk-free rate; not empyrical's excess_sharpe(r, benchmark), "
    "relative to a benchmark and not annualised"
)
VALUE_AT_RISK = (
    "historical, as empyrical's value_at_risk(r, 0.05); quantstats' value_at_risk (var) is parametric, the 5% "
    "quantile of a normal law of mean(r) and std(r)"
)
CONDITIONAL_VALUE_AT_RISK = (
    "as empyrical's conditional_value_at_risk(r, 0.05), but for a return equal to the 5th percentile; "
    "quantstats' cvar averages the returns below its parametric value at risk"
)
ALPHA = (
    "arithmetic, as quantstats' greeks(r, b) alpha; empyrical's alpha(r, b) compounds the daily intercept, "
    "(1 + a)^252 - 1"
)
BEST_WORST_WEEK = (
    "not quantstats' best/worst by week: aggregate='W' groups by calendar year and ISO week number (Monday to "
    "Sunday, a week spanning New Year split between years), aggregate='week' pools each week number across years"
)
BEST_WORST_MONTH = (
    "as quantstats' best/worst(aggregate='ME') (its report's Best and Worst Month); its aggregate='month' pools "
    "each calendar month across years, and 'M' aggregates nothing (days)"
)
MAX_DRAWDOWN = "quantstats' and empyrical's max_drawdown are the same fall as a negative fraction of the peak"
ANNUALISED_RETURN = (
    "arithmetic; empyrical's annual_return and quantstats' cagr compound (the risk route's cagr)"
)


def information_ratio(periods: int = SESSIONS_PER_YEAR) -> str:
    """The phrase for an information ratio of returns `periods` to a year (252 daily, 52 weekly)."""
    called = "sharpe(r)" if periods == SESSIONS_PER_YEAR else f"sharpe(r, periods={periods})"
    return (
        f"quantstats' {called} and empyrical's sharpe_ratio, risk-free rate 0; not quantstats' "
        "information_ratio(r, benchmark), the mean over the standard deviation of r - benchmark, not annualised"
    )


INFORMATION_RATIO = information_ratio()
