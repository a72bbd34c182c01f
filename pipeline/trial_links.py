"""The trials' links and clusters kept per catalogue generation (analytics/trial_clusters.py;
docs/analytics.md, "Significance"; docs/lake.md, "The catalogue index").

A generation's `trials` document names its links file (`links`: every pair of indexed alphas whose
whole-history daily returns correlate at least LINK_CORRELATION, `schemas.lake.TRIAL_LINKS`), how
many trials it clusters (`clustered`: the alphas of its index with a measurable Sharpe ratio) and
their clusters (`clusters`). A publish (`updated`) keeps the links of the alphas it leaves alone,
drops those of the builds it replaces or removes, adds its alphas' own (each alpha's row against
every row of the returns matrix, one masked pass) and counts the components again. A generation
without links (written before them) is linked from scratch when it holds at most
FROM_SCRATCH_UP_TO alphas; above, it stays without until `alpha-results lake index` (`rebuild`)
links every pair.
"""

from __future__ import annotations

import io
import math
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from alpha_results_seal.storage import Storage
from analytics import trial_clusters
from analytics.trial_clusters import Link
from datasets import catalogue_index
from schemas.lake import TRIAL_LINKS

FROM_SCRATCH_UP_TO = 2_000
"""Alphas up to which a publish onto a generation without links links every pair (O(N^2) rows)."""


@dataclass
class Kept:
    """What a generation records of its links: the links, the file naming them (None: to write),
    the new files and the retired one."""

    links: list[Link] | None
    path: str | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    retired: list[str] = field(default_factory=list)


def read(storage: Storage, root: str, document: Mapping[str, Any] | None) -> tuple[list[Link], str] | None:
    """The links a generation's trials document names, and their path; None when it names none."""
    path = None if not document else document.get("links")
    if path is None:
        return None
    table = catalogue_index.read_table(storage, root, str(path), TRIAL_LINKS)
    return (
        list(
            zip(
                table.column("alpha_a").to_pylist(),
                table.column("alpha_b").to_pylist(),
                table.column("correlation").to_pylist(),
                strict=True,
            )
        ),
        str(path),
    )


def encode(links: list[Link]) -> bytes:
    ordered = sorted(links)
    table = pa.table(
        {
            "alpha_a": pa.array([a for a, _, _ in ordered], pa.string()),
            "alpha_b": pa.array([b for _, b, _ in ordered], pa.string()),
            "correlation": pa.array([c for _, _, c in ordered], pa.float64()),
        },
        schema=TRIAL_LINKS,
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def aligned_row(days: np.ndarray, series_days: np.ndarray, series: np.ndarray) -> np.ndarray:
    """A series (its days, values) placed on `days` (NaN where it has none; its days `days` lacks
    share no date with any row on `days`, so leaving them out changes no correlation)."""
    row = np.full(days.size, np.nan)
    if days.size == 0 or series_days.size == 0:
        return row
    at = np.searchsorted(days, series_days)
    inside = at < days.size
    inside[inside] = days[at[inside]] == series_days[inside]
    row[at[inside]] = np.where(np.isfinite(series[inside]), series[inside], np.nan)
    return row


Source = tuple[Sequence[str], np.ndarray, np.ndarray, np.ndarray | None]
"""Rows to link against: (their alpha ids, days, values: rows x days, a mask of rows to leave out)."""


def new_links(sources: Sequence[Source], fresh: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> list[Link]:
    """The links of the `fresh` alphas' series (alpha -> days, values): each against every row of
    `sources` (which must not hold them), and each pair of them once."""
    found: list[Link] = []
    for alpha, (series_days, series) in fresh.items():
        for ids, days, values, skip in sources:
            found += trial_clusters.links_against(
                values, ids, aligned_row(days, series_days, series), alpha, skip
            )
    names = list(fresh)
    if len(names) > 1:
        days = np.unique(np.concatenate([fresh[a][0] for a in names])).astype(np.int32)
        values = np.vstack([aligned_row(days, *fresh[a]) for a in names])
        found += trial_clusters.from_scratch(values, names)
    return found


def clusters(ids: pa.Array | pa.ChunkedArray, sharpes: np.ndarray, links: list[Link]) -> tuple[int, int]:
    """(clusters, trials): the components of the trials (the alphas of `ids` whose Sharpe ratio in
    `sharpes` is finite) under `links`."""
    trials = np.isfinite(sharpes)
    nodes = pc.filter(ids, pa.array(trials))
    if isinstance(nodes, pa.ChunkedArray):
        nodes = nodes.combine_chunks()
    a = pc.index_in(pa.array([x for x, _, _ in links], pa.string()), value_set=nodes)
    b = pc.index_in(pa.array([y for _, y, _ in links], pa.string()), value_set=nodes)
    both = pc.and_(pc.is_valid(a), pc.is_valid(b))
    rows_a = np.asarray(pc.filter(a, both).to_numpy(zero_copy_only=False), dtype=np.int64)
    rows_b = np.asarray(pc.filter(b, both).to_numpy(zero_copy_only=False), dtype=np.int64)
    count = int(np.count_nonzero(trials))
    return trial_clusters.components(count, rows_a, rows_b), count


def kept(before: tuple[list[Link], str] | None, leaving: Collection[str], added: list[Link]) -> Kept:
    """The links after a publish: `before`'s without those of `leaving`, and `added`."""
    assert before is not None
    links, path = before
    gone = set(leaving)
    following = [link for link in links if link[0] not in gone and link[1] not in gone]
    if len(following) == len(links) and not added:
        return Kept(following, path)
    following += added
    new_path = f"links/{uuid.uuid4().hex}.parquet"
    return Kept(following, new_path, {new_path: encode(following)}, [path])


def from_scratch(ids: Sequence[str], values: np.ndarray) -> Kept:
    """Every link among the rows of the returns matrix `values` (ids `ids`), in a new file."""
    links = trial_clusters.from_scratch(values, list(ids))
    path = f"links/{uuid.uuid4().hex}.parquet"
    return Kept(links, path, {path: encode(links)})


Trials = Callable[[], tuple[pa.Array | pa.ChunkedArray, np.ndarray]]
"""() -> the ids of a generation's alphas and their Sharpe ratios (NaN: not a trial), asked only
when there are links to cluster (a publish's are a pass over every row)."""


def document(sums: dict[str, Any], found: Kept, trials_of: Trials) -> dict[str, Any]:
    """The trials document: the sums (`datasets.trial_sums`), and the links' path and clusters."""
    if found.links is None or found.path is None:
        return sums
    count, trials = clusters(*trials_of(), found.links)
    return {**sums, "links": found.path, "clustered": trials, "clusters": count}


def sharpes_of(table: pa.Table) -> np.ndarray:
    return np.asarray(
        pc.fill_null(table.column("sharpe_per_session").cast(pa.float64()), math.nan).to_numpy(
            zero_copy_only=False
        )
    )
