"""The effective number of trials at scale (issue 50 item 3, issue 51 item 5; docs/benchmarks.md
"The effective number of trials at scale").

`python -m tests.bench.effective_trials_bench --lake SYNTHETIC_LAKE [--publishes 3] [--requests 40]`
copies a synthetic catalogue (`tests/bench/synthetic_catalogue.py`; hard links) twice: one copy as
written (its generation records no trial links, so a publish links nothing: the step as before),
one whose newest generation is given a links file (`--seed-links`: empty, so every trial its own
cluster; linking 10^10 pairs from scratch, `alpha-results lake index`'s job, was not run) so that
each publish keeps them (its alphas' rows against every row of the returns matrix, the components
counted again). It publishes the same new small demo alphas into each (`publish_bench.publish`: a
child process each, the catalogue step timed in wall and CPU), then asks
`/analytics/significance` of a real alpha `--requests` times for a key reading every alpha and for a
one-alpha key, in process through the app (p50 / p95 wall after the first). Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


def seed_links(lake: Path) -> None:
    """Names an empty links file in the newest generation's trials document (a scratch lake only)."""
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index
    from pipeline import trial_links

    storage = Storage(str(lake))
    newest = catalogue_index.newest(storage, str(lake))
    assert newest is not None
    index = catalogue_index.read_index(storage, str(lake), newest, ["alpha_id", "sharpe_per_session"])
    path = "links/seeded.parquet"
    (lake / "catalogue" / "links").mkdir(parents=True, exist_ok=True)
    (lake / "catalogue" / path).write_bytes(trial_links.encode([]))
    kept = trial_links.Kept([], path)
    sums = newest.trials or {}
    if not sums:
        from pipeline.index_rows import _sums_of

        sums = _sums_of(catalogue_index.read_index(storage, str(lake), newest, ["sharpe_per_session"]))
    document = trial_links.document(
        sums, kept, lambda: (index.column("alpha_id"), trial_links.sharpes_of(index))
    )
    file = Path(catalogue_index.generation_path(str(lake), newest.number))
    found = json.loads(file.read_text())
    found["trials"] = document
    file.unlink()  # a hard link of the lake copied: write a file of its own
    file.write_text(json.dumps(found, indent=1))


def requests(lake: Path, alpha: str, count: int) -> dict[str, Any]:
    from litestar.testing import TestClient

    from core.context import AllowList
    from core.settings import Settings
    from serve.app import create_app
    from tests.callers import authenticator_for, make_caller

    callers = {
        "every": make_caller(),
        "one": make_caller(alphas=AllowList.of_ids([alpha]), runs=AllowList.of_ids([alpha])),
    }
    app = create_app(
        Settings(lake=str(lake), environment="test"), authenticate=authenticator_for(callers), limiter=None
    )
    out: dict[str, Any] = {}
    with TestClient(app=app) as client:
        for token in callers:
            times, last = [], None
            for n in range(count + 1):
                started = time.perf_counter()
                response = client.get(
                    f"/v1/alphas/{alpha}/analytics/significance?to=2099-01-0{1 + n % 9}",
                    headers={"Authorization": f"Bearer {token}"},
                )
                elapsed = (time.perf_counter() - started) * 1000
                assert response.status_code == 200, response.text
                last = response.json()["data"]
                if n:
                    times.append(elapsed)
            times.sort()
            assert last is not None
            out[token] = {
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
                "trials": last["dsr"]["trials"],
                "effective_dsr": last["effective_dsr"]["value"],
            }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", required=True)
    parser.add_argument("--publishes", type=int, default=3)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--alpha", default="momentum_12_1")
    args = parser.parse_args(argv)
    from tests.bench.publish_bench import extra_seals, publish

    seals = extra_seals(2 * args.publishes)
    report: dict[str, Any] = {"load_average_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="effective-trials-") as scratch:
        for name, seeded, chosen in (
            ("without_links", False, seals[: args.publishes]),
            ("with_links", True, seals[args.publishes :]),
        ):
            lake = Path(scratch) / name
            subprocess.run(["cp", "-al", args.lake, str(lake)], check=True)
            if seeded:
                seed_links(lake)
            report[name] = {"publishes": [publish(seal, lake, False) for seal in chosen]}
            if seeded:
                report[name]["significance"] = requests(lake, args.alpha, args.requests)
    report["load_average_end"] = os.getloadavg()[0]
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
