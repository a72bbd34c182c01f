"""The catalogue index's residual columns (`schemas.lake.RESIDUAL_COLUMNS`): each alpha against its
default reference set, as `/analytics/residual` answers it with no parameter to a key that reads
every alpha (docs/analytics.md, "Residual against the catalogue"), computed over the generation's
returns matrix by `analytics.residual.index_figures`, the route's own computation.

Every row's figure depends on the others: the default set is the approved alphas (the production
ones), and their returns and SPY's are the regressors. So a commit computes a row again when its
set moved (the approved alphas, which `alpha-results promote` and `retire`, and a seal's approval at
its first publish, hand in after a decision; a build of an alpha of the set),
every row when SPY's build moved or the index was written before these columns, and its own rows
always (`_wanted`). The approved alphas live in the deployment's records, which the pipeline does not read:
the index keeps them as the last decision handed them in (the `approved` column), so a publish and
`alpha-results lake index` compute against the same set.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from alpha_results_seal.storage import Storage
from analytics.residual import index_figures
from analytics.series import BenchmarkSeries, benchmark_returns
from datasets import layout
from datasets.catalogue_snapshot import Matrix
from datasets.faults import CorruptLakeFile
from schemas.conventions import SESSIONS_PER_YEAR as DEFAULT_SESSIONS_PER_YEAR
from schemas.lake import CATALOGUE_INDEX, RESIDUAL_COLUMNS
from schemas.wire import MARKET_BENCHMARK


def approved_in(index: pa.Table | None) -> frozenset[str]:
    """The alphas `index` records as approved (its `approved` column)."""
    if index is None or "approved" not in index.column_names:
        return frozenset()
    kept = index.filter(pc.fill_null(index.column("approved"), False))
    return frozenset(kept.column("alpha_id").to_pylist())


def market_series(storage: Storage, root: str, build_id: str | None) -> BenchmarkSeries | None:
    """SPY's daily returns from its build `build_id` (None: none published, or unreadable), as the
    server reads them (`analytics.series.benchmark_returns`)."""
    if build_id is None:
        return None
    build = layout.benchmark_build_dir(root, MARKET_BENCHMARK, build_id)
    try:
        daily = pq.read_table(pa.BufferReader(storage.read_bytes(layout.join(build, layout.BENCHMARK_DAILY))))
    except (OSError, pa.ArrowException, CorruptLakeFile):
        return None
    daily = daily.sort_by("date")
    basis, returns = benchmark_returns(daily)
    days = np.asarray(daily.column("date").cast(pa.int32()).to_numpy())
    return BenchmarkSeries(MARKET_BENCHMARK, build_id, basis, days, returns)


def _mask(table: pa.Table, alphas: Collection[str]) -> np.ndarray:
    found = pc.is_in(table.column("alpha_id"), value_set=pa.array(list(alphas), pa.string()))
    return np.asarray(pc.fill_null(found, False).to_numpy(zero_copy_only=False), dtype=bool)


def with_residuals(
    storage: Storage,
    root: str,
    table: pa.Table,
    matrices: Mapping[str, np.ndarray],
    market_build: str | None,
    previous: pa.Table | None,
    previous_market: str | None,
    fresh: Collection[str],
    approved: Collection[str] | None = None,
) -> pa.Table:
    """`table` (the next generation's index, in the matrices' row order) with its `approved` and
    residual columns: `approved` as a decision hands it in, else as `previous` (the index it
    follows) records it; the residual columns of the rows `_wanted` names, the others kept."""
    now = approved_in(previous) if approved is None else frozenset(approved)
    ids = table.column("alpha_id").to_pylist()
    wanted = _wanted(table, ids, now, previous, fresh, market_build != previous_market)
    columns = {name: table.column(name).to_pylist() for name in RESIDUAL_COLUMNS}
    if wanted:
        matrix = Matrix(
            "",
            {a: r for r, a in enumerate(ids)},
            table.column("alpha_id"),
            matrices["returns_days"],
            matrices["returns"],
        )
        figures = index_figures(
            matrix,
            _mask(table, now),
            _sessions_per_year(table),
            market_series(storage, root, market_build),
            wanted,
        )
        for row, values in figures.items():
            for name, value in zip(RESIDUAL_COLUMNS, values, strict=True):
                columns[name][row] = value
    out = table
    for name, values in (*columns.items(), ("approved", _mask(table, now).tolist())):
        where = out.schema.get_field_index(name)
        out = out.set_column(
            where, CATALOGUE_INDEX.field(name), pa.array(values, CATALOGUE_INDEX.field(name).type)
        )
    return out


def _wanted(
    table: pa.Table,
    ids: list[str],
    approved: frozenset[str],
    previous: pa.Table | None,
    fresh: Collection[str],
    market_moved: bool,
) -> list[int]:
    """The rows whose residual figures a commit computes again. A row's set is the approved
    alphas but itself (empty when no other alpha is approved): a row is computed again when its set
    gained or lost an alpha, or an alpha of it was republished (its returns changed), and the fresh
    rows always (their own build is new). Every row when SPY's build moved or `previous` was
    written before these columns."""
    every = list(range(len(ids)))
    if (
        previous is None
        or previous.num_rows == 0
        or previous.column("approved").null_count > 0
        or market_moved
    ):
        return every
    present = frozenset(ids)
    approved_now, approved_before = approved & present, approved_in(previous)
    if approved_now != approved_before:  # a decision, or an approved alpha no longer published
        return every
    known = frozenset(previous.column("alpha_id").to_pylist())
    republished = {alpha for alpha in fresh if alpha in known}
    if republished & approved_now:
        return every
    return [row for row, alpha in enumerate(ids) if alpha in fresh]


def _sessions_per_year(table: pa.Table) -> np.ndarray:
    """Each row's sessions per year (its alpha.json's metric_conventions, 252 by default), as
    `analytics.entries.conventions` reads a build's."""
    found = []
    for entry in table.column("entry").to_pylist():
        try:
            conventions = (json.loads(entry) if entry else {}).get("metric_conventions") or {}
        except ValueError:
            conventions = {}
        found.append(int(conventions.get("sessions_per_year") or DEFAULT_SESSIONS_PER_YEAR))
    return np.array(found, dtype=np.int64)


def current_market(generation_benchmarks: Mapping[str, str] | None) -> str | None:
    """SPY's build in a generation's benchmarks (None: none)."""
    return None if generation_benchmarks is None else generation_benchmarks.get(MARKET_BENCHMARK)
