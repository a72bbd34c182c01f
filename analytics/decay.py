"""Decay and the expected live haircut (`/analytics/decay`; issue 50, item 7; docs/analytics.md,
"Decay and the expected live haircut").

The IC's half-life by forecast horizon: the h-week IC of the term structure (`/metrics`
panel.ic_term_structure, the build's `weekly_term` table) is the IC of the compounded h-week return,
which sums the weeks' returns: with a marginal IC of the k-th week's return ic_1 * exp(-lambda (k-1))
and weekly returns of equal variance and uncorrelated, sqrt(h) * IC(h) = ic_1 * g_h(lambda),
g_h = sum_{k=1..h} exp(-lambda (k-1)). Fitting IC(h) itself to an exponential would read a
persistent signal's rising h-week IC (momentum's) as "no decay"; the marginal IC is what decays.
For a given lambda the least-squares ic_1 is closed-form; lambda minimises the profiled squared error
(bounded Brent search).

The expected live information ratio: the book's backtest information ratio (`/analytics/live`
in_sample at the alpha's split) times the retention the catalogue's own approved alphas show live
(their index rows' live against backtest, `analytics.live.index_columns`): the least-squares slope
through the origin of live on backtest information ratio, with its standard error and the
leave-one-out RMSE of the prediction; the literature's (McLean and Pontiff 2016, 26% lower out of
sample) below CALIBRATION_MIN_ALPHAS such alphas. Only alphas the reader may read are counted, and
never the alpha asked about (the expectation is ex ante).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics import live
from analytics.access import Access, withheld
from analytics.entries import Warnings, conventions, declared_stat
from analytics.metrics.inputs import metrics_inputs
from datasets.reader import BuildView
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.decay import (
    CALIBRATION_MIN_ALPHAS,
    CALIBRATION_MIN_SESSIONS,
    DECAY_HORIZONS,
    DECAY_RATE_BOUNDS,
    LITERATURE,
    LITERATURE_HAIRCUT,
    Calibration,
    Decay,
    DecayPoint,
    IcDecay,
    LiveHaircut,
)

INDEX_COLUMNS = (
    "alpha_id",
    "live_split_origin",
    "live_sessions",
    "backtest_information_ratio",
    "live_information_ratio",
)
"""What the calibration reads of the catalogue index."""
BOUND_TOLERANCE = 1e-6
"""A fitted rate this close to a bound of DECAY_RATE_BOUNDS is the bound's."""


@dataclass(frozen=True)
class Fit:
    """The fitted decay: lambda (per week) and ic_1."""

    rate: float
    ic_1: float


def g(rate: float, horizons: np.ndarray) -> np.ndarray:
    """sum_{k=1..h} exp(-rate (k - 1)) for each h."""
    return np.array([np.exp(-rate * np.arange(h)).sum() for h in horizons])


def fit_decay(horizons: np.ndarray, mean_ic: np.ndarray) -> Fit:
    """The least-squares fit of sqrt(h) * mean_ic to ic_1 * g_h(rate) (module docstring)."""
    y = np.sqrt(horizons) * mean_ic

    def scale(rate: float) -> float:
        x = g(rate, horizons)
        return float(x @ y / (x @ x))

    def sse(rate: float) -> float:
        x = g(rate, horizons)
        return float(np.sum((y - scale(rate) * x) ** 2))

    def slope(rate: float) -> float:
        """The sign of d(SSE)/d(rate): (x . y)(x . x') - (x' . y)(x . x), x' = dx/d(rate)."""
        x = g(rate, horizons)
        dx = -np.array([(np.arange(h) * np.exp(-rate * np.arange(h))).sum() for h in horizons])
        return float((x @ y) * (x @ dx) - (dx @ y) * (x @ x))

    # When used: scipy imports slowly (analytics.LAZY_MODULES; a worker imports it before it is ready).
    from scipy.optimize import brentq, minimize_scalar

    found = minimize_scalar(sse, bounds=DECAY_RATE_BOUNDS, method="bounded", options={"xatol": 1e-10})
    rate = float(found.x)
    # Brent on the squared error stops where it is flat to rounding (a relative 1e-5 in the rate):
    # the root of its derivative, bracketed around that point, is the minimum to the last bits.
    low, high = max(DECAY_RATE_BOUNDS[0], rate - 1e-3), min(DECAY_RATE_BOUNDS[1], rate + 1e-3)
    if slope(low) < 0 < slope(high):
        rate = float(brentq(slope, low, high, xtol=1e-15, rtol=4 * np.finfo(float).eps))
    return Fit(rate, scale(rate))


