"""The metrics object (`GET /v1/alphas/{alpha}/metrics`): its shape and, on each field, what it
means, how it is computed, its unit and the facts `/metrics/_doc` lists (`figure`,
schemas/bodies/figures.py). The documentation block's `fields`, the OpenAPI components and the
generated client are all read from here.

`analytics.metrics` builds the object as these Structs, reading each statistic's unit,
annualisation and signal from its field (`field_facts`). A block that fails to compute is served null
(`block_error`), so every computed block (core, rank_ic, signal_processing, periods, ic_deciles,
panel, each `nwt` test) may be null; the stat entries inside a block are always objects
(`not_measurable` when there is no value, never null).

Facts inherited by what a field contains (`METRICS_BLOCK.inherited`): horizon, granularity,
source, signal and availability. Defaults: the requested window, `overall`, `computed`.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, UnsetType

from schemas import terms
from schemas.bodies import libraries
from schemas.bodies.base import Body, Window, meanings
from schemas.bodies.docs import MetricsDoc
from schemas.bodies.figures import Block, documented, figure
from schemas.bodies.formats import SEAL_TEXT

FULL = "the run's full evaluation window (from/to do not narrow it)"
WINDOW = "the requested window (from/to), else the run's full window"
NEWEY_WEST_MIN_N = 10
"""Observations a Newey-West test needs (analytics.newey_west refuses fewer)."""
LAG_RULE = "lag = max(floor(4 * (n/100)^(2/9)), minimum lag), capped at n-1"
TURNOVERS = (
    ("annualised_turnover", "per_year", "annualised"),
    ("turnover", "ratio", "per_period"),
    ("mean_turnover", "per_session", "per_period"),
    ("total_turnover", "period_sum", "not_annualisable"),
)
"""The stored turnovers `core.turnover` serves, in order of preference: (stored name, unit,
annualisation); the one place their units are stated."""
TURNOVER_ANNUALISATIONS = {unit: annualisation for _, unit, annualisation in TURNOVERS}
"""The annualisation of a turnover stated in each of TURNOVERS' units."""
UNSEALED_TURNOVER_UNIT = "ratio"
"""The unit of `core.turnover` when the run sealed none of TURNOVERS (its value is then null)."""


class Stat(Body, kw_only=True, frozen=True):
    """One statistic: a value with its unit, or `not_measurable` with a null value and a reason.
    Its fields' meanings are also those of every stat entry in `/metrics/_doc`."""

    value: Annotated[float | None, Meta(description="The number; null when not measurable")]
    unit: Annotated[
        str, Meta(description="Unit of value: ratio, percentage_points, per_year, per_session, period_sum")
    ]
    status: Annotated[str, Meta(description="available or not_measurable")]
    withheld_reason: (
        Annotated[str, Meta(description="Why the value is not measurable (present only then)")] | UnsetType
    ) = UNSET
    source: Annotated[str, Meta(description="Where the value comes from: metrics (the run's stored metrics)")]
    source_kind: Annotated[
        str, Meta(description="fact, metric (stored by the run) or derived (computed by this service)")
    ]
    signal: (
        Annotated[str, Meta(description="IC family only: conditioned (score) or raw (raw_score)")] | UnsetType
    ) = UNSET
    annualisation: (
        Annotated[str, Meta(description="annualised, per_period or not_annualisable")] | UnsetType
    ) = UNSET
    periods_per_year: (
        Annotated[int, Meta(description="Annualisation factor applied: 52 for weekly series, 252 for daily")]
        | UnsetType
    ) = UNSET
    risk_free_rate: float | None | UnsetType = UNSET
    risk_free_rate_unit: str | UnsetType = UNSET
    risk_free_rate_source: str | None | UnsetType = UNSET
    deprecated: bool | UnsetType = UNSET
    superseded_by: str | UnsetType = UNSET


STAT_KEYS = (
    "value",
    "unit",
    "status",
    "source",
    "source_kind",
    "signal",
    "annualisation",
    "periods_per_year",
    "withheld_reason",
)
"""The keys of a stat entry `/metrics/_doc` documents under every statistic."""


