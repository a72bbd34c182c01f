"""Building many seals: one process per seal, up to `jobs` at a time.

Seals of different alphas are independent builds; seals of the same alpha are built one after the
other in the order given, so their pointer switches and pruning never interleave.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from datasets.storage import Storage
from pipeline.publish import Outcome, publish_seal
from pipeline.rules import SealRejected
from pipeline.seal import read_manifest


def build_one(seal_path: str, lake_root: str) -> Outcome:
    """Never raises for a broken seal: the refusal travels back as the outcome's report."""
    try:
        return publish_seal(seal_path, lake_root)
    except SealRejected as exc:
        return Outcome(seal_path, _target(seal_path), "refused", rejection=exc.as_dict())


def build_chain(seal_paths: Sequence[str], lake_root: str) -> list[Outcome]:
    return [build_one(path, lake_root) for path in seal_paths]


def _target(seal_path: str) -> str:
    try:
        manifest = read_manifest(Storage(seal_path), seal_path)
    except SealRejected:
        return os.path.basename(seal_path.rstrip("/"))
    if manifest.get("type") == "benchmark":
        return f"benchmark:{manifest.get('symbol')}"
    return str(manifest.get("alpha_id") or os.path.basename(seal_path.rstrip("/")))


def build_many(seal_paths: Sequence[str], lake_root: str, jobs: int | None = None) -> list[Outcome]:
    """Outcomes in the order of `seal_paths`."""
    chains: dict[str, list[int]] = {}
    for index, path in enumerate(seal_paths):
        chains.setdefault(_target(path), []).append(index)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chains)))
    outcomes: list[Outcome | None] = [None] * len(seal_paths)
    if jobs == 1:
        for indexes in chains.values():
            for index, outcome in zip(
                indexes, build_chain([seal_paths[i] for i in indexes], lake_root), strict=True
            ):
                outcomes[index] = outcome
    else:
        # spawn, not fork: polars and DuckDB hold thread pools that a forked child must not inherit.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures = {
                pool.submit(build_chain, [seal_paths[i] for i in indexes], lake_root): indexes
                for indexes in chains.values()
            }
            for future, indexes in futures.items():
                for index, outcome in zip(indexes, future.result(), strict=True):
                    outcomes[index] = outcome
    return [o for o in outcomes if o is not None]
