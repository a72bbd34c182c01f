"""What the metrics computation reads: one published build's tables, as numpy columns.

Everything here depends only on the build, never on the request, so `metrics_inputs` computes it
once per build and keeps it on the build's view (the request's snapshot, `datasets.reader`):
no cache of its own, and a request reads its metrics from the same build as everything else.
Request-time work then reads their prefix sums (`analytics.metrics.windows`, also kept per build)
at the window's two ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from analytics.entries import Conventions
from analytics.entries import conventions as conventions_of
from datasets.reader import BuildView

Columns = dict[str, np.ndarray]


# scope -> period -> metric -> value ("" is the period of scope overall)
StoredMetrics = dict[str, dict[str, dict[str, float | None]]]


@dataclass(frozen=True)
class MetricsInputs:
    alpha: str
    source_alpha_id: str
    kinds_present: frozenset[str]
    missing_required_kinds: tuple[str, ...]  # required kinds the run never sealed (incomplete)
    conventions: Conventions
    signal_processing: dict[str, Any] | None
    stored: StoredMetrics | None  # None when the metrics kind was not sealed
    rebalances: Columns | None = None  # date, week_status
    weekly_signal: Columns | None = None
    weekly_deciles: Columns | None = None
    weekly_term: Columns | None = None
    weekly_autocorr: Columns | None = None
    ledger: Columns | None = None  # long_short book: date, starting_equity, ending_equity
    derived: dict[str, Any] = field(default_factory=dict)  # per-build results (e.g. nwt.ic)


def columns_from_table(table: pa.Table, names: tuple[str, ...]) -> Columns:
    """Numpy columns (dates as datetime64[D], nulls as NaN for numbers), sorted by date."""
    out: Columns = {}
    for name in names:
        column = table.column(name)
        if pa.types.is_date(column.type):
            out[name] = column.to_numpy(zero_copy_only=False).astype("datetime64[D]")
        elif pa.types.is_floating(column.type) or pa.types.is_integer(column.type):
            out[name] = column.cast(pa.float64()).fill_null(np.nan).to_numpy(zero_copy_only=False)
        elif pa.types.is_boolean(column.type):
            out[name] = column.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
        else:
            out[name] = np.asarray(column.to_pylist(), dtype=object)
    order = np.argsort(out["date"], kind="stable")
    if not np.all(order == np.arange(order.size)):
        out = {k: v[order] for k, v in out.items()}
    return out


def stored_from_table(table: pa.Table) -> StoredMetrics:
    stored: StoredMetrics = {}
    for scope, period, metric, value in zip(
        table.column("scope").to_pylist(),
        table.column("period").to_pylist(),
        table.column("metric").to_pylist(),
        table.column("value").to_pylist(),
        strict=True,
    ):
        clean = None if value is None or not np.isfinite(value) else float(value)
        stored.setdefault(scope, {}).setdefault(period or "", {})[metric] = clean
    return stored


DECILE_MEANS = (
    "mean_score",
    "mean_score_z",
    "mean_long_short_weight",
    "mean_long_only_weight",
    "mean_forward_return",
    "ic",
)
"""The per-decile means of `weekly_deciles` that ic_deciles averages over a window's weeks (each
served under its own name)."""

_TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "rebalances": ("date", "week_status"),
    "weekly_signal": (
        "date",
        "week_status",
        "n_symbols",
        "cohort_size",
        "n_forward_returns",
        "ic",
        "n_ic_obs",
        "raw_ic",
        "n_raw_ic_obs",
        "coverage",
        "decile_eligible",
        "decile_spread",
    ),
    "weekly_deciles": ("date", "bucket", "n_symbols", *DECILE_MEANS, "n_return_obs"),
    "weekly_term": ("date", "horizon_weeks", "ic", "n_obs"),
    "weekly_autocorr": ("date", "lag_weeks", "rho", "n_obs"),
}
_LEDGER_COLUMNS = ("date", "starting_equity", "ending_equity", "risk_free_return")


def _ledger(view: BuildView) -> Columns | None:
    """The long_short book of the ledger (the book every core metric is measured on)."""
    rows = view.book_rows("portfolio", "long_short")
    return None if rows is None else columns_from_table(rows, _LEDGER_COLUMNS)


def read_inputs(view: BuildView) -> MetricsInputs:
    """Read every table the metrics need from one build's view (absent tables stay None)."""
    facts = view.entry
    conventions = conventions_of(view)
    tables: dict[str, Columns | None] = {}
    for name, names in _TABLE_COLUMNS.items():
        table = view.table(name)
        tables[name] = None if table is None else columns_from_table(table, names)
    stored_table = view.table("metrics_stored")
    return MetricsInputs(
        alpha=view.alpha_id,
        source_alpha_id=str(facts.get("source_alpha_id") or view.alpha_id),
        kinds_present=frozenset(facts.get("kinds_present") or ()),
        missing_required_kinds=tuple(
            k for k in facts.get("required_kinds") or () if k not in (facts.get("kinds_present") or ())
        ),
        conventions=conventions,
        signal_processing=facts.get("signal_processing"),
        stored=None if stored_table is None else stored_from_table(stored_table),
        rebalances=tables["rebalances"],
        weekly_signal=tables["weekly_signal"],
        weekly_deciles=tables["weekly_deciles"],
        weekly_term=tables["weekly_term"],
        weekly_autocorr=tables["weekly_autocorr"],
        ledger=_ledger(view),
    )


def metrics_inputs(view: BuildView) -> MetricsInputs:
    """The inputs of `view`'s build, computed on first use and kept on the view."""
    return view.memo("metrics_inputs", lambda: read_inputs(view))