class Tenure(Body, kw_only=True, frozen=True):
    """`core.tenure` (and `periods[].core.tenure`) of the metrics object."""

    weeks: Annotated[
        int | None,
        figure(
            "Rebalance dates in the window, pending and skipped weeks included; null with source portfolio",
            term=terms.WEEKS,
        ),
    ]
    traded_weeks: Annotated[
        int | None,
        figure(
            "Rebalance dates with week_status traded; null with source portfolio", term=terms.TRADED_WEEKS
        ),
    ]
    first_rebalance: Annotated[
        dt.date | None, figure("First rebalance date in the window; null with source portfolio")
    ]
    last_rebalance: Annotated[
        dt.date | None, figure("Last rebalance date in the window; null with source portfolio")
    ]
    calendar_days: Annotated[
        int | None,
        figure(
            "Elapsed days between the first and last rebalance (or, with source "
            "portfolio, the first and last ledger session)",
            "last - first",
            term=terms.CALENDAR_DAYS,
        ),
    ]
    years: Annotated[
        float | None, figure("calendar_days in years", "calendar_days / 365.25", term=terms.YEARS)
    ]
    source: Annotated[
        str,
        figure(
            "rebalances (the rebalance index) or portfolio (ledger session span "
            "fallback when the run has no rebalance index)"
        ),
    ]


