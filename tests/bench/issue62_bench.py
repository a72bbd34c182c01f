"""Issue 62's answers on a demo lake: the p50 and p95 of each new figure's answer, in process.

    python -m tests.bench.issue62_bench --lake var/lake-full [--records sqlite:///var/keys-full.sqlite3]
        [--calls 200] [--warm 20]

One app over the lake (Litestar's `TestClient`, the tests' raw-book key, no rate limiter, the
records given or none), per answer: the first call, `--warm` calls, then `--calls` timed calls
without `If-None-Match`, every other one with a random window where the route takes one (seeded,
so two runs ask the same windows); the p50 and p95 of all of them, and of the whole history's and
the windows' calls apart (the median of all hides two populations). The answers: `/analytics/significance` (min_backtest_length,
clustered_dsr and the effective rank, sharpe_haircut), `/analytics/checks` with the optional
sharpe_t_statistic check on, `/analytics/catalogue_bound`, `/analytics/family_tests` of each trial
family's first member, `/analytics/sub_universe`. Prints a Markdown table (docs/benchmarks.md,
"Issue 62: each new answer on the full demo") and the figures a reader checks the demo by (N, K,
the effective rank, the clustered DSR's trials).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from tests.analytics.conftest import CALLERS
from tests.callers import authenticator_for

ALPHAS = ("momentum_12_1", "Test_planted_factor")
FAMILY_FIRSTS = ("Test_family_planted_01", "Test_family_noise_01", "Test_family_near_01")


def answers(alphas: set[str]) -> list[tuple[str, str, dict[str, str], bool]]:
    """(label, path, fixed parameters, takes a window) of each answer asked on this lake."""
    out = []
    for alpha in ALPHAS:
        if alpha in alphas:
            root = f"/v1/alphas/{alpha}/analytics"
            out += [
                ("significance", f"{root}/significance", {}, True),
                ("checks, min_sharpe_t_statistic=3", f"{root}/checks", {"min_sharpe_t_statistic": "3"}, True),
                ("catalogue_bound", f"{root}/catalogue_bound", {}, False),
                ("sub_universe", f"{root}/sub_universe", {}, True),
            ]
    for alpha in FAMILY_FIRSTS:
        if alpha in alphas:
            out.append(("family_tests", f"/v1/alphas/{alpha}/analytics/family_tests", {}, False))
    return out


def p50(times: list[float]) -> float:
    return statistics.median(times)


def p95(times: list[float]) -> float:
    return sorted(times)[int(0.95 * len(times)) - 1]


def main() -> None:
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--records", help="the records' URL (sqlite:///...); none by default")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warm", type=int, default=20)
    args = parser.parse_args()
    app = create_app(
        Settings(lake=str(args.lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(args.records) if args.records else None,
    )
    headers = {"Authorization": "Bearer raw"}
    with TestClient(app=app) as client:

        def get(path: str, params: dict[str, str]) -> Any:
            response = client.get(path, params=params or None, headers=headers)
            if response.status_code != 200:
                raise SystemExit(f"{path} {params}: {response.status_code} {response.text[:300]}")
            return response.json()

        listed = get("/v1/alphas", {"limit": "1000"})["data"]
        alphas = {row["alpha_id"] for row in listed}
        print(f"load average at the start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
        print(
            "| answer | alpha | body | first call ms | p50 ms | p95 ms | whole history p50 / p95 ms "
            "| windows p50 / p95 ms |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for label, path, fixed, windowed in answers(alphas):
            rng = random.Random(7)
            t0 = time.perf_counter()
            body = client.get(path, params=fixed or None, headers=headers)
            first = (time.perf_counter() - t0) * 1e3
            for _ in range(args.warm):
                get(path, fixed)
            times, whole, windows = [], [], []
            for i in range(args.calls):
                params = dict(fixed)
                if windowed and i % 2:
                    params |= {
                        "from": f"2021-{rng.randint(1, 6):02d}-01",
                        "to": f"2023-{rng.randint(1, 12):02d}-01",
                    }
                t0 = time.perf_counter()
                get(path, params)
                times.append((time.perf_counter() - t0) * 1e3)
                (windows if windowed and i % 2 else whole).append(times[-1])
            times.sort()
            alpha = path.split("/")[3]
            print(
                f"| `{label}` | {alpha} | {len(body.content) / 1e3:.1f} kB | {first:.1f} | "
                f"{p50(times):.2f} | {p95(times):.2f} | {p50(whole):.2f} / {p95(whole):.2f} | "
                + (f"{p50(windows):.2f} / {p95(windows):.2f} |" if windows else "- |")
            )
        data = get(f"/v1/alphas/{ALPHAS[0]}/analytics/significance", {})["data"]
        dsr, clustered = data["dsr"]["trials"], data["clustered_dsr"]
        print(f"\nload average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        print(
            f"\nN {dsr['count']}, K {dsr.get('effective_count')}, effective rank {dsr.get('effective_rank')}; "
            f"{ALPHAS[0]}: dsr {data['dsr'].get('value')}, effective_dsr {data['effective_dsr'].get('value')}, "
            f"clustered_dsr {clustered.get('value')} (V_K {clustered['trials'].get('sharpe_variance')} over "
            f"{clustered['trials'].get('sharpe_variance_alphas')} clusters), min_backtest_length "
            f"{data['min_backtest_length'].get('value')} years"
        )


if __name__ == "__main__":
    main()
