"""`just bench-app-start [--base CHECKOUT]`: the CPU a worker takes to make its app and start.

    python -m tests.bench.app_start [--base /path/to/other/checkout] [--rounds 7] [--no-serve]

Each round starts a fresh interpreter per tree (alternating, so the machine's drift falls on both
alike) that imports `serve.app`, calls `create_app()` and runs its startup (Litestar's
`TestClient` entered: the lake's first read, the warm-up, the health monitor) over the lake at
`--lake` and a fresh SQLite key store, and reports the process's CPU seconds (all threads) of each
step; then, unless `--no-serve`, a whole `alpha-results serve --workers 1` of the tree, whose CPU
(user + system, /proc) is read when `/v1/health` first answers. `--base`: the other checkout's
modules (`python -P`, so this tree's working directory does not shadow them), with this
environment's packages. Prints the median and the spread of each, and the ratio of the totals.
Bytecode is written and read as in the suite (PYTHONDONTWRITEBYTECODE unset, tests/conftest.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from access import open_store
from tests.bench.harness import REPO, Children, free_port, server_env

PROBE = r"""
import json, time
started = time.process_time()
try:  # as a worker starts (serve/worker.py), where the tree has it
    from serve.start_gc import while_starting
    while_starting()
except ImportError:
    pass
import serve.app
imported = time.process_time()
app = serve.app.create_app()
made = time.process_time()
from litestar.testing import TestClient
with TestClient(app):
    ready = time.process_time()
print(json.dumps({"import": imported - started, "create": made - imported, "startup": ready - made, "total": ready - started}))
"""
STEPS = ("import", "create", "startup", "total", "serve")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--no-serve", action="store_true", help="no whole `alpha-results serve` start")
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


def serve_cpu(tree: Path, env: dict[str, str]) -> float:
    """CPU seconds (user + system) of `alpha-results serve --workers 1` of `tree` when `/v1/health`
    first answers: one process is the server and its only worker."""
    port = free_port()
    command = [sys.executable, "-P", "-m", "cli.main", "serve", "--port", str(port), "--workers", "1"]
    with Children() as children:
        process = children.start(command, env={**env, "PYTHONPATH": str(tree)})
        deadline = time.monotonic() + 120
        while not health_answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve of {tree} did not answer /v1/health")
            time.sleep(0.02)
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def health_answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    trees = {"this tree": REPO} | ({"base": args.base.resolve()} if args.base else {})
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="app-start-") as tmp:
        store = open_store(f"sqlite:///{tmp}/keys.sqlite3")  # the key store a deployment has
        store.close()
        env = server_env(args.lake, f"sqlite:///{tmp}/keys.sqlite3")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                found = one_start(tree, env)
                if not args.no_serve:
                    found["serve"] = serve_cpu(tree, env)
                runs[name].append(found)
    print(
        f"worker start, CPU seconds: {args.rounds} fresh interpreters per tree, lake {args.lake}, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before, "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + " after"
    )
    steps = [step for step in STEPS if all(step in r for starts in runs.values() for r in starts)]
    print("| tree | " + " | ".join(f"{step} (median, min-max)" for step in steps) + " |")
    print("|---|" + "---|" * len(steps))
    medians: dict[str, dict[str, float]] = {}
    for name, starts in runs.items():
        medians[name] = {step: statistics.median(r[step] for r in starts) for step in steps}
        cells = [
            f"{medians[name][step]:.2f} s ({min(r[step] for r in starts):.2f}-{max(r[step] for r in starts):.2f})"
            for step in steps
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if "base" in medians:
        for step in steps:
            print(
                f"ratio of {step} (this tree / base): {medians['this tree'][step] / medians['base'][step]:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
