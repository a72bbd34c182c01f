"""The per-build tables of the analytics routes (docs/analytics.md; formulas in `analytics/`).

- `analytics_drawdowns`: every drawdown episode of every ledger book over its whole history;
- `analytics_rolling`: per book, trailing window (13, 26, 52 weeks) and rebalance week, the
  rolling IC and return figures;
- `analytics_turnover`: per book with target weights, week and decile of the score it trades
  (0 = names in no decile that week), the one-way turnover of target weights and the gross
  weight held;
- `analytics_attribution`: per book, session and name with a P&L row or a position, its net P&L,
  its leg, its return contribution, its realised weight and its sector (`/analytics/attribution`,
  which aggregates a window of it);
- `analytics_capacity`: per ledger book and fill, its notional, modelled cost, the part of that
  cost beyond its fee, and its name's adv at its decision (`capacity_frame`);
- `analytics_quantiles`: per score (score, raw_score), quantile count (2..10), bucketed week and
  quantile, the names and their equal-weighted mean forward return (`analytics.quantiles`);
- `analytics_sector_ic`: per score, week and sector of the seal's exposures, the rank IC of the score
  and the forward return within the sector (written only when the run sealed exposures);
- `analytics_sub_universe`: per week and part of its names (the liquid and illiquid half by adv, the
  seeded random halves), the rank IC of the score (`analytics.sub_universe`; only with exposures).

The server serves these as they are for the whole history and recomputes drawdowns over a
narrower window with the same functions; the catalogue-wide figures (correlation, trials) are
computed by the server from the serving files, since they depend on every build at once.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analytics import capacity, drawdowns, quantiles, rolling, sub_universe
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
CAPACITY_SCHEMA = dict(pl.DataFrame(lake.ANALYTICS_CAPACITY.empty_table()).schema)


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


def attribution_frame(
    book: str, ledger: pl.DataFrame | None, positions: pl.DataFrame | None, pnl: pl.DataFrame | None
) -> pl.DataFrame:
    """One book's rows of `analytics_attribution` (without `name`, which numbers the symbols of
    every book, nor `sector`), one per session and symbol with a P&L row or a position at the
    close, in no order (`attribution_table` sorts them).

    - `leg`: the sign of the quantity held at the start of the session (the position at the close
      of the book's previous session), else of the quantity held at its close (a position opened
      that session); 0 when neither (a round trip inside the session, a cost alone).
    - `net_pnl`: the P&L row's (0 for a position without one; null when the run sealed no P&L
      for the book); `contribution`: net_pnl / the session's starting_equity, null where that is
      0 or the book has no ledger.
    - `weight`: the position's realised weight at the close (/positions `weight`); null without
      a position."""
    held = positions.select("date", "symbol", "quantity", "weight") if positions is not None else None
    booked = pnl.select("date", "symbol", pl.col("net_pnl").cast(pl.Float64)) if pnl is not None else None
    if held is not None and booked is not None:
        rows = booked.join(held, on=["date", "symbol"], how="full", coalesce=True)
        rows = rows.with_columns(pl.col("net_pnl").fill_null(0.0))
    elif booked is not None:
        rows = booked.with_columns(quantity=pl.lit(None, pl.Float64), weight=pl.lit(None, pl.Float64))
    else:
        assert held is not None
        rows = held.with_columns(net_pnl=pl.lit(None, pl.Float64))
    dates = ledger["date"] if ledger is not None else rows["date"]
    # The session after each: a position at its close is the one held at the next one's start.
    following = pl.DataFrame({"date": dates.unique().sort()}).with_columns(next_date=pl.col("date").shift(-1))
    if held is not None:
        at_start = (
            held.join(following, on="date", how="inner")
            .select(pl.col("next_date").alias("date"), "symbol", pl.col("quantity").alias("start_quantity"))
            .drop_nulls("date")
        )
        rows = rows.join(at_start, on=["date", "symbol"], how="left")
    else:
        rows = rows.with_columns(start_quantity=pl.lit(None, pl.Float64))
    if ledger is not None:
        equity = ledger.select("date", pl.col("starting_equity").cast(pl.Float64).alias("_start"))
        rows = rows.join(equity, on="date", how="left")
    else:
        rows = rows.with_columns(_start=pl.lit(None, pl.Float64))
    start, close = pl.col("start_quantity").fill_null(0.0), pl.col("quantity").fill_null(0.0)
    return rows.with_columns(
        book=pl.lit(book),
        leg=pl.when(start != 0).then(start.sign()).otherwise(close.sign()).cast(pl.Int8),
        contribution=pl.when(pl.col("_start") != 0).then(pl.col("net_pnl") / pl.col("_start")),
    ).select("book", "date", "symbol", "leg", "net_pnl", "contribution", "weight")


def sectors_of(rows: pl.DataFrame, exposures: pl.DataFrame | None, weeks: pl.Series | None) -> pl.DataFrame:
    """`rows` (date, symbol, ...) with `sector`: the sector the seal's exposures give the name at the
    latest rebalance on or before the row's date (`weeks`: the rebalance index, else the exposures'
    dates); null before the first rebalance, for a name without an exposures row that week, and
    throughout without exposures."""
    if exposures is None:
        return rows.with_columns(sector=pl.lit(None, pl.String))
    dates = weeks if weeks is not None else exposures["date"]
    index = pl.DataFrame({"week": dates.unique().sort()}).with_columns(on=pl.col("week"))
    sectors = exposures.select(pl.col("date").alias("week"), "symbol", "sector")
    return (
        rows.sort("date")
        .join_asof(index, left_on="date", right_on="on", strategy="backward")
        .join(sectors, on=["week", "symbol"], how="left")
        .drop("week", "on")
    )


def attribution_table(
    ledgers: dict[str, pl.DataFrame],
    positions: dict[str, pl.DataFrame],
    pnl: dict[str, pl.DataFrame],
    exposures: pl.DataFrame | None = None,
    weeks: pl.Series | None = None,
) -> pl.DataFrame | None:
    """`analytics_attribution` over every book with P&L rows or positions, sorted by book, date and
    symbol; `name` numbers the distinct symbols of the whole table in ascending order (an integer
    key a request aggregates on), `sector` is `sectors_of`'s. None when no book has either."""
    books = sorted(set(positions) | set(pnl))
    if not books:
        return None
    frame = pl.concat(
        [attribution_frame(book, ledgers.get(book), positions.get(book), pnl.get(book)) for book in books]
    )
    # Sorted on the symbol's code: the same order as on the symbol, on integers.
    return (
        sectors_of(frame, exposures, weeks)
        .with_columns(name=(pl.col("symbol").rank("dense") - 1).cast(pl.Int32))
        .sort("book", "date", "name")
    )


