"""`just bench-app-start [--base CHECKOUT]`: how long a worker takes to make its app.

    python -m tests.bench.app_start [--base /path/to/other/checkout] [--rounds 7]

Each round starts a fresh interpreter per tree (alternating, so the machine's drift falls on both
alike) that imports `serve.app` and calls `create_app()` over the lake at `--lake` and a fresh
SQLite key store: the time a worker spends before it can answer (imports, the declarations, the
OpenAPI document, the lake's first read), without uvicorn. `--base`: the other checkout's modules
(`python -P`, so this tree's working directory does not shadow them), with this environment's
packages. Prints the median and the spread of each, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench.harness import REPO, server_env

PROBE = r"""
import json, time
started = time.perf_counter()
import serve.app
imported = time.perf_counter()
serve.app.create_app()
done = time.perf_counter()
print(json.dumps({"import": imported - started, "create": done - imported, "total": done - started}))
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    return parser.parse_args(argv)


def one_start(tree: Path, env: dict[str, str]) -> dict[str, float]:
    found = subprocess.run(
        [sys.executable, "-P", "-c", PROBE],
        cwd=tree,
        env={**env, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=True,
    )
    timings: dict[str, float] = json.loads(found.stdout.strip().splitlines()[-1])
    return timings


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    trees = {"this tree": REPO} | ({"base": args.base.resolve()} if args.base else {})
    with tempfile.TemporaryDirectory(prefix="app-start-") as tmp:
        env = server_env(args.lake, f"sqlite:///{tmp}/keys.sqlite3")
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(one_start(tree, env))
    print(f"app start: {args.rounds} fresh interpreters per tree, lake {args.lake}")
    print("| tree | import serve.app (median) | create_app() (median) | total (median) | total (min-max) |")
    print("|---|---|---|---|---|")
    medians = {}
    for name, found in runs.items():
        totals = [r["total"] for r in found]
        medians[name] = statistics.median(totals)
        print(
            f"| {name} | {statistics.median(r['import'] for r in found):.2f} s "
            f"| {statistics.median(r['create'] for r in found):.2f} s | {medians[name]:.2f} s "
            f"| {min(totals):.2f}-{max(totals):.2f} s |"
        )
    if "base" in medians:
        print(f"ratio (this tree / base): {medians['this tree'] / medians['base']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
