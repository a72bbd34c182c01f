"""Benchmark-relative and tail figures of a book's daily returns (`/analytics/risk`).

Over the window's sessions, r the book's daily returns (ending / starting - 1) and b the
benchmark's on the same sessions (NaN where it has none), with P sessions per year:

- beta and alpha: OLS of r on b with an intercept over the sessions where both are finite;
  alpha = intercept x P (arithmetic annualisation). Tracking error: std(r - b, ddof=1) x sqrt(P)
  over the same sessions.
- Sortino (empyrical's convention, required return 0): mean(r) x P / (sqrt(mean(min(r, 0)^2)) x
  sqrt(P)).
- CAGR: prod(1 + r)^(P / n) - 1; max_drawdown_pct, the deepest fall of the compounded equity
  (1 + r).cumprod() with the start at 1.0, in percentage points of the peak (25.0 = 25%, 0 without
  a fall, as /metrics serves core.max_drawdown_pct); Calmar = CAGR / (max_drawdown_pct / 100).
- Tail ratio |q95| / |q5|, historical VaR q5 and CVaR mean(r | r <= q5), q the percentiles of r
  with numpy's linear interpolation (empyrical's convention); returns over one session.
- Best and worst session, week (ending Friday, as pandas' W-FRI) and calendar month: compounded
  returns of the window's sessions in each period, dated by the period's last session.

Minimum sessions: 1 for the extremes and the drawdown, MIN_SESSIONS (2) for every annualised figure
and the regression, MIN_TAIL_SESSIONS (20) for the tail figures. A figure that cannot be measured
is NaN (days -1) and `why_not` says why.

`risk_payload` is the answer over one book and window: every figure is built from the ledger
(`portfolio.ledger`); beta, alpha and tracking error also from the benchmark's daily series
(`benchmark` is None for a caller that may not read it, `benchmarks.daily`), as are the
benchmark's return basis and the count of sessions both have.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np

from analytics import inputs
from analytics.access import Access, withheld
from analytics.compounding import max_drawdown_fraction, period_growth, total_growth
from analytics.entries import Warnings, conventions, declared_stat, window_echo
from analytics.series import BenchmarkSeries
from analytics.variance import measurable_std
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import EPOCH
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.risk import RISK_MIN_SESSIONS, RISK_MIN_TAIL_SESSIONS, Risk, RiskBenchmark
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK

MIN_SESSIONS = RISK_MIN_SESSIONS
"""Returns for a standard deviation, a regression or an annualised figure."""
MIN_TAIL_SESSIONS = RISK_MIN_TAIL_SESSIONS
"""Returns for a 5% tail: with fewer, the 5th percentile interpolates the lowest one or two."""
TAIL = 5.0  # percent: VaR and CVaR at 95%, the tail ratio's lower percentile
FRIDAY = 4  # Monday = 0
EPOCH_WEEKDAY = 3  # 1970-01-01 was a Thursday


@dataclass(frozen=True)
class Figure:
    """A value (NaN when not measurable, with `why_not`)."""

    value: float
    why_not: str = ""


@dataclass(frozen=True)
class Period:
    """A compounded return over a period and its last session (days since 1970; -1 when none)."""

    value: float
    day: int
    sessions: int
    why_not: str = ""


@dataclass(frozen=True)
class Relative:
    """The figures against the benchmark, over `observations` sessions where both have a return."""

    observations: int
    beta: Figure
    alpha: Figure  # annualised intercept
    tracking_error: Figure


def _missing(why: str) -> Figure:
    return Figure(math.nan, why)


def _fewer(count: int, what: str) -> str:
    return f"fewer than {count} {what} in the window"


def relative(r: np.ndarray, b: np.ndarray, per_year: int) -> Relative:
    """Beta, annualised alpha and tracking error of r against b (sessions where both are finite)."""
    both = np.isfinite(r) & np.isfinite(b)
    x, y = b[both], r[both]
    n = int(x.size)
    if n < MIN_SESSIONS:
        why = _fewer(MIN_SESSIONS, "sessions with both a book and a benchmark return")
        return Relative(n, _missing(why), _missing(why), _missing(why))
    tracking = Figure(float(np.std(y - x, ddof=1)) * math.sqrt(per_year))
    # Beta divides by the benchmark's variance: none measurable (a constant series) is no beta.
    if not math.isfinite(measurable_std(x)):
        why = "the benchmark's returns have no measurable variance in the window"
        return Relative(n, _missing(why), _missing(why), tracking)
    dx = x - x.mean()
    beta = float(np.sum(dx * (y - y.mean())) / np.sum(dx * dx))
    intercept = float(y.mean()) - beta * float(x.mean())
    return Relative(n, Figure(beta), Figure(intercept * per_year), tracking)


def sortino(r: np.ndarray, per_year: int) -> Figure:
    if r.size < MIN_SESSIONS:
        return _missing(_fewer(MIN_SESSIONS, "sessions"))
    downside = math.sqrt(float(np.mean(np.minimum(r, 0.0) ** 2)))
    if not downside > 0:
        return _missing("no session lost in the window: no downside deviation")
    return Figure(float(np.mean(r)) * per_year / (downside * math.sqrt(per_year)))


def cagr(r: np.ndarray, per_year: int) -> Figure:
    if r.size < MIN_SESSIONS:
        return _missing(_fewer(MIN_SESSIONS, "sessions"))
    growth = total_growth(r)
    if not growth > 0:
        return _missing("the book lost all its equity in the window")
    return Figure(growth ** (per_year / r.size) - 1.0)


def max_drawdown_pct(r: np.ndarray) -> Figure:
    """`analytics.compounding.max_drawdown_fraction` x 100: percentage points of the running peak."""
    if r.size == 0:
        return _missing("the window holds no session of this book")
    return Figure(max_drawdown_fraction(r) * 100.0)


def calmar(growth: Figure, drawdown_pct: Figure) -> Figure:
    """CAGR over the max drawdown as a fraction of the peak (the percentage points / 100)."""
    if growth.why_not:
        return growth
    if drawdown_pct.why_not:
        return drawdown_pct
    if not drawdown_pct.value > 0:
        return _missing("no drawdown in the window")
    return Figure(growth.value / (drawdown_pct.value / 100.0))


@dataclass(frozen=True)
class Tail:
    tail_ratio: Figure
    var: Figure
    cvar: Figure


def tail(r: np.ndarray) -> Tail:
    if r.size < MIN_TAIL_SESSIONS:
        why = _fewer(MIN_TAIL_SESSIONS, "sessions")
        return Tail(_missing(why), _missing(why), _missing(why))
    low, high = (float(q) for q in np.percentile(r, [TAIL, 100.0 - TAIL]))
    ratio = Figure(abs(high) / abs(low)) if low != 0 else _missing("the 5th percentile of returns is 0")
    return Tail(ratio, Figure(low), Figure(float(np.mean(r[r <= low]))))


def week_ends(days: np.ndarray) -> np.ndarray:
    """The Friday ending each day's week (pandas' W-FRI: Saturday and Sunday belong to the next)."""
    weekday = (days.astype(np.int64) + EPOCH_WEEKDAY) % 7
    return days.astype(np.int64) + (FRIDAY - weekday) % 7


def month_keys(days: np.ndarray) -> np.ndarray:
    return days.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)


@dataclass(frozen=True)
class Extremes:
    best: Period
    worst: Period


def extremes(r: np.ndarray, days: np.ndarray, keys: np.ndarray | None) -> Extremes:
    """The best and worst compounded return over the periods `keys` labels (consecutive sessions
    with one key; None: each session alone), the earliest on a tie."""
    if r.size == 0:
        none = Period(math.nan, -1, 0, "the window holds no session of this book")
        return Extremes(none, none)
    starts, growth = period_growth(r, keys)
    returns = growth - 1.0
    ends = np.append(starts[1:], r.size)

    def at(i: int) -> Period:
        return Period(float(returns[i]), int(days[ends[i] - 1]), int(ends[i] - starts[i]))

    return Extremes(at(int(np.argmax(returns))), at(int(np.argmin(returns))))


@dataclass(frozen=True)
class RiskFigures:
    sessions: int
    sortino: Figure
    cagr: Figure
    max_drawdown_pct: Figure
    calmar: Figure
    tail_ratio: Figure
    var_95: Figure
    cvar_95: Figure
    day: Extremes
    week: Extremes
    month: Extremes


def risk_figures(r: np.ndarray, days: np.ndarray, per_year: int) -> RiskFigures:
    """The book's own figures from its window's daily returns `r` and sessions `days` (days since
    1970, ascending). Every session must have a return: the caller withholds a window where one
    has none (a starting equity of 0) rather than compound around it."""
    growth = cagr(r, per_year)
    drawdown = max_drawdown_pct(r)
    tails = tail(r)
    return RiskFigures(
        sessions=int(r.size),
        sortino=sortino(r, per_year),
        cagr=growth,
        max_drawdown_pct=drawdown,
        calmar=calmar(growth, drawdown),
        tail_ratio=tails.tail_ratio,
        var_95=tails.var,
        cvar_95=tails.cvar,
        day=extremes(r, days, None),
        week=extremes(r, days, week_ends(days)),
        month=extremes(r, days, month_keys(days)),
    )


CONFIDENCE = 0.95
BENCHMARK_BLOCK = "risk.benchmark"


def benchmark_withheld(symbol: str, block: str, warnings: Warnings) -> str:
    """`access.withheld` for figures built from a benchmark's daily series, which the caller may not
    read."""
    why = f"built from {symbol}'s daily series, which this key may not read ({BENCHMARK_ENDPOINT})"
    warnings.add("access_limited", f"{block} is {why}.", block=block)
    return f"access_limited: {why}"


def _date(day: int) -> dt.date:
    return EPOCH + timedelta(days=day)


def risk_payload(
    view: BuildView,
    book: str,
    window: Window,
    access: Access,
    benchmark: BenchmarkSeries | None,
    warnings: Warnings,
    symbol: str = MARKET_BENCHMARK,
) -> Risk:
    per_year = conventions(view).sessions_per_year
    context = {"book": book}
    ledger = inputs.ledger(view, book)
    part = None if ledger is None or not access.ledger else ledger.window(window)
    r = np.empty(0) if part is None else part.returns
    days = np.empty(0, np.int32) if part is None else part.days
    if part is not None and ledger is not None:
        sessions = f"sessions of the {book} book"
        inputs.require_window_sessions(days.size, ledger.days.size, window, MIN_SESSIONS, sessions)
    if not access.ledger:
        reason = withheld("ledger", "risk", warnings)
    elif part is None:
        reason = "the run has no ledger for this book"
    elif not np.isfinite(r).all():
        reason = "a session of the window has no return (its starting equity is 0)"
    else:
        reason = ""
    f = None if reason else risk_figures(r, days, per_year)

    def entry(pick: str, **extra: Any) -> AnalyticsStat:
        figure: Figure | None = None if f is None else getattr(f, pick)
        value = None if figure is None else figure.value
        why = reason if figure is None else figure.why_not
        return declared_stat(Risk, pick, value, why, context, **extra)

    def period(name: str, found: Period | None) -> AnalyticsStat:
        measured = found is not None and not found.why_not
        return declared_stat(
            Risk,
            name,
            None if found is None else found.value,
            reason if found is None else found.why_not,
            context,
            date=_date(found.day) if found is not None and measured else None,
            sessions=found.sessions if found is not None and measured else None,
        )

    def extremes_of(name: str) -> Extremes | None:
        return None if f is None else getattr(f, name)

    tail = {"confidence": CONFIDENCE, "horizon_sessions": 1}
    return Risk(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        # A count of the ledger: withheld (null) as its figures are for a key that may not read it.
        sessions=None if not access.ledger else int(days.size),
        benchmark=_relative(r, days, book, per_year, reason, symbol, benchmark, warnings),
        sortino=entry("sortino", periods_per_year=per_year),
        cagr=entry("cagr", periods_per_year=per_year),
        max_drawdown_pct=entry("max_drawdown_pct"),
        calmar=entry("calmar", periods_per_year=per_year),
        tail_ratio=entry("tail_ratio"),
        var_95=entry("var_95", **tail),
        cvar_95=entry("cvar_95", **tail),
        **{
            f"{side}_{name}": period(
                f"{side}_{name}", None if (found := extremes_of(name)) is None else getattr(found, side)
            )
            for name in ("day", "week", "month")
            for side in ("best", "worst")
        },
    )


def _relative(
    r: np.ndarray,
    days: np.ndarray,
    book: str,
    per_year: int,
    reason: str,
    symbol: str,
    benchmark: BenchmarkSeries | None,
    warnings: Warnings,
) -> RiskBenchmark:
    """The `benchmark` block: the benchmark, its return basis and the figures against it."""
    if benchmark is None:
        why = benchmark_withheld(symbol, BENCHMARK_BLOCK, warnings)
        # The ledger's withholding reason comes first: either one withholds the figure.
        reason = reason or why
    found = None if reason or benchmark is None else relative(r, benchmark.on(days), per_year)

    def entry(pick: str, **extra: Any) -> AnalyticsStat:
        figure: Figure | None = None if found is None else getattr(found, pick)
        value = None if figure is None else figure.value
        why = reason if figure is None else figure.why_not
        return declared_stat(RiskBenchmark, pick, value, why, {"book": book}, **extra)

    return RiskBenchmark(
        symbol=symbol,
        return_basis=None if benchmark is None else benchmark.basis,
        observations=None if found is None else found.observations,
        beta=entry("beta"),
        alpha=entry("alpha", periods_per_year=per_year),
        tracking_error=entry("tracking_error", periods_per_year=per_year),
    )
