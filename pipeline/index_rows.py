"""The catalogue index's rows, computed once per published build (docs/lake.md, "The catalogue index").

Every publish records its alpha's row (`record`), `alpha-results lake index` rebuilds every row
(`rebuild`, on a process pool or a Dask cluster), and both commit one generation of the index
(`datasets.catalogue_index.commit`). A row holds what the catalogue lists, the headline figures
exactly as `/metrics` serves them (its own functions compute them) and what the catalogue-wide
analytics need, so no worker opens every build to answer a catalogue-wide question.

The live columns (`schemas.lake.LIVE_COLUMNS`, `analytics.live.index_columns`) are the long_short
book's live against backtest at the alpha's split. An approval lives in the deployment's records,
which the pipeline does not read: `alpha-results promote` and `retire` record the alpha's row again
with its approval (`record(..., approvals=...)`: only its live columns, the build unchanged), and
a row recorded or rebuilt later keeps the approval split its previous row had (`_approvals_of`).
"""

from __future__ import annotations

import bisect
import json
import math
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import partial
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from alpha_results_seal.storage import Storage
from analytics import live, nearest
from analytics.access import FULL_ACCESS
from analytics.correlation import Pairing
from analytics.entries import Warnings
from analytics.metrics.blocks import core_stats, ic_reproduction_mismatch, nwt_ic_block
from analytics.metrics.inputs import MetricsInputs, metrics_inputs
from analytics.residual import index_figures
from analytics.returns import daily_returns
from analytics.significance import moments
from analytics.tenure import Tenure
from datasets import catalog, catalogue_index, layout, trial_sums
from datasets.build_view import BuildView
from datasets.catalogue_snapshot import Matrix
from datasets.faults import CorruptLakeFile
from datasets.local_cache import LocalCache
from pipeline import catalogue_bound, catalogue_neighbours, catalogue_residual, trial_links
from schemas.bodies.metrics import Stat
from schemas.lake import CATALOGUE_INDEX, RESIDUAL_COLUMNS, SCORE_NEIGHBOURS

SERIES = "_series"
"""A row's dated series (basis -> (days since 1970, values)), which go into the matrices, not the table."""
SCORES = "_scores"
"""A row's scores, (date, symbol, score) of its decisions (None without), paired with its
candidates' (`pipeline.catalogue_neighbours`), not stored in the table."""
MATRIX_BASES = ("returns", "ic", "risk_free")
"""The date-aligned matrices of each generation: daily long_short returns, weekly conditioned IC,
and the daily risk-free return the long_short book accrued (the combinations' excess Sharpe)."""
ADDED_BASES = frozenset({"risk_free"})
"""Bases added after the index first shipped: a generation written before them has none, so the
other alphas' rows are unknown (NaN) until `lake index` rebuilds them, instead of a publish
refusing to record its row."""


@contextmanager
def opened(
    storage: Storage,
    build: catalog.PublishedBuild,
    entry: dict[str, Any],
    tables: tuple[str, ...] | None = None,
) -> Iterator[BuildView]:
    """The build as a worker opens it: in place on a local lake, from a copy of its serving
    files on S3 (only the JSON documents and the serving `tables`, when named)."""
    if storage.is_local:
        yield BuildView(build.name, build.build_id, entry, build.build_dir)
        return
    files = entry.get("files") or {}
    if tables is not None:  # the serving index (a view needs it) and those tables alone
        wanted = {layout.serving_path("", name).lstrip("/") for name in (layout.SERVING_INDEX, *tables)}
        files = {path: f for path, f in files.items() if path in wanted}
    with tempfile.TemporaryDirectory(prefix="catalogue-row-") as folder:
        copy = LocalCache(folder, 1 << 62).fetch(storage, build.build_dir, build.name, build.build_id, files)
        yield BuildView(build.name, build.build_id, entry, copy)


def score_frame(view: BuildView) -> pl.DataFrame | None:
    """(date, symbol, score) of every decision of the build with a finite conditioned score."""
    table = view.table("decisions")
    if table is None:
        return None
    frame = pl.from_arrow(table.select(["date", "symbol", "score"]))
    assert isinstance(frame, pl.DataFrame)
    return frame.filter(pl.col("score").is_finite())


def read_scores(
    storage: Storage, root: str, alpha_id: str, build_id: str, entry: dict[str, Any] | None = None
) -> pl.DataFrame | None:
    """The scores of one published build (for pairing it with another); its alpha.json is read
    when `entry` is not given."""
    build = catalog.PublishedBuild(alpha_id, build_id, layout.alpha_build_dir(root, alpha_id, build_id))
    if entry is None:
        entry = catalog.read_alpha(root, build, storage)
    with opened(storage, build, entry, tables=("decisions",)) as view:
        frame = score_frame(view)
        return None if frame is None else frame.clone()  # not the mapped file, closed on return


def _value(stat: Stat) -> float | None:
    value = stat.value
    return float(value) if value is not None and math.isfinite(value) else None


def _day(value: Any) -> date | None:
    if value is None:
        return None
    return date.fromisoformat(str(value)[:10])


def _listing_columns(view: BuildView) -> dict[str, Any]:
    """The columns of a row the catalogue lists, from the build's alpha.json and description."""
    entry = view.entry
    description = view.json(layout.DESCRIPTION_JSON) or {}
    classification = description.get("classification") or {}
    tags = classification.get("tags")
    return {
        "alpha_id": view.alpha_id,
        "build_id": view.build_id,
        "name": entry.get("name") or view.alpha_id,
        "tldr": entry.get("tldr"),
        "started_at": _instant(entry.get("started_at")),
        "complete": bool(entry.get("complete", False)),
        "structure": _text(classification.get("structure")),
        "method": _text(classification.get("method")),
        "tags": [str(t) for t in tags] if isinstance(tags, list) else None,
        "family": _text(entry.get("family")),
        "parameters": None
        if entry.get("parameters") is None
        else json.dumps(entry["parameters"], sort_keys=True),
        "pipeline_version": entry.get("pipeline_version"),
        "built_at": _instant(entry.get("built_at")),
    }


def build_row(view: BuildView, scores: bool = True, approved: Tenure | None = None) -> dict[str, Any]:
    """The index row of one opened build (with its scores, for a publish to pair, when `scores`);
    `approved`: the alpha's tenure, its live columns' split (None: the seal's research_cutoff, else
    the first publication)."""
    entry = view.entry
    inputs = metrics_inputs(view)
    overall = None if inputs.stored is None else inputs.stored.get("overall", {}).get("")
    core = core_stats(overall, inputs.conventions, overall)
    nwt = nwt_ic_block(inputs, FULL_ACCESS, Warnings())
    p_value = None if nwt is None else nwt.p_value
    ledger = inputs.ledger
    found = None
    first = last = None
    sessions = 0
    series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if ledger is not None and ledger["date"].size:
        returns = daily_returns(ledger["starting_equity"], ledger["ending_equity"])
        series["returns"] = (_days(ledger["date"]), returns)
        series["risk_free"] = (_days(ledger["date"]), ledger["risk_free_return"])
        found = moments(returns)
        sessions = int(ledger["date"].size)
        first, last = str(ledger["date"][0]), str(ledger["date"][-1])
    if inputs.weekly_signal is not None:
        series["ic"] = (_days(inputs.weekly_signal["date"]), inputs.weekly_signal["ic"])
    rebalances = inputs.rebalances
    weeks = 0 if rebalances is None else int(rebalances["date"].size)
    if first is None and weeks and rebalances is not None:
        first, last = str(rebalances["date"][0]), str(rebalances["date"][-1])
    return {
        **_listing_columns(view),
        "indexed_at": datetime.now(UTC),
        "information_ratio": _value(core.information_ratio),
        "excess_sharpe": _value(core.excess_sharpe),
        "ic": _value(core.ic),
        "icir": _value(core.icir),  # /metrics serves it annualised for every run (analytics/ic.py)
        "ic_reproduces": _ic_reproduces(inputs, _value(core.ic)),
        "max_drawdown_pct": _value(core.max_drawdown_pct),
        "turnover": _value(core.turnover),
        "turnover_unit": core.turnover.unit,
        "sessions": sessions,
        "weeks": weeks,
        "first_date": _day(first),
        "last_date": _day(last),
        **live.index_columns(view, approved),
        "sharpe_per_session": None if found is None else found.sharpe,
        "nwt_ic_p_value": float(p_value) if isinstance(p_value, float) and math.isfinite(p_value) else None,
        # alpha.json without its file manifest, which a worker reads when it opens the build
        "entry": json.dumps({k: v for k, v in entry.items() if k != "files"}, sort_keys=True),
        SERIES: series,
        SCORES: score_frame(view) if scores else None,
    }


def _instant(text: object) -> datetime | None:
    """An ISO 8601 time of alpha.json as the index's instant (UTC): the one parse of
    `catalogue_index.upgraded`, so a row written now and a row read from an older file agree."""
    return catalogue_index.instants([text])[0]


