"""`just bench-scale`: memory and first-request latency as one server serves more and more
full-size alphas.

    python -m tests.bench.scale_bench [--n 20] [--workers 2]

Publishes the seal of the full-size alpha (default var/seals/momentum_12_1) under N ids: each
copy differs only in `alpha_id` (and the archive's file name) in manifest.json, so each is a seal
of its own (the content hash covers every file) that validates like the original. They are built
into a temporary lake with `alpha-results build`, then `alpha-results serve --workers 2` serves
them in turn: for each alpha, the first request (a 100-row week page, on a fresh connection) is
timed, then ~50 random requests across the route families follow from several connections at
once, until the access log shows that every worker served the alpha; then each worker's RSS and
PSS are read from /proc. Reports the RSS per further alpha per worker (least-squares slope over
alphas 2..N), the two workers' total RSS and PSS after N alphas, and the first-request latency.
Writes the report to var/bench/scale.md. A memory guard stops the run early (and says so) before
the workers' RSS exceeds --max-rss-mib.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from tests.bench.families import BY_KEY, FAMILIES, LakeFacts
from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    RunTimeLimit,
    Server,
    bounded_run,
    cli,
    create_admin_key,
    git_revision,
    memory_mib,
    run_checked,
    server_env,
    start_api,
    worker_pids,
)

PER_ALPHA_TARGET_MIB = 25.0
TOTAL_TARGET_MIB = 1024.0
TOTAL_TARGET_ALPHAS = 20
FIRST_REQUEST_TARGET_MS = 50.0


@dataclass
class AlphaSample:
    alpha: str
    first_ms: float
    requests: int
    served_by: dict[int, int]  # worker pid -> requests of this alpha in the access log
    memory: dict[int, tuple[float, float]]  # worker pid -> (RSS, PSS) MiB after this alpha


# -- publishing the copies -------------------------------------------------------------------


def copy_seals(source: Path, alpha: str, n: int, into: Path) -> list[str]:
    """N copies of the seal, each with its own alpha_id."""
    ids = []
    for index in range(1, n + 1):
        new_id = f"{alpha}__copy{index:02d}"
        target = into / new_id
        shutil.copytree(source, target)
        manifest_path = target / "manifest.json"
        manifest = json.loads(manifest_path.read_text())
        manifest["alpha_id"] = new_id
        if isinstance(manifest.get("source_archive"), dict):
            manifest["source_archive"]["filename"] = f"{new_id}.zip"
        manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
        ids.append(new_id)
    return ids


def build_lake(
    seals: Path, ids: list[str], extra: list[str], lake: Path, jobs: int, env: dict[str, str]
) -> float:
    started = time.monotonic()
    folders = [str(seals / i) for i in [*extra, *ids]]
    argv = [*cli(), "build", *folders, "--lake", str(lake), "--jobs", str(jobs)]
    run_checked(argv, env=env, timeout=60 + 30 * len(ids))
    missing = [i for i in ids if not (lake / "alphas" / i / "_current.json").exists()]
    if missing:
        raise BenchError(f"the build published no {', '.join(missing)}")
    return time.monotonic() - started


# -- serving the alphas in turn --------------------------------------------------------------


def access_counts(log: Path, alpha: str) -> dict[int, int]:
    """Requests for `alpha` per worker pid, from the server's JSON access lines (empty when the
    log carries no such lines)."""
    counts: dict[int, int] = {}
    marker = f"/alphas/{alpha}/"
    with log.open(errors="replace") as lines:
        for line in lines:
            if marker not in line or not line.startswith("{"):
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record.get("pid"), int) and marker in str(record.get("path", "")):
                counts[record["pid"]] = counts.get(record["pid"], 0) + 1
    return counts


def fresh_get(base_url: str, token: str, path: str) -> tuple[int, float]:
    """One request on a new connection: status and milliseconds."""
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        started = time.perf_counter()
        response = client.get(path)
        return response.status_code, (time.perf_counter() - started) * 1000


def serve_alpha(
    server: Server, token: str, facts: LakeFacts, rng: random.Random, requests: int, workers: int
) -> tuple[float, int, dict[int, int]]:
    families = [f for f in FAMILIES if f.on_alpha]
    status, first_ms = fresh_get(server.base_url, token, BY_KEY["week100"].make(facts, rng))
    if status != 200:
        raise BenchError(f"first request for {facts.alpha} answered {status}\n{server.log_tail(10)}")
    sent = 1

    def batch(count: int) -> None:
        paths = [rng.choice(families).make(facts, rng) for _ in range(count)]
        with ThreadPoolExecutor(max_workers=4) as pool:
            for path, (code, _) in zip(
                paths, pool.map(lambda p: fresh_get(server.base_url, token, p), paths), strict=True
            ):
                if code != 200:
                    raise BenchError(f"GET {path} answered {code}\n{server.log_tail(10)}")

    batch(requests)
    sent += requests
    served = access_counts(server.log, facts.alpha)
    # Each worker must have served the alpha; the kernel picks the worker of each new connection.
    while served and len(served) < workers and sent < requests * 5:
        batch(10)
        sent += 10
        served = access_counts(server.log, facts.alpha)
    return first_ms, sent, served


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys over xs (0 with fewer than two points)."""
    if len(xs) < 2:
        return 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0


