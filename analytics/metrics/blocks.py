"""The blocks of the `/metrics` object, each a function of (inputs, request) -> its Struct or None
(`schemas.bodies.metrics`: each statistic's unit, annualisation and signal read from its field's
declaration, `declared_metric`).

Stored metrics (core, rank_ic, periods) are served as sealed; derived blocks aggregate the weekly
series the pipeline materialised (weekly_signal, weekly_deciles, weekly_term, weekly_autocorr) and
the long_short ledger over the requested window, from their prefix sums (`analytics.metrics.windows`,
made once per build): a window costs the same at any length. Nothing here recomputes a Spearman
correlation over a cross-section: that work was done once, at build time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
import numpy as np
from msgspec import UNSET

from analytics.access import Access
from analytics.compounding import max_drawdown_fraction
from analytics.entries import DateWindow, Warnings, number
from analytics.ic import annualisation_factor, annualised_icir
from analytics.metrics import windows
from analytics.metrics.inputs import DECILE_MEANS, Columns, Conventions, MetricsInputs
from analytics.newey_west import InsufficientData, NonpositiveVariance, newey_west_mean
from analytics.newey_west import NeweyWest as Estimate
from analytics.returns import information_ratio
from analytics.windows import WindowSeries
from schemas.bodies.base import Body
from schemas.bodies.figures import field_facts, key_facts
from schemas.bodies.metrics import (
    TURNOVERS,
    UNSEALED_TURNOVER_UNIT,
    AutocorrelationPoint,
    CoreStats,
    DailyNeweyWest,
    DecileBucket,
    IcDeciles,
    Monotonicity,
    NeweyWest,
    NeweyWestTests,
    Panel,
    PanelSignals,
    Period,
    RankIc,
    RankIcConditioned,
    RankIcRaw,
    SignalProcessing,
    Stat,
    Tenure,
    TermPoint,
    WeeklyCoverage,
    WeeklyIc,
    WeeklySpread,
)

BUCKET_COUNT = windows.BUCKET_COUNT
TERM_HORIZONS = (1, 2, 4, 8)
AUTOCORR_LAGS = tuple(range(1, 9))
# Absolute tolerance within which mean(weekly IC) must equal the sealed mean IC for nwt.ic to be
# published: both are float64 means of the same Spearman values, so only summation order differs.
IC_REPRODUCTION_TOLERANCE = 1e-6


# ---------------------------------------------------------------- core (stored, full window)

StoredValues = dict[str, float | None]


def stored_metric(
    metrics: StoredValues | None,
    name: str,
    *,
    unit: str,
    annualisation: str | None = None,
    signal: str | None = None,
    periods_per_year: int | None = None,
) -> Stat:
    """A statistic read from the run's stored metrics (`name`), or not_measurable saying why."""
    reason = None
    if metrics is None:
        reason = "the run sealed no stored metrics"
    elif metrics.get(name) is None:
        reason = (
            f"stored metric {name!r} is not finite" if name in metrics else f"the run did not seal {name!r}"
        )
    return Stat(
        value=None if reason is not None or metrics is None else metrics[name],
        unit=unit,
        status="available" if reason is None else "not_measurable",
        withheld_reason=UNSET if reason is None else reason,
        source="metrics",
        source_kind="metric",
        signal=UNSET if signal is None else signal,
        annualisation=UNSET if annualisation is None else annualisation,
        periods_per_year=UNSET if periods_per_year is None else periods_per_year,
    )


def declared_metric(
    body: type[Body],
    field: str,
    metrics: StoredValues | None,
    name: str,
    signal: str | None = None,
    **run_facts: Any,
) -> Stat:
    """The stored statistic `name` served at `body.field`: its unit, annualisation and signal as
    the field declares them (`signal` where the field's parent declares it); `run_facts` are
    those the run decides (`annualisation` and `periods_per_year` of the ICIR)."""
    facts = field_facts(body, field)
    return stored_metric(
        metrics,
        name,
        unit=facts["unit"],
        annualisation=run_facts.pop("annualisation", facts.get("annualisation")),
        signal=facts.get("signal", signal),
        **run_facts,
    )


