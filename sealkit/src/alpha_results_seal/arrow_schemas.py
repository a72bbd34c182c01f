"""The seal: what the research engine writes for one alpha, and what the pipeline reads.

A seal is a folder (or object-store prefix) holding `manifest.json`, one Parquet file per sealed
kind, an optional `description.json` and an optional `source.zip`. docs/seal.md explains every
field; this module is the machine-checked form of that page.
"""

from __future__ import annotations

import re

import pyarrow as pa

from alpha_results_seal.printable import BIDI_CONTROLS as BIDI_CONTROLS

SEAL_FORMAT_VERSION = "1"

# Kinds an alpha seal may contain. Book-scoped kinds are sealed once per book, as
# `<kind>/<book>.parquet`; the others as `<kind>.parquet`. `exposures` is optional: the figures that
# need it (by sector, by factor, capacity) are not measurable without it.
GLOBAL_KINDS = ("rebalances", "decisions", "metrics", "exposures")
BOOK_KINDS = ("portfolio", "positions", "pnl", "trades")
ALL_KINDS = GLOBAL_KINDS + BOOK_KINDS

# The engine's books. Trade variants are sealed only for the trades kind.
BASE_BOOKS = ("long_short", "long_only")
TRADE_VARIANT_PHASES: dict[str, tuple[str, ...]] = {
    "_adjustments": ("rebalance",),  # fills that re-target a held position
    "_settlements": ("open", "close"),  # fills that open or close one
}
"""Each trade variant `<book><suffix>` and the phases of `<book>`'s fills it holds (docs/seal.md
"Trade variants"): the one statement the builders, the demo engine and the rule
`trades.variants_are_subsets` derive the variants from (`trading.trade_variants`)."""
TRADE_VARIANT_SUFFIXES = tuple(TRADE_VARIANT_PHASES)
SESSION_TIME_ZONE = "America/New_York"
"""The exchange's time zone: a session is a New York trading day, a fill's session its New York
date (`trading.fill_session_dates`), a ledger row's instant its 16:00 New York close."""

UNAVAILABILITY_REASONS = ("halted", "suspended", "no_borrow", "illiquid", "data_gap")
DECISION_REASONS = (
    "entered_selection",
    "exited_below_threshold",
    "carried_by_smoothing",
    "gated_untradeable",
    "exited_untradeable",
)
TRADE_PHASES = ("open", "rebalance", "close")
ADJUSTMENT_REASONS = ("entry", "weight_increase", "weight_decrease", "exit")
EXIT_REASONS = ("signal_exit", "risk_exit")
SOURCE_ARCHIVE_STATUSES = ("ready", "packaging", "failed")
CITATION_ROLES = ("seed", "mechanism", "validation", "contradiction")

UTC_TS = pa.timestamp("us", tz="UTC")

REBALANCES = pa.schema(
    [
        pa.field("date", pa.date32(), nullable=False),
        # `traded`, `pending`, or the engine's snake_case skip reason, passed through unchanged.
        pa.field("week_status", pa.string(), nullable=False),
    ]
)

# One row per scored name per rebalance week. The unconditioned (pre-smoothing) score is sealed
# as `pre_smoothing_score`; the pipeline publishes it only as `raw_score`.
DECISIONS = pa.schema(
    [
        pa.field("date", pa.date32(), nullable=False),
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("score", pa.float64()),  # null only for a name without a valid score (data gap)
        pa.field("direction", pa.int8()),
        pa.field("confidence", pa.float64()),
        pa.field("average_rank", pa.float64()),
        pa.field("pre_smoothing_score", pa.float64()),
        pa.field("raw_direction", pa.int8()),
        pa.field("raw_confidence", pa.float64()),
        pa.field("raw_average_rank", pa.float64()),
        pa.field("long_short_target_weight", pa.float64(), nullable=False),
        pa.field("long_only_target_weight", pa.float64(), nullable=False),
        pa.field("raw_long_short_target_weight", pa.float64(), nullable=False),
        pa.field("raw_long_only_target_weight", pa.float64(), nullable=False),
        pa.field("next_open_tradeable", pa.bool_(), nullable=False),
        pa.field("unavailability_reason", pa.string()),
        pa.field("decision_reason", pa.string()),
        pa.field("raw_decision_reason", pa.string()),
        pa.field("fill_at", UTC_TS),
        pa.field("raw_fill_at", UTC_TS),
        pa.field("entry_at", UTC_TS),
        pa.field("maturity_at", UTC_TS),
        pa.field("forward_return", pa.float64()),
    ]
)

