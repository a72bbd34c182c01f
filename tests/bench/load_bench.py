"""`just bench-load`: throughput of uncacheable random requests per route family, as a ratio to a
constant-JSON floor on the same stack measured in the same run; the health-flood assertion; the
keep-alive latency of one worker against two; the shared deployment (PostgreSQL keys, Redis limits),
with the time a suspension takes to reach both its workers (tests/bench/invalidation.py).

    python -m tests.bench.load_bench [--only families,flood,workers,shared] [--duration 8]

Starts `alpha-results serve` (a temporary SQLite key store holding an admin key with an
unthrottled envelope, made with the operator CLI) over the lake (default var/lake) and the floor
(`tests/bench/floor_app.py`, uvicorn with the server's own options) on free loopback ports, and
drives both with wrk: every request draws a random path from thousands generated from the lake's
Parquet (random week, offset, window), so nothing repeats often. Prints a Markdown report and
writes it to var/bench/load.md. Exits 1 when the health-flood assertion fails or a measurement
saw errors (a missed target is reported, not fatal), 2 when it could not measure.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tests.bench.families import BY_KEY, FAMILIES, Family, LakeFacts
from tests.bench.floor_app import FLOOR_PATH, describe, uvicorn_run_options
from tests.bench.harness import (
    REPO,
    BenchError,
    BenchKey,
    Children,
    RunTimeLimit,
    Server,
    Wrk,
    WrkResult,
    bench_env,
    bounded_run,
    check_paths,
    create_admin_key,
    git_revision,
    private_postgres,
    private_redis,
    server_env,
    start_api,
    start_floor,
)
from tests.bench.invalidation import InvalidationProbe, Latencies

SECTIONS = ("families", "flood", "workers", "shared")
FLOOD_LIMIT = 2.0  # /v1/me p50 under a health flood must stay below this multiple of its p50 alone
WORKERS_TARGET = 2.0
SHARED_TARGET = 0.15
SHARED_ME_TARGET = 0.2
INVALIDATION_TARGET_MS = 100.0
INVALIDATION_TRIALS = 20


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


@dataclass
class Run:
    """One benchmark run: its servers, wrk and the report it accumulates."""

    args: argparse.Namespace
    children: Children
    work: Path
    wrk: Wrk
    paths: dict[str, Path]
    report: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failed_assertions: list[str] = field(default_factory=list)

    def say(self, line: str = "") -> None:
        print(line, flush=True)

    def md(self, *lines: str) -> None:
        self.report.extend(lines)

    def measure(
        self,
        server: Server,
        key: str,
        token: str | None,
        *,
        connections: int,
        seconds: float | None = None,
        warmup: float | None = None,
        threads: int | None = None,
    ) -> WrkResult:
        """Warm up (not measured), then one wrk run of the family's random paths."""
        seconds = self.args.duration if seconds is None else seconds
        warmup = self.args.warmup if warmup is None else warmup
        paths = self.paths[key]
        if warmup > 0:
            self.warm(server, key, token, connections=connections, seconds=warmup)
        result = self.wrk.run(
            server.base_url, paths, token=token, connections=connections, seconds=seconds, threads=threads
        )
        if not result.clean:
            self.errors.append(f"{key} on {server.name}: {result.problems()}")
        self.say(
            f"  {key:<13} {result.rps:>9.1f} req/s  p50 {result.p50_ms:7.2f} ms  p99 {result.p99_ms:7.2f} ms"
            f"  ({result.requests} requests{', ' + result.problems() if not result.clean else ''})"
        )
        return result

    def warm(self, server: Server, key: str, token: str | None, *, connections: int, seconds: float) -> None:
        """Unmeasured load (loads what the first requests load, in every worker it reaches)."""
        warm = self.wrk.run(
            server.base_url, self.paths[key], token=token, connections=connections, seconds=seconds
        )
        if warm.non_2xx or warm.socket_errors:
            raise BenchError(f"{key} on {server.name}: warm-up saw {warm.problems()}\n{server.log_tail(10)}")

    def floor(self, floor: Server, label: str) -> float:
        self.say(f"  floor ({label})")
        return self.measure(floor, "floor", None, connections=self.args.connections).rps

    def check(self, server: Server, key: str, token: str | None) -> None:
        check_paths(server.base_url, self.paths[key].read_text().splitlines(), token)


# -- sections --------------------------------------------------------------------------------


