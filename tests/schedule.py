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
    # Measured 2026-11-30 (fourteenth session) on a fresh clone of b41310f5, a new machine (an AMD
    # EPYC, the test cache cold): `pytest -n 2 --dist loadfile --junitxml`, then `python -m
    # tests.schedule`; the files of 20 s or more there, in that order.
    "tests/e2e/test_dashboard_vocabulary.py",  # 263 s
    "tests/e2e/test_dashboard.py",  # 258 s
    "tests/ops/test_source_s3.py",  # 165 s
    "tests/lake/test_publish_storm.py",  # 160 s
    "tests/lake/test_open_tables.py",  # 154 s
    "tests/s3/test_s3_lake.py",  # 135 s
    "tests/lake/test_catalogue_delta.py",  # 133 s
    "tests/ops/test_serve_command.py",  # 124 s
    "tests/e2e/test_as_of_served.py",  # 112 s
    "tests/lake/test_catalogue_index.py",  # 108 s
    "tests/ops/test_admin.py",  # 102 s
    "tests/lake/test_missing_file.py",  # 98 s
    "tests/ops/test_limits_http.py",  # 93 s
    "tests/analytics/test_decay.py",  # 86 s
    "tests/pipeline/test_refusals.py",  # 85 s
    "tests/e2e/test_dashboard_tearsheet.py",  # 85 s
    "tests/e2e/test_dashboard_live.py",  # 82 s
    "tests/ops/test_source_local.py",  # 81 s
    "tests/e2e/test_dashboard_review.py",  # 80 s
    "tests/pipeline/test_dask_build.py",  # 78 s
    "tests/ops/test_webhook_delivery.py",  # 76 s
    "tests/e2e/test_one_alpha_key_served.py",  # 75 s
    "tests/e2e/test_dashboard_decisions.py",  # 71 s
    "tests/analytics/test_overfitting.py",  # 70 s
    "tests/e2e/test_docs_ui.py",  # 69 s
    "tests/s3/test_serving_cache.py",  # 66 s
    "tests/e2e/test_raw_off_key_served.py",  # 65 s
    "tests/fuzz/test_schemathesis.py",  # 65 s
    "tests/lake/test_retention.py",  # 64 s
    "tests/e2e/test_connection_limits.py",  # 62 s
    "tests/pipeline/test_events.py",  # 61 s
    "tests/lake/test_kill.py",  # 56 s
    "tests/api/test_lake_refresh.py",  # 52 s
    "tests/e2e/test_delta_sharing_served.py",  # 51 s
    "tests/ops/test_faults.py",  # 48 s
    "tests/e2e/test_pooled_limits_served.py",  # 48 s
    "tests/lake/test_score_neighbours.py",  # 48 s
    "tests/e2e/test_mcp_served.py",  # 48 s
    "tests/sealkit/test_rules_port.py",  # 46 s
    "tests/e2e/test_events_served.py",  # 43 s
    "tests/e2e/test_identity_cache.py",  # 43 s
    "tests/api/test_exports.py",  # 41 s
    "tests/pipeline/test_seal_limits.py",  # 41 s
    "tests/analytics/test_haircut.py",  # 41 s
    "tests/access/test_scope_mutation.py",  # 39 s
    "tests/client/test_retries.py",  # 39 s
    "tests/e2e/test_redis_outage.py",  # 39 s
    "tests/client/test_generated.py",  # 38 s
    "tests/analytics/test_significance.py",  # 38 s
    "tests/pipeline/test_knowledge_time.py",  # 35 s
    "tests/analytics/test_screen.py",  # 34 s
    "tests/equality/test_equality.py",  # 34 s
    "tests/contract/test_vocabulary.py",  # 34 s
    "tests/analytics/test_quantiles.py",  # 33 s
    "tests/e2e/test_dashboard_promote.py",  # 32 s
    "tests/access/test_request_edges.py",  # 30 s
    "tests/lake/test_file_limits.py",  # 29 s
    "tests/ops/test_shared_deployment.py",  # 29 s
    "tests/ops/test_webhook_standard.py",  # 29 s
    "tests/pipeline/test_seal_text.py",  # 28 s
    "tests/pipeline/test_malformed_seals.py",  # 28 s
    "tests/pipeline/test_decisions.py",  # 28 s
    "tests/sealkit/test_fresh_venv.py",  # 28 s
    "tests/e2e/test_slow_clients.py",  # 26 s
    "tests/e2e/test_dashboard_frictions.py",  # 26 s
    "tests/s3/test_s3_exports.py",  # 25 s
    "tests/e2e/test_serve_stack.py",  # 24 s
    "tests/pipeline/test_alarm_events.py",  # 24 s
    "tests/e2e/test_download_fetch_limit.py",  # 23 s
    "tests/equality/test_representations.py",  # 23 s
    "tests/analytics/test_correlation.py",  # 22 s
    "tests/pipeline/test_demo_lake.py",  # 22 s
    "tests/analytics/test_promotion_preview.py",  # 22 s
    "tests/access/test_me.py",  # 22 s
    "tests/ops/test_corrupt_files.py",  # 21 s
    "tests/analytics/test_screen_live.py",  # 21 s
)
"""Test files by their measured total time, longest first (`python -m tests.schedule`; the files
that took 20 s or more in the run named at the top of the list)."""


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
