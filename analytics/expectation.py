"""What an alpha is expected to do live, with its uncertainty (`/analytics/expectation`; issue 59,
item 2; docs/analytics.md, "Expectation: empirical Bayes shrinkage").

A backtest's information ratio is one draw around the alpha's true one; among a group of alphas
made alike (a trial family, else the catalogue) the spread of the backtests is the spread of the
true figures plus the noise of each estimate. Empirical Bayes (the random-effects model of a
meta-analysis: Jensen, Kelly and Pedersen 2023 for factors, Chen and Zimmermann 2020 for
anomalies) separates the two and shrinks each alpha toward the group's mean by its own noise:

    x_i ~ N(theta_i, s_i^2),  theta_i ~ N(m, tau^2)
    posterior mean  m + B (x - m),  B = tau^2 / (tau^2 + s^2)
    posterior var   B s^2 + (1 - B)^2 var(m)

m and tau^2 by DerSimonian and Laird's (1986) method of moments (tau^2 >= 0); var(m) = 1 / sum of
the weights 1 / (s_i^2 + tau^2) is the group mean's own uncertainty (Morris 1983), which keeps the
interval of a group without spread (tau = 0: every posterior is the group's mean) from collapsing
to a point. A family of pure noise has tau near 0 and every member near its mean; a family with a
real spread keeps its order (B is nearly the same for every member, the standard errors being of
the same sample length).

s_i is the iid standard error of the figure: for the information ratio Lo's (2002) and Mertens's
sqrt((1 + SR^2 / 2) / (n - 1)) per session (`analytics.false_discovery.sharpe_ratio_sd` at normal
moments), times sqrt(sessions a year); for the mean weekly IC sd / sqrt(weeks).

The members' figures are read from the catalogue's matrices of one generation (each member's
long_short daily returns and weekly IC up to its own split, the index's `live_split`) and kept
with the matrix: computed once per generation, not per request. The alpha's own figure is its
build's at the served split (`analytics.live.split_of`), /analytics/decay's backtest.

The expected live figure is the posterior times the retention /analytics/decay calibrates on the
approved alphas' live tracks (its `haircut`, asked, never fitted again); each live week's figure to
date is placed in the predictive distribution over that many observations: the expectation's
variance plus the sampling variance of a figure estimated on them.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pyarrow as pa

from analytics import inputs, live
from analytics.access import Access, withheld
from analytics.costs import information_ratio
from analytics.entries import Warnings, conventions
from analytics.false_discovery import sharpe_ratio_sd
from analytics.live import Split
from analytics.sharpe_inference import variance_factor
from analytics.variance import ROUNDING
from datasets.catalogue_snapshot import Matrix
from datasets.reader import BuildView
from schemas.bodies.decay import LiveHaircut
from schemas.bodies.expectation import (
    CREDIBLE_LEVEL,
    MIN_GROUP_MEMBERS,
    Expectation,
    ExpectedSeries,
    ExpectedSeriesName,
    ExpectedWeek,
    GroupKind,
)
from schemas.conventions import SESSIONS_PER_YEAR

NORMAL = NormalDist()
Z = NORMAL.inv_cdf(0.5 + CREDIBLE_LEVEL / 2.0)
MIN_OBSERVATIONS = 3
"""Observations below which a figure has no standard error worth the name (a Sharpe ratio's needs
2; a member with fewer is left out of its group)."""
BOOK = "long_short"
"""The book the catalogue's matrices and index hold: the one book every member has."""


@dataclass(frozen=True)
class Measured:
    """A backtest figure, its iid standard error and its observations."""

    value: float
    standard_error: float
    observations: int