# -- the run ---------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="ids to publish the alpha under (default 20)")
    parser.add_argument(
        "--alpha", default="momentum_12_1", help="the full-size alpha (default momentum_12_1)"
    )
    parser.add_argument("--seals", type=Path, default=REPO / "var" / "seals", help="folder of seals")
    parser.add_argument("--workers", type=int, default=2, help="server workers (default 2)")
    parser.add_argument("--requests", type=int, default=50, help="random requests per alpha (default 50)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel builds (default 2)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random paths (default: random)")
    parser.add_argument(
        "--max-rss-mib", type=float, default=8192.0, help="stop early once the workers' RSS exceeds this"
    )
    parser.add_argument("--work", type=Path, default=None, help="work folder to keep (seals, lake, logs)")
    parser.add_argument("--out", type=Path, default=REPO / "var" / "bench" / "scale.md")
    parser.add_argument(
        "--time-limit", type=float, default=1800.0, help="end the run after this many seconds"
    )
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    return args


def find_seal(seals: Path, alpha: str) -> Path:
    for manifest in sorted(seals.glob("*/manifest.json")):
        if json.loads(manifest.read_text()).get("alpha_id") == alpha:
            return manifest.parent
    raise BenchError(f"no seal of {alpha} under {seals} (write it with `just demo`)")


def execute(args: argparse.Namespace, children: Children, work: Path) -> tuple[list[str], int]:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    source = find_seal(args.seals, args.alpha)
    seals, lake = work / "seals", work / "lake"
    shutil.rmtree(seals, ignore_errors=True)
    shutil.rmtree(lake, ignore_errors=True)
    seals.mkdir(parents=True)
    benchmarks: list[str] = []
    ids = copy_seals(source, args.alpha, args.n, seals)
    # The market data the alphas are measured against (/metrics, benchmarks), as in the demo lake.
    for manifest in sorted(args.seals.glob("*/manifest.json")):
        if json.loads(manifest.read_text()).get("type") == "benchmark":
            shutil.copytree(manifest.parent, seals / manifest.parent.name)
            benchmarks.append(manifest.parent.name)
    keystore = f"sqlite:///{work / 'keys.sqlite3'}"
    env = server_env(str(lake), keystore)
    print(f"building {args.n} copies of {source} into {lake} ({args.jobs} jobs) ...", flush=True)
    build_seconds = build_lake(seals, ids, benchmarks, lake, args.jobs, env)
    print(f"  built in {build_seconds:.1f} s", flush=True)
    facts = LakeFacts.read(str(lake), ids[0])
    key = create_admin_key(keystore, env)
    server = start_api(
        children, f"api ({args.workers} workers)", env=env, workers=args.workers, log=work / "api.log"
    )
    headers = {"Authorization": f"Bearer {key.token}"}
    for path in ("/v1/health", "/v1/me", "/v1/alphas?limit=100"):  # warm what every alpha shares
        for _ in range(4 * args.workers):
            httpx.get(server.base_url + path, headers=headers, timeout=60).raise_for_status()
    deadline = time.monotonic() + 30
    pids = worker_pids(server.proc.pid)
    while len(pids) < args.workers and time.monotonic() < deadline:
        time.sleep(0.5)
        pids = worker_pids(server.proc.pid)
    if len(pids) != args.workers:
        raise BenchError(f"found {len(pids)} worker processes, expected {args.workers}: {pids}")
    idle = {pid: memory_mib(pid) for pid in pids}
    print(f"workers {pids}; idle RSS " + ", ".join(f"{m[0]:.0f} MiB" for m in idle.values()), flush=True)
    samples: list[AlphaSample] = []
    stopped = ""
    for index, alpha in enumerate(ids, 1):
        first_ms, sent, served = serve_alpha(
            server, key.token, facts.for_alpha(alpha), rng, args.requests, args.workers
        )
        time.sleep(0.3)
        current = worker_pids(server.proc.pid)
        if sorted(current) != sorted(pids):
            raise BenchError(f"the workers changed from {pids} to {current} (one died?)\n{server.log_tail()}")
        memory = {pid: memory_mib(pid) for pid in pids}
        samples.append(AlphaSample(alpha, first_ms, sent, served, memory))
        spread = " ".join(f"{served.get(pid, 0)}" for pid in pids) if served else "n/a"
        print(
            f"  alpha {index:>2}: first {first_ms:7.1f} ms, {sent} requests (per worker {spread}); RSS "
            + ", ".join(f"{m[0]:.0f}" for m in memory.values())
            + " MiB; PSS "
            + ", ".join(f"{m[1]:.0f}" for m in memory.values())
            + " MiB",
            flush=True,
        )
        total_rss = sum(m[0] for m in memory.values())
        if total_rss > args.max_rss_mib and index < len(ids):
            stopped = f"stopped after {index} of {len(ids)} alphas: the workers' RSS {total_rss:,.0f} MiB passed --max-rss-mib {args.max_rss_mib:,.0f}"
            print(f"  {stopped}", flush=True)
            break
    children.stop(server.proc)
    return report(args, samples, pids, idle, build_seconds, seed, stopped), 0


