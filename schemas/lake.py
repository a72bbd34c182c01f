"""Arrow schemas of every published lake table (what the pipeline writes, what serve reads).

Column order is the order the API serves. Partition columns (`book`, `year`) live in the hive
path, not in the files. docs/lake.md documents the same tables for analysts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pyarrow as pa

from alpha_results_seal.arrow_schemas import STYLE_FACTORS
from schemas import terms
from schemas.terms import Term

UTC_TS = pa.timestamp("us", tz="UTC")

REBALANCES = pa.schema(
    [
        ("date", pa.date32()),
        ("week_status", pa.string()),
        ("n_symbols", pa.int32()),  # rows in the week's cross-section
        ("cohort_size", pa.int32()),  # rows with a valid score
    ]
)

# Sorted by (date, symbol); partitioned by year of `date`.
DECISIONS = pa.schema(
    [
        ("date", pa.date32()),
        ("symbol", pa.string()),
        ("direction", pa.int8()),
        ("confidence", pa.float64()),
        ("score", pa.float64()),
        ("raw_score", pa.float64()),
        ("score_z", pa.float64()),
        ("average_rank", pa.float64()),
        ("cohort_size", pa.int32()),
        ("long_short_target_weight", pa.float64()),
        ("long_only_target_weight", pa.float64()),
        ("next_open_tradeable", pa.bool_()),
        ("fill_at", UTC_TS),
        ("entry_at", UTC_TS),
        ("maturity_at", UTC_TS),
        ("forward_return", pa.float64()),
        ("unavailability_reason", pa.string()),
        ("decision_reason", pa.string()),
        ("raw_direction", pa.int8()),
        ("raw_confidence", pa.float64()),
        ("raw_score_z", pa.float64()),
        ("raw_average_rank", pa.float64()),
        ("raw_long_short_target_weight", pa.float64()),
        ("raw_long_only_target_weight", pa.float64()),
        ("raw_fill_at", UTC_TS),
        ("raw_decision_reason", pa.string()),
    ]
)

BOOKS = pa.schema(
    [
        ("book", pa.string()),
        ("kind", pa.string()),
        ("raw", pa.bool_()),
        ("sessions", pa.int32()),
        ("rows", pa.int64()),
        ("from", pa.date32()),
        ("to", pa.date32()),
    ]
)

# Book-partitioned tables: <table>/book=<book>/part-0.parquet, sorted by date (then symbol).
PORTFOLIO = pa.schema(
    [
        ("date", pa.date32()),
        ("timestamp", UTC_TS),
        ("starting_equity", pa.float64()),
        ("ending_equity", pa.float64()),
        ("cash_start", pa.float64()),
        ("cash_end", pa.float64()),
        ("position_value_end", pa.float64()),
        ("market_pnl", pa.float64()),
        ("execution_cost", pa.float64()),
        ("borrow_cashflow", pa.float64()),
        ("cash_carry", pa.float64()),
        ("risk_free_return", pa.float64()),
        ("rounding_adjustment", pa.float64()),
        ("equity_basis", pa.float64()),
        ("gross_notional", pa.float64()),
        ("net_notional", pa.float64()),
        ("gross_exposure", pa.float64()),  # derived: gross_notional / (ending_equity * equity_basis)
        ("net_exposure", pa.float64()),  # derived: net_notional / (ending_equity * equity_basis)
        ("largest_abs_weight", pa.float64()),
        ("turnover_notional", pa.float64()),
        ("turnover", pa.float64()),
    ]
)

POSITIONS = pa.schema(
    [
        ("date", pa.date32()),
        ("symbol", pa.string()),
        ("quantity", pa.float64()),
        ("mark_price", pa.float64()),
        ("signed_notional", pa.float64()),  # derived: quantity * mark_price
        ("weight", pa.float64()),  # derived: signed_notional / ending_equity of the same day and book
    ]
)

PNL = pa.schema(
    [
        ("date", pa.date32()),
        ("symbol", pa.string()),
        ("market_pnl", pa.float64()),
        ("execution_cost", pa.float64()),
        ("borrow_cashflow", pa.float64()),
        ("net_pnl", pa.float64()),  # derived: market_pnl + execution_cost + borrow_cashflow
    ]
)

TRADES = pa.schema(
    [
        ("date", pa.date32()),  # derived: New York session date of the fill (window filters use it)
        ("timestamp", UTC_TS),
        ("decision_at", pa.date32()),
        ("symbol", pa.string()),
        ("phase", pa.string()),
        ("quantity", pa.float64()),
        ("mid_price", pa.float64()),
        ("fill_price", pa.float64()),
        ("fee", pa.float64()),
        ("execution_cost", pa.float64()),
        ("rebalance_adjustment_reason", pa.string()),
        ("exit_reason", pa.string()),
    ]
)

METRICS_STORED = pa.schema(
    [("scope", pa.string()), ("period", pa.string()), ("metric", pa.string()), ("value", pa.float64())]
)

KNOWN_SESSIONS = pa.schema(
    [
        ("dataset", pa.string()),  # portfolio (a ledger book's session) or decisions (a week's scores)
        ("book", pa.string()),  # the ledger book; null for decisions
        ("date", pa.date32()),
        ("first_published_at", UTC_TS),  # when the lake first published it, by our clock
        ("first_build_id", pa.string()),  # the build that first published it
    ]
)
"""When the lake first published each session of each ledger book and each week of scores
(`pipeline.knowledge`): carried from build to build, so a rebuild or a republish never moves it;
sorted by dataset, book, date."""

RESTATEMENTS = pa.schema(
    [
        ("restated_at", UTC_TS),  # when the restating build was published, by our clock
        ("build_id", pa.string()),  # the build that restated it
        ("previous_build_id", pa.string()),  # the build that had published the value before
        ("dataset", pa.string()),  # portfolio, decisions or metrics_stored
        ("book", pa.string()),  # portfolio: the ledger book; else null
        ("date", pa.date32()),  # the session, the week, or the last day of a stored metric's period
        ("field", pa.string()),  # return, scores, or the stored metric's name
        ("period", pa.string()),  # a stored metric's scope:period (yearly:2022); else null
        ("symbol", pa.string()),  # scores: the name whose score moved most; else null
        ("before", pa.float64()),  # the value published before (null: the session was not there)
        ("after", pa.float64()),  # the value published now (null: the session is gone)
        ("names_changed", pa.int32()),  # scores: names whose score changed, came or went; else null
    ]
)
"""Every change a later run made to an already published session, week or closed stored-metric
period (`pipeline.knowledge`): cumulative, each build carrying its predecessor's rows and its own,
sorted by restated_at, dataset, book, date."""

# Weekly series the metrics endpoint aggregates (computed once, in the pipeline).
WEEKLY_SIGNAL = pa.schema(
    [
        ("date", pa.date32()),
        ("week_status", pa.string()),
        ("n_symbols", pa.int32()),
        ("cohort_size", pa.int32()),
        ("n_forward_returns", pa.int32()),  # rows with a non-null forward_return
        ("ic", pa.float64()),  # Spearman(score, forward_return); null when not computable
        ("n_ic_obs", pa.int32()),
        ("raw_ic", pa.float64()),  # Spearman(raw_score, forward_return)
        ("n_raw_ic_obs", pa.int32()),
        ("coverage", pa.float64()),  # cohort_size / universe_size
        # At least 20 scored names (raw_score) that week with at least 2 distinct raw_score values; a week
        # whose raw_scores are all equal has no ranking, so it is not eligible (no weekly_deciles rows).
        ("decile_eligible", pa.bool_()),
        ("decile_spread", pa.float64()),  # Q10 minus Q1 mean forward return; null when not eligible
    ]
)

WEEKLY_DECILES = pa.schema(
    [
        ("date", pa.date32()),
        ("bucket", pa.int8()),  # 1 = Q1 (lowest raw_score) .. 10 = Q10 (highest)
        ("n_symbols", pa.int32()),
        ("mean_score", pa.float64()),  # of raw_score
        ("mean_score_z", pa.float64()),  # of raw_score_z
        ("mean_long_short_weight", pa.float64()),
        ("mean_long_only_weight", pa.float64()),
        ("mean_forward_return", pa.float64()),
        ("ic", pa.float64()),  # Spearman(raw_score, forward_return) inside the bucket
        ("n_return_obs", pa.int32()),
    ]
)

WEEKLY_TERM = pa.schema(
    [("date", pa.date32()), ("horizon_weeks", pa.int8()), ("ic", pa.float64()), ("n_obs", pa.int32())]
)

WEEKLY_AUTOCORR = pa.schema(
    [("date", pa.date32()), ("lag_weeks", pa.int8()), ("rho", pa.float64()), ("n_obs", pa.int32())]
)

STYLE_LOADINGS = {name: f"{name}_loading" for name in STYLE_FACTORS}
"""The lake's name of each style loading column the seal's `exposures` kind holds (issue 65, item 3):
the seal's `volatility` and `beta` are a name's z-scored loadings on the style factors, which a
reader of the lake would take for the vocabulary's `volatility` (a book's annualised volatility of
returns) and `beta` (a slope on the benchmark). The factor keeps its name (`/analytics/factors`'
`factors[].factor` is `volatility`, the factor); the column is its loading. A build of pipeline 2.6
and earlier holds the seal's names."""