def _moments(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of `rows` (NaN: no value): the finite values' count, mean and std (ddof 1), the std
    NaN below MIN_OBSERVATIONS values or where the variance is rounding (`analytics.variance`'s
    rule, `measurable_std`, over every row at once)."""
    finite = np.isfinite(rows)
    n = finite.sum(axis=1)
    x = np.where(finite, rows, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = x.sum(axis=1) / n
        deviations = np.where(finite, rows - mean[:, None], 0.0)
        squares = (deviations * deviations).sum(axis=1)
        sd = np.sqrt(squares / (n - 1))
    measurable = (n >= MIN_OBSERVATIONS) & (squares > ROUNDING * (x * x).sum(axis=1))
    return n, mean, np.where(measurable, sd, np.nan)


def ir_rows(returns: np.ndarray, per_year: int) -> list[Measured | None]:
    """Per row of daily returns: the annualised information ratio of its finite values and its
    standard error (Mertens's i.i.d. one, `sharpe_ratio_sd`); None where not measurable."""
    n, mean, sd = _moments(returns)
    scale = math.sqrt(per_year)
    with np.errstate(divide="ignore", invalid="ignore"):
        sr = mean / sd
        se = np.sqrt(variance_factor(sr, 0.0, 3.0) / (n - 1)) * scale
    return [
        Measured(float(s * scale), float(e), int(k)) if math.isfinite(s) else None
        for s, e, k in zip(sr.tolist(), se.tolist(), n.tolist(), strict=True)
    ]


def ir_measured(returns: np.ndarray, per_year: int) -> Measured | None:
    """The annualised information ratio of the finite daily returns and its standard error."""
    return ir_rows(np.asarray(returns, dtype=np.float64)[None, :], per_year)[0]


def member_ir(rows: np.ndarray) -> list[Measured | None]:
    """Members' information ratios from rows of the catalogue's returns matrix, which holds no
    run's conventions: annualised by the service's sessions a year."""
    return ir_rows(rows, SESSIONS_PER_YEAR)


def ic_rows(rows: np.ndarray) -> list[Measured | None]:
    """Per row of weekly ICs: the mean of its finite values and its standard error."""
    n, mean, sd = _moments(rows)
    with np.errstate(invalid="ignore"):
        se = sd / np.sqrt(n)
    return [
        Measured(float(m), float(e), int(k)) if math.isfinite(e) else None
        for m, e, k in zip(mean.tolist(), se.tolist(), n.tolist(), strict=True)
    ]


def ic_measured(values: np.ndarray) -> Measured | None:
    """The mean of the finite weekly ICs and its standard error."""
    return ic_rows(np.asarray(values, dtype=np.float64)[None, :])[0]


@dataclass(frozen=True)
class Group:
    """The group's mean, its standard error and the between-alpha variance tau^2."""

    mean: float
    mean_standard_error: float
    tau2: float


def dersimonian_laird(x: np.ndarray, se: np.ndarray) -> Group:
    """The random-effects mean and between-alpha variance by DerSimonian and Laird's moments."""
    v = 1.0 / se**2
    fixed = float(v @ x / v.sum())
    q = float(v @ (x - fixed) ** 2)
    c = float(v.sum() - (v @ v) / v.sum())
    tau2 = max(0.0, (q - (x.size - 1)) / c) if c > 0 else 0.0
    w = 1.0 / (se**2 + tau2)
    return Group(float(w @ x / w.sum()), math.sqrt(1.0 / float(w.sum())), tau2)


@dataclass(frozen=True)
class Posterior:
    mean: float
    sd: float
    weight: float  # B


def posterior(x: float, se: float, group: Group | None) -> Posterior:
    """The alpha's figure shrunk toward the group (None: no group, the figure as it is)."""
    if group is None:
        return Posterior(x, se, 1.0)
    b = group.tau2 / (group.tau2 + se * se)
    variance = b * se * se + (1.0 - b) ** 2 * group.mean_standard_error**2
    return Posterior(group.mean + b * (x - group.mean), math.sqrt(variance), b)


def expected_live(found: Posterior, retention: float, retention_se: float | None) -> tuple[float, float]:
    """The posterior times the retention and its standard deviation (the exact variance of a product
    of independent variables); a posterior not above 0 as it is (the retention is fitted on positive
    backtests: applied to a loss it would shrink it)."""
    if not found.mean > 0:
        return found.mean, found.sd
    s = retention_se or 0.0
    variance = retention**2 * found.sd**2 + (found.mean**2 + found.sd**2) * s * s
    return retention * found.mean, math.sqrt(variance)


# -- the members' figures, once per catalogue generation ---------------------------------------------

_kept_lock = threading.Lock()


@dataclass(frozen=True)
class _Kept:
    """What one matrix of a generation keeps: each alpha's split day and its measured figures."""

    splits: dict[str, int | None]
    figures: dict[str, Measured | None]


ROWS_AT_ONCE = 4096
"""Members measured by one pass over their matrix rows (memory: that many rows of the matrix in
float64)."""


def member_figures(
    matrix: Matrix,
    index: pa.Table,
    members: Sequence[str],
    measure: Callable[[np.ndarray], list[Measured | None]],
    ic: bool,
) -> list[Measured | None]:
    """Each member's backtest figure from its matrix row up to its own split (the index's
    `live_split`; none: the whole row), kept with the matrix (one generation) so each is measured
    once; a member without a row is None. `measure` takes rows: the members without a split are
    measured ROWS_AT_ONCE rows a pass (at 10^5 members a worker's first expectation took 13.8 s
    of CPU one alpha at a time), those with one (few: the promoted) one by one."""
    with _kept_lock:
        kept = matrix.memo.get("expectation")
        if not isinstance(kept, _Kept):
            kept = matrix.memo["expectation"] = _Kept(_splits(index), {})
        figures = kept.figures
        whole = []
        for alpha in dict.fromkeys(members):
            if alpha in figures:
                continue
            split = kept.splits.get(alpha)
            if alpha not in matrix.rows:
                figures[alpha] = None
            elif split is None:
                whole.append(alpha)
            else:
                figures[alpha] = _member(matrix, alpha, split, measure, ic)
        for start in range(0, len(whole), ROWS_AT_ONCE):
            chunk = whole[start : start + ROWS_AT_ONCE]
            rows = np.asarray(matrix.values[[matrix.rows[a] for a in chunk]], dtype=np.float64)
            figures.update(zip(chunk, measure(rows), strict=True))
        return [figures[alpha] for alpha in members]


def _splits(index: pa.Table) -> dict[str, int | None]:
    if "live_split" not in index.column_names:
        return {}
    ids = index.column("alpha_id").to_pylist()
    days = index.column("live_split").cast(pa.int32()).to_pylist()
    return dict(zip(ids, days, strict=True))


def _member(
    matrix: Matrix, alpha: str, split: int, measure: Callable[[np.ndarray], list[Measured | None]], ic: bool
) -> Measured | None:
    days, values = matrix.series(alpha)
    # A weekly IC is the backtest's when its forward return is realised by the split (live's rule).
    inside = live.in_sample_weeks(days, split) if ic else days <= split
    return measure(values[inside][None, :])[0]


# -- the answer ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupChoice:
    """The group an alpha is shrunk toward: its name (None: the catalogue), kind and readable ids."""

    name: str | None
    kind: GroupKind
    ids: list[str]


def group_of(
    family: str | None, family_ids: list[str], catalogue_ids: list[str], warnings: Warnings
) -> GroupChoice:
    """The alpha's trial family when the reader may read MIN_GROUP_MEMBERS of it, else the catalogue
    (with a warning when a family was too small)."""
    if family is not None and len(family_ids) >= MIN_GROUP_MEMBERS:
        return GroupChoice(family, "family", family_ids)
    if family is not None:
        warnings.add(
            "insufficient_data",
            f"this key may read {len(family_ids)} member(s) of family {family}, fewer than {MIN_GROUP_MEMBERS}: "
            "the alpha is shrunk toward every alpha it may read instead",
        )
    return GroupChoice(None, "catalogue", catalogue_ids)


@dataclass(frozen=True)
class Track:
    """A live series: the date of each observation and its value, in order."""

    days: np.ndarray
    values: np.ndarray
    per_year: int = SESSIONS_PER_YEAR  # the annualisation of an information ratio's track


@dataclass(frozen=True)
class _Toward:
    """What each series is shrunk toward and cut by: the group's members' figures (`members(series)`,
    in the group's order), and the live haircut's retention, its standard error and why it is not
    measured when it is not."""

    members: Callable[[ExpectedSeriesName], list[Measured | None]]
    retention: float | None
    retention_se: float | None
    retention_reason: str


def expectation_payload(
    view: BuildView,
    split: Split,
    group: GroupChoice,
    members: Callable[[ExpectedSeriesName], list[Measured | None]],
    cut: LiveHaircut,
    access: Access,
    warnings: Warnings,
) -> Expectation:
    """`/analytics/expectation` of `view`'s alpha at `split`, shrunk toward `group` (`members(series)`:
    the group's members' figures, in `group.ids` order), the retention `cut`'s."""
    per_year = conventions(view).sessions_per_year
    toward = _Toward(
        members,
        cut.retention.value,
        cut.haircut_standard_error.value,
        cut.retention.withheld_reason or "not measurable",
    )
    series = [
        _ir_series(view, split, toward, per_year, access, warnings),
        _ic_series(view, split, toward, access, warnings),
    ]
    return Expectation(
        alpha=view.alpha_id,
        split_date=split.date,
        split_origin=split.origin,
        live=split.origin == "approval",
        group=group.name,
        group_kind=group.kind,
        group_members=len(group.ids),
        live_haircut=cut,
        series=series,
    )


def _ir_series(
    view: BuildView, split: Split, toward: _Toward, per_year: int, access: Access, warnings: Warnings
) -> ExpectedSeries:
    name: ExpectedSeriesName = "information_ratio"
    if not access.ledger:
        return _unmeasured(name, withheld("ledger", "expectation.series[information_ratio]", warnings))
    ledger = inputs.ledger(view, BOOK)
    if ledger is None:
        return _unmeasured(name, "the run sealed no long_short ledger")
    backtest, after = ledger.split(split.date)
    own = ir_measured(backtest.returns, per_year)
    if own is None:
        return _unmeasured(name, f"fewer than {MIN_OBSERVATIONS} backtest sessions with variance")
    track = None
    if split.date is not None:
        if split.end is not None:
            after = after.window((None, split.end))
        track = Track(after.days, after.returns, per_year)

    def sampling(expected: float, n: int) -> float | None:
        if n < 2:
            return None
        scale = math.sqrt(per_year)
        return (sharpe_ratio_sd(expected / scale, n) * scale) ** 2

    return _series(name, own, toward, track, _ir_weeks, sampling, warnings)


def _ic_series(
    view: BuildView, split: Split, toward: _Toward, access: Access, warnings: Warnings
) -> ExpectedSeries:
    name: ExpectedSeriesName = "rebuilt_mean_ic"
    if not access.cross_sections:
        return _unmeasured(name, withheld("cross_sections", "expectation.series[rebuilt_mean_ic]", warnings))
    found = inputs.weekly_ic(view)
    if found is None:
        return _unmeasured(name, "the run sealed no rebalance cross-sections")
    inside = np.ones(found.days.size, dtype=bool)
    track = None
    if split.date is not None:
        split_day = (split.date - dt.date(1970, 1, 1)).days
        inside = live.in_sample_weeks(found.days, split_day)
        after = ~inside
        if split.end is not None:
            after &= live.realised_days(found.days) <= (split.end - dt.date(1970, 1, 1)).days
        kept = after & np.isfinite(found.values)
        track = Track(found.days[kept], found.values[kept])
    own = ic_measured(found.values[inside])
    if own is None:
        return _unmeasured(name, f"fewer than {MIN_OBSERVATIONS} backtest weeks with an IC, or no spread")
    sd = own.standard_error * math.sqrt(own.observations)  # the backtest's weekly IC sd

    def sampling(_: float, k: int) -> float | None:
        return sd * sd / k if k >= 1 else None

    return _series(name, own, toward, track, _ic_weeks, sampling, warnings)


def _series(
    name: ExpectedSeriesName,
    own: Measured,
    toward: _Toward,
    track: Track | None,
    weekly: Callable[[Track], list[tuple[dt.date, int, float | None]]],
    sampling: Callable[[float, int], float | None],
    warnings: Warnings,
) -> ExpectedSeries:
    measured = [f for f in toward.members(name) if f is not None]
    estimate = None
    if len(measured) >= MIN_GROUP_MEMBERS:
        estimate = dersimonian_laird(
            np.array([f.value for f in measured]), np.array([f.standard_error for f in measured])
        )
    else:
        warnings.add(
            "insufficient_data",
            f"{name}: {len(measured)} member(s) of the group with the figure measured, fewer than "
            f"{MIN_GROUP_MEMBERS}: not shrunk (the posterior is the alpha's own figure and standard error)",
        )
    found = posterior(own.value, own.standard_error, estimate)
    expected = expected_sd = None
    if toward.retention is not None:
        expected, expected_sd = expected_live(found, toward.retention, toward.retention_se)
    weeks: list[ExpectedWeek] = []
    if track is not None:
        for date, n, value in weekly(track):
            lower = upper = percentile = None
            extra = None if expected is None else sampling(expected, n)
            if expected is not None and expected_sd is not None and extra is not None:
                spread = math.sqrt(expected_sd**2 + extra)
                lower, upper = expected - Z * spread, expected + Z * spread
                if value is not None and spread > 0:
                    percentile = 100.0 * NORMAL.cdf((value - expected) / spread)
            weeks.append(
                ExpectedWeek(
                    date=date,
                    observations_to_date=n,
                    live_to_date=value,
                    predictive_lower=lower,
                    predictive_upper=upper,
                    percentile=percentile,
                )
            )
    return ExpectedSeries(
        series=name,
        withheld_reason=None
        if expected is not None
        else f"expected_live not measurable: {toward.retention_reason}",
        shrinkage="none" if estimate is None else "empirical_bayes",
        measured_members=len(measured),
        backtest_value=own.value,
        backtest_observations=own.observations,
        backtest_standard_error=own.standard_error,
        group_mean=None if estimate is None else estimate.mean,
        group_mean_standard_error=None if estimate is None else estimate.mean_standard_error,
        between_alpha_sd=None if estimate is None else math.sqrt(estimate.tau2),
        shrinkage_weight=found.weight,
        posterior_mean=found.mean,
        posterior_sd=found.sd,
        posterior_lower=found.mean - Z * found.sd,
        posterior_upper=found.mean + Z * found.sd,
        expected_live=expected,
        expected_live_sd=expected_sd,
        expected_live_lower=None if expected is None or expected_sd is None else expected - Z * expected_sd,
        expected_live_upper=None if expected is None or expected_sd is None else expected + Z * expected_sd,
        weeks=weeks,
    )


def _ir_weeks(track: Track) -> list[tuple[dt.date, int, float | None]]:
    """The live sessions by calendar week (Monday to Sunday, monitoring's rule), each week with the
    sessions to its end and the information ratio over them."""
    days = track.days
    if days.size == 0:
        return []
    week = (days.astype(np.int64) + 3) // 7  # 1970-01-01 was a Thursday: Monday starts a week
    ends = np.flatnonzero(np.r_[week[1:] != week[:-1], True])
    out: list[tuple[dt.date, int, float | None]] = []
    for end in ends.tolist():
        r = track.values[: end + 1]
        value = information_ratio(r[np.isfinite(r)], track.per_year)
        out.append((_date(days[end]), end + 1, value if math.isfinite(value) else None))
    return out


def _ic_weeks(track: Track) -> list[tuple[dt.date, int, float | None]]:
    """Each live weekly IC with the mean of those up to it."""
    means = np.cumsum(track.values) / np.arange(1, track.values.size + 1)
    return [
        (_date(day), k + 1, float(mean)) for k, (day, mean) in enumerate(zip(track.days, means, strict=True))
    ]


def _date(day: object) -> dt.date:
    return dt.date(1970, 1, 1) + dt.timedelta(days=int(day))  # type: ignore[call-overload]


def _unmeasured(name: ExpectedSeriesName, reason: str) -> ExpectedSeries:
    return ExpectedSeries(
        series=name,
        withheld_reason=reason,
        shrinkage=None,
        measured_members=0,
        backtest_value=None,
        backtest_observations=0,
        backtest_standard_error=None,
        group_mean=None,
        group_mean_standard_error=None,
        between_alpha_sd=None,
        shrinkage_weight=None,
        posterior_mean=None,
        posterior_sd=None,
        posterior_lower=None,
        posterior_upper=None,
        expected_live=None,
        expected_live_sd=None,
        expected_live_lower=None,
        expected_live_upper=None,
        weeks=[],
    )


# -- the one expected live level (issue 81, item 4) -------------------------------------------------


@dataclass(frozen=True)
class Levels:
    """What an alpha is expected to show live, as every surface asks it (the CUSUM's in-control
    levels, the drawdown odds' simulated level, the approved book's health, the dashboard): the
    expected live information ratio of its long_short book and its expected live mean weekly IC,
    each None with the reason when not measurable."""

    information_ratio: float | None
    information_ratio_reason: str | None
    mean_ic: float | None
    mean_ic_reason: str | None


def expected_levels(answer: Expectation) -> Levels:
    """THE expected live information ratio (and mean weekly IC) of an alpha: `/analytics/expectation`'s
    `expected_live` of each series, the backtest shrunk toward its group then cut by decay's retention.
    Declared once here; `/analytics/decay`'s `haircut_information_ratio` (the backtest cut, not shrunk)
    is another figure with its own name (docs/analytics.md, "One expected live information ratio")."""
    found = {s.series: s for s in answer.series}

    def level(name: ExpectedSeriesName) -> tuple[float | None, str | None]:
        series = found.get(name)
        if series is None:
            return None, f"/analytics/expectation serves no {name} series"
        if series.expected_live is None:
            return None, series.withheld_reason or "not measurable"
        return series.expected_live, None

    ir, ir_reason = level("information_ratio")
    ic, ic_reason = level("rebuilt_mean_ic")
    return Levels(ir, ir_reason, ic, ic_reason)


def not_of_book(book: str) -> Levels:
    """The levels of a book other than long_short: none, said why (the groups an expectation is shrunk
    toward are of the long_short book, the one every member has)."""
    reason = (
        f"the expected live information ratio is of the {BOOK} book (/analytics/expectation: the groups it is "
        f"shrunk toward hold that book alone); the {book} book has none"
    )
    return Levels(None, reason, None, reason)
