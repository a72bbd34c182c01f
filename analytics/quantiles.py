"""Quantile returns (`/analytics/quantiles`): alphalens' quantile and information tear sheets over a
window of rebalance weeks (docs/analytics.md, "Quantile returns").

Once per build, in the pipeline (`weekly_quantiles`): for each score (`score`, `raw_score`), each
quantile count q = 2..10 and each rebalance week, the names with a finite score and forward return
are bucketed as alphalens buckets them (`pd.qcut(score, q, labels=False) + 1`),
and each quantile's names and equal-weighted mean forward return are kept (the lake's
`analytics_quantiles`). A request reads one (score, q) slice of that table and aggregates the
window's weeks: the mean of the weekly means and its standard error, the compounded curves, the
top-minus-bottom spread and its Newey-West t-statistic; the IC by month is the weekly IC /metrics
serves (`weekly_signal`), grouped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from analytics import compounding
from analytics.access import Access, withheld
from analytics.entries import Warnings, declared_stat, number, window_echo
from analytics.errors import AnalyticsNotBuilt, BadParameters
from analytics.inputs import require_window_sessions
from analytics.newey_west import InsufficientData, NonpositiveVariance, newey_west_mean
from datasets.queries import Window, window_bounds
from datasets.reader import BuildView
from datasets.rows import EPOCH, floats
from schemas import wire
from schemas.bodies.quantiles import (
    ASSIGNMENT,
    NEWEY_WEST_MIN_N,
    QUANTILES_MAX,
    QUANTILES_MIN,
    IcBySector,
    MonthIc,
    MonthOfYearIc,
    QuantileBucket,
    Quantiles,
    QuantileScore,
    QuantileSpread,
    SectorIc,
)

TABLE = "analytics_quantiles"
SECTOR_TABLE = "analytics_sector_ic"
COUNTS = tuple(range(QUANTILES_MIN, QUANTILES_MAX + 1))
"""The quantile counts precomputed per build (every count a request may ask for)."""
MIN_WINDOW_WEEKS = 2
"""Bucketed weeks a window needs (a standard error needs 2); fewer, while the history holds
enough, is a 400 naming from/to."""
IC_COLUMNS = {"score": ("ic", "n_ic_obs"), "raw_score": ("raw_ic", "n_raw_ic_obs")}
"""The weekly IC /metrics serves for each score, and its pairs (names with both sides)."""
EPOCH_DAY = np.datetime64(EPOCH, "D")


# -- the assignment (pipeline) ----------------------------------------------------------------------


def levels(q: int) -> np.ndarray:
    """The quantile levels k/q (k = 0..q), each rounded up to the next float where k/q is not
    exactly one (pandas' qcut, so a level never falls short of the interpolation it names)."""
    found = np.linspace(0, 1, q + 1)
    return np.where(q * found != np.arange(q + 1), np.nextafter(found, 1), found)


_LEVELS = np.concatenate([levels(q) for q in COUNTS])
_OFFSETS = np.cumsum([0, *(q + 1 for q in COUNTS)])


def weekly_quantiles(days: np.ndarray, scores: np.ndarray, forward: np.ndarray) -> dict[str, np.ndarray]:
    """One score's rows of `analytics_quantiles` (without its `score` column): for every quantile
    count q, bucketed week (`days` ascending, one entry per decision row) and quantile, the names
    and the mean forward return (NaN where the quantile is empty). Only names with a finite score
    and a finite forward return are bucketed, as alphalens' factor_data holds them; a week is
    bucketed when it holds at least q of them and its edges are distinct (pandas refuses equal
    edges: "Bin edges must be unique").

    pd.qcut's rule, `edge_(k-1) < score <= edge_k` with the lowest edge in quantile 1, read off
    each week's names sorted by score: quantile k is the run of names after those at or below
    edge_(k-1) up to those at or below edge_k."""
    keep = np.isfinite(scores) & np.isfinite(forward)
    d, x, y = days[keep], scores[keep], forward[keep]
    order = np.lexsort((x, d))  # by week, then by score
    d, x, y = d[order], x[order], y[order]
    padded = np.r_[y, 0.0]
    starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]]) if d.size else np.empty(0, np.int64)
    stops = np.r_[starts[1:], d.size].astype(np.int64)
    sizes = stops - starts
    # Each week's edges for every count at once (numpy interpolates each level on its own, so
    # they are the edges pd.qcut finds for that count alone), and how many of its names lie at or
    # below each edge.
    edges = np.full((starts.size, _LEVELS.size), np.nan)
    below = np.zeros((starts.size, _LEVELS.size), np.int64)
    for w, (a, b) in enumerate(zip(starts.tolist(), stops.tolist(), strict=True)):
        if b - a >= QUANTILES_MIN:
            edges[w] = np.quantile(x[a:b], _LEVELS)
            below[w] = a + np.searchsorted(x[a:b], edges[w], side="right")
    parts: dict[str, list[np.ndarray]] = {
        "quantiles": [],
        "date": [],
        "quantile": [],
        "names": [],
        "mean_forward_return": [],
    }
    for i, q in enumerate(COUNTS):
        cut = edges[:, _OFFSETS[i] : _OFFSETS[i + 1]]
        weeks = np.flatnonzero((sizes >= q) & np.all(cut[:, 1:] != cut[:, :-1], axis=1))
        bounds = below[weeks, _OFFSETS[i] : _OFFSETS[i + 1]]
        bounds[:, 0] = starts[weeks]  # the lowest edge is the week's lowest score: quantile 1 holds it
        names = np.diff(bounds, axis=1).ravel()
        held = names > 0
        runs = np.stack([bounds[:, :-1].ravel()[held], bounds[:, 1:].ravel()[held]], axis=1).ravel()
        means = np.full(names.size, np.nan)
        if runs.size:
            # Each held quantile's run of rows summed in score order: reduceat over (first, stop)
            # pairs, every other result (`padded`: a stop may be the last row's end).
            means[held] = np.add.reduceat(padded, runs)[::2] / names[held]
        parts["mean_forward_return"].append(means)
        parts["names"].append(names.astype(np.int32))
        parts["quantiles"].append(np.full(names.size, q, np.int8))
        parts["date"].append(np.repeat(d[starts[weeks]], q).astype(np.int32))
        parts["quantile"].append(np.tile(np.arange(1, q + 1, dtype=np.int8), weeks.size))
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


