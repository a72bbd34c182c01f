"""An alpha build's rows read back as a publish derives them (a `DerivedAlpha`): from the open
tables at the versions its generation names (`build_rows`), or, for a build published before the
open tables (pipeline < 2.12.0), from its folder's own Parquet (`read_build`: what `lake convert`
replays into the tables, and what a publish reads of a build it replaces that the tables do not
hold). A build of pipeline 2.12.0 on writes no Parquet of its own: the tables hold its rows once."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from alpha_results_seal.storage import Storage
from datasets import layout, tables
from pipeline.derive import DerivedAlpha
from schemas import lake

ROWS_IN_TABLES_ONLY = (2, 12, 0)
"""The pipeline version from which a build's folder holds no Parquet of its rows."""


def rows_in_folder(entry: dict[str, Any]) -> bool:
    """Whether a build (its `alpha.json`) holds its rows' Parquet in its folder: a pipeline before
    2.12.0's (a version that cannot be read counts as one, whose folder is then looked in)."""
    try:
        version = tuple(int(part) for part in str(entry.get("pipeline_version", "")).split(".")[:3])
    except ValueError:
        return True
    return version < ROWS_IN_TABLES_ONLY


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


def _newest(named: pl.DataFrame) -> pl.DataFrame:
    """The rows of the newest of `named` generations (one publish's commit: one time)."""
    return named.filter(pl.col("committed_at") == pl.col("committed_at").max())


def served_build(lake_root: str, alpha_id: str) -> tuple[str, dt.datetime] | None:
    """(build id, when its generation was committed) of the alpha's newest generation: the build the
    lake serves of it; None when no generation names the alpha."""
    newest = _newest(tables.generations(lake_root).filter(pl.col("target") == alpha_id))
    if newest.height == 0:
        return None
    return str(newest["build_id"][0]), newest["committed_at"][0]


def build_versions(
    lake_root: str, alpha_id: str, build_id: str, newest: bool = False
) -> dict[str, int] | None:
    """`{table: version}` of the alpha's newest generation naming `build_id` (a table the build has
    no rows of absent); None when no generation names it (a build published before the open
    tables, or one never committed). `newest`: only when the alpha's newest generation is of it."""
    named = tables.generations(lake_root).filter(pl.col("target") == alpha_id)
    named = _newest(_newest(named) if newest else named.filter(pl.col("build_id") == build_id))
    if named.height == 0 or named["build_id"][0] != build_id:
        return None
    return {str(t): int(v) for t, v in named.select("table", "version").iter_rows() if v is not None}


def build_rows(
    lake_root: str,
    alpha_id: str,
    build_id: str,
    specs: tuple[lake.LakeTable, ...] = lake.TABLES,
    columns: dict[str, list[str]] | None = None,
    newest: bool = False,
) -> DerivedAlpha | None:
    """The tables `specs` of the alpha's build `build_id` from the open tables, at the versions its
    newest generation names (what the lake serves of it: rows carried by an incremental publish
    included, never a commit no generation names), in the shape of `read_build`, each table's rows
    in its row key's order (`schemas.lake.ROW_KEYS`; the tables keep no order); a table with no
    rows of it absent. `columns` narrows a table's columns. None when no generation names the
    build (`build_versions`, `newest` as there)."""
    version = build_versions(lake_root, alpha_id, build_id, newest)
    if version is None:
        return None
    found = DerivedAlpha()
    for spec in specs:
        at = version.get(spec.name)
        if at is None:
            continue
        wanted = list((columns or {}).get(spec.name, spec.schema.names))
        if spec.layout == "book" and tables.BOOK_COLUMN not in wanted:
            wanted.append(tables.BOOK_COLUMN)  # in the table's path, not the build's columns
        rows = tables.target_rows(tables.open_version(lake_root, spec.name, at), spec.name, alpha_id, wanted)
        if rows.height == 0:
            continue
        order = [k for k in lake.ROW_KEYS[spec.name] if k in rows.columns]
        rows = rows.sort(order, nulls_last=False) if order else rows
        if spec.layout == "book":
            by_book = rows.partition_by(
                tables.BOOK_COLUMN, as_dict=True, include_key=False, maintain_order=True
            )
            found.books[spec.name] = {str(book): frame for (book,), frame in sorted(by_book.items())}
        elif spec.name == "decisions":
            found.decisions = rows
        else:
            found.single[spec.name] = rows
    return found