def families_section(run: Run, api: Server, key: BenchKey, families: list[Family]) -> None:
    args = run.args
    run.say(f"\n== route families: {args.connections} connections, 1 worker, {args.duration:g} s each")
    for family in families:
        run.check(api, family.key, key.token if family.keyed else None)
    floor = start_floor(
        run.children, "floor (1 worker)", env=bench_env(), workers=1, log=run.work / "floor1.log"
    )
    before = run.floor(floor, "before")
    results = {}
    for family in families:
        results[family.key] = run.measure(
            api, family.key, key.token if family.keyed else None, connections=args.connections
        )
    after = run.floor(floor, "after")
    run.children.stop(floor.proc)
    mean = statistics.fmean([before, after])
    run.md(
        "### Route families (1 worker, SQLite keys, in-process limits)",
        "",
        f"Floor: {before:,.0f} req/s before the families, {after:,.0f} after; ratios use the mean, "
        f"{mean:,.0f} req/s.",
        "",
        "| route family | req/s | ratio to floor | target | result | p50 ms | p99 ms |",
        "|---|---|---|---|---|---|---|",
    )
    for family in families:
        r = results[family.key]
        ratio = r.rps / mean
        target = "" if family.target is None else f">= {family.target:g}"
        result = "" if family.target is None else verdict(ratio >= family.target)
        if not r.clean:
            result = f"ERROR ({r.problems()})"
        run.md(
            f"| {family.label} | {r.rps:,.0f} | {ratio:.3f} | {target} | {result} | {r.p50_ms:.2f} | {r.p99_ms:.2f} |"
        )
    run.md("")


def flood_section(run: Run, api: Server, key: BenchKey) -> None:
    args = run.args
    probe = args.probe_connections
    run.say(
        f"\n== health flood: /v1/me p50 ({probe} connections) alone, then beside "
        f"{args.connections} connections on /v1/health"
    )
    run.check(api, "me", key.token)
    alone = run.measure(api, "me", key.token, connections=probe, threads=1)
    flood_seconds = args.duration + 2 * args.warmup + 3
    flood, out = run.wrk.start(
        api.base_url, run.paths["health"], token=None, connections=args.connections, seconds=flood_seconds
    )
    time.sleep(1.0)
    during = run.measure(api, "me", key.token, connections=probe, threads=1)
    flooded = run.wrk.finish(flood, out, flood_seconds)
    ratio = during.p50_ms / alone.p50_ms if alone.p50_ms > 0 else float("inf")
    ok = ratio < FLOOD_LIMIT and during.clean and alone.clean
    run.say(
        f"  health flood: {flooded.rps:,.0f} req/s; /v1/me p50 {alone.p50_ms:.2f} -> {during.p50_ms:.2f} ms,"
        f" x{ratio:.2f} (limit < {FLOOD_LIMIT:g}): {'PASS' if ok else 'FAIL'}"
    )
    if not ok:
        run.failed_assertions.append(f"health flood raised /v1/me p50 x{ratio:.2f} (limit < {FLOOD_LIMIT:g})")
    run.md(
        "### Health flood (1 worker; an assertion: the run fails when it fails)",
        "",
        f"`/v1/me` p50 over {probe} connections, alone and while a second wrk floods `/v1/health` with "
        f"{args.connections} connections ({flooded.rps:,.0f} req/s of health during the probe).",
        "",
        "| `/v1/me` p50 alone | during the flood | ratio | limit | result |",
        "|---|---|---|---|---|",
        f"| {alone.p50_ms:.2f} ms | {during.p50_ms:.2f} ms | {ratio:.2f} | < {FLOOD_LIMIT:g} | "
        f"{'PASS' if ok else 'FAIL'} |",
        "",
    )


def single_connection_p50(run: Run, server: Server, key: BenchKey, keys: tuple[str, ...]) -> dict[str, float]:
    # Warm every worker first (16 connections reach both), then one keep-alive connection.
    for name in keys:
        run.check(server, name, key.token)
        if run.args.warmup > 0:
            run.warm(server, name, key.token, connections=run.args.connections, seconds=run.args.warmup)
    return {
        name: run.measure(server, name, key.token, connections=1, threads=1, warmup=0).p50_ms for name in keys
    }