def capacity_frame(
    book: str, trades: pl.DataFrame, ledger: pl.DataFrame, exposures: pl.DataFrame | None
) -> pl.DataFrame:
    """One row per fill of `book` (sorted by date, then symbol): its notional in equity units (the
    session's `equity_basis`), its cost, its cost beyond its fee (`analytics.capacity.fill_amounts`)
    and the adv of its name at its decision (null without an exposures row or adv)."""
    frame = trades.select("date", "decision_at", "symbol", "quantity", "fill_price", "fee", "execution_cost")
    frame = frame.join(ledger.select("date", "equity_basis"), on="date", how="left")
    if exposures is None:
        frame = frame.with_columns(adv=pl.lit(None, pl.Float64))
    else:
        adv = exposures.select(pl.col("date").alias("decision_at"), "symbol", "adv")
        frame = frame.join(adv, on=["decision_at", "symbol"], how="left")
    frame = frame.sort("date", "symbol", maintain_order=True)

    def column(name: str) -> np.ndarray:
        return frame[name].cast(pl.Float64).fill_null(np.nan).to_numpy()

    notional, cost, impact = capacity.fill_amounts(
        column("quantity"),
        column("fill_price"),
        column("fee"),
        column("execution_cost"),
        column("equity_basis"),
    )
    return frame.select(
        book=pl.lit(book),
        date="date",
        decision_at="decision_at",
        symbol="symbol",
        notional=pl.Series(notional).fill_nan(None),
        cost=pl.Series(cost),
        impact_cost=pl.Series(impact),
        adv="adv",
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


def _decision_tables(decisions: pl.DataFrame, exposures: pl.DataFrame | None) -> dict[str, pl.DataFrame]:
    """The tables drawn from the decisions: turnover (of the books whose target weights they hold),
    quantiles, and with exposures the sector IC and sub-universes."""
    out: dict[str, pl.DataFrame] = {}
    books = wire.books_in_order([b for b, column in TARGET_WEIGHTS.items() if column in decisions.columns])
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
        out["analytics_sub_universe"] = sub_universe.sub_universe_frame(decisions, exposures)
    return out


def analytics_tables(
    ledgers: dict[str, pl.DataFrame],
    decisions: pl.DataFrame | None,
    weeks: pl.DataFrame | None,
    weeks_per_year: int,
    positions: dict[str, pl.DataFrame] | None = None,
    pnl: dict[str, pl.DataFrame] | None = None,
    exposures: pl.DataFrame | None = None,
    rebalance_dates: pl.Series | None = None,
    trades: dict[str, pl.DataFrame] | None = None,
) -> dict[str, pl.DataFrame]:
    """`ledgers`, `positions`, `pnl`, `trades`: the rows of each book (the fills of each trade book);
    `weeks`: (date, ic, raw_ic) of every week in date order (null ICs without cross-sections), None
    without a week index; `exposures`: the seal's, None when it sealed none; `rebalance_dates`: the
    rebalance index's."""
    episodes, rolled = [], []
    for book in wire.books_in_order(list(ledgers)):
        ledger = _ledger_arrays(ledgers[book])
        episodes.append(
            episodes_frame(book, ledger["date"], ledger["starting_equity"], ledger["ending_equity"])
        )
        if weeks is not None and weeks.height:
            rolled.append(rolling_frame(book, weeks, ledger, weeks_per_year))
    out = {"analytics_drawdowns": pl.concat(episodes) if episodes else pl.DataFrame(schema=DRAWDOWN_SCHEMA)}
    # Written for every build (empty without fills), so that a build without it predates it.
    filled = [
        capacity_frame(book, (trades or {})[book], ledgers[book], exposures)
        for book in wire.books_in_order(list(ledgers))
        if book in (trades or {})
    ]
    out["analytics_capacity"] = pl.concat(filled) if filled else pl.DataFrame(schema=CAPACITY_SCHEMA)
    if rolled:
        out["analytics_rolling"] = pl.concat(rolled)
    if decisions is not None:
        out |= _decision_tables(decisions, exposures)
    attribution = attribution_table(ledgers, positions or {}, pnl or {}, exposures, rebalance_dates)
    if attribution is not None:
        out["analytics_attribution"] = attribution
    return out
