"""The open tables (issue 78): one Delta Lake table per dataset under `{root}/tables/`, and the one
way to read them as the API serves them, current or as of a moment.

    {root}/tables/{table}/alpha={alpha_id}/[year=YYYY/]part-*.parquet    one table per dataset
    {root}/tables/{table}/_delta_log/                                     its versions
    {root}/tables/_generations/                                           one commit per publish

Every alpha's rows of every dataset (`schemas.lake.TABLES`, the benchmark's `daily` as
`benchmark_daily` with `symbol` in the place of `alpha`) live in one table per dataset,
partitioned by `alpha` (and by `year` for the tables whose rows grow with names x sessions,
`YEAR_TABLES`), with `build_id` naming the build that last wrote each row. A publish writes only
what changed (pipeline/lake_tables.py), one commit per table it changes, then ONE commit to
`_generations`: a row per table naming the table's version that holds the alpha's rows of that
build, with `committed_at` by our clock (`datasets.clock`). Delta has no transaction across tables,
so the generation is the publish's atomic step: a reader resolves every alpha's version of every
table through the newest generation at or before its moment, and a table commit no generation names
(a publish killed before its generation, or one still running) is never read.

This module stores and reads; it computes no figure.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from typing import Any

import polars as pl
import pyarrow.dataset as pads
from deltalake import DeltaTable
from deltalake.exceptions import TableNotFoundError

from alpha_results_seal.identifiers import join

TABLES_DIR = "tables"
GENERATIONS = "_generations"
BENCHMARK_DAILY = "benchmark_daily"
"""The benchmark's daily series: `symbol` is its partition, as `alpha` is the alphas' tables'."""

YEAR_TABLES = frozenset(
    {"decisions", "positions", "pnl", "trades", "exposures", "analytics_attribution", "analytics_capacity"}
)
"""The tables partitioned by `alpha` then `year` (of `date`): those of one row per name and session
or week, whose weekly publish would otherwise rewrite a file holding the alpha's whole history when
a recent row changes. The others are partitioned by `alpha` alone (one small file per alpha and
publish)."""

BOOK_COLUMN = "book"
ALPHA_COLUMN = "alpha"
SYMBOL_COLUMN = "symbol"
YEAR_COLUMN = "year"
BUILD_COLUMN = "build_id"

CONFIGURATION = {
    "delta.enableChangeDataFeed": "true",
    "delta.logRetentionDuration": "interval 36500 days",
    "delta.checkpointInterval": "10",
}
"""Every table records the before and after values of the rows a commit changes (Delta's change
data feed): what a run changed of what was published comes from the commit itself. Its log is kept
(Delta's default drops commits older than 30 days at a checkpoint, which would end time travel and
`as_of` there): what is removed of the history is the operator's retention's business, not the
format's default. A checkpoint every 10 commits (Delta's default: 100): opening a table reads its
newest checkpoint and the commits after it, and a publish opens each of its tables; with one commit
per publish, a table of 40 commits took 20 ms to open without a checkpoint and 5 ms with one
(docs/benchmarks.md, "The thirteenth session")."""


def tables_root(root: str) -> str:
    return join(root, TABLES_DIR)


def table_path(root: str, table: str) -> str:
    return join(root, TABLES_DIR, table)


def generations_path(root: str) -> str:
    return join(root, TABLES_DIR, GENERATIONS)


def partition_column(table: str) -> str:
    """The column naming whose rows they are: `symbol` for the benchmark, `alpha` otherwise."""
    return SYMBOL_COLUMN if table == BENCHMARK_DAILY else ALPHA_COLUMN


def storage_options(root: str) -> dict[str, str] | None:
    """What delta-rs needs beyond the environment to commit safely on an object store: S3's
    conditional PUT (two writers never both create one version), the endpoint of a compatible store."""
    if not root.startswith("s3://"):
        return None
    options = {"conditional_put": "etag"}
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        options["endpoint"] = endpoint
        if endpoint.startswith("http://"):
            options["allow_http"] = "true"
    return options


def _moment(as_of: dt.datetime | None) -> dt.datetime | None:
    if as_of is None:
        return None
    if as_of.tzinfo is None:
        raise ValueError("as_of must be an aware datetime (UTC)")
    return as_of.astimezone(dt.UTC)


def generations(root: str) -> pl.DataFrame:
    """Every generation row: `committed_at`, `target` (an alpha id, or `benchmark:<symbol>`),
    `build_id`, `table`, `version` (null: the target has no rows in that table)."""
    path = generations_path(root)
    try:
        found = DeltaTable(path, storage_options=storage_options(root))
    except TableNotFoundError:  # no generation yet: a lake published before the open tables
        return pl.DataFrame(
            schema={
                "committed_at": pl.Datetime("us", "UTC"),
                "target": pl.String,
                "build_id": pl.String,
                "table": pl.String,
                "version": pl.Int64,
            }
        )
    return pl.read_delta(found)