def workers_section(run: Run, api1: Server, env: dict[str, str], key: BenchKey) -> None:
    keys = ("me", "week100")
    run.say(f"\n== two workers: keep-alive p50 of one connection, {run.args.duration:g} s each")
    run.say("  --workers 1")
    one = single_connection_p50(run, api1, key, keys)
    run.children.stop(api1.proc)
    api2 = start_api(run.children, "api (2 workers)", env=env, workers=2, log=run.work / "api2.log")
    run.say("  --workers 2")
    two = single_connection_p50(run, api2, key, keys)
    run.children.stop(api2.proc)
    run.md(
        "### Two workers: keep-alive latency of one connection (`wrk -c1 -t1`)",
        "",
        "| route | p50, 1 worker | p50, 2 workers | ratio | target | result |",
        "|---|---|---|---|---|---|",
    )
    for name in keys:
        ratio = two[name] / one[name] if one[name] > 0 else float("inf")
        run.md(
            f"| {BY_KEY[name].label} | {one[name]:.2f} ms | {two[name]:.2f} ms | {ratio:.2f} | "
            f"<= {WORKERS_TARGET:g} | {verdict(ratio <= WORKERS_TARGET)} |"
        )
    run.md("")


def shared_section(run: Run, lake: str) -> None:
    args = run.args
    run.say("\n== shared deployment: 2 workers, PostgreSQL keys, Redis limits")
    with private_postgres(args.postgres_url) as keystore, private_redis(args.redis_url) as (limiter, key_ids):
        run.say(f"  key store {keystore.split('@')[-1]}, limiter {limiter}")
        env = server_env(lake, keystore, limiter)
        key = create_admin_key(keystore, env)
        key_ids.append(key.key_id)
        api = start_api(
            run.children, "api (2 workers, shared)", env=env, workers=2, log=run.work / "shared.log"
        )
        floor = start_floor(
            run.children, "floor (2 workers)", env=bench_env(), workers=2, log=run.work / "floor2.log"
        )
        try:
            run.check(api, "week100", key.token)
            before = run.floor(floor, "2 workers, before")
            page = run.measure(api, "week100", key.token, connections=args.connections)
            me = run.measure(api, "me", key.token, connections=args.connections)
            after = run.floor(floor, "2 workers, after")
            idle, loaded = invalidation(run, api, keystore, key.token)
        finally:
            run.children.stop(api.proc)
            run.children.stop(floor.proc)
    mean = statistics.fmean([before, after])
    ratio = page.rps / mean
    run.md(
        "### Shared deployment (2 workers, PostgreSQL keys, Redis limits)",
        "",
        f"Two-worker floor: {before:,.0f} req/s before, {after:,.0f} after, mean {mean:,.0f} req/s.",
        "",
        "| route family | req/s | ratio to floor | target | result |",
        "|---|---|---|---|---|",
        f"| {BY_KEY['week100'].label} | {page.rps:,.0f} | {ratio:.3f} | >= {SHARED_TARGET:g} | "
        f"{verdict(ratio >= SHARED_TARGET) if page.clean else 'ERROR (' + page.problems() + ')'} |",
        f"| {BY_KEY['me'].label} | {me.rps:,.0f} | {me.rps / mean:.3f} | >= {SHARED_ME_TARGET:g} | "
        f"{verdict(me.rps / mean >= SHARED_ME_TARGET) if me.clean else 'ERROR (' + me.problems() + ')'} |",
        "",
        f"A suspension's way to every worker (`tests/bench/invalidation.py`; target < "
        f"{INVALIDATION_TARGET_MS:g} ms), from the UPDATE sent to the slower worker's dropping the key "
        f"(its log line) and to its first refusal back at the client. Idle: {idle.summary()}. Under "
        f"load ({args.connections} connections of random week pages): {loaded.summary()}.",
        "",
    )


def invalidation(run: Run, api: Server, keystore: str, token: str) -> tuple[Latencies, Latencies]:
    """The suspension's latency to every worker, idle and beside a load of week pages."""
    probe = InvalidationProbe(api, keystore, workers=2)
    try:
        run.say(f"  invalidation: {INVALIDATION_TRIALS} suspensions idle, then under load")
        idle = probe.run(INVALIDATION_TRIALS)
        seconds = 60.0
        load, out = run.wrk.start(
            api.base_url, run.paths["week100"], token=token, connections=run.args.connections, seconds=seconds
        )
        try:
            time.sleep(1.0)
            loaded = probe.run(INVALIDATION_TRIALS)
        finally:
            run.children.stop(load)
    finally:
        probe.close()
    run.say(f"  idle: {idle.summary()}\n  under load: {loaded.summary()}")
    return idle, loaded


