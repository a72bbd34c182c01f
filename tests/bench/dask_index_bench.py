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

With `--netns` (issue 63, item 4) each cluster is made of real processes on "machines" that are
Linux network namespaces of this host instead of a LocalCluster: `dask scheduler` in a namespace of
its own, `dask worker --nworkers P --nthreads 1` in each machine's namespace (P = `--per-machine`,
default 2: `--workers 4` is two machines of two worker processes), every namespace joined to a
bridge by a veth pair, this process (the client) on the bridge's address in the host's namespace.
So every message between client, scheduler and workers crosses a network stack and a veth pair
(no bandwidth limit or delay is added: the link is a host's, not a data centre's). The
namespaces, links and processes are removed on exit, on Ctrl-C or SIGTERM, and when a step fails;
namespaces a killed run left behind (its pid in their name no longer alive) are removed first.
Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) and `ip` (iproute2).
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from tests.bench.harness import Children

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


NETNS_PREFIX = "ar-dask-"
SCHEDULER_PORT = 8786  # inside the scheduler's own namespace: no port of the host is taken


def _ip(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *argv], check=check, capture_output=True, text=True)


def _remove_namespace(name: str, host_links: list[str]) -> None:
    """End every process left in namespace `name` (by pid: they are this benchmark's), then the
    namespace and the host's ends of its links."""
    found = _ip("netns", "pids", name, check=False)
    for pid in found.stdout.split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    for link in host_links:
        _ip("link", "del", link, check=False)
    _ip("netns", "del", name, check=False)


