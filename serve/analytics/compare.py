"""`/analytics/compare`: two alphas' books over one window (`analytics.comparison`): compounded
curves on their common sessions, rolling correlations of returns and weekly IC, and each headline
figure of both sides with its difference and, where one is stated, the paired test of it.

Figures built from data the key may not read are `not_measurable` with an `access_limited`
warning (the `/metrics` rule), and the series built from them are null, never empty lists."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics import comparison, inputs
from analytics.access import Access, withheld
from analytics.comparison import DifferenceTest, Paired
from analytics.entries import Warnings, conventions, number, stat, window_echo
from datasets.queries import Window
from datasets.reader import BuildView

RETURN_FIGURES = ("information_ratio", "annualised_return", "volatility", "max_drawdown_pct")
IC_FIGURES = ("mean_ic", "icir")
UNITS = {
    "information_ratio": ("ratio", "annualised"),
    "annualised_return": ("fraction", "annualised"),
    "volatility": ("fraction", "annualised"),
    "max_drawdown_pct": ("percentage_points", "not_annualisable"),
    "mean_ic": ("ratio", "per_period"),
    "icir": ("ratio", "annualised"),
}
TESTED = {"information_ratio": "sharpe", "annualised_return": "mean", "mean_ic": "mean"}
"""The figures whose difference is tested, and how: `sharpe` (Jobson-Korkie-Memmel) or `mean`
(paired t-test); the others (volatility, max_drawdown_pct, icir) have no test stated."""


@dataclass(frozen=True)
class Side:
    """What one data source gives the comparison: the common observations, or why there are none."""

    pairs: Paired | None
    reason: str  # why the figures are not measurable ("" when they may be)
    withheld: bool


def _dates(days: np.ndarray) -> list[str]:
    return [str(d) for d in days.astype("datetime64[D]")]


def _returns(view: BuildView, book: str, window: Window) -> tuple[np.ndarray, np.ndarray] | None:
    ledger = inputs.ledger(view, book)
    if ledger is None:
        return None
    part = ledger.window(window)
    return part.days, part.returns


def _ic(view: BuildView, window: Window) -> tuple[np.ndarray, np.ndarray] | None:
    series = inputs.weekly_ic(view)
    if series is None:
        return None
    part = series.window(window)
    return part.days, part.values


def _side(
    found: tuple[tuple[np.ndarray, np.ndarray] | None, ...],
    names: tuple[str, str],
    missing: str,
    unit: str,
) -> Side:
    a, b = found
    for series, name in zip((a, b), names, strict=True):
        if series is None:
            return Side(None, f"{name} has no {missing}", False)
    assert a is not None and b is not None
    pairs = comparison.paired(a[0], a[1], b[0], b[1])
    short = pairs.size < comparison.MIN_OBSERVATIONS
    reason = f"fewer than {comparison.MIN_OBSERVATIONS} common {unit} in the window ({pairs.size})"
    return Side(pairs, reason if short else "", False)


def compare_payload(
    a: BuildView,
    b: BuildView,
    book: str,
    window: Window,
    sessions_window: int,
    access: Access,
    warnings: Warnings,
) -> dict[str, Any]:
    # The path alpha's conventions annualise both sides (sessions for returns, weeks for the ICIR).
    run = conventions(a)
    per_year, weeks_per_year = run.sessions_per_year, run.weeks_per_year
    weeks_window = comparison.WEEKS_OF_SESSIONS[sessions_window]
    names = (a.alpha_id, b.alpha_id)
    if access.ledger:
        returns = _side(
            (_returns(a, book, window), _returns(b, book, window)), names, f"ledger for {book}", "sessions"
        )
        if returns.pairs is not None:
            whole = _side((_returns(a, book, (None, None)), _returns(b, book, (None, None))), names, "", "")
            assert whole.pairs is not None
            inputs.require_window_sessions(
                returns.pairs.size,
                whole.pairs.size,
                window,
                comparison.MIN_OBSERVATIONS,
                f"sessions on which both {book} books have a return",
            )
    else:
        returns = Side(None, withheld("ledger", "compare.figures", warnings), True)
        for block in ("compare.equity", "compare.rolling_return_correlation", "compare.return_correlation"):
            withheld("ledger", block, warnings)
    if access.cross_sections:
        ics = _side(
            (_ic(a, window), _ic(b, window)), names, "weekly IC (no rebalance cross-sections)", "weeks"
        )
    else:
        ics = Side(None, withheld("cross_sections", "compare.figures", warnings), True)
        for block in ("compare.rolling_ic_correlation", "compare.ic_correlation"):
            withheld("cross_sections", block, warnings)

    figures: dict[str, Any] = {}
    r = returns.pairs
    source_r = f"portfolio:{book}"
    fa = fb = None
    if r is not None and not returns.reason:
        fa, fb = comparison.return_figures(r.a, per_year), comparison.return_figures(r.b, per_year)
    for name in RETURN_FIGURES:
        figures[name] = _figure(
            name,
            None if fa is None else getattr(fa, name),
            None if fb is None else getattr(fb, name),
            source_r,
            returns,
            "sessions",
            periods_per_year=per_year if UNITS[name][1] == "annualised" else None,
        )
    i = ics.pairs
    ia = ib = None
    if i is not None and not ics.reason:
        ia, ib = comparison.ic_figures(i.a, weeks_per_year), comparison.ic_figures(i.b, weeks_per_year)
    for name in IC_FIGURES:
        figures[name] = _figure(
            name,
            None if ia is None else getattr(ia, name),
            None if ib is None else getattr(ib, name),
            "weekly_signal",
            ics,
            "weeks",
            periods_per_year=weeks_per_year if UNITS[name][1] == "annualised" else None,
        )

    return {
        "alpha": a.alpha_id,
        "with": b.alpha_id,
        "book": book,
        "window": window_echo(window),
        "rolling_window": {"sessions": sessions_window, "weeks": weeks_window},
        "sessions": None if returns.withheld else (0 if r is None else r.size),
        "weeks": None if ics.withheld else (0 if i is None else i.size),
        "equity": None if returns.withheld else _equity(r),
        "rolling_return_correlation": None if returns.withheld else _rolling(r, sessions_window),
        "rolling_ic_correlation": None if ics.withheld else _rolling(i, weeks_window),
        "return_correlation": _correlation(returns, source_r),
        "ic_correlation": _correlation(ics, "weekly_signal"),
        "figures": figures,
    }


def _figure(
    name: str,
    value_a: float | None,
    value_b: float | None,
    source: str,
    side: Side,
    unit_of_count: str,
    periods_per_year: int | None = None,
) -> dict[str, Any]:
    unit, annualisation = UNITS[name]
    extra = {} if periods_per_year is None else {"periods_per_year": periods_per_year}
    reason = side.reason or f"not measurable over the common {unit_of_count} (no measurable variance)"
    alpha = stat(value_a, unit, source, annualisation, reason, **extra)
    other = stat(value_b, unit, source, annualisation, reason, **extra)
    both = alpha["value"] is not None and other["value"] is not None
    return {
        "alpha": alpha,
        "with": other,
        "difference": number(alpha["value"] - other["value"]) if both else None,
        "test": _test(name, side, unit_of_count),
    }


def _test(name: str, side: Side, unit_of_count: str) -> dict[str, Any] | None:
    how = TESTED.get(name)
    if how is None:
        return None
    found: DifferenceTest
    test_name = comparison.JOBSON_KORKIE_MEMMEL if how == "sharpe" else comparison.PAIRED_T
    if side.pairs is None or side.reason:
        found = DifferenceTest(test_name, math.nan, math.nan, side.reason)
    elif how == "sharpe":
        found = comparison.sharpe_difference_test(side.pairs, unit_of_count)
    else:
        found = comparison.paired_t_test(side.pairs, unit_of_count)
    out: dict[str, Any] = {
        "name": found.name,
        "statistic": number(found.statistic),
        "p_value": number(found.p_value),
        "significant": found.significant,
        "level": comparison.LEVEL,
    }
    if out["p_value"] is None:
        out["withheld_reason"] = found.why_not or "not computable"
    return out


def _equity(pairs: Paired | None) -> list[dict[str, Any]]:
    if pairs is None:
        return []
    ca, cb = comparison.cumulative_returns(pairs.a), comparison.cumulative_returns(pairs.b)
    return [
        {
            "date": d,
            "cumulative_return_alpha": number(x),
            "cumulative_return_with": number(y),
            "difference": number(x - y),
        }
        for d, x, y in zip(_dates(pairs.days), ca.tolist(), cb.tolist(), strict=True)
    ]


def _rolling(pairs: Paired | None, window: int) -> list[dict[str, Any]]:
    if pairs is None:
        return []
    found = comparison.rolling_pearson(pairs.a, pairs.b, window)
    return [
        {"date": d, "correlation": number(c)} for d, c in zip(_dates(pairs.days), found.tolist(), strict=True)
    ]


def _correlation(side: Side, source: str) -> dict[str, Any]:
    value = None if side.pairs is None or side.reason else comparison.pearson(side.pairs.a, side.pairs.b)
    return stat(
        value, "ratio", source, "not_annualisable", side.reason or "a side is constant over the window"
    )