class CoreStats(Body, kw_only=True, frozen=True):
    """Headline statistics, always of the long_short book."""

    ic: Annotated[
        Stat,
        figure(
            "Mean weekly information coefficient of the conditioned score, as the run sealed it (an "
            "ic_reproduction_mismatch warning says when the weekly IC rebuilt from its cross-sections does not "
            "reproduce it; the screener's ic_reproduces is that flag)",
            "mean over weeks of Spearman(score, forward_return) (stored metric mean_ic)",
            signal="conditioned",
            term=terms.IC,
        ),
    ]
    icir: Annotated[
        Stat,
        figure(
            "Information ratio of the weekly IC, annualised for every run (times sqrt(52), the run's "
            "weeks_per_year), as every served icir is (the screener, /analytics compare, rolling, significance): "
            "the sealed value where the run's conventions annualise it (source_kind metric), else the sealed "
            "per-week ratio times sqrt(52) (source_kind derived); icir_per_week is the per-week ratio",
            "mean(weekly IC) / std(weekly IC, ddof=1) * sqrt(52) (stored metric icir, times sqrt(52) where the "
            "run sealed it per week)",
            signal="conditioned",
            term=terms.ICIR,
        ),
    ]
    icir_per_week: Annotated[
        Stat,
        figure(
            "Information ratio of the weekly IC per week (not annualised): the sealed value where the run sealed "
            "it per week (source_kind metric), else the sealed annualised icir divided by sqrt(52) (source_kind "
            "derived); icir is this times sqrt(52)",
            "mean(weekly IC) / std(weekly IC, ddof=1) (stored metric icir, divided by sqrt(52) where the run "
            "sealed it annualised)",
            signal="conditioned",
            term=terms.ICIR_PER_WEEK,
        ),
    ]
    information_ratio: Annotated[
        Stat,
        figure(
            "Risk-adjusted return of the long_short book, after costs and gross of the risk-free rate (not in "
            "excess of it, unlike excess_sharpe): daily returns times sqrt(252), as /analytics significance; "
            "/analytics rolling's is weekly times sqrt(52), and /analytics costs' gross is before costs. "
            f"Elsewhere: {libraries.INFORMATION_RATIO}",
            "mean / std(ddof=1) of daily returns ending/starting - 1, times sqrt(252)",
            term=terms.INFORMATION_RATIO,
        ),
    ]
    excess_sharpe: Annotated[
        Stat,
        figure(
            f"Sharpe ratio of the long_short book net of the risk-free rate: {libraries.EXCESS_SHARPE}",
            "mean / std(ddof=1) of daily (return - risk_free_return), times sqrt(252)",
            keys={
                "risk_free_rate": figure(
                    "Annual risk-free rate the excess return is measured against (the run's, sealed overall)",
                    "mean session risk_free_return x 252",
                    horizon=FULL,
                    term=terms.RISK_FREE_RATE,
                ),
                "risk_free_rate_unit": figure("Unit of risk_free_rate (per_year)", horizon=FULL),
                "risk_free_rate_source": figure(
                    "Where the run took its risk-free rate from (prose from the run's metric conventions)",
                    horizon=FULL,
                    source="alpha",
                ),
            },
            term=terms.EXCESS_SHARPE,
        ),
    ]
    sharpe: Annotated[
        Stat,
        figure(
            "Deprecated alias of core.information_ratio (same value)",
            "equals information_ratio",
            keys={
                "deprecated": figure("Always true: sharpe is kept for compatibility"),
                "superseded_by": figure("Path of the field to use instead (core.information_ratio)"),
            },
            term=terms.SHARPE,
        ),
    ]
    pnl: Annotated[
        Stat,
        figure(
            "Profit and loss of the long_short book over the run, in units of its starting capital "
            "(the ledger is normalised to 1.0 at inception)",
            "last ending_equity - 1.0 (stored metric pnl, scope overall)",
            where={
                "periods[]": {
                    "meaning": "Equity change of the long_short book over the period, in units of the book's "
                    "starting capital (inception equity 1.0), not a return on the period's opening equity",
                    "formula": "last ending_equity of the period - first starting_equity of the period "
                    "(stored metric pnl, scope yearly or monthly)",
                }
            },
            term=terms.SEALED_PNL,
        ),
    ]
    max_drawdown: Annotated[
        Stat,
        figure(
            "Largest fall from a running equity peak (opening equity counts), in equity units (starting capital "
            f"1.0); {libraries.MAX_DRAWDOWN}",
            "max over sessions of (peak_equity - ending_equity)",
            term=terms.MAX_DRAWDOWN,
        ),
    ]
    max_drawdown_pct: Annotated[
        Stat,
        figure(
            f"Largest drawdown as a percentage of its peak, positive; {libraries.MAX_DRAWDOWN}",
            "max over sessions of 100 * (peak_equity - ending_equity) / peak_equity",
            term=terms.MAX_DRAWDOWN_PCT,
        ),
    ]
    turnover: Annotated[
        Stat,
        figure(
            "Turnover of the long_short book; the first sealed of "
            + ", ".join(f"{name} ({unit})" for name, unit, _ in TURNOVERS),
            "annualised = mean session turnover x 252; total = sum of session turnover; "
            "session turnover = half the sum of absolute weight changes",
            term=terms.SEALED_TURNOVER,
        ),
    ]
    annual_turnover: Annotated[
        Stat,
        figure(
            "Turnover of the long_short book per year: the mean session turnover times 252, whichever "
            "turnover the run sealed (turnover in its sealed unit); not measurable when the run sealed only "
            "a turnover ratio (no period to annualise it by) or none, and for a summed turnover when the key "
            "may not read the ledger (its sessions are counted there)",
            "annualised_turnover as sealed; else mean_turnover x 252; else total_turnover / (ledger sessions of "
            "its span) x 252 (the run's whole ledger overall, the period's sessions in periods[])",
            where={
                "periods[]": {
                    "meaning": "Turnover of the long_short book per year over the period: the period's summed "
                    "turnover over its ledger sessions, times 252 (the whole period, as its sum is sealed, "
                    "whatever the requested window)",
                }
            },
            term=terms.ANNUAL_TURNOVER,
        ),
    ]
    tenure: Annotated[
        Tenure | None,
        figure(
            "How long the run has been live inside the window; null when neither a rebalance "
            "index nor a readable ledger exists",
            horizon=WINDOW,
            source="rebalances",
            where={"periods[]": {"horizon": "the period, intersected with the requested window"}},
        ),
    ]


class RankIcConditioned(Body, kw_only=True, frozen=True):
    """`rank_ic.conditioned` of the metrics object."""

    hit_rate: Annotated[
        Stat, figure("Share of weeks with IC > 0", "stored metric ic_hit_rate", term=terms.HIT_RATE)
    ]
    dispersion: Annotated[
        Stat,
        figure("Standard deviation of the weekly IC", "stored metric ic_dispersion", term=terms.DISPERSION),
    ]
    coverage: Annotated[
        Stat,
        figure(
            "Mean over weeks of scored names / universe size", "stored metric coverage", term=terms.COVERAGE
        ),
    ]