# The seal's optional `exposures` kind (docs/seal.md), sorted by (date, symbol): a name's sector,
# style loadings (under `STYLE_LOADINGS`' names) and average daily traded value at each rebalance week.
EXPOSURES = pa.schema(
    [
        ("date", pa.date32()),
        ("symbol", pa.string()),
        ("sector", pa.string()),
        *((STYLE_LOADINGS[name], pa.float64()) for name in STYLE_FACTORS),
        ("adv", pa.float64()),
    ]
)

# Per-build tables of the analytics routes (pipeline/analytics_tables.py, docs/analytics.md).
ANALYTICS_DRAWDOWNS = pa.schema(
    [
        ("book", pa.string()),
        ("peak_date", pa.date32()),
        ("trough_date", pa.date32()),
        ("recovery_date", pa.date32()),  # null while unrecovered
        ("depth_pct", pa.float64()),  # (peak - trough) / peak * 100
        ("sessions_to_trough", pa.int32()),
        ("sessions_to_recovery", pa.int32()),  # null while unrecovered
        ("peak_equity", pa.float64()),
        ("trough_equity", pa.float64()),
    ]
)

ANALYTICS_ROLLING = pa.schema(
    [
        ("book", pa.string()),
        ("window_weeks", pa.int8()),  # 13, 26 or 52
        ("date", pa.date32()),  # the rebalance week ending the trailing window
        ("n_ic_weeks", pa.int32()),
        ("rebuilt_mean_ic", pa.float64()),  # the window's mean weekly IC (weekly_signal)
        ("icir_per_week", pa.float64()),  # not annualised (the route serves it x sqrt(52) as `icir`)
        ("n_return_weeks", pa.int32()),
        ("annualised_return", pa.float64()),
        ("volatility", pa.float64()),  # annualised
        ("information_ratio", pa.float64()),  # annualised
        ("return_hit_rate", pa.float64()),  # share of weeks with a positive book return
    ]
)

