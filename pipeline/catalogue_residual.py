"""The catalogue index's residual columns (`schemas.lake.RESIDUAL_COLUMNS`): each alpha against its
default reference set, as `/analytics/residual` answers it with no parameter to a key that reads
every alpha (docs/analytics.md, "Residual against the catalogue"), computed over the generation's
returns matrix by `analytics.residual.index_figures`, the route's own computation.

Every row's figure depends on the others: the default set is the approved alphas, else the
production ones, and their returns and SPY's are the regressors. So a commit computes every row
again when the set's inputs moved (the approved alphas, which `alpha-results promote` and `retire`
hand in after a decision; the production alphas; a build of an alpha of the set; SPY's build; an
index written before these columns) and only its own rows otherwise (a publish of an alpha outside
the set). The approved alphas live in the deployment's records, which the pipeline does not read:
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

from analytics.residual import index_figures
from datasets import layout
from datasets.catalogue_snapshot import Matrix
from datasets.faults import CorruptLakeFile
from datasets.series import BenchmarkSeries, benchmark_returns
from datasets.storage import Storage
from schemas.lake import CATALOGUE_INDEX, RESIDUAL_COLUMNS
from schemas.wire import MARKET_BENCHMARK

DEFAULT_SESSIONS_PER_YEAR = 252


def approved_in(index: pa.Table | None) -> frozenset[str]:
    """The alphas `index` records as approved (its `approved` column)."""
    if index is None or "approved" not in index.column_names:
        return frozenset()
    kept = index.filter(pc.fill_null(index.column("approved"), False))
    return frozenset(kept.column("alpha_id").to_pylist())


def market_series(storage: Storage, root: str, build_id: str | None) -> BenchmarkSeries | None:
    """SPY's daily returns from its build `build_id` (None: none published, or unreadable), as the
    server reads them (`datasets.series.benchmark_returns`)."""
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


def _set_of(table: pa.Table, approved: Collection[str]) -> frozenset[str]:
    """The alphas the default sets are drawn from: the approved ones, else the production ones."""
    if approved:
        return frozenset(approved) & frozenset(table.column("alpha_id").to_pylist())
    production = table.filter(pc.fill_null(table.column("production"), False))
    return frozenset(production.column("alpha_id").to_pylist())


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
    follows) records it; the residual columns of every row when the set's inputs moved (module
    docstring), else of the `fresh` rows alone (their own build is new), the others kept."""
    now = approved_in(previous) if approved is None else frozenset(approved)
    ids = table.column("alpha_id").to_pylist()
    members = _set_of(table, now)
    before = None if previous is None else _set_of(previous, approved_in(previous))
    every = (
        previous is None
        or previous.num_rows == 0
        or previous.column("approved").null_count > 0  # written before these columns
        or before != members
        or market_build != previous_market
        or any(alpha in members or (before is not None and alpha in before) for alpha in fresh)
    )
    wanted = range(len(ids)) if every else [row for row, alpha in enumerate(ids) if alpha in fresh]
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
            np.asarray(
                pc.fill_null(table.column("production"), False).to_numpy(zero_copy_only=False), dtype=bool
            ),
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
