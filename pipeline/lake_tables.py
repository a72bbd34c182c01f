"""Writes a publish into the open tables (issue 78; the layout and readers: `datasets.tables`).

For each dataset, the new build's rows of the alpha are matched with the table's current rows of
the alpha by the table's row key (`schemas.lake.ROW_KEYS`): new rows are appended, rows whose values
moved are replaced and rows gone are deleted, in one commit per table that changed (an append when
nothing else moved, else one `MERGE`), so the table's change data feed holds the before and after
values of every replaced row. `build_id` is not compared: it names the build that last wrote the
row. Then one commit to `_generations` names, for every table, the version that holds the alpha's
rows of this build: the publish's atomic step (`commit_generation`). A table whose key is not
unique in a build has the alpha's rows replaced whole (a predicate overwrite).
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
from deltalake import CommitProperties, DeltaTable, WriterProperties, write_deltalake
from deltalake.exceptions import CommitFailedError, TableNotFoundError

from alpha_results_seal.storage import Storage
from datasets import clock, tables
from datasets.layout import BUILD_RETENTION_SECONDS, history_seconds
from datasets.pins import Pinned, pinned
from pipeline.derive import DerivedAlpha
from schemas import lake

log = logging.getLogger(__name__)

WRITER = WriterProperties(compression="ZSTD")
FILE_BYTES = 256_000
"""The alpha's open partition (its latest year; the whole alpha in a table without years) rolls at
about this size, so rows sorted by date lie in files of a few weeks each: a later run that changes
its last weeks (the forward returns a new week completes) rewrites those files, not a file of the
alpha's whole year (measured in docs/benchmarks.md, "Issue 78"). A closed year is one file
(delta-rs' default target, 100 MiB): every file is in every reader's and writer's log of the
table, whatever its alpha, so the files of 10^4 alphas must stay few ("The sixteenth session")."""
OPEN_FILES = 64
"""An open partition holding more files than this (a year of weekly appends) is compacted into
files of `FILE_BYTES`; a closed year holding more than one file (the year just closed) into one."""
YEAR_IN_PATH = re.compile(rf"/{tables.YEAR_COLUMN}=(\d+)/")
GONE = "_gone"

Step = Callable[[str], None]
"""Called before each commit with what is about to be committed (`table` or `generation`): the kill
tests stop a publish there."""


def _no_step(_: str) -> None:
    return None


before_commit: Step = _no_step
"""The hook the kill tests replace (tests/lake/test_open_tables.py); a publish never sets it."""


@dataclass
class Written:
    """What a publish did to the open tables."""

    versions: dict[str, int | None] = field(default_factory=dict)
    """Every table's version that holds the target's rows of this build (None: the table does not exist)."""
    changed: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per table committed: rows inserted, updated, deleted."""
    sizes: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per table the target has rows in at its version: its `rows`, and the `files` and `bytes` of
    the target's data files there (what the build's entry reports as its tables)."""


def stored_schema(table: str) -> pa.Schema:
    """The open table's columns: the partition column(s), `book` for a book-partitioned table, the
    build's columns, and `build_id` (the build that last wrote the row)."""
    base = lake.BENCHMARK_DAILY if table == tables.BENCHMARK_DAILY else lake.TABLE_SCHEMAS[table]
    fields = [pa.field(tables.partition_column(table), pa.string(), nullable=False)]
    if table in tables.YEAR_TABLES:
        fields.append(pa.field(tables.YEAR_COLUMN, pa.int32(), nullable=False))
    if table in lake.tables_laid("book"):
        fields.append(pa.field(tables.BOOK_COLUMN, pa.string(), nullable=False))
    fields += [f.with_nullable(True) for f in base]
    if tables.BUILD_COLUMN not in base.names:  # `restatements` names the restating build already
        fields.append(pa.field(tables.BUILD_COLUMN, pa.string(), nullable=False))
    return pa.schema(fields)


def partitions(table: str) -> list[str]:
    return [tables.partition_column(table), *([tables.YEAR_COLUMN] if table in tables.YEAR_TABLES else [])]


