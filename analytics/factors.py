"""Factor attribution of one book over a window (`/analytics/factors`; docs/analytics.md, "Factor
attribution"): the pipeline's weekly tables (`pipeline/factor_tables.py`: the factor returns of
`analytics.factor_model`, each book's exposures, parts and weekly returns, the feature-neutral
ICs) summed over the window's weeks.

A week is in the window when its decision date is on or after `from` and its holding period ends
(the next decision date) on or before `to` (`schemas.bodies.factors.WEEK_RULE`). Over the
window's attributed weeks t (an estimate and a holding period in the ledger), with R_t the book's
weekly return, X_t,f its exposures, f_t,f the factor returns and s_t = R_t - sum_f X_t,f f_t,f:

- book, common and specific return: sums of R_t, sum_f X f, s_t (arithmetic, as perf_attrib's
  per-period parts add up; its summary compounds them);
- per factor: the mean exposure, the sum of its factor returns (over the window's estimated
  weeks), the sum of its parts;
- the specific information ratio mean(s) / std(s, ddof=1) x sqrt(weeks_per_year), and the share
  of variance explained 1 - var(s) / var(R);
- the mean IC (`weekly_signal`) and mean feature-neutral IC over the window's weeks that have one.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from alpha_results_seal.arrow_schemas import STYLE_FACTORS
from analytics import inputs
from analytics.access import Access, withheld
from analytics.costs import information_ratio
from analytics.entries import Warnings, conventions, day_bounds, declared_stat, number, window_echo
from analytics.variance import measurable_std
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import EPOCH, floats
from schemas import wire
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.factors import (
    FACTOR_MIN_WEEKS,
    MARGIN,
    FactorFigures,
    FactorRunningSums,
    Factors,
    FactorType,
    FactorWeek,
    FactorWeekExposure,
    NeutralIc,
    NeutralIcWeek,
)

WEEKS_TABLE = "analytics_factor_weeks"
RETURNS_TABLE = "analytics_factor_returns"
EXPOSURES_TABLE = "analytics_factor_exposures"
ATTRIBUTION_TABLE = "analytics_factor_attribution"
NOT_NEUTRALISED = (
    f" (a week's neutral IC needs regressors + {MARGIN} names with a score and every loading, and a score the "
    "loadings do not explain entirely)"
)
OPEN_END = 2**31 - 1
"""The holding period's end of the last week (no next decision): in a window open at `to` only."""
WITHOUT_EXPOSURES = (
    "missing_kind: the run sealed no exposures (sector and style loadings by name and week), so nothing can "
    "be attributed to factors"
)
WITHOUT_DECISIONS = (
    "missing_kind: the run sealed no decisions (no forward returns to estimate factor returns from)"
)


def _days(table: pa.Table, column: str) -> np.ndarray:
    """A date column as days since 1970 (int64), a null as OPEN_END."""
    values = table.column(column).cast(pa.int32()).fill_null(OPEN_END)
    return np.asarray(values.to_numpy(), dtype=np.int64)


@dataclass(frozen=True)
class Weeks:
    """Every rebalance week of the build: its decision day and the next one (OPEN_END for the last)."""

    days: np.ndarray
    next_days: np.ndarray

    def inside(self, days: np.ndarray, window: Window) -> np.ndarray:
        """Which of `days` (rebalance days) are in the window (`WEEK_RULE`)."""
        start, end = day_bounds(window)
        at = np.clip(np.searchsorted(self.days, days), 0, max(self.days.size - 1, 0))
        following = self.next_days[at] if self.days.size else np.full(days.size, OPEN_END)
        return (days >= start) & (following <= end)

    def complete(self, window: Window) -> int:
        """Weeks of the window with a next decision (a holding period that can be measured)."""
        return int(np.count_nonzero(self.inside(self.days, window) & (self.next_days < OPEN_END)))


def weeks_of(view: BuildView) -> Weeks:
    """The rebalance index's weeks, read once per build."""

    def read() -> Weeks:
        table = view.table("rebalances")
        if table is None or table.num_rows == 0:
            return Weeks(np.empty(0, np.int64), np.empty(0, np.int64))
        days = np.sort(_days(table, "date"))
        return Weeks(days, np.append(days[1:], OPEN_END))

    return view.memo("analytics:factors:weeks", read)


