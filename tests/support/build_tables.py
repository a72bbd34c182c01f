"""A build's rows of one table, read from the lake's open tables as the build's generation names
them (`pipeline.build_files.build_rows`): what a test reads where it read the build folder's own
Parquet before pipeline 2.12.0, which writes none. A build is named by its folder
(`{lake}/alphas/{alpha}/builds/{build_id}`, a path or an `s3://` URL), as the tests hold it."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import polars as pl

from datasets import tables
from pipeline.build_files import build_rows
from pipeline.derive import DerivedAlpha
from schemas import lake


def _parts(build: Path | str) -> tuple[str, str, str]:
    """(lake root, alpha id, build id) of a build folder: a local path, or a URL (`s3://...`)."""
    parts = str(build).rstrip("/").rsplit("/", 4)
    if len(parts) != 5 or parts[1] != "alphas" or parts[3] != "builds":
        raise ValueError(f"{build} is not a build folder ({{lake}}/alphas/{{alpha}}/builds/{{build}})")
    return parts[0], parts[2], parts[4]


def build_derived(build: Path | str, names: tuple[str, ...] | None = None) -> DerivedAlpha:
    """Every table (or `names`) of the build, in the shape a publish derives them. Remembered per
    test process while the lake's logs are unchanged (`_logs_state`): a test reads the same
    build's tables many times, and each read through the open tables costs tens of ms."""
    root, alpha, build_id = _parts(build)
    state = _logs_state(root)
    found = (
        _read(root, alpha, build_id, names)
        if state is None
        else _remembered(root, alpha, build_id, names, state)
    )
    # The caller may change the dicts it is given; the remembered rows stay as read.
    return DerivedAlpha(
        single=dict(found.single),
        decisions=found.decisions,
        books={name: dict(by_book) for name, by_book in found.books.items()},
    )


def _logs_state(root: str) -> tuple[tuple[str, int], ...] | None:
    """What tells a local lake's open tables changed: every table's log folder, with its entries'
    count, its newest entry's name and its modification time. None (never remembered) for a lake
    on S3."""
    folder = os.path.join(root, tables.TABLES_DIR)
    if "://" in root or not os.path.isdir(folder):
        return None
    state = []
    for name in sorted(os.listdir(folder)):
        log = os.path.join(folder, name, "_delta_log")
        if os.path.isdir(log):
            entries = os.listdir(log)
            state.append((f"{name}:{len(entries)}:{max(entries, default='')}", os.stat(log).st_mtime_ns))
    return tuple(state)


@functools.lru_cache(maxsize=64)
def _remembered(
    root: str, alpha: str, build_id: str, names: tuple[str, ...] | None, state: object
) -> DerivedAlpha:
    return _read(root, alpha, build_id, names)


def _read(root: str, alpha: str, build_id: str, names: tuple[str, ...] | None) -> DerivedAlpha:
    specs = tuple(spec for spec in lake.TABLES if names is None or spec.name in names)
    found = build_rows(root, alpha, build_id, specs)
    if found is None:
        raise FileNotFoundError(f"no generation of the open tables names build {build_id} of {alpha}")
    return found


def has_table(build: Path | str, name: str, book: str | None = None) -> bool:
    """Whether the build holds rows of `name` (of `book`, for a book table)."""
    found = build_derived(build, (name,))
    if name == "decisions":
        return found.decisions is not None
    if name in found.books:
        return book is None or book in found.books[name]
    return name in found.single


def build_table(build: Path | str, name: str, book: str | None = None) -> pl.DataFrame:
    """The build's rows of `name` (`schemas.lake`'s columns, in its row key's order): a book
    table's rows of `book`, or of every book with a `book` column when `book` is None. A table the
    build has no rows of is a `FileNotFoundError`, as its missing file was."""
    found = build_derived(build, (name,))
    if name == "decisions":
        if found.decisions is None:
            raise FileNotFoundError(f"{build}: no decisions")
        return found.decisions
    if name in found.books:
        by_book = found.books[name]
        if book is None:
            return pl.concat(
                [f.with_columns(pl.lit(b).alias(tables.BOOK_COLUMN)) for b, f in sorted(by_book.items())],
                how="vertical_relaxed",
            )
        if book not in by_book:
            raise FileNotFoundError(f"{build}: no {name} of book {book}")
        return by_book[book]
    if name not in found.single:
        raise FileNotFoundError(f"{build}: no {name}")
    return found.single[name]


