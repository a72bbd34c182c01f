"""From a validated seal to the published tables of `schemas.lake` (the weekly series: `weekly.py`).

What is derived rather than trusted: `raw_score` (published name of the sealed pre-smoothing
score), `cohort_size`, `score_z` and `raw_score_z`, `n_symbols`, positions' `signed_notional` and
`weight`, P&L `net_pnl`, ledger `gross_exposure` and `net_exposure`, trades' New York session
`date`, the books summary, and the per-build tables of the analytics routes (`analytics_tables.py`,
`factor_tables.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from alpha_results_seal.seal import Seal
from alpha_results_seal.trading import fill_session_dates
from pipeline.analytics_tables import analytics_tables
from pipeline.factor_tables import factor_tables
from pipeline.weekly import weekly_tables
from schemas.conventions import WEEKS_PER_YEAR
from schemas.lake import STYLE_LOADINGS


@dataclass
class DerivedAlpha:
    single: dict[str, pl.DataFrame] = field(default_factory=dict)  # single-file tables by name
    decisions: pl.DataFrame | None = None  # partitioned by year when written
    books: dict[str, dict[str, pl.DataFrame]] = field(default_factory=dict)  # table -> book -> rows


def _frame(seal: Seal, kind: str, book: str | None = None) -> pl.DataFrame | None:
    table = seal.table(kind, book)
    if table is None:
        return None
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def zscore_over_week(column: str) -> pl.Expr:
    """(x - week mean) / week sample stdev over the week's non-null values; null when the
    stdev is 0 or fewer than 2 names carry a value."""
    x = pl.col(column)
    n = x.count().over("date")
    std = x.std(ddof=1).over("date")
    return pl.when((n >= 2) & (std > 0)).then((x - x.mean().over("date")) / std).otherwise(None)


def derive_decisions(decisions: pl.DataFrame) -> pl.DataFrame:
    return (
        decisions.rename({"pre_smoothing_score": "raw_score"})
        .with_columns(
            cohort_size=pl.col("score").count().over("date").cast(pl.Int32),
            score_z=zscore_over_week("score"),
            raw_score_z=zscore_over_week("raw_score"),
        )
        .sort("date", "symbol")
    )


def derive_rebalances(rebalances: pl.DataFrame, decisions: pl.DataFrame | None) -> pl.DataFrame:
    if decisions is None:
        # Without cross-sections the counts are unknown, not zero.
        return rebalances.with_columns(n_symbols=pl.lit(None, pl.Int32), cohort_size=pl.lit(None, pl.Int32))
    counts = decisions.group_by("date").agg(
        n_symbols=pl.len().cast(pl.Int32), cohort_size=pl.col("score").count().cast(pl.Int32)
    )
    return (
        rebalances.join(counts, on="date", how="left")
        .with_columns(pl.col("n_symbols").fill_null(0), pl.col("cohort_size").fill_null(0))
        .sort("date")
    )


def derive_portfolio(ledger: pl.DataFrame) -> pl.DataFrame:
    equity = pl.col("ending_equity") * pl.col("equity_basis")
    return ledger.with_columns(
        gross_exposure=pl.when(equity != 0).then(pl.col("gross_notional") / equity),
        net_exposure=pl.when(equity != 0).then(pl.col("net_notional") / equity),
    ).sort("date")


def derive_positions(positions: pl.DataFrame, ledger: pl.DataFrame | None) -> pl.DataFrame:
    frame = positions.with_columns(signed_notional=pl.col("quantity") * pl.col("mark_price"))
    if ledger is None:
        return frame.with_columns(weight=pl.lit(None, pl.Float64)).sort("date", "symbol")
    equity = ledger.select("date", pl.col("ending_equity").alias("_equity"))
    return (
        frame.join(equity, on="date", how="left")
        .with_columns(
            weight=pl.when(pl.col("_equity") != 0).then(pl.col("signed_notional") / pl.col("_equity"))
        )
        .drop("_equity")
        .sort("date", "symbol")
    )


def derive_pnl(pnl: pl.DataFrame) -> pl.DataFrame:
    return pnl.with_columns(
        net_pnl=pl.col("market_pnl") + pl.col("execution_cost") + pl.col("borrow_cashflow")
    ).sort("date", "symbol")


def derive_trades(trades: pl.DataFrame) -> pl.DataFrame:
    """A fill's session `date`: the seal kit's rule (`trading.fill_session_dates`), which its
    builders also use to sum a name's fills into its session's P&L."""
    sessions = pl.from_arrow(fill_session_dates(trades["timestamp"].to_arrow()))
    assert isinstance(sessions, pl.Series)
    return trades.with_columns(date=sessions).sort("timestamp", "symbol")


def books_summary(books: dict[str, dict[str, pl.DataFrame]]) -> pl.DataFrame:
    rows = []
    for kind in ("portfolio", "positions", "pnl", "trades"):
        for book, frame in sorted(books.get(kind, {}).items()):
            dates = frame["date"]
            rows.append(
                {
                    "book": book,
                    "kind": kind,
                    "raw": book.startswith("raw_"),
                    "sessions": dates.n_unique() if frame.height else 0,
                    "rows": frame.height,
                    "from": dates.min(),
                    "to": dates.max(),
                }
            )
    schema = {
        "book": pl.String,
        "kind": pl.String,
        "raw": pl.Boolean,
        "sessions": pl.Int32,
        "rows": pl.Int64,
        "from": pl.Date,
        "to": pl.Date,
    }
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def derive(seal: Seal) -> DerivedAlpha:
    out = DerivedAlpha()
    decisions_sealed = _frame(seal, "decisions")
    rebalances_sealed = _frame(seal, "rebalances")
    if decisions_sealed is not None:
        out.decisions = derive_decisions(decisions_sealed)
    if rebalances_sealed is not None:
        out.single["rebalances"] = derive_rebalances(rebalances_sealed, out.decisions)
    metrics = _frame(seal, "metrics")
    if metrics is not None:
        out.single["metrics_stored"] = metrics
    exposures = _frame(seal, "exposures")
    if exposures is not None:
        # In the order a week is read: one binary search finds a week's block. The tables below are
        # derived from it under the seal's names; the lake stores each style column as the loading it
        # is (`volatility_loading`: not the vocabulary's volatility of returns).
        exposures = exposures.sort("date", "symbol")
        out.single["exposures"] = exposures.rename(STYLE_LOADINGS)
    ledgers = {book: _frame(seal, "portfolio", book) for book in seal.book_tables("portfolio")}
    for kind in ("portfolio", "positions", "pnl", "trades"):
        for book in seal.book_tables(kind):
            frame = _frame(seal, kind, book)
            assert frame is not None
            if kind == "portfolio":
                frame = derive_portfolio(frame)
            elif kind == "positions":
                frame = derive_positions(frame, ledgers.get(book))
            elif kind == "pnl":
                frame = derive_pnl(frame)
            else:
                frame = derive_trades(frame)
            out.books.setdefault(kind, {})[book] = frame
    out.single["books"] = books_summary(out.books)
    if out.decisions is not None:
        universe_size = int(seal.manifest["universe_size"])
        out.single.update(weekly_tables(out.decisions, rebalances_sealed, universe_size))
    out.single.update(
        analytics_tables(
            out.books.get("portfolio", {}),
            out.decisions,
            _weeks(out),
            _weeks_per_year(seal),
            out.books.get("positions", {}),
            out.books.get("pnl", {}),
            exposures,
            out.single["rebalances"]["date"] if "rebalances" in out.single else None,
            trades=out.books.get("trades", {}),
        )
    )
    rebalances = out.single.get("rebalances")
    out.single.update(
        factor_tables(
            exposures,
            out.decisions,
            None if rebalances is None else rebalances["date"],
            out.books.get("portfolio", {}),
            out.books.get("positions", {}),
        )
    )
    return out


def _weeks(out: DerivedAlpha) -> pl.DataFrame | None:
    """(date, ic, raw_ic) of every week in date order: the weekly series' weeks, else the
    rebalance index (without ICs)."""
    if "weekly_signal" in out.single:
        return out.single["weekly_signal"].select("date", "ic", "raw_ic").sort("date")
    if "rebalances" in out.single:
        none = pl.lit(None, pl.Float64)
        return out.single["rebalances"].select("date", ic=none, raw_ic=none).sort("date")
    return None


def _weeks_per_year(seal: Seal) -> int:
    conventions = seal.manifest.get("metric_conventions") or {}
    return int(conventions.get("weeks_per_year") or WEEKS_PER_YEAR)
