"""Catalogue-wide steps: the work of `alpha-results build` that needs every build of the lake.

A per-seal task sees one alpha. Some work needs more: collecting the garbage of every alpha the
run targeted (a refused seal's alpha included), today. (The catalogue index, with the analytics'
catalogue-wide figures, is committed by each publish: `pipeline/index_rows.py`.) Each such
step is declared once, in `CATALOGUE_STEPS`, and
both executors run the list once per build run, after every per-seal task has ended, whatever
the seals' outcomes: a refused or failed seal never holds a step back (the previous build of its
alpha is still the one served, and the step reads the lake as it is).

A step is a function `(lake_root, results) -> lines`: it reads (and may write) the lake, is told
what this run's seals did (`Outcome` or `Failure` per seal, for a step that can skip work when
nothing was published), and returns the lines the command prints. A step must be idempotent:
on a cluster it runs as a Dask task, which the scheduler runs again when its worker dies. A step
that raises is reported (its traceback printed) and makes the command exit non-zero; the steps
after it still run.

Plugging in a step (a catalogue-wide aggregate written to the lake, for example):

    def write_aggregate(lake_root: str, results: Sequence[SealResult]) -> list[str]:
        aggregate = compute(catalog.list_alphas(lake_root))  # every current build
        Storage(lake_root).replace_atomically(aggregate_path(lake_root), dumps(aggregate))
        return [f"aggregate  {aggregate['alphas']} alphas"]

    CATALOGUE_STEPS = (CatalogueStep("aggregate", write_aggregate), GARBAGE_STEP)
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from datasets import retention
from pipeline.build import SealResult


@dataclass(frozen=True)
class CatalogueStep:
    name: str
    run: Callable[[str, Sequence[SealResult]], list[str]]


@dataclass
class StepReport:
    """What one step printed, and its error (type, message and traceback) when it raised."""

    name: str
    lines: list[str] = field(default_factory=list)
    error: str | None = None


def collect_run_garbage(lake_root: str, results: Sequence[SealResult]) -> list[str]:
    """Garbage of earlier killed publishes of the alphas this run targeted goes with it: O(the
    run's seals), not O(the lake) (on S3 about 15 requests per alpha). Garbage of alphas no run
    targets again is swept by `alpha-results lake gc --apply` (docs/operations.md)."""
    targets = [result.target for result in results]
    return [f"collected  {g.path}" for g in retention.collect_lake(lake_root, targets=targets)]


GARBAGE_STEP = CatalogueStep("gc", collect_run_garbage)


def compact_catalogue(lake_root: str, results: Sequence[SealResult]) -> list[str]:
    """The catalogue's delta folded into a whole generation once it holds
    `index_rows.COMPACT_AFTER` rows or list changes (docs/lake.md "Delta generations"): after
    the run's publishes, which are visible from their own delta generations already."""
    from pipeline import (
        index_rows,  # the publish's own module; imported when the step runs
    )

    number = index_rows.compact(lake_root)
    return [] if number is None else [f"compacted  the catalogue index into generation {number}"]


COMPACT_STEP = CatalogueStep("compact", compact_catalogue)

# In the order they run. Garbage collection last: a step before it may still read any build.
CATALOGUE_STEPS: tuple[CatalogueStep, ...] = (COMPACT_STEP, GARBAGE_STEP)


def run_catalogue_steps(
    lake_root: str, results: Sequence[SealResult], steps: Sequence[CatalogueStep] | None = None
) -> list[StepReport]:
    """Runs every step in turn; a step that raises is reported and the next one still runs."""
    reports = []
    for step in CATALOGUE_STEPS if steps is None else steps:
        try:
            reports.append(StepReport(step.name, step.run(lake_root, results)))
        except Exception as exc:  # reported with its traceback; the command exits non-zero
            error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc().rstrip()}"
            reports.append(StepReport(step.name, error=error))
    return reports