# -- a request --------------------------------------------------------------------------------------


_SCORES: dict[str, QuantileScore] = {"score": "score", "raw_score": "raw_score"}


def readable_score(score: str, raw: bool) -> QuantileScore:
    """The score a request buckets, checked: one of QUANTILE_SCORES, and `raw_score`, a raw-only
    field (`schemas.wire.RAW_FIELDS`), only for a key with raw-book access (a 400 naming `score`,
    as a raw_ book is an unknown book to such a key)."""
    found = _SCORES.get(score)
    if found is None:
        raise BadParameters({"score": f"must be one of {', '.join(_SCORES)}"})
    if wire.is_raw_field(found) and not raw:
        raise BadParameters(
            {"score": f"{score} is served only to keys with raw-book access; this key may bucket score only"}
        )
    return found


@dataclass(frozen=True)
class _Weeks:
    """One (score, q) slice of the build's table: its bucketed weeks (days since 1970, ascending)
    and, per week and quantile, the names and the mean forward return (NaN where empty)."""

    days: np.ndarray
    names: np.ndarray  # (weeks, q)
    means: np.ndarray  # (weeks, q)


def _weeks(view: BuildView, score: str, q: int) -> _Weeks | None:
    def read() -> _Weeks | None:
        table = view.table(TABLE)
        if table is None:
            return None
        keep = np.asarray(table.column("score").to_numpy(zero_copy_only=False) == score)
        keep &= table.column("quantiles").to_numpy() == q
        rows = table.filter(pa.array(keep))  # in (date, quantile) order, q rows per week
        days = rows.column("date").cast(pa.int32()).to_numpy()[::q]
        names = rows.column("names").to_numpy().reshape(-1, q)
        means = floats(rows.column("mean_forward_return")).reshape(-1, q)
        return _Weeks(days, names, means)

    return view.memo(f"analytics:quantiles:{score}:{q}", read)


