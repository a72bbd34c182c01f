"""Independent reads of the demo lake (a build's rows of the lake's open tables, with polars) to
check served values."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from datasets import catalog
from tests.support.build_tables import build_table


def build_dir(lake: Path, alpha: str) -> Path:
    build = catalog.current_build(str(lake), alpha)
    assert build is not None
    return Path(build.build_dir)


def table(lake: Path, alpha: str, name: str) -> pl.DataFrame:
    """The served build's rows of `name` (`build_table`): a book table's every book, with its
    `book` column, as the hive-partitioned read of its Parquet gave them before pipeline 2.12.0."""
    return build_table(build_dir(lake, alpha), name)
