"""`/analytics/risk`: a book's benchmark-relative figures against SPY and its tail figures
(`analytics.risk`), over the window's sessions of the book.

Every figure is built from the ledger (`portfolio.ledger`); beta, alpha and tracking error also
from SPY's daily series, so they need `benchmarks.daily` too (`benchmark` is None for a key
without it), as do SPY's return basis and the count of sessions both have.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from analytics import risk
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import EPOCH
from serve.analytics import inputs, market
from serve.analytics.entries import conventions, stat, window_echo, withheld
from serve.analytics.market import Benchmark
from serve.metrics import Access
from serve.metrics.stats import Warnings

FRACTION = "fraction"
CONFIDENCE = 0.95
BENCHMARK_BLOCK = "risk.benchmark"


def benchmark_withheld(block: str, warnings: Warnings) -> str:
    """`entries.withheld` for figures built from SPY's daily series, which the key may not read."""
    why = f"built from {market.SYMBOL}'s daily series, which this key may not read ({market.ENDPOINT})"
    warnings.add("access_limited", f"{block} is {why}.", block=block)
    return f"access_limited: {why}"


def _iso(day: int) -> str:
    return (EPOCH + timedelta(days=day)).isoformat()


def risk_payload(
    view: BuildView,
    book: str,
    window: Window,
    access: Access,
    benchmark: Benchmark | None,
    warnings: Warnings,
) -> dict[str, Any]:
    per_year = conventions(view).sessions_per_year
    source = f"portfolio:{book}"
    ledger = inputs.ledger(view, book)
    part = None if ledger is None or not access.ledger else ledger.window(window)
    r = np.empty(0) if part is None else part.returns
    days = np.empty(0, np.int32) if part is None else part.days
    if part is not None and ledger is not None:
        sessions = f"sessions of the {book} book"
        inputs.require_window_sessions(days.size, ledger.days.size, window, risk.MIN_SESSIONS, sessions)
    if not access.ledger:
        reason = withheld("ledger", "risk", warnings)
    elif part is None:
        reason = "the run has no ledger for this book"
    elif not np.isfinite(r).all():
        reason = "a session of the window has no return (its starting equity is 0)"
    else:
        reason = ""
    f = None if reason else risk.risk_figures(r, days, per_year)

    def entry(pick: str, unit: str, annualisation: str, **extra: Any) -> dict[str, Any]:
        figure: risk.Figure | None = None if f is None else getattr(f, pick)
        value = None if figure is None else figure.value
        why = reason if figure is None else figure.why_not
        return stat(value, unit, source, annualisation, why, **extra)

    def period(found: risk.Period | None) -> dict[str, Any]:
        measured = found is not None and not found.why_not
        return stat(
            None if found is None else found.value,
            FRACTION,
            source,
            "not_annualisable",
            reason if found is None else found.why_not,
            date=_iso(found.day) if found is not None and measured else None,
            sessions=found.sessions if found is not None and measured else None,
        )

    tail_extra = {"confidence": CONFIDENCE, "horizon_sessions": 1}
    out: dict[str, Any] = {
        "alpha": view.alpha_id,
        "book": book,
        "window": window_echo(window),
        # A count of the ledger: withheld (null) as its figures are for a key that may not read it.
        "sessions": None if not access.ledger else int(days.size),
        "benchmark": _relative(r, days, book, per_year, reason, benchmark, warnings),
        "sortino": entry("sortino", "ratio", "annualised", periods_per_year=per_year),
        "cagr": entry("cagr", FRACTION, "annualised", periods_per_year=per_year),
        "max_drawdown_pct": entry("max_drawdown_pct", "percentage_points", "not_annualisable"),
        "calmar": entry("calmar", "ratio", "annualised", periods_per_year=per_year),
        "tail_ratio": entry("tail_ratio", "ratio", "not_annualisable"),
        "var_95": entry("var_95", FRACTION, "not_annualisable", **tail_extra),
        "cvar_95": entry("cvar_95", FRACTION, "not_annualisable", **tail_extra),
    }
    for name in ("day", "week", "month"):
        found: risk.Extremes | None = None if f is None else getattr(f, name)
        out[f"best_{name}"] = period(None if found is None else found.best)
        out[f"worst_{name}"] = period(None if found is None else found.worst)
    return out


def _relative(
    r: np.ndarray,
    days: np.ndarray,
    book: str,
    per_year: int,
    reason: str,
    benchmark: Benchmark | None,
    warnings: Warnings,
) -> dict[str, Any]:
    """The `benchmark` block: SPY, its return basis and the figures against it."""
    source = f"portfolio:{book}+benchmark:{market.SYMBOL}"
    if benchmark is None:
        why = benchmark_withheld(BENCHMARK_BLOCK, warnings)
        # The ledger's withholding reason comes first: either one withholds the figure.
        reason = reason or why
    found = None if reason or benchmark is None else risk.relative(r, benchmark.on(days), per_year)

    def entry(pick: str, unit: str, annualisation: str, **extra: Any) -> dict[str, Any]:
        figure: risk.Figure | None = None if found is None else getattr(found, pick)
        value = None if figure is None else figure.value
        why = reason if figure is None else figure.why_not
        return stat(value, unit, source, annualisation, why, **extra)

    return {
        "symbol": market.SYMBOL,
        "return_basis": None if benchmark is None else benchmark.basis,
        "observations": None if found is None else found.observations,
        "beta": entry("beta", "ratio", "not_annualisable"),
        "alpha": entry("alpha", FRACTION, "annualised", periods_per_year=per_year),
        "tracking_error": entry("tracking_error", FRACTION, "annualised", periods_per_year=per_year),
    }