def term_means(view: BuildView) -> dict[int, float | None]:
    """Mean IC by horizon over the whole history, as /metrics panel.ic_term_structure."""
    term = metrics_inputs(view).weekly_term
    out: dict[int, float | None] = {}
    for h in DECAY_HORIZONS:
        if term is None:
            out[h] = None
            continue
        values = term["ic"][term["horizon_weeks"] == h]
        values = values[np.isfinite(values)]
        out[h] = float(values.mean()) if values.size else None
    return out


def ic_decay(view: BuildView, access: Access, warnings: Warnings) -> IcDecay:
    """The IC's decay of `view`'s build: computed once per build (it depends on nothing else), or
    withheld from a reader without the cross-sections."""
    if not access.cross_sections:
        return _ic_decay(view, withheld("cross_sections", "decay.ic_decay", warnings))
    return view.memo("ic_decay", lambda: _ic_decay(view, ""))


def _ic_decay(view: BuildView, reason: str) -> IcDecay:
    means: dict[int, float | None] = dict.fromkeys(DECAY_HORIZONS)
    if not reason and metrics_inputs(view).weekly_term is None:
        reason = "the run sealed no decisions (no IC term structure)"
    elif not reason:
        means = term_means(view)
    measured = [h for h in DECAY_HORIZONS if means[h] is not None]
    if not reason and len(measured) < 3:
        reason = f"{len(measured)} horizons with a mean IC; the fit needs at least 3"
    first = means[DECAY_HORIZONS[0]]
    if not reason and not (first is not None and first > 0):
        reason = "the 1-week mean IC is not positive: no IC to decay"
    fit = None
    if not reason:
        fit = fit_decay(np.array(measured, dtype=float), np.array([means[k] for k in measured], dtype=float))
        low, high = DECAY_RATE_BOUNDS
        if not low + BOUND_TOLERANCE < fit.rate < high - BOUND_TOLERANCE:
            # A rate on the search's bound is the bound's, not the data's: the term structure falls
            # faster than its horizons resolve (reversing, at `high`) or grows (at `low`).
            reason = (
                f"the fit reached the bound of its search ({fit.rate:.3g} per week, searched in [{low:g}, {high:g}]): "
                + (
                    "the IC falls or reverses within the first week"
                    if fit.rate > 0
                    else "the IC grows with the horizon"
                )
            )
            fit = None
    half_life = None
    half_reason = reason
    if fit is not None:
        if fit.rate > 0:
            half_life = math.log(2) / fit.rate
        else:
            half_reason = (
                f"the fitted decay rate is {fit.rate:.4g} per week, not positive: the IC does not decay over "
                f"{DECAY_HORIZONS[0]} to {DECAY_HORIZONS[-1]} weeks"
            )
    points = []
    for h in DECAY_HORIZONS:
        fitted = marginal = None
        if fit is not None:
            fitted = fit.ic_1 * float(g(fit.rate, np.array([h]))[0]) / math.sqrt(h)
            marginal = fit.ic_1 * math.exp(-fit.rate * (h - 1))
        points.append(DecayPoint(horizon_weeks=h, mean_ic=means[h], fitted_ic=fitted, marginal_ic=marginal))
    return IcDecay(
        decay_rate=declared_stat(IcDecay, "decay_rate", None if fit is None else fit.rate, reason),
        half_life_weeks=declared_stat(IcDecay, "half_life_weeks", half_life, half_reason),
        ic_1=declared_stat(IcDecay, "ic_1", None if fit is None else fit.ic_1, reason),
        term_structure=points,
    )


@dataclass(frozen=True)
class CalibrationSet:
    """The calibration alphas' backtest (b) and live (l) information ratios, in index order."""

    alphas: list[str]
    backtest: np.ndarray
    live: np.ndarray


def calibration_records(index: pa.Table | None, readable: set[str] | None, alpha: str) -> CalibrationSet:
    """The index rows the calibration is over: approved (their live split an approval, in force or
    retired since), `readable` (None: every alpha), not `alpha`, at least CALIBRATION_MIN_SESSIONS
    sessions after the approval, both information ratios measured and the backtest one positive."""
    if index is None or "live_split_origin" not in index.column_names:
        return CalibrationSet([], np.empty(0), np.empty(0))
    rows = index.select(list(INDEX_COLUMNS)).filter(
        pc.fill_null(pc.equal(index.column("live_split_origin"), "approval"), False)
    )
    ids = rows.column("alpha_id").to_pylist()
    sessions = rows.column("live_sessions").to_pylist()
    b = rows.column("backtest_information_ratio").to_numpy(zero_copy_only=False).astype(float)
    l_ = rows.column("live_information_ratio").to_numpy(zero_copy_only=False).astype(float)
    keep = [
        i
        for i, a in enumerate(ids)
        if (readable is None or a in readable)
        and a != alpha
        and sessions[i] is not None
        and sessions[i] >= CALIBRATION_MIN_SESSIONS
        and math.isfinite(b[i])
        and math.isfinite(l_[i])
        and b[i] > 0
    ]
    return CalibrationSet([ids[i] for i in keep], b[keep], l_[keep])