def _turnover(metrics: StoredValues | None, conventions: Conventions) -> Stat:
    """The first turnover the run sealed, in its own unit and annualisation (as TURNOVERS states them)."""
    for name, unit, annualisation in TURNOVERS:
        if metrics is not None and metrics.get(name) is not None:
            per_year = conventions.sessions_per_year if annualisation == "annualised" else None
            return stored_metric(
                metrics, name, unit=unit, annualisation=annualisation, periods_per_year=per_year
            )
    return Stat(
        value=None,
        unit=UNSEALED_TURNOVER_UNIT,
        status="not_measurable",
        withheld_reason="the run sealed none of " + ", ".join(n for n, _, _ in TURNOVERS),
        source="metrics",
        source_kind="metric",
    )


def annual_turnover(
    metrics: StoredValues | None, conventions: Conventions, sessions: int | None, sessions_reason: str
) -> Stat:
    """`core.annual_turnover`: the long_short book's turnover per year, the mean session turnover times
    sessions_per_year, from whichever turnover the run sealed (TURNOVERS, in order). A summed turnover
    (`period_sum`) is spread over `sessions`, the ledger sessions of the span it sums (`sessions_reason`
    says why they are unknown); a turnover `ratio` has no period to annualise it by."""
    per_year = conventions.sessions_per_year
    value: float | None = None
    reason = "the run sealed none of " + ", ".join(n for n, _, _ in TURNOVERS)
    for name, unit, _ in TURNOVERS:
        sealed = None if metrics is None else metrics.get(name)
        if sealed is None:
            continue
        if unit == "per_year":
            value, reason = sealed, ""
        elif unit == "per_session":
            value, reason = sealed * per_year, ""
        elif unit == "period_sum" and sessions:
            value, reason = sealed / sessions * per_year, ""
        elif unit == "period_sum":
            reason = sessions_reason or "the summed turnover's span has no ledger session"
        else:
            reason = (
                f"the run sealed its turnover as a {unit} ({name}), which has no period to annualise it by"
            )
        break
    if not reason and number(value) is None:
        reason = "the sealed turnover is not finite"
    facts = field_facts(CoreStats, "annual_turnover")
    return Stat(
        value=None if reason else value,
        unit=facts["unit"],
        status="not_measurable" if reason else "available",
        withheld_reason=reason or UNSET,
        source="metrics",
        source_kind="derived",
        annualisation=facts["annualisation"],
        periods_per_year=per_year,
    )


def ledger_sessions(inputs: MetricsInputs, window: DateWindow, access: Access) -> tuple[int | None, str]:
    """The long_short ledger's sessions in `window` (what a summed turnover is spread over), or why
    they are unknown."""
    if not access.ledger:
        return None, (
            "access_limited: the sessions a summed turnover spans are counted on the ledger, which this key "
            "may not read (portfolio.ledger)"
        )
    if inputs.ledger is None:
        return None, "the run sealed no long_short ledger to count the summed turnover's sessions on"
    return int(inputs.ledger["date"][window.mask_sorted(inputs.ledger["date"])].size), ""


def annualised_icir_stat(
    body: type[Body],
    field: str,
    metrics: StoredValues | None,
    name: str,
    conventions: Conventions,
    signal: str | None = None,
) -> Stat:
    """An ICIR served annualised for every run (analytics/ic.py): the sealed value where the run's
    conventions annualise it, else the sealed per-week ratio times sqrt(weeks_per_year) (derived)."""
    sealed = declared_metric(body, field, metrics, name, signal, periods_per_year=conventions.weeks_per_year)
    if conventions.icir_annualised or sealed.value is None:
        return sealed
    return msgspec.structs.replace(
        sealed,
        value=number(annualised_icir(sealed.value, conventions.weeks_per_year)),
        source_kind="derived",
    )


def icir_per_week_stat(metrics: StoredValues | None, conventions: Conventions) -> Stat:
    """`core.icir_per_week`: the sealed ICIR per week (divided by sqrt(weeks_per_year) where the run
    sealed it annualised)."""
    sealed = declared_metric(CoreStats, "icir_per_week", metrics, "icir")
    if not conventions.icir_annualised or sealed.value is None:
        return sealed
    return msgspec.structs.replace(
        sealed,
        value=number(sealed.value / annualisation_factor(conventions.weeks_per_year)),
        source_kind="derived",
    )


