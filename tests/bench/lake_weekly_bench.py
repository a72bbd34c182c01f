"""What a weekly run writes into the open tables (issue 78): `just bench-lake-weekly`.

`python -m tests.bench.lake_weekly_bench [--alpha momentum_12_1] [--size full]` plays the demo's
runs of one alpha (`alpha_results_seal.demo.history`, the full-size market): publishes its
second-to-last run into a fresh lake (with the benchmark), then its last one, a week later (the
weekly run), through the real pipeline (`pipeline.publish.publish_seal`), and reports for that second
publish the bytes it added under `{lake}/tables/` (data files, change data files, the Delta logs
and `_generations`) against the bytes it added to the per-build folders, the rows each table's commit
inserted, updated and deleted, and the seconds of each step. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from alpha_results_seal.demo.corpus import BENCHMARK_SEAL, write_benchmark_seal, write_seal
from alpha_results_seal.demo.history import Run, benchmark_sealed, history, sealed
from alpha_results_seal.demo.market import simulate_market
from datasets import clock, tables
from pipeline import lake_tables, publish


def tree_bytes(folder: Path) -> dict[str, int]:
    """Bytes under `folder` by kind: open tables' data, change data, logs; everything else; and
    each open table's (`table:<name>`)."""
    out = {"tables_data": 0, "tables_change_data": 0, "tables_log": 0, "builds": 0}
    marker = f"/{tables.TABLES_DIR}/"
    for path, _, files in os.walk(folder):
        for name in files:
            size = os.path.getsize(os.path.join(path, name))
            if marker not in path + "/":
                out["builds"] += size
                continue
            table = (path + "/").split(marker, 1)[1].split("/", 1)[0]
            out[f"table:{table}"] = out.get(f"table:{table}", 0) + size
            if "_delta_log" in path:
                out["tables_log"] += size
            elif "_change_data" in path:
                out["tables_change_data"] += size
            else:
                out["tables_data"] += size
    return out


def made_exports_cost(lake: Path, alpha: str) -> dict[str, Any]:
    """What the server spends making the served build's exports the folder lake did not store
    (pipeline 2.13.0): every one made as its first download makes it, CPU seconds and bytes."""
    from analytics.series import COMPUTED_EXPORTS
    from datasets.build_view import BuildView
    from datasets.export_files import made_export

    build_id = json.loads((lake / "alphas" / alpha / "_current.json").read_text())["build_id"]
    build = lake / "alphas" / alpha / "builds" / build_id
    view = BuildView(alpha, build_id, json.loads((build / "alpha.json").read_text()), str(build))
    listed = json.loads((build / "exports" / "index.json").read_text())["files"]
    cpu, total, largest = time.process_time(), 0, (0, 0.0)
    for entry in listed:
        if entry["stored"]:
            continue
        started = time.process_time()
        size = len(made_export(view, entry["path"], COMPUTED_EXPORTS))
        total += size
        largest = max(largest, (size, time.process_time() - started))
    return {
        "files": sum(not e["stored"] for e in listed),
        "bytes": total,
        "cpu_seconds": round(time.process_time() - cpu, 2),
        "largest_bytes": largest[0],
        "largest_cpu_seconds": round(largest[1], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--size", default="full")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    market = simulate_market(args.size, args.seed)
    plan = history(market, families=False, only=frozenset({args.alpha}))
    runs = [s for s in plan.steps if isinstance(s, Run) and s.alpha_id == args.alpha]
    spy = next(s for s in plan.steps if isinstance(s, Run) and s.alpha_id is None)
    before, weekly = runs[-2], runs[-1]
    changes: dict[str, Any] = {}
    original = lake_tables.publish_alpha

    spent = {"seconds": 0.0}

    def recorded(*a: Any, **kw: Any) -> lake_tables.Written:
        started = time.perf_counter()
        written = original(*a, **kw)
        spent["seconds"] = time.perf_counter() - started
        changes.update(written.changed)
        return written

    lake_tables.publish_alpha = recorded  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="lake-weekly-") as folder:
        root = Path(folder)
        lake = root / "lake"
        with clock.simulated(spy.at):
            publish.publish_seal(
                str(
                    write_benchmark_seal(
                        benchmark_sealed(spy, market, plan.correction), root / BENCHMARK_SEAL
                    )
                ),
                str(lake),
            )
        with clock.simulated(before.at):
            seal = write_seal(
                sealed(before, market, args.size, args.seed, plan.correction), root / "a" / args.alpha
            )
            started = time.perf_counter()
            publish.publish_seal(str(seal), str(lake))
            first_seconds = time.perf_counter() - started
        first = tree_bytes(lake)
        changes.clear()
        with clock.simulated(weekly.at):
            seal = write_seal(
                sealed(weekly, market, args.size, args.seed, plan.correction), root / "b" / args.alpha
            )
            started = time.perf_counter()
            cpu = time.process_time()
            outcome = publish.publish_seal(str(seal), str(lake))
            seconds = time.perf_counter() - started
            cpu = time.process_time() - cpu
        second = tree_bytes(lake)
        added = {k: second[k] - first.get(k, 0) for k in second}
        made = made_exports_cost(lake, args.alpha)
        print(
            json.dumps(
                {
                    "alpha": args.alpha,
                    "sessions_before": before.end,
                    "sessions_after": weekly.end,
                    "first_publish_seconds": round(first_seconds, 1),
                    "first_publish_bytes": first,
                    "weekly_publish": outcome.line(),
                    "weekly_seconds": round(seconds, 1),
                    "weekly_cpu_seconds": round(cpu, 1),
                    "weekly_tables_step_seconds": round(spent["seconds"], 2),
                    "weekly_added_bytes": added,
                    "weekly_tables_bytes": added["tables_data"]
                    + added["tables_change_data"]
                    + added["tables_log"],
                    "weekly_rows": changes,
                    "weekly_build_exports_made": made,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