def alpha_frames(derived: DerivedAlpha) -> Iterator[tuple[str, pl.DataFrame | None]]:
    """Every dataset's rows of the build (None: the build has none), books as a `book` column."""
    for spec in lake.TABLES:
        if spec.layout == "book":
            by_book = derived.books.get(spec.name, {})
            frames = [
                f.select(spec.schema.names).with_columns(pl.lit(book).alias(tables.BOOK_COLUMN))
                for book, f in sorted(by_book.items())
            ]
            yield spec.name, pl.concat(frames, how="vertical_relaxed") if frames else None
        elif spec.name == "decisions":
            yield spec.name, derived.decisions
        else:
            yield spec.name, derived.single.get(spec.name)


def _rows(table: str, target: str, build_id: str, frame: pl.DataFrame) -> pl.DataFrame:
    """The build's rows as stored: with the target, year and build columns, cast to the table's types."""
    schema = stored_schema(table)
    extra = [pl.lit(target).alias(tables.partition_column(table))]
    if tables.BUILD_COLUMN not in frame.columns:
        extra.append(pl.lit(build_id).alias(tables.BUILD_COLUMN))
    if table in tables.YEAR_TABLES:
        extra.append(pl.col("date").dt.year().cast(pl.Int32).alias(tables.YEAR_COLUMN))
    arrow = frame.with_columns(extra).to_arrow().select(schema.names).cast(schema)
    out = pl.from_arrow(arrow)
    assert isinstance(out, pl.DataFrame)
    return out


def _open(path: str, root: str) -> DeltaTable | None:
    try:
        return DeltaTable(path, storage_options=tables.storage_options(root))
    except TableNotFoundError:
        return None


def _current(delta: DeltaTable, table: str, target: str) -> pl.DataFrame:
    """The target's rows at the version opened, as stored (`stored_schema`)."""
    schema = stored_schema(table)
    out = pl.from_arrow(tables.target_rows(delta, table, target, schema.names).to_arrow().cast(schema))
    assert isinstance(out, pl.DataFrame)
    return out


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _name(column: str) -> str:
    """A column in a predicate, quoted: some are SQL words (`timestamp`, `date`, `part`)."""
    return '"' + column.replace('"', '""') + '"'


def _unique(frame: pl.DataFrame, keys: list[str]) -> bool:
    return frame.height == 0 or frame.select(keys).is_unique().all()


