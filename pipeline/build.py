"""Building many seals: one process per seal, up to `jobs` at a time (the local executor).

Seals of different alphas are independent builds; seals of the same alpha are built one after the
other in the order given, so their pointer switches and pruning never interleave. The Dask
executor (`pipeline.dask_build`) keeps the same rule and shares the helpers below: grouping seals
into chains by target, expanding a prefix of seals, and `Failure`, the result of a seal whose
build raised on a cluster instead of being refused.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from datasets import layout
from datasets.storage import Storage
from pipeline.publish import Outcome, publish_seal
from pipeline.rules import SealRejected
from pipeline.seal import MANIFEST, read_manifest


@dataclass
class Failure:
    """A seal whose build raised instead of being refused, so nothing says the seal is wrong: the
    object store did not answer through every retry, its task's workers kept dying (the scheduler
    gave up on it), or the worker runs another pipeline version. Only the Dask executor reports
    one; the local executor lets the exception end the run, as it always has."""

    seal: str
    target: str
    error: str
    status: str = "failed"

    def line(self) -> str:
        return f"failed     {self.target}  ({self.seal}): {self.error}"


SealResult = Outcome | Failure


def build_one(seal_path: str, lake_root: str, indexed: bool = True) -> Outcome:
    """Never raises for a broken seal: the refusal travels back as the outcome's report. `indexed`:
    commit the catalogue index after the publish (`publish_seal`)."""
    try:
        return publish_seal(seal_path, lake_root, indexed)
    except SealRejected as exc:
        return Outcome(seal_path, seal_target(seal_path), "refused", rejection=exc.as_dict())


def build_chain(seal_paths: Sequence[str], lake_root: str, indexed: bool = True) -> list[Outcome]:
    return [build_one(path, lake_root, indexed) for path in seal_paths]


def seal_target(seal_path: str) -> str:
    """The alpha id (or `benchmark:<symbol>`) a seal publishes; its folder name when its manifest
    cannot be read (the build will refuse it and say why)."""
    try:
        manifest = read_manifest(Storage(seal_path), seal_path)
    except SealRejected:
        return os.path.basename(seal_path.rstrip("/"))
    if manifest.get("type") == "benchmark":
        return f"benchmark:{manifest.get('symbol')}"
    return str(manifest.get("alpha_id") or os.path.basename(seal_path.rstrip("/")))


def chains_by_target(targets: Sequence[str]) -> dict[str, list[int]]:
    """Indexes of the seals of each target, in the order given: each list is built in turn."""
    chains: dict[str, list[int]] = {}
    for index, target in enumerate(targets):
        chains.setdefault(target, []).append(index)
    return chains


def expand_seal_prefix(prefix: str) -> list[str]:
    """The seals directly under `prefix` (a folder or `s3://bucket/seals/`): each entry holding a
    manifest.json, sorted by name."""
    storage = Storage(prefix)
    root = prefix.rstrip("/")
    entries = [layout.join(root, name) for name in storage.list_names(root)]
    return [entry for entry in entries if storage.exists(layout.join(entry, MANIFEST))]


def build_many(
    seal_paths: Sequence[str], lake_root: str, jobs: int | None = None, indexed: bool = True
) -> list[Outcome]:
    """Outcomes in the order of `seal_paths`."""
    chains = chains_by_target([seal_target(path) for path in seal_paths])
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chains)))
    outcomes: list[Outcome | None] = [None] * len(seal_paths)
    if jobs == 1:
        for indexes in chains.values():
            for index, outcome in zip(
                indexes, build_chain([seal_paths[i] for i in indexes], lake_root, indexed), strict=True
            ):
                outcomes[index] = outcome
    else:
        # spawn, not fork: polars and DuckDB hold thread pools that a forked child must not inherit.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures = {
                pool.submit(build_chain, [seal_paths[i] for i in indexes], lake_root, indexed): indexes
                for indexes in chains.values()
            }
            for future, indexes in futures.items():
                for index, outcome in zip(indexes, future.result(), strict=True):
                    outcomes[index] = outcome
    return [o for o in outcomes if o is not None]