def core_stats(
    metrics: StoredValues | None,
    conventions: Conventions,
    risk_free: StoredValues | None,
    tenure: Tenure | None = None,
    sessions: tuple[int | None, str] = (None, "the sessions of the summed turnover's span were not counted"),
) -> CoreStats:
    """`core` (overall or one period) from its stored metrics.

    `risk_free` is the overall stored metrics: the run's risk-free rate is sealed once, overall.
    `sessions`: the ledger sessions of the span (or why none), for a summed turnover per year.
    """
    per_year = conventions.sessions_per_year

    def metric(field: str, name: str, **run_facts: Any) -> Stat:
        return declared_metric(CoreStats, field, metrics, name, **run_facts)

    information_ratio = metric("information_ratio", "information_ratio", periods_per_year=per_year)
    excess = metric("excess_sharpe", "excess_sharpe", periods_per_year=per_year)
    return CoreStats(
        ic=metric("ic", "mean_ic"),
        icir=annualised_icir_stat(CoreStats, "icir", metrics, "icir", conventions),
        icir_per_week=icir_per_week_stat(metrics, conventions),
        information_ratio=information_ratio,
        excess_sharpe=msgspec.structs.replace(
            excess,
            risk_free_rate=None if risk_free is None else risk_free.get("risk_free_rate"),
            risk_free_rate_unit=key_facts(CoreStats, "excess_sharpe", "risk_free_rate")["unit"],
            risk_free_rate_source=conventions.risk_free_rate_source,
        ),
        sharpe=msgspec.structs.replace(
            information_ratio, deprecated=True, superseded_by="core.information_ratio"
        ),
        pnl=metric("pnl", "pnl"),
        max_drawdown=metric("max_drawdown", "max_drawdown"),
        max_drawdown_pct=metric("max_drawdown_pct", "max_drawdown_pct"),
        turnover=_turnover(metrics, conventions),
        annual_turnover=annual_turnover(metrics, conventions, *sessions),
        tenure=tenure,
    )


def tenure(inputs: MetricsInputs, window: DateWindow, access: Access, warnings: Warnings) -> Tenure | None:
    """Weeks and span of the run inside the window (rebalance index; ledger fallback)."""
    if inputs.rebalances is not None:
        part, traded = windows.traded_weeks(inputs).window(window)  # O(log weeks), not O(window)
        dates = inputs.rebalances["date"]
        first = dates[part.start] if part.stop > part.start else None
        last = dates[part.stop - 1] if part.stop > part.start else None
        days = None if first is None or last is None else int((last - first).astype(int))
        return Tenure(
            weeks=part.stop - part.start,
            traded_weeks=traded,
            first_rebalance=None if first is None else first.item(),
            last_rebalance=None if last is None else last.item(),
            calendar_days=days,
            years=None if days is None else days / 365.25,
            source="rebalances",
        )
    if inputs.ledger is None:
        warnings.add(
            "missing_kind",
            "Neither a rebalance index nor a long_short ledger was sealed; tenure is null.",
            block="core.tenure",
            kind="rebalances",
        )
        return None
    if not access.ledger:
        warnings.add(
            "access_limited",
            "Tenure falls back to the ledger, which this key may not read (portfolio.ledger).",
            block="core.tenure",
        )
        return None
    sessions = inputs.ledger["date"][window.mask_sorted(inputs.ledger["date"])]
    days = int((sessions[-1] - sessions[0]).astype(int)) if sessions.size else None
    return Tenure(
        weeks=None,
        traded_weeks=None,
        first_rebalance=None,
        last_rebalance=None,
        calendar_days=days,
        years=None if days is None else days / 365.25,
        source="portfolio",
    )


def _core_entries(core: CoreStats) -> list[tuple[str, Stat]]:
    """core's statistics in declared order, the deprecated alias (sharpe) left out."""
    entries = ((name, getattr(core, name)) for name in core.__struct_fields__)
    return [(name, e) for name, e in entries if isinstance(e, Stat) and e.deprecated is not True]