ANALYTICS_TURNOVER = pa.schema(
    [
        ("book", pa.string()),
        ("date", pa.date32()),
        ("bucket", pa.int8()),  # score decile 1..10 of raw_score; 0 = in no decile that week
        ("names", pa.int32()),
        ("turnover", pa.float64()),  # one-way: 1/2 sum |w_t - w_prev| of the bucket's names
        ("gross_weight", pa.float64()),  # sum |w_t| of the bucket's names
    ]
)

ANALYTICS_ATTRIBUTION = pa.schema(
    [
        ("book", pa.string()),
        ("date", pa.date32()),
        ("symbol", pa.string()),
        ("name", pa.int32()),  # the symbol's index among the table's distinct symbols, ascending
        (
            "leg",
            pa.int8(),
        ),  # 1 long, -1 short: the sign held at the session's start, else at its close; 0 neither
        ("net_pnl", pa.float64()),  # the /pnl row's; 0 for a position without one; null: no pnl sealed
        ("contribution", pa.float64()),  # net_pnl / the session's starting_equity; null where that is 0
        ("weight", pa.float64()),  # realised weight at the close (/positions weight); null without a position
        ("sector", pa.string()),  # exposures' sector at the latest rebalance on or before; null: none
    ]
)
"""Per book, session and name with a P&L row or a position (issue 36, `/analytics/attribution`):
sorted by book, date, symbol (pipeline/analytics_tables.py `attribution_frame`)."""
# One row per fill of each ledger book, sorted by (book, date, symbol): what `/analytics/capacity`
# aggregates over a window (pipeline/analytics_tables.py `capacity_frame`, docs/analytics.md
# "Capacity"). Amounts in normalised equity (1.0 = the book's equity at inception).
ANALYTICS_CAPACITY = pa.schema(
    [
        ("book", pa.string()),
        ("date", pa.date32()),  # the fill's session
        ("decision_at", pa.date32()),  # the rebalance week whose exposures row gives its adv
        ("symbol", pa.string()),
        ("notional", pa.float64()),  # |quantity x fill_price| / equity_basis of the session; null without one
        ("cost", pa.float64()),  # -execution_cost: the seal's modelled cost of the fill
        ("impact_cost", pa.float64()),  # cost less its per-share fee (clipped to [0, cost])
        ("adv", pa.float64()),  # the exposures' adv of (decision_at, symbol); null without one
    ]
)

