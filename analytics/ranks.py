"""The service's one rank-correlation rule (the engine's stored `mean_ic` definition): Spearman
with average ranks for ties, over the rows where both sides are non-null and finite, for groups
with at least MIN_PAIRS such pairs and both sides non-constant; otherwise null. Grouped polars
expressions, no per-row Python: the pipeline's weekly series and the server's score correlation
both rank through `spearman_by`."""

from __future__ import annotations

import polars as pl

MIN_PAIRS = 3


def spearman_by(frame: pl.DataFrame, keys: list[str], x: str, y: str) -> pl.DataFrame:
    """Per group of `keys`: `rho` (Spearman of x vs y, or null) and `n` (complete pairs)."""
    pairs = frame.select(*keys, pl.col(x).alias("_x"), pl.col(y).alias("_y")).filter(
        pl.col("_x").is_not_null()
        & pl.col("_y").is_not_null()
        & pl.col("_x").is_finite()
        & pl.col("_y").is_finite()
    )
    ranked = pairs.with_columns(
        pl.col("_x").rank("average").over(keys).alias("_rx"),
        pl.col("_y").rank("average").over(keys).alias("_ry"),
    )
    return ranked.group_by(keys).agg(
        pl.when((pl.len() >= MIN_PAIRS) & (pl.col("_rx").std() > 0) & (pl.col("_ry").std() > 0))
        .then(pl.corr("_rx", "_ry"))
        .otherwise(None)
        .fill_nan(None)
        .alias("rho"),
        pl.len().cast(pl.Int32).alias("n"),
    )
