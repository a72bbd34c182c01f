"""`just bench-seal-check [--runs N]`: `alpha-results seal check` against `alpha-results build` on
the tiny factory seal (issue 37).

    python -m tests.bench.seal_check_bench [--runs 7]

The seal is tests/pipeline/factory.py's (30 names, 8 weeks, 4 books: 29 Parquet files). Each
round runs, alternating so that the machine's drift falls on both alike, the real console
scripts in fresh processes: `alpha-results seal check SEAL` and `alpha-results build SEAL --lake
<a new scratch lake> --jobs 1` (a publish each time, never `unchanged`; no key store, so no events
are written). Then, in this process once warm, the work alone: `check_seal` and `publish_seal`
into a new lake. Prints the median and the range of each (docs/benchmarks.md, "Seal check").
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.pipeline.factory import write_factory_seal

CLI = str(Path(sys.executable).with_name("alpha-results"))
KIT_CLI = str(Path(sys.executable).with_name("alpha-results-seal"))  # the seal kit's own command


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    return parser.parse_args(argv)


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def command(argv: list[str], work: Path, expected: int) -> Callable[[], object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALPHA_RESULTS_")}

    def run() -> object:
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
        if done.returncode != expected:
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done

    return run


def line(name: str, seconds: list[float]) -> str:
    return (
        f"{name:<40} median {statistics.median(seconds) * 1000:8.0f} ms   "
        f"range {min(seconds) * 1000:.0f}..{max(seconds) * 1000:.0f} ms   ({len(seconds)} runs)"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="seal-check-bench-") as folder:
        work = Path(folder)
        seal = write_factory_seal(work / "Test_factory")
        check_cli = command([CLI, "seal", "check", str(seal)], work, expected=0)
        times: dict[str, list[float]] = {
            name: [] for name in ("check", "kit_check", "build", "check_seal", "publish_seal")
        }
        kit_check = command([KIT_CLI, "check", str(seal)], work, expected=0)
        for run in range(args.runs):
            times["check"].append(timed(check_cli))
            times["kit_check"].append(timed(kit_check))
            build = [CLI, "build", str(seal), "--lake", str(work / f"lake-{run}"), "--jobs", "1"]
            times["build"].append(timed(command(build, work, expected=0)))

        from alpha_results_seal.check import check_seal
        from pipeline.publish import publish_seal

        check_seal(str(seal))  # warm: imports, the schema's validator
        for run in range(args.runs):
            times["check_seal"].append(timed(lambda: check_seal(str(seal))))
            lake = work / f"warm-lake-{run}"
            times["publish_seal"].append(timed(lambda lake=lake: publish_seal(str(seal), str(lake))))
    print(line("alpha-results seal check (process)", times["check"]))
    print(line("alpha-results-seal check (process)", times["kit_check"]))
    print(line("alpha-results build (process)", times["build"]))
    print(line("check_seal (in process, warm)", times["check_seal"]))
    print(line("publish_seal (in process, warm)", times["publish_seal"]))
    ratio = statistics.median(times["build"]) / statistics.median(times["check"])
    print(f"build / seal check: {ratio:.1f}x")
    kit_ratio = statistics.median(times["build"]) / statistics.median(times["kit_check"])
    print(f"build / alpha-results-seal check: {kit_ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
