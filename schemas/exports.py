"""The Parquet exports as a contract: which datasets exist, their columns, and who may read them.

An export is one dataset of a build as one Parquet file, row for row and column for column what
the JSON route named by `endpoint` returns when paged from start to end without filters (with
`fields=all` on `/scores`). The pipeline writes every file of a build once (`datasets.export_files`);
the `exports` routes sign a URL to the one that matches the caller's field policy.

Audiences (the field policy, `field_policy.expose_raw_book`):
- `all`: the file holds no raw-only column and no `raw_` book; every key with access gets it;
- `plain`: the variant without the `raw_*` columns, for keys without raw-book access;
- `raw`: the variant with them, or a `raw_` book, for keys with raw-book access only.
A key sees exactly one file per (dataset, book): the one equal to its own JSON pages.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas import choices, wire

EXPORT_FORMAT = 2
"""`format` of a build's `exports/index.json`: 2 since pipeline 2.13.0, whose entries carry each
file's `bytes`, `sha256` and `stored` (no build stores an alpha export), so a server from before
reads such a build's exports as not built (503 `exports_not_built`) rather than failing on files it
looks for in the manifest."""
EXPORT_FORMATS_READ = (1, 2)
"""The index formats this server reads: 1's files are all stored, each in the build's manifest."""

AUDIENCES = ("all", "plain", "raw")


@dataclass(frozen=True)
class ExportDataset:
    name: str  # the `{dataset}` path segment and the first part of the file name
    endpoint: str  # registry id of the JSON route that serves the same rows
    fields: tuple[str, ...]  # every column, raw-only ones included, in the route's order
    kind: str | None  # the seal kind behind it (a book kind for book datasets); None: benchmark
    books: bool = False  # one file per book (`book=` on the export route)
    book_required: bool = False  # `book` has no default (trades, as on `/trades`)


DATASETS: tuple[ExportDataset, ...] = (
    ExportDataset("decisions", "signals.scores", wire.SCORE_ALL_FIELDS, "decisions"),
    ExportDataset("rebalances", "signals.rebalances.list", wire.REBALANCE_INDEX_FIELDS, "rebalances"),
    ExportDataset("portfolio", "portfolio.ledger", wire.PORTFOLIO_FIELDS, "portfolio", books=True),
    ExportDataset("positions", "portfolio.positions", wire.POSITION_FIELDS, "positions", books=True),
    ExportDataset("pnl", "portfolio.pnl", wire.PNL_FIELDS, "pnl", books=True),
    ExportDataset("trades", "portfolio.trades", wire.TRADE_FIELDS, "trades", books=True, book_required=True),
    ExportDataset(
        "equity-curve", "portfolio.equity_curve", wire.EQUITY_CURVE_FIELDS, "portfolio", books=True
    ),
    ExportDataset("benchmark", "benchmarks.daily", wire.BENCHMARK_FIELDS, None),
)
"""In the order `/exports` lists them (then by book, in the API's book order)."""

BY_NAME: dict[str, ExportDataset] = {d.name: d for d in DATASETS}
DATASET_NAMES: tuple[str, ...] = tuple(BY_NAME)
assert DATASET_NAMES == choices.EXPORT_DATASETS
BOOK_DATASETS: tuple[str, ...] = tuple(d.name for d in DATASETS if d.books)
BENCHMARK_DATASET = "benchmark"


def audience_of(fields: tuple[str, ...], book: str | None, raw_variant: bool) -> str:
    """Who may read a file of a dataset with `fields` (its raw variant, or the plain one without
    the raw-only fields) of `book`."""
    if not wire.book_visible(book, expose_raw_book=False):
        return "raw"
    if all(wire.field_visible(f, expose_raw_book=False) for f in fields):
        return "all"
    return "raw" if raw_variant else "plain"


def visible_to(audience: str, expose_raw_book: bool) -> bool:
    """Whether a key with this raw-book flag gets files of `audience`."""
    return audience == "all" or (audience == "raw") == expose_raw_book