# -- the run ---------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"comma-separated sections (default all: {','.join(SECTIONS)})",
    )
    parser.add_argument(
        "--families",
        default=",".join(f.key for f in FAMILIES),
        help=f"comma-separated families of the families section (default all: {','.join(BY_KEY)})",
    )
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per measurement (default 8)")
    parser.add_argument(
        "--warmup", type=float, default=1.0, help="unmeasured seconds before each (default 1)"
    )
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    parser.add_argument(
        "--probe-connections", type=int, default=4, help="connections of the /v1/me probe in the health flood"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="wrk threads (default 1: the server gets a core)"
    )
    parser.add_argument(
        "--alpha", default="momentum_12_1", help="the full-size alpha (default momentum_12_1)"
    )
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"), help="lake root (default var/lake)")
    parser.add_argument("--paths", type=int, default=20_000, help="random paths generated per family")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random paths (default: random)")
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    parser.add_argument("--out", type=Path, default=REPO / "var" / "bench" / "load.md")
    parser.add_argument(
        "--time-limit", type=float, default=1200.0, help="end the run after this many seconds"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder (server logs, path lists)")
    args = parser.parse_args(argv)
    args.sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(args.sections) - set(SECTIONS)) + sorted(
        {f.strip() for f in args.families.split(",") if f.strip()} - set(BY_KEY)
    )
    if unknown:
        parser.error(f"unknown section or family: {', '.join(unknown)}")
    args.family_list = [BY_KEY[f.strip()] for f in args.families.split(",") if f.strip()]
    return args


def write_paths(work: Path, facts: LakeFacts, n: int, seed: int) -> dict[str, Path]:
    rng = random.Random(seed)
    files = {}
    for family in FAMILIES:
        files[family.key] = work / f"paths-{family.key}.txt"
        files[family.key].write_text("\n".join(family.paths(facts, rng, n if family.on_alpha else 1)) + "\n")
    files["floor"] = work / "paths-floor.txt"
    files["floor"].write_text(FLOOR_PATH + "\n")
    return files


def execute(args: argparse.Namespace, children: Children, work: Path) -> Run:
    lake = str(Path(args.lake).resolve())
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    facts = LakeFacts.read(lake, args.alpha)
    paths = write_paths(work, facts, args.paths, seed)
    options, source = uvicorn_run_options("127.0.0.1", 0, 1)
    print(f"uvicorn options (server and floor) from {source}:\n  {describe(options)}", flush=True)
    run = Run(args, children, work, Wrk(children, work, threads=args.threads), paths)
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    run.md(
        "## Load (`just bench-load`)",
        "",
        f"`python -m tests.bench.load_bench --only {','.join(args.sections)} --duration {args.duration:g}` "
        f"on {started}, commit {git_revision()}, {os.cpu_count()} CPUs (shared machine), alpha "
        f"`{args.alpha}` ({len(facts.weeks)} weeks, {len(facts.sessions)} sessions). wrk, {args.threads} "
        f"thread, loopback, {args.duration:g} s per measurement after {args.warmup:g} s of warm-up; each "
        f"request draws one of {args.paths:,} random paths (seed {seed}). The floor is a constant-JSON "
        "Litestar route (`tests/bench/floor_app.py`) under the same uvicorn options as the server, "
        f"measured in the same run. uvicorn options from {source}.",
        "",
    )
    keystore = f"sqlite:///{work / 'keys.sqlite3'}"
    env = server_env(lake, keystore)
    sections = args.sections
    api1 = None
    if {"families", "flood", "workers"} & set(sections):
        key = create_admin_key(keystore, env)
        api1 = start_api(children, "api (1 worker)", env=env, workers=1, log=work / "api1.log")
        if "families" in sections:
            families_section(run, api1, key, args.family_list)
        if "flood" in sections:
            flood_section(run, api1, key)
        if "workers" in sections:
            workers_section(run, api1, env, key)
        children.stop(api1.proc)
    if "shared" in sections:
        shared_section(run, lake)
    return run


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-load-"))
    started = time.monotonic()
    try:
        with bounded_run(args.time_limit), Children() as children:
            run = execute(args, children, work)
    except (BenchError, RunTimeLimit) as exc:
        print(f"\nbench-load could not measure: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nbench-load interrupted; every process it started was ended", file=sys.stderr)
        return 130
    finally:
        if args.keep:
            print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    run.md(f"Run time {elapsed:.0f} s.", "")
    text = "\n".join(run.report)
    print("\n" + text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    print(f"written to {args.out}")
    for error in run.errors:
        print(f"ERROR: {error}", file=sys.stderr)
    for failure in run.failed_assertions:
        print(f"ASSERTION FAILED: {failure}", file=sys.stderr)
    return 1 if run.errors or run.failed_assertions else 0


if __name__ == "__main__":
    sys.exit(main())
