"""The bodies of the analytics routes, from a build's inputs and the catalogue's figures.

Stat entries have the shape of `/metrics` core entries: `{value, unit, status, source,
annualisation}` plus what the entry needs; a figure that cannot be measured is `not_measurable`
with a `withheld_reason`, never zero.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from analytics import bootstrap, costs, multiple_testing, significance
from analytics.correlation import Correlation
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import day_number
from serve.analytics import inputs
from serve.analytics.catalogue import Trials
from serve.metrics.stats import not_measurable, number

DECILES = 10


def stat(
    value: float | None, unit: str, source: str, annualisation: str, reason: str, **extra: Any
) -> dict[str, Any]:
    """An available entry, or a not_measurable one with `reason` when `value` is not finite."""
    clean = number(value)
    if clean is None:
        return not_measurable(reason, unit=unit, source=source, annualisation=annualisation, **extra)
    return {
        "value": clean,
        "unit": unit,
        "status": "available",
        "source": source,
        "annualisation": annualisation,
        **extra,
    }


def _conventions(view: BuildView) -> tuple[int, int]:
    found = view.entry.get("metric_conventions") or {}
    return int(found.get("sessions_per_year") or 252), int(found.get("weeks_per_year") or 52)


def window_echo(window: Window) -> dict[str, str | None]:
    start, end = window
    return {
        "from": None if start is None else start.isoformat(),
        "to": None if end is None else end.isoformat(),
    }


# -- significance ---------------------------------------------------------------------------------


def significance_payload(
    view: BuildView, window: Window, sr_benchmark: float, trials_override: int | None, trials: Trials
) -> dict[str, Any]:
    sessions_per_year, weeks_per_year = _conventions(view)
    ledger = inputs.ledger(view, "long_short")
    returns = np.empty(0) if ledger is None else ledger.window(window).returns
    m = significance.moments(returns)
    source = "portfolio:long_short"
    no_returns = (
        "the build has no long_short ledger"
        if ledger is None
        else "fewer than 3 daily returns with variance in the window"
    )
    benchmark = sr_benchmark / math.sqrt(sessions_per_year)
    n_trials = trials.count if trials_override is None else trials_override
    variance = trials.sharpe_variance
    out: dict[str, Any] = {
        "alpha": view.alpha_id,
        "alpha_id": str(view.entry.get("source_alpha_id") or view.alpha_id),
        "book": "long_short",
        "window": window_echo(window),
        "sessions": 0 if m is None else m.n,
        "sharpe": stat(
            None if m is None else m.sharpe * math.sqrt(sessions_per_year),
            "ratio",
            source,
            "annualised",
            no_returns,
            periods_per_year=sessions_per_year,
        ),
        "skewness": stat(None if m is None else m.skewness, "ratio", source, "not_annualisable", no_returns),
        "kurtosis": stat(None if m is None else m.kurtosis, "ratio", source, "not_annualisable", no_returns),
    }
    out["psr"] = stat(
        None if m is None else significance.psr(m, benchmark),
        "probability",
        "computed",
        "not_annualisable",
        no_returns,
        sr_benchmark=sr_benchmark,
    )
    trl = math.nan if m is None else significance.min_track_record(m, benchmark)
    trl_reason = (
        no_returns if m is None else "the Sharpe ratio does not exceed sr_benchmark: no track record suffices"
    )
    out["min_track_record"] = stat(
        trl,
        "sessions",
        "computed",
        "not_annualisable",
        trl_reason,
        confidence=significance.MIN_TRL_CONFIDENCE,
        sr_benchmark=sr_benchmark,
        years=number(trl / sessions_per_year) if math.isfinite(trl) else None,
    )
    expected = significance.expected_max_sharpe(n_trials, variance)
    dsr_reason = (
        no_returns
        if m is None
        else "fewer than 2 alphas of the catalogue have a measurable Sharpe ratio, so their variance is unknown"
        if not math.isfinite(variance)
        else "fewer than 2 trials"
    )
    out["dsr"] = stat(
        None if m is None else significance.dsr(m, n_trials, variance),
        "probability",
        "computed",
        "not_annualisable",
        dsr_reason,
        trials={
            "count": n_trials,
            "count_source": "catalogue" if trials_override is None else "request",
            "sharpe_variance": number(variance),
            "sharpe_variance_unit": "per_session_squared",
            "expected_max_sharpe": number(expected * math.sqrt(sessions_per_year))
            if math.isfinite(expected)
            else None,
            "expected_max_sharpe_unit": "annualised",
        },
    )
    out["bootstrap"] = _bootstrap(view, window, ledger, weeks_per_year, sessions_per_year)
    out["multiple_testing"] = _multiple_testing(view, trials)
    return out


def _bootstrap(
    view: BuildView, window: Window, ledger: inputs.Ledger | None, weeks_per_year: int, sessions_per_year: int
) -> dict[str, Any]:
    def compute() -> dict[str, Any]:
        rng = np.random.Generator(np.random.PCG64(bootstrap.SEED))
        ic = inputs.weekly_ic(view)
        ic_values = np.empty(0) if ic is None else ic.window(window).values
        returns = np.empty(0) if ledger is None else ledger.window(window).returns
        figures: dict[str, Any] = {}
        for name, series, statistic, scale, unit, annualisation, source in (
            ("mean_ic", ic_values, bootstrap.mean_of_rows, 1.0, "ratio", "per_period", "weekly_signal"),
            ("icir", ic_values, bootstrap.ratio_of_rows, 1.0, "ratio", "per_period", "weekly_signal"),
            (
                "information_ratio",
                returns,
                bootstrap.ratio_of_rows,
                math.sqrt(sessions_per_year),
                "ratio",
                "annualised",
                "portfolio:long_short",
            ),
        ):
            clean = series[np.isfinite(series)]
            point = _point(clean, statistic) * scale
            lower, upper, block = bootstrap.interval(series, statistic, rng)
            figures[name] = stat(
                point,
                unit,
                source,
                annualisation,
                "fewer than 3 observations in the window",
                lower=number(lower * scale),
                upper=number(upper * scale),
                observations=int(clean.size),
                block_length=block,
            )
        return {
            "method": "stationary block bootstrap (Politis and Romano 1994), percentile intervals",
            "confidence": bootstrap.CONFIDENCE,
            "resamples": bootstrap.RESAMPLES,
            "seed": bootstrap.SEED,
            "block_length_rule": "mean block length round(n^(1/3)), at least 1, n = observations of the series",
            "order": "one generator, drawn in this order: mean_ic, icir, information_ratio (each its own resamples)",
            **figures,
        }

    if window == (None, None):
        return view.memo("analytics:bootstrap", compute)
    return compute()


def _point(x: np.ndarray, statistic: bootstrap.Statistic) -> float:
    """The statistic of the series itself (NaN below 3 values or without variance)."""
    if x.size < 3:
        return math.nan
    if statistic is bootstrap.mean_of_rows:
        return float(np.mean(x))
    sd = float(np.std(x, ddof=1))
    return float(np.mean(x)) / sd if sd > 0 else math.nan


def _multiple_testing(view: BuildView, trials: Trials) -> dict[str, Any]:
    family = trials.p_values
    own = family.get(view.alpha_id)
    reason = "nwt.ic of this alpha is not measurable (see /metrics), so there is no p-value to adjust"
    if own is None:
        holm = bh = None
    else:
        names = sorted(family)
        values = np.array([family[name] for name in names])
        at = names.index(view.alpha_id)
        holm = float(multiple_testing.holm(values)[at])
        bh = float(multiple_testing.benjamini_hochberg(values)[at])
    extra = {"family_size": len(family)}
    return {
        "p_value": stat(own, "probability", "nwt.ic", "not_annualisable", reason),
        "holm": stat(holm, "probability", "computed", "not_annualisable", reason, **extra),
        "benjamini_hochberg": stat(bh, "probability", "computed", "not_annualisable", reason, **extra),
    }


# -- costs ----------------------------------------------------------------------------------------


def costs_payload(view: BuildView, book: str, window: Window) -> dict[str, Any]:
    sessions_per_year, _ = _conventions(view)
    ledger = inputs.ledger(view, book)
    source = f"portfolio:{book}"
    f = None
    if ledger is not None:
        part = ledger.window(window)
        f = costs.cost_figures(
            part.starting_equity,
            part.ending_equity,
            part.equity_basis,
            part.execution_cost,
            part.turnover_notional,
            sessions_per_year,
        )
    reason = "the build has no ledger for this book" if f is None else f.why_not or ""
    traded_reason = reason if f is None else "the book traded nothing in the window"
    ir_reason = reason if f is None else "fewer than 2 daily returns with variance in the window"

    def capital(value: float | None) -> dict[str, Any]:
        return stat(value, "capital", source, "not_annualisable", reason)

    out: dict[str, Any] = {
        "alpha": view.alpha_id,
        "book": book,
        "window": window_echo(window),
        "sessions": 0 if f is None else f.sessions,
        "net_pnl": capital(None if f is None else f.net_pnl),
        "execution_cost": capital(None if f is None else f.execution_cost),
        "gross_pnl": capital(None if f is None else f.gross_pnl),
        "traded_notional": stat(
            None if f is None else f.traded_notional, "capital", source, "not_annualisable", traded_reason
        ),
        "break_even_multiple": stat(
            None if f is None else f.break_even_multiple, "multiple", "computed", "not_annualisable", reason
        ),
        "break_even_bps": stat(
            None if f is None else f.break_even_bps, "bps", "computed", "not_annualisable", reason
        ),
        "modelled_cost_bps": stat(
            None if f is None else f.modelled_cost_bps, "bps", "computed", "not_annualisable", traded_reason
        ),
        "information_ratio": {
            side: stat(
                None if f is None else getattr(f, f"{side}_information_ratio"),
                "ratio",
                "computed",
                "annualised",
                ir_reason,
                periods_per_year=sessions_per_year,
            )
            for side in ("gross", "net")
        },
    }
    out.update(_turnover(view, book, window))
    return out


def _turnover(view: BuildView, book: str, window: Window) -> dict[str, Any]:
    rows = inputs.table_rows(view, "analytics_turnover", book)
    reason = "the book has no target weights in the decisions (only the base books do)"
    if rows is None or rows.num_rows == 0:
        return {
            "turnover_by_decile": None,
            "holding_period": not_measurable(
                reason, unit="weeks", source="decisions", annualisation="not_annualisable"
            ),
        }
    days = rows.column("date").cast("int32").to_numpy()
    low, high = _day_bounds(window)
    keep = (days >= low) & (days <= high)
    bucket = rows.column("bucket").to_numpy()[keep].astype(np.int64)
    turnover = rows.column("turnover").to_numpy()[keep]
    gross = rows.column("gross_weight").to_numpy()[keep]
    week = days[keep]
    weeks, week_index = np.unique(week, return_inverse=True)
    per_week_turnover = np.bincount(week_index, weights=turnover, minlength=weeks.size)
    per_week_gross = np.bincount(week_index, weights=gross, minlength=weeks.size)
    bucketed_weeks = np.unique(week[bucket > 0])
    deciles = []
    for q in range(1, DECILES + 1):
        mine = bucket == q
        mean = float(np.sum(turnover[mine]) / bucketed_weeks.size) if bucketed_weeks.size else math.nan
        deciles.append(
            {
                "bucket": f"Q{q}",
                "rank": q,
                "weeks": int(np.count_nonzero(mine)),
                "mean_turnover": number(mean),
            }
        )
    outside = bucket == 0
    holding = costs.holding_period_weeks(per_week_gross, per_week_turnover)
    return {
        "turnover_by_decile": {
            "score_field": "raw_score",
            "weight_field": f"{book}_target_weight",
            "weeks": int(weeks.size),
            "bucketed_weeks": int(bucketed_weeks.size),
            "mean_weekly_turnover": number(float(np.mean(per_week_turnover))) if weeks.size else None,
            "unbucketed_mean_turnover": number(float(np.sum(turnover[outside]) / weeks.size))
            if weeks.size
            else None,
            "buckets": deciles,
        },
        "holding_period": stat(
            holding,
            "weeks",
            "decisions",
            "not_annualisable",
            "no turnover of target weights in the window"
            if weeks.size
            else "no week of the window has a previous one",
        ),
    }


def _day_bounds(window: Window) -> tuple[int, int]:
    """The inclusive window as days since 1970 (open sides as the int32 range)."""
    start, end = window
    return (
        -(2**31) if start is None else day_number(start),
        2**31 - 1 if end is None else day_number(end),
    )


# -- correlation ----------------------------------------------------------------------------------

OVERLAP_UNITS = {"returns": "sessions", "ic": "weeks", "scores": "weeks"}


def correlation_row(alpha: str, basis: str, found: Correlation) -> dict[str, Any]:
    headline = found.spearman if basis == "scores" else found.pearson
    return {
        "alpha": alpha,
        "correlation": number(headline),
        "pearson": number(found.pearson),
        "spearman": number(found.spearman),
        "overlap": found.overlap,
        "overlap_unit": OVERLAP_UNITS[basis],
        "common_names": number(found.common_names),
    }


def sort_correlations(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """By absolute correlation, descending; rows without one last; ties by alpha id ascending."""
    return sorted(
        rows,
        key=lambda r: (r["correlation"] is None, -abs(r["correlation"] or 0.0), r["alpha"]),
    )