# Stored metrics in long form, as the engine computed them.
# scope: `overall` (period ""), `yearly` (period "2023"), `monthly` (period "2023-04").
METRICS = pa.schema(
    [
        pa.field("scope", pa.string(), nullable=False),
        pa.field("period", pa.string(), nullable=False),
        pa.field("metric", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
    ]
)

# Style loadings an `exposures` row may carry, in the order they are sealed and served. Each is a
# cross-sectional loading as the engine's risk model states it (the demo seals z-scores within the
# alpha's universe each week); a column left null throughout is a factor the engine does not model.
STYLE_FACTORS = ("size", "value", "momentum", "beta", "volatility")
SECTOR_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9 &,._-]{0,63}")
"""A sector's name: it reaches pages, CSV cells and the printed tear sheet, so plain text only."""

# One row per name per rebalance week: what the name was (sector, style loadings) and how much of
# it traded (`adv`) as known at that week's decision. Optional; a name of the week's cross-section
# without a row has no sector or loadings that week.
EXPOSURES = pa.schema(
    [
        pa.field("date", pa.date32(), nullable=False),  # a rebalance date
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("sector", pa.string()),
        *(pa.field(name, pa.float64()) for name in STYLE_FACTORS),
        # average daily traded value (price x shares traded), in the book's currency, over the
        # engine's trailing window ending at the decision (the demo: 20 sessions)
        pa.field("adv", pa.float64()),
    ]
)

PORTFOLIO = pa.schema(
    [
        pa.field("date", pa.date32(), nullable=False),
        pa.field("timestamp", UTC_TS, nullable=False),
        pa.field("starting_equity", pa.float64(), nullable=False),
        pa.field("ending_equity", pa.float64(), nullable=False),
        pa.field("cash_start", pa.float64(), nullable=False),
        pa.field("cash_end", pa.float64(), nullable=False),
        pa.field("position_value_end", pa.float64(), nullable=False),
        pa.field("market_pnl", pa.float64(), nullable=False),
        pa.field("execution_cost", pa.float64(), nullable=False),
        pa.field("borrow_cashflow", pa.float64(), nullable=False),
        pa.field("cash_carry", pa.float64(), nullable=False),
        pa.field("risk_free_return", pa.float64(), nullable=False),
        pa.field("rounding_adjustment", pa.float64(), nullable=False),
        pa.field("equity_basis", pa.float64(), nullable=False),
        pa.field("gross_notional", pa.float64(), nullable=False),
        pa.field("net_notional", pa.float64(), nullable=False),
        pa.field("largest_abs_weight", pa.float64(), nullable=False),
        pa.field("turnover_notional", pa.float64(), nullable=False),
        pa.field("turnover", pa.float64(), nullable=False),
    ]
)

POSITIONS = pa.schema(
    [
        pa.field("date", pa.date32(), nullable=False),
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("quantity", pa.float64(), nullable=False),
        pa.field("mark_price", pa.float64(), nullable=False),
    ]
)

PNL = pa.schema(
    [
        pa.field("date", pa.date32(), nullable=False),
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("market_pnl", pa.float64(), nullable=False),
        pa.field("execution_cost", pa.float64(), nullable=False),
        pa.field("borrow_cashflow", pa.float64(), nullable=False),
    ]
)

