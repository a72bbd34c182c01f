"""`just bench-ab BASE`: this tree's server against another checkout's, interleaved, per route family.

    python -m tests.bench.ab_bench --base /path/to/other/checkout [--families week100,...]
                                   [--rounds 8] [--seconds 3] [--lake var/lake] [--seed 7]

Both servers run at once over the same lake and key store (one worker each; the base checkout is
imported through PYTHONPATH, with this environment's packages). For each family, wrk drives one
server then the other for `--seconds`, alternating which goes first, `--rounds` times, on the
same random paths: the machine's drift (these machines are shared) falls on both alike, which a
ratio to a floor measured minutes apart does not guarantee. Prints, per family, the median req/s
of each and their ratio (this tree / base). Families the base does not serve (a new `format=`)
are measured on this tree only.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

from tests.bench.families import BY_KEY, LakeFacts
from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    Wrk,
    cli_of,
    create_admin_key,
    git_revision,
    server_env,
    start_api,
)

DEFAULT_FAMILIES = "week100,filtered,week5000,scores5000,positions100,equity"


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
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    here_only = [f for f in args.only_here.split(",") if f]
    unknown = sorted(set(families + here_only) - set(BY_KEY))
    if unknown:
        raise SystemExit(f"unknown families: {', '.join(unknown)}")
    with Children() as children, tempfile.TemporaryDirectory(prefix="ab-bench-") as folder:
        work = Path(folder)
        keystore = f"sqlite:///{work}/keys.sqlite3"
        env_here = server_env(args.lake, keystore)
        key = create_admin_key(keystore, env_here)
        env_base = {**env_here, "PYTHONPATH": str(args.base.resolve())}
        servers = {
            "here": start_api(children, "here", env=env_here, workers=1, log=work / "here.log"),
            "base": start_api(
                children, "base", env=env_base, workers=1, log=work / "base.log", command=cli_of(args.base)
            ),
        }
        facts = LakeFacts.read(args.lake, args.alpha)
        wrk = Wrk(children, work, threads=1)
        print(
            f"ab-bench: this tree {git_revision()} against {args.base}; "
            f"{args.rounds} rounds of {args.seconds:g} s per server and family, {args.connections} "
            f"connections, seed {args.seed}, lake {args.lake}"
        )
        print("| route family | base req/s | this tree req/s | this tree / base |")
        print("|---|---|---|---|")
        for name in families + here_only:
            family = BY_KEY[name]
            paths = work / f"{name}.txt"
            paths.write_text("\n".join(family.paths(facts, random.Random(args.seed), 20_000)) + "\n")
            runs: dict[str, list[float]] = {"here": [], "base": []}
            order = ["here"] if name in here_only else ["base", "here"]
            for round_ in range(args.rounds):
                for which in order if round_ % 2 == 0 else order[::-1]:
                    result = wrk.run(
                        servers[which].base_url,
                        paths,
                        token=key.token,
                        connections=args.connections,
                        seconds=args.seconds,
                    )
                    if not result.clean:
                        raise BenchError(f"{name} on {which}: {result.problems()}")
                    runs[which].append(result.rps)
            here = statistics.median(runs["here"])
            if runs["base"]:
                base = statistics.median(runs["base"])
                print(f"| {family.label} | {base:,.0f} | {here:,.0f} | {here / base:.3f} |", flush=True)
            else:
                print(f"| {family.label} | - | {here:,.0f} | - |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
