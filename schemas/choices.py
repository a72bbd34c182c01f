"""The vocabularies of the contract: the values each query parameter accepts and what they select,
the warning codes and the export datasets.

Plain constants with no import, so that the parameter declarations (`schemas.query`) load without
pyarrow.
"""

from __future__ import annotations

DEFAULT_BOOK = "long_short"

WEIGHT_BOOKS = {"long_short": "long_short_target_weight", "long_only": "long_only_target_weight"}
"""`book` on `/rebalances/{date}` picks the target-weight column `min_abs_weight` and `sort=weight` use."""

REBALANCE_SORTS = {"score": "score", "rank": "average_rank", "symbol": "symbol", "weight": None}
"""`sort` on `/rebalances/{date}`; `weight` resolves to the column chosen by `book`."""

REBALANCE_DEFAULT_ORDER = {"score": "desc", "weight": "desc", "rank": "asc", "symbol": "asc"}

ORDERS = ("asc", "desc")
EVENT_ORDERS = ("oldest", "newest")
"""The feed's orders (`/v1/events?order=`): oldest first, its default, or newest first."""

DIRECTIONS = {
    "1": 1,
    "long": 1,
    "-1": -1,
    "short": -1,
    "0": 0,
    "flat": 0,
    "neutral": 0,
}
"""Accepted `direction` values (matched case-insensitively) and the side each keeps."""

SCORE_FIELDS_CHOICES = ("core", "all")

CORRELATION_BASES = ("returns", "ic", "scores")
"""`basis` on `/analytics/correlation`: daily long_short returns, weekly IC, or weekly cross-sections
of the conditioned score."""

ROLLING_WINDOWS = ("13", "26", "52")
"""`window` on `/analytics/rolling`: trailing weeks (a quarter, half a year, a year)."""

DEFAULT_ROLLING_WINDOW = "26"

SCREEN_LEDGER_FIGURES = (
    "live_information_ratio",
    "backtest_information_ratio",
    "decay_ratio",
    "live_sessions",
    "residual_information_ratio",
    "residual_t_statistic",
)
"""The screener's figures of live against backtest and of the residual: read off ledgers (the
alpha's, and its reference set's), so withheld with them (`schemas.wire.SCREEN_WITHHELD_FIELDS`)."""

SCREEN_RANGES = (
    "information_ratio",
    "excess_sharpe",
    "ic",
    "icir",
    "max_drawdown_pct",
    "turnover",
    "sessions",
    *SCREEN_LEDGER_FIGURES,
)
"""Columns of the catalogue index `/analytics/screen` bounds with `min_<column>` and `max_<column>`
(its headline figures, as `/metrics` core serves them, the ledger's sessions, live against
backtest at each alpha's split, as `/analytics/live` serves it, and the residual against the
default reference set, as `/analytics/residual` serves it)."""

SCREEN_SORTS = ("alpha_id", "name", *SCREEN_RANGES, "weeks", "first_date", "last_date", "live_split")
"""Columns of the catalogue index `/analytics/screen` sorts on (`sort=<column>`, `-<column>` for
descending); without `sort` its rows come in catalogue order, as on `/v1/alphas`."""

SCREEN_CORRELATION_BASES = ("returns", "ic")
"""`correlation_basis` of the screener's `max_correlation`: the bases whose date-aligned matrices
the catalogue index holds (`scores` has none: its correlation pairs two builds' cross-sections)."""

WEIGHTINGS = ("equal", "given", "inverse_volatility", "max_ir")
"""`weighting` on `/analytics/combine`: equal weights, the weights given (`weights=`), inverse
volatility, or the maximum information ratio of a shrunk covariance (docs/analytics.md)."""
FITTED_WEIGHTINGS = ("inverse_volatility", "max_ir")
"""The weightings estimated from the set's returns: in-sample unless `fit_to` fits them on earlier
sessions than those judged (docs/analytics.md "Combination")."""

COMPARE_WINDOWS = ("21", "63", "126", "252")
"""`window` on `/analytics/compare`: the rolling correlation's trailing sessions (a month, a
quarter, half a year, a year); the weekly IC's rolling window is the same span in weeks."""

DEFAULT_COMPARE_WINDOW = "63"

REGIME_LABELS = {
    "trend": ("up", "down", "unlabelled"),
    "volatility": ("low", "mid", "high", "unlabelled"),
    "drawdown": ("in", "out", "unlabelled"),
}
"""The regimes of the market benchmark (docs/analytics.md "Regimes"), by dimension: a session holds
one label of each, `unlabelled` before the benchmark has the history a label needs (or on a session
the benchmark does not have)."""

REGIMES = tuple(f"{dimension}:{label}" for dimension, labels in REGIME_LABELS.items() for label in labels)
"""`regime` on the window-based analytics routes that take it: `dimension:label`."""

SCREEN_SORT_CHOICES = tuple(value for column in SCREEN_SORTS for value in (column, f"-{column}"))

REPRESENTATIONS = {
    "json": "application/json",
    "arrow": "application/vnd.apache.arrow.stream",
    "csv": "text/csv",
    "ndjson": "application/x-ndjson",
    "parquet": "application/vnd.apache.parquet",
}
"""The representations of every collection: `format=<name>` or `Accept: <media type>`, in the
server's order of preference between media types of equal weight (JSON, the envelope, first)."""


WARNING_CODES = (
    "missing_kind",
    "missing_core_metrics",
    "access_limited",
    "forward_returns_absent",
    "insufficient_data",
    "nonpositive_variance",
    "window_lifetime_only",
    "block_error",
    "ic_family_mismatch",
    "ic_reproduction_mismatch",
    "headline_reproduction_mismatch",
    "restated",
    "kind_missing",
    "in_sample_weights",
    "negative_weights",
)
"""The codes of `meta.warnings` (the spec's vocabulary; `schemas.wire.kind_missing` makes one)."""

EXPORT_DATASETS = (
    "decisions",
    "rebalances",
    "portfolio",
    "positions",
    "pnl",
    "trades",
    "equity-curve",
    "benchmark",
)
"""The datasets of the Parquet exports, in their listing's order (`schemas.exports.DATASETS`)."""