# Factor attribution (pipeline/factor_tables.py, analytics/factor_model.py, docs/analytics.md "Factor
# attribution"): built from the seal's exposures, the decisions' forward returns and each book's
# positions and ledger; absent without exposures or decisions.
ANALYTICS_FACTOR_WEEKS = pa.schema(
    [
        ("date", pa.date32()),  # the rebalance week's decision date (one row per week with exposures)
        ("next_date", pa.date32()),  # the next decision date: the week's holding period ends there; null last
        ("names", pa.int32()),  # names in the week's regression (loadings and forward return all present)
        ("regressors", pa.int32()),  # sector dummies present + style loadings used
        ("r_squared", pa.float64()),  # centred R^2 of the regression; null when not estimated
        ("neutral_ic", pa.float64()),  # Spearman(score residualised on the loadings, forward_return)
        ("neutral_ic_names", pa.int32()),
        ("raw_neutral_ic", pa.float64()),  # the same of raw_score
        ("raw_neutral_ic_names", pa.int32()),
    ]
)

ANALYTICS_FACTOR_RETURNS = pa.schema(
    [
        ("date", pa.date32()),
        ("factor_type", pa.string()),  # sector or style
        ("factor", pa.string()),  # the sector's name, or the style loading's
        ("factor_return", pa.float64()),  # the week's OLS coefficient (a return over the forward period)
    ]
)

ANALYTICS_FACTOR_EXPOSURES = pa.schema(
    [
        ("book", pa.string()),
        ("date", pa.date32()),
        ("factor_type", pa.string()),
        ("factor", pa.string()),
        ("exposure", pa.float64()),  # sum of realised weight x loading over the book's names
        ("part", pa.float64()),  # exposure x factor_return
    ]
)

ANALYTICS_FACTOR_ATTRIBUTION = pa.schema(
    [
        ("book", pa.string()),
        ("date", pa.date32()),
        ("next_date", pa.date32()),
        ("sessions", pa.int32()),  # ledger sessions after date up to and including next_date
        ("book_return", pa.float64()),  # compounded over those sessions
        ("common_return", pa.float64()),  # sum of the factors' parts
        ("specific_return", pa.float64()),  # book_return - common_return
    ]
)

# Per score (score, raw_score), quantile count q (2..10), bucketed week and quantile: the quantile's
# names and equal-weighted mean forward return (analytics/quantiles.py, alphalens' qcut per week).
ANALYTICS_QUANTILES = pa.schema(
    [
        ("score", pa.string()),  # the score bucketed: score or raw_score
        ("quantiles", pa.int8()),  # q
        ("date", pa.date32()),  # the rebalance week
        ("quantile", pa.int8()),  # 1 (lowest score) .. q
        ("names", pa.int32()),  # names with a score and a forward return in the quantile
        ("mean_forward_return", pa.float64()),  # null when the quantile holds no name that week
    ]
)

# Per score (score, raw_score), rebalance week and sector of the seal's exposures: the rank IC of the
# score and the forward return among the sector's names that week (analytics.ranks.spearman_by).
ANALYTICS_SECTOR_IC = pa.schema(
    [
        ("score", pa.string()),  # score or raw_score
        ("date", pa.date32()),
        ("sector", pa.string()),
        ("ic", pa.float64()),  # null below 3 names with both, or when either side is constant
        ("names", pa.int32()),  # the sector's names with a score and a forward return that week
    ]
)

# Per rebalance week and part of its names (issue 62 item 6, analytics/sub_universe.py): the rank IC of the
# conditioned score and the forward return among the part's names (analytics.ranks.spearman_by). part: -1 the
# names without an adv (ic null, names counted), 0 the liquid half by adv, 1 the illiquid half, 2.. the seeded
# random halves. Written only when the run sealed exposures and decisions.
ANALYTICS_SUB_UNIVERSE = pa.schema(
    [
        ("date", pa.date32()),
        ("part", pa.int16()),
        ("ic", pa.float64()),  # null below 3 names with both, or when either side is constant
        ("names", pa.int32()),  # the part's names with a score and a forward return that week
    ]
)

BENCHMARK_DAILY = pa.schema(
    [("date", pa.date32()), ("close", pa.float64()), ("adjusted_close", pa.float64())]
)