class RankIcRaw(Body, kw_only=True, frozen=True):
    """`rank_ic.raw` of the metrics object."""

    # The spec names these `ic` and `icir` (api.md, `rank_ic`); a `raw_` name would also read as a
    # raw-only field, which the spec strips from keys without raw-book access. Their terms say what
    # they are: the raw score's, not core's.
    ic: Annotated[
        Stat,
        figure(
            "Mean weekly Spearman(raw_score, forward_return)",
            "stored metric raw_mean_ic",
            term=terms.RAW_MEAN_IC,
        ),
    ]
    icir: Annotated[
        Stat,
        figure(
            "Mean / std(ddof=1) of the raw weekly IC, annualised for every run as core.icir is: the sealed value "
            "where the run's conventions annualise its ICIR, else the sealed per-week ratio times sqrt(52)",
            "stored metric raw_icir, times sqrt(52) where the run sealed it per week",
            term=terms.RAW_ICIR,
        ),
    ]


class RankIc(Body, kw_only=True, frozen=True):
    """`rank_ic` of the metrics object."""

    conditioned: Annotated[
        RankIcConditioned, figure("Diagnostics of the conditioned score", signal="conditioned")
    ]
    raw: Annotated[
        RankIcRaw,
        figure(
            "Mean IC and ICIR of the raw (unconditioned) score; the only place they are served", signal="raw"
        ),
    ]


class SignalProcessing(Body, kw_only=True, frozen=True):
    """`signal_processing` of the metrics object, as the run sealed it."""

    signal: Annotated[str | None, figure("Signal family the books trade (conditioned)")]
    smoothing_applied: Annotated[bool | None, figure("Whether the raw score was smoothed")]
    # sealed as either; `float` would re-encode 3 as 3.0
    smoothing_half_life_weeks: Annotated[
        int | float | None, figure("Half-life of the exponential smoothing, in weeks (null when none)")
    ]
    detail: Annotated[str | None, SEAL_TEXT, figure("Prose description of the conditioning")]


class Period(Body, kw_only=True, frozen=True):
    """An entry of `periods` of the metrics object."""

    period: Annotated[str, figure("Period label: YYYY (yearly) or YYYY-MM (monthly)")]
    core: Annotated[
        CoreStats,
        figure("Headline statistics of the long_short book, as the run stored them", horizon="the period"),
    ]


class DecileBucket(Body, kw_only=True, frozen=True):
    """An entry of `ic_deciles.buckets` of the metrics object."""

    bucket: Annotated[str, figure("Q1 (lowest raw_score) .. Q10 (highest)")]
    rank: Annotated[int, figure("Bucket index 1..10")]
    weeks: Annotated[int, figure("Weeks contributing to the bucket", term=terms.WEEKS)]
    mean_n_symbols: Annotated[
        float | None, figure("Mean names per week in the bucket", term=terms.MEAN_N_SYMBOLS)
    ]
    mean_score: Annotated[float | None, figure("Mean of weekly mean raw_score", term=terms.MEAN_SCORE)]
    mean_score_z: Annotated[float | None, figure("Mean of weekly mean raw_score_z", term=terms.MEAN_SCORE_Z)]
    mean_long_short_weight: Annotated[
        float | None,
        figure("Mean of weekly mean long_short target weight", term=terms.MEAN_LONG_SHORT_WEIGHT),
    ]
    mean_long_only_weight: Annotated[
        float | None, figure("Mean of weekly mean long_only target weight", term=terms.MEAN_LONG_ONLY_WEIGHT)
    ]
    mean_forward_return: Annotated[
        float | None,
        figure(
            "Mean of weekly mean forward return (names with a forward return)", term=terms.MEAN_FORWARD_RETURN
        ),
    ]
    ic: Annotated[
        float | None,
        figure(
            "Mean of the weekly Spearman(raw_score, forward_return) inside the bucket", term=terms.DECILE_IC
        ),
    ]
    n_return_obs: Annotated[
        int, figure("Forward-return observations summed over weeks", term=terms.N_RETURN_OBS)
    ]


