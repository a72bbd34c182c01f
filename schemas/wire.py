"""What goes on the wire: served field sets, orders, accepted values and warning codes.

A row whose fields no lake table lists is declared by its Struct (`schemas.bodies.rows`) and its
field set read from there; a row of a lake table keeps the table's columns, and
tests/api/test_row_structs.py holds its Struct to them.

Every column name the reader puts into SQL comes from here or from `schemas.lake`, never from a
request. Field tuples are in the order the API serves them.
"""

from __future__ import annotations

import pyarrow as pa

from alpha_results_seal.identifiers import BENCHMARK_SYMBOLS as BENCHMARK_SYMBOLS
from alpha_results_seal.identifiers import MARKET_BENCHMARK as MARKET_BENCHMARK
from schemas import choices, lake
from schemas.bodies import rows
from schemas.bodies.base import field_names, field_schemas
from schemas.bodies.formats import X_ABSENT, X_RAW_ONLY
from schemas.bodies.service import Warning

# -- served rows -------------------------------------------------------------------------------

ALPHA_LIST_FIELDS = field_names(rows.AlphaListRow)

REBALANCE_INDEX_FIELDS = field_names(rows.RebalanceIndexRow)

DECISION_FIELDS = tuple(f for f in lake.DECISIONS.names if f != "date")
"""A `/rebalances/{date}` row: the full decision record (the date is echoed in `meta.date`)."""

SCORE_CORE_FIELDS = (
    "date",
    "symbol",
    "score",
    "score_z",
    "average_rank",
    "direction",
    "long_short_target_weight",
    "long_only_target_weight",
    "forward_return",
    "raw_score",
)
SCORE_ALL_FIELDS = ("date", *DECISION_FIELDS)
SCORE_FIELD_SETS = {"core": SCORE_CORE_FIELDS, "all": SCORE_ALL_FIELDS}

BOOK_FIELDS = tuple(lake.BOOKS.names)
PORTFOLIO_FIELDS = ("book", *lake.PORTFOLIO.names)
POSITION_FIELDS = ("book", *lake.POSITIONS.names)
PNL_FIELDS = ("book", *lake.PNL.names)
TRADE_FIELDS = ("book", *(f for f in lake.TRADES.names if f != "date"))
"""The lake's `date` column of trades (session of the fill) is for window filters, not served."""

EQUITY_CURVE_FIELDS = field_names(rows.EquityRow)
EQUITY_SUMMARY_FIELDS = field_names(rows.EquitySummary)

BENCHMARK_FIELDS = field_names(rows.BenchmarkRow)
BENCHMARK_SUMMARY_FIELDS = field_names(rows.BenchmarkSummary)

DRAWDOWN_FIELDS = tuple(f for f in lake.ANALYTICS_DRAWDOWNS.names if f != "book")
ROLLING_SERVED_AS = {"icir_per_week": "icir"}
"""analytics_rolling columns served as another figure: the lake stores the rolling ICIR per week
(`icir_per_week`), the route serves it annualised (`icir`, x sqrt(weeks_per_year)): one name, one
meaning, in the lake as on the wire."""
ROLLING_FIELDS = tuple(
    ROLLING_SERVED_AS.get(f, f) for f in lake.ANALYTICS_ROLLING.names if f not in ("book", "window_weeks")
)
CORRELATION_FIELDS = field_names(rows.CorrelationRow)

COMBINED_FIELDS = field_names(rows.CombinedRow)
"""A `/analytics/combine` row: one session of the combined book (returns compounded from the
window's first session) beside SPY's cumulative total return over the same sessions."""

SCREEN_FIELDS = field_names(rows.ScreenRow)
"""A `/analytics/screen` row: columns of the catalogue index (`schemas.lake.CATALOGUE_INDEX`), in
this order, each read from the index column of its name (the screener and the index both name a
figure as the vocabulary does: `ic` is /metrics `core.ic`), and the fields of `SCREEN_RECORD_FIELDS`."""

SCREEN_RECORD_FIELDS: dict[str, object] = {"standing": "never", "approved_since": None}
"""Screener fields read from the deployment's records, not from the index: where the alpha stands
(`analytics.screen` sets them on each row of a page); the statement over the index makes its rows
with these values, an alpha never decided."""

SCREEN_INDEX_FIELDS = tuple(f for f in SCREEN_FIELDS if f not in SCREEN_RECORD_FIELDS)
"""The screener fields the statement selects from the catalogue index: the only index columns it
reads."""

