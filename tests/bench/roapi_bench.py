"""`just bench-roapi`: a week's 100-row page from this tree's server against ROAPI serving the same
rows, side by side (issue 49: ">= 5x ROAPI").

    python -m tests.bench.roapi_bench [--roapi PATH] [--rounds 4] [--seconds 3] [--lake var/lake]

ROAPI (https://github.com/roapi/roapi; `pip install roapi` puts the binary on PATH) serves the
alpha's decision rows from one Parquet file written from the lake's own Parquet (the analysts'
files), with its REST frontend: `filter[date]='…'`, `sort=-score,symbol`, `columns=` the fields
a key without raw fields sees, `limit=100`. ROAPI has no `offset`, so its page is each week's first
100 rows, the same rows as this server's `week100first` family; this server's random-offset page
(`week100`) is measured beside it. wrk drives each server (one worker here; ROAPI as it starts, on
every core), interleaved per round with the constant-route floor; medians of the rounds, and the
CPU each server's processes used per request.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

from tests.bench.ab_bench import workers_cpu_seconds
from tests.bench.families import BY_KEY, LakeFacts
from tests.bench.floor_app import FLOOR_PATH
from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    Server,
    Wrk,
    bench_env,
    create_admin_key,
    free_port,
    git_revision,
    server_env,
    start_api,
    start_floor,
    start_server,
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--roapi", default=shutil.which("roapi"), help="the roapi binary")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def roapi_paths(facts: LakeFacts, fields: list[str], seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    columns = ",".join(fields)
    return [
        f"/api/tables/decisions?filter%5Bdate%5D={quote(repr(str(rng.choice(facts.weeks))))}"
        f"&sort=-score,symbol&columns={columns}&limit=100"
        for _ in range(n)
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.roapi:
        raise SystemExit("roapi is not installed: pip install roapi (or --roapi PATH)")
    import polars as pl

    from schemas import wire
    from tests.api.lakedata import table

    with contextlib.ExitStack() as stack:
        children = stack.enter_context(Children())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="roapi-bench-")))
        decisions = table(Path(args.lake), args.alpha, "decisions")
        assert isinstance(decisions, pl.DataFrame)
        decisions.write_parquet(work / "decisions.parquet")
        fields = [
            name for name in wire.visible_fields(wire.DECISION_FIELDS, False) if name in decisions.columns
        ]
        keystore = f"sqlite:///{work}/keys.sqlite3"
        env = server_env(args.lake, keystore, "memory://")
        key = create_admin_key(keystore, env)
        servers: dict[str, Server] = {
            "here": start_api(children, "here", env=env, workers=1, log=work / "here.log"),
            "floor": start_floor(children, "floor", env=bench_env(), workers=1, log=work / "floor.log"),
        }
        port = free_port()
        servers["roapi"] = start_server(
            children,
            "roapi",
            [
                args.roapi,
                "-a",
                f"127.0.0.1:{port}",
                "-p",
                f"127.0.0.1:{free_port()}",
                "--addr-flight-sql",
                f"127.0.0.1:{free_port()}",
                "-t",
                f"decisions={work / 'decisions.parquet'}",
            ],
            env=bench_env(),
            port=port,
            ready_path="/api/schema",
            log=work / "roapi.log",
        )
        facts = LakeFacts.read(args.lake, args.alpha)
        wrk = Wrk(children, work, threads=1)
        paths = {
            "floor": [FLOOR_PATH],
            "week100first": BY_KEY["week100first"].paths(facts, random.Random(args.seed), 20_000),
            "week100": BY_KEY["week100"].paths(facts, random.Random(args.seed), 20_000),
            "roapi": roapi_paths(facts, fields, args.seed, 20_000),
        }
        files = {}
        for name, listed in paths.items():
            files[name] = work / f"{name}.txt"
            files[name].write_text("\n".join(listed) + "\n")
        print(
            f"roapi-bench: this tree {git_revision()}, {args.alpha} ({len(facts.weeks)} weeks), "
            f"{args.rounds} rounds of {args.seconds:g} s, {args.connections} connections; ROAPI {args.roapi}"
        )
        runs: dict[str, list[float]] = {name: [] for name in paths}
        cpu: dict[str, list[float]] = {name: [] for name in paths}
        order = list(paths)
        served_by = {"floor": "floor", "week100first": "here", "week100": "here", "roapi": "roapi"}
        for round_ in range(args.rounds):
            for name in order if round_ % 2 == 0 else order[::-1]:
                server = servers[served_by[name]]
                token = key.token if served_by[name] == "here" else None
                before = workers_cpu_seconds(server)
                result = wrk.run(
                    server.base_url,
                    files[name],
                    token=token,
                    connections=args.connections,
                    seconds=args.seconds,
                )
                if not result.clean:
                    raise BenchError(f"{name}: {result.problems()}")
                runs[name].append(result.rps)
                cpu[name].append((workers_cpu_seconds(server) - before) * 1000 / result.requests)
        floor = statistics.median(runs["floor"])
        roapi_rps = statistics.median(runs["roapi"])
        print("| server and page | req/s | of the floor | against ROAPI | CPU ms/req |")
        print("|---|---|---|---|---|")
        labels = {
            "floor": "floor (constant Litestar route)",
            "week100first": "this tree: a random week's first 100-row page",
            "week100": "this tree: a random week's 100-row page at a random offset",
            "roapi": "ROAPI: a random week's first 100 rows (same fields and order)",
        }
        for name in order:
            rps = statistics.median(runs[name])
            print(
                f"| {labels[name]} | {rps:,.0f} | {rps / floor:.3f} | {rps / roapi_rps:.2f} | "
                f"{statistics.median(cpu[name]):.3f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
