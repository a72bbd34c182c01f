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
    # Measured 2026-11-28 (issue 58) on a fresh clone of 5a0525a, quiet: `./dev test --junitxml`,
    # then `python -m tests.schedule`; files under 5 s keep their collection order behind these.
    # Added after (issue 62, item 3): mlfinlab's haircut reference draws HLZ's ~1,400-column multivariate
    # normal and loops in Python; 274 s beside a load of about 10 on 2 cores, not measured quiet
    "tests/analytics/test_haircut.py",
    "tests/ops/test_webhook_delivery.py",  # 71 s
    "tests/e2e/test_dashboard.py",  # 70 s
    "tests/ops/test_source_s3.py",  # 62 s
    "tests/ops/test_serve_command.py",  # 58 s
    "tests/lake/test_publish_storm.py",  # 58 s
    "tests/lake/test_missing_file.py",  # 53 s
    "tests/e2e/test_dashboard_vocabulary.py",  # ~50 s (added after: 138 s beside a busy loop, as test_dashboard.py 197 s)
    "tests/e2e/test_dashboard_live.py",  # 50 s
    "tests/e2e/test_dashboard_tearsheet.py",  # 47 s
    "tests/e2e/test_dashboard_decisions.py",  # 47 s
    "tests/e2e/test_connection_limits.py",  # 40 s
    "tests/pipeline/test_events.py",  # 39 s
    "tests/analytics/test_overfitting.py",  # 38 s
    "tests/analytics/test_family_tests.py",  # added after (issue 62 item 5): 62 s at load 9, most of it the full-size demo families
    "tests/fuzz/test_schemathesis.py",  # 34 s
    "tests/e2e/test_one_alpha_key_served.py",  # 34 s
    "tests/e2e/test_events_served.py",  # 34 s
    "tests/lake/test_kill.py",  # 33 s
    "tests/pipeline/test_dask_build.py",  # 30 s
    "tests/ops/test_limits_http.py",  # 29 s
    "tests/s3/test_s3_exports.py",  # 27 s
    "tests/analytics/test_significance.py",  # 27 s
    "tests/e2e/test_mcp_served.py",  # 27 s
    "tests/lake/test_catalogue_index.py",  # 26 s
    "tests/client/test_retries.py",  # 26 s
    "tests/sealkit/test_rules_port.py",  # 26 s
    "tests/pipeline/test_seal_limits.py",  # 24 s
    "tests/s3/test_s3_lake.py",  # 23 s
    "tests/ops/test_faults.py",  # 23 s
    "tests/e2e/test_delta_sharing_served.py",  # 23 s
    "tests/ops/test_source_local.py",  # 22 s
    "tests/e2e/test_docs_ui.py",  # 21 s
    "tests/pipeline/test_refusals.py",  # 20 s
    "tests/ops/test_admin.py",  # 20 s
    "tests/e2e/test_redis_outage.py",  # 20 s
    "tests/e2e/test_dashboard_promote.py",  # 20 s
    "tests/s3/test_serving_cache.py",  # 20 s
    "tests/analytics/test_screen.py",  # 20 s
    "tests/analytics/test_decay.py",  # 19 s
    "tests/ops/test_webhook_standard.py",  # 19 s
    "tests/client/test_generated.py",  # 19 s
    "tests/e2e/test_slow_clients.py",  # 19 s
    "tests/e2e/test_dashboard_review.py",  # 18 s
    "tests/pipeline/test_alarm_events.py",  # 17 s
    "tests/access/test_request_edges.py",  # 17 s
    "tests/sealkit/test_fresh_venv.py",  # 16 s
    "tests/analytics/test_quantiles.py",  # 16 s
    "tests/api/test_lake_refresh.py",  # 16 s
    "tests/access/test_scope_mutation.py",  # 15 s
    "tests/api/test_exports.py",  # 15 s
    "tests/ops/test_shared_deployment.py",  # 14 s
    "tests/e2e/test_identity_cache.py",  # 14 s
    "tests/equality/test_equality.py",  # 14 s
    "tests/pipeline/test_concurrent_publish.py",  # 14 s
    "tests/lake/test_file_limits.py",  # 13 s
    "tests/e2e/test_dashboard_frictions.py",  # ~13 s (added after: 37 s beside a busy loop)
    "tests/pipeline/test_malformed_seals.py",  # 13 s
    "tests/e2e/test_serve_stack.py",  # 12 s
    "tests/client/test_events.py",  # 12 s
    "tests/analytics/test_promotion_preview.py",  # 11 s
    "tests/e2e/test_forwarded_for.py",  # 11 s
    "tests/analytics/test_correlation.py",  # 11 s
    "tests/e2e/test_download_fetch_limit.py",  # 11 s
    "tests/analytics/test_screen_live.py",  # 11 s
    "tests/lake/test_catalogue_delta.py",  # 11 s
    "tests/pipeline/test_knowledge_time.py",  # 10 s
    "tests/ops/test_health.py",  # 10 s
    "tests/lake/test_retention.py",  # 10 s
    "tests/lake/test_score_neighbours.py",  # 10 s
    "tests/s3/test_s3_sharing.py",  # 10 s
    "tests/equality/test_representations.py",  # 10 s
    "tests/ops/test_prometheus.py",  # 10 s
    "tests/ops/test_hangs.py",  # 10 s
    "tests/contract/test_vocabulary.py",  # 10 s
    "tests/access/test_me.py",  # 10 s
    "tests/ops/test_corrupt_files.py",  # 10 s
    "tests/lake/test_catalogue_etags.py",  # 9 s
    "tests/analytics/test_costs.py",  # 9 s
    "tests/access/test_secrets.py",  # 9 s
    "tests/analytics/test_promotions.py",  # 9 s
    "tests/pipeline/test_demo_lake.py",  # 8 s
    "tests/e2e/test_factors_served.py",  # 8 s
    "tests/lake/test_resource_failures.py",  # 8 s
    "tests/pipeline/test_seal_text.py",  # 8 s
    "tests/pipeline/test_index_on_dask.py",  # 7 s
    "tests/ops/test_first_request.py",  # 7 s
    "tests/pipeline/test_decisions.py",  # 7 s
    "tests/e2e/test_hostile_text.py",  # 7 s
    "tests/sealkit/test_kit_mends.py",  # 7 s
    "tests/identity/test_unavailable.py",  # 7 s
    "tests/e2e/test_standings_served.py",  # 6 s
    "tests/analytics/test_factors.py",  # 6 s
    "tests/access/test_matrix.py",  # 6 s
    "tests/analytics/test_effective_trials.py",  # 6 s
    "tests/sealkit/test_builders.py",  # 6 s
    "tests/analytics/test_attribution.py",  # 6 s
    "tests/identity/test_cli_start.py",  # 6 s
    "tests/ops/test_download_grants.py",  # 6 s
    "tests/api/test_openapi_and_settings.py",  # 6 s
    "tests/api/test_bodies.py",  # 6 s
    "tests/e2e/test_live_served.py",  # 6 s
    "tests/e2e/test_mcp_seal_text.py",  # 6 s
    "tests/e2e/test_refusal_contract.py",  # 5 s
    "tests/e2e/test_egress_budgets.py",  # 5 s
    "tests/e2e/test_promotions_served.py",  # 5 s
    "tests/analytics/test_checks.py",  # 5 s
    "tests/analytics/test_in_process.py",  # 5 s
    "tests/analytics/test_uncertainty.py",  # 5 s
    "tests/ops/test_access_log_and_openapi.py",  # 5 s
    "tests/ops/test_analytics_faults.py",  # 5 s
    "tests/ops/test_download_holder.py",  # 5 s
    "tests/analytics/test_combine.py",  # 5 s
    "tests/lake/test_correlation_index_served.py",  # 5 s
    "tests/pipeline/test_factor_seal.py",  # 5 s
)
"""Test files by their measured total time, longest first (`python -m tests.schedule`; the 111 of
about 270 files that took 5 s or more in the run named at the top of the list)."""


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