@dataclass(frozen=True)
class Calibrated:
    calibration: Calibration
    retention: float
    standard_error: float | None
    rmse: float | None


def calibrate(records: CalibrationSet) -> Calibrated:
    """The retention, its standard error and the out-of-sample RMSE (module docstring)."""
    b, l_ = records.backtest, records.live
    n = b.size
    if n < CALIBRATION_MIN_ALPHAS:
        retention = 1.0 - LITERATURE_HAIRCUT
        rmse = float(np.sqrt(np.mean((l_ - retention * b) ** 2))) if n else None
        return Calibrated("literature", retention, None, rmse)
    sbl, sbb = float(b @ l_), float(b @ b)
    retention = sbl / sbb
    residual = l_ - retention * b
    standard_error = math.sqrt(float(residual @ residual) / (n - 1) / sbb)
    left_out = (sbl - b * l_) / (sbb - b * b)
    rmse = float(np.sqrt(np.mean((l_ - left_out * b) ** 2)))
    return Calibrated("catalogue", retention, standard_error, rmse)


def haircut(
    records: CalibrationSet | None, withheld_reason: str | None
) -> tuple[LiveHaircut, float | None, str]:
    """The haircut object, the retention and why it is not measurable ("" when it is);
    `withheld_reason`: why the ledgers are withheld from the reader (None: they are not)."""
    if records is None or withheld_reason is not None:
        reason = withheld_reason or "not measurable"

        def none(name: str) -> AnalyticsStat:
            return declared_stat(LiveHaircut, name, None, reason)

        withheld_cut = LiveHaircut(
            calibration=None,
            calibration_alphas=0,
            retention=none("retention"),
            haircut=none("haircut"),
            haircut_standard_error=none("haircut_standard_error"),
            calibration_rmse=none("calibration_rmse"),
        )
        return withheld_cut, None, reason
    found = calibrate(records)
    literature = f"the literature prior ({LITERATURE}) is not fitted to this catalogue"
    return (
        LiveHaircut(
            calibration=found.calibration,
            calibration_alphas=len(records.alphas),
            retention=declared_stat(LiveHaircut, "retention", found.retention, ""),
            haircut=declared_stat(LiveHaircut, "haircut", 1.0 - found.retention, ""),
            haircut_standard_error=declared_stat(
                LiveHaircut, "haircut_standard_error", found.standard_error, literature
            ),
            calibration_rmse=declared_stat(
                LiveHaircut,
                "calibration_rmse",
                found.rmse,
                "no alpha the key may read, this one excepted, was approved with "
                f"{CALIBRATION_MIN_SESSIONS} sessions live and a positive backtest information ratio",
            ),
        ),
        found.retention,
        "",
    )


def decay_payload(
    view: BuildView,
    book: str,
    split: live.Split,
    records: CalibrationSet | None,
    access: Access,
    warnings: Warnings,
) -> Decay:
    """`/analytics/decay` of `book` at `split`; `records`: the calibration alphas (None: the reader
    may not read the ledgers they are measured from)."""
    context = {"book": book}
    # Every ledger figure (the backtest, the calibration's ledgers, the expectation): one warning.
    ledger_reason = None if access.ledger else withheld("ledger", "decay", warnings)
    cut, retention, cut_reason = haircut(records, ledger_reason)
    backtest = live.backtest_part(view, book, split, ledger_reason).information_ratio
    expected = None
    reason = backtest.withheld_reason or cut_reason
    if not reason and backtest.value is not None and not backtest.value > 0:
        # The retention is measured on positive backtests: applied to a loss it would shrink it.
        reason = (
            "the backtest information ratio is not positive: the haircut is calibrated on positive backtests"
        )
    if not reason and backtest.value is not None and retention is not None:
        expected = backtest.value * retention
    facts = conventions(view)
    return Decay(
        alpha=view.alpha_id,
        book=book,
        split_date=split.date,
        split_origin=split.origin,
        ic_decay=ic_decay(view, access, warnings),
        live_haircut=cut,
        backtest_information_ratio=declared_stat(
            Decay,
            "backtest_information_ratio",
            backtest.value,
            backtest.withheld_reason or "not measurable",
            context,
            periods_per_year=facts.sessions_per_year,
        ),
        haircut_information_ratio=declared_stat(
            Decay,
            "haircut_information_ratio",
            expected,
            reason or "not measurable",
            context,
            periods_per_year=facts.sessions_per_year,
        ),
    )