def core_block(inputs: MetricsInputs, window: DateWindow, access: Access, warnings: Warnings) -> CoreStats:
    overall = None if inputs.stored is None else inputs.stored.get("overall", {}).get("")
    if inputs.stored is None:
        warnings.add("missing_kind", "The run sealed no stored metrics.", block="core", kind="metrics")
    core = core_stats(
        overall, inputs.conventions, overall, sessions=ledger_sessions(inputs, DateWindow(None, None), access)
    )
    missing = [name for name, entry in _core_entries(core) if entry.status != "available"]
    if missing:
        warnings.add(
            "missing_core_metrics",
            "Stored metrics absent for: " + ", ".join(missing) + "; they are served as not_measurable.",
            block="core",
        )
    if access.ledger:  # the comparison reads the ledger: only a key that may read it is told
        # Of the whole ledger, whatever the window: once per build.
        mismatch = windows.kept(inputs, "headline_mismatch", lambda: headline_reproduction_mismatch(inputs))
        if mismatch is not None:
            warnings.add("headline_reproduction_mismatch", mismatch, block="core")
    return msgspec.structs.replace(core, tenure=tenure(inputs, window, access, warnings))


HEADLINE_REPRODUCTION_TOLERANCE = 1e-6
"""Relative (to max(1, |value|)): a sealed headline figure its own ledger rebuilds within rounding."""


def headline_reproduction_mismatch(inputs: MetricsInputs) -> str | None:
    """Which sealed overall headline figures (information_ratio, max_drawdown_pct) the run's own
    long_short ledger does not rebuild (the `headline_reproduction_mismatch` rule, as the IC's
    `ic_reproduction_mismatch`): a run that changed its sessions and not its stored metrics, or an
    engine whose convention differs. None when they reproduce, or when there is nothing to compare."""
    overall = None if inputs.stored is None else inputs.stored.get("overall", {}).get("")
    if overall is None or inputs.ledger is None:
        return None
    _, returns = daily_returns(inputs.ledger, DateWindow(None, None))
    if returns.size < 2:
        return None
    rebuilt = {
        "information_ratio": information_ratio(returns, inputs.conventions.sessions_per_year),
        "max_drawdown_pct": max_drawdown_fraction(returns) * 100.0,
    }
    found = []
    for name, value in rebuilt.items():
        sealed = overall.get(name)
        if sealed is None or not np.isfinite(value):
            continue
        if abs(value - sealed) > HEADLINE_REPRODUCTION_TOLERANCE * max(1.0, abs(sealed)):
            found.append(
                f"{name} sealed {sealed:.6g}, rebuilt from the ledger's {returns.size} sessions {value:.6g}"
            )
    if not found:
        return None
    return (
        "The sealed headline figures are not what the run's own ledger gives: "
        + "; ".join(found)
        + " (core serves the sealed values; /analytics and /equity-curve the ledger's)"
    )


def rank_ic_block(inputs: MetricsInputs, warnings: Warnings) -> RankIc | None:
    if inputs.stored is None:
        return None
    overall = inputs.stored.get("overall", {}).get("")
    conditioned = field_facts(RankIc, "conditioned")["signal"]
    raw = field_facts(RankIc, "raw")["signal"]

    def metric(body: type[Body], field: str, name: str, signal: str, **run_facts: Any) -> Stat:
        return declared_metric(body, field, overall, name, signal, **run_facts)

    return RankIc(
        conditioned=RankIcConditioned(
            hit_rate=metric(RankIcConditioned, "hit_rate", "ic_hit_rate", conditioned),
            dispersion=metric(RankIcConditioned, "dispersion", "ic_dispersion", conditioned),
            coverage=metric(RankIcConditioned, "coverage", "coverage", conditioned),
        ),
        raw=RankIcRaw(
            ic=metric(RankIcRaw, "ic", "raw_mean_ic", raw),
            icir=annualised_icir_stat(RankIcRaw, "icir", overall, "raw_icir", inputs.conventions, raw),
        ),
    )


def signal_processing_block(inputs: MetricsInputs) -> SignalProcessing | None:
    facts = inputs.signal_processing
    if not facts:
        return None
    return SignalProcessing(
        signal=facts.get("signal"),
        smoothing_applied=facts.get("smoothing_applied"),
        smoothing_half_life_weeks=facts.get("smoothing_half_life_weeks"),
        detail=facts.get("detail"),
    )


