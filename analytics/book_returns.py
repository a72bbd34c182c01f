"""`/analytics/returns`: a book's calendar returns and its trailing beta to the market benchmark.

Months and years compound the book's daily returns r = ending_equity / starting_equity - 1 of its
sessions in the window (`analytics.compounding`; a session without a return, a starting equity of
0, is skipped); a year's benchmark return compounds SPY's daily returns on the book's sessions of
that year. The trailing beta is the OLS slope of r on SPY's b over each `BETA_WINDOW` sessions up
to a session, over the sessions where both exist (at least `BETA_MIN_OBSERVATIONS`), null when SPY
does not vary (`analytics.variance`'s rounding rule), as `/analytics/risk` measures beta over a
window.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from analytics import inputs
from analytics.access import Access, require_readable
from analytics.compounding import period_growth
from analytics.entries import Warnings, window_echo
from analytics.risk import benchmark_withheld
from analytics.series import BenchmarkSeries
from analytics.variance import ROUNDING
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import EPOCH
from schemas.bodies.returns import (
    BETA_MIN_OBSERVATIONS,
    BETA_WINDOW,
    BetaPoint,
    BookReturns,
    MonthReturn,
    TrailingBeta,
    YearReturn,
)
from schemas.wire import MARKET_BENCHMARK


def _keys(days: np.ndarray, unit: str) -> np.ndarray:
    return days.astype("datetime64[D]").astype(f"datetime64[{unit}]").astype(np.int64)


def calendar_growth(
    days: np.ndarray, returns: np.ndarray, unit: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(period keys, sessions, growth prod(1 + r)) of each calendar `unit` ("M" or "Y", keys as
    numpy's months or years since 1970) holding a known return; `days` ascending."""
    known = np.isfinite(returns)
    keys = _keys(days[known], unit)
    starts, growth = period_growth(returns[known], keys)
    sessions = np.diff(np.append(starts, keys.size))
    return keys[starts], sessions, growth


def trailing_beta(
    r: np.ndarray, b: np.ndarray, window: int = BETA_WINDOW, least: int = BETA_MIN_OBSERVATIONS
) -> np.ndarray:
    """The beta of r on b over each trailing `window` sessions (NaN before the window is full, below
    `least` sessions with both, or without measurable variance of b)."""
    out = np.full(r.size, np.nan)
    if r.size < window:
        return out
    rw = np.lib.stride_tricks.sliding_window_view(r, window)
    bw = np.lib.stride_tricks.sliding_window_view(b, window)
    both = np.isfinite(rw) & np.isfinite(bw)
    n = both.sum(axis=1)
    safe = np.maximum(n, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_r = np.where(both, rw, 0.0).sum(axis=1) / safe
        mean_b = np.where(both, bw, 0.0).sum(axis=1) / safe
        dr = np.where(both, rw - mean_r[:, None], 0.0)
        db = np.where(both, bw - mean_b[:, None], 0.0)
        var_b = (db * db).sum(axis=1)
        squares = np.where(both, bw * bw, 0.0).sum(axis=1)
        beta = (db * dr).sum(axis=1) / var_b
    measurable = (n >= max(2, least)) & (var_b > ROUNDING * squares)
    out[window - 1 :] = np.where(measurable, beta, np.nan)
    return out


def _month_text(key: int) -> str:
    return str(np.datetime64(int(key), "M"))


def returns_payload(
    view: BuildView,
    book: str,
    window: Window,
    access: Access,
    benchmark: BenchmarkSeries | None,
    warnings: Warnings,
    symbol: str = MARKET_BENCHMARK,
) -> BookReturns:
    require_readable(access, "ledger")
    ledger = inputs.ledger(view, book)
    part = None if ledger is None else ledger.window(window)
    days = np.empty(0, np.int32) if part is None else part.days
    r = np.empty(0) if part is None else part.returns
    month_keys, month_sessions, month_growth = calendar_growth(days, r, "M")
    year_keys, year_sessions, year_growth = calendar_growth(days, r, "Y")
    if benchmark is None:
        benchmark_withheld(symbol, "years[].benchmark_return", warnings)
        benchmark_withheld(symbol, "beta", warnings)
        b = None
        bench_years: dict[int, float] = {}
    else:
        b = benchmark.on(days)
        keys, _, growth = calendar_growth(days, b, "Y")
        bench_years = {int(k): float(g) - 1.0 for k, g in zip(keys, growth, strict=True)}
    points = None
    if b is not None:
        betas = trailing_beta(r, b)
        points = [
            BetaPoint(date=EPOCH + dt.timedelta(days=int(day)), beta=float(v) if np.isfinite(v) else None)
            for day, v in zip(days, betas, strict=True)
        ]
    return BookReturns(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        benchmark=symbol,
        return_basis=None if benchmark is None else benchmark.basis,
        months=[
            MonthReturn(month=_month_text(k), sessions=int(n), book_return=float(g) - 1.0)
            for k, n, g in zip(month_keys, month_sessions, month_growth, strict=True)
        ],
        years=[
            YearReturn(
                year=1970 + int(k),
                sessions=int(n),
                book_return=float(g) - 1.0,
                benchmark_return=bench_years.get(int(k)),
            )
            for k, n, g in zip(year_keys, year_sessions, year_growth, strict=True)
        ],
        beta=TrailingBeta(window_sessions=BETA_WINDOW, min_observations=BETA_MIN_OBSERVATIONS, points=points),
    )