def write_legacy_parquet(build: Path | str) -> None:
    """The build folder's own Parquet as a pipeline before 2.12.0 wrote it (`{table}.parquet`,
    `{table}/book={book}/part-0.parquet`, `decisions/year={year}/part-0.parquet`), from the open
    tables, its `alpha.json` naming pipeline 2.11.0: a build of a lake published before pipeline
    2.12.0, for what reads such builds (`lake convert`, a publish replacing a build the tables do
    not hold). The folder is a local path or an `s3://` URL (written through `Storage`)."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from alpha_results_seal.storage import Storage
    from datasets import layout

    folder = str(build).rstrip("/")
    storage = Storage(_parts(build)[0])
    found = build_derived(build)

    def write(path: str, frame: pl.DataFrame, name: str) -> None:
        schema = lake.TABLE_SCHEMAS[name]
        sink = pa.BufferOutputStream()
        pq.write_table(frame.to_arrow().select(schema.names).cast(schema), sink)
        storage.write_bytes(path, sink.getvalue().to_pybytes())

    for name, frame in found.single.items():
        write(layout.table_path(folder, name), frame, name)
    for name, by_book in found.books.items():
        for book, frame in by_book.items():
            write(layout.book_partition_path(folder, name, book), frame, name)
    if found.decisions is not None:
        by_year = found.decisions.with_columns(_year=pl.col("date").dt.year())
        for (year,), part in by_year.partition_by("_year", as_dict=True, include_key=False).items():
            write(layout.year_partition_path(folder, "decisions", int(str(year))), part, "decisions")
    entry_path = layout.join(folder, layout.ALPHA_JSON)
    entry = json.loads(storage.read_bytes(entry_path))
    storage.write_bytes(entry_path, json.dumps({**entry, "pipeline_version": "2.11.0"}).encode())


def build_pandas(build: Path | str, name: str, book: str | None = None) -> Any:
    """`build_table` in pandas as `pd.read_parquet` read the old file: cast to the table's Arrow
    schema (`schemas.lake.TABLE_SCHEMAS`) before `pyarrow`'s `to_pandas`, so a date column holds
    `datetime.date` objects as it did (polars' own `to_pandas` gives `datetime64` columns). A book
    table read without `book` keeps its `book` column, last."""
    frame = build_table(build, name, book)
    schema = lake.TABLE_SCHEMAS[name]
    arrow = frame.to_arrow().select(schema.names).cast(schema)
    if tables.BOOK_COLUMN in frame.columns and tables.BOOK_COLUMN not in schema.names:
        arrow = arrow.append_column(tables.BOOK_COLUMN, frame[tables.BOOK_COLUMN].to_arrow())
    return arrow.to_pandas()  # a pandas DataFrame


def generation_versions(build: Path | str) -> dict[str, int]:
    """`{table: version}` the newest generation naming the build gives its tables (read from
    `_generations` here, not through `pipeline.build_files`); a table the build has no rows in is
    absent. No generation names it: `FileNotFoundError`."""
    root, alpha, build_id = _parts(build)
    named = tables.generations(root).filter((pl.col("target") == alpha) & (pl.col("build_id") == build_id))
    if named.height == 0:
        raise FileNotFoundError(f"no generation of the open tables names build {build_id} of {alpha}")
    newest = named.filter(pl.col("committed_at") == pl.col("committed_at").max())
    return {str(t): int(v) for t, v in newest.select("table", "version").iter_rows() if v is not None}


def open_table_sizes(build: Path | str) -> dict[str, dict[str, int]]:
    """Per table the build has rows in, what the open tables hold of it at the version its
    generation names: `rows` (counted in the alpha's data), and the `files` and `bytes` of the
    alpha's data files there, each file's size read from the file system (a local lake), not from
    the table's log: to check what `alpha.json`'s `tables` reports (`pipeline.lake_tables.Written.sizes`,
    which sums the log's sizes)."""
    import pyarrow.dataset as pads
    from deltalake import DeltaTable

    root, alpha, _ = _parts(build)
    sizes: dict[str, dict[str, int]] = {}
    for name, version in generation_versions(build).items():
        delta = DeltaTable(tables.table_path(root, name), version=version)
        key = tables.partition_column(name)
        dataset = delta.to_pyarrow_dataset()
        rows = dataset.count_rows(filter=pads.field(key) == alpha)
        mine = [f.path for f in dataset.get_fragments() if f"/{key}={alpha}/" in f"/{f.path}"]
        if rows:
            sizes[name] = {
                "rows": rows,
                "files": len(mine),
                "bytes": sum(
                    os.path.getsize(os.path.join(root, tables.TABLES_DIR, name, path)) for path in mine
                ),
            }
    return sizes


def open_table_rows(build: Path | str, name: str) -> pl.DataFrame:
    """The build's rows of `name` read with polars straight from the open table at the version
    its generation names (`generation_versions`; not through `pipeline.build_files`), every column
    the table stores, in no particular order; empty when the build has none there."""
    root, alpha, _ = _parts(build)
    version = generation_versions(build).get(name)
    if version is None:
        return pl.DataFrame()
    frame = pl.read_delta(tables.table_path(root, name), version=version)
    return frame.filter(pl.col(tables.partition_column(name)) == alpha)


def derived_from_seal(seal: Path | str) -> DerivedAlpha:
    """A seal's tables as a publish derives them (the seal read and checked first, as `publish_seal`
    does), before any diff against the lake: the rows a build of it holds, from the seal alone."""
    from alpha_results_seal.check import SealCheck
    from alpha_results_seal.seal import open_seal
    from alpha_results_seal.storage import Storage
    from pipeline.derive import derive

    opened = open_seal(str(seal), Storage(str(seal)))
    check = SealCheck(opened, None)
    check.manifest()
    check.contents()
    return derive(opened)