class Monotonicity(Body, kw_only=True, frozen=True):
    """`ic_deciles.monotonicity` of the metrics object."""

    spearman_bucket_vs_mean_forward_return: Annotated[
        float | None,
        figure(
            "Spearman correlation of bucket index 1..10 with the bucket mean forward return",
            term=terms.SPEARMAN_BUCKET_VS_MEAN_FORWARD_RETURN,
        ),
    ]
    top_minus_bottom: Annotated[
        float | None,
        figure(
            "Mean forward return of Q10 minus that of Q1",
            "buckets[Q10].mean_forward_return - buckets[Q1].mean_forward_return",
            term=terms.TOP_MINUS_BOTTOM,
        ),
    ]


class IcDeciles(Body, kw_only=True, frozen=True):
    """`ic_deciles` of the metrics object."""

    score_field: Annotated[str, figure("Score bucketed (raw_score)")]
    signal: Annotated[str, figure("raw")]
    bucket_count: Annotated[int, figure("Number of buckets (10)")]
    weeks: Annotated[
        int,
        figure(
            "Weeks used: at least 20 scored names, at least 2 distinct raw_score values, and forward returns",
            term=terms.WEEKS,
        ),
    ]
    buckets: Annotated[list[DecileBucket], figure("One entry per bucket, Q1..Q10")]
    monotonicity: Annotated[Monotonicity, figure("How monotone mean forward return is across buckets")]
    forward_returns: Annotated[str, figure("present when forward returns were sealed")]
    weeks_skipped: Annotated[
        int,
        figure(
            "Weeks in the window not bucketed: fewer than 20 scored names, or fewer than 2 distinct "
            "raw_score values (every raw_score equal)",
            term=terms.WEEKS_SKIPPED,
        ),
    ]


class NeweyWest(Body, kw_only=True, frozen=True):
    """A Newey-West test of a weekly series' mean: `nwt.ic`, `nwt.ic_score_panel` and
    `panel.ic_term_structure[].newey_west` (`nwt.ir`, of daily returns: `DailyNeweyWest`)."""

    # `{what}` in a meaning is the series tested, named where the test is declared (`newey_west`).
    # Its lag and n count the series' observations: weeks here, sessions in DailyNeweyWest (each its
    # own term; `lag` and `n` in STILL_TWO_MEANINGS).

    lag: Annotated[
        int, figure("Bartlett kernel lag used, in weeks", LAG_RULE, term=terms.NEWEY_WEST_LAG_WEEKS)
    ]
    n: Annotated[
        int,
        figure(
            f"Weeks tested (finite values, date order); at least {NEWEY_WEST_MIN_N} are required",
            term=terms.NEWEY_WEST_WEEKS,
        ),
    ]
    mean: Annotated[float, figure("Mean of {what}", term=terms.NEWEY_WEST_MEAN)]
    standard_error: Annotated[
        float,
        figure(
            "HAC standard error of the mean, no small-sample correction (equals statsmodels "
            "OLS(y, ones).fit(cov_type='HAC', cov_kwds={'maxlags': lag}))",
            "sqrt(sum e_t^2 + 2 sum_j (1 - j/(lag+1)) sum_t e_t e_{t-j}) / n, e = y - mean",
            term=terms.NEWEY_WEST_STANDARD_ERROR,
        ),
    ]
    t_statistic: Annotated[float, figure("mean / standard_error", term=terms.T_STATISTIC)]
    p_value: Annotated[
        float, figure("Two-sided p-value from the standard normal", "erfc(|t| / sqrt(2))", term=terms.P_VALUE)
    ]
    source: (
        Annotated[str, Meta(description="What the series is read from (the test's `keys` in /metrics/_doc).")]
        | UnsetType
    ) = UNSET
    source_kind: Annotated[str, Meta(description="`derived`: computed by this service.")] | UnsetType = UNSET
    signal: (
        Annotated[str, Meta(description="IC tests only: `conditioned` (score) or `raw` (raw_score).")]
        | UnsetType
    ) = UNSET
    frequency: Annotated[str, Meta(description="`nwt.ir` only: `weekly` or `daily`.")] | UnsetType = UNSET


