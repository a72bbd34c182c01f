"""A valid seal that differs from another only in its stored metric values."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from alpha_results_seal import arrow_schemas as S
from tests.pipeline.conftest import copy_seal


def new_version(source: Path, target: Path, value: float) -> Path:
    """A valid seal that differs from `source` only in its stored metric values."""
    seal = copy_seal(source, target)
    metrics = pl.read_parquet(seal / "metrics.parquet").with_columns(value=pl.lit(float(value)))
    pq.write_table(metrics.to_arrow().cast(S.METRICS), seal / "metrics.parquet")
    return seal