@dataclass(frozen=True)
class FactorTable:
    """The build's factor returns (`analytics_factor_returns`) with its factors coded in the
    answer's order, and its weekly regressions (`analytics_factor_weeks`)."""

    factors: list[tuple[FactorType, str]]  # code -> (type, name)
    codes: dict[tuple[str, str], int]
    days: np.ndarray
    code: np.ndarray
    value: np.ndarray
    week_days: np.ndarray
    names: np.ndarray
    r_squared: np.ndarray
    neutral: dict[str, np.ndarray]  # neutral_ic, raw_neutral_ic, and their _names

    def value_of(self, days: np.ndarray, code: np.ndarray) -> np.ndarray:
        """The factor return of each (week, factor); NaN where that week has no estimate of it."""
        width = len(self.factors) + 1
        keys = self.days * width + self.code
        order = np.argsort(keys, kind="stable")
        wanted = days * width + code
        if keys.size == 0:
            return np.full(days.size, np.nan)
        at = order[np.clip(np.searchsorted(keys, wanted, sorter=order), 0, keys.size - 1)]
        return np.where(keys[at] == wanted, self.value[at], np.nan)


def _order(pair: tuple[str, str]) -> tuple[int, int, str]:
    """Sectors by name, then styles in STYLE_FACTORS order."""
    kind, name = pair
    rank = STYLE_FACTORS.index(name) if kind == "style" and name in STYLE_FACTORS else -1
    return (0 if kind == "sector" else 1, rank, name)


def _coded(table: pa.Table, codes: dict[tuple[str, str], int]) -> np.ndarray:
    kinds = table.column("factor_type").to_pylist()
    names = table.column("factor").to_pylist()
    return np.fromiter((codes[pair] for pair in zip(kinds, names, strict=True)), np.int64, len(kinds))


def factor_table(view: BuildView) -> FactorTable | None:
    """The build's factor tables, read once; None when it has none."""

    def read() -> FactorTable | None:
        returns, weeks = view.table(RETURNS_TABLE), view.table(WEEKS_TABLE)
        if returns is None or weeks is None:
            return None
        pairs = zip(
            returns.column("factor_type").to_pylist(), returns.column("factor").to_pylist(), strict=True
        )
        factors = sorted(set(pairs), key=_order)
        codes = {pair: i for i, pair in enumerate(factors)}
        neutral = {
            name: floats(weeks.column(name))
            for name in ("neutral_ic", "neutral_ic_names", "raw_neutral_ic", "raw_neutral_ic_names")
        }
        return FactorTable(
            factors=factors,
            codes=codes,
            days=_days(returns, "date"),
            code=_coded(returns, codes),
            value=floats(returns.column("factor_return")),
            week_days=_days(weeks, "date"),
            names=floats(weeks.column("names")),
            r_squared=floats(weeks.column("r_squared")),
            neutral=neutral,
        )

    return view.memo("analytics:factors:table", read)


def _nullable(values: np.ndarray) -> list[float | None]:
    """Floats for JSON: NaN as None."""
    out = values.astype(object)
    out[~np.isfinite(values)] = None
    return out.tolist()


def _dated(days: np.ndarray) -> list[dt.date]:
    """Dates of `days` (a few hundred distinct weeks: each made once)."""
    distinct, at = np.unique(days, return_inverse=True)
    made = np.array([EPOCH + dt.timedelta(days=int(d)) for d in distinct.tolist()] + [None], dtype=object)
    return made[:-1][at.reshape(-1)].tolist() if days.size else []


@dataclass(frozen=True)
class BookTable:
    """One book's rows of `analytics_factor_exposures` and `analytics_factor_attribution`, with the
    answer's rows of its whole history made once (a window is a slice of them: its weeks are
    consecutive)."""

    days: np.ndarray  # per exposure row
    code: np.ndarray
    exposure: np.ndarray
    part: np.ndarray
    week_days: np.ndarray  # per attributed week
    book_return: np.ndarray
    common_return: np.ndarray
    specific_return: np.ndarray
    weekly: list[FactorWeek]
    exposures: list[FactorWeekExposure]


