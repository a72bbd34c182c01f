"""The whole catalogue index rebuild on a Dask cluster (issue 51, item 4): `just bench-index-dask`.

`python -m tests.bench.dask_index_bench [--n 200] [--workers 1 2 4] [--out FILE]` copies
bench-catalogue's lake of N real small demo alphas (hard links; built when absent), rebuilds its
index locally (`alpha-results lake index`'s function) and then on a LocalCluster of each number of
worker processes (one thread each) started here, timing each phase of the rebuild (wall, and this
process's CPU) and every task the cluster ran (Dask's task stream: each task's start and stop on
its worker). From the tasks measured on one worker, cut as for the largest cluster modelled
(`rebuild_index_on_dask`'s `parts_for`: a finer partition costs its own repeated reads, which
the measure includes), it models the rebuild on k machines: the
phases this process runs alone (reading the rows' series into the matrices, the second hop's plan,
the commit: residuals, lists, writing) as measured, and each partitioned phase as the longest
worker's share when its tasks are handed out longest first (list scheduling) plus the measured
overhead per task. The machine has 2 CPUs shared with other sessions: more than 2 workers cannot
be faster here, so the measured runs and the model are both reported, with the load average.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PARTITIONED = {
    "row_task": "row_tasks",
    "candidate_block": "plan",
    "pair_chunk-pass1": "pairs",
    "pair_chunk-pass2": "second_hop_pairs",
}


def makespan(durations: list[float], workers: int) -> float:
    """The longest worker's total when tasks are handed out longest first to the least loaded."""
    loads = [0.0] * workers
    heapq.heapify(loads)
    for duration in sorted(durations, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + duration)
    return max(loads)


def run(lake: str, workers: int | None, parts_for: int | None = None) -> dict[str, Any]:
    from pipeline import index_rows

    timings: dict[str, float] = {}
    tasks: list[dict[str, Any]] = []
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    if workers is None:
        index_rows.rebuild(lake, timings=timings)
    else:
        from distributed import Client, LocalCluster, get_task_stream

        from pipeline.dask_build import rebuild_index_on_dask

        with LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            with Client(cluster) as client:
                client.wait_for_workers(workers)
                wall, cpu = time.perf_counter(), time.process_time()
                with get_task_stream(client) as stream:
                    rebuild_index_on_dask(lake, cluster.scheduler_address, timings, parts_for)
                for task in stream.data:
                    name = str(task["key"][0] if isinstance(task["key"], tuple) else task["key"])
                    compute = [s for s in task["startstops"] if s["action"] == "compute"]
                    if compute:
                        tasks.append(
                            {
                                "name": name,
                                "seconds": sum(s["stop"] - s["start"] for s in compute),
                                "worker": task.get("worker"),
                            }
                        )
    return {
        "workers": workers,
        "parts_for": parts_for,
        "wall_seconds": round(time.perf_counter() - wall, 2),
        "client_cpu_seconds": round(time.process_time() - cpu, 2),
        "load_average_at_start": load,
        "phases": {k: round(v, 3) for k, v in timings.items()},
        "tasks": tasks,
    }


def model(measured: dict[str, Any], machines: list[int]) -> dict[str, Any]:
    """The rebuild on k machines from one worker's measured tasks and phases (see the docstring)."""
    phases = measured["phases"]
    by_phase: dict[str, list[float]] = {}
    for task in measured["tasks"]:
        for prefix, phase in PARTITIONED.items():
            if task["name"].startswith(prefix):
                by_phase.setdefault(phase, []).append(task["seconds"])
    serial = sum(v for k, v in phases.items() if k in ("rows_and_matrices", "second_hop_plan", "commit"))
    overhead = {}
    for phase in PARTITIONED.values():
        busy = sum(by_phase.get(phase, []))
        overhead[phase] = max(0.0, phases.get(phase, 0.0) - busy)
    found = {}
    for k in machines:
        total = serial
        for phase in PARTITIONED.values():
            durations = by_phase.get(phase, [])
            total += (makespan(durations, k) if durations else 0.0) + overhead[phase]
        found[str(k)] = round(total, 2)
    return {
        "serial_seconds": round(serial, 2),
        "task_seconds": {p: round(sum(v), 2) for p, v in by_phase.items()},
        "tasks": {p: len(v) for p, v in by_phase.items()},
        "overhead_seconds": {p: round(v, 2) for p, v in overhead.items()},
        "modelled_seconds": found,
        "speedup_against_1": {k: round(found["1"] / v, 2) for k, v in found.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--machines", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    from tests.bench import catalogue_bench as cb

    corpus = cb.ensure_corpus(args.n, 1, 2, False, cb.DEFAULT_CACHE)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    results: dict[str, Any] = {"n": args.n, "cpus": os.cpu_count(), "runs": []}
    with tempfile.TemporaryDirectory(prefix="bench-index-dask-", dir=corpus.lake.parent) as work:
        lake = str(Path(work) / "lake")
        subprocess.run(["cp", "-al", str(corpus.lake), lake], check=True)
        for workers in [None, *args.workers]:
            found = run(lake, workers)
            results["runs"].append(found)
            print(json.dumps({k: v for k, v in found.items() if k != "tasks"}), flush=True)
        # The tasks a cluster of max(--machines) workers would run, measured on one worker.
        fine = run(lake, 1, max(args.machines))
        results["runs"].append(fine)
        print(json.dumps({k: v for k, v in fine.items() if k != "tasks"}), flush=True)
        shutil.rmtree(lake, ignore_errors=True)
    results["model"] = model(fine, args.machines)
    print(json.dumps(results["model"], indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
