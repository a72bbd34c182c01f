"""The per-build tables of factor attribution (`/analytics/factors`; docs/analytics.md, "Factor
attribution"), written once per build from the seal's `exposures`, the decisions' forward returns
and each book's positions and ledger; none without exposures or decisions.

- `analytics_factor_weeks`: per rebalance week with exposures, the regression's names, regressors
  and R^2 (`analytics.factor_model`), the week's next decision date, and the feature-neutral IC of
  `score` and `raw_score` (each residualised on the same loadings, then ranked against the forward
  return by the one rank-correlation rule, `analytics.ranks.spearman_by`);
- `analytics_factor_returns`: per estimated week and factor, the factor return;
- `analytics_factor_exposures`: per book, estimated week and factor, the book's exposure (its
  realised weights on the first session after the decision times the week's loadings) and its
  part of the book's return (exposure x factor return);
- `analytics_factor_attribution`: per book and estimated week with a holding period in the
  ledger, the book's return compounded over the sessions after the decision up to and including
  the next decision session, the sum of the parts (common) and the rest (specific).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from alpha_results_seal.arrow_schemas import STYLE_FACTORS
from analytics import factor_model
from analytics.compounding import total_growth
from analytics.ranks import spearman_by
from schemas import wire

SCORES = {"neutral_ic": "score", "raw_neutral_ic": "raw_score"}
"""The feature-neutral IC of each signal family: the column residualised."""


def used_styles(exposures: pl.DataFrame) -> tuple[str, ...]:
    """The style loadings in the regressions: those the build carries somewhere (a column null
    throughout is a factor the engine does not model)."""
    return tuple(s for s in STYLE_FACTORS if exposures[s].null_count() < exposures.height)


def _week_bounds(dates: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges of each date's block in a date-sorted column."""
    if dates.size == 0:
        return []
    starts = np.flatnonzero(np.r_[True, dates[1:] != dates[:-1]])
    stops = np.r_[starts[1:], dates.size]
    return list(zip(starts.tolist(), stops.tolist(), strict=True))


