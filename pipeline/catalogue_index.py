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

import json
import math
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
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
from analytics.returns import daily_returns
from analytics.significance import moments
from datasets import catalog, catalogue_index, layout
from datasets.build_view import BuildView
from datasets.faults import CorruptLakeFile
from datasets.local_cache import LocalCache
from pipeline import catalogue_neighbours, catalogue_residual
from schemas.bodies.metrics import Stat
from schemas.lake import CATALOGUE_INDEX, SCORE_NEIGHBOURS

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


def build_row(view: BuildView, scores: bool = True, approved: date | None = None) -> dict[str, Any]:
    """The index row of one opened build (with its scores, for a publish to pair, when `scores`);
    `approved`: the as_of of the alpha's latest approval, its live columns' split (None: the seal's
    research_cutoff, else the first publish)."""
    entry = view.entry
    description = view.json(layout.DESCRIPTION_JSON) or {}
    classification = description.get("classification") or {}
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
    tags = classification.get("tags")
    return {
        "alpha_id": view.alpha_id,
        "build_id": view.build_id,
        "name": entry.get("name") or view.alpha_id,
        "tldr": entry.get("tldr"),
        "started_at": None if entry.get("started_at") is None else str(entry["started_at"]),
        "complete": bool(entry.get("complete", False)),
        "structure": _text(classification.get("structure")),
        "method": _text(classification.get("method")),
        "tags": [str(t) for t in tags] if isinstance(tags, list) else None,
        "pipeline_version": entry.get("pipeline_version"),
        "built_at": entry.get("built_at"),
        "indexed_at": datetime.now(UTC),
        "information_ratio": _value(core.information_ratio),
        "excess_sharpe": _value(core.excess_sharpe),
        "mean_ic": _value(core.ic),
        "icir_annualised": _value(core.icir),  # /metrics serves it annualised for every run (analytics/ic.py)
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
    storage: Storage, root: str, alpha_id: str, scores: bool = True, approved: date | None = None
) -> dict[str, Any] | None:
    """The row of `alpha_id`'s current build (its live columns split at `approved` when given);
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
            found.update(nearest.index_matrices(basis, found[basis]))
    return found


def _pointed(storage: Storage, root: str, alpha_id: str) -> str | None:
    try:
        published = catalog.current_build(root, alpha_id, storage)
    except CorruptLakeFile:
        return None
    return None if published is None else published.build_id


def _current(row: dict[str, Any] | None, storage: Storage, root: str, alpha_id: str) -> bool:
    """Whether `row` still describes what the alpha's pointer names."""
    if row is not None and row.get("unreadable"):
        return True
    return (None if row is None else row["build_id"]) == _pointed(storage, root, alpha_id)


def _approvals_of(
    storage: Storage, root: str, generation: catalogue_index.Generation | None
) -> dict[str, date]:
    """alpha -> the approval split its row in `generation` was computed at (live_split_origin
    approval): kept by the next row of the alpha, as the approval stays where its live part starts."""
    if generation is None:
        return {}
    index = catalogue_index.read_index(
        storage, root, generation, ["alpha_id", "live_split", "live_split_origin"]
    )
    if "live_split_origin" not in index.column_names:
        return {}  # written before the live columns
    return {
        alpha: split
        for alpha, split, origin in zip(
            *(index.column(n).to_pylist() for n in ("alpha_id", "live_split", "live_split_origin")),
            strict=True,
        )
        if origin == "approval" and split is not None
    }


def live_refreshed(
    storage: Storage, root: str, alpha_id: str, build_id: str, approved: date
) -> dict[str, Any]:
    """The live columns of `alpha_id`'s build `build_id` split at `approved` (the build's ledger and
    weekly IC read, nothing else)."""
    build = catalog.PublishedBuild(alpha_id, build_id, layout.alpha_build_dir(root, alpha_id, build_id))
    entry = catalog.read_alpha(root, build, storage)
    with opened(storage, build, entry, tables=("portfolio", "weekly_signal")) as view:
        return live.index_columns(view, approved)


