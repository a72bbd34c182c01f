"""Issue 51 through a served worker: `just bench-synthetic-served --n 100000`.

`alpha-results serve --workers 1` over the synthetic catalogue of `tests/bench/synthetic_catalogue.py`
(written when absent), an admin key made with the operator CLI (a temporary SQLite key store), one
keep-alive connection asking one request at a time: p50 / p95 of the wall time each request takes
as the client sees it, and the worker's CPU time per request (the sum over its threads of
/proc/<pid>/task/*/schedstat's time on a CPU, read before and after each request: nanoseconds, so a
per-request figure, not a 10 ms tick). Routes: the listing page with and without a search, the
screener with three filters and a sort, the screener with `max_correlation` to an alpha, the
correlation of an alpha to the catalogue (top 50, returns and ic). Each route's first request
(the worker's first use of a structure: the screener's table, the matrices mapped) is reported
apart and left out of the percentiles. Then the worker's resident memory, and `--restarts` times: a
fresh worker, and as soon as `/v1/health` answers, the wall time of its first significance (the
trials' columns read on first use) and of its first correlation.

With `--cold` (issue 63, item 4) every route is measured a second time with the lake's files out
of the page cache before each request (`tests/bench/page_cache.py`: the worker's mappings of lake
files paged out with `process_madvise(MADV_PAGEOUT)`, what that leaves (2 MiB folios) reclaimed by
the worker's own memory cgroup, in which it is started on an evicted lake, then
`posix_fadvise(DONTNEED)` on every file; never the whole machine's cache), the bytes still resident counted with `mincore` after each
eviction (the check that it worked) and the bytes the worker read from the disk per request
(/proc/<pid>/io `read_bytes`); each restart is made cold too (the lake evicted before the
worker starts and again once it answers `/v1/health`). The same draws of parameters as the warm
pass; its first request apart as well.

The machine is shared: the load average before and after is recorded, and the CPU figures are
the better estimate of a quiet worker.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from tests.bench.harness import (
    Children,
    Server,
    cli,
    create_admin_key,
    free_port,
    git_revision,
    memory_mib,
    server_env,
    start_server,
    worker_pids,
)
from tests.bench.page_cache import lake_files, make_cold, memory_group, remove_group, within
from tests.bench.synthetic_catalogue import DEFAULT_OUT

NEEDLES = ["momentum", "value", "carry", "cluster 1", "syn00012", "reversal", "#99", "lowvol momentum"]
SORTS = ["information_ratio", "-excess_sharpe", "ic", "-icir", "-max_drawdown_pct"]


def cpu_ns(pid: int) -> int:
    """CPU time of every thread of `pid` so far, in nanoseconds."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total