# Per session of a benchmark build, its regimes (issue 50, item 5; analytics/regimes.py and
# docs/analytics.md "Regimes"), labelled at publish from the served daily series. A benchmark build
# published before them has no such table: the regime figures then answer 503 analytics_not_built.
BENCHMARK_REGIMES = pa.schema(
    [
        ("date", pa.date32()),
        ("price", pa.float64()),  # the return basis' price (adjusted_close when every row has one)
        ("trend_average", pa.float64()),  # mean price of the 200 sessions ending here; null before
        ("trend", pa.string()),  # up (price above trend_average) or down; null: the first 199 sessions
        ("realised_volatility", pa.float64()),  # std(ddof=1) of the 63 returns ending here x sqrt(252)
        ("volatility", pa.string()),  # low, mid or high (terciles); null: the first 63 sessions
        ("drawdown", pa.float64()),  # 1 - price / running peak (a fraction)
        ("drawdown_regime", pa.string()),  # in (drawdown beyond 10 %) or out
        ("volatility_low_cut", pa.float64()),  # the terciles' cut points, one value for the build
        ("volatility_high_cut", pa.float64()),
    ]
)

CATALOGUE_INDEX = pa.schema(
    [
        # identity and what the catalogue lists (alpha.json, description.json classification)
        ("alpha_id", pa.string()),
        ("build_id", pa.string()),
        ("name", pa.string()),
        ("tldr", pa.string()),
        # the seal's started_at as an instant (a sealed time without an offset is UTC); null: none
        ("started_at", UTC_TS),
        ("complete", pa.bool_()),
        ("structure", pa.string()),
        ("method", pa.string()),
        ("tags", pa.list_(pa.string())),
        # the seal's trial family and its variant's parameters (a flat JSON object as text); null
        # when the seal names none (or in a generation written before them)
        ("family", pa.string()),
        ("parameters", pa.string()),
        ("pipeline_version", pa.string()),
        ("built_at", UTC_TS),  # alpha.json's built_at (our clock, whole seconds)
        # headline figures, as /metrics serves them (core, overall; null where not measurable), each
        # under its vocabulary name (issue 65, item 7: `ic` was `mean_ic`, `icir` was `icir_annualised`,
        # INDEX_RENAMED); the ICIR is core.icir, annualised for every run (analytics/ic.py)
        ("information_ratio", pa.float64()),
        ("excess_sharpe", pa.float64()),
        ("ic", pa.float64()),
        ("icir", pa.float64()),
        # whether the weekly IC rebuilt from the cross-sections reproduces the sealed mean IC (the
        # /metrics ic_reproduction_mismatch rule); null without cross-sections or a sealed mean IC
        ("ic_reproduces", pa.bool_()),
        ("max_drawdown_pct", pa.float64()),
        ("turnover", pa.float64()),
        ("turnover_unit", pa.string()),
        ("sessions", pa.int32()),  # long_short ledger sessions
        ("weeks", pa.int32()),  # rebalance weeks
        ("first_date", pa.date32()),  # first ledger session (else rebalance)
        ("last_date", pa.date32()),
        # live against backtest of the long_short book at the alpha's split (analytics/live.py,
        # /analytics/live's figures): the approval the row was computed after, else the seal's
        # research_cutoff, else the first publish; null where not measurable (LIVE_COLUMNS)
        ("live_split", pa.date32()),
        ("live_split_origin", pa.string()),  # approval, research_cutoff or first_published
        ("live_information_ratio", pa.float64()),  # out_of_sample.information_ratio
        ("backtest_information_ratio", pa.float64()),  # in_sample.information_ratio
        ("decay_ratio", pa.float64()),
        ("live_sessions", pa.int32()),  # out_of_sample.sessions
        # the tenure the live columns were split at (analytics/tenure.py): when its approval and the
        # retirement that ended it were recorded, as a decision last handed them to the index; null
        # when the split is not an approval's
        ("live_approved_at", UTC_TS),
        ("live_retired_at", UTC_TS),
        # the alpha against its default reference set (analytics/residual.py: /analytics/residual's figures
        # with no parameter, for a key reading every alpha): the whole-history long_short returns regressed
        # on the set's and SPY's; null where not measurable (RESIDUAL_COLUMNS)
        ("residual_information_ratio", pa.float64()),  # appraisal_ratio
        ("residual_t_statistic", pa.float64()),  # intercept_t_statistic
        # whether the operator's latest decision about the alpha, as `alpha-results promote` or `retire`
        # last handed it to the index, is an approval: the residual columns' default set (the screener's
        # `standing` is read from the records)
        ("approved", pa.bool_()),
        # what the catalogue-wide analytics need (the DSR's trials, the Holm/BH family)
        ("sharpe_per_session", pa.float64()),  # long_short daily returns, mean / std (ddof 1)
        ("nwt_ic_p_value", pa.float64()),  # /metrics nwt.ic, where measurable
        # the alpha's score neighbours (SCORE_NEIGHBOURS), relative to the catalogue folder; null
        # when its build has no decisions
        ("score_neighbours", pa.string()),
        # the build this row replaced and when (garbage collection keeps it a while: a worker may
        # still be on an older generation)
        ("previous_build_id", pa.string()),
        # when this row was computed (a publish, or `lake index` recomputing every figure): with the
        # build id, what a catalogue-wide answer's ETag is made of
        ("indexed_at", UTC_TS),
        ("replaced_at", UTC_TS),
        ("entry", pa.string()),  # alpha.json without its file manifest, as JSON text
        ("unreadable", pa.string()),  # why the alpha's pointer or alpha.json cannot be read (else null)
    ]
)
"""One row per published alpha, in catalogue order (`started_at` newest first, then alpha_id):
`{root}/catalogue/index/*.parquet` (datasets/catalogue_index.py, docs/lake.md)."""