def period_bounds(period: str) -> DateWindow:
    """`2023` -> the year, `2023-04` -> the month."""
    if len(period) == 4:
        year = int(period)
        return DateWindow(dt.date(year, 1, 1), dt.date(year, 12, 31))
    year, month = int(period[:4]), int(period[5:7])
    following = dt.date(year + 1, 1, 1) if month == 12 else dt.date(year, month + 1, 1)
    return DateWindow(dt.date(year, month, 1), following - dt.timedelta(days=1))


def periods_block(
    inputs: MetricsInputs, granularity: str, window: DateWindow, access: Access, warnings: Warnings
) -> list[Period] | None:
    if granularity == "overall":
        return None
    if inputs.stored is None:
        return []
    overall = inputs.stored.get("overall", {}).get("")
    out = []
    for period in sorted(inputs.stored.get(granularity, {})):
        bounds = period_bounds(period)
        inside = bounds.intersect(window)
        if inside.start is not None and inside.end is not None and inside.start > inside.end:
            continue
        stored = inputs.stored[granularity][period]
        core = core_stats(
            stored,
            inputs.conventions,
            overall,
            tenure(inputs, inside, access, warnings),
            ledger_sessions(inputs, bounds, access),  # the whole period: its sum is sealed over all of it
        )
        out.append(Period(period=period, core=core))
    return out


# ---------------------------------------------------------------- derived (narrowed by the window)


def signal_series_available(inputs: MetricsInputs, access: Access, warnings: Warnings, block: str) -> bool:
    """Whether blocks built on the cross-sections can be served; warns when not."""
    if not access.cross_sections:
        warnings.add(
            "access_limited",
            f"{block} is built from rebalance cross-sections, which this key may not read "
            "(signals.rebalances.get or signals.scores).",
            block=block,
        )
        return False
    if inputs.weekly_signal is None or inputs.weekly_deciles is None:
        warnings.add(
            "missing_kind",
            f"The run sealed no rebalance cross-sections; {block} is null.",
            block=block,
            kind="decisions",
        )
        return False
    weekly = inputs.weekly_signal
    if not windows.kept(inputs, "forward_returns", lambda: bool(np.nansum(weekly["n_forward_returns"]) > 0)):
        warnings.add(
            "forward_returns_absent", f"The run sealed no forward returns; {block} is null.", block=block
        )
        return False
    return True


def average_ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size, dtype=np.float64)
    sorted_values = values[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_values)) + 1]
    ends = np.r_[starts[1:], values.size]
    for start, end in zip(starts, ends, strict=True):
        ranks[order[start:end]] = (start + end + 1) / 2.0
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    """Spearman correlation with average ranks for ties; None when undefined."""
    if x.size < 3:
        return None
    rx, ry = average_ranks(x) - (x.size + 1) / 2.0, average_ranks(y) - (y.size + 1) / 2.0
    denominator = float(np.sqrt((rx @ rx) * (ry @ ry)))
    return None if denominator == 0.0 else float(rx @ ry) / denominator


def ic_deciles_block(inputs: MetricsInputs, window: DateWindow, warnings: Warnings) -> IcDeciles | None:
    """Means of the weekly bucket means over eligible weeks with forward returns in the window.

    A week is eligible as the pipeline marked it (`decile_eligible`: at least 20 raw-scored names
    with at least 2 distinct raw_score values; only eligible weeks have decile rows). Every
    ineligible week in the window, thin or constant, is counted in `weeks_skipped`.
    """
    found = windows.decile_sums(inputs).window(window)  # prefix sums: O(1) in the window's length
    if found.used_weeks == 0:
        warnings.add(
            "insufficient_data",
            "No week in the window has at least 20 scored names with at least 2 distinct raw_score values "
            "and forward returns; ic_deciles is null.",
            block="ic_deciles",
        )
        return None
    means = found.means
    buckets = [
        DecileBucket(
            bucket=f"Q{b + 1}",
            rank=b + 1,
            weeks=int(found.weeks_per_bucket[b]),
            mean_n_symbols=number(means["n_symbols"][b]),
            **{name: number(means[name][b]) for name in DECILE_MEANS},
            n_return_obs=round(float(found.return_obs[b])),
        )
        for b in range(BUCKET_COUNT)
    ]
    forward = means["mean_forward_return"]
    finite = np.isfinite(forward)
    rank_index = np.arange(1, BUCKET_COUNT + 1, dtype=np.float64)
    return IcDeciles(
        score_field="raw_score",
        signal="raw",
        bucket_count=BUCKET_COUNT,
        weeks=found.used_weeks,
        buckets=buckets,
        monotonicity=Monotonicity(
            spearman_bucket_vs_mean_forward_return=spearman(rank_index[finite], forward[finite]),
            top_minus_bottom=number(forward[-1] - forward[0]),
        ),
        forward_returns="present",
        weeks_skipped=found.weeks_skipped,
    )


