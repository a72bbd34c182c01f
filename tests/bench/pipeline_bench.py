"""`just bench-pipeline`: wall time, peak memory and lake bytes to generate and to build the
full-size alpha (momentum_12_1). Each step runs in its own child process, so its peak RSS is
that child's `ru_maxrss` alone."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ALPHA = "momentum_12_1"


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_step(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one child process."""
    wrapper = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", wrapper, *command], check=True, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    return wall, int(out.stdout.strip().splitlines()[-1]) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--keep", type=Path, default=None, help="write seals and lake here instead of a temp folder"
    )
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    seals, lake = work / "seals", work / "lake"
    cli = [sys.executable, "-m", "cli.main"]
    generate = run_step([*cli, "demo", "--size", "full", "--only", ALPHA, "--out", str(seals)])
    build = run_step([*cli, "build", str(seals / ALPHA), "--lake", str(lake), "--jobs", "1"])
    print(f"{'step':<10} {'wall s':>8} {'peak MiB':>9} {'bytes':>12}")
    print(f"{'generate':<10} {generate[0]:>8.2f} {generate[1]:>9.0f} {folder_bytes(seals / ALPHA):>12,}")
    print(f"{'build':<10} {build[0]:>8.2f} {build[1]:>9.0f} {folder_bytes(lake):>12,}")
    print(f"(cpus {os.cpu_count()}, maxrss unit KiB on Linux; work folder {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