INDEX_RENAMED = {"mean_ic": "ic", "icir_annualised": "icir"}
"""Catalogue index columns renamed to the vocabulary's names of the figures they hold (issue 65,
item 7): old name -> new. An index file written before holds the old names, and `started_at`,
`built_at` as text, `indexed_at` in milliseconds and `replaced_at` in seconds;
`datasets.catalogue_index` reads such a file as if written now (`upgraded`), so no reader meets
either format. A file older still held `icir` as each run sealed it (per week or annualised), a
column it drops rather than read as the annualised `icir`."""

FIGURE_TERMS: dict[str, tuple[Term, ...]] = {
    "CATALOGUE_INDEX": (
        terms.INFORMATION_RATIO,
        terms.EXCESS_SHARPE,
        terms.IC,
        terms.ICIR,
        terms.MAX_DRAWDOWN_PCT,
        terms.SESSIONS,
        terms.WEEKS,
        terms.LIVE_INFORMATION_RATIO,
        terms.BACKTEST_INFORMATION_RATIO,
        terms.DECAY_RATIO,
        terms.RESIDUAL_INFORMATION_RATIO,
    ),
    "analytics_rolling": (
        terms.REBUILT_MEAN_IC,
        terms.ICIR_PER_WEEK,
        terms.ANNUALISED_RETURN,
        terms.VOLATILITY,
        terms.INFORMATION_RATIO,
        terms.RETURN_HIT_RATE,
    ),
}
"""The terms of the lake's columns holding a figure the API serves (`schemas.terms`), by table (a
build's by its name, the others by their name in this module): each column is named as its term
(issue 65, item 7: an analyst reads `ic` in the index as in /metrics `core.ic`), and docs/lake.md
writes the term and its unit beside it (tests/pipeline/test_lake_columns_documented.py holds both).
The rolling ICIR is stored per week (`icir_per_week`); `/analytics/rolling` serves it annualised
as `icir`. The index's `turnover` is not listed: it is `core.turnover` as served (the term
`sealed_turnover`, in the unit `turnover_unit` names), under the spec's name, which the term
`turnover` (the window's traded turnover per year) also bears (issue 65, item 3)."""

LIVE_COLUMNS = (
    "live_split",
    "live_split_origin",
    "live_information_ratio",
    "backtest_information_ratio",
    "decay_ratio",
    "live_sessions",
    "live_approved_at",
    "live_retired_at",
)
"""The catalogue index's live columns (`analytics.live.index_columns`), added after the index first
shipped: null in a generation written before them until `alpha-results lake index` rewrites it."""

RESIDUAL_COLUMNS = ("residual_information_ratio", "residual_t_statistic")
"""The catalogue index's residual columns (`pipeline.catalogue_residual`), added after the index
first shipped: null in a generation written before them until a commit computes them (every row,
the first time)."""

SCORE_NEIGHBOURS = pa.schema(
    [
        ("neighbour_id", pa.string()),
        ("neighbour_build", pa.string()),  # the build it was paired with (stale once republished)
        ("whole", pa.float64()),  # whole-history score correlation: mean weekly Spearman
        ("days", pa.list_(pa.int32())),  # each common week counted (days since 1970), ascending
        ("rho", pa.list_(pa.float64())),  # that week's Spearman of the two conditioned scores
        ("names", pa.list_(pa.int32())),  # that week's common names
    ]
)
"""One alpha's nearest neighbours on the scores basis, nearest first:
`{root}/catalogue/neighbours/{alpha_id}/{token}.parquet` (pipeline/catalogue_neighbours.py)."""

