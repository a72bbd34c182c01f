"""The decision routes of issue 24 over a catalogue of N alphas (default 1,000): p50 and p95 of
checks, comparison and risk on random alphas and windows, and of a combination and a contribution
over 20 random alphas, served by one worker (`alpha-results serve --workers 1`).

The lake is `just bench-catalogue`'s cached corpus (`var/bench-catalogue/N/`, built through the
real pipeline when missing). Every request is a different random path (alphas, windows, weights),
so nothing is answered from a cache; the first call of each route is left out of the figures
(the worker's first mapping of the catalogue matrices). Non-2xx answers are counted, never
skipped, and fail the run.

    python -m tests.bench.decisions_bench [--n 1000] [--calls 100] [--set 20] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import httpx

from tests.bench.catalogue_bench import (
    DEFAULT_CACHE,
    Deployment,
    Route,
    ensure_corpus,
    machine_facts,
    random_window,
    timed_get,
)
from tests.bench.harness import BenchError, Children, create_admin_key, git_revision, server_env

WEIGHTINGS = ("equal", "given", "inverse_volatility", "max_ir")
ROUTES = {
    "checks": "`/analytics/checks`, random book and window",
    "compare": "`/analytics/compare`, random other alpha, window and rolling window",
    "risk": "`/analytics/risk`, random book and window",
    "combine": "`/v1/analytics/combine`, {set} random alphas, random weighting and window",
    "contribution": "`/analytics/contribution`, a reference of {set} random alphas, random window",
    "contribution_production": "`/analytics/contribution`, the default reference (every production alpha)",
}


def _query(**params: Any) -> str:
    return urllib.parse.urlencode(params)


def paths_for(
    alpha: str, ids: list[str], weeks: list[str], set_size: int, rng: random.Random
) -> dict[str, str]:
    """One random path of every route about `alpha`."""

    def window() -> dict[str, str]:
        start, end = random_window(weeks, rng)
        return {"from": start, "to": end}

    others = [a for a in ids if a != alpha]
    members = rng.sample(others, set_size)
    weighting = rng.choice(WEIGHTINGS)
    combine: dict[str, Any] = {"alphas": ",".join(members), "weighting": weighting, **window()}
    if weighting == "given":
        combine["weights"] = ",".join(f"{rng.uniform(0.1, 1):.3f}" for _ in members)
    base = f"/v1/alphas/{alpha}/analytics"
    book = rng.choice(("long_short", "long_only"))
    return {
        "checks": f"{base}/checks?{_query(book=book, **window())}",
        "compare": f"{base}/compare?{_query(**{'with': rng.choice(others)}, window=rng.choice(('21', '63')), **window())}",
        "risk": f"{base}/risk?{_query(book=book, **window())}",
        "combine": f"/v1/analytics/combine?{_query(**combine)}",
        "contribution": f"{base}/contribution?{_query(reference=','.join(members[:set_size]), **window())}",
        "contribution_production": f"{base}/contribution?{_query(**window())}",
    }


def execute(args: argparse.Namespace, children: Children) -> dict[str, Any]:
    corpus = ensure_corpus(args.n, 1, 2, False, args.cache)
    work = args.cache / str(args.n) / "run-decisions"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    keystore = f"sqlite:///{work / 'keys.sqlite3'}"
    env = server_env(str(corpus.lake), keystore)
    key = create_admin_key(keystore, env)
    deployment = Deployment(children, env, work, None)
    server = deployment.start()
    rng = random.Random(args.seed)
    ids = corpus.alpha_ids
    routes = {name: Route(label.format(set=args.set)) for name, label in ROUTES.items()}
    started = time.monotonic()
    headers = {"Authorization": f"Bearer {key.token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=args.timeout) as client:
        for index in range(args.calls):
            alpha = rng.choice(ids)
            weeks = corpus.facts["alphas"][alpha]["weeks"]
            for name, path in paths_for(alpha, ids, weeks, args.set, rng).items():
                status, ms, body = timed_get(client, path)
                routes[name].record(status, ms, path, body)
            if (index + 1) % max(1, args.calls // 10) == 0:
                errors = sum(r.errors for r in routes.values())
                print(
                    f"  {index + 1:>4}/{args.calls}, {time.monotonic() - started:6.1f} s, {errors} errors",
                    flush=True,
                )
    deployment.stop()
    return {
        "command": "python -m tests.bench.decisions_bench " + " ".join(args.argv),
        "commit": git_revision(),
        "machine": machine_facts(),
        "n": args.n,
        "set": args.set,
        "calls": args.calls,
        "routes": {name: route.summary() for name, route in routes.items()},
    }


def report(result: dict[str, Any]) -> list[str]:
    lines = [
        f"Decision routes over {result['n']:,} alphas, one worker, {result['calls']} random calls each "
        f"(commit {result['commit']}).",
        "",
        *route_table(result["routes"]),
    ]
    return lines


def route_table(routes: dict[str, dict[str, Any]]) -> list[str]:
    """The Markdown table of `Route.summary()`s, then each route's failing requests."""
    lines = [
        "| route | ok | non-2xx | p50 ms | p95 ms | max ms |",
        "|---|---|---|---|---|---|",
    ]
    for summary in routes.values():
        lines.append(
            f"| {summary['label']} | {summary['ok']} | {summary['non_2xx']} | {summary['p50_ms']} | "
            f"{summary['p95_ms']} | {summary['max_ms']} |"
        )
    for summary in routes.values():
        lines += [f"  {error}" for error in summary["errors"]]
    return lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=1000, help="alphas in the catalogue (default 1,000)")
    parser.add_argument("--calls", type=int, default=100, help="random calls of each route (default 100)")
    parser.add_argument(
        "--set", type=int, default=20, help="alphas of a combination or reference (default 20)"
    )
    parser.add_argument("--seed", type=int, default=24, help="seed of the random paths")
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
        print(f"\nbench-decisions could not measure: {exc}", file=sys.stderr)
        return 2
    print("\n" + "\n".join(report(result)))
    out = args.out or args.cache / str(args.n) / "result-decisions.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nJSON written to {out}")
    return 1 if any(s["non_2xx"] for s in result["routes"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
