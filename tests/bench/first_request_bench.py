"""`just bench-first-request`: a worker's first answer of each route family against its steady cost
(issue 52).

    python -m tests.bench.first_request_bench [--lake var/lake] [--catalogue 150] [--restarts 3]

For each lake (the demo lake, and with --catalogue N the cached corpus of N alphas of
`just bench-catalogue`, built by it when absent): `alpha-results serve --workers 1` started
--restarts times; after each start, as soon as `/v1/health` answers, one request of every route
family in turn (an admin key made with the operator CLI, one keep-alive connection), each the
worker's first of its family, then the same request ten times more: the first against the median
of the ten. The alpha asked is one the worker's warm-up did not touch (the server's "warmed" line
names its alpha), so a per-build figure computed on first use (the significance's bootstrap
interval, the attribution's tables, memoised per build) is in the first call; the column "next
alpha" is the first call of the same family on a second untouched alpha, asked after every family
had its first: what any alpha's first request costs in a warm worker. The worker's own first-use
cost is what the first call adds to that.

Prints a Markdown table per lake (the worst ratio over the restarts per family) and writes JSON
(--out).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    create_admin_key,
    git_revision,
    server_env,
    start_api,
)

STEADY_CALLS = 10
WARMED = re.compile(r"warmed in [0-9.]+ s \(the figures of (\S+)\)")


def families(alpha: str, other: str) -> dict[str, str]:
    """One request of every route family, for `alpha` (`other` where a route takes two)."""
    a = f"/v1/alphas/{alpha}"
    analytics = (
        "significance correlation drawdowns rolling costs live attribution capacity factors "
        "quantiles residual contribution checks risk"
    ).split()
    return {
        "me": "/v1/me",
        "catalogue": "/v1/alphas?limit=100",
        "alpha": a,
        "promotions": f"{a}/promotions",
        "rebalances": f"{a}/rebalances",
        "week": f"{a}/scores?limit=100",
        "week (csv)": f"{a}/scores?limit=100&format=csv",
        "week (arrow)": f"{a}/scores?limit=100&format=arrow",
        "week (parquet)": f"{a}/scores?limit=100&format=parquet",
        "books": f"{a}/books",
        "portfolio": f"{a}/portfolio?limit=100",
        "positions": f"{a}/positions?limit=100",
        "pnl": f"{a}/pnl?limit=100",
        "trades": f"{a}/trades?book=long_short&limit=100",
        "equity-curve": f"{a}/equity-curve",
        "metrics": f"{a}/metrics",
        "metrics/_doc": f"{a}/metrics/_doc",
        **{name: f"{a}/analytics/{name}" for name in analytics},
        "analytics/_doc": f"{a}/analytics/_doc",
        "compare": f"{a}/analytics/compare?with={other}",
        "screen": "/v1/analytics/screen?limit=20",
        "combine": f"/v1/analytics/combine?alphas={alpha},{other}",
        "benchmark": "/v1/benchmarks/SPY/daily?limit=100",
        "exports": f"{a}/exports",
        "builds": "/v1/admin/builds",
        "events": "/v1/events",
    }


def timed(client: httpx.Client, path: str) -> float:
    started = time.perf_counter()
    response = client.get(path)
    seconds = time.perf_counter() - started
    if response.status_code != 200:
        raise BenchError(f"{path} answered {response.status_code}: {response.text[:300]}")
    return seconds * 1000


def warmed_alpha(log: Path) -> str | None:
    found = WARMED.findall(log.read_text(errors="replace"))
    return found[-1] if found else None


def one_start(lake: str, work: Path, alphas: list[str], env: dict[str, str], token: str) -> dict[str, Any]:
    with Children() as children:
        log = work / f"serve-{time.monotonic_ns()}.log"
        server = start_api(children, "api", env=env, workers=1, log=log)
        warm = warmed_alpha(log)
        untouched = [a for a in alphas if a != warm]
        if len(untouched) < 3:
            raise BenchError(f"the lake {lake} needs three alphas besides the warm-up's ({warm})")
        alpha, other, next_alpha = untouched[0], untouched[1], untouched[2]
        rows: dict[str, dict[str, float]] = {}
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
            client.get("/v1/health")  # the connection opened, so the first family's time is its own
            for family, path in families(alpha, other).items():
                first = timed(client, path)
                steady = statistics.median(timed(client, path) for _ in range(STEADY_CALLS))
                rows[family] = {"first_ms": first, "steady_ms": steady, "ratio": first / steady}
            for family, path in families(next_alpha, other).items():
                rows[family]["next_alpha_first_ms"] = timed(client, path)
        imported = [line for line in log.read_text(errors="replace").splitlines() if "imported" in line]
        children.stop_all()
    return {"warm_alpha": warm, "alpha": alpha, "rows": rows, "imports_after_ready": imported}


def measure(lake: str, restarts: int, work: Path) -> dict[str, Any]:
    keystore = f"sqlite:///{work / 'keys.sqlite3'}"
    env = server_env(lake, keystore)
    key = create_admin_key(keystore, env)
    alphas = sorted(p.name for p in (Path(lake) / "alphas").iterdir() if (p / "_current.json").exists())
    starts = [one_start(lake, work, alphas, env, key.token) for _ in range(restarts)]
    worst: dict[str, dict[str, float]] = {}
    for start in starts:
        for family, row in start["rows"].items():
            if family not in worst or row["ratio"] > worst[family]["ratio"]:
                worst[family] = row
    return {"lake": lake, "alphas": len(alphas), "starts": starts, "worst": worst}


def report(result: dict[str, Any]) -> list[str]:
    lines = [
        f"lake {result['lake']} ({result['alphas']} alphas), worst of {len(result['starts'])} starts; "
        f"warm-up alpha {result['starts'][0]['warm_alpha']}, asked {result['starts'][0]['alpha']}",
        "",
        "| family | first (ms) | steady median (ms) | first / steady | next alpha's first (ms) |",
        "|---|---|---|---|---|",
    ]
    for family, row in result["worst"].items():
        lines.append(
            f"| {family} | {row['first_ms']:.1f} | {row['steady_ms']:.2f} | {row['ratio']:.1f} "
            f"| {row['next_alpha_first_ms']:.1f} |"
        )
    imported = [line for start in result["starts"] for line in start["imports_after_ready"]]
    lines += ["", f"modules imported after ready: {len(imported)} line(s)", *imported[:5], ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument(
        "--catalogue", type=int, default=150, help="N alphas of bench-catalogue's corpus (0: none)"
    )
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    lakes = [args.lake]
    if args.catalogue:
        from tests.bench.catalogue_bench import ensure_corpus

        lakes.append(str(ensure_corpus(args.catalogue, 1, 2, False, REPO / "var" / "bench-catalogue").lake))
    with tempfile.TemporaryDirectory(prefix="first-request-") as tmp:
        results = [measure(lake, args.restarts, Path(tmp)) for lake in lakes]
    print(f"revision {git_revision()}")
    for result in results:
        print("\n".join(report(result)))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
