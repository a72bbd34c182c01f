"""The metrics documentation block (`/metrics/_doc`, and `data.doc` with `doc=1`).

Identical for every alpha and every call. `fields` has an entry for every dotted path the metrics
payload can contain: objects and leaves, array elements written `name[]` (so `periods[].core.ic`);
`tests/metrics` walks served payloads and fails on a path without an entry.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from schemas.bodies.base import meanings
from schemas.bodies.metrics import STAT_KEYS, Stat
from serve.metrics.newey_west import MIN_N
from serve.metrics.stats import WARNING_CODES

SCHEMA_VERSION = "2.0.0"

FULL = "the run's full evaluation window (from/to do not narrow it)"
WINDOW = "the requested window (from/to), else the run's full window"
LAG_RULE = "lag = max(floor(4 * (n/100)^(2/9)), minimum lag), capped at n-1"


def _field(
    meaning: str,
    formula: str | None = None,
    *,
    horizon: str = WINDOW,
    granularity: str = "overall",
    source: str = "computed",
    unit: str | None = None,
    signal: str | None = None,
    availability: str | None = None,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "meaning": meaning,
        "formula": formula,
        "horizon": horizon,
        "granularity": granularity,
        "source": source,
        "unit": unit,
    }
    if signal is not None:
        entry["signal"] = signal
    if availability is not None:
        entry["availability"] = availability
    return entry


# stat name -> (meaning, formula, unit, signal, stored metric names)
_CORE_STATS: dict[str, tuple[str, str, str, str | None]] = {
    "ic": (
        "Mean weekly information coefficient of the conditioned score",
        "mean over weeks of Spearman(score, forward_return) (stored metric mean_ic)",
        "ratio",
        "conditioned",
    ),
    "icir": (
        "Information ratio of the weekly IC: per week, times sqrt(52) only when the run's conventions "
        "annualise it (annualisation says which); /analytics rolling and significance icir are always per week",
        "mean(weekly IC) / std(weekly IC, ddof=1), times sqrt(52) when annualised (stored metric icir)",
        "ratio",
        "conditioned",
    ),
    "information_ratio": (
        "Risk-adjusted return of the long_short book, after costs and gross of the risk-free rate (not in "
        "excess of it, unlike excess_sharpe): daily returns times sqrt(252), as /analytics significance; "
        "/analytics rolling's is weekly times sqrt(52), and /analytics costs' gross is before costs",
        "mean / std(ddof=1) of daily returns ending/starting - 1, times sqrt(252)",
        "ratio",
        None,
    ),
    "excess_sharpe": (
        "Sharpe ratio of the long_short book net of the risk-free rate",
        "mean / std(ddof=1) of daily (return - risk_free_return), times sqrt(252)",
        "ratio",
        None,
    ),
    "sharpe": (
        "Deprecated alias of core.information_ratio (same value)",
        "equals information_ratio",
        "ratio",
        None,
    ),
    "pnl": (
        "Profit and loss of the long_short book over the run, in units of its starting capital "
        "(the ledger is normalised to 1.0 at inception)",
        "last ending_equity - 1.0 (stored metric pnl, scope overall)",
        "ratio",
        None,
    ),
    "max_drawdown": (
        "Largest fall from a running equity peak (opening equity counts)",
        "max over sessions of (peak_equity - ending_equity)",
        "ratio",
        None,
    ),
    "max_drawdown_pct": (
        "Largest drawdown as a percentage of its peak",
        "max over sessions of 100 * (peak_equity - ending_equity) / peak_equity",
        "percentage_points",
        None,
    ),
    "turnover": (
        "Turnover of the long_short book; the first sealed of annualised_turnover (per_year), "
        "turnover (ratio), mean_turnover (per_session), total_turnover (period_sum)",
        "annualised = mean session turnover x 252; total = sum of session turnover; "
        "session turnover = half the sum of absolute weight changes",
        "see unit on the entry",
        None,
    ),
}

# stat name -> (meaning, formula) where a period's stored metric is not the overall one restricted.
_PERIOD_STATS: dict[str, tuple[str, str]] = {
    "pnl": (
        "Equity change of the long_short book over the period, in units of the book's starting capital "
        "(inception equity 1.0), not a return on the period's opening equity",
        "last ending_equity of the period - first starting_equity of the period "
        "(stored metric pnl, scope yearly or monthly)",
    ),
}

_STAT_KEYS = {key: meanings(Stat)[key] for key in STAT_KEYS}
"""The meaning of each key of a stat entry, declared on `Stat` (suffixed with the stat's name below)."""


def _stat_fields(prefix: str, name: str, granularity: str, horizon: str) -> dict[str, dict[str, Any]]:
    meaning, formula, unit, signal = _CORE_STATS[name]
    if granularity != "overall" and name in _PERIOD_STATS:
        meaning, formula = _PERIOD_STATS[name]
    out = {
        prefix: _field(
            meaning,
            formula,
            horizon=horizon,
            granularity=granularity,
            source="metrics",
            unit=unit,
            signal=signal,
        )
    }
    for key, key_meaning in _STAT_KEYS.items():
        out[f"{prefix}.{key}"] = _field(
            f"{key_meaning} ({name})",
            horizon=horizon,
            granularity=granularity,
            source="metrics",
            unit=unit if key == "value" else None,
            signal=signal if key in ("value", "signal") else None,
        )
    if name == "excess_sharpe":
        out[f"{prefix}.risk_free_rate"] = _field(
            "Annual risk-free rate the excess return is measured against (the run's, sealed overall)",
            "mean session risk_free_return x 252",
            horizon=FULL,
            granularity=granularity,
            source="metrics",
            unit="per_year",
        )
        out[f"{prefix}.risk_free_rate_unit"] = _field(
            "Unit of risk_free_rate (per_year)", horizon=FULL, granularity=granularity, source="metrics"
        )
        out[f"{prefix}.risk_free_rate_source"] = _field(
            "Where the run took its risk-free rate from (prose from the run's metric conventions)",
            horizon=FULL,
            granularity=granularity,
            source="alpha",
        )
    if name == "sharpe":
        out[f"{prefix}.deprecated"] = _field(
            "Always true: sharpe is kept for compatibility", granularity=granularity, source="metrics"
        )
        out[f"{prefix}.superseded_by"] = _field(
            "Path of the field to use instead (core.information_ratio)",
            granularity=granularity,
            source="metrics",
        )
    return out


def _tenure_fields(prefix: str, granularity: str, horizon: str) -> dict[str, dict[str, Any]]:
    def f(meaning: str, formula: str | None = None, unit: str | None = None) -> dict[str, Any]:
        return _field(
            meaning, formula, horizon=horizon, granularity=granularity, source="rebalances", unit=unit
        )

    return {
        prefix: f(
            "How long the run has been live inside the window; null when neither a rebalance "
            "index nor a readable ledger exists"
        ),
        f"{prefix}.weeks": f(
            "Rebalance dates in the window, pending and skipped weeks included; null with source portfolio",
            unit="weeks",
        ),
        f"{prefix}.traded_weeks": f(
            "Rebalance dates with week_status traded; null with source portfolio", unit="weeks"
        ),
        f"{prefix}.first_rebalance": f("First rebalance date in the window; null with source portfolio"),
        f"{prefix}.last_rebalance": f("Last rebalance date in the window; null with source portfolio"),
        f"{prefix}.calendar_days": f(
            "Elapsed days between the first and last rebalance (or, with source "
            "portfolio, the first and last ledger session)",
            "last - first",
            unit="days",
        ),
        f"{prefix}.years": f("calendar_days in years", "calendar_days / 365.25", unit="years"),
        f"{prefix}.source": f(
            "rebalances (the rebalance index) or portfolio (ledger session span "
            "fallback when the run has no rebalance index)"
        ),
    }


def _core_fields(prefix: str, granularity: str, horizon: str) -> dict[str, dict[str, Any]]:
    out = {
        prefix: _field(
            "Headline statistics of the long_short book, as the run stored them",
            horizon=horizon,
            granularity=granularity,
            source="metrics",
        )
    }
    for name in _CORE_STATS:
        out.update(_stat_fields(f"{prefix}.{name}", name, granularity, horizon))
    out.update(
        _tenure_fields(
            f"{prefix}.tenure",
            granularity,
            WINDOW if prefix == "core" else "the period, intersected with the requested window",
        )
    )
    return out


def _hac_fields(
    prefix: str, what: str, horizon: str, signal: str | None, source: str
) -> dict[str, dict[str, Any]]:
    def f(meaning: str, formula: str | None = None, unit: str | None = None) -> dict[str, Any]:
        return _field(meaning, formula, horizon=horizon, source=source, unit=unit, signal=signal)

    return {
        prefix: f(f"Newey-West test that the mean of {what} is zero; null (with a warning) when refused"),
        f"{prefix}.lag": f("Bartlett kernel lag used", LAG_RULE),
        f"{prefix}.n": f(f"Observations (finite values, date order); at least {MIN_N} are required"),
        f"{prefix}.mean": f(f"Mean of {what}", unit="ratio"),
        f"{prefix}.standard_error": f(
            "HAC standard error of the mean, no small-sample correction (equals statsmodels "
            "OLS(y, ones).fit(cov_type='HAC', cov_kwds={'maxlags': lag}))",
            "sqrt(sum e_t^2 + 2 sum_j (1 - j/(lag+1)) sum_t e_t e_{t-j}) / n, e = y - mean",
            unit="ratio",
        ),
        f"{prefix}.t_stat": f("mean / standard_error"),
        f"{prefix}.p_value": f("Two-sided p-value from the standard normal", "erfc(|t| / sqrt(2))"),
    }


def _build_fields() -> dict[str, dict[str, Any]]:
    fields: dict[str, dict[str, Any]] = {
        "granularity": _field(
            "Echo of the granularity parameter: overall, yearly or monthly", source="request"
        ),
        "window": _field("Echo of the requested window; nulls mean the full window", source="request"),
        "window.from": _field("First day of the window (inclusive) or null", source="request"),
        "window.to": _field("Last day of the window (inclusive) or null", source="request"),
        "doc_url": _field("Path of this documentation block for the alpha", source="service"),
        "alpha": _field("Collection served (equals meta.run)", source="alpha"),
        "alpha_id": _field("The research source id of the run", source="alpha"),
        "annualisation_factors": _field("Annualisation factors the run uses", source="alpha"),
        "annualisation_factors.weekly": _field(
            "Weeks per year (52): weekly series scale by sqrt(52)", source="alpha"
        ),
        "annualisation_factors.daily": _field(
            "Sessions per year (252): daily series scale by sqrt(252)", source="alpha"
        ),
        "doc": _field("This documentation block, embedded with doc=1", source="service"),
    }
    fields.update(_core_fields("core", "overall", FULL))
    fields["periods"] = _field(
        "Stored statistics per calendar period overlapping the window; null at granularity overall",
        horizon="each period (a period partly inside the window is served whole)",
        granularity="yearly or monthly",
        source="metrics",
    )
    fields["periods[].period"] = _field(
        "Period label: YYYY (yearly) or YYYY-MM (monthly)", granularity="yearly or monthly", source="metrics"
    )
    fields.update(_core_fields("periods[].core", "yearly or monthly", "the period"))

    fields["rank_ic"] = _field(
        "IC diagnostics the run stored; null when no stored metrics", horizon=FULL, source="metrics"
    )
    fields["rank_ic.conditioned"] = _field(
        "Diagnostics of the conditioned score", horizon=FULL, source="metrics", signal="conditioned"
    )
    fields["rank_ic.raw"] = _field(
        "Mean IC and ICIR of the raw (unconditioned) score; the only place they are served",
        horizon=FULL,
        source="metrics",
        signal="raw",
    )
    rank_stats = {
        "conditioned.hit_rate": ("Share of weeks with IC > 0", "ic_hit_rate", "conditioned"),
        "conditioned.dispersion": ("Standard deviation of the weekly IC", "ic_dispersion", "conditioned"),
        "conditioned.coverage": (
            "Mean over weeks of scored names / universe size",
            "coverage",
            "conditioned",
        ),
        "raw.ic": ("Mean weekly Spearman(raw_score, forward_return)", "raw_mean_ic", "raw"),
        "raw.icir": (
            "Mean / std(ddof=1) of the raw weekly IC, times sqrt(52) when annualised",
            "raw_icir",
            "raw",
        ),
    }
    for path, (meaning, stored, signal) in rank_stats.items():
        prefix = f"rank_ic.{path}"
        fields[prefix] = _field(
            meaning, f"stored metric {stored}", horizon=FULL, source="metrics", unit="ratio", signal=signal
        )
        for key, key_meaning in _STAT_KEYS.items():
            fields[f"{prefix}.{key}"] = _field(key_meaning, horizon=FULL, source="metrics", signal=signal)

    fields["signal_processing"] = _field(
        "How the conditioned score was made from the raw score", source="alpha"
    )
    for key, meaning in {
        "signal": "Signal family the books trade (conditioned)",
        "smoothing_applied": "Whether the raw score was smoothed",
        "smoothing_half_life_weeks": "Half-life of the exponential smoothing, in weeks (null when none)",
        "detail": "Prose description of the conditioning",
    }.items():
        fields[f"signal_processing.{key}"] = _field(meaning, source="alpha")

    deciles_availability = (
        "null when the key may not read cross-sections (access_limited), the run has no cross-sections "
        "(missing_kind), no forward returns (forward_returns_absent), or no usable week in the window "
        "(insufficient_data)"
    )

    def decile(meaning: str, formula: str | None = None, unit: str | None = None) -> dict[str, Any]:
        return _field(
            meaning,
            formula,
            source="weekly_deciles",
            unit=unit,
            signal="raw",
            granularity="weekly, aggregated",
            availability=deciles_availability,
        )

    fields["ic_deciles"] = decile(
        "Ten buckets of each week's raw_score (Q1 lowest); bucket statistics are means over weeks of the "
        "weekly bucket means. Weeks with fewer than 20 scored names, or whose non-null raw_scores are all "
        "equal (fewer than 2 distinct values, so no ranking to bucket), are skipped and counted; other weeks "
        "without forward returns (pending) are dropped"
    )
    fields.update(
        {
            "ic_deciles.score_field": decile("Score bucketed (raw_score)"),
            "ic_deciles.signal": decile("raw"),
            "ic_deciles.bucket_count": decile("Number of buckets (10)"),
            "ic_deciles.weeks": decile(
                "Weeks used: at least 20 scored names, at least 2 distinct raw_score values, and forward "
                "returns",
                unit="weeks",
            ),
            "ic_deciles.weeks_skipped": decile(
                "Weeks in the window not bucketed: fewer than 20 scored names, or fewer than 2 distinct "
                "raw_score values (every raw_score equal)",
                unit="weeks",
            ),
            "ic_deciles.forward_returns": decile("present when forward returns were sealed"),
            "ic_deciles.monotonicity": decile("How monotone mean forward return is across buckets"),
            "ic_deciles.monotonicity.spearman_bucket_vs_mean_forward_return": decile(
                "Spearman correlation of bucket index 1..10 with the bucket mean forward return", unit="ratio"
            ),
            "ic_deciles.monotonicity.top_minus_bottom": decile(
                "Mean forward return of Q10 minus that of Q1",
                "buckets[Q10].mean_forward_return - buckets[Q1].mean_forward_return",
                unit="ratio",
            ),
            "ic_deciles.buckets": decile("One entry per bucket, Q1..Q10"),
            "ic_deciles.buckets[].bucket": decile("Q1 (lowest raw_score) .. Q10 (highest)"),
            "ic_deciles.buckets[].rank": decile("Bucket index 1..10"),
            "ic_deciles.buckets[].weeks": decile("Weeks contributing to the bucket", unit="weeks"),
            "ic_deciles.buckets[].mean_n_symbols": decile("Mean names per week in the bucket", unit="names"),
            "ic_deciles.buckets[].mean_score": decile("Mean of weekly mean raw_score", unit="score units"),
            "ic_deciles.buckets[].mean_score_z": decile("Mean of weekly mean raw_score_z", unit="ratio"),
            "ic_deciles.buckets[].mean_long_short_weight": decile(
                "Mean of weekly mean long_short target weight", unit="ratio"
            ),
            "ic_deciles.buckets[].mean_long_only_weight": decile(
                "Mean of weekly mean long_only target weight", unit="ratio"
            ),
            "ic_deciles.buckets[].mean_forward_return": decile(
                "Mean of weekly mean forward return (names with a forward return)", unit="ratio"
            ),
            "ic_deciles.buckets[].ic": decile(
                "Mean of the weekly Spearman(raw_score, forward_return) inside the bucket", unit="ratio"
            ),
            "ic_deciles.buckets[].n_return_obs": decile(
                "Forward-return observations summed over weeks", unit="names"
            ),
        }
    )

    fields["nwt"] = _field("Newey-West (Bartlett kernel) tests of means", source="computed")
    fields.update(_hac_fields("nwt.ic", "the conditioned weekly IC", FULL, "conditioned", "weekly_signal"))
    fields["nwt.ic"]["availability"] = (
        "published only when mean(weekly IC) rebuilt from the cross-sections equals the sealed mean IC within "
        "1e-6 (else ic_reproduction_mismatch; ic_family_mismatch without cross-sections)"
    )
    fields["nwt.ic.source"] = _field("computed (rebuilt from the rebalance cross-sections)", horizon=FULL)
    fields["nwt.ic.source_kind"] = _field("derived", horizon=FULL)
    fields["nwt.ic.signal"] = _field("conditioned", horizon=FULL, signal="conditioned")
    fields.update(
        _hac_fields(
            "nwt.ic_score_panel", "weekly Spearman(raw_score, forward_return)", WINDOW, "raw", "weekly_signal"
        )
    )
    fields["nwt.ic_score_panel.source"] = _field("computed (from the rebalance cross-sections)")
    fields["nwt.ic_score_panel.source_kind"] = _field("derived")
    fields["nwt.ic_score_panel.signal"] = _field("raw", signal="raw")
    fields.update(
        _hac_fields("nwt.ir", "daily long_short returns (ending/starting - 1)", WINDOW, None, "portfolio")
    )
    fields["nwt.ir.source"] = _field("portfolio (the long_short ledger)", source="portfolio")
    fields["nwt.ir.frequency"] = _field("daily: one observation per ledger session", source="portfolio")

    def panel(
        meaning: str, formula: str | None = None, unit: str | None = None, signal: str | None = "raw"
    ) -> dict[str, Any]:
        return _field(
            meaning,
            formula,
            source="weekly_signal",
            granularity="weekly",
            unit=unit,
            signal=signal,
            availability="only with panel=1; null whenever ic_deciles is null",
        )

    fields.update(
        {
            "panel": panel("Weekly series of the window (panel=1)"),
            "panel.signal": panel("raw: every panel series except ic_weekly is built on raw_score"),
            "panel.ic_weekly": panel(
                "Weekly conditioned IC, weeks with a computable IC; over the full window its mean is core.ic",
                signal="conditioned",
            ),
            "panel.ic_weekly[].date": panel("Rebalance date", signal="conditioned"),
            "panel.ic_weekly[].ic": panel(
                "Spearman(score, forward_return) that week", unit="ratio", signal="conditioned"
            ),
            "panel.decile_spread_weekly": panel("Weekly Q10 minus Q1 mean forward return (eligible weeks)"),
            "panel.decile_spread_weekly[].date": panel("Rebalance date"),
            "panel.decile_spread_weekly[].spread": panel(
                "Q10 mean forward return - Q1 mean forward return", unit="ratio"
            ),
            "panel.ic_term_structure": panel(
                "IC of raw_score against forward returns compounded over 1, 2, 4 and 8 consecutive weeks"
            ),
            "panel.ic_term_structure[].horizon_weeks": panel("Horizon h in weeks", unit="weeks"),
            "panel.ic_term_structure[].mean_ic": panel(
                "Mean over weeks of Spearman(raw_score, prod(1 + r) - 1 "
                "over the next h weekly forward returns)",
                unit="ratio",
            ),
            "panel.ic_term_structure[].weeks": panel("Weeks with a computable h-week IC", unit="weeks"),
        }
    )
    fields.update(
        {
            k.replace("nwt.ic_score_panel", "panel.ic_term_structure[].newey_west"): {
                **v,
                "source": "weekly_term",
                "availability": "null (insufficient_data) with fewer than 10 weeks; lag is at least h-1 because "
                "h-week returns of consecutive weeks overlap",
            }
            for k, v in _hac_fields(
                "nwt.ic_score_panel", "the h-week IC", WINDOW, "raw", "weekly_term"
            ).items()
        }
    )
    fields.update(
        {
            "panel.rank_autocorrelation": panel("Persistence of the raw_score ranking"),
            "panel.rank_autocorrelation[].lag_weeks": panel("Lag in weeks (1..8)", unit="weeks"),
            "panel.rank_autocorrelation[].rho": panel(
                "Mean over weeks of Spearman(raw_score at t, raw_score at "
                "t - lag) over names scored both weeks",
                unit="ratio",
            ),
            "panel.rank_autocorrelation[].weeks": panel("Weeks with a computable correlation", unit="weeks"),
            "panel.coverage": panel("Weekly coverage", signal=None),
            "panel.coverage[].date": panel("Rebalance date", signal=None),
            "panel.coverage[].coverage": panel("cohort_size / universe size", unit="ratio", signal=None),
        }
    )
    return fields


_WARNINGS: dict[str, str] = {
    "missing_kind": "A kind a block needs was not sealed; `kind` names it and the block is null.",
    "missing_core_metrics": "Stored metrics behind some core statistics are absent; those statistics are "
    "served as not_measurable (never zero).",
    "access_limited": "The key may not call the endpoints whose data a block is built from (rebalance "
    "cross-sections: signals.rebalances.get or signals.scores; ledger: portfolio.ledger); the block is null.",
    "forward_returns_absent": "The run sealed no forward returns; ic_deciles, nwt.ic_score_panel and panel are "
    "null.",
    "insufficient_data": f"Too few observations for the block (Newey-West needs {MIN_N}; ic_deciles needs a "
    "week with at least 20 scored names, at least 2 distinct raw_score values and forward returns); the block "
    "is null.",
    "nonpositive_variance": "The long-run variance of the series is zero, so no t statistic exists; the block "
    "is null.",
    "window_lifetime_only": "from/to were given, but the named block describes the run's full window "
    "(stored metrics, nwt.ic).",
    "block_error": "The block failed to compute; it is null and the failure was logged.",
    "ic_family_mismatch": "The run has no rebalance cross-sections, so the conditioned IC cannot be rebuilt "
    "and nwt.ic is null.",
    "ic_reproduction_mismatch": "mean(weekly IC) rebuilt from the cross-sections differs from the sealed mean "
    "IC by more than 1e-6 (or no mean IC was sealed); nwt.ic is null because it would not test core.ic.",
    "kind_missing": "Emitted by collection endpoints for a kind that was not sealed; the metrics endpoint "
    "reports the same condition as missing_kind.",
}

_ENDPOINT: dict[str, str] = {
    "path": "GET /v1/alphas/{alpha}/metrics with from, to (YYYY-MM-DD), granularity (overall, yearly, "
    "monthly), doc (boolean: embed this block under data.doc), panel (boolean: add data.panel).",
    "identity": "data.alpha is the collection served (meta.run); data.alpha_id is the run's research source "
    "id. Every figure is measured on the long_short book; there is no book parameter.",
    "parameters": "granularity adds periods ([{period, core}]) from the run's stored yearly or monthly "
    "metrics. panel=1 adds weekly series. doc=1 embeds this block.",
    "window_semantics": "from/to narrow the derived blocks (ic_deciles, nwt.ic_score_panel, nwt.ir, "
    "core.tenure, panel) and select the periods that overlap the window. Stored statistics (core except "
    "tenure, rank_ic) and nwt.ic describe the run's full window; a window_lifetime_only warning says so.",
    "access": "The key needs performance.metrics. Blocks built from rebalance cross-sections (ic_deciles, "
    "nwt.ic, nwt.ic_score_panel, panel) need signals.rebalances.get or signals.scores; blocks built from the "
    "ledger (nwt.ir, the tenure fallback) need portfolio.ledger. Otherwise they are null with access_limited.",
    "signal_families": "conditioned = score (smoothed; what the books trade); raw = raw_score (before "
    "smoothing). core.ic, core.icir, nwt.ic and panel.ic_weekly are conditioned; rank_ic.raw, "
    "nwt.ic_score_panel, ic_deciles and the other panel series are raw. They never substitute for each other.",
    "annualisation": "Weekly series annualise by sqrt(52), daily by sqrt(252); each annualised entry carries "
    "periods_per_year and data.annualisation_factors echoes both.",
    "newey_west": f"Bartlett kernel, {LAG_RULE}; the minimum lag is h-1 for overlapping h-week horizons and 0 "
    f"otherwise. Series are sorted by date and non-finite values dropped; fewer than {MIN_N} observations is "
    "refused with insufficient_data. No small-sample correction; p-values two-sided from the standard "
    "normal (statsmodels OLS on a constant with cov_type='HAC' and its defaults gives identical numbers).",
    "not_measurable": "A statistic that cannot be measured is {status: not_measurable, value: null, "
    "withheld_reason}, never zero.",
    "warnings": "meta.warnings entries are {code, message, block?, kind?}; codes are listed under warnings.",
}


@cache
def _doc() -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "endpoint": _ENDPOINT,
        "fields": dict(sorted(_build_fields().items())),
        "warnings": {code: _WARNINGS[code] for code in WARNING_CODES},
    }


def metrics_doc() -> dict[str, Any]:
    """The documentation block (a copy: callers may not alter the shared one)."""
    return copy.deepcopy(_doc())


def shared_metrics_doc() -> dict[str, Any]:
    """The cached block itself, for encoders that never mutate it (the request path)."""
    return _doc()
