"""The catalogue index: every published alpha in one table, in numbered generations.

    {root}/catalogue/generations/{g:012d}.json         generation g: its index, benchmarks, changes
    {root}/catalogue/index/{g:012d}-{token}.parquet    the index of generation g, one row per alpha
    {root}/catalogue/matrices/{g:012d}-{token}/{name}.npy   date-aligned matrices (returns, ic)
    {root}/catalogue/index/{g:012d}-{token}.columns.arrow   the columns a publish reads of every
                                                       row of a whole generation g (`PUBLISH_COLUMNS`)
    {root}/catalogue/neighbours/{alpha_id}/{token}.parquet  an alpha's score neighbours (a list is
                                                       rewritten, under a new name, when it changes)
    {root}/catalogue/latest.json                       a hint: a recent generation number

A reader (a worker, an analyst) reads the index instead of every alpha's pointer: an idle refresh
asks for generation g+1 (one GET that finds nothing), and only when it exists reads the new index.
The writers (`commit`, called by every publish and by `alpha-results lake index`) never overwrite
anything: generation g+1 is created exclusively (a link on a local folder, a conditional PUT with
`If-None-Match: *` on S3), so of two concurrent writers one wins and the other reads the winner's
index and tries g+2. The index rows are computed by the pipeline (`pipeline/index_rows.py`);
this module only stores, finds and reads them (docs/lake.md, "The catalogue index").
"""

from __future__ import annotations

import io
import json
import logging
import math
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from alpha_results_seal.storage import Storage
from datasets import clock, layout, pins
from datasets.faults import CorruptLakeFile
from schemas.lake import CATALOGUE_INDEX, INDEX_RENAMED, UTC_TS

log = logging.getLogger("datasets.catalogue_index")

CATALOGUE_DIR = "catalogue"
WRITERS = 8
"""Threads writing a generation's files (the score neighbour lists it changed)."""
KEEP_GENERATIONS = 8
"""Generations (and their index, matrices and retired lists) kept behind the newest, however old."""
RETENTION_SECONDS = 4 * layout.MAX_REFRESH_SECONDS
"""How long an older generation is kept after it was written. A worker moves to the newest
generation at every refresh (at most `layout.MAX_REFRESH_SECONDS` apart) and reads its index at
once; its matrices and lists it reads by requests of that refresh interval (a file a local worker
has mapped stays readable after deletion; an S3 worker copies what it reads). Files of a
generation four refresh intervals old are read by no one."""


def catalogue_dir(root: str) -> str:
    return layout.join(root, CATALOGUE_DIR)


def generation_path(root: str, number: int) -> str:
    return layout.join(catalogue_dir(root), "generations", f"{number:012d}.json")


def latest_path(root: str) -> str:
    return layout.join(catalogue_dir(root), "latest.json")


@dataclass(frozen=True)
class Generation:
    number: int
    index: str  # path of its index file relative to the catalogue folder
    written_at: str
    benchmarks: dict[str, str] = field(default_factory=dict)  # symbol -> build_id
    changes: list[dict[str, Any]] = field(default_factory=list)  # alpha_id, build_id, previous
    matrices: dict[str, str] = field(default_factory=dict)  # name -> .npy path in the catalogue folder
    retired: list[str] = field(default_factory=list)  # files (catalogue folder) this one no longer names
    delta: Delta | None = None  # the rows this generation changes over its base's files (`index`, `matrices`)
    trials: dict[str, Any] | None = None  # the trials' exact sums (`TrialSums.document`)
    known_at: str | None = None
    """When it was committed by our clock (`datasets.clock`, ISO 8601 with microseconds): the moment
    from which it is what the API serves, which a read route's `as_of` finds (`generation_at`). None
    in a generation written before issue 64 (its `written_at` stands for it)."""
    columns: str | None = None
    """The path (catalogue folder) of its base's `PUBLISH_COLUMNS` file, an uncompressed Arrow IPC
    file a publish maps instead of decoding the base's Parquet; None in a generation written before
    it (issue 63, item 3: the first publish onto such a base writes it)."""

    def document(self) -> dict[str, Any]:
        found = {
            "generation": self.number,
            "index": self.index,
            "written_at": self.written_at,
            "benchmarks": self.benchmarks,
            "changes": self.changes,
            "matrices": self.matrices,
            "retired": self.retired,
        }
        if self.delta is not None:
            found["delta"] = self.delta.document()
        if self.trials is not None:
            found["trials"] = self.trials
        if self.known_at is not None:
            found["known_at"] = self.known_at
        if self.columns is not None:
            found["columns"] = self.columns
        return found

    @property
    def known(self) -> datetime | None:
        """`known_at` (else `written_at`) as an aware time; None when unreadable."""
        try:
            return datetime.fromisoformat((self.known_at or self.written_at).replace("Z", "+00:00"))
        except ValueError:
            return None

    @property
    def base(self) -> int:
        """The number of the generation whose full index and matrices this one names."""
        return self.number if self.delta is None else self.delta.base


@dataclass(frozen=True)
class Delta:
    """What a delta generation changes over the full files of its base generation (docs/lake.md,
    "Delta generations"): `index`, the changed alphas' whole rows (every alpha changed since the
    base: deltas are cumulative, so a reader merges one base and one delta), each with the position
    in the base before which it goes (`_position`); `removed`, the alphas of the base no longer
    indexed; `matrices`, the changed rows of each matrix on their own dates (`{basis}_days`) with
    their correlation index (`{basis}_z`, `{basis}_span`: each row's own); `lists`, the score neighbour list
    each alpha whose list changed since the base names now (its row otherwise unchanged)."""

    base: int
    index: str
    removed: list[str] = field(default_factory=list)
    matrices: dict[str, str] = field(default_factory=dict)
    lists: dict[str, str | None] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "index": self.index,
            "removed": self.removed,
            "matrices": self.matrices,
            "lists": self.lists,
        }

    @staticmethod
    def parse(document: dict[str, Any]) -> Delta:
        return Delta(
            base=int(document["base"]),
            index=str(document["index"]),
            removed=[str(a) for a in document.get("removed") or []],
            matrices={str(k): str(v) for k, v in (document.get("matrices") or {}).items()},
            lists={str(k): None if v is None else str(v) for k, v in (document.get("lists") or {}).items()},
        )