@dataclass(frozen=True)
class _Signal:
    """The weekly IC /metrics uses for one score, and each week's pairs."""

    days: np.ndarray
    ic: np.ndarray
    pairs: np.ndarray


def _signal(view: BuildView, score: str) -> _Signal | None:
    def read() -> _Signal | None:
        table = view.table("weekly_signal")
        if table is None:
            return None
        ic, pairs = IC_COLUMNS[score]
        return _Signal(
            table.column("date").cast(pa.int32()).to_numpy(),
            floats(table.column(ic)),
            table.column(pairs).to_numpy(zero_copy_only=False),
        )

    return view.memo(f"analytics:quantiles_signal:{score}", read)


def _not_built(view: BuildView, table: str) -> AnalyticsNotBuilt:
    """503 `analytics_not_built` for a build published before `table` (issue 36's pipeline)."""
    return AnalyticsNotBuilt(
        f"The served build {view.build_id} of {view.alpha_id} was published before the {table} table; an "
        "operator rebuilds it with `alpha-results build`.",
        details={"build": view.build_id, "pipeline_version": view.entry.get("pipeline_version")},
    )


def _dates(days: np.ndarray) -> np.ndarray:
    """Days since 1970 as datetime64[D]."""
    return EPOCH_DAY + days.astype("timedelta64[D]")


def _compounded(weekly: np.ndarray) -> np.ndarray:
    """prod(1 + r) - 1 up to each week (down axis 0), a week without a value adding nothing
    (empyrical's cum_returns, which alphalens' cumulative_returns calls)."""
    return compounding.growth(weekly, axis=0) - 1.0


