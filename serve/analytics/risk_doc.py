"""The `/analytics/_doc` fields of `/analytics/risk` (merged by serve.analytics.doc)."""

from __future__ import annotations

from typing import Any

from analytics.risk import MIN_SESSIONS, MIN_TAIL_SESSIONS

SOURCE = "portfolio:{book}"
RELATIVE = "portfolio:{book}+benchmark:SPY"
RETURNS = "r = ending_equity / starting_equity - 1 of the book's sessions in the window"


def fields() -> dict[str, dict[str, Any]]:
    """Dotted path (under "risk") -> entry built with serve.analytics.doc's _f / _stat helpers."""
    # Imported here: serve.analytics.doc imports this module while it builds its block.
    from serve.analytics.doc import WINDOW, _f, _stat, window_fields

    p = "risk"
    per_year = {"periods_per_year": _f("Sessions per year used to annualise", unit="sessions")}
    out = {
        p: _f(
            "Benchmark-relative (against SPY) and tail figures of the book's daily returns over "
            + WINDOW
            + f"; {RETURNS}. Annualised figures need {MIN_SESSIONS} sessions, tail figures "
            f"{MIN_TAIL_SESSIONS}; every figure needs portfolio.ledger, the benchmark block also "
            "benchmarks.daily"
        ),
        f"{p}.alpha": _f("The alpha served"),
        f"{p}.book": _f("The book measured"),
        **window_fields(p),
        f"{p}.sessions": _f(
            "Sessions of the book in the window; null for a key that may not read the ledger (a count of it, "
            "withheld as its figures are)",
            unit="sessions",
            source=SOURCE,
        ),
    }
    b = f"{p}.benchmark"
    out |= {
        b: _f(
            "The book against SPY's daily total returns b on the same sessions (sessions where both have a "
            "return); needs benchmarks.daily besides portfolio.ledger"
        ),
        f"{b}.symbol": _f("The benchmark: SPY"),
        f"{b}.return_basis": _f(
            "SPY's return basis: adjusted_close when every row of its whole series has one, else close "
            "(as /v1/benchmarks/SPY/daily period_return); null for a key without benchmarks.daily",
            source="benchmark:SPY",
        ),
        f"{b}.observations": _f(
            "Sessions of the window with both a book and a SPY return, the sessions the figures are over; null "
            "when withheld",
            unit="sessions",
            source=RELATIVE,
        ),
    }
    out |= _stat(
        f"{b}.beta",
        _f(
            f"OLS slope of the book's daily returns on SPY's, with an intercept; needs {MIN_SESSIONS} common "
            "sessions and a SPY series with variance",
            "cov(r, b) / var(b) over the common sessions",
            "ratio",
            source=RELATIVE,
        ),
    )
    out |= _stat(
        f"{b}.alpha",
        _f(
            "The OLS intercept of the same regression, annualised arithmetically (times 252, not compounded): "
            "the return per year beyond beta times SPY's, not in excess of the risk-free rate",
            "(mean(r) - beta mean(b)) * 252",
            "fraction",
            "annualised",
            RELATIVE,
        ),
        **per_year,
    )
    out |= _stat(
        f"{b}.tracking_error",
        _f(
            f"Annualised standard deviation of the book's daily return in excess of SPY's; needs {MIN_SESSIONS} "
            "common sessions",
            "std(r - b, ddof=1) * sqrt(252)",
            "fraction",
            "annualised",
            RELATIVE,
        ),
        **per_year,
    )
    out |= _stat(
        f"{p}.sortino",
        _f(
            "Sortino ratio with required return 0 (empyrical's convention); not measurable without a losing "
            "session",
            "mean(r) * 252 / (sqrt(mean(min(r, 0)^2)) * sqrt(252))",
            "ratio",
            "annualised",
            SOURCE,
        ),
        **per_year,
    )
    out |= _stat(
        f"{p}.cagr",
        _f(
            "Compound annual growth rate of the book over the window's sessions",
            "prod(1 + r)^(252 / n) - 1, n the sessions",
            "fraction",
            "annualised",
            SOURCE,
        ),
        **per_year,
    )
    out |= _stat(
        f"{p}.max_drawdown_pct",
        _f(
            "Deepest fall of the compounded equity from its running peak, the start at 1.0 included, in "
            "percentage points of the peak (25.0 is 25%; 0 without a fall), as /metrics core.max_drawdown_pct",
            "max(1 - E / cummax(E)) * 100, E = (1, cumprod(1 + r))",
            "percentage_points",
            source=SOURCE,
        ),
    )
    out |= _stat(
        f"{p}.calmar",
        _f(
            "Calmar ratio over the window; not measurable without a drawdown",
            "cagr / (max_drawdown_pct / 100)",
            "ratio",
            "annualised",
            SOURCE,
        ),
        **per_year,
    )
    out |= _stat(
        f"{p}.tail_ratio",
        _f(
            f"Right tail over left tail of daily returns (empyrical's convention); needs {MIN_TAIL_SESSIONS} "
            "sessions, not measurable when the 5th percentile is 0",
            "|percentile(r, 95)| / |percentile(r, 5)|, numpy's linear interpolation",
            "ratio",
            source=SOURCE,
        ),
    )
    tail = {
        "confidence": _f("Confidence level: 0.95", unit="probability"),
        "horizon_sessions": _f("Horizon of the loss: one session", unit="sessions"),
    }
    out |= _stat(
        f"{p}.var_95",
        _f(
            f"Historical value at risk at 95% over one session, as a return (negative = a loss); needs "
            f"{MIN_TAIL_SESSIONS} sessions",
            "percentile(r, 5), numpy's linear interpolation",
            "fraction",
            source=SOURCE,
        ),
        **tail,
    )
    out |= _stat(
        f"{p}.cvar_95",
        _f(
            "Historical conditional value at risk (expected shortfall) at 95% over one session, as a return; "
            f"needs {MIN_TAIL_SESSIONS} sessions",
            "mean(r | r <= var_95)",
            "fraction",
            source=SOURCE,
        ),
        **tail,
    )
    for name, period in (
        ("day", "session"),
        ("week", "week ending Friday (pandas W-FRI; a weekend session belongs to the next Friday)"),
        ("month", "calendar month"),
    ):
        extra = {
            "date": _f("The period's last session in the window; null when not measurable"),
            "sessions": _f("Sessions of the window in the period; null when not measurable", unit="sessions"),
        }
        for side, pick in (("best", "highest"), ("worst", "lowest")):
            out |= _stat(
                f"{p}.{side}_{name}",
                _f(
                    f"The {pick} compounded return of a {period} over the window's sessions (the first and "
                    "last periods may be cut by the window); the earliest on a tie",
                    "prod(1 + r) - 1 over the period's sessions",
                    "fraction",
                    source=SOURCE,
                ),
                **extra,
            )
    return out
