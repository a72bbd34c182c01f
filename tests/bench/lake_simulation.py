"""The open tables of 10^3 and 10^4 realistic alphas, by simulation (issue 78, item 5): `just
bench-lake-simulation [--lake LAKE] [--alphas 1000 10000] [--interval 10 100]`.

The data of N alphas is N times one alpha's (each alpha has its own partitions: nothing of one is
rewritten by another's publish), so its bytes are stated from one real alpha, measured. What is
not linear is a table's *log*: every table is shared by every alpha, and a Delta reader or writer
opens a table by reading its newest checkpoint, which lists every file of every alpha, and a
checkpoint is written every `delta.checkpointInterval` commits, whatever alpha made them. That part
is simulated for real with delta-rs: a table with the real alpha's schema, partitioning and
configuration gets N alphas' worth of `add` actions (the real alpha's files, paths and statistics,
one copy per simulated alpha: `DeltaTable.create_write_transaction`, no data written, which the log
does not read), then is opened, checkpointed, and committed to as one alpha's weekly run commits.

`--lake` is a lake holding one realistic alpha after its first publish and one weekly run (`just
bench-realistic --names 1000 --years 20 --keep --work DIR`: `DIR/Test_realistic_1000x20y`).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from deltalake import CommitProperties, DeltaTable
from deltalake.transaction import AddAction, RemoveAction

from datasets import tables

GENERATIONS = "_generations"


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def real_adds(table: Path) -> list[dict[str, Any]]:
    """The table's current files as the log's `add` actions (the newest add of each path still
    in the table)."""
    current = set(DeltaTable(str(table)).file_uris())
    found: dict[str, dict[str, Any]] = {}
    for commit in sorted((table / "_delta_log").glob("*.json")):
        for line in commit.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                found[action["add"]["path"]] = action["add"]
    return [add for path, add in found.items() if str(table / path) in current or path in current]


def per_table(lake: Path) -> list[dict[str, Any]]:
    """Each table of the real alpha: its files, data bytes, whether its weekly run committed to it,
    and its log's bytes."""
    rows = []
    for table in sorted((lake / "tables").iterdir()):
        if table.name == GENERATIONS or not (table / "_delta_log").is_dir():
            continue
        delta = DeltaTable(str(table))
        adds = real_adds(table)
        rows.append(
            {
                "table": table.name,
                "files": len(adds),
                "data_bytes": sum(int(a["size"]) for a in adds),
                "weekly_commit": int(delta.version()) > 0,
                "log_bytes": folder_bytes(table / "_delta_log"),
            }
        )
    return rows


def _rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / (1 << 30)


def weekly_add(week: dict[str, Any], alpha: str, name: str) -> AddAction | RemoveAction:
    """One alpha's weekly file of a table: the real alpha's last file, under `alpha`."""
    return AddAction(
        f"alpha={alpha}/{name}.parquet",
        int(week["size"]),
        {**week["partitionValues"], "alpha": alpha},
        int(week["modificationTime"]),
        True,
        week["stats"],
    )


def simulate(table: Path, alphas: int, interval: int, work: Path, batch: int = 200) -> dict[str, Any]:
    """`alphas` copies of the real alpha's files in a table like `table`, checkpointed every
    `interval` commits: its checkpoint, an open, and ten weekly commits of one alpha."""
    real = DeltaTable(str(table))
    adds = real_adds(table)
    alpha = str(adds[0]["partitionValues"]["alpha"])
    partitions = list(real.metadata().partition_columns)
    path = work / f"{table.name}-{alphas}-{interval}"
    shutil.rmtree(path, ignore_errors=True)
    configuration = {**tables.CONFIGURATION, "delta.checkpointInterval": str(interval)}
    DeltaTable.create(str(path), schema=real.schema(), partition_by=partitions, configuration=configuration)
    started = time.perf_counter()
    for first in range(0, alphas, batch):  # one commit per `batch` alphas: the log as many publishes leave it
        actions: list[AddAction | RemoveAction] = []
        for n in range(first, min(first + batch, alphas)):
            name = f"Sim{n:06d}"
            for add in adds:
                values = {**add["partitionValues"], "alpha": name}
                actions.append(
                    AddAction(
                        add["path"].replace(alpha, name, 1),
                        int(add["size"]),
                        values,
                        int(add["modificationTime"]),
                        True,
                        add["stats"].replace(alpha, name),
                    )
                )
        DeltaTable(str(path)).create_write_transaction(actions, "append", real.schema(), partitions)
    filled = time.perf_counter() - started
    log = path / "_delta_log"
    before = folder_bytes(log)
    started = time.perf_counter()
    DeltaTable(str(path)).create_checkpoint()
    checkpoint_s = time.perf_counter() - started
    checkpoint_bytes = folder_bytes(log) - before
    started = time.perf_counter()
    opened = DeltaTable(str(path))
    open_s = time.perf_counter() - started
    started = time.perf_counter()
    opened.file_uris(file_pruning_predicate="alpha = 'Sim000000'")
    prune_s = time.perf_counter() - started
    # One alpha's weekly run: one commit adding its week's file (a checkpoint every `interval`).
    commits, written = [], []
    week = adds[-1]
    for n in range(10):
        before = folder_bytes(log)
        started = time.perf_counter()
        DeltaTable(str(path)).create_write_transaction(
            [weekly_add(week, f"Sim{n:06d}", f"week-{n}")],
            "append",
            real.schema(),
            partitions,
            commit_properties=CommitProperties(custom_metadata={"target": f"Sim{n:06d}"}),
        )
        commits.append(time.perf_counter() - started)
        written.append(folder_bytes(log) - before)
    result = {
        "table": table.name,
        "alphas": alphas,
        "interval": interval,
        "files": alphas * len(adds),
        "fill_s": round(filled, 1),
        "checkpoint_mb": round(checkpoint_bytes / 1e6, 1),
        "checkpoint_s": round(checkpoint_s, 2),
        "open_s": round(open_s, 2),
        "prune_s": round(prune_s, 3),
        "commit_s_mean": round(sum(commits) / len(commits), 2),
        "commit_s_max": round(max(commits), 2),
        "log_bytes_per_commit": round(sum(written) / len(written)),
        "peak_gib": round(_rss_gib(), 2),
    }
    shutil.rmtree(path, ignore_errors=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", type=Path, default=Path("/tmp/realistic/Test_realistic_1000x20y"))
    parser.add_argument("--alphas", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--interval", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--table", default=None, help="the table simulated (default: the one of most files)")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="lake-simulation-"))
    rows = per_table(args.lake)
    print("| table | files | data MB | weekly commit | log KB |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['table']} | {row['files']} | {row['data_bytes'] / 1e6:.2f} | "
            f"{'yes' if row['weekly_commit'] else 'no'} | {row['log_bytes'] / 1e3:.1f} |"
        )
    print(
        json.dumps(
            {
                "alpha": {
                    "files": sum(r["files"] for r in rows),
                    "data_mb": sum(r["data_bytes"] for r in rows) / 1e6,
                }
            }
        )
    )
    name = args.table or max(rows, key=lambda r: r["files"])["table"]
    for alphas in args.alphas:
        for interval in args.interval:
            print(json.dumps(simulate(args.lake / "tables" / name, alphas, interval, work)), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
