"""`just bench-prometheus`: what the Prometheus metrics cost a request (issue 37).

    python -m tests.bench.prometheus_bench [--lake var/lake] [--workers 1] [--rounds 6] [--seconds 3]

Two servers at once over the same lake and key store, one with `ALPHA_RESULTS_PROMETHEUS` off and
one with it on, `--workers` each; wrk drives `/v1/me` on one keep-alive connection (`-c1 -t1`: the
latency of one request, not a queue) against one then the other for `--seconds`, alternating which
goes first, `--rounds` times, so the machine's drift falls on both alike. Prints each round's p50
and p99 and the medians. Then, in this process, the metrics' own work per request
(`ServerMetrics.record_request`: one counter increment, one histogram observation) in
multiprocess mode, timed over 200,000 calls.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.bench.harness import REPO, Children, Wrk, create_admin_key, git_revision, server_env, start_api


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=3.0)
    return parser.parse_args(argv)


def record_cost(calls: int = 200_000) -> float:
    """Microseconds per `record_request` in multiprocess mode (its own folder, this process)."""
    with tempfile.TemporaryDirectory(prefix="prometheus-bench-") as folder:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder  # before prometheus-client is imported
        from serve.prometheus import ServerMetrics
        from serve.routes import meta

        metrics = ServerMetrics.for_process()
        scope = {"method": "GET", "route_handler": meta.me}
        metrics.record_request(scope, 200, 0.001)
        started = time.perf_counter()
        for _ in range(calls):
            metrics.record_request(scope, 200, 0.001)
        return (time.perf_counter() - started) / calls * 1e6


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
    print(f"record_request in multiprocess mode: {record_cost():.2f} µs per request (200,000 calls)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
