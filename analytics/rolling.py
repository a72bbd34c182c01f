"""Trailing-window figures per rebalance week: IC mean and ICIR, and the book's weekly returns'
annualised return, volatility, information ratio and hit rate.

A row exists for every week from the `window`-th on; each figure skips missing values inside the
window and is null below `min_observations(window)` values (the standard deviation also needs 2).
"""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics import inputs
from analytics.entries import conventions
from analytics.ic import annualisation_factor
from datasets.queries import Page, Window, day_numbers, window_bounds
from datasets.reader import BuildView
from datasets.rows import shape_of
from schemas import choices, wire

WINDOWS = tuple(int(weeks) for weeks in choices.ROLLING_WINDOWS)


def min_observations(window: int) -> int:
    """Values a window needs before its figures are served: half of it."""
    return max(2, window // 2)


def weekly_returns(week_dates: np.ndarray, ledger_dates: np.ndarray, ending_equity: np.ndarray) -> np.ndarray:
    """Book return of each week: equity at the week's rebalance date over equity at the previous
    one, minus 1, where equity at a date is the ending equity of the last session on or before it.
    The first week, and a week without a session on or before either date, is NaN."""
    out = np.full(week_dates.size, np.nan)
    if week_dates.size == 0 or ledger_dates.size == 0:
        return out
    at = np.searchsorted(ledger_dates, week_dates, side="right") - 1
    equity = np.where(at >= 0, ending_equity[np.clip(at, 0, None)], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[1:] = np.where(equity[:-1] != 0, equity[1:] / equity[:-1] - 1.0, np.nan)
    return out


def _windows(values: np.ndarray, window: int) -> np.ndarray:
    """Rows k >= window-1: the trailing `window` values ending at k."""
    return np.lib.stride_tricks.sliding_window_view(values, window)


def rolling_figures(
    ic: np.ndarray, returns: np.ndarray, window: int, periods_per_year: int
) -> dict[str, np.ndarray]:
    """One value per week from the `window`-th (index window-1) on; NaN where not measurable."""
    need = min_observations(window)
    if ic.size < window:
        return {name: np.empty(0) for name in COLUMNS}
    out: dict[str, np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN window is NaN, said once in the docs
        ic_w = _windows(ic, window)
        n_ic = np.sum(np.isfinite(ic_w), axis=1)
        mean_ic = np.nanmean(ic_w, axis=1)
        std_ic = np.nanstd(ic_w, axis=1, ddof=1)
        out["n_ic_weeks"] = n_ic.astype(np.float64)
        out["rebuilt_mean_ic"] = np.where(n_ic >= need, mean_ic, np.nan)
        out["icir_per_week"] = np.where((n_ic >= need) & (std_ic > 0), mean_ic / std_ic, np.nan)
        r_w = _windows(returns, window)
        n_r = np.sum(np.isfinite(r_w), axis=1)
        mean_r = np.nanmean(r_w, axis=1)
        std_r = np.nanstd(r_w, axis=1, ddof=1)
        ok = n_r >= need
        out["n_return_weeks"] = n_r.astype(np.float64)
        out["annualised_return"] = np.where(ok, mean_r * periods_per_year, np.nan)
        out["volatility"] = np.where(ok, std_r * np.sqrt(periods_per_year), np.nan)
        out["information_ratio"] = np.where(
            ok & (std_r > 0), mean_r / std_r * np.sqrt(periods_per_year), np.nan
        )
        hits = np.sum(np.where(np.isfinite(r_w), r_w > 0, False), axis=1)
        out["return_hit_rate"] = np.where(ok, hits / np.maximum(n_r, 1), np.nan)
    return out


COLUMNS = (
    "n_ic_weeks",
    "rebuilt_mean_ic",
    "icir_per_week",
    "n_return_weeks",
    "annualised_return",
    "volatility",
    "information_ratio",
    "return_hit_rate",
)
"""The keys of `rolling_figures`, in the order it fills them (the table's column order), each the
vocabulary's name of what it holds (issue 65, item 7: the per-week ICIR was `icir`, which every route
serves annualised; the share of weeks with a positive return was `hit_rate`, /metrics' share of weeks
with a positive IC; item 3: the window's mean of the rebuilt weekly IC was `mean_ic`, the name of the
IC term structure's horizon figure, a mean IC of the raw score at horizon h)."""

RENAMED = {"mean_ic": "rebuilt_mean_ic", "icir": "icir_per_week", "hit_rate": "return_hit_rate"}
"""analytics_rolling's columns as a build written before issue 65 (items 3 and 7) named them: old -> new.
Such a build is served until it is rebuilt, its rows read under the new names."""


def rolling_page(
    view: BuildView, book: str, window_weeks: int, window: Window, limit: int, offset: int
) -> Page:
    """The page of `/analytics/rolling`: the pipeline's rows (`analytics_rolling`) of the book for
    `window_weeks`, those of the rebalance weeks in `window`."""
    table = inputs.table_rows(view, "analytics_rolling", book, window_weeks=window_weeks)
    if table is None:
        return Page([], 0)
    a, b = window_bounds(day_numbers(table), window)
    page = table.slice(a, b - a).slice(offset, limit)
    page = page.rename_columns([RENAMED.get(name, name) for name in page.column_names])
    page = _icir_annualised(page, conventions(view).weeks_per_year)
    return Page(shape_of(wire.ROLLING_FIELDS).rows(page), b - a)


def _icir_annualised(rows: pa.Table, weeks_per_year: int) -> pa.Table:
    """`rows` of analytics_rolling with the served `icir` in place of `icir_per_week`: the lake stores
    it per week (the open table analysts read, whatever pipeline built it), and every served `icir` but
    `/metrics` `core.icir_per_week` is annualised (analytics/ic.py), as the rows' information ratio is."""
    at = rows.schema.get_field_index("icir_per_week")
    annualised = pc.multiply(rows.column(at), annualisation_factor(weeks_per_year))
    return rows.set_column(at, pa.field("icir", pa.float64()), annualised)