def _grouped(groups: np.ndarray, values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group 0..size-1: how many of its values are finite, and their mean (NaN for none)."""
    finite = np.isfinite(values)
    counts = np.bincount(groups[finite], minlength=size)
    sums = np.bincount(groups[finite], weights=values[finite], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts, np.where(counts > 0, sums / counts, np.nan)


def _buckets(
    names: np.ndarray, means: np.ndarray, reason: str, context: dict[str, str]
) -> list[QuantileBucket]:
    """Each quantile's figures over the window's weeks (`names`, `means`: weeks x quantiles, a
    quantile's mean NaN in a week it held no name)."""
    q = names.shape[1]
    held = names > 0
    weeks = held.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(weeks > 0, np.where(held, means, 0.0).sum(axis=0) / weeks, np.nan)
        squares = np.where(held, (means - mean) ** 2, 0.0).sum(axis=0)
        error = np.where(weeks >= 2, np.sqrt(squares / (weeks - 1)) / np.sqrt(weeks), np.nan)
        mean_names = np.where(weeks > 0, names.sum(axis=0) / weeks, np.nan)
    curves = _compounded(means).T.tolist()
    out = []
    for k in range(q):
        count = int(weeks[k])
        out.append(
            QuantileBucket(
                quantile=k + 1,
                label=f"Q{k + 1}",
                weeks=None if reason else count,
                mean_names=None if reason else number(float(mean_names[k])),
                mean_forward_return=declared_stat(
                    QuantileBucket,
                    "mean_forward_return",
                    None if reason else float(mean[k]),
                    reason or "the quantile held no name in the window",
                    context,
                ),
                standard_error=declared_stat(
                    QuantileBucket,
                    "standard_error",
                    None if reason else float(error[k]),
                    reason
                    or f"the quantile held names in {count} week(s) of the window; a standard error needs 2",
                    context,
                ),
                cumulative_return=None if reason else curves[k],
            )
        )
    return out


def _spread(q: int, means: np.ndarray, reason: str, context: dict[str, str]) -> QuantileSpread:
    weekly = means[:, q - 1] - means[:, 0] if means.size else np.empty(0)
    finite = weekly[np.isfinite(weekly)]
    mean = float(np.mean(finite)) if finite.size and not reason else None
    test = None
    test_reason = reason
    if not reason:
        try:
            test = newey_west_mean(finite)
        except InsufficientData:
            test_reason = f"{finite.size} week(s) with both quantiles in the window; Newey-West needs {NEWEY_WEST_MIN_N}"
        except NonpositiveVariance:
            test_reason = "the weekly spread does not vary: no t-statistic"

    return QuantileSpread(
        top=q,
        bottom=1,
        weeks=None if reason else int(finite.size),
        mean=declared_stat(
            QuantileSpread, "mean", mean, reason or "no week of the window holds both quantiles", context
        ),
        standard_error=declared_stat(
            QuantileSpread,
            "standard_error",
            None if test is None else test.standard_error,
            test_reason,
            context,
        ),
        t_statistic=declared_stat(
            QuantileSpread, "t_statistic", None if test is None else test.t_statistic, test_reason, context
        ),
        lag=None if test is None else test.lag,
        cumulative_return=None if reason else _compounded(weekly).tolist(),
    )


def _months(days: np.ndarray, ic: np.ndarray) -> tuple[list[MonthIc], list[MonthOfYearIc]]:
    """The weekly IC grouped by calendar month and by month of the year (`days`: the window's
    weeks, `ic` NaN where not measurable); a month is listed when it holds a week."""
    if days.size == 0:
        return [], []
    months = _dates(days).astype("datetime64[M]").astype(np.int64)
    first = int(months[0])
    index = months - first
    present = np.flatnonzero(np.bincount(index))
    weeks, mean = _grouped(index, ic, int(index[-1]) + 1)
    by_month = [
        MonthIc(
            month=f"{1970 + (first + i) // 12:04d}-{(first + i) % 12 + 1:02d}",
            weeks=int(weeks[i]),
            rebuilt_mean_ic=number(float(mean[i])),
        )
        for i in present.tolist()
    ]
    of_year = months % 12
    years = np.bincount((present + first) % 12, minlength=12)
    weeks, mean = _grouped(of_year, ic, 12)
    by_month_of_year = [
        MonthOfYearIc(
            month=m + 1, years=int(years[m]), weeks=int(weeks[m]), rebuilt_mean_ic=number(float(mean[m]))
        )
        for m in np.flatnonzero(years).tolist()
    ]
    return by_month, by_month_of_year


@dataclass(frozen=True)
class _SectorWeeks:
    """One score's rows of the build's `analytics_sector_ic`, by week (days ascending)."""

    days: np.ndarray
    sector: np.ndarray  # index into `names_of`
    names_of: tuple[str, ...]  # the sectors, sorted
    ic: np.ndarray  # NaN where not measurable
    names: np.ndarray


def _sector_weeks(view: BuildView, score: str) -> _SectorWeeks | None:
    def read() -> _SectorWeeks | None:
        table = view.table(SECTOR_TABLE)
        if table is None:
            return None
        rows = table.filter(
            pa.array(np.asarray(table.column("score").to_numpy(zero_copy_only=False) == score))
        )
        names_of, sector = np.unique(
            rows.column("sector").to_numpy(zero_copy_only=False), return_inverse=True
        )
        return _SectorWeeks(
            rows.column("date").cast(pa.int32()).to_numpy(),
            sector,
            tuple(str(name) for name in names_of),
            floats(rows.column("ic")),
            rows.column("names").to_numpy(),
        )

    return view.memo(f"analytics:quantiles_sectors:{score}", read)


def _sectors(view: BuildView, score: str, window: Window, reason: str, context: dict[str, str]) -> IcBySector:
    """The mean rank IC within each sector over the window's weeks (alphalens
    mean_information_coefficient(by_group=True)); not measurable without exposures."""
    if not reason and "exposures" not in view.kinds_present:
        reason = "missing_kind: the run sealed no exposures, so its names have no sector"
    found = None if reason else _sector_weeks(view, score)
    if not reason and found is None:
        raise _not_built(view, SECTOR_TABLE)
    if found is None:
        return IcBySector(status="not_measurable", withheld_reason=reason, sectors=None)
    a, b = window_bounds(found.days, window)
    sector, ic, names = found.sector[a:b], found.ic[a:b], found.names[a:b]
    size = len(found.names_of)
    weeks, mean = _grouped(sector, ic, size)
    measured = np.isfinite(ic)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_names = np.bincount(sector[measured], weights=names[measured], minlength=size) / weeks
    rows = [
        SectorIc(
            sector=found.names_of[k],
            weeks=int(weeks[k]),
            sector_mean_names=number(float(mean_names[k])),
            sector_mean_ic=declared_stat(
                SectorIc,
                "sector_mean_ic",
                float(mean[k]),
                "no week of the window has 3 names of the sector with a score and a forward return, not all equal",
                context,
            ),
        )
        for k in np.flatnonzero(np.bincount(sector, minlength=size)).tolist()
    ]
    return IcBySector(status="available", sectors=rows)


def quantiles_payload(
    view: BuildView, score: QuantileScore, q: int, window: Window, access: Access, warnings: Warnings
) -> Quantiles:
    """The quantile returns of `score` in `q` quantiles over the window's rebalance weeks
    (docs/analytics.md, "Quantile returns"); `score` readable by the caller (`readable_score`)."""
    if not QUANTILES_MIN <= q <= QUANTILES_MAX:
        raise BadParameters({"quantiles": f"must be an integer from {QUANTILES_MIN} to {QUANTILES_MAX}"})
    context = {"score_field": score, "ic_column": IC_COLUMNS[score][0]}
    weeks = _weeks(view, score, q)
    signal = _signal(view, score)
    reason = ""
    if not access.cross_sections:
        reason = withheld("cross_sections", "quantiles", warnings)
    elif signal is None:
        reason = "the run sealed no decisions (no cross-sections to bucket)"
    elif weeks is None:
        raise _not_built(view, TABLE)
    if weeks is None or reason:
        weeks = _Weeks(np.empty(0, np.int32), np.zeros((0, q), np.int32), np.zeros((0, q)))
    a, b = window_bounds(weeks.days, window)
    if not reason:
        require_window_sessions(
            b - a,
            weeks.days.size,
            window,
            MIN_WINDOW_WEEKS,
            "bucketed rebalance weeks",
            "bucketed rebalance week",
        )
    names, means = weeks.names[a:b], weeks.means[a:b]
    paired = 0
    by_month: list[MonthIc] | None = None
    by_month_of_year: list[MonthOfYearIc] | None = None
    if signal is not None and not reason:
        c, d = window_bounds(signal.days, window)
        paired = int(np.count_nonzero(signal.pairs[c:d] > 0))
        by_month, by_month_of_year = _months(signal.days[c:d], signal.ic[c:d])
    sectors = _sectors(view, score, window, reason, context)
    return Quantiles(
        alpha=view.alpha_id,
        score_field=score,
        signal="raw" if score == "raw_score" else "conditioned",
        quantiles=q,
        assignment=ASSIGNMENT,
        window=window_echo(window),
        weeks=None if reason else paired,
        bucketed_weeks=None if reason else b - a,
        skipped_weeks=None if reason else paired - (b - a),
        dates=None if reason else _dates(weeks.days[a:b]).tolist(),
        buckets=_buckets(names, means, reason, context),
        spread=_spread(q, means, reason, context),
        ic_by_month=by_month,
        ic_by_month_of_year=by_month_of_year,
        ic_by_sector=sectors,
    )