Test = TypeVar("Test", bound=NeweyWest)


def _hac_block(
    values: np.ndarray | Callable[[], Estimate],
    warnings: Warnings,
    block: str,
    extra: dict[str, Any],
    served_as: type[Test],
    min_lag: int = 0,
) -> Test | None:
    """The test of `values`' mean (or the test `values()` makes: a window's, from its prefix sums),
    served as `served_as` (a daily series' as DailyNeweyWest: its lag and n count sessions), or None
    with the warning that says why."""
    try:
        estimate = values() if callable(values) else newey_west_mean(values, min_lag=min_lag)
    except InsufficientData as exc:
        warnings.add("insufficient_data", f"{block}: {exc}.", block=block)
        return None
    except NonpositiveVariance as exc:
        warnings.add("nonpositive_variance", f"{block}: {exc}.", block=block)
        return None
    return served_as(
        lag=estimate.lag,
        n=estimate.n,
        mean=estimate.mean,
        standard_error=estimate.standard_error,
        t_statistic=estimate.t_statistic,
        p_value=estimate.p_value,
        **extra,
    )


def _windowed(series: WindowSeries, window: DateWindow, min_lag: int = 0) -> Callable[[], Estimate]:
    """The Newey-West test of `series` over `window`, made when `_hac_block` asks."""
    return lambda: series.newey_west(window, min_lag)


def nwt_ic_block(inputs: MetricsInputs, access: Access, warnings: Warnings) -> NeweyWest | None:
    """HAC test of the conditioned weekly IC over the whole evaluation window."""
    if not access.cross_sections:
        warnings.add(
            "access_limited",
            "nwt.ic is rebuilt from rebalance cross-sections, which this key may not read.",
            block="nwt.ic",
        )
        return None
    if inputs.weekly_signal is None:
        warnings.add(
            "ic_family_mismatch",
            "The run has no rebalance cross-sections, so its IC cannot be rebuilt; nwt.ic is null.",
            block="nwt.ic",
        )
        return None
    mismatch = ic_reproduction_mismatch(inputs)
    if mismatch is not None:
        warnings.add("ic_reproduction_mismatch", f"{mismatch}; nwt.ic is null.", block="nwt.ic")
        return None
    weekly_ic = inputs.weekly_signal["ic"]
    return _hac_block(weekly_ic[np.isfinite(weekly_ic)], warnings, "nwt.ic", _derived_keys("ic"), NeweyWest)


def _derived_keys(test: str) -> dict[str, Any]:
    """The keys of an IC test this service computes: its signal as `nwt.{test}` declares it."""
    return {
        "source": "computed",
        "source_kind": "derived",
        "signal": field_facts(NeweyWestTests, test)["signal"],
    }


def ic_reproduction_mismatch(inputs: MetricsInputs) -> str | None:
    """Why the weekly IC rebuilt from the cross-sections does not reproduce the sealed mean IC
    (the `ic_reproduction_mismatch` rule), or None when it does; None without cross-sections too
    (nothing was rebuilt). The one rule behind nwt.ic and the significance route's IC figures."""
    if inputs.weekly_signal is None:
        return None
    weekly_ic = inputs.weekly_signal["ic"]
    weekly_ic = weekly_ic[np.isfinite(weekly_ic)]
    overall = None if inputs.stored is None else inputs.stored.get("overall", {}).get("")
    sealed = None if overall is None else overall.get("mean_ic")
    if sealed is None:
        return "The run sealed no mean IC to reproduce"
    rebuilt = float(weekly_ic.mean()) if weekly_ic.size else float("nan")
    if abs(rebuilt - sealed) <= IC_REPRODUCTION_TOLERANCE:
        return None
    return (
        f"The weekly IC rebuilt from {weekly_ic.size} cross-sections has mean {rebuilt:.6g}, "
        f"the sealed mean IC is {sealed:.6g} (tolerance {IC_REPRODUCTION_TOLERANCE:g})"
    )