def book_table(view: BuildView, book: str, factors: FactorTable) -> BookTable | None:
    """The book's attribution rows, read once per build and book; None when the build wrote none
    for it."""

    def read() -> BookTable | None:
        exposures = inputs.table_rows(view, EXPOSURES_TABLE, book)
        attribution = inputs.table_rows(view, ATTRIBUTION_TABLE, book)
        if exposures is None or attribution is None or attribution.num_rows == 0:
            return None
        days, code = _days(exposures, "date"), _coded(exposures, factors.codes)
        exposure, part = floats(exposures.column("exposure")), floats(exposures.column("part"))
        week_days = _days(attribution, "date")
        returns = {
            name: floats(attribution.column(name))
            for name in ("book_return", "common_return", "specific_return")
        }
        at = np.clip(np.searchsorted(factors.week_days, week_days), 0, max(factors.week_days.size - 1, 0))
        weekly = [
            FactorWeek(
                date=d,
                next_date=e,
                sessions=s,
                names=k,
                r_squared=r2,
                book_return=b,
                common_return=c,
                specific_return=x,
            )
            for d, e, s, k, r2, b, c, x in zip(
                _dated(week_days),
                _dated(_days(attribution, "next_date")),
                attribution.column("sessions").to_pylist(),
                factors.names[at].astype(np.int64).tolist(),
                _nullable(factors.r_squared[at]),
                *(_nullable(returns[name]) for name in ("book_return", "common_return", "specific_return")),
                strict=True,
            )
        ]
        pairs = [factors.factors[c] for c in code.tolist()]
        rows = [
            FactorWeekExposure(date=d, factor=name, type=kind, exposure=x, factor_return=f, part=p)
            for d, (kind, name), x, f, p in zip(
                _dated(days),
                pairs,
                _nullable(exposure),
                _nullable(factors.value_of(days, code)),
                _nullable(part),
                strict=True,
            )
        ]
        return BookTable(
            days=days,
            code=code,
            exposure=exposure,
            part=part,
            week_days=week_days,
            weekly=weekly,
            exposures=rows,
            **returns,
        )

    return view.memo(f"analytics:factors:book:{book}", read)


def _running(values: np.ndarray) -> list[float | None]:
    """Sums of the finite values up to each one (null where the value is not finite)."""
    finite = np.isfinite(values)
    return _nullable(np.where(finite, np.cumsum(np.where(finite, values, 0.0)), np.nan))


def _running_sums(rows: BookTable, attributed: slice) -> list[FactorRunningSums]:
    """The window's weekly book, common and specific returns summed up to each attributed week."""
    return [
        FactorRunningSums(
            date=d, sum_of_weekly_returns=b, sum_of_weekly_common_returns=c, sum_of_weekly_specific_returns=x
        )
        for d, b, c, x in zip(
            _dated(rows.week_days[attributed]),
            *(
                _running(getattr(rows, name)[attributed])
                for name in ("book_return", "common_return", "specific_return")
            ),
            strict=True,
        )
    ]


