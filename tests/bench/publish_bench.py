"""The catalogue step of one publish at 10^3, 10^4 and 10^5 alphas (issue 51, item 3): `just bench-publish`.

`python -m tests.bench.publish_bench --n 1000 10000 100000 [--publishes 3] [--out FILE]` takes the
synthetic catalogue of each N (`tests/bench/synthetic_catalogue.py`, written when absent, beside
bench-catalogue's 20 small demo alphas), copies its lake (hard links) and publishes new small demo
alphas into it one at a time through the real pipeline (`alpha-results build SEAL --jobs 1` in a
child process), timing the catalogue step (`pipeline.index_rows.record`: the alpha's row, its
score neighbours, the matrices, the residual and trials figures, the generation's commit) in wall
and CPU seconds, then, after the last, a compaction of the delta they left (`pipeline.index_rows.compact`), with
the load average at each measure (the machine is shared). Prints one JSON document.

`--profile DIR` writes each catalogue step's cProfile to DIR/publish-N-K.prof (issue 63, item 3).

`--lake N=DIR` publishes into (a hard-linked copy of) the catalogue at DIR for that N instead of
var/bench-synthetic/N (never written: every file the bench changes is a new file of the copy).

`--listed` (issue 63, item 3, tenth session): every alpha of the copy holds a score-neighbour list,
so each publish runs the candidate pass of the correlation index (`_open_rows`) and pairs as it
would: before the first publish, the copy gets one more whole generation naming the same matrices
and an index whose every row without a list names one (an empty list file shared by all, never
rewritten: a synthetic alpha is never paired), with its columns file; in the children the
synthetic alphas have no scores (`index_rows.read_scores` answers None for them: they have no
decisions), so a candidate among them is paired with nothing, as an alpha without decisions.
`--without-gaps` leaves the stored gap lists out of that generation (a catalogue written before
them: the first publish's candidate pass makes the base's and stores them).

`--first-stage` measures instead, in this process over each synthetic catalogue, the first stage of
a publish's score-neighbour pairing when every alpha of the catalogue holds a list (the synthetic
rows hold none, so a publish there never meets it): choosing the new alpha's candidates by
correlating every alpha's series (`catalogue_neighbours.candidates` over the gathered rows, as
before issue 51's index) against the correlation index's open rows correlated exactly
(`_open_rows`, `_chosen`), for a few real alphas taken as the new one; the two choices compared.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SYNTHETIC = REPO / "var" / "bench-synthetic"
MARK = "PUBLISH_STEP "
PROFILE_ENV = "PUBLISH_BENCH_PROFILE"
"""When set (by `--profile DIR`), the child profiles the catalogue step (cProfile) into this file."""
PROFILE_CPU_ENV = "PUBLISH_BENCH_PROFILE_CPU"
"""When set (by `--profile-cpu`), the profile's clock is the process's CPU time."""
LISTED_ENV = "PUBLISH_BENCH_LISTED"
"""When set (by `--listed`), the child reads no scores of a synthetic alpha (it has no decisions)."""


def child(seal: str, lake: str, compact_after: str = "0") -> None:
    """In a child process: `alpha-results build SEAL --jobs 1`, the catalogue step timed (wall and
    this process's CPU), then (with `compact_after` "1") the delta compacted, timed likewise.
    scipy.stats is imported first and timed apart: the first step of a process that computes a
    Sharpe ratio imports it (about 1 s), once per process, whichever step that is. Prints one MARK
    line."""
    from cli.main import main as cli_main
    from pipeline import index_rows

    times: dict[str, Any] = {}
    wall, cpu = time.perf_counter(), time.process_time()
    import scipy.stats  # noqa: F401

    times["scipy_import_wall"] = round(time.perf_counter() - wall, 4)
    times["scipy_import_cpu"] = round(time.process_time() - cpu, 4)
    record = index_rows.record

    profile_to = os.environ.get(PROFILE_ENV)

    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        profiler = None
        if profile_to:
            import cProfile

            # PUBLISH_BENCH_PROFILE_CPU: the process's CPU time as the profiler's clock (not wall)
            profiler = (
                cProfile.Profile(time.process_time) if os.environ.get(PROFILE_CPU_ENV) else cProfile.Profile()
            )
            profiler.enable()
        try:
            return record(*args, **kwargs)
        finally:
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(profile_to)
            times["record_wall"] = round(time.perf_counter() - wall, 4)
            times["record_cpu"] = round(time.process_time() - cpu, 4)
            times["load_average"] = os.getloadavg()[0]

    index_rows.record = timed
    if os.environ.get(LISTED_ENV):
        read_scores = index_rows.read_scores

        def scores(storage: Any, root: str, alpha_id: str, *args: Any, **kwargs: Any) -> Any:
            return (
                None if alpha_id.startswith("syn") else read_scores(storage, root, alpha_id, *args, **kwargs)
            )

        index_rows.read_scores = scores
    code = cli_main(["build", seal, "--lake", lake, "--jobs", "1"])
    compact = getattr(index_rows, "compact", None)
    if compact is not None and compact_after == "1":
        wall, cpu = time.perf_counter(), time.process_time()
        compact(lake, force=True)
        times["compact_wall"] = round(time.perf_counter() - wall, 4)
        times["compact_cpu"] = round(time.process_time() - cpu, 4)
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index as stored

    newest = stored.newest(Storage(lake), lake)
    times["generation"] = None if newest is None else newest.number
    times["delta_base"] = None if newest is None else newest.base
    times["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(MARK + json.dumps({"code": code, **times}), flush=True)


def publish(
    seal: Path,
    lake: Path,
    compact_after: bool,
    profile: Path | None = None,
    listed: bool = False,
    profile_cpu: bool = False,
) -> dict[str, Any]:
    code = "import sys; from tests.bench.publish_bench import child; child(*sys.argv[1:])"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "ALPHA_RESULTS_LOG_LEVEL": "WARNING"}
    if profile is not None:
        env[PROFILE_ENV] = str(profile)
    if listed:
        env[LISTED_ENV] = "1"
    if profile_cpu:
        env[PROFILE_CPU_ENV] = "1"
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", code, str(seal), str(lake), "1" if compact_after else "0"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith(MARK)]
    if not lines:
        raise SystemExit(
            f"the publish of {seal.name} printed no times:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        )
    found = json.loads(lines[-1].removeprefix(MARK))
    return {"alpha": seal.name, "wall_seconds": round(time.monotonic() - started, 2), **found}


def synthetic_lake(n: int) -> Path:
    lake = SYNTHETIC / str(n) / "lake"
    if not (SYNTHETIC / str(n) / "synthetic.json").exists():
        subprocess.run(
            [sys.executable, "-m", "tests.bench.synthetic_catalogue", "--n", str(n)], cwd=REPO, check=True
        )
    return lake


def every_alpha_listed(lake: Path, gaps: bool = True) -> dict[str, Any]:
    """One more whole generation of `lake` (a copy: new files only) whose every alpha holds a list
    (`--listed`), naming the newest's matrices (without the stored gap lists unless `gaps`)."""
    import json as json_module
    import uuid

    import pyarrow as pa
    import pyarrow.compute as pc

    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index as stored
    from pipeline import catalogue_neighbours

    started = time.perf_counter()
    root = str(lake)
    storage = Storage(root)
    current = stored.newest(storage, root)
    assert current is not None and current.delta is None, "a whole generation to list"
    index = stored.read_index(storage, root, current)
    empty = "neighbours/_bench/empty.parquet"
    storage.write_bytes(f"{stored.catalogue_dir(root)}/{empty}", catalogue_neighbours.encode([]))
    column = index.column_names.index("score_neighbours")
    had = int(index.column("score_neighbours").null_count)
    index = index.set_column(
        column,
        "score_neighbours",
        pc.fill_null(index.column("score_neighbours"), pa.scalar(empty, pa.string())),
    )
    number = current.number + 1
    relative = f"index/{number:012d}-{uuid.uuid4().hex[:8]}.parquet"
    storage.write_bytes(f"{stored.catalogue_dir(root)}/{relative}", stored._parquet(index))
    storage.write_bytes(
        f"{stored.catalogue_dir(root)}/{stored.columns_path(relative)}", stored.columns_file(index)
    )
    matrices = {k: v for k, v in current.matrices.items() if gaps or not k.endswith(("_gapcount", "_gaps"))}
    document = {
        **current.document(),
        "generation": number,
        "index": relative,
        "changes": [],
        "matrices": matrices,
        "retired": [],
        "columns": stored.columns_path(relative),
    }
    storage.create_exclusive(stored.generation_path(root, number), json_module.dumps(document).encode())
    storage.replace_atomically(stored.latest_path(root), json_module.dumps({"generation": number}).encode())
    return {
        "listed_generation": number,
        "lists_added": had,
        "stored_gaps": any(k.endswith("_gapcount") for k in matrices),
        "seconds": round(time.perf_counter() - started, 1),
    }


def linked_without_synthetic_builds(lake: Path, copy: Path) -> None:
    """A hard-linked copy of `lake` without the synthetic alphas' minimal builds (`alphas/syn*`: 4
    folders each, 4 million inodes at 10^6, 20 minutes to link here): a publish never reads them
    (`--listed` reads no synthetic alpha's scores), as in a catalogue written with `--no-builds`."""
    copy.mkdir(parents=True)
    for entry in lake.iterdir():
        if entry.name != "alphas":
            subprocess.run(["cp", "-al", str(entry), str(copy / entry.name)], check=True)
    (copy / "alphas").mkdir()
    real = [e.path for e in os.scandir(lake / "alphas") if not e.name.startswith("syn")]
    if real:
        subprocess.run(["cp", "-al", *real, str(copy / "alphas")], check=True)


def extra_seals(count: int) -> list[Path]:
    from tests.bench import catalogue_bench as cb

    corpus = cb.ensure_corpus(20, 1, 1, False, cb.DEFAULT_CACHE)
    return cb.ensure_extra_seals(corpus, 1, count)


def first_stage(lake: Path, targets: int) -> list[dict[str, Any]]:
    """The pairing's first stage over every alpha of `lake`, both ways, for `targets` real alphas."""
    import numpy as np

    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index as stored
    from pipeline import catalogue_neighbours
    from pipeline import index_rows as steps

    root = str(lake)
    storage = Storage(root)
    current = stored.newest(storage, root)
    assert current is not None
    ids = stored.read_index(storage, root, current, ["alpha_id"]).column("alpha_id")
    real = [n for n, alpha in enumerate(ids.to_pylist()) if not alpha.startswith("syn")][:targets]
    found = []
    for target in real:
        series = {}
        for basis in catalogue_neighbours.PROXY_BASES:
            gathered = steps._gathered(storage, root, current, basis, np.array([target]))
            assert gathered is not None
            days, values = gathered
            finite = np.isfinite(values[0])
            series[basis] = (days[finite], values[0][finite])
        eligible = np.ones(len(ids), dtype=bool)
        eligible[target] = False
        others = np.flatnonzero(eligible)
        one: dict[str, Any] = {"alpha": ids[target].as_py(), "n": len(ids)}
        for way in ("every_row", "index"):
            wall, cpu = time.perf_counter(), time.process_time()
            rows = others
            if way == "index":
                open_rows = steps._open_rows(storage, root, current, ids, eligible, {"new": series})
                assert open_rows is not None
                rows = np.sort(np.asarray(pc_index(ids, open_rows["new"]), dtype=np.int64))
                one["open_rows"] = int(rows.size)
            order = np.concatenate([[target], rows])
            matrices = {}
            for basis in catalogue_neighbours.PROXY_BASES:
                gathered = steps._gathered(storage, root, current, basis, order)
                assert gathered is not None
                matrices[basis] = gathered[1]
            sub = np.ones(order.size, dtype=bool)
            picked = catalogue_neighbours.candidates(matrices, 0, sub, catalogue_neighbours.CANDIDATES)
            one[f"{way}_wall_seconds"] = round(time.perf_counter() - wall, 4)
            one[f"{way}_cpu_seconds"] = round(time.process_time() - cpu, 4)
            one[f"{way}_chosen"] = ids.take(order[picked]).to_pylist()
        one["same_candidates"] = one.pop("every_row_chosen") == one.pop("index_chosen")
        one["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        found.append(one)
        print(json.dumps(one), flush=True)
    return found


def pc_index(ids: Any, alphas: set[str]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.index_in(pa.array(sorted(alphas), pa.string()), value_set=ids).to_numpy()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--publishes", type=int, default=3)
    parser.add_argument("--first-stage", type=int, metavar="ALPHAS", help="measure the pairing's first stage")
    parser.add_argument("--out", help="also write the JSON here")
    parser.add_argument("--lake", nargs="*", default=[], metavar="N=DIR", help="the catalogue of N at DIR")
    parser.add_argument("--listed", action="store_true", help="every alpha holds a score-neighbour list")
    parser.add_argument("--no-compact", action="store_true", help="no compaction after the last publish")
    parser.add_argument("--profile-cpu", action="store_true", help="with --profile: CPU time, not wall")
    parser.add_argument(
        "--without-synthetic-builds", action="store_true", help="the copy without alphas/syn* (never read)"
    )
    parser.add_argument("--without-gaps", action="store_true", help="with --listed: no stored gap lists")
    parser.add_argument(
        "--profile",
        type=Path,
        help="profile each catalogue step (cProfile) into DIR/publish-N-K.prof (not counted apart)",
    )
    args = parser.parse_args(argv)
    lakes = {int(n): Path(d) for n, d in (item.split("=", 1) for item in args.lake)}

    def lake_of(n: int) -> Path:
        return lakes[n] if n in lakes else synthetic_lake(n)

    if args.first_stage:
        stages = {n: first_stage(lake_of(n), args.first_stage) for n in args.n}
        text = json.dumps(stages, indent=1)
        print(text)
        if args.out:
            Path(args.out).write_text(text + "\n")
        return 0
    seals = extra_seals(args.publishes)
    results: dict[str, Any] = {"cpus": os.cpu_count(), "runs": []}
    for n in args.n:
        lake = lake_of(n)
        SYNTHETIC.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="bench-publish-", dir=SYNTHETIC) as work:
            copy = Path(work) / "lake"
            if args.without_synthetic_builds:
                linked_without_synthetic_builds(lake, copy)
            else:
                subprocess.run(["cp", "-al", str(lake), str(copy)], check=True)
            if args.listed:
                made = {"n": n, **every_alpha_listed(copy, not args.without_gaps)}
                results.setdefault("listed", []).append(made)
                print(json.dumps(made), flush=True)
            for number, seal in enumerate(seals):
                profile = None
                if args.profile is not None:
                    args.profile.mkdir(parents=True, exist_ok=True)
                    profile = args.profile / f"publish-{n}-{number + 1}.prof"
                last = number == len(seals) - 1 and not args.no_compact
                found = publish(seal, copy, last, profile, args.listed, args.profile_cpu)
                found["n"] = n
                results["runs"].append(found)
                print(json.dumps(found), flush=True)
            shutil.rmtree(copy, ignore_errors=True)
    text = json.dumps(results, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
