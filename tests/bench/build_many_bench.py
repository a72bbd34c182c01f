"""`just bench-build-many`: N full-size alphas built by the local executor and on a Dask cluster.

    python -m tests.bench.build_many_bench [--n 8] [--threads 1] [--keep DIR]

Writes the full-size seal of momentum_12_1 once (`alpha-results demo --size full`), copies it under
N alpha ids (each copy differs only in `alpha_id` and the archive's file name, so each is a seal of
its own that validates like the original), then builds the N copies into an empty lake twice:

- `alpha-results build COPIES --executor local --jobs 2`: the process pool of two;
- `alpha-results build COPIES --executor dask://...`: on a `dask.distributed.LocalCluster` of two
  worker processes (`--threads` each, default 1) started beforehand, as a cluster is in service.

Reports, per executor: wall time of the command (the local one includes starting its pool; both
include importing the pipeline in their workers, which start cold), alphas per minute, and the
peak RSS of a worker process: for the pool, the largest `ru_maxrss` of the command's children
(every child of the pool); for Dask, each worker's own `ru_maxrss`, read on the worker after the
build, and before it (its footprint idle). Checks that both lakes hold the same content ids.
Prints a Markdown table and writes it to var/bench/build_many.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.bench.harness import REPO, BenchError, cli, git_revision, run_checked
from tests.bench.scale_bench import copy_seals

ALPHA = "momentum_12_1"
WORKERS = 2


@dataclass
class Run:
    executor: str
    wall_seconds: float
    n: int
    worker_peak_mib: list[float]
    idle_mib: list[float] | None = None
    client_peak_mib: float | None = None

    @property
    def alphas_per_minute(self) -> float:
        return 60 * self.n / self.wall_seconds


def timed_command(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, the largest peak RSS (MiB) among the command and its children, and stdout,
    from a wrapper process whose RUSAGE_CHILDREN covers the command's whole tree."""
    wrapper = (
        "import resource, subprocess, sys; "
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "sys.stderr.write(done.stderr); sys.stdout.write(done.stdout); "
        "print('maxrss', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
        "sys.exit(done.returncode)"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", wrapper, *argv], cwd=REPO, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise BenchError(
            f"{' '.join(argv[:3])} ... exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    lines = done.stdout.splitlines()
    return wall, int(lines[-1].split()[1]) / 1024, "\n".join(lines[:-1])


def check_published(stdout: str, n: int) -> None:
    published = sum(line.startswith("published") for line in stdout.splitlines())
    if published != n:
        raise BenchError(f"{published} of {n} seals published:\n{stdout[-3000:]}")


def worker_maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def content_ids(lake: Path) -> dict[str, str]:
    found = {}
    for pointer in sorted(lake.glob("alphas/*/_current.json")):
        found[pointer.parent.name] = json.loads(pointer.read_text())["content_id"]
    return found


def build_local(copies: list[str], lake: Path, env: dict[str, str]) -> Run:
    argv = [*cli(), "build", *copies, "--lake", str(lake), "--executor", "local", "--jobs", str(WORKERS)]
    wall, peak, out = timed_command(argv, env)
    check_published(out, len(copies))
    return Run("local (process pool, --jobs 2)", wall, len(copies), [peak])


def build_dask(copies: list[str], lake: Path, env: dict[str, str], threads: int, malloc_trim: bool) -> Run:
    import dask
    from distributed import Client, LocalCluster

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    if not malloc_trim:
        environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    with (
        dask.config.set({"distributed.nanny.pre-spawn-environ": environ}),
        LocalCluster(
            n_workers=WORKERS, threads_per_worker=threads, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        client.wait_for_workers(WORKERS, timeout=120)
        idle = sorted(client.run(worker_maxrss_mib).values())
        address = "dask://" + cluster.scheduler_address.removeprefix("tcp://")
        argv = [*cli(), "build", *copies, "--lake", str(lake), "--executor", address]
        wall, client_peak, out = timed_command(argv, env)
        check_published(out, len(copies))
        peaks = sorted(client.run(worker_maxrss_mib).values())
    label = f"Dask LocalCluster, {WORKERS} worker processes x {threads} thread{'s' if threads > 1 else ''}"
    if not malloc_trim:
        label += ", without MALLOC_TRIM_THRESHOLD_"
    return Run(label, wall, len(copies), peaks, idle, client_peak)


def report(runs: list[Run], command: str, seal_bytes: int, load: str) -> str:
    lines = [
        f"`{command}`: copies of the full-size `{ALPHA}` seal ({seal_bytes / 1e6:.1f} MB each), "
        f"cpus {os.cpu_count()}, load average {load}, revision {git_revision()}",
        "",
        "| executor | wall, median (range) | alphas per minute, median (best) | peak RSS per worker "
        "| worker idle | client peak |",
        "|---|---|---|---|---|---|",
    ]
    for executor in dict.fromkeys(run.executor for run in runs):
        mine = [run for run in runs if run.executor == executor]
        walls = sorted(run.wall_seconds for run in mine)
        median = statistics.median(walls)
        spread = f" ({walls[0]:.1f}-{walls[-1]:.1f})" if len(walls) > 1 else ""
        peaks = " / ".join(f"{p:.0f}" for p in max((run.worker_peak_mib for run in mine), key=max)) + " MiB"
        idle = [run.idle_mib for run in mine if run.idle_mib]
        idle_text = " / ".join(f"{p:.0f}" for p in idle[0]) + " MiB" if idle else "-"
        clients = [run.client_peak_mib for run in mine if run.client_peak_mib]
        client = f"{max(clients):.0f} MiB" if clients else "(in the peak)"
        per_minute = f"{60 * mine[0].n / median:.1f}"
        if len(walls) > 1:
            per_minute += f" ({60 * mine[0].n / walls[0]:.1f})"
        lines.append(
            f"| {executor} | {median:.1f} s{spread} | {per_minute} | {peaks} | {idle_text} | {client} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=8, help="copies of the full-size alpha (default 8)")
    parser.add_argument("--rounds", type=int, default=1, help="builds per executor, alternating (default 1)")
    parser.add_argument("--threads", type=int, default=1, help="threads per Dask worker process (default 1)")
    parser.add_argument(
        "--no-malloc-trim",
        action="store_true",
        help="start the Dask workers without the nanny's MALLOC_TRIM_THRESHOLD_=65536 (its default)",
    )
    parser.add_argument("--keep", type=Path, default=None, help="work here instead of a temporary folder")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-build-many-"))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("ALPHA_RESULTS_DASK_SCHEDULER", None)
    seals = work / "seals"
    if not (seals / ALPHA / "manifest.json").exists():
        print(f"writing the full-size {ALPHA} seal ...", flush=True)
        run_checked(
            [*cli(), "demo", "--size", "full", "--only", ALPHA, "--out", str(seals)], env=env, timeout=600
        )
    copies_dir = work / "copies"
    shutil.rmtree(copies_dir, ignore_errors=True)
    copies_dir.mkdir(parents=True)
    ids = copy_seals(seals / ALPHA, ALPHA, args.n, copies_dir)
    copies = [str(copies_dir / i) for i in ids]
    seal_bytes = sum(p.stat().st_size for p in (seals / ALPHA).rglob("*") if p.is_file())
    load_before = os.getloadavg()[0]

    runs = []
    for round_ in range(args.rounds):
        for executor in ("local", "dask") if round_ % 2 == 0 else ("dask", "local"):
            lake = work / f"lake-{executor}"
            shutil.rmtree(lake, ignore_errors=True)  # every build starts from an empty lake
            print(f"round {round_ + 1}: {args.n} copies with the {executor} executor ...", flush=True)
            if executor == "local":
                runs.append(build_local(copies, lake, env))
            else:
                runs.append(build_dask(copies, lake, env, args.threads, not args.no_malloc_trim))
        local_ids, dask_ids = content_ids(work / "lake-local"), content_ids(work / "lake-dask")
        if local_ids != dask_ids or len(local_ids) != args.n:
            raise BenchError(f"the two lakes differ: {local_ids} vs {dask_ids}")

    command = (
        f"python -m tests.bench.build_many_bench --n {args.n} --rounds {args.rounds} --threads {args.threads}"
    )
    command += " --no-malloc-trim" if args.no_malloc_trim else ""
    load = f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    text = report(runs, command, seal_bytes, load)
    print(text)
    out = REPO / "var" / "bench" / "build_many.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"(same content ids in both lakes; report in {out}; work folder {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
