"""`just bench-catalogue`: one worker over a catalogue of N distinct alphas (issue 21).

    python -m tests.bench.catalogue_bench --n 50 [--s3] [--nofile 1024] [--out FILE]
        [--no-pipeline] [--no-dask]

The corpus: ONE synthetic market of the demo engine (`alpha_results_seal.demo.market`, size `small`: 60
names, 300 published sessions, 62 weekly rebalances), and N alphas run through the demo engine
(`alpha_results_seal.demo.engine.run_alpha`) on it. Each alpha's raw signal is its own random mixture of the
engine's factor signals (12-1 momentum, one-week reversal, the planted latent factor, value, low
volatility; cross-sectionally standardised), plus its own noise, with its own universe (40-60
names), smoothing half-life and start week; so every alpha's scores, books and returns differ.
The seals are written by --jobs processes (each seal depends only on its index and the seeds),
then the N seals (and the benchmark seal) are built by the real pipeline as a backfill,
`alpha-results build SEAL... --lake ROOT --jobs J --defer-index` then `alpha-results lake index`, into
var/bench-catalogue/N/lake (seals in .../N/seals), which later runs reuse (they say so; --rebuild
builds again; a cached lake built before the catalogue index existed gets `alpha-results lake
index` once). With --s3 the pipeline builds the cached seals again into a bucket of a moto server
started for the run (moto keeps its objects in memory only).

The measure: `alpha-results serve --workers 1` (optionally under a soft open-files limit set by
`prlimit`), an admin key made with the operator CLI. Sequentially over one keep-alive connection,
for each of 100 random alphas: `/v1/alphas?limit=100`, the same with `search=` a random fragment of
an alpha id, correlation on each basis and significance (whole history and a window) of that
alpha with random windows, and the screener `/v1/analytics/screen` with three random filters and a
random sort; each route's first call (the worker's first) is reported apart from the p50/p95 of
the rest. Then the worker's open fds, memory maps, RSS and peak RSS are read from /proc and
/v1/health is asked; the worker is left idle (no request) for --idle seconds while its CPU time is
read (and, on S3, moto's access log counts the worker's requests per refresh pass); then the server
is restarted --restarts times and the first significance request of each fresh worker is timed.

The pipeline (unless --no-pipeline), after the server has stopped: into a hard-linked copy of the
cached lake, EXTRA_PUBLISHES new alphas are published one at a time by `alpha-results build` in a
child process that times its steps (the catalogue index step, `catalogue_index.record`, alone);
then `alpha-results lake index` rebuilds the whole index locally and (unless --no-dask) twice on a
Dask LocalCluster of 2 worker processes started here (new workers, then the same ones again). On
S3, one new alpha is published into the bucket instead, its S3 requests counted.

Errors are counted per route, never skipped. Prints a Markdown table and writes JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import random
import re
import resource
import shutil
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    RunTimeLimit,
    Server,
    bench_env,
    bounded_run,
    cli,
    create_admin_key,
    free_port,
    git_revision,
    run_checked,
    server_env,
    start_server,
    worker_pids,
)

# -- what is measured (adjust here) ------------------------------------------------------------

SCREEN_PATH = "/v1/analytics/screen"
"""The screener: called once per sampled alpha (it is not about one alpha), each time with three
random filters and a random sort (`screen_query`)."""
SCREEN_FILTERS = {
    "information_ratio": "min",
    "excess_sharpe": "min",
    "ic": "min",
    "icir": "min",
    "max_drawdown_pct": "max",
    "turnover": "max",
    "sessions": "min",
}
"""The screener's ranges (schemas/choices.py SCREEN_RANGES) and the bound a researcher sets on each."""
SCREEN_FILTER_COUNT = 3
SCREEN_KEEP = (0.4, 0.9)
"""Each filter keeps a random share in this range of the catalogue (its bound a quantile of the
column over the catalogue index), so three keep about 6-73% of it."""
SAMPLED_ALPHAS = 100
"""Random alphas each route is called on (drawn with replacement when N is smaller)."""
MIN_WINDOW_WEEKS = 13
"""Shortest random from/to window (correlation needs 3 common observations)."""
CORRELATION_BASES = ("returns", "ic", "scores")

# -- the corpus --------------------------------------------------------------------------------

CORPUS_VERSION = 1
"""Part of the cache key of var/bench-catalogue/N/: bump it when the corpus recipe changes."""
MARKET_SIZE = "small"
MARKET_SEED = 7
DEFAULT_CACHE = REPO / "var" / "bench-catalogue"
FACTORS = ("momentum_12_1", "short_term_reversal", "planted_factor", "value_composite", "low_volatility")
WORDS = {
    "momentum_12_1": "momentum",
    "short_term_reversal": "reversal",
    "planted_factor": "latent",
    "value_composite": "value",
    "low_volatility": "lowvol",
}
SEARCH_WORDS = (*WORDS.values(), "blend", "tilt")


@dataclass(frozen=True)
class Mix:
    """One alpha's raw signal: sum of weight x z(factor), plus noise x N(0, 1)."""

    weights: tuple[float, ...]
    noise: float


def _zscore_rows(x: np.ndarray) -> np.ndarray:
    mean = np.nanmean(x, axis=1, keepdims=True)
    sd = np.nanstd(x, axis=1, keepdims=True)
    return np.where(sd > 0, (x - mean) / np.where(sd > 0, sd, 1.0), 0.0)


def bench_alphas(n: int, seed: int) -> list[tuple[Any, Mix]]:
    """N alpha specs of the demo engine, each with its own mixture."""
    from alpha_results_seal.demo.alphas import AlphaSpec

    rng = np.random.default_rng([seed, 4242])
    start = dt.datetime(2026, 6, 1, 6, 0, tzinfo=dt.UTC)
    out = []
    for i in range(n):
        weights = rng.normal(0.0, 1.0, len(FACTORS))
        weights[rng.random(len(FACTORS)) < 0.4] = 0.0
        if not weights.any():
            weights[int(rng.integers(len(FACTORS)))] = 1.0
        order = np.argsort(-np.abs(weights))
        lead = WORDS[FACTORS[order[0]]]
        second = WORDS[FACTORS[order[1]]] if weights[order[1]] else "pure"
        mix = Mix(tuple(round(float(w), 4) for w in weights), round(float(rng.uniform(0.2, 1.5)), 3))
        universe = int(rng.integers(40, 61))
        spec = AlphaSpec(
            alpha_id=f"cat{i:04d}_{lead}_{second}",
            source_alpha_id=f"catalogue-bench-{i:04d}",
            name=f"Catalogue blend {i:04d}: {lead} led, {second} tilt",
            tldr=f"A {lead}/{second} mixture of the demo factors with noise {mix.noise:g}.",
            signal=f"catalogue_bench_{i:04d}",
            half_life_weeks=float(rng.choice([1, 2, 3, 4, 6, 8])),
            universe_full=universe,
            universe_small=universe,
            started_at=(start + dt.timedelta(hours=7 * i)).isoformat(),
            first_week_share=float(rng.choice([0.0, 0.0, 0.05, 0.1, 0.2])),
            universe_pick="all" if universe >= 60 else "random",
            tags=("catalogue_bench", lead, second),
        )
        out.append((spec, mix))
    return out


@contextlib.contextmanager
def engine_knows(specs: list[tuple[Any, Mix]], market: Any) -> Iterator[None]:
    """The demo engine's alpha table and signal registry, extended with the bench alphas for the
    time of the `with` (run_alpha seeds each alpha by its index in the table)."""
    from alpha_results_seal.demo import engine, signals

    weeks = market.published_weeks()
    row = np.full(len(market.decision_sessions), -1)
    row[weeks] = np.arange(len(weeks))
    every_name = np.arange(market.n_names)
    factor_rng = np.random.default_rng([MARKET_SEED, 77])
    panels = {f: signals.SIGNALS[f](market, weeks, every_name, factor_rng) for f in FACTORS}

    def signal_of(mix: Mix) -> Callable[..., np.ndarray]:
        def signal(
            market: Any, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
        ) -> np.ndarray:
            rows = row[weeks]
            raw = np.zeros((len(weeks), len(universe)))
            for name, weight in zip(FACTORS, mix.weights, strict=True):
                if weight:
                    raw += weight * _zscore_rows(panels[name][np.ix_(rows, universe)])
            return raw + mix.noise * rng.standard_normal(raw.shape)

        return signal

    saved = engine.ALPHAS
    added = [spec.signal for spec, _ in specs]
    engine.ALPHAS = (*saved, *(spec for spec, _ in specs))
    signals.SIGNALS.update({spec.signal: signal_of(mix) for spec, mix in specs})
    try:
        yield
    finally:
        engine.ALPHAS = saved
        for name in added:
            signals.SIGNALS.pop(name, None)


