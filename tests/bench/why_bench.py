"""Issue 36's routes ("why it works") on the full-size demo alphas: p50, p95 and max of each over
random books and windows, beside two routes of the same server in the same run (`/v1/me`, the cost
of a keyed request, and `/analytics/risk`, an existing analytics route), served by one worker.

The lake is the full-size demo corpus (500 names, 1,410 sessions), written and built through the
real pipeline into `var/bench-why/` when missing. Every request is a different random path, so
nothing is answered from a cache; the first call of each route is left out (the worker's first
mapping of the build's files). Non-2xx answers are counted, never skipped, and fail the run.

    python -m tests.bench.why_bench [--rebuild] [--calls 200] [--alphas momentum_12_1,Test_planted_factor] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.bench.catalogue_bench import Route, machine_facts, timed_get
from tests.bench.decisions_bench import route_table
from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    cli,
    create_admin_key,
    git_revision,
    run_checked,
    server_env,
    start_api,
)

DEFAULT_CACHE = REPO / "var" / "bench-why"
MIN_WINDOW_WEEKS = 15
"""A window's rebalance weeks at least: over 63 sessions, the least any of the routes needs (the
residual's regression), so every random call is answered."""
BOOKS = ("long_short", "long_only")
Window = dict[str, str]

ROUTES: dict[str, tuple[str, Callable[[str, Window, random.Random], str]]] = {
    "me": ("`/v1/me` (reference: a keyed request)", lambda alpha, window, rng: "/v1/me"),
    "risk": (
        "`/analytics/risk`, random book and window (reference: an existing analytics route)",
        lambda alpha, window, rng: f"risk?book={rng.choice(BOOKS)}&{urllib.parse.urlencode(window)}",
    ),
    "attribution": (
        "`/analytics/attribution`, random book, window, `top` and `drop`",
        lambda alpha, window, rng: (
            "attribution?"
            + urllib.parse.urlencode(
                {"book": rng.choice(BOOKS), "top": rng.randint(1, 50), "drop": rng.randint(1, 20), **window}
            )
        ),
    ),
    "factors": (
        "`/analytics/factors`, random book and window",
        lambda alpha, window, rng: f"factors?book={rng.choice(BOOKS)}&{urllib.parse.urlencode(window)}",
    ),
    "residual": (
        "`/analytics/residual`, random book and window, the default reference set",
        lambda alpha, window, rng: f"residual?book={rng.choice(BOOKS)}&{urllib.parse.urlencode(window)}",
    ),
    "capacity": (
        "`/analytics/capacity`, random book and window",
        lambda alpha, window, rng: f"capacity?book={rng.choice(BOOKS)}&{urllib.parse.urlencode(window)}",
    ),
    "quantiles": (
        "`/analytics/quantiles`, random quantile count and window",
        lambda alpha, window, rng: (
            "quantiles?" + urllib.parse.urlencode({"quantiles": rng.choice((5, 10)), **window})
        ),
    ),
}


def ensure_lake(cache: Path, rebuild: bool) -> Path:
    """The full-size demo corpus (`cache/seals`, written once) built into `cache/lake` through the
    real pipeline, when missing or asked (`--rebuild`: after a change to what the pipeline writes)."""
    lake, seals = cache / "lake", cache / "seals"
    if (lake / "alphas").is_dir() and not rebuild:
        return lake
    shutil.rmtree(lake, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    env = server_env(str(lake), f"sqlite:///{cache / 'build-keys.sqlite3'}")
    if not seals.is_dir():
        print("  writing the full-size demo corpus ...", flush=True)
        run_checked([*cli(), "demo", "--size", "full", "--out", str(seals)], env=env, timeout=1800)
    print("  building it ...", flush=True)
    run_checked(
        [*cli(), "build", *map(str, sorted(seals.iterdir())), "--lake", str(lake)], env=env, timeout=3600
    )
    return lake


def random_window(weeks: list[str], rng: random.Random) -> tuple[str, str]:
    """A from/to pair of the alpha's rebalance dates at least MIN_WINDOW_WEEKS apart."""
    first = rng.randrange(0, len(weeks) - MIN_WINDOW_WEEKS)
    return weeks[first], weeks[rng.randrange(first + MIN_WINDOW_WEEKS, len(weeks))]


def week_dates(client: httpx.Client, alpha: str) -> list[str]:
    page = client.get(f"/v1/alphas/{alpha}/rebalances", params={"limit": 1000})
    page.raise_for_status()
    return [row["date"] for row in page.json()["data"]]


def execute(args: argparse.Namespace, children: Children) -> dict[str, Any]:
    lake = ensure_lake(args.cache, args.rebuild)
    work = args.cache / "run"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    keystore = f"sqlite:///{work / 'keys.sqlite3'}"
    env = server_env(str(lake), keystore)
    key = create_admin_key(keystore, env)
    server = start_api(children, "api", env=env, workers=1, log=work / "server.log")
    rng = random.Random(args.seed)
    routes = {name: Route(label) for name, (label, _) in ROUTES.items()}
    headers = {"Authorization": f"Bearer {key.token}"}
    started = time.monotonic()
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=args.timeout) as client:
        weeks = {alpha: week_dates(client, alpha) for alpha in args.alphas}
        for index in range(args.calls):
            alpha = rng.choice(args.alphas)
            start, end = random_window(weeks[alpha], rng)
            window = {"from": start, "to": end}
            for name, (_, path_of) in ROUTES.items():
                path = path_of(alpha, window, rng)
                if not path.startswith("/"):
                    path = f"/v1/alphas/{alpha}/analytics/{path}"
                status, ms, body = timed_get(client, path)
                routes[name].record(status, ms, path, body)
            if (index + 1) % max(1, args.calls // 10) == 0:
                errors = sum(r.errors for r in routes.values())
                print(f"  {index + 1:>4}/{args.calls}, {time.monotonic() - started:6.1f} s, {errors} errors")
    return {
        "command": "python -m tests.bench.why_bench " + " ".join(args.argv),
        "commit": git_revision(),
        "machine": machine_facts(),
        "alphas": args.alphas,
        "calls": args.calls,
        "routes": {name: route.summary() for name, route in routes.items()},
    }


def report(result: dict[str, Any]) -> list[str]:
    lines = [
        f"Issue 36's routes on the full-size demo ({', '.join(result['alphas'])}), one worker, "
        f"{result['calls']} random calls each (commit {result['commit']}, load average at start "
        f"{result['machine']['load_average_at_start']}).",
        "",
        *route_table(result["routes"]),
    ]
    return lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=200, help="random calls of each route (default 200)")
    parser.add_argument(
        "--alphas",
        type=lambda text: text.split(","),
        default=["momentum_12_1", "Test_planted_factor"],
        help="full-size demo alphas to ask about (default momentum_12_1,Test_planted_factor)",
    )
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--rebuild", action="store_true", help="build the lake again from the cached seals")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    args.argv = argv if argv is not None else sys.argv[1:]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        with Children() as children:
            result = execute(args, children)
    except BenchError as exc:
        print(f"\nbench-why could not measure: {exc}", file=sys.stderr)
        return 2
    print("\n" + "\n".join(report(result)))
    out = args.out or args.cache / "result.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nJSON written to {out}")
    return 1 if any(s["non_2xx"] for s in result["routes"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