def _sums(code: np.ndarray, values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per factor code: the sum of the finite values and how many there are."""
    finite = np.isfinite(values)
    sums = np.bincount(code[finite], weights=values[finite], minlength=size)
    counts = np.bincount(code[finite], minlength=size)
    return sums, counts


def _span(inside: np.ndarray) -> slice:
    """The rows a window selects, consecutive since both a week's date and its next decision
    ascend with it."""
    found = np.flatnonzero(inside)
    return slice(int(found[0]), int(found[-1]) + 1) if found.size else slice(0, 0)


def _reasons(view: BuildView, book: str, access: Access, warnings: Warnings) -> tuple[str, str, str]:
    """Why the book's, the factor-return and the IC figures are not measurable ('' when they are)."""
    kinds = view.kinds_present
    signal = ""
    if not access.cross_sections:
        signal = withheld("cross_sections", "factors", warnings)
    factor = signal
    if not factor and "exposures" not in kinds:
        factor = WITHOUT_EXPOSURES
    elif not factor and "decisions" not in kinds:
        factor = WITHOUT_DECISIONS
    elif not factor and factor_table(view) is None:
        factor = (
            f"the served build {view.build_id} predates factor attribution; an operator rebuilds it with "
            "`alpha-results build`"
        )
    # The book's exposures are its realised weights times loadings: they tell about its positions.
    ledger = next(
        (
            withheld(data, "factors", warnings)
            for data in ("ledger", "positions")
            if not access.may_read(data)
        ),
        "",
    )
    if not ledger and inputs.ledger(view, book) is None:
        ledger = "the run has no ledger for this book"
    if not ledger and book not in view.books_of("positions"):
        ledger = (
            "missing_kind: the run sealed no positions for this book; its exposures are its realised "
            "weights, so nothing of it can be attributed to factors"
        )
    book_reason = ledger or factor
    if not book_reason and factor_table(view) is not None:
        found = factor_table(view)
        assert found is not None
        if book_table(view, book, found) is None:
            book_reason = "no week of this book has both a factor estimate and a holding period in its ledger"
    ic = signal or (
        "" if "decisions" in kinds else "missing_kind: the run sealed no decisions (no weekly IC)"
    )
    return book_reason, factor, ic


def factors_payload(
    view: BuildView, book: str, window: Window, access: Access, warnings: Warnings
) -> Factors:
    """`/analytics/factors` of `book` over `window` (docs/analytics.md, "Factor attribution")."""
    weeks = weeks_of(view)
    inputs.require_window_sessions(
        weeks.complete(window),
        weeks.complete((None, None)),
        window,
        FACTOR_MIN_WEEKS,
        "rebalance weeks with a complete holding period",
    )
    book_reason, factor_reason, ic_reason = _reasons(view, book, access, warnings)
    context = {"book": book}
    per_year = conventions(view).weeks_per_year
    table = None if factor_reason else factor_table(view)
    rows = None if book_reason or table is None else book_table(view, book, table)
    attributed = slice(0, 0) if rows is None else _span(weeks.inside(rows.week_days, window))
    n = attributed.stop - attributed.start
    few = f"fewer than {FACTOR_MIN_WEEKS} attributed weeks in the window with variance"

    def book_stat(name: str, value: float | None, reason: str = "", **extra: object) -> AnalyticsStat:
        why = book_reason or reason or "no attributed week in the window"
        return declared_stat(Factors, name, value, why, context, **extra)

    def total(name: str) -> float | None:
        return None if rows is None or n == 0 else float(np.sum(getattr(rows, name)[attributed]))

    ir, share = (None, None) if rows is None else _dispersion(rows, attributed, per_year)
    return Factors(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        weeks=None if book_reason else n,
        sum_of_weekly_returns=book_stat("sum_of_weekly_returns", total("book_return")),
        sum_of_weekly_common_returns=book_stat("sum_of_weekly_common_returns", total("common_return")),
        sum_of_weekly_specific_returns=book_stat("sum_of_weekly_specific_returns", total("specific_return")),
        specific_information_ratio=book_stat(
            "specific_information_ratio", ir, few, periods_per_year=per_year
        ),
        variance_explained=book_stat("variance_explained", share, few),
        factors=_factor_entries(weeks, window, table, rows, book_reason, context),
        weekly=[] if rows is None else rows.weekly[attributed],
        running_sums=[] if rows is None else _running_sums(rows, attributed),
        exposures=[] if rows is None else rows.exposures[_span(weeks.inside(rows.days, window))],
        ic=_neutral_ic(view, book, weeks, table, window, ic_reason, factor_reason, context),
    )


def _dispersion(rows: BookTable, attributed: slice, weeks_per_year: int) -> tuple[float | None, float | None]:
    """The specific information ratio and the share of variance explained (None: not measurable)."""
    specific = rows.specific_return[attributed]
    total = rows.book_return[attributed]
    ir = number(information_ratio(specific, weeks_per_year))
    if specific.size < FACTOR_MIN_WEEKS or not (np.isfinite(total).all() and np.isfinite(specific).all()):
        return ir, None
    # The one rule for a variance that is rounding (analytics.variance): no share of it is measured.
    sd_total = measurable_std(total)
    share = 1.0 - float(np.var(specific, ddof=1)) / sd_total**2 if math.isfinite(sd_total) else math.nan
    return ir, number(share)


def _factor_entries(
    weeks: Weeks,
    window: Window,
    table: FactorTable | None,
    rows: BookTable | None,
    book_reason: str,
    context: dict[str, str],
) -> list[FactorFigures]:
    """One entry per factor estimated in the window's weeks."""
    if table is None:
        return []
    size = len(table.factors)
    inside = weeks.inside(table.days, window)
    factor_sums, estimated = _sums(table.code[inside], table.value[inside], size)
    exposure_sums = part_sums = np.zeros(size)
    held = np.zeros(size, np.int64)
    if rows is not None:
        span = _span(weeks.inside(rows.days, window))
        exposure_sums, held = _sums(rows.code[span], rows.exposure[span], size)
        part_sums, _ = _sums(rows.code[span], rows.part[span], size)
    why = book_reason or "no attributed week of the window estimates it"

    def stat(field: str, value: float | None, reason: str) -> AnalyticsStat:
        return declared_stat(FactorFigures, field, value, reason, context)

    return [
        FactorFigures(
            factor=name,
            type=kind,
            weeks=int(estimated[code]),
            mean_exposure=stat(
                "mean_exposure", exposure_sums[code] / held[code] if held[code] else None, why
            ),
            factor_return=stat("factor_return", float(factor_sums[code]), ""),
            part=stat("part", float(part_sums[code]) if held[code] else None, why),
        )
        for code, (kind, name) in enumerate(table.factors)
        if estimated[code]  # a sector no regression of the window held is left out
    ]


@dataclass(frozen=True)
class IcWeeks:
    """The weekly IC and feature-neutral IC of one signal, with the answer's rows made once."""

    days: np.ndarray
    ic: np.ndarray
    neutral: np.ndarray
    rows: list[NeutralIcWeek]


def ic_weeks(view: BuildView, raw: bool, table: FactorTable | None) -> IcWeeks | None:
    """Every week of `weekly_signal` with its IC and, where the build has factor tables (`table`),
    its feature-neutral IC; None without cross-sections."""

    def read() -> IcWeeks | None:
        series = inputs.weekly_ic(view, "raw_ic" if raw else "ic")
        if series is None:
            return None
        days = series.days.astype(np.int64)
        neutral = np.full(days.size, np.nan)
        names = np.full(days.size, np.nan)
        if table is not None and table.week_days.size and days.size:
            column = "raw_neutral_ic" if raw else "neutral_ic"
            at = np.clip(np.searchsorted(table.week_days, days), 0, table.week_days.size - 1)
            found = table.week_days[at] == days
            neutral = np.where(found, table.neutral[column][at], np.nan)
            names = np.where(found, table.neutral[column + "_names"][at], np.nan)
        counts = [None if k is None else int(k) for k in _nullable(names)]
        rows = [
            NeutralIcWeek(date=d, ic=i, neutral_ic=x, names=k)
            for d, i, x, k in zip(
                _dated(days), _nullable(series.values), _nullable(neutral), counts, strict=True
            )
        ]
        return IcWeeks(days, series.values, neutral, rows)

    return view.memo(f"analytics:factors:ic:{raw}:{table is not None}", read)


def _neutral_ic(
    view: BuildView,
    book: str,
    weeks: Weeks,
    table: FactorTable | None,
    window: Window,
    ic_reason: str,
    factor_reason: str,
    context: dict[str, str],
) -> NeutralIc:
    raw = wire.is_raw_book(book)
    found = None if ic_reason else ic_weeks(view, raw, table)
    span = slice(0, 0) if found is None else _span(weeks.inside(found.days, window))

    def stat(name: str, values: np.ndarray | None, reason: str) -> AnalyticsStat:
        measured = None if values is None else values[span][np.isfinite(values[span])]
        value = float(np.mean(measured)) if measured is not None and measured.size and not reason else None
        why = reason or "no week of the window has a measurable one"
        return declared_stat(
            NeutralIc, name, value, why + (NOT_NEUTRALISED if name == "mean_neutral_ic" else ""), context
        )

    return NeutralIc(
        signal="raw_score" if raw else "score",
        attributed_mean_ic=stat("attributed_mean_ic", None if found is None else found.ic, ic_reason),
        mean_neutral_ic=stat(
            "mean_neutral_ic", None if found is None else found.neutral, ic_reason or factor_reason
        ),
        weeks=[] if found is None else found.rows[span],
    )