def write_seals(
    n: int, seed: int, into: Path, extra: int = 0, part: tuple[int, int] | None = None
) -> dict[str, Any]:
    """N alpha seals and the benchmark seal under `into`; facts about them for corpus.json. With
    `extra`, only the `extra` alphas that follow the N (ids N to N+extra-1, published one at a time
    into a copy of the lake to time the catalogue step) and no benchmark. With `part` (start, stop),
    only those of the N (the benchmark with the part that starts at 0): what one process of
    `write_seals_in_parallel` writes. Each alpha's seal depends only on its index and the seeds."""
    from alpha_results_seal.demo.corpus import BENCHMARK_SEAL, write_corpus, write_seal
    from alpha_results_seal.demo.engine import run_alpha
    from alpha_results_seal.demo.market import simulate_market

    market = simulate_market(MARKET_SIZE, MARKET_SEED)
    first, stop = (n, n + extra) if extra else (part or (0, n))
    if first == 0:
        write_corpus(into, size=MARKET_SIZE, seed=MARKET_SEED, only=[BENCHMARK_SEAL])
    specs = bench_alphas(n + extra, seed)
    alphas: dict[str, Any] = {}
    with engine_knows(specs, market):
        for spec, mix in specs[first:stop]:
            content = run_alpha(spec, market, MARKET_SIZE, seed)
            write_seal(content, into / spec.alpha_id)
            dates = content.tables["rebalances.parquet"].column("date").to_pylist()
            alphas[spec.alpha_id] = {
                "weights": dict(zip(FACTORS, mix.weights, strict=True)),
                "noise": mix.noise,
                "half_life_weeks": spec.half_life_weeks,
                "universe": content.manifest["universe_size"],
                "weeks": [d.isoformat() for d in dates],
            }
    sessions = [d.isoformat() for d in market.dates[market.first_session :]]
    return {"alphas": alphas, "sessions": sessions, "benchmark": BENCHMARK_SEAL}


