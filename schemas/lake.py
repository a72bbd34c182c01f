"""Arrow schemas of every published lake table (what the pipeline writes, what serve reads).

Column order is the order the API serves. Partition columns (`book`, `year`) live in the hive
path, not in the files. docs/lake.md documents the same tables for analysts.
"""

from __future__ import annotations

import pyarrow as pa

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
        ("mean_ic", pa.float64()),
        ("icir", pa.float64()),  # per week, not annualised
        ("n_return_weeks", pa.int32()),
        ("annualised_return", pa.float64()),
        ("volatility", pa.float64()),  # annualised
        ("information_ratio", pa.float64()),  # annualised
        ("hit_rate", pa.float64()),  # share of weeks with a positive book return
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

BENCHMARK_DAILY = pa.schema(
    [("date", pa.date32()), ("close", pa.float64()), ("adjusted_close", pa.float64())]
)

CATALOGUE_INDEX = pa.schema(
    [
        # identity and what the catalogue lists (alpha.json, description.json classification)
        ("alpha_id", pa.string()),
        ("build_id", pa.string()),
        ("name", pa.string()),
        ("tldr", pa.string()),
        ("started_at", pa.string()),  # as sealed (ISO 8601), null when the run has none
        ("complete", pa.bool_()),
        ("production", pa.bool_()),  # not a `Test_` alpha
        ("structure", pa.string()),
        ("method", pa.string()),
        ("tags", pa.list_(pa.string())),
        ("pipeline_version", pa.string()),
        ("built_at", pa.string()),
        # headline figures, as /metrics serves them (core, overall; null where not measurable), but
        # the ICIR on one basis: core.icir annualised, times sqrt(weeks_per_year) where the run
        # sealed it per week (analytics/ic.py; a generation written before held `icir` as sealed)
        ("information_ratio", pa.float64()),
        ("excess_sharpe", pa.float64()),
        ("mean_ic", pa.float64()),
        ("icir_annualised", pa.float64()),
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
        # the alpha against its default reference set (analytics/residual.py: /analytics/residual's figures
        # with no parameter, for a key reading every alpha): the whole-history long_short returns regressed
        # on the set's and SPY's; null where not measurable (RESIDUAL_COLUMNS)
        ("residual_information_ratio", pa.float64()),  # information_ratio
        ("residual_t_stat", pa.float64()),  # intercept_t_stat
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
        ("indexed_at", pa.timestamp("ms", tz="UTC")),
        ("replaced_at", pa.timestamp("s", tz="UTC")),
        ("entry", pa.string()),  # alpha.json without its file manifest, as JSON text
        ("unreadable", pa.string()),  # why the alpha's pointer or alpha.json cannot be read (else null)
    ]
)
"""One row per published alpha, in catalogue order (`started_at` newest first, then alpha_id):
`{root}/catalogue/index/*.parquet` (datasets/catalogue_index.py, docs/lake.md)."""

LIVE_COLUMNS = (
    "live_split",
    "live_split_origin",
    "live_information_ratio",
    "backtest_information_ratio",
    "decay_ratio",
    "live_sessions",
)
"""The catalogue index's live columns (`analytics.live.index_columns`), added after the index first
shipped: null in a generation written before them until `alpha-results lake index` rewrites it."""

RESIDUAL_COLUMNS = ("residual_information_ratio", "residual_t_stat")
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

TABLE_SCHEMAS: dict[str, pa.Schema] = {
    "rebalances": REBALANCES,
    "decisions": DECISIONS,
    "books": BOOKS,
    "portfolio": PORTFOLIO,
    "positions": POSITIONS,
    "pnl": PNL,
    "trades": TRADES,
    "metrics_stored": METRICS_STORED,
    "weekly_signal": WEEKLY_SIGNAL,
    "weekly_deciles": WEEKLY_DECILES,
    "weekly_term": WEEKLY_TERM,
    "weekly_autocorr": WEEKLY_AUTOCORR,
    "analytics_drawdowns": ANALYTICS_DRAWDOWNS,
    "analytics_rolling": ANALYTICS_ROLLING,
    "analytics_turnover": ANALYTICS_TURNOVER,
}