def diff(
    old: pl.DataFrame, new: pl.DataFrame, keys: list[str]
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(inserted, changed, gone): the new rows no old row has the key of, the new rows whose old
    row's values differ (exactly, nulls and NaNs equal to themselves), the old rows no new row has
    the key of."""
    values = [c for c in new.columns if c not in keys and c != tables.BUILD_COLUMN]
    joined = new.with_columns(pl.lit(True).alias("_new")).join(
        old.select([*keys, *values]).with_columns(pl.lit(True).alias("_old")),
        on=keys,
        how="full",
        nulls_equal=True,
        suffix="__old",
        coalesce=True,
    )
    moved = pl.lit(False)
    for column in values:
        moved = moved | ~pl.col(column).eq_missing(pl.col(f"{column}__old"))
    inserted = joined.filter(pl.col("_old").is_null()).select(new.columns)
    changed = joined.filter(pl.col("_new") & pl.col("_old") & moved).select(new.columns)
    gone_keys = joined.filter(pl.col("_new").is_null()).select(keys)
    gone = old.join(gone_keys, on=keys, how="semi", nulls_equal=True)
    return inserted, changed, gone


COMMIT_ATTEMPTS = 5


def publish_target(
    root: str, table: str, target: str, build_id: str, frame: pl.DataFrame | None, written: Written
) -> None:
    """One table's commit for one target (alpha id or benchmark symbol), recorded in `written`.
    A commit refused because another publish committed to the table meanwhile (another alpha's:
    the alpha's own publishes are serialised by its lock) is made again over the new version."""
    for attempt in range(COMMIT_ATTEMPTS):
        try:
            _publish_target(root, table, target, build_id, frame, written)
            return
        except CommitFailedError:
            if attempt == COMMIT_ATTEMPTS - 1:
                raise


def _publish_target(
    root: str, table: str, target: str, build_id: str, frame: pl.DataFrame | None, written: Written
) -> None:
    path = tables.table_path(root, table)
    commit = CommitProperties(custom_metadata={"target": target, "build_id": build_id})
    new = None if frame is None else _rows(table, target, build_id, frame)
    delta = _open(path, root)
    if delta is None:
        _create(root, table, new, commit, written)
        if new is not None and new.height:
            _measure(_open(path, root), table, target, new.height, written)
        return
    keys = list(lake.ROW_KEYS[table])
    if new is not None and table in tables.YEAR_TABLES and _unique(new, keys):
        found = _diff_by_year(delta, table, target, new, keys)
        if found is not None:
            _merge(root, delta, table, target, found, keys, commit, written)
            _keep_few(delta, table, target, commit, written)
            _measure(delta, table, target, new.height, written)
            return
    old = _current(delta, table, target)
    if new is None:
        new = old.head(0)
    if _unique(new, keys) and _unique(old, keys):
        _merge(root, delta, table, target, _Diff.of(old, new, keys), keys, commit, written)
    else:
        _replace_whole(root, delta, table, target, old, new, commit, written)
    _keep_few(delta, table, target, commit, written)
    _measure(delta, table, target, new.height, written)


def _measure(delta: DeltaTable | None, table: str, target: str, rows: int, written: Written) -> None:
    """`written.sizes[table]`: the target's rows, and its data files at the version `delta` is on
    (from the table's log: no file is read)."""
    if delta is None or rows == 0:
        return
    actions = pa.table(delta.get_add_actions(flatten=True))
    mine = actions.filter(pc.equal(actions.column(f"partition.{tables.partition_column(table)}"), target))
    written.sizes[table] = {
        "rows": rows,
        "files": mine.num_rows,
        "bytes": int(pc.sum(mine.column("size_bytes")).as_py() or 0),
    }


def _keep_few(delta: DeltaTable, table: str, target: str, commit: CommitProperties, written: Written) -> None:
    """After a commit that changed the target's rows, its files compacted where `OPEN_FILES` says
    (the generation then names the compacted version: the same rows)."""
    if table not in written.changed:
        return
    try:
        compacted = _compact(delta, table, target, commit)
    except CommitFailedError:  # housekeeping: a conflict leaves the files to the next publish's
        log.info(
            "compaction of %s's files of %s left to its next publish (a concurrent commit)", target, table
        )
        return
    if compacted:
        written.versions[table] = int(delta.version())


@dataclass
class _Diff:
    """What a publish changes of a target's rows (`diff`), and the keys a null is found in on either
    side (the `MERGE` matches those with IS NOT DISTINCT FROM)."""

    inserted: pl.DataFrame
    changed: pl.DataFrame
    gone: pl.DataFrame
    nullable: frozenset[str]

    @staticmethod
    def of(old: pl.DataFrame, new: pl.DataFrame, keys: list[str]) -> _Diff:
        nullable = frozenset(k for k in keys if new[k].null_count() or old[k].null_count())
        return _Diff(*diff(old, new, keys), nullable)


def _diff_by_year(
    delta: DeltaTable, table: str, target: str, new: pl.DataFrame, keys: list[str]
) -> _Diff | None:
    """`diff` of a year-partitioned table one year at a time: the old rows of one year are read and
    matched at a time, so a publish holds one year of the alpha's stored rows, not its whole history
    (a row's year is a function of its key: `date`, or a trade's `timestamp`, so no key spans two
    years and the whole diff is the years' diffs together). None when a year's stored keys are not
    unique, or a new row has no year (the caller diffs, or replaces, the alpha's rows whole)."""
    year = pl.col(tables.YEAR_COLUMN)
    if new[tables.YEAR_COLUMN].null_count():
        return None
    column = tables.partition_column(table)
    dataset = delta.to_pyarrow_dataset(file_pruning_predicate=[(column, "=", target)])
    # The years the target has files in, from the table's log (no file read).
    stored = {
        int(p[tables.YEAR_COLUMN]) for p in delta.partitions(file_pruning_predicate=[(column, "=", target)])
    }
    schema = stored_schema(table)
    parts: list[_Diff] = []
    for each in sorted(stored | set(new[tables.YEAR_COLUMN].unique().to_list())):
        found = dataset.to_table(
            filter=(pads.field(column) == target) & (pads.field(tables.YEAR_COLUMN) == each)
        )
        old = pl.from_arrow(found.select(schema.names).cast(schema))
        assert isinstance(old, pl.DataFrame)
        if not _unique(old, keys):
            return None
        # A year's new rows at a time, not all of them regrouped: no second copy of the build's rows.
        parts.append(_Diff.of(old, new.filter(year == each), keys))
    if not parts:
        empty = new.head(0)
        return _Diff(empty, empty, empty, frozenset())
    return _Diff(
        pl.concat([p.inserted for p in parts]),
        pl.concat([p.changed for p in parts]),
        pl.concat([p.gone for p in parts]),
        frozenset().union(*(p.nullable for p in parts)),
    )


def _create(
    root: str, table: str, new: pl.DataFrame | None, commit: CommitProperties, written: Written
) -> None:
    """The table's first commit (none while the build has no rows of it)."""
    if new is None or new.height == 0:
        written.versions[table] = None
        return
    path = tables.table_path(root, table)
    before_commit(table)
    _append(root, path, table, new, commit)
    written.versions[table] = _version(path, root)
    written.changed[table] = {"inserted": new.height, "updated": 0, "deleted": 0}


def _replace_whole(
    root: str,
    delta: DeltaTable,
    table: str,
    target: str,
    old: pl.DataFrame,
    new: pl.DataFrame,
    commit: CommitProperties,
    written: Written,
) -> None:
    """A table whose key is not unique: the target's rows replaced whole (a predicate overwrite),
    unless they are the same rows."""
    values = [c for c in new.columns if c != tables.BUILD_COLUMN]
    if old.height == new.height and old.select(values).sort(values).equals(new.select(values).sort(values)):
        written.versions[table] = delta.version()
        return
    before_commit(table)
    write_deltalake(
        delta,
        new.to_arrow(),
        mode="overwrite",
        predicate=f"{tables.partition_column(table)} = {_quote(target)}",
        target_file_size=FILE_BYTES,
        writer_properties=WRITER,
        commit_properties=commit,
    )
    written.versions[table] = int(delta.version())
    written.changed[table] = {"inserted": new.height, "updated": 0, "deleted": old.height}


def _merge(
    root: str,
    delta: DeltaTable,
    table: str,
    target: str,
    found: _Diff,
    keys: list[str],
    commit: CommitProperties,
    written: Written,
) -> None:
    """The target's rows that changed, by row key: an append when rows were only added, else one
    `MERGE` (inserted, updated and deleted rows, with the change data feed's before and after)."""
    inserted, changed, gone = found.inserted, found.changed, found.gone
    if inserted.height == changed.height == gone.height == 0:
        written.versions[table] = delta.version()
        return
    before_commit(table)
    # Both commits leave `delta` on the version they committed: no second open of the table.
    if changed.height == gone.height == 0:
        _append(root, delta, table, inserted, commit)
    else:
        source = pl.concat(
            [
                inserted.with_columns(pl.lit(False).alias(GONE)),
                changed.with_columns(pl.lit(False).alias(GONE)),
                gone.with_columns(pl.lit(True).alias(GONE)),
            ]
        )
        columns = {_name(c): f"s.{_name(c)}" for c in inserted.columns}
        (
            delta.merge(
                source.to_arrow(),
                predicate=_matches(table, target, keys, found.nullable),
                source_alias="s",
                target_alias="t",
                writer_properties=WRITER,
                commit_properties=commit,
            )
            .when_matched_delete(predicate=f"s.{GONE}")
            .when_matched_update(updates=columns, predicate=f"NOT s.{GONE}")
            .when_not_matched_insert(updates=columns, predicate=f"NOT s.{GONE}")
            .execute()
        )
    written.versions[table] = int(delta.version())
    written.changed[table] = {"inserted": inserted.height, "updated": changed.height, "deleted": gone.height}


def _append(
    root: str, into: str | DeltaTable, table: str, rows: pl.DataFrame, commit: CommitProperties
) -> None:
    """`rows` appended (the table created by a path's first append), laid out as `FILE_BYTES`
    says: the rows of years before their latest in files of up to delta-rs' default size, those of
    their latest year rolled at `FILE_BYTES` (two commits when both are there)."""
    open_rows, closed_rows = rows, rows.head(0)
    if table in tables.YEAR_TABLES and rows.height:
        latest = rows[tables.YEAR_COLUMN].max()
        open_rows = rows.filter(pl.col(tables.YEAR_COLUMN) == latest)
        closed_rows = rows.filter(pl.col(tables.YEAR_COLUMN) != latest)
    options = None if isinstance(into, DeltaTable) else tables.storage_options(root)
    for part, size in ((closed_rows, None), (open_rows, FILE_BYTES)):
        if part.height:
            write_deltalake(
                into,
                part.to_arrow(),
                mode="append",
                partition_by=partitions(table),
                configuration=tables.CONFIGURATION,  # read only by the commit that creates the table
                target_file_size=size,
                writer_properties=WRITER,
                commit_properties=commit,
                storage_options=options,
            )


def _compact(delta: DeltaTable, table: str, target: str, commit: CommitProperties) -> bool:
    """The target's files kept few (`OPEN_FILES`): a closed year of more than one file compacted
    into one, the open partition of more than `OPEN_FILES` into files of `FILE_BYTES`. Rows and
    the change data feed are unchanged (Delta's `OPTIMIZE`: `dataChange` false). Returns whether
    it committed."""
    column = tables.partition_column(table)
    files = delta.file_uris(file_pruning_predicate=f"{_name(column)} = {_quote(target)}")
    if table not in tables.YEAR_TABLES:
        counts: Counter[int | None] = Counter({None: len(files)})
    else:
        counts = Counter(int(m.group(1)) for f in files if (m := YEAR_IN_PATH.search(f)))
    latest = max((y for y in counts if y is not None), default=None)
    compacted = False
    for year, count in sorted(counts.items(), key=lambda item: item[0] or 0):
        closed = year is not None and latest is not None and year < latest
        if (closed and count > 1) or (not closed and count > OPEN_FILES):
            where = [(column, "=", target), *([] if year is None else [(tables.YEAR_COLUMN, "=", str(year))])]
            delta.optimize.compact(
                partition_filters=where,
                target_size=None if closed else FILE_BYTES,
                writer_properties=WRITER,
                commit_properties=commit,
            )
            compacted = True
    return compacted


def _matches(table: str, target: str, keys: list[str], nullable: frozenset[str]) -> str:
    """The `MERGE` predicate: the target's partition (and the row's year), then the row key, null
    keys matching nulls where either side holds one (`nullable`)."""
    matches = [f"t.{_name(tables.partition_column(table))} = {_quote(target)}"]
    if table in tables.YEAR_TABLES:
        matches.append(f"t.{_name(tables.YEAR_COLUMN)} = s.{_name(tables.YEAR_COLUMN)}")
    matches += [
        f"(t.{_name(k)} IS NOT DISTINCT FROM s.{_name(k)})"
        if k in nullable
        else f"t.{_name(k)} = s.{_name(k)}"
        for k in keys
    ]
    return " AND ".join(matches)


def _version(path: str, root: str) -> int:
    """The table's version right after its first commit. The alpha's publish lock keeps any other
    commit from touching its rows, so a later version (another alpha's commit) holds them too."""
    delta = DeltaTable(path, storage_options=tables.storage_options(root))
    return int(delta.version())


def publish_alpha(root: str, alpha_id: str, build_id: str, derived: DerivedAlpha) -> Written:
    """Every dataset's rows of the alpha's new build, written where they changed (no generation)."""
    written = Written()
    for table, frame in alpha_frames(derived):
        publish_target(root, table, alpha_id, build_id, frame, written)
    return written


def publish_benchmark(root: str, symbol: str, build_id: str, daily: pl.DataFrame) -> Written:
    written = Written()
    publish_target(root, tables.BENCHMARK_DAILY, symbol, build_id, daily, written)
    return written


GENERATION_SCHEMA = pa.schema(
    [
        pa.field("committed_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("target", pa.string(), nullable=False),
        pa.field("build_id", pa.string(), nullable=False),
        pa.field("table", pa.string(), nullable=False),
        pa.field("version", pa.int64()),
    ]
)


def commit_generation(root: str, target: str, build_id: str, written: Written, now: dt.datetime) -> None:
    """The publish's atomic step: one commit naming every table's version for `target` (an alpha
    id, or `benchmark:<symbol>`), dated by our clock. Until it commits, readers resolving through
    the generations read the target's previous versions."""
    rows = pa.table(
        {
            "committed_at": [now] * len(written.versions),
            "target": [target] * len(written.versions),
            "build_id": [build_id] * len(written.versions),
            "table": list(written.versions),
            "version": list(written.versions.values()),
        },
        schema=GENERATION_SCHEMA,
    )
    before_commit("generation")
    commit = CommitProperties(custom_metadata={"target": target, "build_id": build_id})
    write_deltalake(
        tables.generations_path(root),
        rows,
        mode="append",
        configuration=tables.CONFIGURATION,  # its first commit creates it
        writer_properties=WRITER,
        commit_properties=commit,
        storage_options=tables.storage_options(root),
    )
    _compact_generations(root, commit)


def _compact_generations(root: str, commit: CommitProperties) -> None:
    """`_generations` kept to few files: every publish appends one (a row per table), and every
    publish and reader reads them all (`datasets.tables.versions`), so past `OPEN_FILES` they are
    compacted into one (Delta's `OPTIMIZE`: the same rows, no change recorded). A conflict with
    another publish's generation leaves it to the next publish."""
    delta = DeltaTable(tables.generations_path(root), storage_options=tables.storage_options(root))
    if len(delta.file_uris()) <= OPEN_FILES:
        return
    try:
        delta.optimize.compact(writer_properties=WRITER, commit_properties=commit)
    except CommitFailedError:
        log.info("compaction of the generations left to the next publish (a concurrent commit)")


def finish_generation(root: str, alpha_id: str, build_id: str) -> bool:
    """The generation of a publish killed after its pointer switch and before its generation
    (`pipeline.publish.finish_interrupted`): every table's current version holds the alpha's rows of
    that build (its commits came before the switch, and its intent kept any other publish of the
    alpha away since). Returns whether one was committed (none when the newest names the build)."""
    return _finish(root, alpha_id, build_id, [spec.name for spec in lake.TABLES])


def finish_benchmark_generation(root: str, symbol: str, build_id: str) -> bool:
    """`finish_generation` of a benchmark, whose publish has no intent: called by a publish that
    finds the benchmark's pointer already on its seal's build (`pipeline.publish.publish_benchmark`),
    which a publish killed between its switch and its generation leaves. Only when the table holds
    a commit of that build (a lake published before the open tables has none to name)."""
    delta = _open(tables.table_path(root, tables.BENCHMARK_DAILY), root)
    if delta is None or not any(
        commit.get("target") == symbol and commit.get("build_id") == build_id for commit in delta.history()
    ):
        return False
    return _finish(root, f"benchmark:{symbol}", build_id, [tables.BENCHMARK_DAILY])


HISTORY_LOOKED = 1_000
"""How far back (commits of a table) a finish looks for the target's newest commit (`_holds`)."""


def _finish(root: str, target: str, build_id: str, names: list[str]) -> bool:
    named = tables.versions(root).filter(pl.col("target") == target)
    if named.height and set(named["build_id"].to_list()) == {build_id}:
        return False
    written = Written()
    opened = {name: _open(tables.table_path(root, name), root) for name in names}
    since = {str(t): int(v) for t, v in named.select("table", "version").iter_rows() if v is not None}
    if not _holds(opened, since, target.removeprefix("benchmark:"), build_id):  # commits name the symbol
        log.warning(
            "no generation named for %s's build %s: the open tables' commits of it since its newest "
            "generation are not that build's alone (a build published before the tables, a conversion, "
            "or another publish since)",
            target,
            build_id,
        )
        return False
    for name, delta in opened.items():
        written.versions[name] = None if delta is None else int(delta.version())
    commit_generation(root, target, build_id, written, clock.now())
    return True


def _holds(opened: dict[str, DeltaTable | None], since: dict[str, int], target: str, build_id: str) -> bool:
    """Whether the tables' current versions hold `target`'s rows of `build_id`: every commit of the
    target after the version its newest generation names (`since`, by table) is of that build, and
    there is one. A finish names current versions, so without this a lake converted, or a publish
    that broke an expired intent, could have another build's rows named for this one (and a publish
    then reads them as the build it replaces). Looks `HISTORY_LOOKED` commits back at most: a table
    whose named version lies further back is not taken as holding it."""
    found = False
    for name, delta in opened.items():
        if delta is None:
            continue
        named = since.get(name, -1)
        newer = int(delta.version()) - named  # the commits after the named version
        if newer > HISTORY_LOOKED:
            return False
        for commit in delta.history(newer) if newer > 0 else ():
            if int(commit["version"]) <= named:
                break
            if commit.get("target") != target:
                continue
            if commit.get("build_id") != build_id:
                return False
            found = True
    return found


def vacuum(
    root: str,
    history_seconds: float,
    pinned: Pinned,
    delete: bool,
    now: dt.datetime | None = None,
    floor_seconds: float = BUILD_RETENTION_SECONDS,
) -> list[str]:
    """The open tables' retention: Delta's own `VACUUM` of every table (and `_generations`), which
    deletes the files no version younger than the retention reads. The retention is the operator's
    history (`ALPHA_RESULTS_BUILD_HISTORY_DAYS`), never under what a worker may still serve, and
    stretched back to the oldest generation that names a pinned build: a pin is a version kept, so a
    decision's `as_of` reads what it read, whatever its age. A table's retention is also stretched
    back to a commit no generation names that replaced a target's rows after the version its
    generation names (`_unnamed_since`): what readers read now is never deleted. Returns the files deleted (or, with
    `delete` false, those it would delete)."""
    now = now or clock.now()
    found = tables.generations(root)
    pairs = [(alpha, build) for alpha, builds in pinned.alphas.items() for build in builds]
    pairs += [
        (f"benchmark:{symbol}", build) for symbol, builds in pinned.benchmarks.items() for build in builds
    ]
    keep = max(history_seconds, floor_seconds)
    if pairs and found.height:
        wanted = pl.DataFrame(pairs, schema=["target", "build_id"], orient="row")
        oldest = found.join(wanted, on=["target", "build_id"], how="semi")["committed_at"].min()
        if isinstance(oldest, dt.datetime):
            keep = max(keep, (now - oldest).total_seconds())
    named = tables.versions(root).filter(pl.col("version").is_not_null())
    removed: list[str] = []
    names = [spec.name for spec in lake.TABLES] + [tables.BENCHMARK_DAILY, tables.GENERATIONS]
    for name in names:
        delta = _open(tables.table_path(root, name), root)
        if delta is None:
            continue
        stray = (
            None
            if name == tables.GENERATIONS
            else _unnamed_since(delta, named.filter(pl.col("table") == name))
        )
        kept = keep if stray is None else max(keep, time.time() - stray)
        hours = math.ceil(kept / 3600) if kept > 0 else 0
        removed += delta.vacuum(retention_hours=hours, enforce_retention_duration=False, dry_run=not delete)
    return removed


def _unnamed_since(delta: DeltaTable, named: pl.DataFrame) -> float | None:
    """When (epoch seconds, Delta's commit time) the oldest commit to the table for a target came
    after the version the target's newest generation names: a publish that failed or was killed
    before its generation (or one still running), whose commit replaced files that generation still
    reads. None when there is none. The vacuum keeps what was removed since, until a publish of the
    target names a newer version."""
    versions = {
        str(t).removeprefix("benchmark:"): int(v) for t, v in named.select("target", "version").iter_rows()
    }
    times = [
        int(commit["timestamp"]) / 1000
        for commit in delta.history()
        if commit.get("target") in versions and int(commit["version"]) > versions[commit["target"]]
    ]
    return min(times, default=None)


def vacuum_lake(root: str, delete: bool) -> list[str]:
    """`alpha-results lake gc`'s vacuum: the operator's history retention, the lake's pins."""
    return vacuum(root, history_seconds(), pinned(Storage(root), root), delete)
