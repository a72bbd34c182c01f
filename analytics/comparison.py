"""Two alphas side by side (docs/analytics.md, "Comparison"): their figures over the dates both
hold, the paired tests of the differences, and rolling correlations.

Everything is measured on the common observations only (the sessions, or weeks, where both series
have a finite value), each side's figures included, so a difference compares like with like.
Every figure, test and correlation needs MIN_OBSERVATIONS of them; below that it is NaN.

The tests, each two-sided at LEVEL:

- paired t-test of the mean difference (as `scipy.stats.ttest_rel`): d = a - b,
  t = mean(d) / (std(d, ddof=1) / sqrt(n)), n - 1 degrees of freedom;
- Jobson and Korkie (1981) with Memmel's (2003) correction, for the difference of two Sharpe
  ratios on paired returns: SR per observation (mean / std, ddof=1), rho the Pearson correlation,
  V = (2 - 2 rho + (SR_a^2 + SR_b^2) / 2 - SR_a SR_b rho^2) / n, z = (SR_a - SR_b) / sqrt(V),
  p = 2 (1 - Phi(|z|)).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
from msgspec import UNSET

from analytics import compounding, inputs
from analytics.access import Access, withheld
from analytics.entries import Warnings, analytics_stat, conventions, declared_stat, number, window_echo
from analytics.errors import BadParameters
from analytics.ic import annualised_icir
from analytics.returns import BookFigures, book_figures, mean_over_std
from analytics.variance import measurable_std
from datasets.queries import Window
from datasets.reader import BuildView
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.comparison import (
    ComparedFigure,
    ComparedFigures,
    CompareEquityRow,
    Comparison,
    RollingCorrelationRow,
    RollingWindow,
)
from schemas.bodies.comparison import DifferenceTest as DifferenceTestBody
from schemas.bodies.figures import key_facts
from schemas.choices import COMPARE_WINDOWS
from schemas.conventions import weeks_of_sessions

MIN_OBSERVATIONS = 3
LEVEL = 0.05
WEEKS_OF_SESSIONS = {int(sessions): weeks_of_sessions(int(sessions)) for sessions in COMPARE_WINDOWS}
"""The rolling window in weeks of weekly IC for each rolling window in sessions: the same span."""

PAIRED_T = "paired t-test"
JOBSON_KORKIE_MEMMEL = "Jobson-Korkie test with Memmel's correction"

WINDOWS_PER_BLOCK = 1024
"""Trailing windows `rolling_pearson` works on at once (its temporaries are that many windows)."""


@dataclass(frozen=True)
class Paired:
    """Two series on the dates both hold a finite value (days since 1970, ascending)."""

    days: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @property
    def size(self) -> int:
        return int(self.days.size)


def paired(days_a: np.ndarray, a: np.ndarray, days_b: np.ndarray, b: np.ndarray) -> Paired:
    """The common observations of two dated series (each date once per series, ascending)."""
    days, at_a, at_b = np.intersect1d(days_a, days_b, assume_unique=True, return_indices=True)
    x, y = a[at_a].astype(np.float64), b[at_b].astype(np.float64)
    keep = np.isfinite(x) & np.isfinite(y)
    return Paired(days[keep], x[keep], y[keep])


@dataclass(frozen=True)
class DifferenceTest:
    """A two-sided test of a difference; statistic and p-value NaN with `why_not` when it cannot run."""

    name: str
    statistic: float
    p_value: float
    why_not: str | None = None

    @property
    def significant(self) -> bool | None:
        return None if not math.isfinite(self.p_value) else bool(self.p_value < LEVEL)


def _too_few(name: str, n: int, unit: str) -> DifferenceTest | None:
    if n < MIN_OBSERVATIONS:
        return DifferenceTest(name, math.nan, math.nan, f"fewer than {MIN_OBSERVATIONS} common {unit} ({n})")
    return None


def paired_t_test(p: Paired, unit: str) -> DifferenceTest:
    """The paired t-test of mean(a - b) = 0 (the `scipy.stats.ttest_rel` statistic and p-value)."""
    short = _too_few(PAIRED_T, p.size, unit)
    if short is not None:
        return short
    d = p.a - p.b
    sd = measurable_std(d)
    if not math.isfinite(sd):
        return DifferenceTest(
            PAIRED_T, math.nan, math.nan, "the paired differences have no measurable variance"
        )
    t = float(np.mean(d)) / (sd / math.sqrt(d.size))
    from scipy import stats  # when used: ~1 s to import (development.md)

    return DifferenceTest(PAIRED_T, t, float(2.0 * stats.t.sf(abs(t), d.size - 1)))


def sharpe_difference_test(p: Paired, unit: str) -> DifferenceTest:
    """Jobson-Korkie with Memmel's correction of SR_a = SR_b, Sharpe ratios per observation."""
    short = _too_few(JOBSON_KORKIE_MEMMEL, p.size, unit)
    if short is not None:
        return short
    sd_a, sd_b = measurable_std(p.a), measurable_std(p.b)
    if not (math.isfinite(sd_a) and math.isfinite(sd_b)):
        return DifferenceTest(JOBSON_KORKIE_MEMMEL, math.nan, math.nan, "a side has no measurable variance")
    n = p.size
    sr_a, sr_b = float(np.mean(p.a)) / sd_a, float(np.mean(p.b)) / sd_b
    rho = pearson(p.a, p.b)
    variance = (2.0 - 2.0 * rho + (sr_a**2 + sr_b**2) / 2.0 - sr_a * sr_b * rho**2) / n
    if not variance > 0:
        return DifferenceTest(JOBSON_KORKIE_MEMMEL, math.nan, math.nan, "the difference has no variance")
    z = (sr_a - sr_b) / math.sqrt(variance)
    from scipy import stats  # when used: ~1 s to import (development.md)

    return DifferenceTest(JOBSON_KORKIE_MEMMEL, z, float(2.0 * stats.norm.sf(abs(z))))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation (two-pass centred sums); NaN below MIN_OBSERVATIONS or with a constant side."""
    if x.size < MIN_OBSERVATIONS or not (np.ptp(x) > 0 and np.ptp(y) > 0):
        return math.nan
    dx, dy = x - np.mean(x), y - np.mean(y)
    return float(np.clip(np.sum(dx * dy) / math.sqrt(np.sum(dx * dx) * np.sum(dy * dy)), -1.0, 1.0))


def rolling_pearson(x: np.ndarray, y: np.ndarray, window: int) -> np.ndarray:
    """Pearson over each trailing `window` observations, one value per observation: NaN until the
    window is full and where a side is constant over it."""
    out = np.full(x.size, np.nan)
    if x.size < window:
        return out
    xs = np.lib.stride_tricks.sliding_window_view(x, window)
    ys = np.lib.stride_tricks.sliding_window_view(y, window)
    for start in range(0, xs.shape[0], WINDOWS_PER_BLOCK):
        bx, by = xs[start : start + WINDOWS_PER_BLOCK], ys[start : start + WINDOWS_PER_BLOCK]
        dx = bx - bx.mean(axis=1, keepdims=True)
        dy = by - by.mean(axis=1, keepdims=True)
        varies = (np.ptp(bx, axis=1) > 0) & (np.ptp(by, axis=1) > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            found = np.sum(dx * dy, axis=1) / np.sqrt(np.sum(dx * dx, axis=1) * np.sum(dy * dy, axis=1))
        found = np.where(varies, np.clip(found, -1.0, 1.0), np.nan)
        out[window - 1 + start : window - 1 + start + found.size] = found
    return out


def cumulative_returns(r: np.ndarray) -> np.ndarray:
    """prod(1 + r) - 1 from the first observation to each one."""
    return compounding.growth(r) - 1.0


def return_figures(r: np.ndarray, per_year: int) -> BookFigures:
    """The headline figures of daily returns (`analytics.returns.book_figures`, NaN below
    MIN_OBSERVATIONS; no excess Sharpe: a comparison is of total returns)."""
    if r.size < MIN_OBSERVATIONS:
        return book_figures(np.empty(0), None, per_year)
    return book_figures(r, None, per_year)


@dataclass(frozen=True)
class IcFigures:
    rebuilt_mean_ic: float  # per week
    icir: float  # mean / std(ddof=1), annualised (analytics.ic: the one basis an ICIR is compared on)


def ic_figures(ic: np.ndarray, weeks_per_year: int) -> IcFigures:
    if ic.size < MIN_OBSERVATIONS:
        return IcFigures(math.nan, math.nan)
    return IcFigures(float(np.mean(ic)), annualised_icir(mean_over_std(ic), weeks_per_year))


RETURN_FIGURES = ("information_ratio", "annualised_return", "volatility", "max_drawdown_pct")
IC_FIGURES = ("rebuilt_mean_ic", "icir")
TESTED = {"information_ratio": "sharpe", "annualised_return": "mean", "rebuilt_mean_ic": "mean"}
"""The figures whose difference is tested, and how: `sharpe` (Jobson-Korkie-Memmel) or `mean`
(paired t-test); the others (volatility, max_drawdown_pct, icir) have no test stated."""


@dataclass(frozen=True)
class Side:
    """What one data source gives the comparison: the common observations, or why there are none."""

    pairs: Paired | None
    reason: str  # why the figures are not measurable ("" when they may be)
    withheld: bool


def _dates(days: np.ndarray) -> list[dt.date]:
    return days.astype("datetime64[D]").tolist()


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
    pairs = paired(a[0], a[1], b[0], b[1])
    short = pairs.size < MIN_OBSERVATIONS
    reason = f"fewer than {MIN_OBSERVATIONS} common {unit} in the window ({pairs.size})"
    return Side(pairs, reason if short else "", False)


def require_other(alpha: str, other: str) -> None:
    """`with` must name another alpha than the one compared (else 400 naming it)."""
    if other == alpha:
        raise BadParameters({"with": "must name another alpha than the one compared"})


def require_book(other: BuildView, book: str, books: Collection[str]) -> None:
    """The other alpha must hold `book` among `books`, those of its books the caller may read (else
    400 naming `book`)."""
    if book not in books:
        raise BadParameters({"book": f"{other.alpha_id} (with) has no book {book!r}"})


def compare_payload(
    a: BuildView,
    b: BuildView,
    book: str,
    window: Window,
    sessions_window: int,
    access: Access,
    warnings: Warnings,
) -> Comparison:
    # The path alpha's conventions annualise both sides (sessions for returns, weeks for the ICIR).
    run = conventions(a)
    per_year, weeks_per_year = run.sessions_per_year, run.weeks_per_year
    weeks_window = WEEKS_OF_SESSIONS[sessions_window]
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
                MIN_OBSERVATIONS,
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

    context = {"book": book}
    r = returns.pairs
    fa = fb = None
    if r is not None and not returns.reason:
        fa, fb = return_figures(r.a, per_year), return_figures(r.b, per_year)
    i = ics.pairs
    ia = ib = None
    if i is not None and not ics.reason:
        ia, ib = ic_figures(i.a, weeks_per_year), ic_figures(i.b, weeks_per_year)

    def figure_of(
        name: str, side: Side, found: tuple[Any, Any], unit_of_count: str, year: int
    ) -> ComparedFigure:
        values = tuple(None if f is None else getattr(f, name) for f in found)
        return _figure(name, values[0], values[1], side, unit_of_count, year, context)

    return Comparison(
        alpha=a.alpha_id,
        with_=b.alpha_id,
        book=book,
        window=window_echo(window),
        rolling_window=RollingWindow(sessions=sessions_window, weeks=weeks_window),
        sessions=None if returns.withheld else (0 if r is None else r.size),
        weeks=None if ics.withheld else (0 if i is None else i.size),
        equity=None if returns.withheld else _equity(r),
        rolling_return_correlation=None if returns.withheld else _rolling(r, sessions_window),
        rolling_ic_correlation=None if ics.withheld else _rolling(i, weeks_window),
        return_correlation=_correlation("return_correlation", returns, context),
        ic_correlation=_correlation("ic_correlation", ics, context),
        figures=ComparedFigures(
            **{name: figure_of(name, returns, (fa, fb), "sessions", per_year) for name in RETURN_FIGURES},
            **{name: figure_of(name, ics, (ia, ib), "weeks", weeks_per_year) for name in IC_FIGURES},
        ),
    )


def _figure(
    name: str,
    value_a: float | None,
    value_b: float | None,
    side: Side,
    unit_of_count: str,
    per_year: int,
    context: dict[str, str],
) -> ComparedFigure:
    """Both sides of a headline figure, as `ComparedFigures` declares it: unit, annualisation and
    source, and `periods_per_year` for an annualised one."""
    facts = key_facts(ComparedFigures, name, "alpha")
    annualised = facts["annualisation"] == "annualised"
    reason = side.reason or f"not measurable over the common {unit_of_count} (no measurable variance)"

    def entry(value: float | None) -> AnalyticsStat:
        return analytics_stat(
            value,
            facts["unit"],
            facts["source"].format_map(context),
            facts["annualisation"],
            reason,
            **({"periods_per_year": per_year} if annualised else {}),
        )

    alpha, other = entry(value_a), entry(value_b)
    x, y = alpha.value, other.value
    common = None if side.withheld else (0 if side.pairs is None else side.pairs.size)
    return ComparedFigure(
        alpha=alpha,
        with_=other,
        difference=None if x is None or y is None else number(x - y),
        test=_test(name, side, unit_of_count),
        **{f"common_{unit_of_count}": common},
    )


def _test(name: str, side: Side, unit_of_count: str) -> DifferenceTestBody | None:
    how = TESTED.get(name)
    if how is None:
        return None
    found: DifferenceTest
    test_name = JOBSON_KORKIE_MEMMEL if how == "sharpe" else PAIRED_T
    if side.pairs is None or side.reason:
        found = DifferenceTest(test_name, math.nan, math.nan, side.reason)
    elif how == "sharpe":
        found = sharpe_difference_test(side.pairs, unit_of_count)
    else:
        found = paired_t_test(side.pairs, unit_of_count)
    p_value = number(found.p_value)
    return DifferenceTestBody(
        name=found.name,
        statistic=number(found.statistic),
        statistic_kind="z" if how == "sharpe" else "t",
        p_value=p_value,
        significant=found.significant,
        level=LEVEL,
        withheld_reason=(found.why_not or "not computable") if p_value is None else UNSET,
    )


def _equity(pairs: Paired | None) -> list[CompareEquityRow]:
    if pairs is None:
        return []
    ca, cb = cumulative_returns(pairs.a), cumulative_returns(pairs.b)
    return [
        CompareEquityRow(
            date=d,
            cumulative_return_alpha=number(x),
            cumulative_return_with=number(y),
            difference=number(x - y),
        )
        for d, x, y in zip(_dates(pairs.days), ca.tolist(), cb.tolist(), strict=True)
    ]


def _rolling(pairs: Paired | None, window: int) -> list[RollingCorrelationRow]:
    if pairs is None:
        return []
    found = rolling_pearson(pairs.a, pairs.b, window)
    return [
        RollingCorrelationRow(date=d, correlation=number(c))
        for d, c in zip(_dates(pairs.days), found.tolist(), strict=True)
    ]


def _correlation(name: str, side: Side, context: dict[str, str]) -> AnalyticsStat:
    value = None if side.pairs is None or side.reason else pearson(side.pairs.a, side.pairs.b)
    return declared_stat(
        Comparison, name, value, side.reason or "a side is constant over the window", context
    )
