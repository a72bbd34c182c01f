"""`/analytics/mmc` and `/analytics/crowding` (issue 50, item 8) on the full-size demo alpha: p50 and
p95 through the app in process (routing, authentication, the answer and its JSON), on random
windows, against the target p50 of 50 ms.

The lake is read, never written: the full demo lake (`just demo full && just build`, var/lake, or
/work/main/var/lake). Its records are a SQLite file of this run's own (a temporary directory)
approving four alphas, so momentum_12_1's mmc combines the other three and crowding compares four
books. Every request is a different random window, so no answer is repeated from the answer cache;
the whole-history weekly series of a set of builds is kept (analytics.mmc: a window is a slice),
and the first request, which makes it, is timed apart (`first_ms`).

    python -m tests.bench.mmc_bench [--lake var/lake] [--calls 200]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

ALPHA = "momentum_12_1"
APPROVED = ("momentum_12_1", "value_composite_legacy", "Test_short_term_reversal", "Test_planted_factor")
TARGET_P50_MS = 50.0


def windows(rng: random.Random, count: int) -> list[dict[str, str]]:
    first, last = dt.date(2021, 1, 1), dt.date(2026, 6, 30)
    out = []
    for _ in range(count):
        a = first + dt.timedelta(days=rng.randrange((last - first).days - 60))
        b = a + dt.timedelta(days=rng.randrange(60, 1500))
        out.append({"from": a.isoformat(), "to": min(b, last).isoformat()})
    return out


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lake", default="var/lake")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    from litestar.testing import TestClient

    from core.settings import Settings
    from records.store import open_records
    from serve.app import create_app
    from serve.records import RecordsSource
    from tests.analytics.conftest import CALLERS
    from tests.callers import authenticator_for

    lake = Path(args.lake)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'records.sqlite3'}"
        records = open_records(url)
        for alpha in APPROVED:
            build = json.loads((lake / "alphas" / alpha / "_current.json").read_text())["build_id"]
            records.decide(alpha, "approved", dt.date(2021, 1, 4), "bench", "", build, {})
        app = create_app(
            Settings(lake=str(lake), environment="test"),
            authenticate=authenticator_for(CALLERS),
            limiter=None,
            records=RecordsSource(url),
        )
        rng = random.Random("mmc-bench")
        headers = {"Authorization": "Bearer raw"}
        out: dict[str, Any] = {}
        with TestClient(app=app) as client:
            for name, path in (
                ("mmc", f"/v1/alphas/{ALPHA}/analytics/mmc"),
                ("crowding", "/v1/analytics/crowding"),
            ):
                start = time.perf_counter()
                first = client.get(path, headers=headers)
                first_ms = (time.perf_counter() - start) * 1e3
                assert first.status_code == 200, first.text
                times = []
                for params in windows(rng, args.calls):
                    start = time.perf_counter()
                    response = client.get(path, params=params, headers=headers)
                    times.append((time.perf_counter() - start) * 1e3)
                    assert response.status_code == 200, response.text
                times.sort()
                out[name] = {
                    "first_ms": round(first_ms, 1),
                    "p50_ms": round(statistics.median(times), 2),
                    "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
                    "calls": len(times),
                    "target_p50_ms": TARGET_P50_MS,
                }
        out["load_average"] = os.getloadavg()
        out["approved"] = APPROVED
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
