"""A bystander's latency in a worker while it derives row bytes (`datasets.derived`):
`just bench-derive-bystander --lake LAKE [--alpha momentum_12_1] [--rounds 4]`.

The app in process over LAKE (pipeline 2.11 or later: its builds hold no row bytes) with a test
caller. Each round: 150 `/v1/alphas/{alpha}/metrics` requests with nothing derived (quiet), then
every row-bytes file of the alpha removed from the derived folder and asked again, and `/metrics`
requests for as long as the worker derives them (busy). Prints each round's derivation time and
the p50, p90 and p99 of the quiet and busy requests. The machine's other load falls on both.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from litestar.testing import TestClient

from core.settings import Settings
from datasets import queries
from serve.app import create_app
from tests.callers import authenticator_for, make_caller


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lake", required=True)
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="derive-bystander-"))
    settings = Settings(lake=args.lake, environment="test", serving_cache_dir=str(cache))
    app = create_app(
        settings, authenticate=authenticator_for({"raw": make_caller(expose_raw_book=True)}), limiter=None
    )
    headers = {"Authorization": "Bearer raw"}
    path = f"/v1/alphas/{args.alpha}/metrics"
    try:
        with TestClient(app=app) as client:
            reader = app.state["services"].reader

            def timed(count: int) -> list[float]:
                spent = []
                for _ in range(count):
                    started = time.perf_counter()
                    assert client.get(path, headers=headers).status_code == 200
                    spent.append(time.perf_counter() - started)
                return spent

            quiet: list[float] = []
            busy: list[float] = []
            for number in range(args.rounds):
                quiet += timed(150)
                shutil.rmtree(cache / ".derived", ignore_errors=True)
                found = reader.alpha(args.alpha)
                assert found is not None
                view = reader.view(found)
                for table in queries.ROW_JSON:
                    view._tables.pop(queries.row_json_table(table), None)  # mapped: asked again
                    view.table(queries.row_json_table(table))
                started = time.perf_counter()
                while reader.derived._pending:
                    busy += timed(10)
                print(f"round {number}: derived in {time.perf_counter() - started:.2f} s", flush=True)
                reader.derived.wait()
            for name, spent in (("quiet", quiet), ("busy", busy)):
                print(
                    f"{name}: n={len(spent)} p50={percentile(spent, 0.5):.2f} ms "
                    f"p90={percentile(spent, 0.9):.2f} ms p99={percentile(spent, 0.99):.2f} ms"
                )
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
