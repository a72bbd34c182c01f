"""Weekly series the metrics endpoint aggregates: IC, deciles, term structure, rank autocorrelation.

One rank-correlation rule everywhere (it is the engine's stored `mean_ic` definition):
`analytics.ranks.spearman_by`. All of it is grouped polars expressions, no per-row Python.

Deciles need a ranking: a week is bucketed (`decile_eligible`) when at least 20 names have a
raw_score and those raw_scores take at least 2 distinct values. A week whose raw_scores are all
equal (a flat input snapshot) carries no ordering, so it gets no decile rows and a null
`decile_spread`, rather than buckets cut by ticker order.

Weeks are the rebalance index dates (and any decision date); "consecutive weeks" for the term
structure and "lag" for the autocorrelation count positions in that ordered list, so a skip week
without cross-section breaks a compounding chain rather than being jumped over.
"""

from __future__ import annotations

import polars as pl

from analytics.ranks import spearman_by

DECILE_MIN_NAMES = 20
DECILE_MIN_DISTINCT = 2  # distinct non-null raw_score values a week needs to be bucketed
DECILE_BUCKETS = 10
TERM_HORIZONS = (1, 2, 4, 8)
AUTOCORR_LAGS = tuple(range(1, 9))


def week_index(decisions: pl.DataFrame, rebalances: pl.DataFrame | None) -> pl.DataFrame:
    """Every week (date, week_status, ordinal `k`) in date order."""
    dates = decisions.select("date").unique()
    if rebalances is not None:
        weeks = rebalances.select("date", "week_status").join(dates, on="date", how="full", coalesce=True)
    else:
        weeks = dates.with_columns(week_status=pl.lit(None, pl.String))
    return weeks.sort("date").with_row_index("k").with_columns(pl.col("k").cast(pl.Int64))


def decile_eligible(n_raw_scored: pl.Expr, n_raw_distinct: pl.Expr) -> pl.Expr:
    """The one rule for bucketing a week: >= 20 raw-scored names, >= 2 distinct raw_score values."""
    return (n_raw_scored.fill_null(0) >= DECILE_MIN_NAMES) & (
        n_raw_distinct.fill_null(0) >= DECILE_MIN_DISTINCT
    )


def weekly_signal(
    decisions: pl.DataFrame, weeks: pl.DataFrame, deciles: pl.DataFrame, universe_size: int
) -> pl.DataFrame:
    counts = decisions.group_by("date").agg(
        n_symbols=pl.len().cast(pl.Int32),
        cohort_size=pl.col("score").count().cast(pl.Int32),
        n_forward_returns=pl.col("forward_return").count().cast(pl.Int32),
        n_raw_scored=pl.col("raw_score").count(),
        n_raw_distinct=pl.col("raw_score").drop_nulls().n_unique(),
    )
    ic = spearman_by(decisions, ["date"], "score", "forward_return").rename({"rho": "ic", "n": "n_ic_obs"})
    raw_ic = spearman_by(decisions, ["date"], "raw_score", "forward_return").rename(
        {"rho": "raw_ic", "n": "n_raw_ic_obs"}
    )
    tails = deciles.filter(pl.col("bucket").is_in([1, DECILE_BUCKETS])).pivot(
        on="bucket", index="date", values="mean_forward_return"
    )
    spread = (
        tails.select("date", (pl.col(str(DECILE_BUCKETS)) - pl.col("1")).alias("decile_spread"))
        if tails.height
        else pl.DataFrame(schema={"date": pl.Date, "decile_spread": pl.Float64})
    )
    zero = pl.lit(0, pl.Int32)
    return (
        weeks.select("date", "week_status")
        .join(counts, on="date", how="left")
        .join(ic, on="date", how="left")
        .join(raw_ic, on="date", how="left")
        .join(spread, on="date", how="left")
        .with_columns(
            pl.col("n_symbols", "cohort_size", "n_forward_returns", "n_ic_obs", "n_raw_ic_obs").fill_null(
                zero
            ),
            coverage=pl.col("cohort_size").fill_null(0) / universe_size,
            decile_eligible=decile_eligible(pl.col("n_raw_scored"), pl.col("n_raw_distinct")),
        )
        .sort("date")
    )