class DailyNeweyWest(NeweyWest, kw_only=True, frozen=True):
    """A Newey-West test of a daily series' mean (`nwt.ir`): its lag and n count sessions."""

    lag: Annotated[int, figure("Bartlett kernel lag used, in sessions", LAG_RULE, term=terms.NEWEY_WEST_LAG)]
    n: Annotated[
        int,
        figure(
            f"Sessions tested (finite values, date order); at least {NEWEY_WEST_MIN_N} are required",
            term=terms.NEWEY_WEST_SESSIONS,
        ),
    ]


def newey_west(what: str, **facts: Any) -> Meta:
    """A Newey-West test of the mean of `what`."""
    return figure(
        f"Newey-West test that the mean of {what} is zero; null (with a warning) when refused",
        what=what,
        **facts,
    )


def derived(source: str, signal: str) -> dict[str, Meta]:
    """The keys of a test this service computes from the cross-sections: where from, and the signal."""
    return {"source": figure(source), "source_kind": figure("derived"), "signal": figure(signal)}


class NeweyWestTests(Body, kw_only=True, frozen=True):
    """`nwt` of the metrics object; each test is null when it is not computed."""

    ic: Annotated[
        NeweyWest | None,
        newey_west(
            "the conditioned weekly IC",
            horizon=FULL,
            signal="conditioned",
            source="weekly_signal",
            availability="published only when mean(weekly IC) rebuilt from the cross-sections equals the sealed "
            "mean IC within 1e-6 (else ic_reproduction_mismatch; ic_family_mismatch without cross-sections)",
            keys=derived("computed (rebuilt from the rebalance cross-sections)", "conditioned"),
        ),
    ]
    ic_score_panel: Annotated[
        NeweyWest | None,
        newey_west(
            "weekly Spearman(raw_score, forward_return)",
            signal="raw",
            source="weekly_signal",
            keys=derived("computed (from the rebalance cross-sections)", "raw"),
        ),
    ]
    ir: Annotated[
        DailyNeweyWest | None,
        newey_west(
            "daily long_short returns (ending/starting - 1)",
            source="portfolio",
            keys={
                "source": figure("portfolio (the long_short ledger)"),
                "frequency": figure("daily: one observation per ledger session"),
            },
        ),
    ]


class WeeklyIc(Body, kw_only=True, frozen=True):
    """An entry of `panel.ic_weekly`."""

    date: Annotated[dt.date, figure("Rebalance date")]
    ic: Annotated[float, figure("Spearman(score, forward_return) that week", term=terms.WEEKLY_IC)]


class WeeklySpread(Body, kw_only=True, frozen=True):
    """An entry of `panel.decile_spread_weekly`."""

    date: Annotated[dt.date, figure("Rebalance date")]
    spread: Annotated[float, figure("Q10 mean forward return - Q1 mean forward return", term=terms.SPREAD)]


class TermPoint(Body, kw_only=True, frozen=True):
    """An entry of `panel.ic_term_structure`."""

    horizon_weeks: Annotated[int, figure("Horizon h in weeks", term=terms.HORIZON_WEEKS)]
    mean_ic: Annotated[
        float | None,
        figure(
            "Mean over weeks of Spearman(raw_score, prod(1 + r) - 1 over the next h weekly forward returns)",
            term=terms.MEAN_IC,
        ),
    ]
    weeks: Annotated[int, figure("Weeks with a computable h-week IC", term=terms.HORIZON_IC_WEEKS)]
    newey_west: Annotated[
        NeweyWest | None,
        newey_west(
            "the h-week IC",
            source="weekly_term",
            availability=f"null (insufficient_data) with fewer than {NEWEY_WEST_MIN_N} weeks; lag is at least h-1 "
            "because "
            "h-week returns of consecutive weeks overlap",
        ),
    ]


class AutocorrelationPoint(Body, kw_only=True, frozen=True):
    """An entry of `panel.rank_autocorrelation`."""

    lag_weeks: Annotated[int, figure("Lag in weeks (1..8)", term=terms.LAG_WEEKS)]
    rho: Annotated[
        float | None,
        figure(
            "Mean over weeks of Spearman(raw_score at t, raw_score at t - lag) over names scored both weeks",
            term=terms.RHO,
        ),
    ]
    weeks: Annotated[int, figure("Weeks with a computable correlation", term=terms.WEEKS)]