TRIAL_LINKS = pa.schema(
    [
        pa.field("alpha_a", pa.string(), nullable=False),
        pa.field("alpha_b", pa.string(), nullable=False),  # alpha_a < alpha_b, each pair once
        pa.field("correlation", pa.float64(), nullable=False),  # whole-history returns Pearson
    ]
)
"""The links of the trials' clustering (analytics/trial_clusters.py): every pair of published alphas
whose whole-history daily returns correlate at least LINK_CORRELATION,
`{root}/catalogue/links/{token}.parquet`, named by a generation's `trials.links`."""

Layout = Literal["single", "year", "book"]
"""How a table's Parquet lies in a build: one file (`{table}.parquet`), partitioned by year
(`{table}/year=YYYY/part-0.parquet`) or by book (`{table}/book=<b>/part-0.parquet`)."""
Serving = Literal["as_is", "rebalances", "decisions", "books", "none"]
"""How `serving/` holds it (datasets/serving_layout.py): a small table as it is, the rebalance index
with each week's decision rows, the decisions in `/scores` order, every book in one file with its
row ranges, or not at all (read from the Parquet only)."""


@dataclass(frozen=True)
class LakeTable:
    """One table of an alpha build: its name, Arrow schema, Parquet layout and serving file."""

    name: str
    schema: pa.Schema
    layout: Layout
    serving: Serving
    about: str

    @property
    def small(self) -> bool:
        """Served as it is: a small table a worker maps whole."""
        return self.serving == "as_is"


TABLES: tuple[LakeTable, ...] = (
    LakeTable("rebalances", REBALANCES, "single", "rebalances", "date, week_status, n_symbols, cohort_size"),
    LakeTable("decisions", DECISIONS, "year", "decisions", "per week and name: the sealed decision rows"),
    LakeTable("books", BOOKS, "single", "as_is", "book, kind, raw, sessions, rows, from, to"),
    LakeTable("portfolio", PORTFOLIO, "book", "books", "per book and session: the ledger"),
    LakeTable("positions", POSITIONS, "book", "books", "per book, session and name: the positions"),
    LakeTable("pnl", PNL, "book", "books", "per book, session and name: the P&L"),
    LakeTable("trades", TRADES, "book", "books", "per book and fill: the trades"),
    LakeTable(
        "metrics_stored", METRICS_STORED, "single", "as_is", "scope, period, metric, value (as sealed)"
    ),
    LakeTable(
        "known_sessions",
        KNOWN_SESSIONS,
        "single",
        "as_is",
        "per ledger book and session, and per week of scores: when the lake first published it",
    ),
    LakeTable(
        "restatements",
        RESTATEMENTS,
        "single",
        "as_is",
        "every change a later run made to a published session, week or closed stored-metric period",
    ),
    LakeTable(
        "exposures",
        EXPOSURES,
        "single",
        "none",
        "per week and name: sector, style loadings, adv (as sealed, the optional kind)",
    ),
    LakeTable(
        "weekly_signal",
        WEEKLY_SIGNAL,
        "single",
        "as_is",
        "per week: ic, raw_ic, n obs, coverage, decile spread",
    ),
    LakeTable(
        "weekly_deciles", WEEKLY_DECILES, "single", "as_is", "per week and bucket Q1..Q10 on raw_score"
    ),
    LakeTable(
        "weekly_term",
        WEEKLY_TERM,
        "single",
        "as_is",
        "per week and horizon (1, 2, 4, 8 weeks): ic on compounded forward returns",
    ),
    LakeTable(
        "weekly_autocorr",
        WEEKLY_AUTOCORR,
        "single",
        "as_is",
        "per week and lag (1..8): rank autocorrelation of raw_score",
    ),
    LakeTable(
        "analytics_drawdowns",
        ANALYTICS_DRAWDOWNS,
        "single",
        "as_is",
        "per book: drawdown episodes over the whole history",
    ),
    LakeTable(
        "analytics_rolling",
        ANALYTICS_ROLLING,
        "single",
        "as_is",
        "per book, window (13, 26, 52 weeks) and week: trailing IC and return figures",
    ),
    LakeTable(
        "analytics_turnover",
        ANALYTICS_TURNOVER,
        "single",
        "as_is",
        "per book, week and score decile: one-way turnover of target weights",
    ),
    LakeTable(
        "analytics_attribution",
        ANALYTICS_ATTRIBUTION,
        "single",
        "as_is",
        "per book, session and name: net P&L, leg, return contribution, realised weight",
    ),
    LakeTable(
        "analytics_capacity",
        ANALYTICS_CAPACITY,
        "single",
        "as_is",
        "per ledger book and fill: notional, modelled cost, its impact part, adv",
    ),
    LakeTable(
        "analytics_factor_weeks",
        ANALYTICS_FACTOR_WEEKS,
        "single",
        "as_is",
        "per week: the factor regression's names and R^2, the feature-neutral ICs",
    ),
    LakeTable(
        "analytics_factor_returns",
        ANALYTICS_FACTOR_RETURNS,
        "single",
        "as_is",
        "per week and factor: the estimated factor return",
    ),
    LakeTable(
        "analytics_factor_exposures",
        ANALYTICS_FACTOR_EXPOSURES,
        "single",
        "as_is",
        "per book, week and factor: exposure and its part of the return",
    ),
    LakeTable(
        "analytics_factor_attribution",
        ANALYTICS_FACTOR_ATTRIBUTION,
        "single",
        "as_is",
        "per book and week: book, common and specific return",
    ),
    LakeTable(
        "analytics_quantiles",
        ANALYTICS_QUANTILES,
        "single",
        "as_is",
        "per score, quantile count (2..10), week and quantile: names, mean forward return",
    ),
    LakeTable(
        "analytics_sector_ic",
        ANALYTICS_SECTOR_IC,
        "single",
        "as_is",
        "per score, week and sector of the exposures: rank IC within the sector, names",
    ),
    LakeTable(
        "analytics_sub_universe",
        ANALYTICS_SUB_UNIVERSE,
        "single",
        "as_is",
        "per week and part (without adv, liquid and illiquid half by adv, random halves): rank IC, names",
    ),
)
"""Every table of an alpha build, declared once: the layout's lists (`datasets.layout`
`SINGLE_FILE_TABLES`, `YEAR_PARTITIONED_TABLES`, `BOOK_PARTITIONED_TABLES`), the serving layout's
small tables (`datasets.serving_layout.SMALL_TABLES`) and `TABLE_SCHEMAS` derive from it, in its order."""

