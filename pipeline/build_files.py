"""An alpha build folder's analysts' Parquet (`alphas/{alpha}/builds/{build}/`, docs/lake.md "Layout")
read back as a publish derives it: what `lake convert` replays into the open tables, and what a
publish reads of a build it replaces that the tables do not hold (one published before them)."""

from __future__ import annotations

import io

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from alpha_results_seal.storage import Storage
from datasets import layout
from pipeline.derive import DerivedAlpha
from schemas import lake


def read_parquet(storage: Storage, path: str) -> pa.Table | None:
    if not storage.exists(path):
        return None
    return pq.read_table(io.BytesIO(storage.read_bytes(path)))


def read_partitions(storage: Storage, folder: str, key: str) -> dict[str, pa.Table]:
    """`{value: table}` of a hive-partitioned table's parts (`{folder}/{key}=value/part-0.parquet`)."""
    parts = {}
    for name in storage.list_names(folder):
        if name.startswith(f"{key}="):
            table = read_parquet(storage, layout.join(folder, name, layout.PART_FILE))
            if table is not None:
                parts[name.removeprefix(f"{key}=")] = table
    return parts


def frame_of(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def read_build(
    storage: Storage, build_dir: str, specs: tuple[lake.LakeTable, ...] = lake.TABLES
) -> DerivedAlpha:
    """An alpha build's Parquet tables (`specs`: all by default), as a publish hands them to the open
    tables (`pipeline.lake_tables.alpha_frames`)."""
    derived = DerivedAlpha()
    for spec in specs:
        if spec.layout == "single":
            found = read_parquet(storage, layout.table_path(build_dir, spec.name))
            if found is not None:
                derived.single[spec.name] = frame_of(found)
        elif spec.layout == "book":
            books = read_partitions(storage, layout.join(build_dir, spec.name), "book")
            if books:
                derived.books[spec.name] = {book: frame_of(t) for book, t in books.items()}
        else:  # the year-partitioned decisions
            years = read_partitions(storage, layout.join(build_dir, spec.name), "year")
            if years:
                derived.decisions = pl.concat(
                    [frame_of(years[y]) for y in sorted(years)], how="vertical_relaxed"
                ).sort("date", "symbol")
    return derived