def write_seals_in_parallel(n: int, seed: int, into: Path, jobs: int) -> dict[str, Any]:
    """`write_seals` split over `jobs` processes (the same seals: each depends only on its index)."""
    if jobs <= 1 or n < 100:
        return write_seals(n, seed, into)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    bounds = [(i * n // jobs, (i + 1) * n // jobs) for i in range(jobs)]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(write_seals, [n] * jobs, [seed] * jobs, [into] * jobs, [0] * jobs, bounds))
    facts = parts[0]
    for part in parts[1:]:
        facts["alphas"].update(part["alphas"])
    return facts


@dataclass
class Corpus:
    n: int
    lake: Path
    seals: Path
    facts: dict[str, Any]
    reused: bool

    @property
    def alpha_ids(self) -> list[str]:
        return list(self.facts["alphas"])


def corpus_key(n: int, seed: int) -> dict[str, Any]:
    from pipeline import PIPELINE_VERSION

    return {
        "corpus_version": CORPUS_VERSION,
        "pipeline_version": PIPELINE_VERSION,
        "n": n,
        "seed": seed,
        "market": {"size": MARKET_SIZE, "seed": MARKET_SEED},
    }


def ensure_corpus(n: int, seed: int, jobs: int, rebuild: bool, cache: Path) -> Corpus:
    """The lake of N alphas, built now or reused from var/bench-catalogue/N/."""
    folder = cache / str(n)
    lake, facts_file = folder / "lake", folder / "corpus.json"
    key = corpus_key(n, seed)
    if not rebuild and facts_file.exists() and lake.is_dir():
        facts = json.loads(facts_file.read_text())
        complete = all(
            (lake / "alphas" / a / "_current.json").exists()
            and (folder / "seals" / a / "manifest.json").exists()
            for a in facts.get("alphas", {})
        )
        if facts.get("key") == key and complete:
            if not has_index(lake):
                index_cached_lake(lake, facts, facts_file)
            return Corpus(n, lake, folder / "seals", facts, reused=True)
        print(f"the cached lake in {folder} is stale or incomplete: building again", flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    seals, building = folder / "seals", folder / "lake.building"
    seals.mkdir(parents=True)
    print(f"writing {n} seals with the demo engine into {seals} ...", flush=True)
    started = time.monotonic()
    facts = write_seals_in_parallel(n, seed, seals, jobs)
    generate_seconds = time.monotonic() - started
    print(f"  {generate_seconds:.1f} s ({generate_seconds / n * 1000:.0f} ms per alpha)", flush=True)
    folders = sorted(str(p) for p in seals.iterdir() if (p / "manifest.json").exists())
    # A backfill, as docs/operations.md describes it: publish every seal without a catalogue
    # generation per seal, then index the lake once.
    argv = [*cli(), "build", *folders, "--lake", str(building), "--jobs", str(jobs), "--defer-index"]
    print(
        f"alpha-results build {len(folders)} seals --lake {building} --jobs {jobs} --defer-index ...",
        flush=True,
    )
    started = time.monotonic()
    out = run_checked(argv, env=bench_env(), timeout=600 + 20 * n)
    build_seconds = time.monotonic() - started
    missing = [a for a in facts["alphas"] if not (building / "alphas" / a / "_current.json").exists()]
    if missing:
        raise BenchError(f"the build published no {', '.join(missing[:5])}:\n{out[-2000:]}")
    print(f"  published in {build_seconds:.1f} s; alpha-results lake index ...", flush=True)
    started = time.monotonic()
    indexed = run_checked(
        [*cli(), "lake", "index", "--lake", str(building)], env=bench_env(), timeout=600 + 5 * n
    )
    index_seconds = time.monotonic() - started
    print(f"  {indexed.strip()}", flush=True)
    building.rename(lake)
    lake_bytes = sum(p.stat().st_size for p in lake.rglob("*") if p.is_file())
    lake_files = sum(1 for p in lake.rglob("*") if p.is_file())
    seal_bytes = sum(p.stat().st_size for p in seals.rglob("*") if p.is_file())
    facts.update(
        key=key,
        built_at=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        generate_seconds=round(generate_seconds, 2),
        build_seconds=round(build_seconds, 2),
        index_seconds=round(index_seconds, 2),
        build_jobs=jobs,
        generate_jobs=jobs if n >= 100 else 1,
        lake_bytes=lake_bytes,
        lake_files=lake_files,
        seal_bytes=seal_bytes,
        build_summary=[line for line in out.splitlines() if "seals:" in line][-1:],
    )
    facts_file.write_text(json.dumps(facts, indent=1) + "\n")
    print(f"  built in {build_seconds:.1f} s ({build_seconds / n:.2f} s per alpha)", flush=True)
    return Corpus(n, lake, seals, facts, reused=False)


def has_index(lake: Path) -> bool:
    """Whether the lake has a catalogue index of this version's columns (a lake built before the
    index existed has none; one indexed by an earlier version lacks columns, score neighbours)."""
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index
    from schemas.lake import CATALOGUE_INDEX

    storage = Storage(str(lake))
    generation = catalogue_index.newest(storage, str(lake))
    if generation is None:
        return False
    return set(CATALOGUE_INDEX.names) <= set(
        catalogue_index.read_index(storage, str(lake), generation).column_names
    )


def index_cached_lake(lake: Path, facts: dict[str, Any], facts_file: Path) -> None:
    """`alpha-results lake index` once on a cached lake built before the catalogue index existed
    (its workers would otherwise read every pointer on every pass), or indexed by an earlier one."""
    print(f"the cached lake {lake} has no current catalogue index: alpha-results lake index ...", flush=True)
    started = time.monotonic()
    out = run_checked(
        [*cli(), "lake", "index", "--lake", str(lake)],
        env=bench_env(),
        timeout=600 + 5 * len(facts["alphas"]),
    )
    seconds = time.monotonic() - started
    print(f"  {out.strip()}", flush=True)
    facts["indexed_later"] = {
        "at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": round(seconds, 2),
    }
    facts_file.write_text(json.dumps(facts, indent=1) + "\n")


# -- the catalogue step and the index rebuild ----------------------------------------------------

EXTRA_PUBLISHES = 3
"""New alphas published one at a time into a copy of the lake, each publish timed."""
PUBLISH_TIMES = "PUBLISH_TIMES "


def ensure_extra_seals(corpus: Corpus, seed: int, count: int) -> list[Path]:
    """The `count` seals of the alphas that follow the corpus's N (cached beside its seals)."""
    folder = corpus.seals.parent / "extra-seals"
    key = {**corpus_key(corpus.n, seed), "extra": count}
    marker = folder / "extra.json"
    if marker.exists() and json.loads(marker.read_text()).get("key") == key:
        found = sorted(p for p in folder.iterdir() if (p / "manifest.json").exists())
        if len(found) == count:
            return found
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    print(f"writing {count} more seals (published one at a time later) into {folder} ...", flush=True)
    facts = write_seals(corpus.n, seed, folder, extra=count)
    marker.write_text(json.dumps({"key": key, "alphas": list(facts["alphas"])}, indent=1) + "\n")
    return sorted(p for p in folder.iterdir() if (p / "manifest.json").exists())


def timed_publish_child(seal: str, lake: str) -> None:
    """Runs in a child process (`timed_publish`): `alpha-results build SEAL --jobs 1` in this
    process (one seal, no pool), its steps timed by wrapping the pipeline's own functions:
    `publish_seal` (validate, derive, write, switch the pointer, the index row), within it
    `catalogue_index.record` (the catalogue index step: the alpha's row and the next generation's
    index and matrices), and the catalogue-wide steps after the publish (`run_catalogue_steps`:
    the lake's garbage collection). Prints one PUBLISH_TIMES JSON line."""
    from cli.main import main as cli_main
    from pipeline import build, catalogue_steps
    from pipeline import index_rows as catalogue_index

    times: dict[str, list[float]] = {"publish_seal": [], "record": [], "catalogue_steps": []}

    def timed(key: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                times[key].append(round(time.perf_counter() - started, 4))

        return wrapper

    build.publish_seal = timed("publish_seal", build.publish_seal)
    catalogue_index.record = timed("record", catalogue_index.record)
    # `alpha-results build` imports it when it runs (cli/ defers the pipeline's imports)
    catalogue_steps.run_catalogue_steps = timed("catalogue_steps", catalogue_steps.run_catalogue_steps)
    code = cli_main(["build", seal, "--lake", lake, "--jobs", "1"])
    print(PUBLISH_TIMES + json.dumps({"code": code, **times}), flush=True)


def timed_publish(seal: Path, lake: str, env: dict[str, str]) -> dict[str, Any]:
    """One seal published by `alpha-results build` in a child process: its wall time (interpreter
    start and imports included) and the times of its steps (`timed_publish_child`)."""
    code = "import sys; from tests.bench.catalogue_bench import timed_publish_child as t; t(*sys.argv[1:])"
    started = time.monotonic()
    out = run_checked([sys.executable, "-c", code, str(seal), lake], env=env, timeout=1200)
    wall = time.monotonic() - started
    lines = [line for line in out.splitlines() if line.startswith(PUBLISH_TIMES)]
    if not lines:
        raise BenchError(f"the timed publish printed no times:\n{out[-2000:]}")
    times = json.loads(lines[-1].removeprefix(PUBLISH_TIMES))
    summary = [line for line in out.splitlines() if "seals:" in line]
    if times["code"] != 0 or not summary or "1 built" not in summary[-1]:
        raise BenchError(f"the timed publish of {seal.name} did not publish it:\n{out[-2000:]}")
    return {
        "alpha": seal.name,
        "wall_seconds": round(wall, 3),
        **{k: v for k, v in times.items() if k != "code"},
    }


def copy_lake(lake: Path, into: Path) -> None:
    """A copy of the cached lake whose files are hard links: instant and free, and safe because a
    publish and `lake index` only create new files, replace files by renaming, or delete them
    (builds are immutable; `alpha_results_seal.storage`), never write into a file that exists."""
    run_checked(["cp", "-al", str(lake), str(into)], env=bench_env(), timeout=1200)


def lake_index_command(lake: str, env: dict[str, str], executor: str | None) -> dict[str, Any]:
    """`alpha-results lake index` (optionally on Dask): wall time and the command's own seconds."""
    argv = [*cli(), "lake", "index", "--lake", lake]
    if executor is not None:
        argv += ["--executor", executor]
    started = time.monotonic()
    out = run_checked(argv, env=env, timeout=7200)
    wall = time.monotonic() - started
    said = re.search(r"generation (\d+): (\d+) alphas in ([0-9.]+) s", out)
    if said is None:
        raise BenchError(f"alpha-results lake index printed no generation:\n{out[-2000:]}")
    return {
        "wall_seconds": round(wall, 2),
        "command_seconds": float(said.group(3)),
        "alphas": int(said.group(2)),
        "generation": int(said.group(1)),
    }


def measure_pipeline(corpus: Corpus, seed: int, work: Path, dask: bool) -> dict[str, Any]:
    """Into a hard-linked copy of the cached lake: EXTRA_PUBLISHES new alphas published one at a
    time (each timed), then the whole index rebuilt by `alpha-results lake index`, locally and
    (with `dask`) on a LocalCluster of 2 worker processes x 1 thread started here."""
    seals = ensure_extra_seals(corpus, seed, EXTRA_PUBLISHES)
    copy = work / "lake-copy"
    copy_lake(corpus.lake, copy)
    env = bench_env()
    out: dict[str, Any] = {"publishes": []}
    for seal in seals:
        found = timed_publish(seal, str(copy), env)
        out["publishes"].append(found)
        print(
            f"  published {seal.name}: {found['wall_seconds']:.2f} s wall, publish {found['publish_seal']}, "
            f"catalogue index step {found['record']}, catalogue-wide steps {found['catalogue_steps']} s",
            flush=True,
        )
    published = [found["alpha"] for found in out["publishes"]]
    out["recall_published"] = neighbour_recall(str(copy), published)
    print(
        f"  score neighbours of the published alphas against brute force: {out['recall_published']}",
        flush=True,
    )
    out["index_local"] = lake_index_command(str(copy), env, None)
    print(f"  lake index, local: {out['index_local']}", flush=True)
    sample = random.Random(seed).sample(sorted(corpus.alpha_ids), min(RECALL_SAMPLE, len(corpus.alpha_ids)))
    out["recall_rebuilt"] = neighbour_recall(str(copy), sample)
    print(
        f"  score neighbours after the rebuild, {len(sample)} random alphas: {out['recall_rebuilt']}",
        flush=True,
    )
    if dask:
        from distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", scheduler_port=0
            ) as cluster,
            Client(cluster, set_as_default=False) as client,
        ):
            client.wait_for_workers(2, timeout=120)
            address = "dask://" + cluster.scheduler_address.removeprefix("tcp://")
            # Twice: the first run's tasks import the pipeline in each worker (a new cluster), the
            # second is what a cluster in service costs.
            out["index_dask"] = lake_index_command(str(copy), env, address)
            print(f"  lake index, Dask LocalCluster 2 x 1, new workers: {out['index_dask']}", flush=True)
            out["index_dask_warm"] = lake_index_command(str(copy), env, address)
            print(f"  lake index, the same workers again: {out['index_dask_warm']}", flush=True)
    shutil.rmtree(copy, ignore_errors=True)
    return out


RECALL_SAMPLE = 20
"""Random alphas whose score neighbours are checked against a brute-force pairing."""


def neighbour_recall(root: str, alphas: list[str]) -> dict[str, Any]:
    """How many of each alpha's true 50 nearest (its whole-history score correlation with every
    other alpha of the lake, paired by brute force) its stored list holds."""
    import math

    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index
    from pipeline import catalogue_neighbours as neighbours
    from pipeline import index_rows as rows
    from schemas.lake import SCORE_NEIGHBOURS

    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    assert generation is not None
    index = catalogue_index.read_index(
        storage, root, generation, ["alpha_id", "build_id", "score_neighbours"]
    )
    listed = {r["alpha_id"]: r for r in index.to_pylist() if r["score_neighbours"]}
    scores = {a: rows.read_scores(storage, root, a, r["build_id"]) for a, r in listed.items()}
    shares = []
    missed: list[int] = []
    for alpha in alphas:
        others = [a for a in listed if a != alpha]
        pairings = analytics_pairings(scores[alpha], [scores[a] for a in others])
        whole = [(a, neighbours.whole_history(p)) for a, p in zip(others, pairings, strict=True)]
        whole = [(a, w) for a, w in whole if math.isfinite(w)]
        truth = [a for a, _ in sorted(whole, key=lambda p: (-abs(p[1]), p[0]))[: neighbours.NEIGHBOURS]]
        table = catalogue_index.read_table(storage, root, listed[alpha]["score_neighbours"], SCORE_NEIGHBOURS)
        stored = {entry[0] for entry in catalogue_index.neighbour_entries(table)}
        shares.append(len(set(truth) & stored) / max(len(truth), 1))
        missed += [truth.index(a) + 1 for a in truth if a not in stored]
    return {
        "alphas": len(alphas),
        "mean_share_of_true_nearest": round(float(np.mean(shares)), 4),
        "lowest_share": round(float(min(shares)), 4),
        "lists_exact": sum(share == 1.0 for share in shares),
        "true_ranks_missed": sorted(missed),
    }


def analytics_pairings(scores: Any, others: list[Any]) -> list[Any]:
    from analytics.correlation import weekly_score_spearman_against

    return weekly_score_spearman_against(scores, others)


def measure_publish_on_s3(moto: Moto, corpus: Corpus, seed: int, root: str) -> dict[str, Any]:
    """One new alpha published into the moto bucket: its times and the S3 requests it made (those
    under the catalogue folder apart)."""
    seal = ensure_extra_seals(corpus, seed, EXTRA_PUBLISHES)[0]
    offset = moto.log_offset()
    found = timed_publish(seal, root, {**bench_env(), **moto.aws})
    requests = moto.requests_since(offset)
    catalogue = [r for r in requests if "/catalogue/" in urllib.parse.unquote(r[1])]
    found.update(
        s3_requests=len(requests),
        s3_request_kinds=s3_request_kinds(requests),
        s3_catalogue_requests=len(catalogue),
    )
    print(f"  published {seal.name} on S3: {found}", flush=True)
    return found


# -- S3 (moto) ---------------------------------------------------------------------------------

S3_ENV = {
    "AWS_ACCESS_KEY_ID": "catalogue-bench",
    "AWS_SECRET_ACCESS_KEY": "catalogue-bench-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
}
MOTO_LINE = re.compile(r'\] "(?:\x1b\[[0-9;]*m)*([A-Z]+) (\S+) HTTP/[0-9.]+')


@dataclass
class Moto:
    server: Server
    aws: dict[str, str]

    def log_offset(self) -> int:
        return self.server.log.stat().st_size

    def requests_since(self, offset: int) -> list[tuple[str, str]]:
        """(method, path with query) of every request moto logged after `offset`."""
        with self.server.log.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode(errors="replace")
        return [(m.group(1), m.group(2)) for m in MOTO_LINE.finditer(text)]


def start_moto(children: Children, work: Path) -> Moto:
    port = free_port()
    argv = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    server = start_server(
        children, "moto S3", argv, env=bench_env(), port=port, ready_path="/", log=work / "moto.log"
    )
    return Moto(server, {**S3_ENV, "AWS_ENDPOINT_URL": server.base_url})


def build_on_s3(moto: Moto, corpus: Corpus, bucket: str, jobs: int) -> tuple[str, float]:
    """The cached seals built by the pipeline into a fresh bucket: the lake root and seconds."""
    import boto3

    aws = moto.aws
    boto3.client(
        "s3",
        endpoint_url=aws["AWS_ENDPOINT_URL"],
        aws_access_key_id=aws["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=aws["AWS_SECRET_ACCESS_KEY"],
        region_name=aws["AWS_DEFAULT_REGION"],
    ).create_bucket(Bucket=bucket)
    root = f"s3://{bucket}/lake"
    folders = sorted(str(p) for p in corpus.seals.iterdir() if (p / "manifest.json").exists())
    argv = [*cli(), "build", *folders, "--lake", root, "--jobs", str(jobs), "--defer-index"]
    started = time.monotonic()
    out = run_checked(argv, env={**bench_env(), **aws}, timeout=600 + 60 * corpus.n)
    run_checked(
        [*cli(), "lake", "index", "--lake", root], env={**bench_env(), **aws}, timeout=600 + 10 * corpus.n
    )
    seconds = time.monotonic() - started
    summary = [line for line in out.splitlines() if "seals:" in line]
    if not summary or f"{len(folders)} built" not in summary[-1]:
        raise BenchError(f"the S3 build did not publish every seal:\n{out[-2000:]}")
    return root, seconds


# -- the worker --------------------------------------------------------------------------------


@dataclass
class Deployment:
    """How the server is started (again after each restart)."""

    children: Children
    env: dict[str, str]
    work: Path
    nofile: int | None
    starts: int = 0
    server: Server | None = None
    start_seconds: list[float] = field(default_factory=list)  # from exec to /v1/health answering

    def start(self) -> Server:
        port = free_port()
        argv = [*cli(), "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
        if self.nofile is not None:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            hard_text = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
            argv = ["prlimit", f"--nofile={self.nofile}:{hard_text}", "--", *argv]
        self.starts += 1
        log = self.work / f"api-{self.starts}.log"
        started = time.monotonic()
        self.server = start_server(
            self.children,
            "alpha-results serve",
            argv,
            env=self.env,
            port=port,
            ready_path="/v1/health",
            log=log,
            timeout=600.0,
        )
        self.start_seconds.append(round(time.monotonic() - started, 2))
        return self.server

    def stop(self) -> None:
        if self.server is not None:
            self.children.stop(self.server.proc)
            self.server = None

    def worker(self) -> int:
        assert self.server is not None
        pids = worker_pids(self.server.proc.pid)
        if len(pids) != 1:
            raise BenchError(f"expected one worker process, found {pids}")
        return pids[0]


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS, VmHWM (kB) and Threads of a process."""
    out = {}
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM", "Threads"):
            out[name] = int(value.split()[0])
    return out


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_files_limit(pid: int) -> str:
    for line in (Path("/proc") / str(pid) / "limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return f"{soft} soft / {hard} hard"
    return "unknown"


def worker_facts(pid: int) -> dict[str, Any]:
    status = proc_status(pid)
    base = Path("/proc") / str(pid)
    return {
        "open_fds": len(os.listdir(base / "fd")),
        "maps": len((base / "maps").read_text().splitlines()),
        "rss_mib": round(status["VmRSS"] / 1024, 1),
        "peak_rss_mib": round(status["VmHWM"] / 1024, 1),
        "threads": status["Threads"],
    }


# -- the requests ------------------------------------------------------------------------------


@dataclass
class Route:
    label: str
    samples_ms: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)  # a few failing requests, with their answers
    served: bool = True

    @property
    def errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if not status.startswith("2"))

    def record(self, status: str, ms: float, path: str, body: str) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status.startswith("2"):
            self.samples_ms.append(ms)
        elif len(self.examples) < 3:
            self.examples.append(f"{status} GET {path}: {body[:300]}")

    def summary(self, warm: bool = True) -> dict[str, Any]:
        """p50/p95/max over the successful calls after the worker's first of this route (`warm`;
        the first is `first_ms`), or over every call."""
        first = self.samples_ms[0] if self.samples_ms else None
        xs = sorted(self.samples_ms[1:] if warm and len(self.samples_ms) > 1 else self.samples_ms)
        return {
            "label": self.label,
            "served": self.served,
            "calls": sum(self.statuses.values()),
            "ok": len(self.samples_ms),
            "non_2xx": self.errors,
            "statuses": dict(sorted(self.statuses.items())),
            "first_ms": round(first, 2) if first is not None and warm else None,
            "p50_ms": round(percentile(xs, 50), 2) if xs else None,
            "p95_ms": round(percentile(xs, 95), 2) if xs else None,
            "max_ms": round(xs[-1], 2) if xs else None,
            "errors": self.examples,
        }


def percentile(sorted_xs: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    return float(np.percentile(np.asarray(sorted_xs), q))


def timed_get(client: httpx.Client, path: str) -> tuple[str, float, str]:
    started = time.perf_counter()
    try:
        response = client.get(path)
    except httpx.HTTPError as exc:
        return type(exc).__name__, (time.perf_counter() - started) * 1000, str(exc)
    ms = (time.perf_counter() - started) * 1000
    return str(response.status_code), ms, "" if response.is_success else response.text


def random_window(weeks: list[str], rng: random.Random) -> tuple[str, str]:
    """A from/to pair of this alpha's rebalance dates at least MIN_WINDOW_WEEKS apart."""
    span = min(MIN_WINDOW_WEEKS, len(weeks) - 1)
    first = rng.randrange(0, len(weeks) - span)
    last = rng.randrange(first + span, len(weeks))
    return weeks[first], weeks[last]


ROUTES = (
    ("list", "`/v1/alphas?limit=100`"),
    ("search", "`/v1/alphas?limit=100&search=<fragment>`"),
    *((f"correlation_{b}", f"`/analytics/correlation?basis={b}&from&to`") for b in CORRELATION_BASES),
    ("significance", "`/analytics/significance` (whole history)"),
    ("significance_window", "`/analytics/significance?from&to`"),
    ("screen", "`/v1/analytics/screen`, 3 random filters and a random sort, limit 100"),
    (
        "screen_correlated",
        "`/v1/analytics/screen`, `max_correlation=0.3&correlated_to=<the alpha>` (returns), 2 random filters, a random sort",
    ),
)


def screen_columns(corpus: Corpus, root: str) -> dict[str, list[float]]:
    """Each screened column's finite values over the catalogue index (sorted), read from the lake's
    newest generation (local lake: the cached one, on S3 the same rows)."""
    from pipeline.index_rows import current_rows

    rows = current_rows(str(corpus.lake) if root.startswith("s3://") else root)
    if rows is None:
        raise BenchError(f"the lake {corpus.lake} has no catalogue index")
    columns = {}
    for column in SCREEN_FILTERS:
        found = rows.column(column).to_pylist()  # the index names each as the screener serves it
        values = [float(v) for v in found if v is not None and np.isfinite(v)]
        if values:
            columns[column] = sorted(values)
    return columns


def screen_query(
    columns: dict[str, list[float]], rng: random.Random, filters: int = SCREEN_FILTER_COUNT
) -> str:
    """`filters` random bounds (each keeping a random share of the catalogue) and a random sort."""
    from schemas.choices import SCREEN_SORTS

    parts = []
    for column in rng.sample(sorted(columns), filters):
        keep = rng.uniform(*SCREEN_KEEP)
        side = SCREEN_FILTERS[column]
        value = percentile(columns[column], 100 * (1 - keep if side == "min" else keep))
        text = str(int(round(value))) if column == "sessions" else f"{value:.4g}"
        parts.append(f"{side}_{column}={text}")
    parts.append(f"sort={rng.choice(('', '-'))}{rng.choice(SCREEN_SORTS)}")
    return "&".join([*parts, "limit=100"])


def search_fragment(ids: list[str], rng: random.Random) -> str:
    """A random piece (3 to 6 characters) of a random alpha's id, as a researcher types."""
    alpha = rng.choice(ids)
    size = rng.randint(3, 6)
    start = rng.randrange(0, len(alpha) - size + 1)
    return urllib.parse.quote(alpha[start : start + size])


def sample_of(ids: list[str], rng: random.Random) -> list[str]:
    return (
        rng.sample(ids, SAMPLED_ALPHAS) if len(ids) >= SAMPLED_ALPHAS else rng.choices(ids, k=SAMPLED_ALPHAS)
    )


def paths_for(
    alpha: str, corpus: Corpus, rng: random.Random, columns: dict[str, list[float]]
) -> dict[str, str]:
    """Every route's path for one sampled alpha, with its random window, fragment and filters."""
    weeks = corpus.facts["alphas"][alpha]["weeks"]
    paths = {
        "list": "/v1/alphas?limit=100",
        "search": f"/v1/alphas?limit=100&search={search_fragment(corpus.alpha_ids, rng)}",
    }
    for basis in CORRELATION_BASES:
        start, end = random_window(weeks, rng)
        paths[f"correlation_{basis}"] = (
            f"/v1/alphas/{alpha}/analytics/correlation?basis={basis}&from={start}&to={end}"
        )
    paths["significance"] = f"/v1/alphas/{alpha}/analytics/significance"
    start, end = random_window(weeks, rng)
    paths["significance_window"] = f"/v1/alphas/{alpha}/analytics/significance?from={start}&to={end}"
    paths["screen"] = f"{SCREEN_PATH}?{screen_query(columns, rng)}"
    paths["screen_correlated"] = (
        f"{SCREEN_PATH}?{screen_query(columns, rng, filters=2)}&max_correlation=0.3&correlated_to={alpha}"
    )
    return paths


def call_routes(
    server: Server,
    token: str,
    corpus: Corpus,
    rng: random.Random,
    columns: dict[str, list[float]],
    *,
    timeout: float,
) -> tuple[dict[str, Route], list[str]]:
    """The mixed pass: for each sampled alpha, every route in turn."""
    routes = {key: Route(label) for key, label in ROUTES}
    sample = sample_of(corpus.alpha_ids, rng)
    headers = {"Authorization": f"Bearer {token}"}
    progress_every = max(1, SAMPLED_ALPHAS // 10)
    started = time.monotonic()
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=timeout) as client:
        for index, alpha in enumerate(sample, 1):
            for key, path in paths_for(alpha, corpus, rng, columns).items():
                route = routes[key]
                if not route.served:
                    continue
                status, ms, body = timed_get(client, path)
                if key == "screen" and status == "404" and not route.statuses:
                    route.served = False  # not mounted: probed once, not counted as an error
                    route.examples.append(f"404 GET {path}: {body[:200]}")
                    continue
                route.record(status, ms, path, body)
            if index % progress_every == 0:
                errors = sum(r.errors for r in routes.values())
                print(
                    f"  {index:>3}/{SAMPLED_ALPHAS} alphas, {time.monotonic() - started:6.1f} s, {errors} errors",
                    flush=True,
                )
    return routes, sample


ALONE = (
    "list",
    "search",
    "screen",
    "screen_correlated",
    "correlation_returns",
    "correlation_ic",
    "significance_window",
)
"""Routes called again after the idle window, each SAMPLED_ALPHAS times in a row with nothing else
in between (`scores`, which opens every build, left out): their latency without the interference
of the other routes' work (opened builds' background checks, garbage)."""


def call_alone(
    server: Server,
    token: str,
    corpus: Corpus,
    rng: random.Random,
    columns: dict[str, list[float]],
    *,
    timeout: float,
) -> dict[str, Route]:
    labels = dict(ROUTES)
    routes = {key: Route(labels[key] + ", alone") for key in ALONE}
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=timeout) as client:
        for key in ALONE:
            started = time.monotonic()
            for alpha in sample_of(corpus.alpha_ids, rng):
                path = paths_for(alpha, corpus, rng, columns)[key]
                status, ms, body = timed_get(client, path)
                routes[key].record(status, ms, path, body)
            print(f"  {key}: {time.monotonic() - started:.1f} s", flush=True)
    return routes


def first_significance(
    deployment: Deployment, token: str, corpus: Corpus, rng: random.Random, restarts: int, timeout: float
) -> Route:
    """The first significance request of a freshly started worker, `restarts` times."""
    route = Route("`/analytics/significance`, first request after a restart")
    for _ in range(restarts):
        deployment.stop()
        server = deployment.start()
        alpha = rng.choice(corpus.alpha_ids)
        path = f"/v1/alphas/{alpha}/analytics/significance"
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        ) as client:
            status, ms, body = timed_get(client, path)
        route.record(status, ms, path, body)
        print(
            f"  restart {deployment.starts - 1}: first significance ({alpha}) {status} in {ms:.0f} ms",
            flush=True,
        )
    return route


# -- idle --------------------------------------------------------------------------------------


GENERATION_GET = re.compile(r"/lake/catalogue/generations/\d+\.json$")
POINTER_GET = re.compile(r"/lake/alphas/[^/?]+/_current\.json$")


def s3_request_patterns(requests: list[tuple[str, str]]) -> dict[str, int]:
    """Requests by method and path, alpha ids and build ids masked, most frequent first."""
    counts: dict[str, int] = {}
    for method, path in requests:
        masked = re.sub(r"/alphas/[A-Za-z0-9_.-]+", "/alphas/{alpha}", urllib.parse.unquote(path))
        masked = re.sub(r"/builds/[0-9a-f]+-[0-9a-f]+", "/builds/{build}", masked)
        masked = re.sub(r"/generations/\d+", "/generations/{g}", masked)
        masked = re.sub(r"&?encoding-type=url", "", masked)
        counts[f"{method} {masked}"] = counts.get(f"{method} {masked}", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def s3_request_kinds(requests: list[tuple[str, str]]) -> dict[str, int]:
    kinds: dict[str, int] = {}
    for method, path in requests:
        kind = f"{method} list" if "list-type=" in path or "delimiter=" in path else method
        kinds[kind] = kinds.get(kind, 0) + 1
    return dict(sorted(kinds.items()))


def measure_idle(
    deployment: Deployment,
    seconds: float,
    settle: float,
    refresh_seconds: float,
    moto: Moto | None,
    n_alphas: int,
) -> dict[str, Any]:
    """The worker's CPU (and S3 requests) over `seconds` without a request, after `settle` s."""
    pid = deployment.worker()
    settle_cpu0, settle_t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(settle)
    offset = moto.log_offset() if moto else 0
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    cpu1, t1 = cpu_seconds(pid), time.monotonic()
    out: dict[str, Any] = {
        "seconds": round(t1 - t0, 2),
        "settle_seconds": round(t0 - settle_t0, 2),
        # The first passes after the routes: the background SHA-256 checks of the builds they
        # opened (at most hash_bytes_per_pass a pass) and the release of the pages they mapped.
        "settle_cpu_seconds": round(cpu0 - settle_cpu0, 3),
        "refresh_seconds": refresh_seconds,
        "cpu_seconds": round(cpu1 - cpu0, 3),
        "cpu_pct_of_core": round(100 * (cpu1 - cpu0) / (t1 - t0), 2),
    }
    if moto is not None:
        requests = moto.requests_since(offset)
        # An idle pass of a lake with a catalogue index asks for the next generation (s3fs: a GET or
        # a HEAD that finds nothing, then a listing); a lake without one reads every alpha's
        # pointer. Either counts the passes (in fractions for pointers: the window cuts a pass at
        # each end).
        generations = sum(
            1 for method, path in requests if method in ("GET", "HEAD") and GENERATION_GET.search(path)
        )
        pointers = sum(1 for method, path in requests if method == "GET" and POINTER_GET.search(path))
        passes = float(generations) if generations else pointers / n_alphas
        out.update(
            s3_requests=len(requests),
            s3_request_kinds=s3_request_kinds(requests),
            s3_request_patterns=s3_request_patterns(requests),
            s3_passes=round(passes, 2),
            s3_passes_counted_by="generation GETs" if generations else "pointer GETs / N",
            s3_passes_if_back_to_back=round((t1 - t0) / refresh_seconds, 1),
            s3_requests_per_pass=round(len(requests) / passes, 2) if passes else None,
            s3_pass_period_seconds=round((t1 - t0) / passes, 2) if passes else None,
        )
    return out


# -- the run -----------------------------------------------------------------------------------


def machine_facts() -> dict[str, Any]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_total = 0
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_total = int(line.split()[1])
    return {
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "cpu_model": model,
        "memory_gib": round(mem_total / 1024 / 1024, 1),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def mode_name(args: argparse.Namespace) -> str:
    parts = ["s3" if args.s3 else "local"]
    if args.nofile is not None:
        parts.append(f"nofile{args.nofile}")
    return "-".join(parts)


def execute(args: argparse.Namespace, children: Children) -> dict[str, Any]:
    seed = args.seed
    rng = random.Random(
        args.request_seed if args.request_seed is not None else random.SystemRandom().randrange(2**31)
    )
    request_seed = rng.randrange(2**31)
    rng = random.Random(request_seed)
    result: dict[str, Any] = {
        "command": "python -m tests.bench.catalogue_bench " + " ".join(args.argv),
        "started_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_revision(),
        "machine": machine_facts(),
        "n": args.n,
        "mode": {"lake": "s3 (moto)" if args.s3 else "local", "nofile": args.nofile, "workers": 1},
        "request_seed": request_seed,
    }
    corpus = ensure_corpus(args.n, seed, args.jobs, args.rebuild, args.cache)
    facts = corpus.facts
    result["corpus"] = {
        "reused": corpus.reused,
        "lake": str(corpus.lake),
        "built_at": facts["built_at"],
        "generate_seconds": facts["generate_seconds"],
        "generate_jobs": facts.get("generate_jobs", 1),
        "build_seconds": facts["build_seconds"],
        "build_seconds_per_alpha": round(facts["build_seconds"] / args.n, 3),
        "index_seconds": facts.get("index_seconds"),
        "generate_seconds_per_alpha": round(facts["generate_seconds"] / args.n, 3),
        "build_jobs": facts["build_jobs"],
        "lake_mb": round(facts["lake_bytes"] / 1e6, 1),
        "lake_files": facts["lake_files"],
        "sessions": len(facts["sessions"]),
        "weeks_max": max(len(a["weeks"]) for a in facts["alphas"].values()),
        "universe": [
            min(a["universe"] for a in facts["alphas"].values()),
            max(a["universe"] for a in facts["alphas"].values()),
        ],
    }
    if corpus.reused:
        print(
            f"reusing the lake of {args.n} alphas in {corpus.lake} (built {facts['built_at']} in "
            f"{facts['build_seconds']:.1f} s, {facts['build_seconds'] / args.n:.2f} s per alpha; "
            f"--rebuild builds it again)",
            flush=True,
        )
    work = args.cache / str(args.n) / f"run-{mode_name(args)}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    lake_root = str(corpus.lake)
    moto: Moto | None = None
    extra_env: dict[str, str] = {"ALPHA_RESULTS_LAKE_REFRESH_SECONDS": f"{args.refresh_seconds:g}"}
    if args.s3:
        moto = start_moto(children, work)
        bucket = "catalogue-bench"
        print(
            f"alpha-results build {args.n + 1} seals --lake s3://{bucket}/lake (moto) --jobs {args.jobs} ...",
            flush=True,
        )
        lake_root, seconds = build_on_s3(moto, corpus, bucket, args.jobs)
        print(f"  built in {seconds:.1f} s ({seconds / args.n:.2f} s per alpha)", flush=True)
        result["corpus"]["s3_build_seconds"] = round(seconds, 1)
        result["corpus"]["s3_build_seconds_per_alpha"] = round(seconds / args.n, 3)
        extra_env.update(moto.aws, ALPHA_RESULTS_SERVING_CACHE_DIR=str(work / "serving-cache"))
    keystore = f"sqlite:///{work / 'keys.sqlite3'}"
    env = {**server_env(lake_root, keystore), **extra_env}
    key = create_admin_key(keystore, env)
    deployment = Deployment(children, env, work, args.nofile)
    server = deployment.start()
    pid = deployment.worker()
    result["worker_started"] = {
        **worker_facts(pid),
        "open_files_limit": open_files_limit(pid),
        "server_says": resource_lines(server),
    }
    print(
        f"worker {pid} ({result['worker_started']['open_files_limit']} open files): {result['worker_started']}",
        flush=True,
    )
    columns = screen_columns(corpus, lake_root)
    print(f"calling {len(ROUTES)} routes on {SAMPLED_ALPHAS} random alphas ...", flush=True)
    routes, sample = call_routes(server, key.token, corpus, rng, columns, timeout=args.timeout)
    result["distinct_alphas_called"] = len(set(sample))
    alive = server.proc.poll() is None
    result["worker_alive_after_routes"] = alive
    if alive:
        result["worker_after_routes"] = worker_facts(pid)
        result["health_after_routes"] = health_of(server)
        print(f"  health after the routes: {result['health_after_routes']}", flush=True)
        print(f"  worker after the routes: {result['worker_after_routes']}", flush=True)
        print(f"idle for {args.idle:g} s (after {args.settle:g} s to settle) ...", flush=True)
        result["idle"] = measure_idle(deployment, args.idle, args.settle, args.refresh_seconds, moto, args.n)
        result["worker_after_idle"] = worker_facts(pid)
        print(f"  {result['idle']}", flush=True)
        print(f"calling {', '.join(ALONE)} {SAMPLED_ALPHAS} times each, alone ...", flush=True)
        alone = call_alone(server, key.token, corpus, rng, columns, timeout=args.timeout)
        result["routes_alone"] = {k: r.summary(warm=False) for k, r in alone.items()}
        result["worker_after_alone"] = worker_facts(pid)
    else:
        print(
            f"  the worker exited ({server.proc.returncode}):\n{server.log_tail()}",
            flush=True,
        )
        result["worker_exit"] = {
            "code": server.proc.returncode,
            "log_tail": server.log_tail(),
        }
    print(f"restarting the server {args.restarts} times ...", flush=True)
    first = first_significance(deployment, key.token, corpus, rng, args.restarts, args.timeout)
    deployment.stop()
    result["server_start_seconds"] = deployment.start_seconds
    result["routes"] = {k: r.summary() for k, r in routes.items()}
    result["routes"]["significance_first_after_restart"] = first.summary(warm=False)
    result["server_log_problems"] = server_log_problems(work)
    if args.pipeline:
        if moto is not None:
            print("publishing one more alpha into the bucket, timed ...", flush=True)
            result["publish_on_s3"] = measure_publish_on_s3(moto, corpus, seed, lake_root)
        else:
            print(
                f"publishing {EXTRA_PUBLISHES} more alphas one at a time into a copy of the lake, "
                "then rebuilding its index ...",
                flush=True,
            )
            result["pipeline"] = measure_pipeline(corpus, seed, work, dask=not args.no_dask)
    return result


def health_of(server: Server) -> dict[str, Any]:
    """`/v1/health`'s status and whatever it says beside (reasons of a degraded lake)."""
    try:
        answer = httpx.get(server.base_url + "/v1/health", timeout=30).json()
    except (httpx.HTTPError, ValueError) as exc:
        return {"status": f"unreadable: {exc}"}
    status = answer.get("status") if isinstance(answer, dict) else None
    return {"status": status, "answer": json.dumps(answer)[:600]}


def server_log_problems(work: Path) -> list[str]:
    """Distinct WARNING/ERROR/CRITICAL lines and tracebacks of the servers' logs (request ids and
    times left out), each with how often it occurred; at most 10."""
    counts: dict[str, int] = {}
    for log in sorted(work.glob("api-*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if PROBLEM_LINE.search(line):
                text = LOG_TIME.sub("", line)
                text = re.sub(r"req_[0-9a-f]+", "req_…", re.sub(r"\[\d+\]", "[pid]", text))[:300]
                counts[text] = counts.get(text, 0) + 1
    return [f"{n} x {text}" for text, n in list(counts.items())[:10]]


def resource_lines(server: Server) -> list[str]:
    """What the server logged about its open-files limit at start-up."""
    return [
        LOG_TIME.sub("", line)
        for line in server.log.read_text(errors="replace").splitlines()
        if "open files" in line and not line.startswith("{")
    ]


LOG_TIME = re.compile(r"^\d{4}-\d\d-\d\d \S+ ")
PROBLEM_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \S+ (WARNING|ERROR|CRITICAL) |^Traceback|^[\w.]*(Error|Exception): "
)


# -- the report --------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def report(result: dict[str, Any]) -> list[str]:
    machine, corpus, mode = result["machine"], result["corpus"], result["mode"]
    n = result["n"]
    where = "an S3 lake (moto on loopback)" if mode["lake"].startswith("s3") else "a local lake"
    limit = f", soft open-files limit {mode['nofile']}" if mode["nofile"] is not None else ""
    built = (
        f"reused from {corpus['lake']} (built {corpus['built_at']}: "
        if corpus["reused"]
        else f"built now into {corpus['lake']} ("
    ) + (
        f"engine {corpus['generate_seconds']:.1f} s = {corpus['generate_seconds_per_alpha'] * 1000:.0f} ms per alpha, "
        f"`alpha-results build --jobs {corpus['build_jobs']} --defer-index` {corpus['build_seconds']:.1f} s = "
        f"{corpus['build_seconds_per_alpha']:.2f} s per alpha, then `lake index` {corpus.get('index_seconds') or 0:.1f} s; "
        f"{corpus['lake_mb']:,.0f} MB, {corpus['lake_files']:,} files)"
    )
    lines = [
        f"## Catalogue of {n} alphas, one worker, {where}{limit} (`just bench-catalogue`)",
        "",
        f"`{result['command']}` on {result['started_at']}, commit {result['commit']}. Machine: "
        f"{machine['cores']} cores ({machine['cpu_model']}), {machine['memory_gib']} GiB, load average at "
        f"start {' / '.join(str(x) for x in machine['load_average_at_start'])}, Python {machine['python']}.",
        "",
        f"Corpus: {n} distinct alphas of the demo engine on one `{MARKET_SIZE}` market "
        f"({corpus['sessions']} sessions, up to {corpus['weeks_max']} weeks, universes of "
        f"{corpus['universe'][0]}-{corpus['universe'][1]} names), {built}."
        + (
            f" Built again by the pipeline from the cached seals into the moto bucket for this run: "
            f"{corpus['s3_build_seconds']:.1f} s = {corpus['s3_build_seconds_per_alpha']:.2f} s per alpha."
            if "s3_build_seconds" in corpus
            else ""
        ),
        f"Requests: every route on {SAMPLED_ALPHAS} random alphas ({result.get('distinct_alphas_called', '?')} "
        f"distinct; request seed {result['request_seed']}), sequential, one keep-alive connection (httpx).",
        "",
        "| measure | value |",
        "|---|---|",
    ]
    start = result["worker_started"]
    said = "; ".join(start.get("server_says") or [])
    lines.append(
        f"| open-files limit of the worker (`/proc/PID/limits`) | {start['open_files_limit']}"
        + (f" (server log: {said})" if said else "")
        + " |"
    )
    after = result.get("worker_after_routes")
    if after is None:
        exit_ = result.get("worker_exit", {})
        lines.append(f"| **worker exited during the routes** | code {exit_.get('code')} |")
    else:
        idle, later = result["idle"], result["worker_after_idle"]
        lines += [
            f"| open fds (`/proc/PID/fd`): started / after the routes / after idle | {start['open_fds']:,} / {after['open_fds']:,} / {later['open_fds']:,} |",
            f"| memory maps (`/proc/PID/maps` lines): started / after the routes / after idle | {start['maps']:,} / {after['maps']:,} / {later['maps']:,} |",
            f"| RSS: started / after the routes / after idle | {start['rss_mib']:,.0f} / {after['rss_mib']:,.0f} / {later['rss_mib']:,.0f} MiB |",
            f"| peak RSS (`VmHWM`) | {later['peak_rss_mib']:,.0f} MiB |",
            f"| threads after the routes | {after['threads']} |",
            f"| idle refresh CPU ({idle['seconds']:.0f} s without a request, refresh every {idle['refresh_seconds']:g} s) | "
            f"{idle['cpu_pct_of_core']:.2f} % of a core ({idle['cpu_seconds']:.2f} s CPU) |",
            f"| worker CPU in the {idle['settle_seconds']:.0f} s right after the routes (first passes: "
            f"background hash checks of the builds they opened) | {idle['settle_cpu_seconds']:.2f} s |",
            f"| health after the routes | {result.get('health_after_routes', {}).get('status')} |",
        ]
        if "s3_requests" in idle:
            per_pass = idle["s3_requests_per_pass"]
            kinds = ", ".join(f"{k} {v}" for k, v in idle["s3_request_kinds"].items())
            period = idle["s3_pass_period_seconds"]
            cadence = (
                f"one pass every {period:g} s, {idle['refresh_seconds']:g} s of it waiting"
                if period is not None
                else "no whole pass"
            )
            lines.append(
                f"| S3 requests per idle refresh pass | {per_pass if per_pass is not None else '—'} "
                f"({idle['s3_requests']:,} requests over {idle['s3_passes']:g} passes in {idle['seconds']:.0f} s: "
                f"{cadence}; {kinds}) |"
            )
    starts = result.get("server_start_seconds") or []
    if starts:
        lines.append(
            "| server start to `/v1/health` answering (each start) | "
            + " / ".join(f"{x:.1f}" for x in starts)
            + " s |"
        )
    lines += [
        "",
        "p50, p95 and max over the calls after the worker's first of each route (the first apart); "
        "rows marked 'alone': after the idle window, the route called 100 times in a row, over every call.",
        "",
        "| route | calls | first ms | p50 ms | p95 ms | max ms | non-2xx |",
        "|---|---|---|---|---|---|---|",
    ]
    for summary in result["routes"].values():
        if not summary["served"]:
            lines.append(f"| {summary['label']} | not served (404) | | | | | |")
            continue
        bad = summary["non_2xx"]
        bad_text = (
            "0"
            if not bad
            else f"**{bad}** ("
            + ", ".join(f"{s}: {c}" for s, c in summary["statuses"].items() if not s.startswith("2"))
            + ")"
        )
        lines.append(
            f"| {summary['label']} | {summary['calls']} | {_ms(summary.get('first_ms'))} | "
            f"{_ms(summary['p50_ms'])} | {_ms(summary['p95_ms'])} | "
            f"{_ms(summary['max_ms'])} | {bad_text} |"
        )
    patterns = (result.get("idle") or {}).get("s3_request_patterns")
    if patterns:
        passes = result["idle"]["s3_passes"] or 1
        lines += ["", "S3 requests of the idle window, per pass (alpha and build ids masked):", ""]
        lines += [f"- {count / passes:.1f} x `{pattern}`" for pattern, count in list(patterns.items())[:8]]
    for summary in (result.get("routes_alone") or {}).values():
        lines.append(
            f"| {summary['label']} | {summary['calls']} | | {_ms(summary['p50_ms'])} | "
            f"{_ms(summary['p95_ms'])} | {_ms(summary['max_ms'])} | {summary['non_2xx']} |"
        )
    lines += pipeline_lines(result)
    every = (*result["routes"].values(), *(result.get("routes_alone") or {}).values())
    failing = [e for s in every if s["served"] for e in s["errors"]]
    if failing:
        lines += ["", "Failing requests (first of each route):", ""]
        lines += [f"- {e}" for e in failing]
    if result.get("server_log_problems"):
        lines += ["", "Warnings and errors in the server logs (distinct, first 10):", ""]
        lines += [f"- `{p}`" for p in result["server_log_problems"]]
    lines.append("")
    return lines


def pipeline_lines(result: dict[str, Any]) -> list[str]:
    """The catalogue step per publish and the index rebuilds, when measured."""
    lines: list[str] = []
    pipeline = result.get("pipeline")
    if pipeline:
        lines += [
            "",
            f"Pipeline, into a hard-linked copy of the lake of {result['n']} alphas: {EXTRA_PUBLISHES} new "
            "alphas published one at a time (`alpha-results build SEAL --jobs 1`), then the whole index "
            "rebuilt.",
            "",
            "| step | seconds |",
            "|---|---|",
        ]
        for found in pipeline["publishes"]:
            lines.append(
                f"| publish {found['alpha']}: wall (interpreter start included) / `publish_seal` / catalogue "
                f"index step (`catalogue_index.record`) / catalogue-wide steps (gc of the run's alphas) | "
                f"{found['wall_seconds']:.2f} / {_seconds(found['publish_seal'])} / {_seconds(found['record'])} / "
                f"{_seconds(found['catalogue_steps'])} |"
            )
        for key, label in (
            ("index_local", "local"),
            ("index_dask", "Dask LocalCluster, 2 processes x 1 thread, new workers"),
            ("index_dask_warm", "the same Dask workers again"),
        ):
            if key in pipeline:
                found = pipeline[key]
                lines.append(
                    f"| `alpha-results lake index` ({label}), {found['alphas']:,} alphas: wall / as the command "
                    f"says | {found['wall_seconds']:.1f} / {found['command_seconds']:.1f} |"
                )
        for key, label in (
            ("recall_published", "the alphas just published"),
            ("recall_rebuilt", "random alphas after `lake index`"),
        ):
            if key in pipeline:
                found = pipeline[key]
                lines.append(
                    f"| score neighbours of {found['alphas']} {label}: share of the true 50 nearest held (mean / "
                    f"lowest), lists exact, true ranks missed | {found['mean_share_of_true_nearest']:.3f} / "
                    f"{found['lowest_share']:.2f}, {found['lists_exact']} of {found['alphas']}, "
                    f"{found['true_ranks_missed'] or 'none'} |"
                )
    on_s3 = result.get("publish_on_s3")
    if on_s3:
        kinds = ", ".join(f"{k} {v}" for k, v in on_s3["s3_request_kinds"].items())
        lines += [
            "",
            f"One new alpha published into the bucket: {on_s3['wall_seconds']:.2f} s wall, `publish_seal` "
            f"{_seconds(on_s3['publish_seal'])} s, catalogue index step {_seconds(on_s3['record'])} s, "
            f"catalogue-wide steps {_seconds(on_s3['catalogue_steps'])} s; {on_s3['s3_requests']:,} S3 requests "
            f"({kinds}), {on_s3['s3_catalogue_requests']:,} of them under catalogue/.",
        ]
    return lines


def _seconds(values: list[float]) -> str:
    return " + ".join(f"{v:.2f}" for v in values) or "—"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="distinct alphas in the catalogue (default 50)")
    parser.add_argument(
        "--s3", action="store_true", help="serve the lake from S3 (a moto server on loopback)"
    )
    parser.add_argument(
        "--nofile", type=int, default=None, help="soft open-files limit of the server (e.g. 1024)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="JSON results (default var/bench-catalogue/N/result-MODE.json)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes of `alpha-results build` (default 2)")
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the alphas' mixtures (part of the cache key)"
    )
    parser.add_argument(
        "--request-seed", type=int, default=None, help="seed of the random alphas and windows"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        help="folder of the cached corpora (default var/bench-catalogue)",
    )
    parser.add_argument("--rebuild", action="store_true", help="build the lake again even when cached")
    parser.add_argument(
        "--no-pipeline",
        dest="pipeline",
        action="store_false",
        help=f"skip the pipeline measures ({EXTRA_PUBLISHES} timed publishes into a copy of the lake, "
        "`lake index` local and on Dask; on S3 one timed publish)",
    )
    parser.add_argument(
        "--no-dask", action="store_true", help="rebuild the index locally only (no Dask LocalCluster)"
    )
    parser.add_argument("--idle", type=float, default=20.0, help="idle seconds measured (default 20)")
    parser.add_argument(
        "--settle", type=float, default=5.0, help="seconds before the idle measure (default 5)"
    )
    parser.add_argument(
        "--refresh-seconds",
        type=float,
        default=2.0,
        help="ALPHA_RESULTS_LAKE_REFRESH_SECONDS (default 2, the default)",
    )
    parser.add_argument(
        "--restarts",
        type=int,
        default=3,
        help="restarts, each timing the first significance request (default 3)",
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="per-request timeout, seconds (default 300)"
    )
    parser.add_argument(
        "--time-limit", type=float, default=3600.0, help="end the run after this many seconds"
    )
    args = parser.parse_args(argv)
    if args.n < 2:
        parser.error("--n must be at least 2 (correlation needs another alpha)")
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    try:
        with bounded_run(args.time_limit), Children() as children:
            result = execute(args, children)
    except (BenchError, RunTimeLimit) as exc:
        print(f"\nbench-catalogue could not measure: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nbench-catalogue interrupted; every process it started was ended", file=sys.stderr)
        return 130
    result["run_seconds"] = round(time.monotonic() - started, 1)
    lines = report(result)
    lines.append(f"Run time {result['run_seconds']:.0f} s.")
    print("\n" + "\n".join(lines))
    out = args.out or args.cache / str(args.n) / f"result-{mode_name(args)}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nJSON written to {out}")
    errors = sum(s["non_2xx"] for s in (*result["routes"].values(), *result.get("routes_alone", {}).values()))
    return 1 if errors or not result.get("worker_alive_after_routes") else 0


if __name__ == "__main__":
    sys.exit(main())