TRADES = pa.schema(
    [
        pa.field("timestamp", UTC_TS, nullable=False),
        pa.field("decision_at", pa.date32(), nullable=False),
        pa.field("symbol", pa.string(), nullable=False),
        pa.field("phase", pa.string(), nullable=False),
        pa.field("quantity", pa.float64(), nullable=False),
        pa.field("mid_price", pa.float64(), nullable=False),
        pa.field("fill_price", pa.float64(), nullable=False),
        pa.field("fee", pa.float64(), nullable=False),
        pa.field("execution_cost", pa.float64(), nullable=False),
        pa.field("rebalance_adjustment_reason", pa.string()),
        pa.field("exit_reason", pa.string()),
    ]
)

# Market data: the benchmark seal (manifest `type: benchmark`) holds `daily.parquet`.
BENCHMARK_DAILY = pa.schema(
    [
        pa.field("date", pa.date32(), nullable=False),
        pa.field("close", pa.float64(), nullable=False),
        pa.field("adjusted_close", pa.float64()),  # null where no adjusted price was recorded
    ]
)

KIND_SCHEMAS: dict[str, pa.Schema] = {
    "rebalances": REBALANCES,
    "decisions": DECISIONS,
    "metrics": METRICS,
    "exposures": EXPOSURES,
    "portfolio": PORTFOLIO,
    "positions": POSITIONS,
    "pnl": PNL,
    "trades": TRADES,
}


def kind_path(kind: str, book: str | None = None) -> str:
    """Relative path of a kind's file inside a seal folder."""
    if kind in BOOK_KINDS:
        if book is None:
            raise ValueError(f"kind {kind!r} is sealed per book")
        return f"{kind}/{book}.parquet"
    return f"{kind}.parquet"


# -- Text of manifest.json and description.json (docs/seal.md "Text") ---------------------------
# Seal text reaches the catalogue of every key, the dashboard, CSV cells and response headers
# (`meta.source_alpha_id` in X-Meta). Bounds are generous for real writing (the demo's longest text
# is 214 characters) and keep one alpha from making every catalogue page heavy. Lengths are in
# characters (code points). A path names a key from the file's root; `[]` marks a list's items.

TEXT_MAX_CHARS: dict[str, int] = {
    "source_alpha_id": 128,
    "name": 200,
    "tldr": 2_000,
    "engine_version": 200,
    "nomination_note": 500,
    "classification.structure": 128,
    "classification.method": 128,
    "classification.frequency[]": 64,
    "classification.tags[]": 64,
}
"""Texts with their own bound, in either file (`name` and `tldr` are in both)."""
MANIFEST_TEXT_MAX_CHARS = 2_000
"""Any other text of manifest.json (`signal_processing.detail`, an archive's filename)."""
DESCRIPTION_TEXT_MAX_CHARS = 20_000
"""Any other text of description.json: a thesis paragraph, one line of pseudocode."""
KEY_MAX_CHARS = 128
"""Every key of an object (a parameter's name, a test year)."""
LIST_MAX_ITEMS: dict[str, int] = {"classification.tags": 32}
"""Lists with their own bound."""
DEFAULT_LIST_MAX_ITEMS = 500
"""Any other list (pseudocode lines, validity rules, source papers, parameters)."""
INTEGER_MAX_ABS = 2**53 - 1
"""Every integer of manifest.json and description.json (a parameter, a size, a count) is within
plus or minus this: the largest a JSON reader keeping numbers as doubles (JavaScript, the dashboard)
reads exactly. A 4,000-digit integer parameter passed the check, published and was served verbatim
(issue 60); a float is bounded by being finite."""

# BIDI_CONTROLS (imported above, declared with what a report escapes): in seal text they reverse
# or reorder the text shown beside it (a name, a number), so no text or key of manifest.json or
# description.json may hold one.
