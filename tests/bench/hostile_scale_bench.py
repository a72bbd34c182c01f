"""Issue 60, item 2: every catalogue-wide route with its largest accepted parameters over a 10^4-member
trial family in a 10^5-alpha synthetic catalogue, while `/v1/health` is asked every 10 ms on a
connection of its own: `just bench-hostile-scale`.

    python -m tests.bench.hostile_scale_bench [--n 100000] [--family 10000] [--health-ms 50]

The catalogue is `just synthetic-catalogue`'s, written (when absent) with its first `--family`
synthetic alphas and one real alpha naming one family: a family no cap admits, as a lake published
before the cap (or under a raised one) may hold; the real member is the alpha its routes are asked
about. One `alpha-results serve --workers 1` over it, an administrator's key (reads everything, no
budget). Each route is asked once, then `--concurrent` first asks of one family at once (another
S: single flight), while the prober records each health answer's wall time as the client sees
it. Reported per route: its status and wall time, and the health answers' count, p50, p95 and max
during it; then the worker's resident memory. Exit 1 when any health answer took `--health-ms`
or more, or a route answered 5xx.

Bounded: the routes listed, each with the client's 600 s timeout; the prober stops with them; the
server listens on 127.0.0.1 and stops at the end. The machine is shared: the load average before
and after is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from schemas.query import LIMIT_MAX
from tests.bench.harness import (
    Children,
    create_admin_key,
    git_revision,
    memory_mib,
    server_env,
    worker_pids,
)
from tests.bench.synthetic_catalogue import DEFAULT_OUT, FAMILY, default_base, write
from tests.bench.synthetic_served import start_api


class Prober:
    """`/v1/health` every `every` seconds on one keep-alive connection, each answer's wall time kept
    with when it was asked."""

    def __init__(self, base: str, every: float = 0.01) -> None:
        self.base, self.every = base, every
        self.samples: list[tuple[float, float, int]] = []  # (asked at, seconds, status)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as client:
            while not self.stop.is_set():
                asked = time.monotonic()
                try:
                    status = client.get("/v1/health").status_code
                except httpx.HTTPError:
                    status = 0
                self.samples.append((asked, time.monotonic() - asked, status))
                self.stop.wait(max(0.0, self.every - (time.monotonic() - asked)))

    def between(self, start: float, end: float) -> list[float]:
        return [seconds for asked, seconds, _ in self.samples if start <= asked <= end]


def summary(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        return {"health_answers": 0}
    ordered = sorted(seconds)
    return {
        "health_answers": len(ordered),
        "health_p50_ms": round(1000 * ordered[len(ordered) // 2], 1),
        "health_p95_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "health_max_ms": round(1000 * ordered[-1], 1),
    }


def routes(alpha: str) -> list[tuple[str, str]]:
    """Every catalogue-wide route at its largest accepted parameters (and the family's own)."""
    big = f"limit={LIMIT_MAX}"
    return [
        ("catalogue", f"/v1/alphas?{big}"),
        ("catalogue search", f"/v1/alphas?{big}&search=momentum"),
        ("catalogue last page", f"/v1/alphas?{big}&offset=99000"),
        ("families", f"/v1/families?{big}"),
        ("families, the family", f"/v1/families?{big}&family={FAMILY}"),
        ("families, last page", f"/v1/families?{big}&offset=9000"),
        ("overfitting S=16 (first ask)", f"/v1/alphas/{alpha}/analytics/overfitting?splits=16"),
        ("overfitting S=16 (kept)", f"/v1/alphas/{alpha}/analytics/overfitting?splits=16"),
        ("checks max_pbo", f"/v1/alphas/{alpha}/analytics/checks?max_pbo=0.5"),
        ("screener", f"/v1/analytics/screen?{big}&sort=-information_ratio"),
        ("screener max_correlation", f"/v1/analytics/screen?{big}&max_correlation=0.5&correlated_to={alpha}"),
        ("correlation returns", f"/v1/alphas/{alpha}/analytics/correlation?{big}&basis=returns"),
        ("correlation ic", f"/v1/alphas/{alpha}/analytics/correlation?{big}&basis=ic"),
        ("significance", f"/v1/alphas/{alpha}/analytics/significance"),
        ("mmc", f"/v1/alphas/{alpha}/analytics/mmc"),
        ("crowding", "/v1/analytics/crowding"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="synthetic alphas (100,000)")
    parser.add_argument("--family", type=int, default=10_000, help="members of the family (10,000)")
    parser.add_argument("--concurrent", type=int, default=4, help="first asks of one family at once (4)")
    parser.add_argument("--health-ms", type=float, default=50.0, help="the most a health answer may take")
    parser.add_argument("--out", type=Path, default=None, help="the lake (var/bench-synthetic/hostile-N-F)")
    args = parser.parse_args(argv)
    out = args.out or DEFAULT_OUT / f"hostile-{args.n}-{args.family}" / "lake"
    if not (out / "catalogue").exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        base = default_base()
        real = json.loads((next((base / "alphas").iterdir()) / "_current.json").read_text())["alpha_id"]
        facts = write(str(base), str(out), args.n, family_members=args.family, real_member=real)
        print(f"wrote {out} in {facts['total_seconds']} s", file=sys.stderr)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    results: list[dict[str, Any]] = []
    failed = False
    with Children() as children, tempfile.TemporaryDirectory(prefix="hostile-scale-") as tmp:
        keystore_url = f"sqlite:///{tmp}/keys.sqlite3"
        env = server_env(str(out), keystore_url)
        key = create_admin_key(keystore_url, env)
        server = start_api(children, "api", env=env, workers=1, log=Path(tmp) / "server.log")
        prober = Prober(server.base_url)
        prober.thread.start()
        headers = {"Authorization": f"Bearer {key.token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as client:
            listed = client.get(f"/v1/families?family={FAMILY}&limit={LIMIT_MAX}&offset=0").json()
            member = next(row["alpha_id"] for row in listed["data"] if not row["alpha_id"].startswith("syn"))
            for name, path in routes(member):
                start = time.monotonic()
                status = client.get(path).status_code
                end = time.monotonic()
                failed = failed or status >= 500
                results.append(
                    {"route": name, "status": status, "seconds": round(end - start, 2)}
                    | summary(prober.between(start, end))
                )
            # The first asks of one family at once (S=12: not computed yet): one computes, the others wait.
            path = f"/v1/alphas/{member}/analytics/overfitting?splits=12"
            statuses: list[int] = []
            start = time.monotonic()
            askers = [
                threading.Thread(target=lambda: statuses.append(client.get(path).status_code))
                for _ in range(args.concurrent)
            ]
            for asker in askers:
                asker.start()
            for asker in askers:
                asker.join()
            end = time.monotonic()
            failed = failed or any(s >= 500 for s in statuses)
            results.append(
                {
                    "route": f"overfitting S=12, {args.concurrent} first asks at once",
                    "status": sorted(set(statuses)),
                    "seconds": round(end - start, 2),
                }
                | summary(prober.between(start, end))
            )
        prober.stop.set()
        prober.thread.join()
        pid = worker_pids(server.proc.pid)[0]
        rss, _ = memory_mib(pid)
    every = summary([seconds for _, seconds, _ in prober.samples])
    slow = every.get("health_max_ms", 0.0) >= args.health_ms
    report = {
        "commit": git_revision(),
        "n": args.n,
        "family_members": args.family + 1,
        "load_before": load_before,
        "load_after": Path("/proc/loadavg").read_text().split()[:3],
        "worker_rss_mib": round(rss),
        "health_all": every,
        "routes": results,
    }
    print(json.dumps(report, indent=1))
    print("| route | status | seconds | health answers | p50 ms | p95 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for row in results:
        print(
            f"| {row['route']} | {row['status']} | {row['seconds']} | {row.get('health_answers', 0)} | "
            f"{row.get('health_p50_ms', '-')} | {row.get('health_p95_ms', '-')} | {row.get('health_max_ms', '-')} |"
        )
    if slow:
        print(
            f"FAIL: a health answer took {every['health_max_ms']} ms (>= {args.health_ms})", file=sys.stderr
        )
    return 1 if slow or failed else 0


if __name__ == "__main__":
    sys.exit(main())