def versions(root: str, as_of: dt.datetime | None = None, table: str | None = None) -> pl.DataFrame:
    """The version of each table that holds each target's rows as the lake served them at `as_of`
    (None: now): for every (target, table) the newest generation committed at or before it. Columns
    `target`, `table`, `version`, `build_id`, `committed_at`; a target published after `as_of` is
    absent. This is the one helper that maps a moment to versions; `pl.scan_delta(path,
    version=...)` reads each."""
    found = generations(root)
    moment = _moment(as_of)
    if moment is not None:
        found = found.filter(pl.col("committed_at") <= moment)
    if table is not None:
        found = found.filter(pl.col("table") == table)
    return (
        found.sort("committed_at")
        .group_by("target", "table", maintain_order=True)
        .last()
        .select("target", "table", "version", "build_id", "committed_at")
        .sort("table", "target")
    )


def scan(
    root: str, table: str, as_of: dt.datetime | None = None, targets: Iterable[str] | None = None
) -> pl.LazyFrame:
    """Every published target's rows of `table` as the lake served them at `as_of` (None: now),
    each target's read at the version its newest generation names (one scan per distinct version).
    `targets` narrows to those alpha ids (benchmarks: `benchmark:<symbol>`)."""
    named = versions(root, as_of, table).filter(pl.col("version").is_not_null())
    if targets is not None:
        named = named.filter(pl.col("target").is_in(list(targets)))
    key = partition_column(table)
    path = table_path(root, table)
    options = storage_options(root)
    frames = []
    for (version,), group in named.group_by("version", maintain_order=True):
        names = [t.removeprefix("benchmark:") for t in group["target"].to_list()]
        frames.append(
            pl.scan_delta(path, version=int(str(version)), storage_options=options).filter(
                pl.col(key).is_in(names)
            )
        )
    if not frames:
        return _empty(root, table)
    return pl.concat(frames, how="vertical")


def open_version(root: str, table: str, version: int) -> DeltaTable:
    return DeltaTable(table_path(root, table), version=version, storage_options=storage_options(root))


def target_rows(
    found: DeltaTable, table: str, target: str, columns: Iterable[str] | None = None
) -> pl.DataFrame:
    """One target's rows of `table` at the version `found` is opened at (an alpha id, or a
    benchmark's symbol), `columns` only when given. Partition-pruned: only the target's files are
    read, and only they become the dataset's fragments (a dataset of every file cost a publish
    about twice as much on the small demo, and grows with the lake's alphas)."""
    key = partition_column(table)
    dataset = found.to_pyarrow_dataset(file_pruning_predicate=[(key, "=", target)])
    wanted = None if columns is None else list(columns)
    frame = pl.from_arrow(dataset.to_table(columns=wanted, filter=pads.field(key) == target))
    assert isinstance(frame, pl.DataFrame)
    return frame


def _empty(root: str, table: str) -> pl.LazyFrame:
    """No target named: the table's columns with no rows (none at all when it was never written)."""
    try:
        found = DeltaTable(table_path(root, table), storage_options=storage_options(root))
    except TableNotFoundError:
        return pl.LazyFrame()
    return pl.scan_delta(found).head(0)


def ledger(root: str, book: str = "long_short", as_of: dt.datetime | None = None) -> pl.DataFrame:
    """Every alpha's ledger of `book` (`portfolio` rows) as served at `as_of` (None: now), sorted by
    alpha and date: what `/v1/alphas/{alpha}/portfolio?book=...` serves each alpha."""
    return (
        scan(root, "portfolio", as_of)
        .filter(pl.col(BOOK_COLUMN) == book)
        .sort(ALPHA_COLUMN, "date")
        .collect()
    )


def describe(root: str) -> dict[str, Any]:
    """Bytes and files under `{root}/tables/` (a local lake): data files, change files, logs."""
    totals = {"data_bytes": 0, "change_bytes": 0, "log_bytes": 0, "files": 0}
    base = tables_root(root)
    for folder, _, files in os.walk(base):
        for name in files:
            size = os.path.getsize(os.path.join(folder, name))
            kind = (
                "log_bytes"
                if "_delta_log" in folder
                else "change_bytes"
                if "_change_data" in folder
                else "data_bytes"
            )
            totals[kind] += size
            totals["files"] += 1
    return totals