def remove_stale_namespaces() -> list[str]:
    """Namespaces of this benchmark whose run (the pid in the name) is no longer alive."""
    removed = []
    for line in _ip("netns", "list", check=False).stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        if not name.startswith(NETNS_PREFIX):
            continue
        owner = name[len(NETNS_PREFIX) :].split("-")[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            _remove_namespace(name, [f"ard{owner}h{name.rsplit('-m', 1)[-1]}"])
            _ip("link", "del", f"ard{owner}br", check=False)
            removed.append(name)
    return removed


@contextlib.contextmanager
def netns_cluster(machines: int, per_machine: int, children: Children) -> Iterator[str]:
    """A scheduler and `machines` x `per_machine` one-thread dask workers, each machine its own
    network namespace on a bridge; yields the scheduler's address. Everything is removed on exit."""
    tag = str(os.getpid())
    subnet = f"10.251.{os.getpid() % 250}"
    bridge = f"ard{tag}br"
    made: list[tuple[str, str]] = []  # (namespace, host end of its veth)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        _ip("link", "add", bridge, "type", "bridge")
        _ip("addr", "add", f"{subnet}.1/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
        for number in range(machines + 1):  # namespace 0: the scheduler's
            name, host, inner = f"{NETNS_PREFIX}{tag}-m{number}", f"ard{tag}h{number}", f"ard{tag}n{number}"
            _ip("netns", "add", name)
            made.append((name, host))
            _ip("link", "add", host, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", name)
            _ip("link", "set", host, "master", bridge)
            _ip("link", "set", host, "up")
            _ip("-n", name, "addr", "add", f"{subnet}.{10 + number}/24", "dev", inner)
            _ip("-n", name, "link", "set", inner, "up")
            _ip("-n", name, "link", "set", "lo", "up")
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
        dask = str(Path(sys.executable).with_name("dask"))
        address = f"tcp://{subnet}.10:{SCHEDULER_PORT}"
        logs = Path(tempfile.mkdtemp(prefix="netns-dask-"))
        scheduler = [
            dask,
            "scheduler",
            "--host",
            f"{subnet}.10",
            "--port",
            str(SCHEDULER_PORT),
            "--no-dashboard",
        ]
        procs.append(
            children.start(
                ["ip", "netns", "exec", made[0][0], *scheduler], env=env, log=logs / "scheduler.log"
            )
        )
        for number in range(1, machines + 1):
            worker = [
                dask,
                "worker",
                address,
                "--host",
                f"{subnet}.{10 + number}",
                "--nworkers",
                str(per_machine),
            ]
            worker += ["--nthreads", "1", "--no-dashboard", "--name", f"machine{number}"]
            log = logs / f"machine{number}.log"
            procs.append(children.start(["ip", "netns", "exec", made[number][0], *worker], env=env, log=log))
        yield address
    finally:
        for proc in reversed(procs):
            children.stop(proc)
        for name, host in reversed(made):
            _remove_namespace(name, [host])
        _ip("link", "del", bridge, check=False)


def run(
    lake: str, workers: int | None, parts_for: int | None = None, netns: int | None = None
) -> dict[str, Any]:
    """One rebuild: local (`workers` None), on a LocalCluster of `workers` processes, or with
    `netns` on namespaces of `netns` worker processes each (`workers` in all)."""
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

        with contextlib.ExitStack() as stack:
            if netns is None:
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                    )
                )
                address = cluster.scheduler_address
            else:
                children = stack.enter_context(Children())
                machines = -(-workers // netns)
                address = stack.enter_context(netns_cluster(machines, min(netns, workers), children))
            client = stack.enter_context(Client(address, timeout=120))
            client.wait_for_workers(workers, timeout=300)
            wall, cpu = time.perf_counter(), time.process_time()
            with get_task_stream(client) as stream:
                rebuild_index_on_dask(lake, address, timings, parts_for)
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
        "per_machine": netns,
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


def against_model(runs: list[dict[str, Any]], modelled: dict[str, Any], cores: int) -> list[dict[str, Any]]:
    """Each measured cluster run beside the model at its worker count, and at the machine's cores
    when it has fewer (k processes on c < k cores cannot beat c workers: the bound to compare)."""
    coarse = [r for r in runs if r["workers"] is not None and r["parts_for"] is None]
    one = next((r["wall_seconds"] for r in coarse if r["workers"] == 1), None)
    seconds = modelled["modelled_seconds"]
    rows = []
    for found in coarse:
        k = found["workers"]
        rows.append(
            {
                "workers": k,
                "measured_seconds": found["wall_seconds"],
                "measured_against_1": round(one / found["wall_seconds"], 2) if one else None,
                "modelled_seconds": seconds[str(k)],
                "modelled_against_1": round(seconds["1"] / seconds[str(k)], 2),
                "modelled_on_these_cores_seconds": seconds[str(min(k, cores))],
                "modelled_on_these_cores_against_1": round(seconds["1"] / seconds[str(min(k, cores))], 2),
                "load_average_at_start": found["load_average_at_start"],
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--machines", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--out")
    parser.add_argument(
        "--netns", action="store_true", help="clusters of real processes in network namespaces"
    )
    parser.add_argument(
        "--per-machine", type=int, default=2, help="with --netns: worker processes per namespace"
    )
    args = parser.parse_args(argv)
    netns = args.per_machine if args.netns else None
    if netns is not None:
        remove_stale_namespaces()

        def leave(signum: int, frame: FrameType | None) -> None:
            raise SystemExit(128 + signum)  # through every `finally`: the namespaces go

        signal.signal(signal.SIGTERM, leave)
        signal.signal(signal.SIGHUP, leave)
    from tests.bench import catalogue_bench as cb

    corpus = cb.ensure_corpus(args.n, 1, 2, False, cb.DEFAULT_CACHE)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    results: dict[str, Any] = {"n": args.n, "cpus": os.cpu_count(), "netns_per_machine": netns, "runs": []}
    with tempfile.TemporaryDirectory(prefix="bench-index-dask-", dir=corpus.lake.parent) as work:
        lake = str(Path(work) / "lake")
        subprocess.run(["cp", "-al", str(corpus.lake), lake], check=True)
        for workers in [None, *args.workers]:
            found = run(lake, workers, netns=netns if workers is not None else None)
            results["runs"].append(found)
            print(json.dumps({k: v for k, v in found.items() if k != "tasks"}), flush=True)
        # The tasks a cluster of max(--machines) workers would run, measured on one worker.
        fine = run(lake, 1, max(args.machines), netns=netns)
        results["runs"].append(fine)
        print(json.dumps({k: v for k, v in fine.items() if k != "tasks"}), flush=True)
        shutil.rmtree(lake, ignore_errors=True)
    cores = os.cpu_count() or 1
    counts = sorted({*args.machines, *args.workers, *(min(k, cores) for k in args.workers)})
    results["model"] = model(fine, counts)
    results["measured_against_model"] = against_model(results["runs"], results["model"], cores)
    print(json.dumps(results["model"], indent=1))
    print(json.dumps(results["measured_against_model"], indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
