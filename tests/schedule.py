"""The order in which `just test`'s two workers take the test files: the slowest first.

`pytest -n 2 --dist loadfile` hands out whole files, in collection order once xdist's own reordering
(by number of tests, `--loadscope-reorder`, its default) is off: `just test` passes
`--no-loadscope-reorder`. Ordered by number of tests, the files of one to three long tests (the
publish storm, the kill tests, the signed-URL and outage tests, each starting servers) came last,
and the run's last minutes had one worker busy and the other idle. Here the files measured slowest
go first, longest first, and the many short files fill in behind them, so both workers run out of
work at about the same time. A file not listed keeps its place (after the listed ones); within a
file the order is never changed (module-scoped servers and lakes are made once).

The list is a measurement, not a contract: a renamed file only loses its early start. To measure
again: `pytest -n 2 --dist loadfile --junitxml=run.xml`, then `python -m tests.schedule run.xml`
prints the files by their total time (setup, call and teardown), in this list's form.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter

import pytest

SLOWEST_FIRST = (
    "tests/ops/test_webhook_delivery.py",
    "tests/e2e/test_dashboard_tearsheet.py",
    "tests/e2e/test_dashboard.py",
    "tests/analytics/test_quantiles.py",
    "tests/pipeline/test_dask_build.py",
    "tests/pipeline/test_malformed_seals.py",
    "tests/pipeline/test_seal_limits.py",
    "tests/sealkit/test_fresh_venv.py",  # two virtual environments installed from PyPI (uv's cache)
    "tests/e2e/test_mcp_served.py",
    "tests/e2e/test_delta_sharing_served.py",
    "tests/sealkit/test_rules_port.py",
    "tests/s3/test_s3_lake.py",
    "tests/lake/test_catalogue_index.py",
    "tests/e2e/test_connection_limits.py",
    "tests/fuzz/test_schemathesis.py",
    "tests/e2e/test_events_served.py",
    "tests/e2e/test_dashboard_live.py",
    "tests/lake/test_missing_file.py",
    "tests/lake/test_publish_storm.py",
    "tests/e2e/test_serve_stack.py",
    "tests/ops/test_shared_deployment.py",
    "tests/ops/test_prometheus.py",
    "tests/ops/test_source_local.py",
    "tests/pipeline/test_demo_lake.py",
    "tests/pipeline/test_events.py",
    "tests/client/test_generated.py",
    "tests/lake/test_score_neighbours.py",
    "tests/analytics/test_correlation.py",
    "tests/ops/test_admin.py",
    "tests/e2e/test_docs_ui.py",
    "tests/e2e/test_dashboard_decisions.py",
    "tests/equality/test_representations.py",
    "tests/equality/test_equality.py",
    "tests/metrics/test_served.py",
    "tests/ops/test_faults.py",
    "tests/e2e/test_factors_served.py",
    "tests/pipeline/test_refusals.py",
    "tests/pipeline/test_index_on_dask.py",
    "tests/api/test_lake_refresh.py",
    "tests/lake/test_kill.py",
    "tests/analytics/test_significance.py",
    "tests/identity/test_cli_start.py",
    "tests/lake/test_catalogue_etags.py",
    "tests/e2e/test_redis_outage.py",
    "tests/s3/test_serving_cache.py",
    "tests/e2e/test_forwarded_for.py",
    "tests/client/test_retries.py",
    "tests/pipeline/test_seal_ownership.py",
    "tests/pipeline/test_seal_text.py",
    "tests/ops/test_limits_http.py",
    "tests/api/test_bodies.py",
    "tests/pipeline/test_seal_check.py",
    "tests/analytics/test_screen.py",
    "tests/ops/test_serve_command.py",
    "tests/lake/test_resource_failures.py",
    "tests/analytics/test_attribution.py",
    "tests/client/test_events.py",
    "tests/access/test_me.py",
)
"""Test files by their measured total time, longest first (`python -m tests.schedule`; measured
2026-11-26 after issue 36, beside three helpers' work (load 6-8), the fifty longest of 191 files;
the Prometheus and seal-check files of issue 37 placed by their own runs)."""


def slowest_first(items: list[pytest.Item]) -> None:
    """Reorders `items` in place: the files of SLOWEST_FIRST in its order, then every other file
    in collection order; a file's own tests keep their order (the sort is stable)."""
    rank = {path: n for n, path in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def by_file(junit_xml: str) -> list[tuple[str, float]]:
    """(test file, seconds) from a JUnit XML report, longest first."""
    seconds: Counter[str] = Counter()
    for case in ElementTree.parse(junit_xml).iter("testcase"):
        parts = case.get("classname", "").split(".")  # tests.e2e.test_server[.TestClass]
        module = max((n for n, part in enumerate(parts) if part.startswith("test_")), default=len(parts) - 1)
        seconds["/".join(parts[: module + 1]) + ".py"] += float(case.get("time") or 0)
    return seconds.most_common()


if __name__ == "__main__":
    for path, total in by_file(sys.argv[1]):
        print(f'    "{path}",  # {total:.0f} s')