def _ic_reproduces(inputs: MetricsInputs, mean_ic: float | None) -> bool | None:
    """Whether the weekly IC rebuilt from the cross-sections reproduces the sealed mean IC (the
    `ic_reproduction_mismatch` rule of `/metrics`); None when there is nothing to check: no sealed
    mean IC, or no cross-sections to rebuild it from."""
    if mean_ic is None or inputs.weekly_signal is None:
        return None
    return ic_reproduction_mismatch(inputs) is None


def _days(dates: np.ndarray) -> np.ndarray:
    return np.asarray(dates).astype("datetime64[D]").astype(np.int32)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def alpha_row(
    storage: Storage, root: str, alpha_id: str, scores: bool = True, approved: Tenure | None = None
) -> dict[str, Any] | None:
    """The row of `alpha_id`'s current build (its live columns split at its tenure when given);
    None when nothing is published under it. An alpha whose pointer or alpha.json cannot be read
    gets a row saying why (`unreadable`): workers answer 503 for it and health names it, as for a
    damaged build."""
    try:
        published = catalog.current_build(root, alpha_id, storage)
        if published is None:
            return None
        entry = catalog.read_alpha(root, published, storage)
    except CorruptLakeFile as exc:
        return {"alpha_id": alpha_id, "unreadable": str(exc)}
    with opened(storage, published, entry) as view:
        row = build_row(view, scores, approved)
        if row[SCORES] is not None:
            row[SCORES] = row[SCORES].clone()  # not the mapped file, closed on return
        return row


