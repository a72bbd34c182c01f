"""Building many seals: one process per seal, up to `jobs` at a time (the local executor).

Seals of different alphas are independent builds; seals of the same alpha are built one after the
other in the order given, so their pointer switches and pruning never interleave. The Dask
executor (`pipeline.dask_build`) keeps the same rule and shares the helpers below: grouping seals
into chains by target, expanding a prefix of seals, and `Failure`, the result of a seal whose
build raised instead of being refused.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from alpha_results_seal.families import DEFAULT_TEAM
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.seal import MANIFEST, seal_target
from alpha_results_seal.seal_limits import SealLimits
from alpha_results_seal.storage import Storage
from datasets import layout
from pipeline.publish import Outcome, publish_seal


@dataclass
class Failure:
    """A seal whose build raised instead of being refused, so nothing says the seal is wrong: the
    object store did not answer through every retry, the process building it died, its task's
    workers kept dying (the scheduler gave up on it), the worker runs another pipeline version,
    or a fault of the pipeline itself. The other seals still build and the report is printed."""

    seal: str
    target: str
    error: str
    status: str = "failed"

    def line(self) -> str:
        return f"failed     {self.target}  ({self.seal}): {self.error}"


SealResult = Outcome | Failure


def build_one(
    seal_path: str,
    lake_root: str,
    indexed: bool = True,
    limits: SealLimits | None = None,
    team: str | None = DEFAULT_TEAM,
    allow_rollback: bool = False,
) -> Outcome:
    """Never raises for a broken seal: the refusal travels back as the outcome's report. `indexed`:
    commit the catalogue index after the publish (`publish_seal`); `allow_rollback`: publish a run
    older than the one published (`pipeline.knowledge.ROLLBACK_RULE`). Any other exception is
    raised, so that Dask retries the task."""
    try:
        return publish_seal(seal_path, lake_root, indexed, limits, team, allow_rollback)
    except SealRejected as exc:
        return Outcome(seal_path, seal_target(seal_path, limits), "refused", rejection=exc.as_dict())


def build_chain(
    seal_paths: Sequence[str],
    lake_root: str,
    indexed: bool = True,
    limits: SealLimits | None = None,
    team: str | None = DEFAULT_TEAM,
    allow_rollback: bool = False,
) -> list[SealResult]:
    """The local executor's seals of one target, in turn. A build that raises is that seal's
    `Failure` (its error in the report), never the end of the run: the next seal still builds."""
    results: list[SealResult] = []
    for path in seal_paths:
        try:
            results.append(build_one(path, lake_root, indexed, limits, team, allow_rollback))
        except Exception as exc:
            results.append(Failure(path, seal_target(path, limits), f"{type(exc).__name__}: {exc}"))
    return results


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
    seal_paths: Sequence[str],
    lake_root: str,
    jobs: int | None = None,
    indexed: bool = True,
    limits: SealLimits | None = None,
    team: str | None = DEFAULT_TEAM,
    allow_rollback: bool = False,
) -> list[SealResult]:
    """Results in the order of `seal_paths`, one per seal whatever happens to the others; `team`:
    the team the run publishes for (the trial families' owner, alpha_results_seal.families)."""
    targets = [seal_target(path, limits) for path in seal_paths]
    chains = chains_by_target(targets)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chains)))
    results: list[SealResult | None] = [None] * len(seal_paths)
    if jobs == 1:
        for indexes in chains.values():
            chain = build_chain(
                [seal_paths[i] for i in indexes], lake_root, indexed, limits, team, allow_rollback
            )
            for index, result in zip(indexes, chain, strict=True):
                results[index] = result
    else:
        # spawn, not fork: polars and DuckDB hold thread pools that a forked child must not inherit.
        context = multiprocessing.get_context("spawn")
        # Ctrl-C reaches the workers too: they end at once and silently (the default action), and
        # the interrupted command says so once (cli.main), not with a traceback per worker.
        quiet_interrupt = (signal.SIGINT, signal.SIG_DFL)
        with ProcessPoolExecutor(
            max_workers=jobs, mp_context=context, initializer=signal.signal, initargs=quiet_interrupt
        ) as pool:
            futures = {
                pool.submit(
                    build_chain,
                    [seal_paths[i] for i in indexes],
                    lake_root,
                    indexed,
                    limits,
                    team,
                    allow_rollback,
                ): indexes
                for indexes in chains.values()
            }
            for future, indexes in futures.items():
                try:
                    chain = future.result()
                except BrokenProcessPool as exc:  # a build process died (killed, out of memory)
                    error = f"the build process ended abruptly ({exc})"
                    chain = [Failure(seal_paths[i], targets[i], error) for i in indexes]
                for index, result in zip(indexes, chain, strict=True):
                    results[index] = result
    return [r for r in results if r is not None]