TABLE_SCHEMAS: dict[str, pa.Schema] = {t.name: t.schema for t in TABLES}


def tables_laid(layout: Layout) -> tuple[str, ...]:
    """The names of the tables of one Parquet layout, in `TABLES` order."""
    return tuple(t.name for t in TABLES if t.layout == layout)


ROW_KEYS: dict[str, tuple[str, ...]] = {
    "rebalances": ("date",),
    "decisions": ("date", "symbol"),
    "books": ("book", "kind"),
    "portfolio": ("book", "date"),
    "positions": ("book", "date", "symbol"),
    "pnl": ("book", "date", "symbol"),
    "trades": ("book", "timestamp", "symbol", "phase"),
    "metrics_stored": ("scope", "period", "metric"),
    "known_sessions": ("dataset", "book", "date"),
    "restatements": ("restated_at", "build_id", "dataset", "book", "date", "field", "period", "symbol"),
    "exposures": ("date", "symbol"),
    "weekly_signal": ("date",),
    "weekly_deciles": ("date", "bucket"),
    "weekly_term": ("date", "horizon_weeks"),
    "weekly_autocorr": ("date", "lag_weeks"),
    "analytics_drawdowns": ("book", "peak_date"),
    "analytics_rolling": ("book", "window_weeks", "date"),
    "analytics_turnover": ("book", "date", "bucket"),
    "analytics_attribution": ("book", "date", "symbol"),
    "analytics_capacity": ("book", "date", "decision_at", "symbol"),
    "analytics_factor_weeks": ("date",),
    "analytics_factor_returns": ("date", "factor_type", "factor"),
    "analytics_factor_exposures": ("book", "date", "factor_type", "factor"),
    "analytics_factor_attribution": ("book", "date"),
    "analytics_quantiles": ("score", "quantiles", "date", "quantile"),
    "analytics_sector_ic": ("score", "date", "sector"),
    "analytics_sub_universe": ("date", "part"),
    "benchmark_daily": ("date",),
}
"""The columns that name one row of each table (the benchmark's `daily` too): what an incremental
publish of the open tables (`datasets.tables`, docs/lake.md "Open tables") matches a new build's
rows to the published ones by, so a row whose values moved is replaced (its before and after values
in the table's change data feed) rather than deleted and added. A book-partitioned table's `book`
is a column of its open table. Where a key turns out not unique in a build (two fills of one name at
one time and phase), the publish replaces the alpha's rows of that table whole instead."""