class WeeklyCoverage(Body, kw_only=True, frozen=True):
    """An entry of `panel.coverage`."""

    date: Annotated[dt.date, figure("Rebalance date")]
    coverage: Annotated[float, figure("cohort_size / universe size", term=terms.COVERAGE)]


class PanelSignals(Body, kw_only=True, frozen=True):
    """`panel.signals`: the score each IC-family series of the panel is built on. One `signal` for the
    whole panel said `raw` over `ic_weekly` and `rebuilt_mean_ic`, which are conditioned (issue 65,
    item 7); `coverage` is of no score and is not listed."""

    ic_weekly: Annotated[Literal["conditioned"], figure("ic_weekly: the conditioned score")] = "conditioned"
    rebuilt_mean_ic: Annotated[Literal["conditioned"], figure("rebuilt_mean_ic: the conditioned score")] = (
        "conditioned"
    )
    decile_spread_weekly: Annotated[Literal["raw"], figure("decile_spread_weekly: raw_score")] = "raw"
    ic_term_structure: Annotated[Literal["raw"], figure("ic_term_structure: raw_score")] = "raw"
    rank_autocorrelation: Annotated[Literal["raw"], figure("rank_autocorrelation: raw_score")] = "raw"


class Panel(Body, kw_only=True, frozen=True):
    """`panel` of the metrics object (weeks without a finite value are left out of its series)."""

    signals: Annotated[
        PanelSignals,
        figure(
            "The score each series is built on: conditioned (score) for ic_weekly and rebuilt_mean_ic, raw "
            "(raw_score) for decile_spread_weekly, ic_term_structure and rank_autocorrelation; coverage is of "
            "no score"
        ),
    ]
    ic_weekly: Annotated[
        list[WeeklyIc],
        figure(
            "Weekly conditioned IC, weeks with a computable IC; over the full window its mean is core.ic",
            signal="conditioned",
        ),
    ]
    rebuilt_mean_ic: Annotated[
        float | None,
        figure(
            "Mean of the ic_weekly values served beside it: the weekly conditioned IC rebuilt from the rebalance "
            "cross-sections, over the window's weeks with a computable IC (/analytics/significance's "
            "bootstrap.rebuilt_mean_ic over the same window; not the sealed core.ic, which it equals over the full "
            "window only when the run's IC reproduces); null when no week has one",
            "mean(ic_weekly[].ic)",
            signal="conditioned",
            term=terms.REBUILT_MEAN_IC,
        ),
    ]
    decile_spread_weekly: Annotated[
        list[WeeklySpread],
        figure("Weekly Q10 minus Q1 mean forward return (eligible weeks, raw_score deciles)", signal="raw"),
    ]
    ic_term_structure: Annotated[
        list[TermPoint],
        figure(
            "IC of raw_score against forward returns compounded over 1, 2, 4 and 8 consecutive weeks",
            signal="raw",
        ),
    ]
    rank_autocorrelation: Annotated[
        list[AutocorrelationPoint], figure("Persistence of the raw_score ranking", signal="raw")
    ]
    coverage: Annotated[list[WeeklyCoverage], figure("Weekly coverage", signal=None)]


class AnnualisationFactors(Body, kw_only=True, frozen=True):
    """`annualisation_factors` of the metrics object."""

    weekly: Annotated[int, figure("Weeks per year (52): weekly series scale by sqrt(52)")]
    daily: Annotated[int, figure("Sessions per year (252): daily series scale by sqrt(252)")]


DECILES_AVAILABILITY = (
    "null when the key may not read cross-sections (access_limited), the run has no cross-sections "
    "(missing_kind), no forward returns (forward_returns_absent), or no usable week in the window "
    "(insufficient_data)"
)