def report(
    args: argparse.Namespace,
    samples: list[AlphaSample],
    pids: list[int],
    idle: dict[int, tuple[float, float]],
    build_seconds: float,
    seed: int,
    stopped: str,
) -> list[str]:
    n = len(samples)
    tail = samples[1:]  # alphas 2..N
    xs = [float(i) for i in range(2, n + 1)]
    per_worker = {pid: slope(xs, [s.memory[pid][0] for s in tail]) for pid in pids}
    pss_slopes = {pid: slope(xs, [s.memory[pid][1] for s in tail]) for pid in pids}
    worst = max(per_worker.values())
    last = samples[-1].memory
    total_rss = sum(m[0] for m in last.values())
    total_pss = sum(m[1] for m in last.values())
    firsts = [s.first_ms for s in samples]
    first_max, first_median = max(firsts), statistics.median(firsts)
    uneven = [s.alpha for s in samples if s.served_by and len(s.served_by) < len(pids)]
    # The total target is for 20 alphas: with another N, extrapolate along the measured slopes.
    projected = total_pss + (TOTAL_TARGET_ALPHAS - n) * sum(pss_slopes.values())
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Scale (`just bench-scale`)",
        "",
        f"`python -m tests.bench.scale_bench --n {args.n} --workers {args.workers}` on {started}, commit "
        f"{git_revision()}: `{args.alpha}` published under {args.n} ids (built in {build_seconds:.0f} s with "
        f"{args.jobs} jobs), served in turn by `alpha-results serve --workers {args.workers}`; per alpha "
        f"one timed first request (100-row week page, new connection), then {args.requests}+ random "
        f"requests across the route families from 4 connections at once (seed {seed}). Memory is each "
        "worker's VmRSS and Pss (/proc) after each alpha.",
        "",
    ]
    if stopped:
        lines += [f"**{stopped}.**", ""]
    lines += [
        "| measure | value | target | result |",
        "|---|---|---|---|",
        f"| RSS per further full-size alpha, per worker (slope over alphas 2..{n}) | "
        + ", ".join(f"{v:.1f}" for v in per_worker.values())
        + f" MiB | <= {PER_ALPHA_TARGET_MIB:g} MiB | "
        + (("PASS" if worst <= PER_ALPHA_TARGET_MIB else "MISS") if n >= 3 else "n/a (fewer than 3 alphas)")
        + " |",
        "| PSS per further alpha, per worker | "
        + ", ".join(f"{v:.1f}" for v in pss_slopes.values())
        + " MiB | | |",
        "| idle RSS per worker (before any alpha) | "
        + ", ".join(f"{m[0]:.0f}" for m in idle.values())
        + " MiB | | |",
        f"| {args.workers} workers after {n} alphas: total RSS / PSS | {total_rss:,.0f} / {total_pss:,.0f} MiB | "
        f"< {TOTAL_TARGET_MIB:,.0f} MiB at {TOTAL_TARGET_ALPHAS} alphas (PSS) | "
        + (
            ("PASS" if total_pss < TOTAL_TARGET_MIB else "MISS")
            if n == TOTAL_TARGET_ALPHAS
            else f"n/a ({n} alphas; projected to {TOTAL_TARGET_ALPHAS}: {projected:,.0f} MiB PSS, "
            + ("PASS" if projected < TOTAL_TARGET_MIB else "MISS")
            + ")"
        )
        + " |",
        f"| first request for an alpha never served before: max / median | {first_max:.1f} / {first_median:.1f} ms | "
        f"<= {FIRST_REQUEST_TARGET_MS:g} ms | {'PASS' if first_max <= FIRST_REQUEST_TARGET_MS else 'MISS'} |",
        "",
    ]
    if uneven:
        lines += [f"Not every worker served: {', '.join(uneven)} (the kernel chose the workers).", ""]
    lines += [
        "| alpha | first request ms | requests | "
        + " | ".join(f"worker {i + 1} RSS / PSS MiB" for i in range(len(pids)))
        + " |",
        "|---|---|---|" + "---|" * len(pids),
    ]
    for index, s in enumerate(samples, 1):
        lines.append(
            f"| {index} | {s.first_ms:.1f} | {s.requests} | "
            + " | ".join(f"{s.memory[pid][0]:.0f} / {s.memory[pid][1]:.0f}" for pid in pids)
            + " |"
        )
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        with bounded_run(args.time_limit), Children() as children:
            lines, code = execute(args, children, work)
    except (BenchError, RunTimeLimit) as exc:
        print(f"\nbench-scale could not measure: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nbench-scale interrupted; every process it started was ended", file=sys.stderr)
        return 130
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    lines.append(f"Run time {time.monotonic() - started:.0f} s.")
    text = "\n".join(lines)
    print("\n" + text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    print(f"written to {args.out}")
    return code


if __name__ == "__main__":
    sys.exit(main())
