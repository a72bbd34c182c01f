"""The blocks of the `/metrics` payload, each a function of (inputs, request) -> dict or None.

Stored metrics (core, rank_ic, periods) are served as sealed; derived blocks aggregate the weekly
series the pipeline materialised (weekly_signal, weekly_deciles, weekly_term, weekly_autocorr) and
the long_short ledger over the requested window. Nothing here recomputes a Spearman correlation
over a cross-section: that work was done once, at build time.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np

from analytics.access import Access
from analytics.entries import DateWindow, Warnings, iso, not_measurable, number, stored_stat
from analytics.metrics.inputs import Columns, Conventions, MetricsInputs
from analytics.newey_west import InsufficientData, NonpositiveVariance, newey_west_mean

BUCKET_COUNT = 10
TERM_HORIZONS = (1, 2, 4, 8)
AUTOCORR_LAGS = tuple(range(1, 9))
# Absolute tolerance within which mean(weekly IC) must equal the sealed mean IC for nwt.ic to be
# published: both are float64 means of the same Spearman values, so only summation order differs.
IC_REPRODUCTION_TOLERANCE = 1e-6
TURNOVER_PREFERENCE = (
    ("annualised_turnover", "per_year", "annualised"),
    ("turnover", "ratio", "per_period"),
    ("mean_turnover", "per_session", "per_period"),
    ("total_turnover", "period_sum", "not_annualisable"),
)
CORE_STAT_NAMES = (
    "ic",
    "icir",
    "information_ratio",
    "excess_sharpe",
    "sharpe",
    "pnl",
    "max_drawdown",
    "max_drawdown_pct",
    "turnover",
)


# ---------------------------------------------------------------- core (stored, full window)


def _turnover(metrics: dict[str, float | None] | None, conventions: Conventions) -> dict[str, Any]:
    for name, unit, annualisation in TURNOVER_PREFERENCE:
        if metrics is not None and metrics.get(name) is not None:
            entry = stored_stat(metrics, name, unit=unit, annualisation=annualisation)
            if annualisation == "annualised":
                entry["periods_per_year"] = conventions.sessions_per_year
            return entry
    return not_measurable(
        "the run sealed none of " + ", ".join(n for n, _, _ in TURNOVER_PREFERENCE),
        unit="ratio",
        source="metrics",
        source_kind="metric",
    )


def core_stats(
    metrics: dict[str, float | None] | None,
    conventions: Conventions,
    risk_free: dict[str, float | None] | None,
) -> dict[str, Any]:
    """The stat entries of `core` (overall or one period), in the documented order.

    `risk_free` is the overall stored metrics: the run's risk-free rate is sealed once, overall.
    """
    icir_annualised = conventions.icir_annualised
    core: dict[str, Any] = {
        "ic": stored_stat(metrics, "mean_ic", unit="ratio", annualisation="per_period", signal="conditioned"),
        "icir": stored_stat(
            metrics,
            "icir",
            unit="ratio",
            annualisation="annualised" if icir_annualised else "per_period",
            signal="conditioned",
        ),
        "information_ratio": stored_stat(
            metrics, "information_ratio", unit="ratio", annualisation="annualised"
        ),
        "excess_sharpe": stored_stat(metrics, "excess_sharpe", unit="ratio", annualisation="annualised"),
    }
    if icir_annualised:
        core["icir"]["periods_per_year"] = conventions.weeks_per_year
    core["information_ratio"]["periods_per_year"] = conventions.sessions_per_year
    excess = core["excess_sharpe"]
    excess["periods_per_year"] = conventions.sessions_per_year
    excess["risk_free_rate"] = None if risk_free is None else risk_free.get("risk_free_rate")
    excess["risk_free_rate_unit"] = "per_year"
    excess["risk_free_rate_source"] = conventions.risk_free_rate_source
    core["sharpe"] = {
        **core["information_ratio"],
        "deprecated": True,
        "superseded_by": "core.information_ratio",
    }
    core["pnl"] = stored_stat(metrics, "pnl", unit="ratio", annualisation="not_annualisable")
    core["max_drawdown"] = stored_stat(
        metrics, "max_drawdown", unit="ratio", annualisation="not_annualisable"
    )
    core["max_drawdown_pct"] = stored_stat(
        metrics, "max_drawdown_pct", unit="percentage_points", annualisation="not_annualisable"
    )
    core["turnover"] = _turnover(metrics, conventions)
    return core


def tenure(
    inputs: MetricsInputs, window: DateWindow, access: Access, warnings: Warnings
) -> dict[str, Any] | None:
    """Weeks and span of the run inside the window (rebalance index; ledger fallback)."""
    rebalances = inputs.rebalances
    if rebalances is not None:
        part = window.mask_sorted(rebalances["date"])
        dates = rebalances["date"][part]
        status = rebalances["week_status"][part]
        first = dates[0] if dates.size else None
        last = dates[-1] if dates.size else None
        days = None if first is None or last is None else int((last - first).astype(int))
        return {
            "weeks": int(dates.size),
            "traded_weeks": int(np.count_nonzero(status == "traded")),
            "first_rebalance": None if first is None else iso(first),
            "last_rebalance": None if last is None else iso(last),
            "calendar_days": days,
            "years": None if days is None else days / 365.25,
            "source": "rebalances",
        }
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
    return {
        "weeks": None,
        "traded_weeks": None,
        "first_rebalance": None,
        "last_rebalance": None,
        "calendar_days": days,
        "years": None if days is None else days / 365.25,
        "source": "portfolio",
    }


def core_block(
    inputs: MetricsInputs, window: DateWindow, access: Access, warnings: Warnings
) -> dict[str, Any]:
    overall = None if inputs.stored is None else inputs.stored.get("overall", {}).get("")
    if inputs.stored is None:
        warnings.add("missing_kind", "The run sealed no stored metrics.", block="core", kind="metrics")
    core = core_stats(overall, inputs.conventions, overall)
    missing = [name for name in CORE_STAT_NAMES if name != "sharpe" and core[name]["status"] != "available"]
    if missing:
        warnings.add(
            "missing_core_metrics",
            "Stored metrics absent for: " + ", ".join(missing) + "; they are served as not_measurable.",
            block="core",
        )
    core["tenure"] = tenure(inputs, window, access, warnings)
    return core


def rank_ic_block(inputs: MetricsInputs, warnings: Warnings) -> dict[str, Any] | None:
    if inputs.stored is None:
        return None
    overall = inputs.stored.get("overall", {}).get("")
    raw_icir = stored_stat(
        overall,
        "raw_icir",
        unit="ratio",
        annualisation="annualised" if inputs.conventions.icir_annualised else "per_period",
        signal="raw",
    )
    if inputs.conventions.icir_annualised:
        raw_icir["periods_per_year"] = inputs.conventions.weeks_per_year
    return {
        "conditioned": {
            "hit_rate": stored_stat(overall, "ic_hit_rate", unit="ratio", signal="conditioned"),
            "dispersion": stored_stat(overall, "ic_dispersion", unit="ratio", signal="conditioned"),
            "coverage": stored_stat(overall, "coverage", unit="ratio", signal="conditioned"),
        },
        "raw": {
            "ic": stored_stat(overall, "raw_mean_ic", unit="ratio", annualisation="per_period", signal="raw"),
            "icir": raw_icir,
        },
    }


def signal_processing_block(inputs: MetricsInputs) -> dict[str, Any] | None:
    facts = inputs.signal_processing
    if not facts:
        return None
    return {
        "signal": facts.get("signal"),
        "smoothing_applied": facts.get("smoothing_applied"),
        "smoothing_half_life_weeks": facts.get("smoothing_half_life_weeks"),
        "detail": facts.get("detail"),
    }


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
) -> list[dict[str, Any]] | None:
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
        core = core_stats(inputs.stored[granularity][period], inputs.conventions, overall)
        core["tenure"] = tenure(inputs, inside, access, warnings)
        out.append({"period": period, "core": core})
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
    if not np.nansum(inputs.weekly_signal["n_forward_returns"]) > 0:
        warnings.add(
            "forward_returns_absent", f"The run sealed no forward returns; {block} is null.", block=block
        )
        return False
    return True


def _nanmean_by(index: np.ndarray, values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    ok = np.isfinite(values)
    sums = np.bincount(index[ok], weights=values[ok], minlength=size)
    counts = np.bincount(index[ok], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan), counts


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


_BUCKET_MEANS = (
    ("mean_score", "mean_score"),
    ("mean_score_z", "mean_score_z"),
    ("mean_long_short_weight", "mean_long_short_weight"),
    ("mean_long_only_weight", "mean_long_only_weight"),
    ("mean_forward_return", "mean_forward_return"),
    ("ic", "ic"),
)


def ic_deciles_block(inputs: MetricsInputs, window: DateWindow, warnings: Warnings) -> dict[str, Any] | None:
    """Means of the weekly bucket means over eligible weeks with forward returns in the window.

    A week is eligible as the pipeline marked it (`decile_eligible`: at least 20 raw-scored names
    with at least 2 distinct raw_score values; only eligible weeks have decile rows). Every
    ineligible week in the window, thin or constant, is counted in `weeks_skipped`.
    """
    weekly = inputs.weekly_signal
    deciles = inputs.weekly_deciles
    assert weekly is not None and deciles is not None
    part = window.mask_sorted(weekly["date"])
    eligible = weekly["decile_eligible"][part]
    with_returns = np.nan_to_num(weekly["n_forward_returns"][part]) > 0
    used_weeks = weekly["date"][part][eligible & with_returns]
    if used_weeks.size == 0:
        warnings.add(
            "insufficient_data",
            "No week in the window has at least 20 scored names with at least 2 distinct raw_score values "
            "and forward returns; ic_deciles is null.",
            block="ic_deciles",
        )
        return None
    rows = window.mask_sorted(deciles["date"])
    keep = np.isin(deciles["date"][rows], used_weeks)
    bucket_index = deciles["bucket"][rows][keep].astype(np.int64) - 1
    weeks_per_bucket = np.bincount(bucket_index, minlength=BUCKET_COUNT)
    mean_n_symbols, _ = _nanmean_by(bucket_index, deciles["n_symbols"][rows][keep], BUCKET_COUNT)
    n_return_obs = np.bincount(
        bucket_index, weights=np.nan_to_num(deciles["n_return_obs"][rows][keep]), minlength=BUCKET_COUNT
    )
    means = {
        out: _nanmean_by(bucket_index, deciles[column][rows][keep], BUCKET_COUNT)[0]
        for out, column in _BUCKET_MEANS
    }
    buckets = []
    for b in range(BUCKET_COUNT):
        bucket: dict[str, Any] = {
            "bucket": f"Q{b + 1}",
            "rank": b + 1,
            "weeks": int(weeks_per_bucket[b]),
            "mean_n_symbols": number(mean_n_symbols[b]),
        }
        for out, _ in _BUCKET_MEANS:
            bucket[out] = number(means[out][b])
        bucket["n_return_obs"] = int(n_return_obs[b])
        buckets.append(bucket)
    forward = means["mean_forward_return"]
    finite = np.isfinite(forward)
    rank_index = np.arange(1, BUCKET_COUNT + 1, dtype=np.float64)
    return {
        "score_field": "raw_score",
        "signal": "raw",
        "bucket_count": BUCKET_COUNT,
        "weeks": int(used_weeks.size),
        "buckets": buckets,
        "monotonicity": {
            "spearman_bucket_vs_mean_forward_return": spearman(rank_index[finite], forward[finite]),
            "top_minus_bottom": number(forward[-1] - forward[0]),
        },
        "forward_returns": "present",
        "weeks_skipped": int(np.count_nonzero(~eligible)),
    }


def _hac_block(
    values: np.ndarray, warnings: Warnings, block: str, extra: dict[str, Any], min_lag: int = 0
) -> dict[str, Any] | None:
    try:
        estimate = newey_west_mean(values, min_lag=min_lag)
    except InsufficientData as exc:
        warnings.add("insufficient_data", f"{block}: {exc}.", block=block)
        return None
    except NonpositiveVariance as exc:
        warnings.add("nonpositive_variance", f"{block}: {exc}.", block=block)
        return None
    return {**estimate.as_dict(), **extra}


def nwt_ic_block(inputs: MetricsInputs, access: Access, warnings: Warnings) -> dict[str, Any] | None:
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
    extra = {"source": "computed", "source_kind": "derived", "signal": "conditioned"}
    return _hac_block(weekly_ic[np.isfinite(weekly_ic)], warnings, "nwt.ic", extra)


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
) -> dict[str, Any] | None:
    if not signal_series_available(inputs, access, warnings, "nwt.ic_score_panel"):
        return None
    weekly = inputs.weekly_signal
    assert weekly is not None
    raw_ic = weekly["raw_ic"][window.mask_sorted(weekly["date"])]
    extra = {"source": "computed", "source_kind": "derived", "signal": "raw"}
    return _hac_block(raw_ic, warnings, "nwt.ic_score_panel", extra)


def daily_returns(ledger: Columns, window: DateWindow) -> tuple[np.ndarray, np.ndarray]:
    part = window.mask_sorted(ledger["date"])
    starting = ledger["starting_equity"][part]
    ending = ledger["ending_equity"][part]
    ok = np.isfinite(starting) & np.isfinite(ending) & (starting != 0)
    return ledger["date"][part][ok], ending[ok] / starting[ok] - 1.0


def nwt_ir_block(
    inputs: MetricsInputs, window: DateWindow, access: Access, warnings: Warnings
) -> dict[str, Any] | None:
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
    _, returns = daily_returns(inputs.ledger, window)
    return _hac_block(returns, warnings, "nwt.ir", {"source": "portfolio", "frequency": "daily"})


def _level_values(
    table: Columns | None, level_column: str, level: int, value_column: str, window: DateWindow
) -> np.ndarray:
    """Finite weekly values of one level (a horizon, a lag) of a per-week-and-level series, in the window."""
    if table is None:
        return np.empty(0)
    rows = window.mask_sorted(table["date"])
    values = table[value_column][rows][table[level_column][rows] == level]
    return values[np.isfinite(values)]


def panel_block(inputs: MetricsInputs, window: DateWindow, warnings: Warnings) -> dict[str, Any]:
    """Weekly series of the window (served only with panel=1 and only when ic_deciles is)."""
    weekly = inputs.weekly_signal
    assert weekly is not None
    part = window.mask_sorted(weekly["date"])
    dates = weekly["date"][part]

    def series(column: str, name: str) -> list[dict[str, Any]]:
        values = weekly[column][part]
        ok = np.isfinite(values)
        texts = np.datetime_as_string(dates[ok], unit="D").tolist()  # one call, not one per week
        return [{"date": d, name: v} for d, v in zip(texts, values[ok].tolist(), strict=True)]

    term_structure = []
    term = inputs.weekly_term
    for horizon in TERM_HORIZONS:
        ic = _level_values(term, "horizon_weeks", horizon, "ic", window)
        block = f"panel.ic_term_structure[{horizon}]"
        term_structure.append(
            {
                "horizon_weeks": horizon,
                "mean_ic": number(ic.mean()) if ic.size else None,
                "weeks": int(ic.size),
                # Overlapping h-week returns are autocorrelated by construction: lag >= h-1.
                "newey_west": _hac_block(ic, warnings, block, {}, min_lag=horizon - 1),
            }
        )
    autocorrelation = []
    autocorr = inputs.weekly_autocorr
    for lag in AUTOCORR_LAGS:
        rho = _level_values(autocorr, "lag_weeks", lag, "rho", window)
        autocorrelation.append(
            {"lag_weeks": lag, "rho": number(rho.mean()) if rho.size else None, "weeks": int(rho.size)}
        )
    return {
        "signal": "raw",
        "ic_weekly": series("ic", "ic"),
        "decile_spread_weekly": series("decile_spread", "spread"),
        "ic_term_structure": term_structure,
        "rank_autocorrelation": autocorrelation,
        "coverage": series("coverage", "coverage"),
    }
