"""The per-build tables of the analytics routes (docs/analytics.md; formulas in `analytics/`).

- `analytics_drawdowns`: every drawdown episode of every ledger book over its whole history;
- `analytics_rolling`: per book, trailing window (13, 26, 52 weeks) and rebalance week, the
  rolling IC and return figures;
- `analytics_turnover`: per book with target weights, week and decile of the score it trades
  (0 = names in no decile that week), the one-way turnover of target weights and the gross
  weight held.
- `analytics_quantiles`: per score (score, raw_score), quantile count (2..10), bucketed week and
  quantile, the names and their equal-weighted mean forward return (`analytics.quantiles`).
- `analytics_sector_ic`: per score, week and sector of the seal's exposures, the rank IC of the score
  and the forward return within the sector (written only when the run sealed exposures).

The server serves these as they are for the whole history and recomputes drawdowns over a
narrower window with the same functions; the catalogue-wide figures (correlation, trials) are
computed by the server from the serving files, since they depend on every build at once.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analytics import drawdowns, quantiles, rolling
from analytics.ranks import spearman_by
from pipeline.weekly import decile_members
from schemas import lake, wire

TARGET_WEIGHTS = {book: f"{book}_target_weight" for book in wire.BASE_BOOKS}
"""The decision column holding a book's target weight (only the base books have one)."""


def _ledger_arrays(ledger: pl.DataFrame) -> dict[str, np.ndarray]:
    ordered = ledger.sort("date")
    return {
        "date": ordered["date"].to_numpy().astype("datetime64[D]"),
        "starting_equity": ordered["starting_equity"].cast(pl.Float64).to_numpy(),
        "ending_equity": ordered["ending_equity"].cast(pl.Float64).to_numpy(),
    }


def episodes_frame(book: str, dates: np.ndarray, start: np.ndarray, end: np.ndarray) -> pl.DataFrame:
    """Episodes of one book's sessions (date order) as rows of the analytics_drawdowns table."""
    days = dates.astype("datetime64[D]").astype(np.int64)  # dated as days since 1970, then cast
    columns = drawdowns.episode_columns(days, start, end)
    size = len(columns["depth_pct"])
    as_days = {name: pl.Int32 if dtype == pl.Date else dtype for name, dtype in DRAWDOWN_SCHEMA.items()}
    frame = pl.DataFrame({"book": [book] * size, **columns}, schema=as_days)
    return frame.with_columns(
        pl.col(name).cast(pl.Date) for name, dtype in DRAWDOWN_SCHEMA.items() if dtype == pl.Date
    )


DRAWDOWN_SCHEMA = dict(pl.DataFrame(lake.ANALYTICS_DRAWDOWNS.empty_table()).schema)
"""The lake's schema of the table, as polars types (`schemas.lake` declares it)."""