def decile_members(decisions: pl.DataFrame, score: str = "raw_score") -> pl.DataFrame:
    """The decisions rows of the decile-eligible weeks of `score` (>= 20 scored names, >= 2
    distinct values), each with its `bucket` 1..10: ordinal rank r by ascending `score` (ties
    broken by symbol) among the week's n scored names, bucket = floor(10 (r - 1) / n) + 1.
    A constant or thin week has no members. Every consumer of deciles buckets through this:
    `/metrics` ic_deciles on raw_score, the analytics turnover on the score its book trades."""
    return (
        decisions.filter(pl.col(score).is_not_null())
        .with_columns(n=pl.len().over("date"), n_distinct=pl.col(score).n_unique().over("date"))
        .filter(decile_eligible(pl.col("n"), pl.col("n_distinct")))
        .sort("date", score, "symbol")
        .with_columns(r=pl.int_range(1, pl.len() + 1).over("date"))
        .with_columns(bucket=((DECILE_BUCKETS * (pl.col("r") - 1)) // pl.col("n") + 1).cast(pl.Int8))
    )


def weekly_deciles(decisions: pl.DataFrame) -> pl.DataFrame:
    """Q1..Q10 by ascending raw_score (ties broken by symbol), for the decile-eligible weeks: >= 20
    raw-scored names and >= 2 distinct raw_score values (a constant week has no rows)."""
    scored = decile_members(decisions)
    stats = scored.group_by("date", "bucket").agg(
        n_symbols=pl.len().cast(pl.Int32),
        mean_score=pl.col("raw_score").mean(),
        mean_score_z=pl.col("raw_score_z").mean(),
        mean_long_short_weight=pl.col("long_short_target_weight").mean(),
        mean_long_only_weight=pl.col("long_only_target_weight").mean(),
        mean_forward_return=pl.col("forward_return").mean(),
        n_return_obs=pl.col("forward_return").count().cast(pl.Int32),
    )
    ic = spearman_by(scored, ["date", "bucket"], "raw_score", "forward_return").select(
        "date", "bucket", ic="rho"
    )
    return stats.join(ic, on=["date", "bucket"], how="left").sort("date", "bucket")


def weekly_term(decisions: pl.DataFrame, weeks: pl.DataFrame) -> pl.DataFrame:
    """IC of raw_score vs the same name's forward return compounded over h consecutive weeks."""
    base = decisions.join(weeks.select("date", "k"), on="date").select(
        "date", "k", "symbol", "raw_score", "forward_return"
    )
    returns = base.select("symbol", "k", "forward_return")
    chain = base.with_columns(growth=1.0 + pl.col("forward_return"))
    results = []
    for step in range(max(TERM_HORIZONS)):
        if step:
            ahead = returns.select(
                "symbol", (pl.col("k") - step).alias("k"), pl.col("forward_return").alias("_next")
            )
            chain = (
                chain.join(ahead, on=["symbol", "k"], how="inner")
                .with_columns(growth=pl.col("growth") * (1.0 + pl.col("_next")))
                .drop("_next")
            )
        horizon = step + 1
        if horizon in TERM_HORIZONS:
            compounded = chain.with_columns(compounded=pl.col("growth") - 1.0)
            results.append(
                spearman_by(compounded, ["date"], "raw_score", "compounded").with_columns(
                    horizon_weeks=pl.lit(horizon, pl.Int8)
                )
            )
    return _on_grid(weeks, pl.concat(results), "horizon_weeks", TERM_HORIZONS).rename(
        {"rho": "ic", "n": "n_obs"}
    )


def weekly_autocorr(decisions: pl.DataFrame, weeks: pl.DataFrame) -> pl.DataFrame:
    """Spearman of raw_score at week t vs week t - lag over names scored in both weeks."""
    base = decisions.join(weeks.select("date", "k"), on="date").select("date", "k", "symbol", "raw_score")
    results = []
    for lag in AUTOCORR_LAGS:
        earlier = base.select("symbol", (pl.col("k") + lag).alias("k"), pl.col("raw_score").alias("_earlier"))
        paired = base.join(earlier, on=["symbol", "k"], how="inner")
        results.append(
            spearman_by(paired, ["date"], "raw_score", "_earlier").with_columns(
                lag_weeks=pl.lit(lag, pl.Int8)
            )
        )
    return _on_grid(weeks, pl.concat(results), "lag_weeks", AUTOCORR_LAGS).rename(
        {"rho": "rho", "n": "n_obs"}
    )


def _on_grid(weeks: pl.DataFrame, values: pl.DataFrame, column: str, levels: tuple[int, ...]) -> pl.DataFrame:
    """One row per (week, level) whether or not a value exists, n = 0 where no pair existed."""
    grid = weeks.select("date").join(
        pl.DataFrame({column: list(levels)}, schema={column: pl.Int8}), how="cross"
    )
    return (
        grid.join(values, on=["date", column], how="left")
        .with_columns(pl.col("n").fill_null(0))
        .select("date", column, "rho", "n")
        .sort("date", column)
    )


def weekly_tables(
    decisions: pl.DataFrame, rebalances: pl.DataFrame | None, universe_size: int
) -> dict[str, pl.DataFrame]:
    """`decisions` is the derived table (with raw_score and raw_score_z)."""
    weeks = week_index(decisions, rebalances)
    deciles = weekly_deciles(decisions)
    return {
        "weekly_signal": weekly_signal(decisions, weeks, deciles, universe_size),
        "weekly_deciles": deciles,
        "weekly_term": weekly_term(decisions, weeks),
        "weekly_autocorr": weekly_autocorr(decisions, weeks),
    }