SCREEN_WITHHELD_FIELDS: dict[str, tuple[str, ...]] = {
    "ledger": ("sessions", "first_date", "last_date", *choices.SCREEN_LEDGER_FIGURES),
    "cross_sections": ("ic_reproduces",),
}
"""Screener fields built from data a key may not read (named as `analytics.access.DATA_ENDPOINTS`):
`sessions` and the dates are read off the long_short ledger (the dates fall back to the rebalances
only without one), as are the live figures and the residual figures (the ledgers of the alpha and its
reference set) (`/analytics/live`'s ledger figures; `live_split` is
not: an approval, a seal's cutoff or a publish date), `ic_reproduces` compares the IC rebuilt from
the rebalance cross-sections with the sealed one. Null for a key that may not read that data, and not a filter or sort it may use
(the `/metrics` rule: 403 naming the route that serves it)."""

COMPUTED_FIELD_TYPES: dict[str, pa.DataType] = {
    "tldr": pa.string(),
    "period_return": pa.float64(),
    "cumulative_return": pa.float64(),
    "benchmark_cumulative_return": pa.float64(),
    "peak_equity": pa.float64(),
    "drawdown": pa.float64(),
    "drawdown_pct": pa.float64(),
    "first_date": pa.date32(),
    "last_date": pa.date32(),
    "sessions": pa.int32(),
    "total_return": pa.float64(),
    "cumulative_return_pct": pa.float64(),
    "max_drawdown": pa.float64(),
    "max_drawdown_pct": pa.float64(),
    "max_drawdown_date": pa.date32(),
    "name": pa.string(),
    "return_basis": pa.string(),
    "first_close": pa.float64(),
    "last_close": pa.float64(),
    "alpha": pa.string(),
    "correlation": pa.float64(),
    "pearson": pa.float64(),
    "spearman": pa.float64(),
    "overlap": pa.int32(),
    "overlap_unit": pa.string(),
    "common_names": pa.float64(),
    # The instants of the builds listing and the key inventory (rows made in Python).
    "built_at": pa.timestamp("us", tz="UTC"),
    "sealed_at": pa.timestamp("us", tz="UTC"),
    "created_at": pa.timestamp("us", tz="UTC"),
    "expires_at": pa.timestamp("us", tz="UTC"),
    # Where an alpha stands after the operator's decisions (the catalogue's and the screener's rows).
    "standing": pa.string(),
    "approved_since": pa.date32(),
}
"""Wire types of the served fields no lake column carries: the catalogue's `tldr` and what
`analytics.series` computes (curve and benchmark rows, their `meta.summary`); dates are served as
YYYY-MM-DD strings. Every served field is typed by `schemas.lake` or here (serve/openapi/bodies.py
declares the OpenAPI types from both and refuses a field typed by neither)."""

_WIRE_TYPES: dict[str, pa.DataType] = {}
for _schema in (
    lake.DECISIONS,
    lake.REBALANCES,
    lake.BOOKS,
    lake.PORTFOLIO,
    lake.POSITIONS,
    lake.PNL,
    lake.TRADES,
    lake.BENCHMARK_DAILY,
    lake.ANALYTICS_DRAWDOWNS,
    lake.ANALYTICS_ROLLING,
):
    for _field in _schema:
        _WIRE_TYPES.setdefault(_field.name, _field.type)
_WIRE_TYPES["book"] = pa.string()
for _name, _type in COMPUTED_FIELD_TYPES.items():
    assert _WIRE_TYPES.setdefault(_name, _type) == _type, f"{_name}: the lake and wire types differ"
for _name in SCREEN_INDEX_FIELDS:  # columns of the catalogue index, typed as the other routes serve them
    _type = lake.CATALOGUE_INDEX.field(_name).type
    assert _WIRE_TYPES.setdefault(_name, _type) == _type, f"{_name}: the index and wire types differ"


def wire_type(field: str) -> pa.DataType:
    """The served type of a field, from `schemas.lake` or `COMPUTED_FIELD_TYPES`; a field typed by
    neither is an error (no guessed default: a guess declared dates as numbers). The OpenAPI
    document and the columnar representations both type fields with it."""
    try:
        return _WIRE_TYPES[field]
    except KeyError:
        raise KeyError(
            f"served field {field!r} has no wire type (schemas.wire.COMPUTED_FIELD_TYPES)"
        ) from None


OMIT_WHEN_NULL = frozenset(
    name
    for name, declared in field_schemas(rows.DecisionRow).items()
    if declared.get(X_ABSENT) == rows.OMITTED_UNSEALED
)
"""Fields the spec serves only "when sealed" (a null in the lake means the run never recorded it):
those the decision record's Struct declares omitted where the run did not seal them."""