def _ordered(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Index rows in catalogue order (the index's, the matrices' and the screener's)."""
    return sorted(rows, key=lambda row: catalog.catalogue_order(row))


def _table(ordered: list[dict[str, Any]]) -> pa.Table:
    names = set(CATALOGUE_INDEX.names)
    return pa.Table.from_pylist(
        [{k: v for k, v in row.items() if k in names} for row in ordered], schema=CATALOGUE_INDEX
    )


def _conformed(index: pa.Table | None) -> pa.Table:
    """`index` with the columns of CATALOGUE_INDEX (`catalogue_index.conformed`); an empty table
    without an index."""
    return CATALOGUE_INDEX.empty_table() if index is None else catalogue_index.conformed(index)


def _rows_of(index: pa.Table, alphas: list[str]) -> dict[str, dict[str, Any]]:
    """The rows of `alphas` in `index`, as dicts."""
    found = index.filter(pc.is_in(index.column("alpha_id"), value_set=pa.array(alphas, pa.string())))
    return {row["alpha_id"]: row for row in found.to_pylist()}


def _in_catalogue_order(table: pa.Table) -> pa.Table:
    """`table`'s rows in catalogue order (`_ordered`'s, from the two columns it depends on)."""
    keys = [
        catalog.catalogue_order({"started_at": started, "alpha_id": alpha})
        for started, alpha in zip(
            table.column("started_at").to_pylist(), table.column("alpha_id").to_pylist(), strict=True
        )
    ]
    return table.take(pa.array(sorted(range(len(keys)), key=keys.__getitem__), pa.int64()))


def _with_list_paths(table: pa.Table, lists: catalogue_neighbours.Lists) -> pa.Table:
    """`table` whose `score_neighbours` names each changed alpha's new list (`lists.paths`)."""
    paths = table.column("score_neighbours").to_pylist()
    for row, alpha in enumerate(table.column("alpha_id").to_pylist()):
        if alpha in lists.paths:
            paths[row] = lists.paths[alpha]
    where = table.schema.get_field_index("score_neighbours")
    return table.set_column(where, table.schema.field(where), pa.array(paths, pa.string()))


def aligned(
    order: list[str],
    fresh: dict[str, tuple[np.ndarray, np.ndarray]],
    previous: tuple[list[str], np.ndarray, np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """(days, values): one row per alpha of `order`, one column per date any of them has (NaN
    where an alpha has no finite value). Rows of `fresh` (alpha -> days, values) are placed from
    their series; the others are copied from `previous` (its alpha order, days, values)."""
    parts = [days for days, _ in fresh.values()]
    kept: list[tuple[int, int]] = []
    if previous is not None:
        positions = {alpha: row for row, alpha in enumerate(previous[0])}
        kept = [(row, positions[a]) for row, a in enumerate(order) if a not in fresh and a in positions]
        if kept:
            parts.append(previous[1])
    days = np.unique(np.concatenate(parts)).astype(np.int32) if parts else np.empty(0, np.int32)
    values = np.full((len(order), days.size), np.nan)
    if previous is not None and kept:
        columns = np.searchsorted(days, previous[1])
        rows_now, rows_before = (list(x) for x in zip(*kept, strict=True))
        values[np.ix_(rows_now, columns)] = np.asarray(previous[2])[rows_before]
    for row, alpha in enumerate(order):
        if alpha in fresh:
            series_days, series = fresh[alpha]
            values[row, np.searchsorted(days, series_days)] = np.where(np.isfinite(series), series, np.nan)
    return days, values


def _matrices(
    storage: Storage,
    root: str,
    order: list[str],
    rows: Mapping[str, dict[str, Any] | None],
    current: catalogue_index.Generation | None,
    index: pa.Table | None,
) -> dict[str, np.ndarray]:
    """The next generation's matrices: `rows`' series, the other alphas' copied from `current`."""
    found: dict[str, np.ndarray] = {}
    for basis in MATRIX_BASES:
        fresh = {
            a: row[SERIES][basis]
            for a, row in rows.items()
            if row is not None and basis in row.get(SERIES, {})
        }
        previous = None
        if current is not None and index is not None:
            days = catalogue_index.read_matrix(storage, root, current, f"{basis}_days")
            values = catalogue_index.read_matrix(storage, root, current, basis)
            if days is not None and values is not None:
                previous = (index.column("alpha_id").to_pylist(), days, values)
        kept_without_matrix = (
            previous is None and index is not None and index.num_rows > 0 and basis not in ADDED_BASES
        )
        if kept_without_matrix and any(a not in rows for a in order):
            raise ValueError(
                "the newest catalogue generation has no matrices to copy the other alphas' rows "
                "from; run `alpha-results lake index` once"
            )
        found[f"{basis}_days"], found[basis] = aligned(order, fresh, previous)
        if basis in nearest.INDEXED_BASES:  # the correlation index (analytics/nearest.py)
            found.update(nearest.index_matrices(basis, found[basis], found[f"{basis}_days"]))
    return found


def _pointed(storage: Storage, root: str, alpha_id: str) -> str | None:
    return _build_id(catalog.current_build, storage, root, alpha_id)


def _build_id(
    current: Callable[[str, str, Storage], catalog.PublishedBuild | None],
    storage: Storage,
    root: str,
    name: str,
) -> str | None:
    """The build `current` finds published under `name` (an alpha's, a benchmark's); None when
    none is or its pointer is corrupt."""
    try:
        published = current(root, name, storage)
    except CorruptLakeFile:
        return None
    return None if published is None else published.build_id


def _still_current(
    storage: Storage,
    root: str,
    rows: Mapping[str, dict[str, Any] | None],
    previous: Mapping[str, dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], list[str], list[dict[str, Any]]]:
    """Of `rows` (alpha -> its new row, None: no longer published), those whose build is still the
    one published, against the index's `previous` rows: the rows to commit, the alphas whose row
    goes, and each change (the alpha, its build, the build its row named before)."""
    committed: dict[str, dict[str, Any]] = {}
    removed: list[str] = []
    changes: list[dict[str, Any]] = []
    for alpha, row in rows.items():
        if not _current(row, storage, root, alpha):
            continue  # a newer publish of this alpha commits its own row
        before_row = previous.get(alpha)
        if row is not None:
            committed[alpha] = _replacing(row, before_row)
        elif before_row is not None:
            removed.append(alpha)
        changes.append(
            {
                "alpha_id": alpha,
                "build_id": None if row is None else row.get("build_id"),
                "previous": None if before_row is None else before_row.get("build_id"),
            }
        )
    return committed, removed, changes


def _current(row: dict[str, Any] | None, storage: Storage, root: str, alpha_id: str) -> bool:
    """Whether `row` still describes what the alpha's pointer names."""
    if row is not None and row.get("unreadable"):
        return True
    return (None if row is None else row["build_id"]) == _pointed(storage, root, alpha_id)


def _approvals_of(
    storage: Storage, root: str, generation: catalogue_index.Generation | None
) -> dict[str, Tenure]:
    """alpha -> the tenure its row in `generation` was split at (live_split_origin approval, with
    the times its approval and retirement were recorded): kept by the next row of the alpha, as the
    live part of a tenure starts where it started whatever build follows."""
    if generation is None:
        return {}
    names = ["alpha_id", "live_split_origin", "live_approved_at", "live_retired_at"]
    index = catalogue_index.read_index(storage, root, generation, names)
    if "live_approved_at" not in index.column_names:
        return {}  # written before the tenures: `lake index` or the next decision records them
    index = index.select(names).filter(
        pc.and_(
            pc.fill_null(pc.equal(index.column("live_split_origin"), "approval"), False),
            pc.is_valid(index.column("live_approved_at")),
        )
    )
    return {
        alpha: Tenure(approved_at=approved_at, as_of=approved_at.date(), retired_at=retired_at)
        for alpha, _, approved_at, retired_at in zip(
            *(index.column(n).to_pylist() for n in names), strict=True
        )
    }


def live_refreshed(
    storage: Storage, root: str, alpha_id: str, build_id: str, approved: Tenure | None
) -> dict[str, Any]:
    """The live columns of `alpha_id`'s build `build_id` split at its tenure `approved` (None: the
    split of an alpha not approved) (the build's ledger, weekly IC and knowledge read, nothing else)."""
    build = catalog.PublishedBuild(alpha_id, build_id, layout.alpha_build_dir(root, alpha_id, build_id))
    entry = catalog.read_alpha(root, build, storage)
    with opened(storage, build, entry, tables=("portfolio", "weekly_signal", "known_sessions")) as view:
        return live.index_columns(view, approved)


def _indexed_builds(
    storage: Storage, root: str, newest: catalogue_index.Generation | None, alphas: list[str]
) -> dict[str, str | None]:
    """The build the newest generation's row of each of `alphas` names (those it holds)."""
    if newest is None:
        return {}
    index = catalogue_index.read_index(storage, root, newest, ["alpha_id", "build_id"])
    index = index.filter(pc.is_in(index.column("alpha_id"), value_set=pa.array(alphas, pa.string())))
    return dict(zip(*(index.column(n).to_pylist() for n in ("alpha_id", "build_id")), strict=True))


def _approved_before(
    storage: Storage, root: str, newest: catalogue_index.Generation | None, in_force: frozenset[str] | None
) -> frozenset[str]:
    """The approved alphas the newest generation records, read only when a decision names the
    alphas in force (`record`'s `in_force`); empty otherwise."""
    if newest is None or in_force is None:
        return frozenset()
    return catalogue_residual.approved_in(
        catalogue_index.read_index(storage, root, newest, ["alpha_id", "approved"])
    )


def _moved_benchmarks(
    storage: Storage, root: str, newest: catalogue_index.Generation | None, benchmarks: Sequence[str]
) -> list[str]:
    """The `benchmarks` whose current build is not the one the newest generation names."""
    return [
        s
        for s in benchmarks
        if newest is None or newest.benchmarks.get(s) != _benchmark_build(storage, root, s)
    ]


def _live_refreshed(
    storage: Storage,
    root: str,
    approvals: Mapping[str, Tenure | None],
    todo: Collection[str],
    indexed: Mapping[str, str | None],
    approved: Mapping[str, Tenure | None],
) -> dict[str, tuple[str, dict[str, Any]]]:
    """An approval of an alpha whose row names its current build (not in `todo`): its live columns
    only, alpha -> (the build its row names, its live columns at its tenure)."""
    return {
        alpha: (build, live_refreshed(storage, root, alpha, build, approved[alpha]))
        for alpha in approvals
        if alpha not in todo and (build := indexed.get(alpha)) is not None
    }


def record(
    root: str,
    alpha_ids: Sequence[str] = (),
    benchmarks: Sequence[str] = (),
    approvals: Mapping[str, Tenure | None] | None = None,
    in_force: Collection[str] | None = None,
) -> int:
    """Commits the rows of `alpha_ids` (their current builds) and the current builds of
    `benchmarks` as the next generation; returns its number. `approvals` (alpha -> its tenure after
    a decision, None when it has none, what `alpha-results promote` and `retire` pass) records those
    alphas' live columns at their tenure: a row already naming the current build gets its live
    columns alone computed again (its matrices and score neighbours are those of the same build).

    A row is committed only while the alpha's pointer still names its build: a publish of a newer
    build that switched the pointer meanwhile commits its own row, after this one or before.
    `in_force`: the approved alphas, in force in the live book after a decision (what `promote` and
    `retire` pass), the default reference set of the residual columns
    (`pipeline.catalogue_residual`); None keeps the set the index records."""
    storage = Storage(root)
    newest = catalogue_index.newest(storage, root)
    indexed = _indexed_builds(storage, root, newest, [*alpha_ids, *(approvals or {})])
    in_force = None if in_force is None else frozenset(in_force)
    approved_before = _approved_before(storage, root, newest, in_force)
    approved: dict[str, Tenure | None] = {**_approvals_of(storage, root, newest), **(approvals or {})}
    named = [*alpha_ids, *(a for a in approvals or {} if a not in alpha_ids)]
    todo = [a for a in named if a not in indexed or indexed[a] != _pointed(storage, root, a)]
    moved = _moved_benchmarks(storage, root, newest, benchmarks)
    refreshed = _live_refreshed(storage, root, approvals or {}, todo, indexed, approved)
    if (
        newest is not None
        and not todo
        and not moved
        and not refreshed
        and in_force in (None, approved_before)
    ):
        return newest.number  # the index already names every current build and approved set
    rows = {alpha: alpha_row(storage, root, alpha, approved=approved.get(alpha)) for alpha in todo}

    update = partial(_whole_update, storage, root, rows, refreshed, moved, in_force)
    if approvals or moved or in_force is not None:
        # A decision (every row's residual set or live split may move) or SPY's new build: whole.
        return catalogue_index.commit(storage, root, update).number
    delta = partial(_delta_update, storage, root, rows)
    return catalogue_index.commit_delta(storage, root, delta, update).number


def _live_refreshed_rows(
    refreshed: Mapping[str, tuple[str, dict[str, Any]]], previous: Mapping[str, dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """The rows of the `refreshed` alphas (alpha -> (the build its row named, its live columns)) with
    their new live columns, and their changes; an alpha republished meanwhile is left out (that
    publish committed its own row)."""
    committed: dict[str, dict[str, Any]] = {}
    changes: list[dict[str, Any]] = []
    for alpha, (same, columns) in refreshed.items():
        before_row = previous.get(alpha)
        if before_row is None or before_row.get("build_id") != same:
            continue  # republished meanwhile: that publish committed its own row
        committed[alpha] = before_row | columns | {"indexed_at": datetime.now(UTC)}
        changes.append(
            {
                "alpha_id": alpha,
                "build_id": same,
                "previous": same,
                "live_split": None if columns["live_split"] is None else str(columns["live_split"]),
            }
        )
    return committed, changes


def _whole_update(
    storage: Storage,
    root: str,
    rows: Mapping[str, dict[str, Any] | None],
    refreshed: Mapping[str, tuple[str, dict[str, Any]]],
    moved: Sequence[str],
    in_force: frozenset[str] | None,
    current: catalogue_index.Generation | None,
    index: pa.Table | None,
) -> catalogue_index.Next:
    """The whole generation over `current` (its table `index`) that commits `rows`, the live columns
    of the `refreshed` alphas (alpha -> (the build its row names, its live columns)) and the current
    builds of the `moved` benchmarks, the residual columns against `in_force` (`record`)."""
    # Columnar: the other alphas' rows are never turned into Python objects (at 10,000 alphas
    # that alone took longer than the whole step's target).
    known = {} if current is None else dict(current.benchmarks)
    kept = _conformed(index)
    listed_before = _lists_of(kept)
    previous = _rows_of(kept, [*rows, *refreshed])
    committed, changes = _live_refreshed_rows(refreshed, previous)
    replacing, _, replaced = _still_current(storage, root, rows, previous)
    committed |= replacing
    changes += replaced
    for symbol in moved:
        build = _benchmark_build(storage, root, symbol)
        if build is not None:
            known[symbol] = build
    leaving = pa.array([change["alpha_id"] for change in changes], pa.string())
    kept = kept.filter(pc.invert(pc.is_in(kept.column("alpha_id"), value_set=leaving)))
    table = _in_catalogue_order(pa.concat_tables([kept, _table(list(committed.values()))]))
    ordered = [
        {"alpha_id": alpha, "build_id": build}
        for alpha, build in zip(*(table.column(n).to_pylist() for n in ("alpha_id", "build_id")), strict=True)
    ]
    fresh = {a: r for a, r in rows.items() if committed.get(a) is r}
    matrices = _matrices(storage, root, [row["alpha_id"] for row in ordered], fresh, current, index)
    table = catalogue_residual.with_residuals(
        storage,
        root,
        table,
        matrices,
        catalogue_residual.current_market(known),
        index,
        catalogue_residual.current_market(None if current is None else current.benchmarks),
        fresh,
        in_force,
    )
    lists = catalogue_neighbours.update(
        ordered,
        matrices,
        {alpha: row.get(SCORES) for alpha, row in fresh.items() if row is not None},
        listed_before,
        partial(_read_list, storage, root),
        _score_reader(storage, root, ordered),
        catalogue_neighbours.NEIGHBOURS,
        catalogue_neighbours.CANDIDATES,
    )
    table = _with_list_paths(table, lists)
    links = _links_of_whole(
        storage,
        root,
        current,
        ordered,
        matrices,
        {a: r for a, r in fresh.items() if r is not None},
        {c["alpha_id"] for c in changes if c.get("build_id") != c.get("previous")},
    )
    return catalogue_index.Next(
        table,
        known,
        changes,
        matrices,
        lists.files | links.files,
        lists.retired + links.retired,
        catalogue_bound.with_bound(
            trial_links.document(
                _sums_of(table), links, lambda: (table.column("alpha_id"), trial_links.sharpes_of(table))
            ),
            catalogue_bound.whole(matrices),
        ),
    )


def rebuild(
    root: str,
    rows: Iterable[dict[str, Any] | None] | None = None,
    pair_all: PairAll | None = None,
    candidates_of: catalogue_neighbours.Candidates | None = None,
    timings: dict[str, float] | None = None,
) -> int:
    """Commits an index of every published alpha and every published benchmark, every score
    neighbours list made anew; returns the generation number. The rows and the pairings are computed
    here unless given (by Dask tasks: `rows`, `pair_all`), once: a publish that commits meanwhile
    makes the commit retry on its generation, and its alpha keeps the row (and list) it committed.
    `candidates_of` computes the plan's candidates (Dask tasks over blocks of rows); `timings`
    receives each phase's seconds."""
    clock = _Clock(timings)
    storage = Storage(root)
    alphas = catalog.published_alpha_ids(root, storage)
    approved = _approvals_of(storage, root, catalogue_index.newest(storage, root))
    computed = [
        row
        for row in (
            list(rows)
            if rows is not None
            else [alpha_row(storage, root, a, scores=False, approved=approved.get(a)) for a in alphas]
        )
        if row is not None
    ]
    for row in computed:  # rows computed elsewhere (Dask tasks) split where the records do not say
        alpha = row["alpha_id"]
        held = approved.get(alpha)
        split = (row.get("live_split_origin"), row.get("live_approved_at"), row.get("live_retired_at"))
        if (
            held is not None
            and row.get("build_id")
            and split != ("approval", held.approved_at, held.retired_at)
        ):
            row.update(live_refreshed(storage, root, alpha, row["build_id"], held))
    symbols = storage.list_names(layout.benchmarks_dir(root))
    ordered = _ordered(computed)
    eligible = np.array([_has_decisions(row) for row in ordered], dtype=bool)
    matrices = _matrices(
        storage, root, [row["alpha_id"] for row in ordered], {r["alpha_id"]: r for r in ordered}, None, None
    )
    clock("rows_and_matrices")
    plan = catalogue_neighbours.plan(
        ordered,
        matrices,
        eligible,
        catalogue_neighbours.CANDIDATES,
        candidates_of or catalogue_neighbours.candidate_block,
    )
    clock("plan")
    found = (pair_all or pair_locally)(root, plan)
    clock("pairs")
    hop = catalogue_neighbours.second_hop(ordered, eligible, found)
    clock("second_hop_plan")
    found += (pair_all or pair_locally)(root, hop)
    clock("second_hop_pairs")

    def update(current: catalogue_index.Generation | None, index: pa.Table | None) -> catalogue_index.Next:
        benchmarks = {s: b for s in symbols if (b := _benchmark_build(storage, root, s)) is not None}
        winner = {} if index is None else {row["alpha_id"]: row for row in index.to_pylist()}
        kept = [row for row in ordered if _current(row, storage, root, row["alpha_id"])]
        kept_ids = {row["alpha_id"] for row in kept}
        # Published since the rows were read (new, or republished): its row as that publish made it.
        carried = [
            row
            for alpha, row in winner.items()
            if alpha not in kept_ids and _current(row, storage, root, alpha) and row.get("build_id")
        ]
        carried = [
            alpha_row(storage, root, row["alpha_id"], scores=False, approved=approved.get(row["alpha_id"]))
            or row
            for row in carried
        ]
        for row in carried:
            row["score_neighbours"] = _list_of(winner.get(row["alpha_id"]), row)
        every = _ordered([*(_replacing(row, winner.get(row["alpha_id"])) for row in kept), *carried])
        fresh = {row["alpha_id"]: row for row in every}
        if [row["alpha_id"] for row in every] == [row["alpha_id"] for row in ordered]:
            following = matrices  # the same rows (their series) as computed above: not again
        else:
            following = _matrices(storage, root, [row["alpha_id"] for row in every], fresh, None, None)
        table = catalogue_residual.with_residuals(
            storage,
            root,
            _table(every),
            following,
            catalogue_residual.current_market(benchmarks),
            index,
            None,  # a rebuild computes every row again
            [row["alpha_id"] for row in every],
        )
        carried_ids = {row["alpha_id"] for row in carried}
        before = {a: r.get("score_neighbours") for a, r in winner.items() if a not in carried_ids}
        kept_eligible = np.array([_has_decisions(row) for row in kept], dtype=bool)
        lists = catalogue_neighbours.assembled(
            kept, kept_eligible, found, before, catalogue_neighbours.NEIGHBOURS
        )
        table = _with_list_paths(table, lists)
        # Every pair linked anew (O(N^2) rows, as the plan's candidates), the old links retired.
        linked = None if current is None else trial_links.read(storage, root, current.trials)
        links = trial_links.from_scratch(table.column("alpha_id").to_pylist(), following["returns"])
        return catalogue_index.Next(
            table,
            benchmarks,
            [{"rebuilt": len(kept)}],
            following,
            lists.files | links.files,
            lists.retired + ([] if linked is None else [linked[1]]),
            catalogue_bound.with_bound(
                trial_links.document(
                    _sums_of(table), links, lambda: (table.column("alpha_id"), trial_links.sharpes_of(table))
                ),
                catalogue_bound.whole(following),
            ),
        )

    number = catalogue_index.commit(storage, root, update).number
    clock("commit")
    return number


def _links_of_whole(
    storage: Storage,
    root: str,
    current: catalogue_index.Generation | None,
    ordered: list[dict[str, Any]],
    matrices: Mapping[str, np.ndarray],
    fresh: Mapping[str, dict[str, Any]],
    leaving: set[str],
) -> trial_links.Kept:
    """A whole generation's trial links (`pipeline.trial_links`): the current generation's, those
    of `leaving` dropped and the `fresh` rows' added (each against the full returns matrix); from
    scratch when the current one has none and the catalogue is small enough; else none."""
    ids = [row["alpha_id"] for row in ordered]
    before = None if current is None else trial_links.read(storage, root, current.trials)
    if before is None:
        if len(ids) <= trial_links.FROM_SCRATCH_UP_TO:
            return trial_links.from_scratch(ids, matrices["returns"])
        return trial_links.Kept(None)
    series = {a: r[SERIES]["returns"] for a, r in fresh.items() if "returns" in r.get(SERIES, {})}
    skip = np.array([a in fresh for a in ids], dtype=bool)
    source = (ids, matrices["returns_days"], matrices["returns"], skip)
    return trial_links.kept(before, leaving, trial_links.new_links([source], series))


def _links_of_delta(
    storage: Storage,
    root: str,
    current: catalogue_index.Generation,
    base_ids: pa.ChunkedArray,
    prior_ids: list[str],
    leaving: set[str],
    committed: Mapping[str, dict[str, Any]],
) -> trial_links.Kept:
    """A delta's trial links: the current generation's (`before`), those of `leaving` dropped and
    the committed rows' added, each correlated with the base's rows still current (read from the
    mapped matrix, no copy) and the earlier delta's."""
    before = trial_links.read(storage, root, current.trials)
    if before is None:
        return trial_links.Kept(None)
    sources: list[trial_links.Source] = []
    delta = current.delta
    base_days = catalogue_index._load(storage, root, current.matrices.get("returns_days"), True)
    base = catalogue_index._load(storage, root, current.matrices.get("returns"), True)
    assert base is not None and base_days is not None
    stale = {*prior_ids, *(delta.removed if delta else []), *leaving}
    skip = np.asarray(
        pc.fill_null(pc.is_in(base_ids, value_set=pa.array(list(stale), pa.string())), False).to_numpy(
            zero_copy_only=False
        ),
        bool,
    )
    sources.append((base_ids.to_pylist(), np.asarray(base_days), base, skip))
    if delta is not None:
        own_days = catalogue_index._load(storage, root, delta.matrices.get("returns_days"), True)
        own = catalogue_index._load(storage, root, delta.matrices.get("returns"), True)
        if own is not None and own_days is not None:
            own_skip = np.array([a in leaving for a in prior_ids], dtype=bool)
            sources.append((prior_ids, np.asarray(own_days), own, own_skip))
    series = {a: r[SERIES]["returns"] for a, r in committed.items() if "returns" in r.get(SERIES, {})}
    return trial_links.kept(before, leaving, trial_links.new_links(sources, series))


class _Clock:
    """Seconds of each phase of a rebuild, into `timings` when given (docs/benchmarks.md)."""

    def __init__(self, timings: dict[str, float] | None) -> None:
        self.timings, self.last = timings, time.perf_counter()

    def __call__(self, phase: str) -> None:
        now = time.perf_counter()
        if self.timings is not None:
            self.timings[phase] = self.timings.get(phase, 0.0) + now - self.last
        self.last = now


def _replacing(row: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """`row` as the index commits it over `previous` (the alpha's row in the index it follows): the
    build it replaced and when, or, for the same build, what that row said."""
    if previous is not None and previous.get("build_id") == row.get("build_id"):
        row["previous_build_id"] = previous.get("previous_build_id")
        row["replaced_at"] = previous.get("replaced_at")
    else:
        row["previous_build_id"] = None if previous is None else previous.get("build_id")
        row["replaced_at"] = datetime.now(UTC).replace(microsecond=0)
    return row


def _list_of(indexed: dict[str, Any] | None, row: dict[str, Any]) -> str | None:
    """The neighbour list `indexed` (the alpha's row in the index) names, when it is of `row`'s build."""
    if indexed is None or indexed.get("build_id") != row.get("build_id"):
        return None
    path: str | None = indexed.get("score_neighbours")
    return path


PairAll = Callable[
    [str, list[tuple[str, str, list[tuple[str, str]]]]],
    list[tuple[str, list[catalogue_neighbours.Neighbour]]],
]
"""(lake root, a rebuild's pairing plan) -> each planned alpha's neighbours among its candidates."""


def pair_locally(
    root: str, plan: list[tuple[str, str, list[tuple[str, str]]]]
) -> list[tuple[str, list[catalogue_neighbours.Neighbour]]]:
    """A rebuild's pairings in this process, each alpha's scores read once."""
    storage = Storage(root)
    builds: dict[str, str] = {}
    for alpha, build, others in plan:
        builds[alpha] = build
        builds.update(others)

    def read(alpha: str) -> pl.DataFrame | None:
        key = (root, alpha, builds[alpha])  # a build never changes: its scores are kept by id
        with _SCORES_LOCK:
            if key in _SCORES:
                _SCORES.move_to_end(key)
                return _SCORES[key][0]
        frame = read_scores(storage, root, alpha, builds[alpha])
        size = 0 if frame is None else int(frame.estimated_size())
        with _SCORES_LOCK:
            global _SCORES_BYTES
            _SCORES[key] = (frame, size)
            _SCORES_BYTES += size
            while _SCORES_BYTES > SCORES_KEPT_BYTES and len(_SCORES) > 1:
                _, (_, dropped) = _SCORES.popitem(last=False)
                _SCORES_BYTES -= dropped
        return frame

    return [
        (alpha, catalogue_neighbours.pair_task(alpha, build, others, read)) for alpha, build, others in plan
    ]


SCORES_KEPT_BYTES = 512 << 20
"""The scores a process keeps across a rebuild's pairing tasks (least recently used dropped): a
Dask worker runs many chunks of one plan, whose candidates overlap, and reads each build's scores
once instead of once per chunk (a finer partition then costs no more reading)."""
_SCORES: OrderedDict[tuple[str, str, str], tuple[pl.DataFrame | None, int]] = OrderedDict()
_SCORES_BYTES = 0
_SCORES_LOCK = threading.Lock()


def pair_chunk(
    root: str, chunk: list[tuple[str, str, list[tuple[str, str]]]]
) -> list[tuple[str, list[catalogue_neighbours.Neighbour]]]:
    """A part of a rebuild's pairing plan, as a task of its own (a Dask worker runs it)."""
    return pair_locally(root, chunk)


def _lists_of(index: pa.Table) -> dict[str, str | None]:
    return dict(
        zip(index.column("alpha_id").to_pylist(), index.column("score_neighbours").to_pylist(), strict=True)
    )


def _has_decisions(row: dict[str, Any]) -> bool:
    entry = row.get("entry")
    return entry is not None and "decisions" in (json.loads(entry).get("kinds_present") or ())


def _read_list(storage: Storage, root: str, relative: str) -> list[catalogue_neighbours.Neighbour]:
    table = catalogue_index.read_table(storage, root, relative, SCORE_NEIGHBOURS)
    return [
        catalogue_neighbours.Neighbour(alpha, build, whole, Pairing(days, rho, names))
        for alpha, build, whole, days, rho, names in catalogue_index.neighbour_entries(table)
    ]


def _score_reader(
    storage: Storage, root: str, ordered: list[dict[str, Any]]
) -> catalogue_neighbours.ScoreReader:
    builds: dict[str, str] = {row["alpha_id"]: row["build_id"] for row in ordered if row.get("build_id")}

    def read(alpha: str) -> pl.DataFrame | None:
        return read_scores(storage, root, alpha, builds[alpha])  # its alpha.json, manifest included

    return read


def current_rows(root: str) -> pa.Table | None:
    """The newest index (None when the lake has none)."""
    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    return None if generation is None else catalogue_index.read_index(storage, root, generation)


def row_task(root: str, alpha_id: str) -> dict[str, Any] | None:
    """One alpha's row, as a task of its own (a Dask worker runs it)."""
    return alpha_row(Storage(root), root, alpha_id, scores=False)


def _benchmark_build(storage: Storage, root: str, symbol: str) -> str | None:
    return _build_id(catalog.current_benchmark, storage, root, symbol)


# -- delta generations (issue 51, item 3; docs/lake.md "Delta generations") --------------------------

COMPACT_ROWS = 2_000
"""A publish writes a whole generation instead of a delta when the delta (every row changed since
its base) would exceed this many rows or list changes: a delta costs O(its rows), the whole O(N)."""
COMPACT_AFTER = 256
"""`compact` (a catalogue step of every `alpha-results build` run, after its publishes) rewrites the
catalogue whole once the delta holds this many rows or list changes."""


def _sums_of(table: pa.Table) -> dict[str, Any]:
    """The trials' exact sums over an index's Sharpe ratios (`datasets.trial_sums`)."""
    values = np.asarray(
        pc.fill_null(table.column("sharpe_per_session").cast(pa.float64()), math.nan).to_numpy(
            zero_copy_only=False
        )
    )
    return trial_sums.of_column(values).document()


class _Ordered:
    """The base's catalogue order keys, evaluated only where a binary search looks."""

    def __init__(self, started: pa.ChunkedArray, ids: pa.ChunkedArray) -> None:
        self.started, self.ids = started, ids

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, row: int) -> tuple[bool, float, str]:
        return catalog.catalogue_order(
            {"started_at": self.started[row].as_py(), "alpha_id": self.ids[row].as_py()}
        )


def _index_parts(
    storage: Storage,
    root: str,
    current: catalogue_index.Generation,
    basis: str,
    made: dict[str, np.ndarray] | None = None,
) -> list[catalogue_neighbours.IndexPart] | None:
    """The generation's correlation index on `basis` as it is stored (mapped, nothing merged or
    copied): its base's rows and its delta's, each with its rows' positions in the merged index and
    its gap lists (stored with it: `nearest.gap_matrices`; made from the z rows for a part written
    before them, a base's then added to `made` for the commit to store); None without an index."""

    def read(matrices: Mapping[str, str], suffix: str) -> np.ndarray | None:
        return catalogue_index._load(storage, root, matrices.get(f"{basis}{suffix}"), True)

    def gaps_of(matrices: Mapping[str, str], z: np.ndarray, spans: nearest.Spans, base: bool) -> nearest.Gaps:
        count, columns = read(matrices, "_gapcount"), read(matrices, "_gaps")
        if count is not None and columns is not None and count.shape[0] == z.shape[0]:
            return nearest.stored_gaps(count, columns, z, spans)
        found = nearest.gap_lists(z, spans)
        if base and made is not None:
            made[f"{basis}_gapcount"], made[f"{basis}_gaps"] = nearest.stored_form(found)
        return found

    z, span, days = (read(current.matrices, s) for s in ("_z", "_span", "_days"))
    if z is None or span is None or days is None:
        return None
    spans = nearest.spans(span, days)
    gaps = gaps_of(current.matrices, z, spans, True)
    delta = current.delta
    if delta is None:
        return [(z, spans, days, None, gaps)]
    own_z, own_span, own_days = (read(delta.matrices, s) for s in ("_z", "_span", "_days"))
    if own_z is None or own_span is None or own_days is None:
        return None
    kept, order = catalogue_index.merge_sources(storage, root, current)
    where = np.empty(order.size, np.int64)
    where[order] = np.arange(order.size)  # merged position of each of [kept base rows, delta rows]
    base_positions = np.full(z.shape[0], -1, np.int64)
    base_positions[kept] = where[: kept.size]
    own_spans = nearest.spans(own_span, own_days)
    return [
        (z, spans, days, base_positions, gaps),
        (own_z, own_spans, own_days, where[kept.size :], gaps_of(delta.matrices, own_z, own_spans, False)),
    ]


OPEN_AT_MOST = 5_000
"""Rows the correlation index may leave open among a publish's candidates before the publish reads
every alpha's with a list instead (`_open_rows`)."""


def _open_rows(
    storage: Storage,
    root: str,
    current: catalogue_index.Generation,
    ids: pa.ChunkedArray,
    eligible: np.ndarray,
    series: Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]],
    made: dict[str, np.ndarray] | None = None,
) -> dict[str, set[str]] | None:
    """For each committed alpha with decisions (`series`: its series per basis), the alphas of the
    index (`ids`, merged order; `eligible` those that may be a candidate) that the correlation index
    leaves open among its score-neighbour candidates (`catalogue_neighbours.open_candidates`); None
    without an index, or where it leaves more than OPEN_AT_MOST open. With at most CANDIDATES
    eligible rows, every one of them, without reading the index (no pass over the z rows). `made`:
    the base's gap lists, where it was written before them and this pass made them (stored by the
    commit: `_index_parts`)."""
    every = catalogue_neighbours.every_eligible(eligible, catalogue_neighbours.CANDIDATES)
    if every is not None:
        chosen = set(ids.take(pa.array(every)).to_pylist())
        return {alpha: set(chosen) for alpha in series}
    parts: dict[str, list[catalogue_neighbours.IndexPart]] = {}
    for basis in catalogue_neighbours.PROXY_BASES:
        part = _index_parts(storage, root, current, basis, made)
        if part is None:
            return None
        parts[basis] = part
    found: dict[str, set[str]] = {}
    for alpha, own in series.items():
        rows = catalogue_neighbours.open_candidates(parts, own, eligible, catalogue_neighbours.CANDIDATES)
        if rows.size > OPEN_AT_MOST:
            return None
        found[alpha] = set(ids.take(pa.array(rows)).to_pylist())
    return found


def _gathered(
    storage: Storage, root: str, current: catalogue_index.Generation, name: str, positions: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """(days, rows) of matrix `name` at `positions` of the generation's merged index (its base's
    rows read from the mapped file, the delta's from its own), on every date either file holds."""
    delta = current.delta
    base_days = catalogue_index._load(storage, root, current.matrices.get(f"{name}_days"), True)
    base = catalogue_index._load(storage, root, current.matrices.get(name), True)
    if base is None or base_days is None:
        return None
    if delta is None:
        return np.asarray(base_days), np.asarray(base[positions]) if positions.size else np.empty(
            (0, base_days.size)
        )
    own_days = catalogue_index._load(storage, root, delta.matrices.get(f"{name}_days"), True)
    own = catalogue_index._load(storage, root, delta.matrices.get(name), True)
    days = np.unique(np.concatenate([d for d in (base_days, own_days) if d is not None])).astype(np.int32)
    kept, order = catalogue_index.merge_sources(storage, root, current)
    sources = order[positions]  # into [kept base rows, delta rows]
    found = np.full((positions.size, days.size), np.nan)
    from_base = sources < kept.size
    if from_base.any():
        found[np.ix_(np.flatnonzero(from_base), np.searchsorted(days, base_days))] = np.asarray(
            base[kept[sources[from_base]]]
        )
    if (~from_base).any() and own is not None and own_days is not None:
        found[np.ix_(np.flatnonzero(~from_base), np.searchsorted(days, own_days))] = np.asarray(
            own[sources[~from_base] - kept.size]
        )
    return days, found


def _chosen(
    order: list[str],
    open_rows: Mapping[str, set[str]],
    scored: Mapping[str, Any],
    at: Mapping[str, int],
    matrices: Mapping[str, np.ndarray],
) -> dict[str, list[int]]:
    """Each scored committed alpha's `catalogue_neighbours.candidates` among the lists' rows
    (`order`), correlated exactly over the rows the index left open (`open_rows`) and the other
    scored committed alphas: the rows a correlation of every eligible row would choose, in the same
    order (positions in `order`)."""
    found: dict[str, list[int]] = {}
    for alpha in scored:
        subset = [n for n, a in enumerate(order) if a == alpha or a in scored or a in open_rows[alpha]]
        rows = np.array([at[order[n]] for n in subset], dtype=np.int64)
        # every row of the subset may be a candidate but the alpha itself (`candidates` skips it)
        eligible = np.ones(len(subset), dtype=bool)
        picked = catalogue_neighbours.candidates(
            {basis: matrices[basis][rows] for basis in catalogue_neighbours.PROXY_BASES},
            subset.index(order.index(alpha)),
            eligible,
            catalogue_neighbours.CANDIDATES,
        )
        found[alpha] = [subset[k] for k in picked]
    return found


def _turned(
    slim: pa.Table, approved: np.ndarray, has_list: np.ndarray, open_rows: Mapping[str, set[str]] | None
) -> np.ndarray:
    """Which rows of the index a delta publish turns into Python objects (`_delta_update`): the
    approved alphas', and those with a list, or, when the correlation index chose the candidates
    (`open_rows`), only the open ones among those."""
    if open_rows is None:
        found: np.ndarray = approved | has_list
        return found
    named = pa.array(sorted({a for rows in open_rows.values() for a in rows}), pa.string())
    return approved | (has_list & _is_in(slim.column("alpha_id"), named))


def _is_in(ids: pa.ChunkedArray, values: pa.Array) -> np.ndarray:
    return np.asarray(
        pc.fill_null(pc.is_in(ids, value_set=values), False).to_numpy(zero_copy_only=False), bool
    )


def _listed_rows(slim: pa.Table, listed: np.ndarray, alphas: Collection[str]) -> list[tuple[str, str, str]]:
    """(alpha, build, list path) of each of `alphas` that the index holds with a list (`listed`), in
    the index's order: the alphas a score-neighbour update meets in the lists it reads (one
    vectorised lookup over the ids; `_ListedRows` asks it for a publish's first lookups)."""
    rows = np.flatnonzero(listed & _is_in(slim.column("alpha_id"), pa.array(sorted(alphas), pa.string())))
    return _listed_of(slim, rows)


def _listed_of(slim: pa.Table, rows: np.ndarray) -> list[tuple[str, str, str]]:
    taken = slim.take(pa.array(rows, pa.int64()))
    return list(
        zip(*(taken.column(n).to_pylist() for n in ("alpha_id", "build_id", "score_neighbours")), strict=True)
    )


SCANS_BEFORE_SORT = 16
"""`_ListedRows`' lookups by a pass over the ids before it sorts them (a pass is about 0.01-0.02 s at
10^6 alphas, the sort about 0.5 s)."""


class _ListedRows:
    """`_listed_rows` for one publish, each lookup k log N once the publish has asked many: its first
    SCANS_BEFORE_SORT lookups a pass over the N ids each (a publish of one alpha asks two), then the
    ids sorted once and every later lookup a binary search of its alphas (a delta committing k
    listed alphas asks 2k: issue 63, item 3). The same rows as `_listed_rows`, in the same order."""

    def __init__(self, slim: pa.Table, listed: np.ndarray) -> None:
        self.slim, self.listed = slim, listed
        self.asked = 0
        self.order: np.ndarray | None = None
        self.sorted: np.ndarray | None = None

    def __call__(self, alphas: Collection[str]) -> list[tuple[str, str, str]]:
        self.asked += 1
        if self.asked <= SCANS_BEFORE_SORT or not alphas:
            return _listed_rows(self.slim, self.listed, alphas)
        if self.order is None or self.sorted is None:
            ids = self.slim.column("alpha_id")
            self.order = np.asarray(pc.sort_indices(ids).to_numpy(zero_copy_only=False), np.int64)
            self.sorted = np.asarray(ids.take(pa.array(self.order)).to_numpy(zero_copy_only=False), object)
        asked = np.array(sorted(alphas), dtype=object)
        at = np.minimum(np.searchsorted(self.sorted, asked), max(self.sorted.size - 1, 0))
        found = self.order[at[self.sorted[at] == asked]] if self.sorted.size else np.empty(0, np.int64)
        rows = np.sort(found[self.listed[found]])
        return _listed_of(self.slim, rows)


@dataclass(frozen=True)
class _Subset:
    """The rows a delta publish turns into Python objects (`_turned`) and the rows it commits, in
    merged catalogue order: the only rows its residuals and score neighbours read."""

    order: list[str]
    """The alphas, in merged catalogue order."""
    rows: list[dict[str, Any]]
    """{alpha_id, build_id} of each of `order`, in that order."""
    position: dict[str, int]
    """Each turned alpha's row in the index's publish columns."""
    listed_of: dict[str, str | None]
    """Each turned alpha's score neighbours list (its path, None without)."""
    approved: set[str]
    """The turned alphas that are approved (the residual set)."""


def _delta_columns(storage: Storage, root: str, current: catalogue_index.Generation) -> pa.Table | None:
    """The index's publish columns (`catalogue_index.PUBLISH_COLUMNS`) when a delta over `current`
    may be written; None when a whole generation is due: no matrices or correlation index to keep,
    an empty index or one without approvals, or no links yet over few enough alphas to link every
    pair."""
    wanted_names = {*MATRIX_BASES, *(f"{b}_days" for b in MATRIX_BASES)}
    wanted_names |= {f"{b}{k}" for b in nearest.INDEXED_BASES for k in nearest.INDEX_SUFFIXES}
    if not wanted_names <= set(current.matrices):
        return None
    slim = catalogue_index.read_index(storage, root, current, list(catalogue_index.PUBLISH_COLUMNS))
    if slim.num_rows == 0 or slim.column("approved").null_count > 0:
        return None
    if not (current.trials or {}).get("links") and slim.num_rows <= trial_links.FROM_SCRATCH_UP_TO:
        return None  # no links yet, and few enough alphas to link every pair: a whole generation
    return slim


def _prior_delta(storage: Storage, root: str, current: catalogue_index.Generation) -> pa.Table:
    """The rows of `current`'s delta (with their positions in its base), empty without one."""
    if current.delta is None:
        return CATALOGUE_INDEX.empty_table().append_column(catalogue_index.POSITION, pa.array([], pa.int64()))
    return catalogue_index._read_parquet(storage, root, current.delta.index, None)


def _flags(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False), bool)


def _subset(
    slim: pa.Table, chosen: np.ndarray, approved_mask: np.ndarray, committed: Mapping[str, dict[str, Any]]
) -> _Subset:
    """The turned rows `chosen` (positions in `slim`) and the `committed` rows, each committed row
    placed among the others by a binary search on the catalogue's order keys."""
    picked = slim.take(pa.array(chosen))
    chosen_ids = picked.column("alpha_id").to_pylist()
    position = dict(zip(chosen_ids, chosen.tolist(), strict=True))
    listed_of = dict(zip(chosen_ids, picked.column("score_neighbours").to_pylist(), strict=True))
    build_of = dict(zip(chosen_ids, picked.column("build_id").to_pylist(), strict=True))
    approved_ids = {a for a, ok in zip(chosen_ids, approved_mask[chosen], strict=True) if ok}
    keys = {alpha: catalog.catalogue_order(row) for alpha, row in committed.items()}
    # Where each committed row goes among the others (merged order): binary search on the keys.
    others = list(zip(chosen.tolist(), chosen_ids, strict=True))
    subset: list[tuple[float, str]] = [(float(r), a) for r, a in others]
    merged_keys = _Ordered(slim.column("started_at"), slim.column("alpha_id"))
    for alpha, key in keys.items():
        subset.append((bisect.bisect_left(merged_keys, key) - 0.5, alpha))
    subset.sort(key=lambda item: (item[0], keys.get(item[1], (False, 0.0, ""))))
    order = [alpha for _, alpha in subset]
    rows = [
        {"alpha_id": a, "build_id": committed[a]["build_id"] if a in committed else build_of[a]}
        for a in order
    ]
    return _Subset(order, rows, position, listed_of, approved_ids)


def _sub_matrices(
    storage: Storage,
    root: str,
    current: catalogue_index.Generation,
    matrix_order: list[str],
    committed: Mapping[str, dict[str, Any]],
    position: Mapping[str, int],
) -> dict[str, np.ndarray] | None:
    """The returns and IC matrices over `matrix_order`: the committed rows' from their series, the
    others' read from the generation's (None when it has none)."""
    sub_matrices: dict[str, np.ndarray] = {}
    other_positions = np.array([position[a] for a in matrix_order if a not in committed], dtype=np.int64)
    other_ids = [a for a in matrix_order if a not in committed]
    for basis in ("returns", "ic"):
        gathered = _gathered(storage, root, current, basis, other_positions)
        if gathered is None:
            return None
        fresh = {a: r[SERIES][basis] for a, r in committed.items() if basis in r.get(SERIES, {})}
        sub_matrices[f"{basis}_days"], sub_matrices[basis] = aligned(
            matrix_order, fresh, (other_ids, *gathered)
        )
    return sub_matrices


def _with_residuals(
    storage: Storage,
    root: str,
    current: catalogue_index.Generation,
    committed: dict[str, dict[str, Any]],
    matrix_order: list[str],
    sub_matrices: Mapping[str, np.ndarray],
    approved_ids: Collection[str],
) -> None:
    """Sets the committed rows' residual columns and approval: `catalogue_residual`'s figures over
    the rows of the approved alphas (the only ones a residual set reads) and each row's own."""
    at = {alpha: row for row, alpha in enumerate(matrix_order)}
    if committed:
        matrix = Matrix(
            "", at, pa.array(matrix_order, pa.string()), sub_matrices["returns_days"], sub_matrices["returns"]
        )
        per_year = np.full(len(matrix_order), catalogue_residual.DEFAULT_SESSIONS_PER_YEAR, dtype=np.int64)
        for alpha in committed:
            per_year[at[alpha]] = catalogue_residual._sessions_per_year(_table([committed[alpha]]))[0]
        figures = index_figures(
            matrix,
            np.array([a in approved_ids for a in matrix_order], dtype=bool),
            per_year,
            catalogue_residual.market_series(
                storage, root, catalogue_residual.current_market(current.benchmarks)
            ),
            [at[alpha] for alpha in committed],
        )
        for alpha in committed:
            for name, value in zip(RESIDUAL_COLUMNS, figures[at[alpha]], strict=True):
                committed[alpha][name] = value
    for alpha in committed:
        committed[alpha]["approved"] = alpha in approved_ids


def _lists_before(
    subset: _Subset,
    eligible_order: list[str],
    committed: Mapping[str, dict[str, Any]],
    removed: Collection[str],
    previous: Mapping[str, dict[str, Any]],
) -> dict[str, str | None]:
    """Each list's path before the delta: the turned alphas' as the index holds them, the committed
    and removed alphas' as their previous rows named them."""
    before = {a: subset.listed_of[a] for a in eligible_order if a not in committed}
    before.update({a: previous[a]["score_neighbours"] for a in committed if a in previous})
    before.update({a: previous[a]["score_neighbours"] for a in removed if a in previous})
    return before


def _delta_lists(
    storage: Storage,
    root: str,
    slim: pa.Table,
    listed: np.ndarray,
    subset: _Subset,
    committed: dict[str, dict[str, Any]],
    removed: Collection[str],
    previous: Mapping[str, dict[str, Any]],
    open_rows: Mapping[str, set[str]] | None,
    scored: Mapping[str, Any],
    sub_matrices: Mapping[str, np.ndarray],
    at: Mapping[str, int],
) -> catalogue_neighbours.Lists:
    """The score neighbours over the alphas with lists (the candidates) and the committed ones; each
    committed row names its new list."""
    eligible_order = [a for a in subset.order if a in committed or subset.listed_of[a] is not None]
    row_of = {alpha: row for row, alpha in enumerate(subset.order)}
    before = _lists_before(subset, eligible_order, committed, removed, previous)
    picked = None if open_rows is None else _chosen(eligible_order, open_rows, scored, at, sub_matrices)
    list_rows = [subset.rows[row_of[a]] for a in eligible_order]
    known_builds = {row["alpha_id"]: row["build_id"] for row in list_rows if row.get("build_id")}

    listed_rows = _ListedRows(slim, listed)

    def resolve(alphas: Collection[str]) -> list[tuple[str, str, str]]:
        found = listed_rows(alphas)
        known_builds.update((alpha, build) for alpha, build, _ in found)
        return found

    lists = catalogue_neighbours.update(
        list_rows,
        {}
        if picked is not None
        else {name: sub_matrices[name][[at[a] for a in eligible_order]] for name in ("returns", "ic")},
        {alpha: row.get(SCORES) for alpha, row in committed.items()},
        before,
        partial(_read_list, storage, root),
        lambda alpha: read_scores(storage, root, alpha, known_builds[alpha]),
        catalogue_neighbours.NEIGHBOURS,
        catalogue_neighbours.CANDIDATES,
        picked,
        None if open_rows is None else resolve,
    )
    for alpha, path in lists.paths.items():
        if alpha in committed:
            committed[alpha]["score_neighbours"] = path
    return lists


def _overridden(
    delta: catalogue_index.Delta | None, leaving: Collection[str], lists: catalogue_neighbours.Lists
) -> dict[str, str | None]:
    """The lists the delta overrides: the earlier delta's, those of the alphas leaving dropped, the
    lists this update wrote."""
    overridden = {} if delta is None else dict(delta.lists)
    for alpha in leaving:
        overridden.pop(alpha, None)
    overridden.update({a: p for a, p in lists.paths.items() if a not in leaving})
    return overridden


def _delta_rows(
    delta: catalogue_index.Delta | None,
    prior: pa.Table,
    base_ids: pa.Table,
    committed: Mapping[str, dict[str, Any]],
    removed: list[str],
    leaving: Collection[str],
) -> tuple[pa.Table, list[str]]:
    """The delta's rows (the earlier delta's, those replaced or removed now gone, the committed
    ones, each with its position in the base) and the base's rows it removes."""
    kept = prior.filter(
        pc.invert(pc.is_in(prior.column("alpha_id"), value_set=pa.array(list(leaving), pa.string())))
    )
    new_rows = _table(_ordered(list(committed.values())))
    base_order = _Ordered(base_ids.column("started_at"), base_ids.column("alpha_id"))
    new_positions = [
        bisect.bisect_left(base_order, catalog.catalogue_order(row)) for row in new_rows.to_pylist()
    ]
    new_rows = new_rows.append_column(catalogue_index.POSITION, pa.array(new_positions, pa.int64()))
    every = pa.concat_tables(
        [
            catalogue_index.conformed(kept).append_column(
                catalogue_index.POSITION, kept.column(catalogue_index.POSITION)
            ),
            new_rows,
        ]
    )
    every = _in_catalogue_order(every)
    in_base = pc.is_in(pa.array(removed, pa.string()), value_set=base_ids.column("alpha_id")).to_pylist()
    base_removed = sorted(
        {*(delta.removed if delta else []), *(a for a, there in zip(removed, in_base, strict=True) if there)}
        - set(committed)
    )
    return every, base_removed


def _delta_matrices(
    storage: Storage,
    root: str,
    delta: catalogue_index.Delta | None,
    prior: pa.Table,
    every: pa.Table,
    committed: Mapping[str, dict[str, Any]],
) -> dict[str, np.ndarray]:
    """The delta's matrices: its rows' series, on the dates they hold, and their correlation index."""
    matrices: dict[str, np.ndarray] = {}
    delta_ids = every.column("alpha_id").to_pylist()
    for basis in MATRIX_BASES:
        fresh = {a: r[SERIES][basis] for a, r in committed.items() if basis in r.get(SERIES, {})}
        earlier = None
        if delta is not None:
            days = catalogue_index._load(storage, root, delta.matrices.get(f"{basis}_days"), False)
            values = catalogue_index._load(storage, root, delta.matrices.get(basis), False)
            if days is not None and values is not None:
                earlier = (prior.column("alpha_id").to_pylist(), days, values)
        matrices[f"{basis}_days"], matrices[basis] = aligned(delta_ids, fresh, earlier)
        if basis in nearest.INDEXED_BASES:  # each row's own (analytics/nearest.py)
            matrices.update(nearest.index_matrices(basis, matrices[basis], matrices[f"{basis}_days"]))
    return matrices


def _delta_sums(
    current: catalogue_index.Generation,
    slim: pa.Table,
    previous: Mapping[str, dict[str, Any]],
    leaving: Collection[str],
    committed: Mapping[str, dict[str, Any]],
) -> trial_sums.TrialSums:
    """The trials' sums: the replaced Sharpe ratios out, the new ones in (exact)."""
    sums = trial_sums.TrialSums.parse(current.trials)
    if sums is None:
        sums = trial_sums.of_column(
            np.asarray(
                pc.fill_null(slim.column("sharpe_per_session").cast(pa.float64()), math.nan).to_numpy(
                    zero_copy_only=False
                )
            )
        )
    sums = sums.minus(previous[a].get("sharpe_per_session") for a in leaving if a in previous)
    return sums.plus(committed[a].get("sharpe_per_session") for a in committed)


def _trials_after(
    slim: pa.Table, gone: np.ndarray, committed: Mapping[str, dict[str, Any]]
) -> tuple[pa.Array, np.ndarray]:
    """The trials after a delta's change, (ids, Sharpe per session) (a pass over N)."""
    ids = pa.concat_arrays(
        [
            pc.filter(slim.column("alpha_id"), pa.array(~gone)).combine_chunks(),
            pa.array(list(committed), pa.string()),
        ]
    )
    own = [math.nan if (v := committed[a].get("sharpe_per_session")) is None else float(v) for a in committed]
    return ids, np.concatenate([trial_links.sharpes_of(slim)[~gone], np.array(own, dtype=np.float64)])


def _delta_update(
    storage: Storage,
    root: str,
    rows: Mapping[str, dict[str, Any] | None],
    current: catalogue_index.Generation,
) -> catalogue_index.NextDelta | None:
    """The delta generation over `current` that commits `rows` (alpha -> its row, None: no longer
    published), or None when a whole generation is due: no matrices or correlation index to keep,
    a residual set that moved (every row), or a delta past COMPACT_ROWS. Reads a few columns of
    every alpha (`catalogue_index.PUBLISH_COLUMNS`), the rows and matrix rows it changes, those of the approved alphas and of the
    alphas with score neighbour lists (the candidates), never the whole index or matrices."""
    slim = _delta_columns(storage, root, current)
    if slim is None:
        return None
    delta = current.delta
    base_ids = catalogue_index.base_columns(storage, root, current, ["alpha_id", "started_at"])
    prior = _prior_delta(storage, root, current)
    previous = _rows_of(slim, list(rows))
    committed, removed, changes = _still_current(storage, root, rows, previous)
    if not changes:
        return None
    # The residual set: the approved alphas; a republished approved alpha moves every row's.
    # Only the rows of the approved alphas and of the alphas with lists (the candidates) are turned
    # into Python objects (vectorised over the N others).
    leaving = set(committed) | set(removed)
    approved_mask = _flags(pc.fill_null(slim.column("approved"), False))
    has_list = _flags(pc.is_valid(slim.column("score_neighbours")))
    gone = _is_in(slim.column("alpha_id"), pa.array(list(leaving), pa.string()))
    if (approved_mask & gone).any():
        return None
    # For the score neighbours, the rows the correlation index leaves open among each committed
    # alpha's candidates (or, where it cannot decide, every alpha's with a list).
    scored = {a: r.get(SERIES, {}) for a, r in committed.items() if r.get(SCORES) is not None}
    listed = has_list & ~gone
    base_gaps: dict[str, np.ndarray] = {}  # the base's gap lists, where this pass made them
    open_rows = _open_rows(storage, root, current, slim.column("alpha_id"), listed, scored, base_gaps)
    # The rows turned into Python objects: the approved alphas (the residual set) and the alphas
    # with a list, or, where the index decided, only the open candidates: the alphas the lists
    # read name are looked up as they are read (`_listed_rows`), never every listed row (issue 63,
    # item 3: 3.9 s of CPU at 10^6 alphas with lists).
    turned = _turned(slim, approved_mask, has_list, open_rows)
    subset = _subset(slim, np.flatnonzero(turned & ~gone), approved_mask, committed)
    # Matrix rows read: the committed ones' from their series; the approved alphas' (the residual
    # set); the open candidates' (or every alpha's with a list).
    read = (
        set(subset.order)
        if open_rows is None
        else {*committed, *subset.approved, *(a for s in open_rows.values() for a in s)}
    )
    matrix_order = [a for a in subset.order if a in read]
    sub_matrices = _sub_matrices(storage, root, current, matrix_order, committed, subset.position)
    if sub_matrices is None:
        return None
    _with_residuals(storage, root, current, committed, matrix_order, sub_matrices, subset.approved)
    at = {alpha: row for row, alpha in enumerate(matrix_order)}
    lists = _delta_lists(
        storage, root, slim, listed, subset, committed, removed, previous, open_rows, scored, sub_matrices, at
    )
    overridden = _overridden(delta, leaving, lists)
    every, base_removed = _delta_rows(delta, prior, base_ids, committed, removed, leaving)
    if every.num_rows > COMPACT_ROWS or len(overridden) > COMPACT_ROWS:
        return None
    matrices = _delta_matrices(storage, root, delta, prior, every, committed)
    sums = _delta_sums(current, slim, previous, leaving, committed)
    # The trials' links and clusters (pipeline/trial_links.py): the changed alphas' dropped, the
    # committed ones' added; the clusters counted over the trials after this change.
    links = _links_of_delta(
        storage,
        root,
        current,
        base_ids.column("alpha_id"),
        prior.column("alpha_id").to_pylist(),
        leaving,
        committed,
    )
    return catalogue_index.NextDelta(
        current,
        every,
        base_removed,
        matrices,
        overridden,
        dict(current.benchmarks),
        changes,
        lists.files | links.files,
        lists.retired + links.retired,
        catalogue_bound.with_bound(
            trial_links.document(sums.document(), links, partial(_trials_after, slim, gone, committed)),
            catalogue_bound.delta((current.trials or {}).get("ras"), matrices),
        ),
        base_gaps,
    )


def compact(root: str, force: bool = False) -> int | None:
    """Rewrites the catalogue whole (a new base, the delta folded in) when the newest generation's
    delta holds COMPACT_AFTER rows or list changes (any, with `force`); returns the new generation's
    number, None when nothing was due. Every row and matrix row as the delta holds it."""
    storage = Storage(root)
    newest = catalogue_index.newest(storage, root)
    if newest is None or newest.delta is None:
        return None
    if not force:
        size = len(newest.delta.lists)
        size += catalogue_index._read_parquet(storage, root, newest.delta.index, ["alpha_id"]).num_rows
        if size < COMPACT_AFTER:
            return None

    def update(current: catalogue_index.Generation | None, index: pa.Table | None) -> catalogue_index.Next:
        assert current is not None and index is not None
        matrices: dict[str, np.ndarray] = {}
        for name in current.matrices:
            # the index written again below (and a generation before it had sketches: not kept)
            if name.endswith(
                (*nearest.INDEX_SUFFIXES, *nearest.GAP_SUFFIXES, "_sketch", "_axes", "_present")
            ):
                continue
            found = catalogue_index.read_matrix(storage, root, current, name)
            if found is not None:
                matrices[name] = found
        for basis in nearest.INDEXED_BASES:
            if basis in matrices:
                matrices.update(nearest.index_matrices(basis, matrices[basis], matrices[f"{basis}_days"]))
        return catalogue_index.Next(
            index,
            dict(current.benchmarks),
            [{"compacted": current.number}],
            matrices,
            {},
            [],
            # The bound's complexity over every row again (a delta's was base + delta: an upper bound).
            catalogue_bound.with_bound(
                current.trials if current.trials is not None else _sums_of(index),
                catalogue_bound.whole(matrices),
            ),
        )

    return catalogue_index.commit(storage, root, update).number
