"""The suite's three tiers (issue 79, item 7), each test in one, declared here once:

- `ops`: process faults, kills, outages, Dask, S3 (moto), the serve command and its operations (the
  files and folders of `OPS`): the slowest and the most sensitive to a busy machine;
- `served`: through the real `alpha-results serve` process or a browser (the `e2e` marker, or a fixture
  of a real server shared per worker: `SERVED_FIXTURES`);
- `fast`: everything else, in process (apps under a test client, the pipeline, the analytics).

`./dev test` (and `.ci/run`) runs all three together on both workers; `just test-fast`, `just
test-served`, `just test-ops` run one (`pytest -m fast` and so on). Each test carries its tier as a
marker and as a property of the JUnit report, so `python -m tests.tiers run.xml` prints each tier's
tests and time from a whole run (docs/benchmarks.md).
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter

import pytest

TIERS = ("fast", "served", "ops")

OPS = (
    "tests/ops/",
    "tests/s3/",
    "tests/soak/",
    "tests/lake/test_kill.py",
    "tests/lake/test_publish_storm.py",
    "tests/lake/test_missing_file.py",
    "tests/e2e/test_redis_outage.py",
    "tests/limits/test_redis_restart.py",
    "tests/identity/test_unavailable.py",
    "tests/pipeline/test_dask_build.py",
    "tests/pipeline/test_index_on_dask.py",
    "tests/pipeline/test_concurrent_publish.py",
)
"""The `ops` tier: folders (ending in /) and files, from the repository's root."""

SERVED_FIXTURES = frozenset({"shared_server", "two_workers", "short_head_server", "dashboard_server", "site"})
"""Fixtures that start a real server (or a browser on one): a test asking for one is `served`."""


def tier_of(item: pytest.Item) -> str:
    if item.nodeid.startswith(OPS):
        return "ops"
    if item.get_closest_marker("e2e") or SERVED_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "served"
    return "fast"


def mark_tiers(items: list[pytest.Item]) -> None:
    """Each test's tier as a marker (`-m fast`) and as a JUnit property (`python -m tests.tiers`)."""
    for item in items:
        tier = tier_of(item)
        item.add_marker(getattr(pytest.mark, tier))
        item.user_properties.append(("tier", tier))


def times(report: str) -> dict[str, tuple[int, float]]:
    """Each tier's number of tests and the sum of their times (setup, call, teardown) in a JUnit report."""
    count: Counter[str] = Counter()
    seconds: dict[str, float] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        found = [p.get("value") for p in case.iter("property") if p.get("name") == "tier"]
        tier = found[0] if found and found[0] else "unmarked"
        count[tier] += 1
        seconds[tier] = seconds.get(tier, 0.0) + float(case.get("time") or 0.0)
    return {tier: (count[tier], seconds[tier]) for tier in count}


if __name__ == "__main__":
    for tier, (tests, total) in sorted(times(sys.argv[1]).items(), key=lambda kv: -kv[1][1]):
        print(f"{tier:8} {tests:6d} tests  {total:8.0f} s")
