"""Edits of a copied seal (one cell, one row, its manifest) and a snapshot of a lake's bytes: how a
test breaks a valid seal in one place and checks the published build stayed as it was."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from alpha_results_seal import arrow_schemas as S


def snapshot(lake: Path) -> dict[str, bytes]:
    return {str(p.relative_to(lake)): p.read_bytes() for p in sorted(lake.rglob("*")) if p.is_file()}


def edit(path: Path, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
    kind = path.parent.name if path.parent.name in S.BOOK_KINDS else path.stem
    schema = S.BENCHMARK_DAILY if path.name == "daily.parquet" else S.KIND_SCHEMAS[kind]
    loose = pa.schema([f.with_nullable(True) for f in schema])
    frame = change(pl.read_parquet(path))
    pq.write_table(frame.to_arrow().select(schema.names).cast(loose), path)


def set_cell(column: str, row: int, value: object) -> Callable[[pl.DataFrame], pl.DataFrame]:
    def change(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(
            pl.when(pl.int_range(pl.len()) == row).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)
        )

    return change


def add_to(columns: dict[str, float], where: pl.Expr) -> Callable[[pl.DataFrame], pl.DataFrame]:
    def change(frame: pl.DataFrame) -> pl.DataFrame:
        flagged = frame.with_row_index("_i").filter(where)["_i"][0]
        first = pl.int_range(pl.len()) == flagged
        return frame.with_columns(
            pl.when(first).then(pl.col(c) + d).otherwise(pl.col(c)).alias(c) for c, d in columns.items()
        )

    return change


def edit_manifest(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def mutate(seal: Path) -> None:
        manifest = json.loads((seal / "manifest.json").read_text())
        change(manifest)
        (seal / "manifest.json").write_text(json.dumps(manifest))

    return mutate


def on(relative: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> Callable[[Path], None]:
    return lambda seal: edit(seal / relative, change)