RAW_FIELDS = frozenset(
    name
    for body in rows.DECLARED
    for name, declared in field_schemas(body).items()
    if declared.get(X_RAW_ONLY)
)
"""Fields served only to keys with raw-book access: those a row Struct declares raw-only."""


def is_raw_field(name: str) -> bool:
    return name in RAW_FIELDS


def visible_fields(fields: tuple[str, ...], expose_raw_book: bool) -> tuple[str, ...]:
    return tuple(f for f in fields if field_visible(f, expose_raw_book))


# -- books ---------------------------------------------------------------------------------------

BASE_BOOKS = ("long_short", "long_only", "raw_long_short", "raw_long_only")
BOOK_VARIANTS = ("adjustments", "settlements")
BOOK_KINDS = ("portfolio", "positions", "pnl", "trades")


def is_raw_book(book: str) -> bool:
    return book.startswith("raw_")


# -- the raw-book scope: declared here once, asked by every surface --------------------------------
# A key without raw-book access (`field_policy.expose_raw_book` off) is served no raw book (the
# `raw_` twins: for it they do not exist, a 400 unknown_book like a missing book) and no raw-only
# field (stripped). Every surface asks these two: the routes (`datasets.answers`), a build's
# restatements, their warning and their `alpha.restated` event (`analytics.restatements`,
# `pipeline.build_events`), the event feed, stream and webhooks (`delivery.event_answers`), the
# exports, signed downloads and Delta Sharing (`schemas.exports`), MCP and the dashboard (the routes').


def book_visible(book: str | None, expose_raw_book: bool) -> bool:
    """Whether a key with this raw-book flag may see `book` (None: a row of no book)."""
    return expose_raw_book or book is None or not is_raw_book(book)


def field_visible(name: str, expose_raw_book: bool) -> bool:
    """Whether a key with this raw-book flag may see the field `name`."""
    return expose_raw_book or not is_raw_field(name)


def traded_score(book: str) -> str:
    """The score a book trades (its target weights follow it): raw_score for raw books."""
    return "raw_score" if is_raw_book(book) else "score"


def book_order_key(book: str) -> tuple[int, int, int, str]:
    """Base books first (long_short, long_only, raw twins), then each base book's trade variants."""
    if book in BASE_BOOKS:
        return (0, BASE_BOOKS.index(book), 0, book)
    for variant_rank, variant in enumerate(BOOK_VARIANTS, start=1):
        base = book.removesuffix(f"_{variant}")
        if base != book and base in BASE_BOOKS:
            return (1, BASE_BOOKS.index(base), variant_rank, book)
    return (2, 0, 0, book)


def books_in_order(books: list[str] | tuple[str, ...] | set[str]) -> list[str]:
    return sorted(books, key=book_order_key)


def kind_rank(kind: str) -> int:
    return BOOK_KINDS.index(kind) if kind in BOOK_KINDS else len(BOOK_KINDS)


# -- default orders (the spec leaves them open; docs/api.md states them) --------------------------

ORDER_REBALANCES = (("date", "asc"),)
ORDER_SCORES = (("date", "asc"), ("symbol", "asc"))
ORDER_PORTFOLIO = (("date", "asc"),)
ORDER_POSITIONS = (("date", "asc"), ("symbol", "asc"))
ORDER_PNL = ORDER_POSITIONS
# Two fills of one name at one instant keep the lake's row order (phase then quantity) as tiebreak.
ORDER_TRADES = (("timestamp", "asc"), ("symbol", "asc"), ("phase", "asc"), ("quantity", "asc"))


# -- warnings ---------------------------------------------------------------------------------------

WEIGHT_WARNINGS = {
    "in_sample_weights": "A combination's inverse_volatility or max_ir weights were fitted on the very sessions "
    "its figures are over (/analytics/combine, /analytics/contribution with a weighting): the figures overstate "
    "what the weights would have earned; fit_to fits them on earlier sessions and judges them on the later "
    "ones.",
    "negative_weights": "A computed weighting (max_ir) shorts some alphas of the set: the combination sells their "
    "returns; the message names them, with their weights, and says which are production alphas.",
}
"""The meaning of the warnings of a fitted combination, stated in every documentation block of the
warning codes."""


def kind_missing(kind: str, consequence: str = "the page is empty") -> Warning:
    return Warning(
        code="kind_missing", message=f"The run did not write the {kind} dataset; {consequence}.", kind=kind
    )


# -- benchmarks --------------------------------------------------------------------------------------

BENCHMARK_ENDPOINT = "benchmarks.daily"
"""The route whose grant lets a key read a benchmark's series, and so the figures built from it."""
