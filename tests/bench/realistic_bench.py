"""Realistic alphas published on one machine (issue 78, item 5): `just bench-realistic`.

`python -m tests.bench.realistic_bench [--seals var/realistic-seals] [--names 1000 3000] [--years 1 5 20]
[--work DIR] [--kill-gib 12]` publishes, one at a time, each seal `just realistic-seals --next-week`
wrote: `SEALS/base/<alpha>` into an empty lake (its first publish), then `SEALS/next/<alpha>` (the
same alpha a week later: its next weekly run) into the same lake. Each build is `alpha-results build
SEAL --jobs 1` in a child process: its CPU seconds (user + system) and peak RSS from `wait4`, its
wall seconds, and the bytes it added to the lake. A watchdog kills a child whose RSS passes
`--kill-gib` (the machine is shared) and reports it as killed. Prints a line per build and, at the
end, the Markdown table of docs/benchmarks.md "Issue 78: realistic alphas".
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.bench.realistic_seals import alpha_id, folder_bytes

REPO = Path(__file__).resolve().parents[2]
GIB = 1 << 30


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (FileNotFoundError, ProcessLookupError):
        return 0


def build(seal: Path, lake: Path, kill_bytes: int) -> dict[str, Any]:
    """One `alpha-results build` child: cpu s, wall s, peak GiB, bytes added to the lake, killed."""
    before = folder_bytes(lake) if lake.exists() else 0
    tables_before = folder_bytes(lake / "tables") if (lake / "tables").exists() else 0
    command = [sys.executable, "-m", "cli.main", "build", str(seal), "--lake", str(lake), "--jobs", "1"]
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    killed, done = threading.Event(), threading.Event()

    def watch() -> None:  # never reaps the child: wait4 below does, with its usage
        while not done.wait(0.05):
            if _rss(child.pid) > kill_bytes:
                killed.set()
                child.kill()
                return

    threading.Thread(target=watch, daemon=True).start()
    output = child.stdout.read().decode() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    done.set()
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    code = child.returncode
    if code != 0 and not killed.is_set():
        raise SystemExit(f"build of {seal} failed ({code}):\n{output}")
    return {
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "wall_s": round(wall, 1),
        "peak_gib": round(usage.ru_maxrss * 1024 / GIB, 2),
        "bytes_added": folder_bytes(lake) - before if lake.exists() else 0,
        "tables_bytes_added": folder_bytes(lake / "tables") - tables_before
        if (lake / "tables").exists()
        else 0,
        "killed": killed.is_set(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seals", type=Path, default=REPO / "var" / "realistic-seals")
    parser.add_argument("--names", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--years", type=int, nargs="+", default=[1, 5, 20])
    parser.add_argument("--work", type=Path, default=None, help="lakes here (default: a temporary folder)")
    parser.add_argument("--kill-gib", type=float, default=12.0)
    parser.add_argument("--first-only", action="store_true", help="no next weekly run")
    parser.add_argument("--keep", action="store_true", help="keep each lake (under --work) for a look after")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-realistic-"))
    rows = []
    for names in args.names:
        for years in args.years:
            alpha = alpha_id(names, years)
            base, following = args.seals / "base" / alpha, args.seals / "next" / alpha
            lake = work / alpha
            shutil.rmtree(lake, ignore_errors=True)
            first = build(base, lake, int(args.kill_gib * GIB))
            weekly = None
            if not first["killed"] and not args.first_only and following.exists():
                weekly = build(following, lake, int(args.kill_gib * GIB))
            row = {"alpha": alpha, "seal_bytes": folder_bytes(base), "first": first, "weekly": weekly}
            print(row, flush=True)
            rows.append(row)
            if not args.keep:
                shutil.rmtree(lake, ignore_errors=True)
    print()
    print(
        "| alpha | seal MB | first publish: CPU s | wall s | peak GiB | lake MB "
        "| next weekly run: MB written | CPU s | peak GiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        first, weekly = row["first"], row["weekly"]
        peak = f"killed above {args.kill_gib:g}" if first["killed"] else f"{first['peak_gib']:.2f}"
        after = (
            f"{weekly['bytes_added'] / 1e6:,.0f} | {weekly['cpu_s']:.1f} | {weekly['peak_gib']:.2f}"
            if weekly
            else "- | - | -"
        )
        print(
            f"| {row['alpha']} | {row['seal_bytes'] / 1e6:,.0f} | {first['cpu_s']:.1f} | {first['wall_s']:.0f} "
            f"| {peak} | {first['bytes_added'] / 1e6:,.0f} | {after} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
