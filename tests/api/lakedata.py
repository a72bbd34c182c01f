"""Independent reads of the demo lake (straight from Parquet with polars) to check served values."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from datasets import catalog


def build_dir(lake: Path, alpha: str) -> Path:
    build = catalog.current_build(str(lake), alpha)
    assert build is not None
    return Path(build.build_dir)


def table(lake: Path, alpha: str, name: str) -> pl.DataFrame:
    folder = build_dir(lake, alpha)
    single = folder / f"{name}.parquet"
    if single.exists():
        return pl.read_parquet(single)
    return pl.read_parquet(folder / name / "*" / "*.parquet", hive_partitioning=True)