def record(
    root: str,
    alpha_ids: Sequence[str] = (),
    benchmarks: Sequence[str] = (),
    approvals: Mapping[str, date] | None = None,
    in_force: Collection[str] | None = None,
) -> int:
    """Commits the rows of `alpha_ids` (their current builds) and the current builds of
    `benchmarks` as the next generation; returns its number. `approvals` (alpha -> the as_of of its
    latest approval, what `alpha-results promote` and `retire` pass) records those alphas' live
    columns at their approval: a row already naming the current build gets its live columns alone
    computed again (its matrices and score neighbours are those of the same build).

    A row is committed only while the alpha's pointer still names its build: a publish of a newer
    build that switched the pointer meanwhile commits its own row, after this one or before.
    `in_force`: the approved alphas, in force in the live book after a decision (what `promote` and
    `retire` pass), the default reference set of the residual columns
    (`pipeline.catalogue_residual`); None keeps the set the index records."""
    storage = Storage(root)
    newest = catalogue_index.newest(storage, root)
    indexed: dict[str, str | None] = {}
    if newest is not None:
        index = catalogue_index.read_index(storage, root, newest).select(["alpha_id", "build_id"])
        indexed = dict(zip(*(index.column(n).to_pylist() for n in ("alpha_id", "build_id")), strict=True))
    in_force = None if in_force is None else frozenset(in_force)
    approved_before: frozenset[str] = frozenset()
    if newest is not None and in_force is not None:
        approved_before = catalogue_residual.approved_in(
            catalogue_index.read_index(storage, root, newest, ["alpha_id", "approved"])
        )
    approved = _approvals_of(storage, root, newest) | dict(approvals or {})
    named = [*alpha_ids, *(a for a in approvals or {} if a not in alpha_ids)]
    todo = [a for a in named if a not in indexed or indexed[a] != _pointed(storage, root, a)]
    moved = [
        s
        for s in benchmarks
        if newest is None or newest.benchmarks.get(s) != _benchmark_build(storage, root, s)
    ]
    # An approval of an alpha whose row names its current build: its live columns only.
    refreshed = {
        alpha: (build, live_refreshed(storage, root, alpha, build, approved[alpha]))
        for alpha in approvals or {}
        if alpha not in todo and (build := indexed.get(alpha)) is not None
    }
    if (
        newest is not None
        and not todo
        and not moved
        and not refreshed
        and in_force in (None, approved_before)
    ):
        return newest.number  # the index already names every current build and approved set
    rows = {alpha: alpha_row(storage, root, alpha, approved=approved.get(alpha)) for alpha in todo}

    def update(current: catalogue_index.Generation | None, index: pa.Table | None) -> catalogue_index.Next:
        # Columnar: the other alphas' rows are never turned into Python objects (at 10,000 alphas
        # that alone took longer than the whole step's target).
        known = {} if current is None else dict(current.benchmarks)
        kept = _conformed(index)
        listed_before = _lists_of(kept)
        previous = _rows_of(kept, [*rows, *refreshed])
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
                    "live_split": str(columns["live_split"]),
                }
            )
        for alpha, row in rows.items():
            if not _current(row, storage, root, alpha):
                continue  # a newer publish of this alpha commits its own row
            before_row = previous.get(alpha)
            if row is not None:
                committed[alpha] = _replacing(row, before_row)
            before = None if before_row is None else before_row.get("build_id")
            after = None if row is None else row.get("build_id")
            changes.append({"alpha_id": alpha, "build_id": after, "previous": before})
        for symbol in moved:
            build = _benchmark_build(storage, root, symbol)
            if build is not None:
                known[symbol] = build
        leaving = pa.array([change["alpha_id"] for change in changes], pa.string())
        kept = kept.filter(pc.invert(pc.is_in(kept.column("alpha_id"), value_set=leaving)))
        table = _in_catalogue_order(pa.concat_tables([kept, _table(list(committed.values()))]))
        ordered = [
            {"alpha_id": alpha, "build_id": build}
            for alpha, build in zip(
                *(table.column(n).to_pylist() for n in ("alpha_id", "build_id")), strict=True
            )
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
        return catalogue_index.Next(
            _with_list_paths(table, lists), known, changes, matrices, lists.files, lists.retired
        )

    return catalogue_index.commit(storage, root, update).number


def rebuild(
    root: str, rows: Iterable[dict[str, Any] | None] | None = None, pair_all: PairAll | None = None
) -> int:
    """Commits an index of every published alpha and every published benchmark, every score
    neighbours list made anew; returns the generation number. The rows and the pairings are computed
    here unless given (by Dask tasks: `rows`, `pair_all`), once: a publish that commits meanwhile
    makes the commit retry on its generation, and its alpha keeps the row (and list) it committed."""
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
        split = (row.get("live_split_origin"), row.get("live_split"))
        if alpha in approved and row.get("build_id") and split != ("approval", approved[alpha]):
            row.update(live_refreshed(storage, root, alpha, row["build_id"], approved[alpha]))
    symbols = storage.list_names(layout.benchmarks_dir(root))
    ordered = _ordered(computed)
    eligible = np.array([_has_decisions(row) for row in ordered], dtype=bool)
    matrices = _matrices(
        storage, root, [row["alpha_id"] for row in ordered], {r["alpha_id"]: r for r in ordered}, None, None
    )
    plan = catalogue_neighbours.plan(ordered, matrices, eligible, catalogue_neighbours.CANDIDATES)
    found = (pair_all or pair_locally)(root, plan)
    found += (pair_all or pair_locally)(root, catalogue_neighbours.second_hop(ordered, eligible, found))

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
        return catalogue_index.Next(
            _with_list_paths(table, lists),
            benchmarks,
            [{"rebuilt": len(kept)}],
            following,
            lists.files,
            lists.retired,
        )

    return catalogue_index.commit(storage, root, update).number


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
    cache: dict[str, pl.DataFrame | None] = {}

    def read(alpha: str) -> pl.DataFrame | None:
        if alpha not in cache:
            cache[alpha] = read_scores(storage, root, alpha, builds[alpha])
        return cache[alpha]

    return [
        (alpha, catalogue_neighbours.pair_task(alpha, build, others, read)) for alpha, build, others in plan
    ]


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
    try:
        current = catalog.current_benchmark(root, symbol, storage)
    except CorruptLakeFile:
        return None
    return None if current is None else current.build_id
