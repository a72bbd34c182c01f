"""`just bench-prometheus`: what the Prometheus metrics cost a request (issue 37).

    python -m tests.bench.prometheus_bench [--lake var/lake] [--workers 1] [--rounds 6] [--seconds 3]

Two servers at once over the same lake and key store, one with `ALPHA_RESULTS_PROMETHEUS` off and
one with it on, `--workers` each; wrk drives `/v1/me` on one keep-alive connection (`-c1 -t1`: the
latency of one request, not a queue) against one then the other for `--seconds`, alternating which
goes first, `--rounds` times, so the machine's drift falls on both alike. Prints each round's p50
and p99 and the medians. Then the same in process, less disturbed by a busy machine: both apps in
one interpreter, `/v1/me` handed to each app's ASGI callable on one thread, 2,000 requests per
round, alternating (p50 and CPU time per request). Then, in this process, the metrics' own work per request
(`ServerMetrics.record_request`: one counter increment, one histogram observation) in
multiprocess mode, timed over 200,000 calls.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.harness import (
    REPO,
    Children,
    Wrk,
    bench_env,
    create_admin_key,
    git_revision,
    run_checked,
    server_env,
    start_api,
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=3.0)
    return parser.parse_args(argv)


PROBE = r"""
import asyncio, json, sys, time

from serve.app import create_app
from core.settings import Settings

keystore, lake, token, rounds, requests = sys.argv[1], sys.argv[2], sys.argv[3].encode(), *map(int, sys.argv[4:6])
apps = {name: create_app(Settings(lake=lake, keystore_url=keystore, prometheus=name == "on")) for name in ("off", "on")}

async def get(app):
    # One GET straight into the app's ASGI callable, on this thread: no client, no socket.
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": "/v1/me", "raw_path": b"/v1/me", "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80), "state": {},
        "headers": [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer " + token)],
    }
    status = []
    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}
    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])
    await app(scope, receive, send)
    return status[0]

async def main():
    out = {"off": {"p50_us": [], "cpu_us": []}, "on": {"p50_us": [], "cpu_us": []}}
    for app in apps.values():
        for _ in range(200):
            assert await get(app) == 200
    for round_ in range(rounds):
        for name in (("off", "on") if round_ % 2 == 0 else ("on", "off")):
            times, cpu = [], time.process_time()
            for _ in range(requests):
                started = time.perf_counter()
                assert await get(apps[name]) == 200
                times.append(time.perf_counter() - started)
            out[name]["cpu_us"].append((time.process_time() - cpu) / requests * 1e6)
            out[name]["p50_us"].append(sorted(times)[len(times) // 2] * 1e6)
    print(json.dumps(out))

asyncio.run(main())
"""


def in_process(keystore: str, lake: str, token: str, rounds: int, requests: int = 2000) -> dict[str, Any]:
    """Both apps in one fresh interpreter (the metrics' folder named before anything imports
    prometheus-client), requests handed to each app's ASGI callable on one thread, alternating."""
    with tempfile.TemporaryDirectory(prefix="prometheus-bench-") as folder:
        env = {**bench_env(), "PROMETHEUS_MULTIPROC_DIR": folder}
        argv = [sys.executable, "-c", PROBE, keystore, lake, token, str(rounds), str(requests)]
        found: dict[str, Any] = json.loads(run_checked(argv, env=env, timeout=1800).splitlines()[-1])
        return found


def record_cost(calls: int = 200_000) -> float:
    """CPU microseconds per `record_request` in multiprocess mode (its own folder, this process)."""
    with tempfile.TemporaryDirectory(prefix="prometheus-bench-") as folder:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder  # before prometheus-client is imported
        from serve.prometheus import ServerMetrics
        from serve.routes import meta

        metrics = ServerMetrics.for_process()
        scope = {"method": "GET", "route_handler": meta.me}
        metrics.record_request(scope, 200, 0.001)
        started = time.process_time()  # CPU time: what a busy machine's other processes do not inflate
        for _ in range(calls):
            metrics.record_request(scope, 200, 0.001)
        return (time.process_time() - started) / calls * 1e6


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with Children() as children, tempfile.TemporaryDirectory(prefix="prometheus-bench-") as folder:
        work = Path(folder)
        keystore = f"sqlite:///{work}/keys.sqlite3"
        env = server_env(args.lake, keystore)
        key = create_admin_key(keystore, env)
        servers = {
            "off": start_api(
                children, "off", env={**env, "ALPHA_RESULTS_PROMETHEUS": "false"}, workers=args.workers,
                log=work / "off.log",
            ),
            "on": start_api(
                children, "on", env={**env, "ALPHA_RESULTS_PROMETHEUS": "true"}, workers=args.workers,
                log=work / "on.log",
            ),
        }  # fmt: skip
        paths = work / "paths.txt"
        paths.write_text("/v1/me\n")
        wrk = Wrk(children, work, threads=1)
        print(
            f"prometheus-bench: {git_revision()}, /v1/me, wrk -c1 -t1, {args.workers} worker(s) per server, "
            f"{args.rounds} rounds of {args.seconds:g} s per server"
        )
        print("| round | first | off p50 ms | on p50 ms | off p99 ms | on p99 ms |")
        print("|---|---|---|---|---|---|")
        p50: dict[str, list[float]] = {"off": [], "on": []}
        p99: dict[str, list[float]] = {"off": [], "on": []}
        for round_ in range(args.rounds):
            order = ("off", "on") if round_ % 2 == 0 else ("on", "off")
            for name in order:
                result = wrk.run(
                    servers[name].base_url, paths, token=key.token, connections=1, seconds=args.seconds
                )
                if not result.clean:
                    raise SystemExit(f"{name}: {result.problems()}")
                p50[name].append(result.p50_ms)
                p99[name].append(result.p99_ms)
            print(
                f"| {round_ + 1} | {order[0]} | {p50['off'][-1]:.3f} | {p50['on'][-1]:.3f} "
                f"| {p99['off'][-1]:.3f} | {p99['on'][-1]:.3f} |"
            )
        off, on = statistics.median(p50["off"]), statistics.median(p50["on"])
        print(
            f"| median | | {off:.3f} | {on:.3f} | {statistics.median(p99['off']):.3f} "
            f"| {statistics.median(p99['on']):.3f} |"
        )
        print(f"on - off, p50: {(on - off) * 1000:+.0f} µs ({(on / off - 1) * 100:+.1f}%)")
        for name in servers:
            children.stop(servers[name].proc)
        probe = in_process(keystore, args.lake, key.token, args.rounds)
        print("\nIn process, /v1/me into the app's ASGI callable, 2,000 requests per round and app:")
        print("| app | p50 per round (µs) | median p50 | median CPU per request |")
        print("|---|---|---|---|")
        for name, figures in probe.items():
            rounds = ", ".join(f"{value:.0f}" for value in figures["p50_us"])
            print(
                f"| {name} | {rounds} | {statistics.median(figures['p50_us']):.0f} µs "
                f"| {statistics.median(figures['cpu_us']):.0f} µs |"
            )
    print(f"record_request in multiprocess mode: {record_cost():.2f} µs of CPU per request (200,000 calls)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