def read_bytes(pid: int) -> int:
    """Bytes `pid` has caused to be read from storage so far (page-cache hits are not counted)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("read_bytes:"):
            return int(line.split()[1])
    return 0


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(1000 * ordered[len(ordered) // 2], 2),
        "p95_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
    }


def start_api(
    children: Children, name: str, *, env: dict[str, str], workers: int, log: Path, group: Path | None = None
) -> Server:
    """`alpha-results serve` on a free port (inside the memory cgroup `group` when given), waited
    for up to START_TIMEOUT (a worker reads the whole catalogue before it answers: minutes at 10^6)."""
    port = free_port()
    argv = [*cli(), "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    if group is not None:
        argv = within(group, argv)
    return start_server(
        children, name, argv, env=env, port=port, ready_path="/v1/health", log=log, timeout=START_TIMEOUT
    )


START_TIMEOUT = 1_800.0


def _load() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


def requests_of(rng: random.Random, alphas: list[str], owned: list[str]) -> dict[str, str]:
    """One request of each measured route, its parameters drawn from `rng`; the per-alpha routes
    (which open the alpha's build) of one of `owned`, the alphas with a build."""
    sort = rng.choice(SORTS)
    screen = {
        "complete_only": "true",
        "min_information_ratio": f"{rng.uniform(-1, 0.5):.4f}",
        "max_ic": f"{rng.uniform(0.0, 0.03):.4f}",
        "sort": sort,
        "limit": "100",
    }
    target = rng.choice(alphas)
    own = rng.choice(owned)
    return {
        "alphas?limit=100&search": "/v1/alphas?" + urlencode({"limit": 100, "search": rng.choice(NEEDLES)}),
        "alphas?limit=100": "/v1/alphas?limit=100",
        "screen, three filters and a sort": "/v1/analytics/screen?" + urlencode(screen),
        "screen with max_correlation to an alpha (returns)": "/v1/analytics/screen?"
        + urlencode(
            {**screen, "max_correlation": rng.choice(["0.2", "0.3", "0.5"]), "correlated_to": target}
        ),
        "correlation top 50, whole history (returns)": f"/v1/alphas/{own}/analytics/correlation?"
        + urlencode({"basis": "returns", "limit": 50}),
        "correlation top 50, whole history (ic)": f"/v1/alphas/{own}/analytics/correlation?"
        + urlencode({"basis": "ic", "limit": 50}),
    }


def measure(
    client: httpx.Client,
    worker: int,
    cold_lake: Path | None,
    group: Path | None,
    files: list[Path] | None,
    rng: random.Random,
    alphas: list[str],
    owned: list[str],
    calls: int,
) -> dict[str, Any]:
    """Each route `calls` + 1 times: the first apart, p50 / p95 of the rest (wall, the worker's CPU
    over all its threads, its bytes read from the disk); with `cold_lake`, that lake's files
    evicted before every request and the largest residue `mincore` found after an eviction."""
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    reads: dict[str, list[float]] = {}
    firsts: dict[str, dict[str, float]] = {}
    residue = lake_bytes = 0
    for call in range(calls + 1):
        for name, path in requests_of(rng, alphas, owned).items():
            if cold_lake is not None:
                found = make_cold(cold_lake, [worker], [group] if group is not None else [], files)
                residue, lake_bytes = max(residue, found["resident_bytes"]), found["lake_bytes"]
            before, read, clock = cpu_ns(worker), read_bytes(worker), time.perf_counter()
            answer = client.get(path)
            wall, cpu = time.perf_counter() - clock, (cpu_ns(worker) - before) / 1e9
            mib = (read_bytes(worker) - read) / 2**20
            if answer.status_code != 200:
                raise SystemExit(f"{path}: {answer.status_code} {answer.text[:400]}")
            if call == 0:
                firsts[name] = {
                    "wall_ms": round(1000 * wall, 1),
                    "cpu_ms": round(1000 * cpu, 1),
                    "read_mib": round(mib, 1),
                }
                continue
            walls.setdefault(name, []).append(wall)
            cpus.setdefault(name, []).append(cpu)
            reads.setdefault(name, []).append(mib / 1000)  # _percentiles scales by 1000
    found_routes: dict[str, Any] = {
        name: {
            "wall": _percentiles(walls[name]),
            "cpu": _percentiles(cpus[name]),
            "read_mib": {k.replace("_ms", ""): v for k, v in _percentiles(reads[name]).items()},
            "first": firsts[name],
            "calls": len(walls[name]),
        }
        for name in walls
    }
    if cold_lake is not None:
        found_routes["eviction"] = {
            "lake_bytes": lake_bytes,
            "largest_resident_after_eviction_bytes": residue,
            # At 10^6 the worker maps 2 MiB file folios, which MADV_PAGEOUT alone left resident:
            # its memory cgroup reclaims them; without one, say whether it was cold.
            "cold": residue <= lake_bytes // 100,
            "reclaimed_by": "the worker's memory cgroup and MADV_PAGEOUT"
            if group is not None
            else "MADV_PAGEOUT only (no writable memory cgroup)",
        }
        if residue > lake_bytes // 100:
            print(f"warning: {residue} of {lake_bytes} lake bytes stayed resident: not cold", file=sys.stderr)
    return found_routes


def cold_files(lake: Path, alphas: list[str]) -> list[Path]:
    """The lake's files a run may read: the catalogue's, the benchmarks' and the builds of `alphas`."""
    return [
        *lake_files(lake / "catalogue"),
        *lake_files(lake / "benchmarks"),
        *(path for alpha in sorted(set(alphas)) for path in lake_files(lake / "alphas" / alpha)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--lake", type=Path, default=None, help="default var/bench-synthetic/N/lake")
    parser.add_argument("--calls", type=int, default=60, help="requests of each route")
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--cold", action="store_true", help="each route again with the lake evicted before every request"
    )
    args = parser.parse_args(argv)
    lake = args.lake or DEFAULT_OUT / str(args.n) / "lake"
    if not lake.is_dir():
        from tests.bench import synthetic_catalogue

        synthetic_catalogue.main(["--n", str(args.n), "--out", str(lake)])
    facts = json.loads((lake.parent / "synthetic.json").read_text())
    real = list(facts["real_alphas"])
    rng = random.Random(args.seed)
    alphas = real + [f"syn{rng.randrange(args.n):07d}" for _ in range(200)]
    # A catalogue written with a minimal build per synthetic alpha (issue 63): the correlation's
    # targets are drawn from the whole catalogue, as its rows are; before, from the real alphas only.
    builds = bool(facts.get("minimal_builds"))
    owned = alphas if builds else real
    result: dict[str, Any] = {
        "n_synthetic": args.n,
        "targets": "the whole catalogue" if builds else "the real alphas",
        "revision": git_revision(),
        "load_average_at_start": _load(),
    }
    with tempfile.TemporaryDirectory(prefix="synthetic-served-") as scratch, Children() as children:
        work = Path(scratch)
        keystore = f"sqlite:///{work / 'keys.sqlite3'}"
        env = server_env(str(lake), keystore)
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", ALPHA_RESULTS_LOG_LEVEL="WARNING")
        key = create_admin_key(keystore, env)
        headers = {"Authorization": f"Bearer {key.token}"}
        started = time.monotonic()
        # Cold passes: the worker in a memory cgroup of its own, started on an evicted lake so
        # that every page it reads is charged to it (tests/bench/page_cache.py).
        group = memory_group(f"served-{os.getpid()}") if args.cold else None
        # What the run may read: the catalogue and the builds of the alphas it asks (a walk of a
        # 10^6 catalogue's minimal builds, millions of files, before every request would be the run).
        files = cold_files(lake, owned) if args.cold else None
        if args.cold:
            make_cold(lake, files=files)
        api = start_api(children, "api", env=env, workers=1, log=work / "api.log", group=group)
        result["start_to_health_seconds"] = round(time.monotonic() - started, 2)
        worker = worker_pids(api.proc.pid)[0]
        result["rss_at_start_mib"] = round(memory_mib(worker)[0])
        passes = [False, True] if args.cold else [False]
        state = rng.getstate()
        with httpx.Client(base_url=api.base_url, headers=headers, timeout=600) as client:
            for cold in passes:
                rng.setstate(state)  # the cold pass asks the warm pass's requests
                key_of = "routes_cold" if cold else "routes"
                result[key_of] = measure(
                    client, worker, lake if cold else None, group, files, rng, alphas, owned, args.calls
                )
        rss, pss = memory_mib(worker)
        result["rss_after_routes_mib"], result["pss_after_routes_mib"] = round(rss), round(pss)
        children.stop(api.proc)
        restarts = []
        for number in range(args.restarts):
            if args.cold:
                make_cold(lake, files=files)
            clock = time.monotonic()
            api = start_api(
                children, f"api{number}", env=env, workers=1, log=work / f"api{number}.log", group=group
            )
            up = time.monotonic() - clock
            worker = worker_pids(api.proc.pid)[0]
            alpha = owned[(number * 7 + 3) % len(owned)]
            seen: dict[str, float] = {"health_after_s": round(up, 2)}
            if args.cold:
                evicted = make_cold(lake, [worker], [group] if group is not None else [], files)
                seen["resident_after_eviction_bytes"] = evicted["resident_bytes"]
            with httpx.Client(base_url=api.base_url, headers=headers, timeout=600) as client:
                for name, path in (
                    ("significance", f"/v1/alphas/{alpha}/analytics/significance"),
                    ("correlation", f"/v1/alphas/{alpha}/analytics/correlation?basis=returns&limit=50"),
                    ("screen", "/v1/analytics/screen?complete_only=true&min_information_ratio=0&sort=-icir"),
                    ("search", "/v1/alphas?limit=100&search=momentum"),
                ):
                    before, read, started_at = cpu_ns(worker), read_bytes(worker), time.perf_counter()
                    answer = client.get(path)
                    seen[f"first_{name}_ms"] = round(1000 * (time.perf_counter() - started_at), 1)
                    seen[f"first_{name}_cpu_ms"] = round((cpu_ns(worker) - before) / 1e6, 1)
                    seen[f"first_{name}_read_mib"] = round((read_bytes(worker) - read) / 2**20, 1)
                    if answer.status_code != 200:
                        raise SystemExit(f"{path}: {answer.status_code} {answer.text[:400]}")
            seen["rss_mib"] = round(memory_mib(worker)[0])
            restarts.append(seen)
            children.stop(api.proc)
        result["restarts"] = restarts
    if group is not None:
        remove_group(group)  # its processes have ended with the children
    result["load_average_at_end"] = _load()
    out = args.out or lake.parent / "served.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())