class Metrics(Body, kw_only=True, frozen=True):
    """Performance and signal-quality metrics of one alpha (`/metrics`)."""

    data_meaning = (
        "Performance and signal-quality metrics: granularity, window, core, rank_ic, "
        "signal_processing, periods, ic_deciles, nwt, doc_url, alpha, source_alpha_id (and panel with "
        "`panel=1`, doc with `doc=1`); each field is explained by `/metrics/_doc`."
    )

    granularity: Annotated[
        str, figure("Echo of the granularity parameter: overall, yearly or monthly", source="request")
    ]
    window: Annotated[
        Window, figure("Echo of the requested window; nulls mean the full window", source="request")
    ]
    core: Annotated[
        CoreStats | None,
        figure(
            "Headline statistics of the long_short book, as the run stored them",
            horizon=FULL,
            source="metrics",
        ),
    ]
    rank_ic: Annotated[
        RankIc | None,
        figure("IC diagnostics the run stored; null when no stored metrics", horizon=FULL, source="metrics"),
    ]
    signal_processing: Annotated[
        SignalProcessing | None,
        figure("How the conditioned score was made from the raw score", source="alpha"),
    ]
    periods: Annotated[
        list[Period] | None,
        figure(
            "Stored statistics per calendar period overlapping the window; null at granularity overall",
            horizon="each period (a period partly inside the window is served whole)",
            granularity="yearly or monthly",
            source="metrics",
        ),
    ]
    ic_deciles: Annotated[
        IcDeciles | None,
        figure(
            "Ten buckets of each week's raw_score (Q1 lowest); bucket statistics are means over weeks of the "
            "weekly bucket means. Weeks with fewer than 20 scored names, or whose non-null raw_scores are all "
            "equal (fewer than 2 distinct values, so no ranking to bucket), are skipped and counted; other weeks "
            "without forward returns (pending) are dropped",
            source="weekly_deciles",
            signal="raw",
            granularity="weekly, aggregated",
            availability=DECILES_AVAILABILITY,
        ),
    ]
    nwt: Annotated[NeweyWestTests, figure("Newey-West (Bartlett kernel) tests of means")]
    panel: (
        Annotated[
            Panel | None,
            figure(
                "Weekly series of the window (panel=1); each series' signal is its own (panel.signals)",
                source="weekly_signal",
                granularity="weekly",
                availability="only with panel=1; null whenever ic_deciles is null",
            ),
        ]
        | UnsetType
    ) = UNSET
    doc_url: Annotated[str, figure("Path of this documentation block for the alpha", source="service")]
    alpha: Annotated[str, figure("Collection served (equals meta.run)", source="alpha")]
    source_alpha_id: Annotated[
        str,
        SEAL_TEXT,
        figure(
            "The run's research source id: the seal's own id for the alpha (meta.source_alpha_id, the lake's"
            " source_alpha_id), not the alpha served (alpha, the path's id); the alpha's id when the run recorded none",
            source="alpha",
        ),
    ]
    annualisation_factors: Annotated[
        AnnualisationFactors, figure("Annualisation factors the run uses", source="alpha")
    ]
    doc: (
        Annotated[
            MetricsDoc, figure("This documentation block, embedded with doc=1", source="service", leaf=True)
        ]
        | UnsetType
    ) = UNSET


_STAT_MEANINGS = meanings(Stat)


def _stat_entries(path: str, entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The standard keys of the statistic at `path`: their meanings are `Stat`'s, named after the
    statistic; the value carries its unit and, with the key `signal`, its signal family."""
    name = path.rsplit(".", 1)[-1]
    out = {}
    for key in STAT_KEYS:
        keyed = {**entry, "meaning": f"{_STAT_MEANINGS[key]} ({name})", "formula": None}
        keyed["unit"] = entry["unit"] if key == "value" else None
        if key not in ("value", "signal"):
            keyed.pop("signal", None)
        out[f"{path}.{key}"] = keyed
    return out


METRICS_BLOCK = Block(
    keys=("meaning", "formula", "horizon", "granularity", "source", "unit", "signal", "availability"),
    defaults={"horizon": WINDOW, "granularity": "overall", "source": "computed"},
    inherited=frozenset({"horizon", "granularity", "source", "signal", "availability"}),
    omitted_when_none=frozenset({"signal", "availability"}),
    stat=_stat_entries,
    stat_type=Stat,
)
"""How `/metrics/_doc` writes an entry: `fields` is `documented(Metrics, METRICS_BLOCK)`."""


def metrics_fields() -> dict[str, dict[str, Any]]:
    """The `fields` of `/metrics/_doc`, read from the declarations above."""
    return documented(Metrics, METRICS_BLOCK)
