"""`just bench-ab BASE`: this tree's server against another checkout's, interleaved, per route family.

    python -m tests.bench.ab_bench --base /path/to/other/checkout [--families week100,...]
                                   [--rounds 8] [--seconds 3] [--lake var/lake] [--seed 7]
                                   [--shared] [--floor]

Both servers run at once over the same lake and key store (one worker each; the base checkout is
imported through PYTHONPATH, with this environment's packages). For each family, wrk drives one
server then the other for `--seconds`, alternating which goes first, `--rounds` times, on the
same random paths: the machine's drift (these machines are shared) falls on both alike, which a
ratio to a floor measured minutes apart does not guarantee. Prints, per family, the median req/s
of each and their ratio (this tree / base). Families the base does not serve (a new `format=`)
are measured on this tree only.

`--shared`: the shared deployment of `just bench-load` instead (two workers each, the key store in
a private PostgreSQL database, the limits in an empty Redis database). `--floor`: the constant
route of that many workers joins the rotation three times (tests/bench/floor_app.py, issue 61
item 5): the Litestar route under uvicorn (`floor`, the floor of every earlier ratio), the same bytes
from a bare ASGI callable under the same uvicorn (`asgi floor`: the framework taken away) and that
callable under granian (`granian floor`: another server), and each median is also given as a ratio
to each floor's. Each run also reads the CPU time the server's processes used,
printed per request (median over the rounds): on a shared machine, a steadier comparison than
req/s.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import tempfile
from pathlib import Path

from tests.bench.families import BY_KEY, LakeFacts
from tests.bench.floor_app import FLOOR_PATH
from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    Server,
    Wrk,
    bench_env,
    cli_of,
    create_admin_key,
    git_revision,
    memory_mib,
    private_postgres,
    private_redis,
    server_env,
    start_api,
    start_floor,
    worker_pids,
)

DEFAULT_FAMILIES = "week100,filtered,week5000,scores5000,positions100,equity"
FLOORS = {"floor": "litestar", "asgi floor": "asgi", "granian floor": "granian"}
"""The constant routes of `--floor`, by the name each is reported under (tests/bench/floor_app.py)."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout (e.g. a git worktree)")
    parser.add_argument("--families", default=DEFAULT_FAMILIES, help="comma-separated families")
    parser.add_argument("--only-here", default="", help="families measured on this tree only (new ones)")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shared", action="store_true", help="2 workers, PostgreSQL keys, Redis limits")
    parser.add_argument("--floor", action="store_true", help="the constant route joins the rotation")
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    here_only = [f for f in args.only_here.split(",") if f]
    unknown = sorted(set(families + here_only) - set(BY_KEY))
    if unknown:
        raise SystemExit(f"unknown families: {', '.join(unknown)}")
    with contextlib.ExitStack() as stack:
        children = stack.enter_context(Children())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ab-bench-")))
        workers = 1
        keystore, limiter = f"sqlite:///{work}/keys.sqlite3", "memory://"
        if args.shared:
            workers = 2
            keystore = stack.enter_context(private_postgres(args.postgres_url))
            limiter, key_ids = stack.enter_context(private_redis(args.redis_url))
        env_here = server_env(args.lake, keystore, limiter)
        key = create_admin_key(keystore, env_here)
        if args.shared:
            key_ids.append(key.key_id)
        env_base = {**env_here, "PYTHONPATH": str(args.base.resolve())}
        servers = {
            "here": start_api(children, "here", env=env_here, workers=workers, log=work / "here.log"),
            "base": start_api(
                children,
                "base",
                env=env_base,
                workers=workers,
                log=work / "base.log",
                command=cli_of(args.base),
            ),
        }
        if args.floor:
            for floor_name, kind in FLOORS.items():
                servers[floor_name] = start_floor(
                    children,
                    floor_name,
                    env=bench_env(),
                    workers=workers,
                    log=work / f"{floor_name}.log",
                    kind=kind,
                )
        facts = LakeFacts.read(args.lake, args.alpha)
        wrk = Wrk(children, work, threads=1)
        floor_paths = work / "floor.txt"
        floor_paths.write_text(FLOOR_PATH + "\n")
        print(
            f"ab-bench: this tree {git_revision()} against {args.base}; "
            f"{args.rounds} rounds of {args.seconds:g} s per server and family, {args.connections} "
            f"connections, seed {args.seed}, lake {args.lake}"
            + (", shared deployment (2 workers, PostgreSQL keys, Redis limits)" if args.shared else "")
        )
        heads = ["route family", "base req/s", "this tree req/s", "this tree / base"]
        if args.floor:
            heads += ["floor req/s", "base / floor", "this tree / floor"]
            heads += [
                "asgi floor req/s",
                "this tree / asgi floor",
                "granian floor req/s",
                "this tree / granian floor",
            ]
        heads += ["base CPU ms/req", "this tree CPU ms/req"]
        print("| " + " | ".join(heads) + " |")
        print("|" + "---|" * len(heads))
        for name in families + here_only:
            family = BY_KEY[name]
            paths = work / f"{name}.txt"
            paths.write_text("\n".join(family.paths(facts, random.Random(args.seed), 20_000)) + "\n")
            runs: dict[str, list[float]] = {which: [] for which in ("here", "base", *FLOORS)}
            cpu: dict[str, list[float]] = {which: [] for which in ("here", "base", *FLOORS)}
            order = ["here"] if name in here_only else ["base", "here"]
            if args.floor:
                order += list(FLOORS)
            for round_ in range(args.rounds):
                for which in order if round_ % 2 == 0 else order[::-1]:
                    spent = workers_cpu_seconds(servers[which])
                    result = wrk.run(
                        servers[which].base_url,
                        floor_paths if which in FLOORS else paths,
                        token=None if which in FLOORS else key.token,
                        connections=args.connections,
                        seconds=args.seconds,
                    )
                    if not result.clean:
                        raise BenchError(f"{name} on {which}: {result.problems()}")
                    runs[which].append(result.rps)
                    cpu[which].append((workers_cpu_seconds(servers[which]) - spent) * 1000 / result.requests)
            here = statistics.median(runs["here"])
            base = statistics.median(runs["base"]) if runs["base"] else None
            cells = [
                family.label,
                "-" if base is None else f"{base:,.0f}",
                f"{here:,.0f}",
                "-" if base is None else f"{here / base:.3f}",
            ]
            if args.floor:
                floor, asgi, granian = (statistics.median(runs[which]) for which in FLOORS)
                cells += [
                    f"{floor:,.0f}",
                    "-" if base is None else f"{base / floor:.3f}",
                    f"{here / floor:.3f}",
                    f"{asgi:,.0f}",
                    f"{here / asgi:.3f}",
                    f"{granian:,.0f}",
                    f"{here / granian:.3f}",
                ]
            cells += [
                "-" if base is None else f"{statistics.median(cpu['base']):.3f}",
                f"{statistics.median(cpu['here']):.3f}",
            ]
            print("| " + " | ".join(cells) + " |", flush=True)
        # Worker memory after every family ran (the targets are recorded beside it).
        for which in ("base", "here"):
            for pid in worker_pids(servers[which].proc.pid):
                rss, pss = memory_mib(pid)
                print(f"worker memory, {which}: pid {pid} RSS {rss:,.0f} MiB, PSS {pss:,.0f} MiB")
    return 0


def workers_cpu_seconds(server: Server) -> float:
    """CPU seconds (user and system) the server's processes (its workers) have used so far: per
    request, a figure the other work of a shared machine moves far less than req/s."""
    import psutil

    processes = [psutil.Process(server.proc.pid)]
    processes += processes[0].children(recursive=True)
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


if __name__ == "__main__":
    sys.exit(main())