def _complete(sectors: np.ndarray, styles: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The names with a sector, every style loading and `y`."""
    return np.array([s is not None for s in sectors], bool) & np.isfinite(styles).all(axis=1) & np.isfinite(y)


def week_tables(
    exposures: pl.DataFrame, decisions: pl.DataFrame, week_dates: pl.Series
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`analytics_factor_weeks` and `analytics_factor_returns`. `week_dates`: every rebalance
    date (the next decision of a week is the next of them)."""
    styles = used_styles(exposures)
    joined = exposures.join(
        decisions.select("date", "symbol", "forward_return", *SCORES.values()),
        on=["date", "symbol"],
        how="left",
    ).sort("date", "symbol")
    dates = joined["date"].to_numpy()
    sector = joined["sector"].to_numpy().astype(object)
    loadings = (
        joined.select(pl.col(s).cast(pl.Float64).fill_null(np.nan) for s in styles).to_numpy()
        if styles
        else np.empty((joined.height, 0))
    )

    def column(name: str) -> np.ndarray:
        return joined[name].cast(pl.Float64).fill_null(np.nan).to_numpy()

    forward = column("forward_return")
    residuals = {name: np.full(joined.height, np.nan) for name in SCORES}
    scores = {name: column(score) for name, score in SCORES.items()}
    weeks: dict[str, list[object]] = {"date": [], "names": [], "regressors": [], "r_squared": []}
    returns: dict[str, list[object]] = {"date": [], "factor_type": [], "factor": [], "factor_return": []}
    for a, b in _week_bounds(dates):
        day = dates[a].item()  # a datetime.date
        present = _complete(sector[a:b], loadings[a:b], forward[a:b])
        found = factor_model.design(sector[a:b][present], loadings[a:b][present], styles)
        fitted = factor_model.fit(forward[a:b][present], found)
        weeks["date"].append(day)
        weeks["names"].append(int(present.sum()))
        weeks["regressors"].append(found.regressors)
        weeks["r_squared"].append(None if fitted is None else fitted.r_squared)
        if fitted is not None:
            labels = [("sector", s) for s in found.sectors] + [("style", s) for s in found.styles]
            for (kind, factor), value in zip(labels, fitted.coefficients.tolist(), strict=True):
                returns["date"].append(day)
                returns["factor_type"].append(kind)
                returns["factor"].append(factor)
                returns["factor_return"].append(value)
        for name, score in scores.items():
            kept = _complete(sector[a:b], loadings[a:b], score[a:b])
            found = factor_model.design(sector[a:b][kept], loadings[a:b][kept], styles)
            neutral = factor_model.neutralised(score[a:b][kept], found)
            if neutral is not None:
                residuals[name][a:b][kept] = neutral
    week_frame = pl.DataFrame(
        weeks, schema={"date": pl.Date, "names": pl.Int32, "regressors": pl.Int32, "r_squared": pl.Float64}
    )
    following = (
        pl.DataFrame({"date": week_dates})
        .unique()
        .sort("date")
        .with_columns(next_date=pl.col("date").shift(-1))
    )
    week_frame = week_frame.join(following, on="date", how="left")
    ranked = pl.DataFrame({"date": dates, "forward_return": forward, **residuals})
    for name in SCORES:
        ic = spearman_by(ranked, ["date"], name, "forward_return").rename({"rho": name, "n": f"{name}_names"})
        week_frame = week_frame.join(ic, on="date", how="left")
    factor_frame = pl.DataFrame(
        returns,
        schema={"date": pl.Date, "factor_type": pl.String, "factor": pl.String, "factor_return": pl.Float64},
    )
    return week_frame.sort("date"), factor_frame


def holding_periods(weeks: pl.DataFrame, ledger: pl.DataFrame) -> pl.DataFrame:
    """Per week with a next decision and a session after its own: the first session after the
    decision, the sessions up to and including the next decision date, and the book's return
    compounded over them (ending / starting - 1 per session)."""
    ordered = ledger.sort("date")
    days = ordered["date"].to_numpy()
    start = ordered["starting_equity"].cast(pl.Float64).to_numpy()
    end = ordered["ending_equity"].cast(pl.Float64).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        returns = np.where(start != 0, end / start - 1.0, np.nan)
    rows: dict[str, list[object]] = {"date": [], "first_session": [], "sessions": [], "book_return": []}
    for day, following in weeks.select("date", "next_date").iter_rows():
        if following is None:
            continue
        a = int(np.searchsorted(days, np.datetime64(day), "right"))
        b = int(np.searchsorted(days, np.datetime64(following), "right"))
        if a >= b:
            continue
        rows["date"].append(day)
        rows["first_session"].append(days[a].item())
        rows["sessions"].append(b - a)
        rows["book_return"].append(total_growth(returns[a:b]) - 1.0)
    return pl.DataFrame(
        rows,
        schema={"date": pl.Date, "first_session": pl.Date, "sessions": pl.Int32, "book_return": pl.Float64},
    )


def book_tables(
    book: str,
    weeks: pl.DataFrame,
    factor_returns: pl.DataFrame,
    exposures: pl.DataFrame,
    ledger: pl.DataFrame,
    positions: pl.DataFrame,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One book's rows of `analytics_factor_exposures` and `analytics_factor_attribution`."""
    periods = holding_periods(weeks, ledger).join(
        factor_returns.select("date").unique(), on="date", how="inner"
    )
    held = (
        positions.select(pl.col("date").alias("first_session"), "symbol", pl.col("weight").cast(pl.Float64))
        .join(periods.select("date", "first_session"), on="first_session", how="inner")
        .drop("first_session")
    )
    named = held.join(exposures, on=["date", "symbol"], how="left")
    # A held name without a sector or a loading carries no exposure to it (its return is specific).
    by_sector = (
        named.filter(pl.col("sector").is_not_null())
        .group_by("date", "sector")
        .agg(exposure=pl.col("weight").sum())
        .select("date", factor_type=pl.lit("sector"), factor=pl.col("sector"), exposure=pl.col("exposure"))
    )
    styles = used_styles(exposures)
    by_style = [
        named.group_by("date")
        .agg(exposure=(pl.col("weight") * pl.col(s)).sum())
        .select("date", factor_type=pl.lit("style"), factor=pl.lit(s), exposure=pl.col("exposure"))
        for s in styles
    ]
    exposure = pl.concat([by_sector, *by_style]) if held.height else None
    # Every factor estimated that week has a row; one the book did not hold is a measured 0.
    rows = factor_returns.join(periods.select("date"), on="date", how="inner")
    if exposure is not None:
        rows = rows.join(exposure, on=["date", "factor_type", "factor"], how="left")
    else:
        rows = rows.with_columns(exposure=pl.lit(None, pl.Float64))
    rows = rows.with_columns(pl.col("exposure").fill_null(0.0)).with_columns(
        part=pl.col("exposure") * pl.col("factor_return"), book=pl.lit(book)
    )
    common = rows.group_by("date").agg(common_return=pl.col("part").sum())
    attribution = (
        periods.join(weeks.select("date", "next_date"), on="date", how="left")
        .join(common, on="date", how="left")
        .with_columns(book=pl.lit(book), specific_return=pl.col("book_return") - pl.col("common_return"))
        .select("book", "date", "next_date", "sessions", "book_return", "common_return", "specific_return")
        .sort("date")
    )
    ordered = rows.with_columns(_rank=_factor_rank()).sort("date", "factor_type", "_rank", "factor")
    return ordered.select("book", "date", "factor_type", "factor", "exposure", "part"), attribution


def _factor_rank() -> pl.Expr:
    """Sectors by name, then styles in `STYLE_FACTORS` order (the answer's order)."""
    return (
        pl.when(pl.col("factor_type") == "style")
        .then(pl.col("factor").replace_strict(STYLE_FACTORS, list(range(len(STYLE_FACTORS))), default=0))
        .otherwise(0)
    )


def factor_tables(
    exposures: pl.DataFrame | None,
    decisions: pl.DataFrame | None,
    week_dates: pl.Series | None,
    ledgers: dict[str, pl.DataFrame],
    positions: dict[str, pl.DataFrame],
) -> dict[str, pl.DataFrame]:
    """The four tables (none without exposures or decisions). `week_dates`: the rebalance
    index's dates (None: the exposures' own)."""
    if exposures is None or decisions is None:
        return {}
    dates = exposures["date"].unique() if week_dates is None else week_dates
    weeks, factor_returns = week_tables(exposures, decisions, dates)
    ordered = factor_returns.with_columns(_rank=_factor_rank()).sort("date", "factor_type", "_rank", "factor")
    out = {"analytics_factor_weeks": weeks, "analytics_factor_returns": ordered.drop("_rank")}
    parts, attributions = [], []
    # A book without positions has no exposures to measure: no rows (its figures are not
    # measurable, never a book whose return is all specific).
    for book in wire.books_in_order([b for b in ledgers if b in positions]):
        found = book_tables(book, weeks, factor_returns, exposures, ledgers[book], positions[book])
        parts.append(found[0])
        attributions.append(found[1])
    if parts:
        out["analytics_factor_exposures"] = pl.concat(parts)
        out["analytics_factor_attribution"] = pl.concat(attributions)
    return out
