"""`just bench-seal-kit`: the throughput of writing a seal with the kit's builders (issue 37).

    python -m tests.bench.seal_kit_bench

The full-size demo alpha (`momentum_12_1`, `alpha-results demo --size full`) is taken apart into
the frames a team's engine holds (tests/sealkit/frames.py: no derived column), read back with
pandas, then timed once warm: `decisions_table` on its decisions (about 146,500 rows), and
`write_seal` of the whole seal (every builder, the Parquet files written, the check run).
Prints rows per second (docs/benchmarks.md, "Seal kit").
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from alpha_results_seal.builders import build_seal, decisions_table, write_tables
from alpha_results_seal.demo.corpus import write_corpus
from tests.sealkit.frames import read_team, team_frames


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="seal-kit-bench-") as folder:
        work = Path(folder)
        seal = write_corpus(work / "demo", size="full", seed=7, only=["momentum_12_1"])[0]
        frames = team_frames(seal, work / "frames", "Test_kit_bench")
        facts, books, decisions, week_status = read_team(frames, pd.read_parquet)
        decisions_table(decisions)  # warm
        started = time.perf_counter()
        table = decisions_table(decisions)
        decided = time.perf_counter() - started
        started = time.perf_counter()
        built = build_seal(facts, decisions, books, week_status=week_status)
        building = time.perf_counter() - started
        started = time.perf_counter()
        write_tables(built, str(work / "seal"), check=False)
        writing = time.perf_counter() - started
        started = time.perf_counter()
        report = write_tables(built, str(work / "seal"))
        checking = time.perf_counter() - started - writing
        assert report is not None and report.ok, report and report.lines()
        rows = sum(t.num_rows for t in built.tables.values())
        print(
            f"decisions_table: {table.num_rows:,} rows in {decided:.3f} s = {table.num_rows / decided:,.0f} rows/s"
        )
        print(f"build_seal (every table): {rows:,} rows in {building:.3f} s = {rows / building:,.0f} rows/s")
        print(f"write (Parquet, zstd): {writing:.3f} s; check of the written seal: {checking:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