def nwt_ic_score_panel_block(
    inputs: MetricsInputs, window: DateWindow, access: Access, warnings: Warnings
) -> NeweyWest | None:
    if not signal_series_available(inputs, access, warnings, "nwt.ic_score_panel"):
        return None
    return _hac_block(
        _windowed(windows.raw_ic_series(inputs), window),
        warnings,
        "nwt.ic_score_panel",
        _derived_keys("ic_score_panel"),
        NeweyWest,
    )


def daily_returns(ledger: Columns, window: DateWindow) -> tuple[np.ndarray, np.ndarray]:
    """The window's sessions with a return and their returns (`windows.ledger_returns`, the one
    formula nwt.ir's sums are made of)."""
    part = window.mask_sorted(ledger["date"])
    dates, returns = windows.ledger_returns({name: ledger[name][part] for name in ledger})
    known = ~np.isnan(returns)
    return dates[known], returns[known]


def nwt_ir_block(
    inputs: MetricsInputs, window: DateWindow, access: Access, warnings: Warnings
) -> DailyNeweyWest | None:
    if not access.ledger:
        warnings.add(
            "access_limited",
            "nwt.ir is computed from the ledger, which this key may not read (portfolio.ledger).",
            block="nwt.ir",
        )
        return None
    if inputs.ledger is None:
        warnings.add(
            "missing_kind",
            "The run sealed no long_short ledger; nwt.ir is null.",
            block="nwt.ir",
            kind="portfolio",
        )
        return None
    source = field_facts(NeweyWestTests, "ir")["source"]
    return _hac_block(
        _windowed(windows.daily_return_series(inputs), window),
        warnings,
        "nwt.ir",
        {"source": source, "frequency": "daily"},
        DailyNeweyWest,
    )


def panel_block(inputs: MetricsInputs, window: DateWindow, warnings: Warnings) -> Panel:
    """Weekly series of the window (served only with panel=1 and only when ic_deciles is)."""
    weekly = inputs.weekly_signal
    assert weekly is not None
    part = window.mask_sorted(weekly["date"])
    dates = weekly["date"][part]

    def series(column: str) -> list[tuple[dt.date, float]]:
        values = weekly[column][part]
        ok = np.isfinite(values)
        return list(zip(dates[ok].tolist(), values[ok].tolist(), strict=True))

    term_structure = []
    for horizon in TERM_HORIZONS:
        # Overlapping h-week returns are autocorrelated by construction: lag >= h-1.
        term = windows.level_series(inputs, "weekly_term", "horizon_weeks", horizon, "ic", horizon - 1)
        a, b = (0, 0) if term is None else term.rows(window)
        block = f"panel.ic_term_structure[{horizon}]"
        term_structure.append(
            TermPoint(
                horizon_weeks=horizon,
                mean_ic=None if term is None or b == a else number(term.mean(a, b)),
                weeks=b - a,
                newey_west=_hac_block(
                    np.empty(0) if term is None else _windowed(term, window, horizon - 1),
                    warnings,
                    block,
                    {},
                    NeweyWest,
                    min_lag=horizon - 1,
                ),
            )
        )
    autocorrelation = []
    for lag in AUTOCORR_LAGS:
        rho = windows.level_series(inputs, "weekly_autocorr", "lag_weeks", lag, "rho", None)
        a, b = (0, 0) if rho is None else rho.rows(window)
        autocorrelation.append(
            AutocorrelationPoint(
                lag_weeks=lag, rho=None if rho is None or b == a else number(rho.mean(a, b)), weeks=b - a
            )
        )
    ic_weekly = series("ic")
    return Panel(
        signals=PanelSignals(),
        ic_weekly=[WeeklyIc(date=d, ic=v) for d, v in ic_weekly],
        rebuilt_mean_ic=number(np.mean([v for _, v in ic_weekly])) if ic_weekly else None,
        decile_spread_weekly=[WeeklySpread(date=d, spread=v) for d, v in series("decile_spread")],
        ic_term_structure=term_structure,
        rank_autocorrelation=autocorrelation,
        coverage=[WeeklyCoverage(date=d, coverage=v) for d, v in series("coverage")],
    )