def rolling_frame(
    book: str, weeks: pl.DataFrame, ledger: dict[str, np.ndarray], weeks_per_year: int
) -> pl.DataFrame:
    """`weeks`: (date, ic, raw_ic) in week order; a raw book's IC is the raw signal's, since the
    conditioned and raw families never stand in for each other."""
    week_dates = weeks["date"].to_numpy().astype("datetime64[D]")
    ic = weeks["raw_ic" if wire.is_raw_book(book) else "ic"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    returns = rolling.weekly_returns(week_dates, ledger["date"], ledger["ending_equity"])
    parts = []
    for window in rolling.WINDOWS:
        # Column order and types are the lake's, applied when the table is published (lake_table).
        figures = rolling.rolling_figures(ic, returns, window, weeks_per_year)
        n = figures["n_ic_weeks"].size
        parts.append(
            pl.DataFrame(
                {
                    "book": [book] * n,
                    "window_weeks": [window] * n,
                    "date": week_dates[window - 1 :][:n],
                    **figures,
                }
            )
        )
    return pl.concat(parts).with_columns(pl.col(pl.Float64).fill_nan(None))


def turnover_frame(book: str, decisions: pl.DataFrame, buckets: pl.DataFrame) -> pl.DataFrame:
    """Per week with a cross-section (from the second) and decile: the one-way turnover
    1/2 sum |w_t - w_prev| of the names in the decile at t, w_prev being the weight at the previous
    week with a cross-section (names in no decile at t, those that left the cross-section included,
    are bucket 0), and the gross weight sum |w_t| they hold. Missing weights are 0. `buckets`:
    (date, symbol, bucket) of the decile members (`pipeline.weekly.decile_members`)."""
    column = TARGET_WEIGHTS[book]
    k = (
        decisions.select("date")
        .unique()
        .sort("date")
        .with_row_index("k")
        .with_columns(pl.col("k").cast(pl.Int64))
    )
    weights = decisions.select("date", "symbol", pl.col(column).fill_null(0.0).alias("w")).join(k, on="date")
    previous = weights.select("symbol", (pl.col("k") + 1).alias("k"), pl.col("w").alias("w_prev"))
    changes = (
        weights.drop("date")
        .join(previous, on=["symbol", "k"], how="full", coalesce=True)
        .join(k.filter(pl.col("k") >= 1), on="k", how="inner")
        .join(buckets, on=["date", "symbol"], how="left")
        .with_columns(
            pl.col("bucket").fill_null(0).cast(pl.Int8),
            pl.col("w").fill_null(0.0),
            pl.col("w_prev").fill_null(0.0),
        )
    )
    return (
        changes.group_by("date", "bucket")
        .agg(
            names=pl.len().cast(pl.Int32),
            turnover=(pl.col("w") - pl.col("w_prev")).abs().sum() / 2.0,
            gross_weight=pl.col("w").abs().sum(),
        )
        .with_columns(book=pl.lit(book))
        .select("book", "date", "bucket", "names", "turnover", "gross_weight")
        .sort("date", "bucket")
    )


QUANTILES_SCHEMA = dict(pl.DataFrame(lake.ANALYTICS_QUANTILES.empty_table()).schema)


def quantiles_frame(decisions: pl.DataFrame) -> pl.DataFrame:
    """Every score's rows of `analytics_quantiles`, in (score, quantiles, date, quantile) order."""
    ordered = decisions.select("date", "score", "raw_score", "forward_return").sort("date")
    days = ordered["date"].cast(pl.Int32).to_numpy()
    forward = ordered["forward_return"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    parts = []
    for score in ("score", "raw_score"):
        columns = quantiles.weekly_quantiles(
            days, ordered[score].cast(pl.Float64).fill_null(np.nan).to_numpy(), forward
        )
        size = columns["date"].size
        parts.append(
            pl.DataFrame(
                {"score": [score] * size, **columns},
                schema={**QUANTILES_SCHEMA, "date": pl.Int32},
            ).with_columns(pl.col("date").cast(pl.Date), pl.col("mean_forward_return").fill_nan(None))
        )
    return pl.concat(parts).sort("score", "quantiles", "date", "quantile", maintain_order=True)


def sector_ic_frame(decisions: pl.DataFrame, exposures: pl.DataFrame) -> pl.DataFrame:
    """Every score's rows of `analytics_sector_ic`: per week and sector (names without a sector that
    week left out), the Spearman rank IC of the score and the forward return among the sector's
    names, by the one rank rule of the weekly IC (`analytics.ranks.spearman_by`: null below 3 pairs
    or when a side is constant), and the names with both."""
    named = decisions.select("date", "symbol", "score", "raw_score", "forward_return").join(
        exposures.select("date", "symbol", "sector").filter(pl.col("sector").is_not_null()),
        on=["date", "symbol"],
        how="inner",
    )
    parts = [
        spearman_by(named, ["date", "sector"], score, "forward_return").select(
            score=pl.lit(score), date="date", sector="sector", ic="rho", names="n"
        )
        for score in ("score", "raw_score")
    ]
    return pl.concat(parts).filter(pl.col("names") > 0).sort("score", "date", "sector")


def analytics_tables(
    ledgers: dict[str, pl.DataFrame],
    decisions: pl.DataFrame | None,
    weeks: pl.DataFrame | None,
    weeks_per_year: int,
    exposures: pl.DataFrame | None = None,
) -> dict[str, pl.DataFrame]:
    """`ledgers`: the portfolio rows of each book; `weeks`: (date, ic, raw_ic) of every week in
    date order (null ICs without cross-sections), None without a week index; `exposures`: the
    seal's exposures, None when it sealed none."""
    episodes, rolled = [], []
    for book in wire.books_in_order(list(ledgers)):
        ledger = _ledger_arrays(ledgers[book])
        episodes.append(
            episodes_frame(book, ledger["date"], ledger["starting_equity"], ledger["ending_equity"])
        )
        if weeks is not None and weeks.height:
            rolled.append(rolling_frame(book, weeks, ledger, weeks_per_year))
    out = {"analytics_drawdowns": pl.concat(episodes) if episodes else pl.DataFrame(schema=DRAWDOWN_SCHEMA)}
    if rolled:
        out["analytics_rolling"] = pl.concat(rolled)
    if decisions is not None:
        books = wire.books_in_order(
            [b for b, column in TARGET_WEIGHTS.items() if column in decisions.columns]
        )
        if books:
            buckets = {
                score: decile_members(decisions, score).select("date", "symbol", "bucket")
                for score in ("score", "raw_score")
            }
            out["analytics_turnover"] = pl.concat(
                [turnover_frame(book, decisions, buckets[wire.traded_score(book)]) for book in books]
            )
        out["analytics_quantiles"] = quantiles_frame(decisions)
        if exposures is not None:
            out["analytics_sector_ic"] = sector_ic_frame(decisions, exposures)
    return out