def _parse(number: int, payload: bytes, path: str) -> Generation:
    try:
        document = json.loads(payload)
        return Generation(
            number=int(document["generation"]),
            index=str(document["index"]),
            written_at=str(document["written_at"]),
            benchmarks={str(k): str(v) for k, v in (document.get("benchmarks") or {}).items()},
            changes=list(document.get("changes") or []),
            matrices={str(k): str(v) for k, v in (document.get("matrices") or {}).items()},
            retired=[str(path) for path in document.get("retired") or []],
            delta=None if document.get("delta") is None else Delta.parse(document["delta"]),
            trials=document.get("trials"),
            known_at=None if document.get("known_at") is None else str(document["known_at"]),
            columns=None if document.get("columns") is None else str(document["columns"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptLakeFile(f"{path} is not a catalogue generation: {exc}") from exc


def read_generation(storage: Storage, root: str, number: int) -> Generation | None:
    """Generation `number`; None when it does not exist (one GET, no listing)."""
    path = generation_path(root, number)
    try:
        payload = storage.read_bytes(path)
    except FileNotFoundError:
        return None
    return _parse(number, payload, path)


def _hint(storage: Storage, root: str) -> int:
    try:
        return int(json.loads(storage.read_bytes(latest_path(root)))["generation"])
    except FileNotFoundError:
        return 0
    except (ValueError, KeyError, TypeError):
        return 0  # only a hint: the generations are the truth


def _listed(storage: Storage, root: str, folder: str) -> list[tuple[int, str]]:
    """(generation number, name) of the files of a catalogue folder, oldest first."""
    found = []
    for name in storage.list_names(layout.join(catalogue_dir(root), folder)):
        stem = name.split(".")[0].split("-")[0]
        if stem.isdigit():
            found.append((int(stem), name))
    return sorted(found)


def listed_generations(storage: Storage, root: str) -> list[tuple[int, str]]:
    """(number, file name) of every generation the lake keeps, oldest first (one listing)."""
    return _listed(storage, root, "generations")


def newest(storage: Storage, root: str, known: Generation | None = None) -> Generation | None:
    """The newest generation, found from `known` (or the hint) by asking for the next ones: an
    unchanged catalogue costs one request. None when the lake has no catalogue index."""
    current = known
    if current is None:
        start = _hint(storage, root)
        current = read_generation(storage, root, start) if start else None
    if current is None:  # no hint, or one that names a collected generation: one listing
        listed = listed_generations(storage, root)
        if not listed:
            return None
        current = read_generation(storage, root, listed[-1][0])
        if current is None:
            return None
    while (following := read_generation(storage, root, current.number + 1)) is not None:
        current = following
    if current is known and _age(current) >= RETENTION_SECONDS:
        # The next generations of a reader that fell this far behind (a paused process) may have
        # been collected: the hint names a recent one. One more request, only on a quiet catalogue.
        hinted = _hint(storage, root)
        if hinted > current.number:
            return newest(storage, root, read_generation(storage, root, hinted))
    return current


def _age(generation: Generation) -> float:
    try:
        written = datetime.strptime(generation.written_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return math.inf
    return datetime.now(UTC).timestamp() - written.timestamp()


def _read_parquet(storage: Storage, root: str, relative: str, columns: list[str] | None) -> pa.Table:
    path = layout.join(catalogue_dir(root), relative)
    try:
        # One thread: Arrow's pool threads would release the buffer over Python bytes, which at
        # interpreter exit cannot take the GIL (the process aborts).
        file = pq.ParquetFile(pa.BufferReader(storage.read_bytes(path)))
        stored = file.schema_arrow.names
        if columns is not None:
            columns = [c for c in dict.fromkeys(_stored_name(c, stored) for c in columns) if c in stored]
        return upgraded(file.read(columns=columns, use_threads=False))
    except (pa.ArrowException, ValueError) as exc:
        raise CorruptLakeFile(f"{path} is not a catalogue index: {exc}") from exc


_STORED_AS = {new: old for old, new in INDEX_RENAMED.items()}


def _stored_name(column: str, stored: list[str]) -> str:
    """The column of an index file holding `column`: its old name in a file written before
    `INDEX_RENAMED` (which lacks the new one)."""
    old = _STORED_AS.get(column)
    return old if old is not None and column not in stored and old in stored else column


def upgraded(table: pa.Table) -> pa.Table:
    """An index file's table as the current pipeline writes it (issue 65, item 7): the figure columns
    under their vocabulary names (`INDEX_RENAMED`), `started_at` and `built_at` as instants (they were
    ISO text), every instant in microseconds (`indexed_at` was milliseconds, `replaced_at` seconds).
    A file that holds `mean_ic` without `icir_annualised` was written before the ICIR had one basis:
    its `icir` (as each run sealed it) is dropped, never read as the annualised one. What a current
    file holds passes unchanged; a column the schema does not declare (the delta's position) too."""
    names = table.column_names
    if "mean_ic" in names and "icir_annualised" not in names and "icir" in names:
        table = table.drop_columns(["icir"])
    table = table.rename_columns([INDEX_RENAMED.get(n, n) for n in table.column_names])
    for name in ("started_at", "built_at", "indexed_at", "replaced_at"):
        if name in table.column_names and table.schema.field(name).type != UTC_TS:
            at = table.column_names.index(name)
            table = table.set_column(at, name, _instants(table.column(name)))
    return table


def _instants(column: pa.ChunkedArray) -> pa.Array:
    """A time column of an older index in microseconds, UTC: a timestamp cast (no value changes), or
    ISO 8601 text parsed as `catalog.catalogue_order` parses it (without an offset: UTC; unreadable:
    null, which sorts last as it did)."""
    if pa.types.is_timestamp(column.type):
        return column.cast(UTC_TS)
    return pa.array(instants(column.to_pylist()), UTC_TS)


def instants(texts: list[Any]) -> list[datetime | None]:
    """ISO 8601 times (alpha.json's `started_at`, `built_at`) as aware instants: without an offset
    UTC, unreadable or absent None (`catalog.catalogue_order` sorts both last, as before)."""
    found: list[datetime | None] = []
    for text in texts:
        try:
            moment = (
                text if isinstance(text, datetime) else datetime.fromisoformat(str(text)) if text else None
            )
        except ValueError:
            moment = None
        found.append(moment if moment is None or moment.tzinfo is not None else moment.replace(tzinfo=UTC))
    return found


PUBLISH_COLUMNS = (
    "alpha_id",
    "build_id",
    "started_at",
    "score_neighbours",
    "approved",
    "previous_build_id",
    "replaced_at",
    "sharpe_per_session",
    "live_split_origin",
    "live_approved_at",
    "live_retired_at",
)
"""The index columns a publish reads of every row (`pipeline.index_rows`: the rows it replaces,
where its rows go, the residual set, the candidates, the approvals' tenures, the trials), kept for
each base in an uncompressed Arrow IPC file (`Generation.columns`) that a publish maps instead of
decoding them from Parquet (1.0 s at 10^6 rows; issue 63, item 3). A read of the index asking
only these columns is answered from it when the generation names such a file (`Generation.columns`:
every whole generation since, and an older base once a publish has written it); else from the
Parquet."""


def base_columns(storage: Storage, root: str, generation: Generation, columns: list[str] | None) -> pa.Table:
    """`columns` (all: None) of the generation's base index, not merged with a delta: mapped from its
    `PUBLISH_COLUMNS` file when it has one and they are all there, else decoded from its Parquet."""
    if columns is not None and generation.columns is not None and set(columns) <= set(PUBLISH_COLUMNS):
        return _read_columns_file(storage, root, generation.columns, columns)
    return _read_parquet(storage, root, generation.index, columns)


def _read_columns_file(storage: Storage, root: str, relative: str, columns: list[str]) -> pa.Table:
    path = layout.join(catalogue_dir(root), relative)
    options = pa.ipc.IpcReadOptions(use_threads=False)  # as `_read_parquet`: no pool thread
    try:
        # Mapped on a local lake: only the pages of the columns a publish touches are read.
        source = pa.memory_map(path) if storage.is_local else pa.BufferReader(storage.read_bytes(path))
        table = pa.ipc.open_file(source, options=options).read_all()
    except (pa.ArrowException, ValueError) as exc:
        raise CorruptLakeFile(f"{path} is not a catalogue columns file: {exc}") from exc
    return table.select([c for c in dict.fromkeys(columns) if c in table.column_names])


def columns_file(index: pa.Table) -> bytes:
    """The `PUBLISH_COLUMNS` file of a base index (an index table as `read_index` returns it)."""
    names = [c for c in PUBLISH_COLUMNS if c in index.column_names]
    table = pa.table(
        [index.column(c).cast(CATALOGUE_INDEX.field(c).type) for c in names],
        schema=pa.schema([CATALOGUE_INDEX.field(c) for c in names]),
    )
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=1 << 20)
    return bytes(sink.getvalue().to_pybytes())


def read_index(
    storage: Storage, root: str, generation: Generation, columns: list[str] | None = None
) -> pa.Table:
    """The generation's index (only `columns`, those of them it has, when given), with the
    columns of `CATALOGUE_INDEX` (`conformed`) when read whole. A delta generation's is its base's
    index with the delta's rows merged in (`Delta`), in catalogue order."""
    delta = generation.delta
    if delta is None:
        found = base_columns(storage, root, generation, columns)
        return found if columns is not None else conformed(found)
    wanted = None if columns is None else list(dict.fromkeys(["alpha_id", *columns]))
    base = base_columns(storage, root, generation, wanted)
    changed = _read_parquet(storage, root, delta.index, None if wanted is None else [*wanted, POSITION])
    if columns is None:
        base, rows = conformed(base), conformed(changed)
    else:
        names = [c for c in wanted or [] if c in base.column_names]
        base = base.select(names)
        rows = pa.table(
            [
                changed.column(c).cast(base.schema.field(c).type)
                if c in changed.column_names
                else pa.nulls(changed.num_rows, base.schema.field(c).type)
                for c in names
            ],
            schema=base.schema,
        )
    kept, order = merge_sources(storage, root, generation)
    merged = _spliced(base, rows, kept, order)
    if delta.lists and "score_neighbours" in merged.column_names:
        ids = merged.column("alpha_id")
        overridden = pc.fill_null(pc.is_in(ids, value_set=pa.array(list(delta.lists), pa.string())), False)
        positions = np.flatnonzero(np.asarray(overridden.to_numpy(zero_copy_only=False)))
        if positions.size:
            paths = pa.array([delta.lists[ids[int(row)].as_py()] for row in positions], pa.string())
            where = merged.schema.get_field_index("score_neighbours")
            column = pc.replace_with_mask(
                merged.column(where).combine_chunks(), overridden.combine_chunks(), paths
            )
            merged = merged.set_column(where, merged.schema.field(where), column)
    if columns is not None:
        merged = merged.select([c for c in merged.column_names if c in columns])
    return merged


def _spliced(base: pa.Table, rows: pa.Table, kept: np.ndarray, order: np.ndarray) -> pa.Table:
    """[base rows `kept`, `rows`] in `order`, as slices of the two tables (no row copied): the base's
    kept rows are runs between the delta's rows, so the merge costs O(the delta), not O(N)."""
    sources = np.asarray(order, dtype=np.int64)
    if sources.size == 0:
        return base.slice(0, 0)
    from_base = sources < kept.size
    position = np.where(
        from_base, kept[np.minimum(sources, max(kept.size - 1, 0))] if kept.size else 0, sources - kept.size
    )
    breaks = np.flatnonzero((from_base[1:] != from_base[:-1]) | (position[1:] != position[:-1] + 1)) + 1
    starts = np.concatenate([[0], breaks])
    stops = np.concatenate([breaks, [sources.size]])
    pieces = [
        (base if from_base[start] else rows).slice(int(position[start]), int(stop - start))
        for start, stop in zip(starts.tolist(), stops.tolist(), strict=True)
    ]
    return pa.concat_tables(pieces)


POSITION = "_position"
"""A delta row's column: the row of its base's index before which it goes (catalogue order)."""


def merge_sources(storage: Storage, root: str, generation: Generation) -> tuple[np.ndarray, np.ndarray]:
    """(the base rows a delta generation keeps, the source of each row of its merged index: a
    position in [kept base rows, delta rows]), from its index files (`_merge_order`); kept for the
    last delta generation asked in a process (a publish and a worker's reads ask it of every matrix
    and column; a worker answering `as_of` two generations in turn makes it again), read-only as
    every caller shares it."""
    delta = generation.delta
    assert delta is not None
    key = (root, generation.number, delta.index)
    with _MERGED_LOCK:
        found = _ORDERS.get(key)
    if found is None:
        ids = base_columns(storage, root, generation, ["alpha_id"]).column("alpha_id")
        changed = _read_parquet(storage, root, delta.index, ["alpha_id", POSITION])
        keep, order = _merge_order(ids, changed, delta)
        found = (np.flatnonzero(keep), order)
        for shared in found:
            shared.setflags(write=False)
        with _MERGED_LOCK:
            _ORDERS.clear()
            _ORDERS[key] = found
    return found


_ORDERS: dict[tuple[str, int, str], tuple[np.ndarray, np.ndarray]] = {}
"""The merge order of the last delta generation asked (`merge_sources`): 16 MB at 10^6 alphas."""


def _merge_order(base_ids: pa.ChunkedArray, changed: pa.Table, delta: Delta) -> tuple[np.ndarray, np.ndarray]:
    """(which base rows are kept, the order of [kept base rows, delta rows] in catalogue order):
    a base row goes when the delta replaces or removes its alpha; a delta row goes before the base
    row at its position, after the delta rows before it (by position, then as stored: in catalogue
    order). The delta's rows are inserted among the kept rows' numbers (one copy, no sort of N)."""
    gone = pa.array([*changed.column("alpha_id").to_pylist(), *delta.removed], pa.string())
    keep = ~np.asarray(pc.fill_null(pc.is_in(base_ids, value_set=gone), False).to_numpy(zero_copy_only=False))
    kept = np.flatnonzero(keep)
    positions = np.asarray(changed.column(POSITION).to_numpy(zero_copy_only=False), dtype=np.int64)
    by = np.argsort(positions, kind="stable")  # a delta is stored so already: no change then
    order = np.insert(
        np.arange(kept.size, dtype=np.int64),
        np.searchsorted(kept, positions[by], "left"),
        kept.size + by.astype(np.int64),
    )
    return keep, order


def conformed(index: pa.Table) -> pa.Table:
    """`index` with the columns of `CATALOGUE_INDEX`, in its order and types: null where an index
    written by an older pipeline lacks one (until `alpha-results lake index` rewrites the rows), and
    without a column the schema no longer has (`residual_t_stat`, now `residual_t_statistic`; the
    sealed-basis `icir`, which `upgraded` drops). So no reader meets a missing column, and none reads
    an old column as if it meant what a new one means."""
    index = upgraded(index)
    return pa.table(
        [
            index.column(f.name).cast(f.type)
            if f.name in index.column_names
            else pa.nulls(index.num_rows, f.type)
            for f in CATALOGUE_INDEX
        ],
        schema=CATALOGUE_INDEX,
    )


def indexed_by_folder(storage: Storage, root: str, now: float | None = None) -> dict[str, frozenset[str]]:
    """builds folder (`layout.alpha_builds_dir` / `benchmark_builds_dir`) -> the builds readers may
    serve there, so garbage collection keeps them: the one the newest generation names, and the one
    it replaced less than `layout.BUILD_RETENTION_SECONDS` ago (a worker may still be on an older
    generation, however long ago the pointer moved: a backfill is indexed after it is built)."""
    generation = newest(storage, root)
    if generation is None:
        return {}
    wanted = ["alpha_id", "build_id", "previous_build_id", "replaced_at"]
    index = read_index(storage, root, generation, wanted)
    recently = (datetime.now(UTC).timestamp() if now is None else now) - layout.BUILD_RETENTION_SECONDS
    found = {}
    for row in index.to_pylist():
        builds = {row["build_id"]}
        replaced = row.get("replaced_at")
        if (
            row.get("previous_build_id") is not None
            and replaced is not None
            and replaced.timestamp() > recently
        ):
            builds.add(row["previous_build_id"])
        builds.discard(None)
        if builds:
            found[layout.alpha_builds_dir(root, row["alpha_id"])] = frozenset(builds)
    for symbol, build in generation.benchmarks.items():
        found[layout.benchmark_builds_dir(root, symbol)] = frozenset([build])
    return found


def indexed_builds(storage: Storage, builds_dir: str, now: float | None = None) -> frozenset[str]:
    """The builds the newest generation keeps under one builds folder (`indexed_by_folder`)."""
    root = builds_dir.rstrip("/").removesuffix("/builds").rsplit("/", 2)[0]
    return indexed_by_folder(storage, root, now).get(builds_dir.rstrip("/"), frozenset())


@dataclass(frozen=True)
class Next:
    """What a writer commits: the index, the benchmarks, what changed, the matrices (arrays by
    name, their rows aligned with the index's rows), new files (path in the catalogue folder ->
    bytes; never an existing path) and the files the index no longer names."""

    index: pa.Table
    benchmarks: dict[str, str]
    changes: list[dict[str, Any]]
    matrices: dict[str, np.ndarray] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    retired: list[str] = field(default_factory=list)
    trials: dict[str, Any] | None = None  # the trials' exact sums (`TrialSums.document`)


Update = Callable[[Generation | None, pa.Table | None], Next]
"""(newest generation or None, its index or None) -> what to commit as the next generation."""


def _load(storage: Storage, root: str, relative: str | None, mmap: bool) -> np.ndarray | None:
    if relative is None:
        return None
    path = layout.join(catalogue_dir(root), relative)
    try:
        if storage.is_local and mmap:
            found: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
        else:
            found = np.load(io.BytesIO(storage.read_bytes(path)), allow_pickle=False)
    except ValueError as exc:
        raise CorruptLakeFile(f"{path} is not a catalogue matrix: {exc}") from exc
    return found


def read_matrix(
    storage: Storage, root: str, generation: Generation, name: str, mmap: bool = True
) -> np.ndarray | None:
    """Matrix `name` of a generation (memory-mapped on a local lake); None when it has none. A
    delta generation's is its base's with the delta's rows merged in, in the index's order, on the
    dates either holds (`merged_matrix`)."""
    if generation.delta is None:
        return _load(storage, root, generation.matrices.get(name), mmap)
    return merged_matrix(storage, root, generation, name)


_MERGED: dict[tuple[str, int], dict[str, np.ndarray | None]] = {}
"""The merged matrices of the last delta generation read, (root, number) -> name -> array, each
merged once. One generation only (at
100,000 alphas its returns are 240 MB of the process's own memory; a reader's snapshot holds the
current one anyway)."""
_MERGED_LOCK = threading.Lock()


def merged_matrix(storage: Storage, root: str, generation: Generation, name: str) -> np.ndarray | None:
    delta = generation.delta
    assert delta is not None
    key = (root, generation.number)
    with _MERGED_LOCK:  # routes compute in worker threads
        cache = _MERGED.get(key)
        if cache is None:
            _MERGED.clear()
            cache = _MERGED[key] = {}
        if name in cache:
            return cache[name]
    if name.endswith(("_gapcount", "_gaps")):
        raise ValueError(f"{name}: gap lists are merged by `merged_gaps`")
    suffix = next((s for s in ("_days", "_z", "_span") if name.endswith(s)), "")
    basis = name.removesuffix(suffix)
    base_days = _load(storage, root, generation.matrices.get(f"{basis}_days"), True)
    own_days = _load(storage, root, delta.matrices.get(f"{basis}_days"), True)
    if base_days is None and own_days is None:
        cache[name] = None
        return None
    parts = [d for d in (base_days, own_days) if d is not None]
    days = np.unique(np.concatenate(parts)).astype(np.int32)
    found: np.ndarray | None
    if suffix == "_days":
        found = days
    else:
        base = _load(storage, root, generation.matrices.get(name), True)
        own = _load(storage, root, delta.matrices.get(name), True)
        found = _merged_rows(storage, root, generation, base, own, base_days, own_days, days, suffix)
    with _MERGED_LOCK:
        cache[name] = found
    return found


def _merged_rows(
    storage: Storage,
    root: str,
    generation: Generation,
    base: np.ndarray | None,
    own: np.ndarray | None,
    base_days: np.ndarray | None,
    own_days: np.ndarray | None,
    days: np.ndarray,
    suffix: str,
) -> np.ndarray | None:
    """The merged rows of one matrix: the base's kept rows and the delta's, in the index's order, on
    the merged dates; NaN where a row has no value, or for a correlation index's z rows (`_z`), zero
    (as `analytics.nearest.zrows` writes them: a row's z depends on its own values alone). An
    index's spans (`_span`) are per row, of no date column: their rows alone are merged."""
    delta = generation.delta
    assert delta is not None
    if suffix in ("_z", "_span") and (base is None or own is None):
        return None  # a side written before the index: the reader computes without it
    kept, order = merge_sources(storage, root, generation)
    rows = order.size
    where = np.empty(rows, np.int64)
    where[order] = np.arange(rows)
    if suffix == "_span":
        assert base is not None and own is not None
        spans = np.empty((rows, base.shape[1]))
        spans[where[: kept.size]] = np.asarray(base)[kept] if kept.size else 0
        spans[where[kept.size :]] = own
        return spans
    found = np.zeros((rows, days.size), np.float32) if suffix == "_z" else np.full((rows, days.size), np.nan)
    for source, source_days, targets, picked in (
        (base, base_days, where[: kept.size], kept),
        (own, own_days, where[kept.size :], None),
    ):
        if source is None or source_days is None or targets.size == 0:
            continue
        block = np.asarray(source) if picked is None else np.asarray(source)[picked]
        if source_days.size == days.size:
            found[targets] = block
        else:
            found[np.ix_(targets, np.searchsorted(days, source_days))] = block
    return found


GAPS_RECOMPUTE = -2
"""A merged gap count (`merged_gaps`): the row's lists are made from its z row by its reader (a
delta's row, or a base row whose run holds a date the delta brought; `analytics.nearest.RECOMPUTE`)."""


def read_gaps(
    storage: Storage, root: str, generation: Generation, basis: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """The stored gap lists of the correlation index on `basis` (`analytics.nearest.gap_matrices`:
    (count per row, the gaps' date columns row after row), mapped on a local lake), in the merged
    index's rows and on its dates for a delta generation (`merged_gaps`); None when its base has
    none (written before them: the reader makes them from the z rows)."""
    if generation.delta is None:
        count, columns = (
            _load(storage, root, generation.matrices.get(f"{basis}{s}"), True) for s in ("_gapcount", "_gaps")
        )
        return None if count is None or columns is None else (count, columns)
    return merged_gaps(storage, root, generation, basis)


def merged_gaps(
    storage: Storage, root: str, generation: Generation, basis: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """A delta generation's gap lists, through the merge of its z rows (`merge_sources`): each kept
    base row's stored lists, their date columns moved to the merged dates; GAPS_RECOMPUTE (no
    entries) for the delta's rows and for a base row whose run holds a date only the delta has (a
    gap of the merged row its base lists lack): their reader makes theirs from their z rows. Kept
    beside the merged matrices (`_MERGED`): one pass over the base's lists per generation."""
    delta = generation.delta
    assert delta is not None
    names = (f"{basis}_gapcount", f"{basis}_gaps")
    key = (root, generation.number)
    with _MERGED_LOCK:
        cache = _MERGED.get(key)
        if cache is None:
            _MERGED.clear()
            cache = _MERGED[key] = {}
        if names[0] in cache:
            count, columns = cache[names[0]], cache[names[1]]
            return None if count is None or columns is None else (count, columns)
    found = _merged_gaps(storage, root, generation, basis)
    with _MERGED_LOCK:
        cache[names[0]], cache[names[1]] = found if found is not None else (None, None)
    return found


def _merged_gaps(
    storage: Storage, root: str, generation: Generation, basis: str
) -> tuple[np.ndarray, np.ndarray] | None:
    delta = generation.delta
    assert delta is not None
    load = lambda name: _load(storage, root, generation.matrices.get(f"{basis}{name}"), True)  # noqa: E731
    base_count, base_columns, base_span, base_days = (
        load(s) for s in ("_gapcount", "_gaps", "_span", "_days")
    )
    if base_count is None or base_columns is None or base_span is None or base_days is None:
        return None
    own_days = _load(storage, root, delta.matrices.get(f"{basis}_days"), True)
    days = np.asarray(base_days)
    if own_days is not None:
        days = np.unique(np.concatenate([days, own_days])).astype(np.int32)
    kept, order = merge_sources(storage, root, generation)
    where = np.empty(order.size, np.int64)
    where[order] = np.arange(order.size)
    base_where = where[: kept.size]
    if base_where.size > 1 and not bool(np.all(base_where[1:] > base_where[:-1])):
        return None  # never so (`_merge_order` keeps the base rows' order): the reader makes them
    stored = np.asarray(base_count)
    use = np.zeros(stored.size, dtype=bool)
    use[kept] = True
    extra = np.setdiff1d(days, np.asarray(base_days), assume_unique=True)
    if extra.size and kept.size:  # a base row whose run holds a date only the delta has
        first, last = np.asarray(base_span)[kept, 0], np.asarray(base_span)[kept, 1]
        some = np.isfinite(first)
        inside = np.searchsorted(extra, np.nan_to_num(last), "right") - np.searchsorted(
            extra, np.nan_to_num(first), "left"
        )
        use[kept[some & (inside > 0)]] = False
    count = np.full(order.size, GAPS_RECOMPUTE, np.int32)
    count[base_where] = np.where(use[kept], stored[kept], GAPS_RECOMPUTE)
    columns = np.asarray(base_columns)
    if not use.all():
        columns = columns[np.repeat(use, np.maximum(stored, 0))]
    if days.size != base_days.size:
        columns = np.searchsorted(days, np.asarray(base_days)).astype(np.int32)[columns]
    return count, columns


def read_table(storage: Storage, root: str, relative: str, schema: pa.Schema) -> pa.Table:
    """A Parquet file of the catalogue folder that a generation names (a score neighbours list),
    which must have `schema`."""
    path = layout.join(catalogue_dir(root), relative)
    try:
        table = pq.ParquetFile(pa.BufferReader(storage.read_bytes(path))).read(use_threads=False)
    except (pa.ArrowException, ValueError) as exc:
        raise CorruptLakeFile(f"{path} is not a catalogue file: {exc}") from exc
    if table.schema != schema:
        raise CorruptLakeFile(f"{path} does not have the schema of its kind")
    return table


def neighbour_entries(
    table: pa.Table,
) -> Iterator[tuple[str, str, float, np.ndarray, np.ndarray, np.ndarray]]:
    """(neighbour id, its build, whole-history correlation, days, rho, names) of each entry of a
    score neighbours list (`schemas.lake.SCORE_NEIGHBOURS`), nearest first."""
    ids, builds = table.column("neighbour_id").to_pylist(), table.column("neighbour_build").to_pylist()
    wholes = table.column("whole").to_pylist()
    for position, (alpha_id, build_id, whole) in enumerate(zip(ids, builds, wholes, strict=True)):
        days, rho, names = (
            np.asarray(table.column(name)[position].values.to_numpy(zero_copy_only=False))
            for name in ("days", "rho", "names")
        )
        yield (
            alpha_id,
            build_id,
            float(whole),
            days.astype(np.int32),
            rho.astype(np.float64),
            names.astype(np.float64),
        )


def _write_generation(
    storage: Storage, root: str, number: int, kind: str, index: pa.Table, arrays: dict[str, np.ndarray]
) -> tuple[str, dict[str, str], list[str]]:
    """Writes generation `number`'s index table and matrices under a fresh token (`kind`: "" for a
    whole generation, ".delta" for a delta; a whole one's `PUBLISH_COLUMNS` file too, at
    `columns_path`): the index's path relative to the catalogue, the matrices' by name, and every
    file written (what a lost race deletes)."""
    token = f"{number:012d}-{uuid.uuid4().hex[:8]}"
    relative = f"index/{token}{kind}.parquet"
    written = [layout.join(catalogue_dir(root), relative)]
    storage.write_bytes(written[0], _parquet(index))
    if not kind:
        written.append(layout.join(catalogue_dir(root), columns_path(relative)))
        storage.write_bytes(written[-1], columns_file(index))
    matrices = {}
    for name, array in arrays.items():
        matrices[name] = f"matrices/{token}{kind}/{name}.npy"
        written.append(_write_matrix(storage, root, matrices[name], array))
    return relative, matrices, written


def columns_path(index: str) -> str:
    """The `PUBLISH_COLUMNS` file a whole generation writes beside its index (`index`: its path)."""
    return index.removesuffix(".parquet") + ".columns.arrow"


def commit(storage: Storage, root: str, update: Update) -> Generation:
    """Writes the next generation from the newest one, whole (its index and matrices in full: a
    base for the delta generations that follow); retried on the generation a concurrent writer
    created first. `update` runs once per attempt and must not depend on anything but its
    arguments and the lake (it is handed the winner's index after a lost race)."""
    while True:
        current = newest(storage, root)
        index = None if current is None else read_index(storage, root, current)
        following = update(current, index)
        number = 1 if current is None else current.number + 1
        relative, matrices, written = _write_generation(
            storage, root, number, "", following.index, following.matrices
        )
        generation = Generation(
            number,
            relative,
            _now(),
            following.benchmarks,
            following.changes,
            matrices,
            following.retired,
            None,
            following.trials,
            _known(),
            columns_path(relative),
        )
        if _created(storage, root, generation, written, following.files):
            return generation


@dataclass(frozen=True)
class NextDelta:
    """What a publish commits as a delta generation over `base` (`Delta`): the changed alphas'
    rows (`schemas.lake.CATALOGUE_INDEX` and POSITION, in catalogue order), the removed alphas,
    the changed rows' matrices by name, the lists overridden, and as `Next` the benchmarks, the
    changes, the new files, the retired ones and the trials' sums."""

    base: Generation
    rows: pa.Table
    removed: list[str]
    matrices: dict[str, np.ndarray]
    lists: dict[str, str | None]
    benchmarks: dict[str, str]
    changes: list[dict[str, Any]]
    files: dict[str, bytes] = field(default_factory=dict)
    retired: list[str] = field(default_factory=list)
    trials: dict[str, Any] | None = None
    base_matrices: dict[str, np.ndarray] = field(default_factory=dict)
    """Matrices of the base written before them (its correlation index's gap lists, made by this
    publish): written under the base's number and named with its matrices from now on."""


DeltaUpdate = Callable[[Generation], NextDelta | None]
"""(newest generation) -> the delta to commit over it, or None: commit a whole generation instead."""


def commit_delta(storage: Storage, root: str, update: DeltaUpdate, whole: Update) -> Generation:
    """Writes the next generation as a delta over the newest one's base (O(the rows changed since
    that base), not O(the catalogue)), or, when `update` says None (no generation yet, a change of
    every row, a delta grown past `COMPACT_ROWS`), whole with `whole` (`commit`). Retried on the
    generation a concurrent writer created first, like `commit`."""
    while True:
        current = newest(storage, root)
        made: list[str] = []
        if current is not None and current.columns is None:
            # A base written before its columns file: written once, by its first publish.
            current, made = _with_columns_file(storage, root, current)
        following = None if current is None else update(current)
        if following is None:
            for path in made:  # a whole generation writes its own
                storage.delete_file(path)
            return commit(storage, root, whole)
        assert current is not None
        number = current.number + 1
        relative, matrices, written = _write_generation(
            storage, root, number, ".delta", following.rows, following.matrices
        )
        written += made
        base = following.base
        base_matrices = dict(base.matrices)
        if following.base_matrices:  # under the base's number: collected with the base's files
            token = f"{base.base:012d}-{uuid.uuid4().hex[:8]}"
            for name, array in following.base_matrices.items():
                base_matrices[name] = f"matrices/{token}/{name}.npy"
                written.append(_write_matrix(storage, root, base_matrices[name], array))
        delta = Delta(base.base, relative, following.removed, matrices, following.lists)
        generation = Generation(
            number,
            base.index,
            _now(),
            following.benchmarks,
            following.changes,
            base_matrices,
            following.retired,
            delta,
            following.trials,
            _known(),
            current.columns,
        )
        if _created(storage, root, generation, written, following.files):
            return generation


def _with_columns_file(storage: Storage, root: str, generation: Generation) -> tuple[Generation, list[str]]:
    """`generation` naming a `PUBLISH_COLUMNS` file of its base, written now from the base's
    Parquet (under the base's number: collected with the base's files), and the file written."""
    relative = f"index/{generation.base:012d}-{uuid.uuid4().hex[:8]}.columns.arrow"
    path = layout.join(catalogue_dir(root), relative)
    storage.write_bytes(
        path, columns_file(_read_parquet(storage, root, generation.index, list(PUBLISH_COLUMNS)))
    )
    return replace(generation, columns=relative), [path]


def _parquet(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return bytes(sink.getvalue().to_pybytes())


def _write_matrix(storage: Storage, root: str, relative: str, array: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    path = layout.join(catalogue_dir(root), relative)
    storage.write_bytes(path, buffer.getvalue())
    return path


def _created(
    storage: Storage, root: str, generation: Generation, written: list[str], files: dict[str, bytes]
) -> bool:
    """Writes `files` and creates `generation` exclusively; False (its files deleted) when another
    writer created that number first."""
    number = generation.number
    named = {layout.join(catalogue_dir(root), path): payload for path, payload in files.items()}
    written = [*written, *named]
    with ThreadPoolExecutor(WRITERS) as pool:  # on S3 a PUT each: side by side
        list(pool.map(storage.write_bytes, named, named.values()))
    payload = json.dumps(generation.document(), indent=1).encode()
    try:
        # A writer slower than the collection (RETENTION_SECONDS and KEEP_GENERATIONS newer
        # generations) would find its number free again, the generation it follows collected:
        # the hint, written by every winner after its generation, says it lost.
        if _hint(storage, root) >= number:
            raise FileExistsError(generation_path(root, number))
        storage.create_exclusive(generation_path(root, number), payload)
    except FileExistsError:
        for path in written:  # lost the race: redo on the winner's generation
            storage.delete_file(path)
        return False
    storage.replace_atomically(latest_path(root), json.dumps({"generation": number}).encode())
    collect(storage, root, number)
    return True


def collect(storage: Storage, root: str, newest_number: int) -> None:
    """Deletes the generations more than KEEP_GENERATIONS behind `newest_number` that are older than
    RETENTION_SECONDS and the operator's history retention (`layout.history_seconds`: a read
    route's `as_of` within it finds its generation), with their index and matrices (and any a writer that lost a race or died
    left under those numbers) and the lists they retired (only older generations, deleted before
    or with them, named those). Generations are written in order, so the first one too young ends
    the work: a publish pays for what it deletes, a few listings and one stat, never for every
    generation still kept."""
    cutoff = newest_number - KEEP_GENERATIONS
    if cutoff < 1:
        return
    now = datetime.now(UTC).timestamp()
    old = [number for number, _ in listed_generations(storage, root) if number < cutoff]
    limit = cutoff
    for number in old:
        stamp = storage.file_modified_at(generation_path(root, number))
        if stamp is None or now - stamp < max(RETENTION_SECONDS, layout.history_seconds()):
            limit = number
            break
    # The oldest generation kept names the oldest base still read (bases only move forward): its
    # full files stay; every other file older than `limit` goes (deltas, and bases no one names),
    # but for what a record pinned (`datasets.pins`: a decision's generation, its index and
    # matrices, kept while the record exists).
    try:
        kept = read_generation(storage, root, limit)
    except CorruptLakeFile:
        kept = None
    base = None if kept is None else kept.base  # unknown: every full file stays this time
    held, held_files = _pinned_files(storage, root)
    for folder in ("index", "matrices"):
        for number, name in _listed(storage, root, folder):
            if number >= limit:
                break
            if ".delta" not in name and (base is None or number == base):
                continue
            if f"{folder}/{name}" in held_files:
                continue
            path = layout.join(catalogue_dir(root), folder, name)
            if folder == "matrices":
                storage.delete_tree(path)
            else:
                storage.delete_file(path)
    for number in old:
        if number >= limit:
            break
        if number in held:
            continue
        path = generation_path(root, number)
        _delete_retired(storage, root, number, path)
        storage.delete_file(path)


def _pinned_files(storage: Storage, root: str) -> tuple[frozenset[int], frozenset[str]]:
    """The generations records pinned, and the files (`index/...`, `matrices/...` entries of the
    catalogue folder) each names: its index and matrices, its base's when it is a delta."""
    held = pins.pinned(storage, root).generations
    files: set[str] = set()
    for number in held:
        try:
            generation = read_generation(storage, root, number)
        except CorruptLakeFile:
            continue
        if generation is None:
            continue
        named = [generation.index, *generation.matrices.values()]
        if generation.columns is not None:
            named.append(generation.columns)
        if generation.delta is not None:
            named += [generation.delta.index, *generation.delta.matrices.values()]
        for relative in named:
            parts = relative.split("/")
            files.add("/".join(parts[:2]))
    return frozenset(held), frozenset(files)


def _delete_retired(storage: Storage, root: str, number: int, path: str) -> None:
    try:
        retired = _parse(number, storage.read_bytes(path), path).retired
    except (FileNotFoundError, CorruptLakeFile):
        return  # nothing to learn from it: its files stay (a few bytes each), never a reader's
    for relative in retired:
        storage.delete_file(layout.join(catalogue_dir(root), relative))


def _known() -> str:
    return clock.now().astimezone(UTC).isoformat(timespec="microseconds")


def generation_at(
    storage: Storage, root: str, moment: datetime, read: dict[int, Generation] | None = None
) -> Generation | None:
    """The generation the API served at `moment`: the newest kept one committed by then (by
    `known_at`), found by a binary search over the kept generations (one listing and about
    log2(kept) reads). None when the oldest one kept was committed after `moment`. `read`: the
    generations already read (a generation file is never rewritten), filled with those read here
    and rid of those no longer listed (collected)."""
    listed = [number for number, _ in listed_generations(storage, root)]
    kept = {} if read is None else read
    if read is not None:  # forget those collected since: `read` holds kept generations only
        still = set(listed)
        for number in [n for n in list(read) if n not in still]:
            read.pop(number, None)
    found: Generation | None = None
    low, high = 0, len(listed) - 1
    while low <= high:
        middle = (low + high) // 2
        generation = kept.get(listed[middle])
        if generation is None:
            generation = read_generation(storage, root, listed[middle])
            if generation is not None:
                kept[listed[middle]] = generation
        known = None if generation is None else generation.known
        if generation is not None and known is not None and known <= moment:
            found, low = generation, middle + 1
        else:
            high = middle - 1
    return found


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
