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
    "tests/lake/test_kill.py",  # 95 s
    "tests/access/test_scope_mutation.py",  # 90 s (issue 60; alone, on a loaded machine)
    "tests/ops/test_webhook_standard.py",  # 80 s (issue 60; both backends)
    "tests/e2e/test_dashboard.py",  # 91 s
    "tests/ops/test_webhook_delivery.py",  # 90 s
    "tests/analytics/test_quantiles.py",  # 89 s
    "tests/lake/test_publish_storm.py",  # 89 s
    "tests/e2e/test_dashboard_tearsheet.py",  # 81 s
    "tests/sealkit/test_rules_port.py",  # 74 s
    "tests/lake/test_missing_file.py",  # 71 s
    "tests/pipeline/test_dask_build.py",  # 67 s
    "tests/fuzz/test_schemathesis.py",  # 67 s
    "tests/pipeline/test_events.py",  # 63 s
    "tests/e2e/test_dashboard_decisions.py",  # 59 s
    "tests/s3/test_s3_lake.py",  # 54 s
    "tests/e2e/test_dashboard_live.py",  # 54 s
    "tests/e2e/test_egress_budgets.py",  # 55 s (issue 60)
    "tests/e2e/test_delta_sharing_served.py",  # 50 s
    "tests/analytics/test_significance.py",  # 49 s
    "tests/e2e/test_connection_limits.py",  # 48 s
    "tests/analytics/test_screen.py",  # 46 s
    "tests/equality/test_representations.py",  # 44 s
    "tests/pipeline/test_refusals.py",  # 44 s
    "tests/lake/test_file_limits.py",  # 43 s
    "tests/pipeline/test_seal_limits.py",  # 43 s
    "tests/lake/test_catalogue_index.py",  # 43 s
    "tests/e2e/test_mcp_served.py",  # 43 s
    "tests/pipeline/test_malformed_seals.py",  # 39 s
    "tests/s3/test_serving_cache.py",  # 38 s
    "tests/e2e/test_identity_cache.py",  # 37 s
    "tests/e2e/test_events_served.py",  # 34 s
    "tests/sealkit/test_fresh_venv.py",  # 34 s
    "tests/ops/test_source_s3.py",  # 31 s
    "tests/client/test_generated.py",  # 30 s
    "tests/e2e/test_redis_outage.py",  # 29 s
    "tests/e2e/test_docs_ui.py",  # 29 s
    "tests/analytics/test_costs.py",  # 29 s
    "tests/api/test_exports.py",  # 28 s
    "tests/api/test_lake_refresh.py",  # 27 s
    "tests/analytics/test_correlation.py",  # 27 s
    "tests/lake/test_retention.py",  # 27 s
    "tests/client/test_retries.py",  # 26 s
    "tests/equality/test_equality.py",  # 26 s
    "tests/lake/test_score_neighbours.py",  # 25 s
    "tests/access/test_request_edges.py",  # 23 s
    "tests/e2e/test_download_fetch_limit.py",  # 23 s
    "tests/ops/test_source_local.py",  # 22 s
    "tests/ops/test_shared_deployment.py",  # 21 s
    "tests/ops/test_prometheus.py",  # 20 s
    "tests/pipeline/test_concurrent_publish.py",  # 19 s
    "tests/pipeline/test_seal_text.py",  # 19 s
    "tests/s3/test_s3_exports.py",  # 19 s
    "tests/sealkit/test_kit_mends.py",  # 17 s
    "tests/ops/test_faults.py",  # 16 s
    "tests/client/test_events.py",  # 16 s
    "tests/pipeline/test_demo_lake.py",  # 16 s
    "tests/analytics/test_attribution.py",  # 15 s
    "tests/ops/test_serve_command.py",  # 15 s
    "tests/pipeline/test_index_on_dask.py",  # 15 s
    "tests/ops/test_admin.py",  # 15 s
    "tests/ops/test_limits_http.py",  # 15 s
    "tests/analytics/test_factors.py",  # 15 s
    "tests/analytics/test_combine.py",  # 15 s
    "tests/e2e/test_forwarded_for.py",  # 14 s
    "tests/lake/test_resource_failures.py",  # 14 s
    "tests/access/test_secrets.py",  # 13 s
    "tests/analytics/test_screen_live.py",  # 13 s
    "tests/pipeline/test_publish.py",  # 12 s
    "tests/ops/test_health.py",  # 12 s
    "tests/pipeline/test_seal_check.py",  # 12 s
    "tests/identity/test_cli_start.py",  # 12 s
    "tests/pipeline/test_seal_ownership.py",  # 12 s
    "tests/analytics/test_checks.py",  # 12 s
    "tests/pipeline/test_factor_seal.py",  # 12 s
    "tests/access/test_me.py",  # 12 s
    "tests/lake/test_catalogue_etags.py",  # 11 s
    "tests/analytics/test_in_process.py",  # 11 s
    "tests/access/test_matrix.py",  # 11 s
    "tests/e2e/test_hostile_text.py",  # 11 s
    "tests/client/test_arrow_pages.py",  # 11 s
    "tests/api/test_bodies.py",  # 11 s
    "tests/analytics/test_capacity.py",  # 11 s
    "tests/ops/test_hangs.py",  # 10 s
    "tests/ops/test_corrupt_files.py",  # 10 s
    "tests/analytics/test_risk.py",  # 10 s
    "tests/e2e/test_factors_served.py",  # 10 s
    "tests/e2e/test_live_served.py",  # 10 s
    "tests/api/test_openapi_and_settings.py",  # 9 s
    "tests/metrics/test_served.py",  # 9 s
    "tests/ops/test_malloc_arenas.py",  # 9 s
    "tests/demo/test_metrics.py",  # 9 s
    "tests/e2e/test_standings_served.py",  # 9 s
    "tests/identity/test_unavailable.py",  # 8 s
    "tests/api/test_paging_properties.py",  # 8 s
    "tests/access/test_live_changes.py",  # 7 s
    "tests/identity/test_cli.py",  # 7 s
    "tests/e2e/test_serve_stack.py",  # 7 s
    "tests/ops/test_download_grants.py",  # 7 s
    "tests/access/test_raw_books.py",  # 6 s
    "tests/identity/test_transitions.py",  # 6 s
    "tests/analytics/test_compare.py",  # 6 s
    "tests/sealkit/test_builders.py",  # 6 s
    "tests/e2e/test_promotions_served.py",  # 5 s
    "tests/ops/test_download_holder.py",  # 5 s
    "tests/api/test_openapi_truth.py",  # 5 s
    "tests/analytics/test_contribution.py",  # 5 s
    "tests/ops/test_access_log_and_openapi.py",  # 5 s
    "tests/access/test_ordering.py",  # 5 s
    "tests/api/test_field_docs.py",  # 5 s
    "tests/api/test_hostile_text.py",  # 5 s
    "tests/ops/test_analytics_faults.py",  # 5 s
    "tests/analytics/test_rolling.py",  # 5 s
    "tests/s3/test_s3_sharing.py",  # 5 s
    "tests/client/test_notebook.py",  # 4 s
    "tests/identity/test_authenticate.py",  # 4 s
    "tests/analytics/test_live.py",  # 4 s
    "tests/pipeline/test_identifier_patterns.py",  # 4 s
    "tests/api/test_request_path.py",  # 3 s
    "tests/analytics/test_residual.py",  # 3 s
    "tests/client/test_paging.py",  # 3 s
    "tests/sharing/test_schema.py",  # 3 s
    "tests/analytics/test_access.py",  # 3 s
    "tests/lake/test_unmounted_lake.py",  # 3 s
    "tests/client/test_repr.py",  # 3 s
    "tests/ops/test_cli_layering.py",  # 3 s
    "tests/analytics/test_trials_disclosure.py",  # 3 s
    "tests/client/test_analytics.py",  # 3 s
    "tests/analytics/test_doc.py",  # 3 s
    "tests/api/test_reference_docs.py",  # 3 s
    "tests/limits/test_limiter.py",  # 2 s
    "tests/api/test_representations.py",  # 2 s
    "tests/s3/test_s3_archives.py",  # 2 s
    "tests/lake/test_reader_costs.py",  # 2 s
    "tests/identity/test_usage_ledger.py",  # 2 s
    "tests/lake/test_superseded_exports.py",  # 2 s
    "tests/records/test_event_feed.py",  # 2 s
    "tests/records/test_webhooks.py",  # 2 s
    "tests/demo/test_determinism.py",  # 2 s
    "tests/api/test_delta_sharing.py",  # 2 s
    "tests/limits/test_concurrency.py",  # 2 s
    "tests/identity/test_store.py",  # 2 s
    "tests/analytics/test_drawdowns.py",  # 2 s
    "tests/ops/test_download_fetch_limit.py",  # 2 s
    "tests/analytics/test_live_checks.py",  # 2 s
    "tests/identity/test_download_fetches.py",  # 2 s
    "tests/api/test_developer_surface.py",  # 2 s
    "tests/identity/test_access.py",  # 2 s
    "tests/records/test_events.py",  # 2 s
    "tests/ops/test_webhook_urls.py",  # 2 s
    "tests/analytics/test_promotions.py",  # 2 s
    "tests/api/test_row_structs.py",  # 2 s
    "tests/analytics/test_standings.py",  # 1 s
    "tests/limits/test_redis_restart.py",  # 1 s
    "tests/api/test_download_ranges.py",  # 1 s
    "tests/records/test_promotions.py",  # 1 s
    "tests/analytics/test_risk_empyrical.py",  # 1 s
    "tests/client/test_decisions.py",  # 1 s
    "tests/metrics/test_states_and_doc.py",  # 1 s
    "tests/api/test_http_caching.py",  # 1 s
    "tests/demo/test_decisions.py",  # 1 s
    "tests/demo/test_ledger_identities.py",  # 1 s
    "tests/e2e/test_compression.py",  # 1 s
    "tests/api/test_declarations.py",  # 1 s
    "tests/pipeline/test_build_metrics.py",  # 1 s
    "tests/api/test_identities.py",  # 1 s
    "tests/limits/test_windows.py",  # 1 s
    "tests/api/test_portfolio.py",  # 1 s
    "tests/client/test_errors.py",  # 1 s
    "tests/e2e/test_server.py",  # 1 s
    "tests/api/test_benchmarks.py",  # 1 s
    "tests/client/test_methods.py",  # 1 s
    "tests/api/test_mcp_declarations.py",  # 1 s
    "tests/limits/test_unavailable.py",  # 1 s
    "tests/api/test_doc_units.py",  # 0 s
    "tests/records/test_cursors.py",  # 0 s
    "tests/api/test_signals.py",  # 0 s
    "tests/e2e/test_refusal_contract.py",  # 0 s
    "tests/metrics/test_constant_weeks.py",  # 0 s
    "tests/client/test_raw_policy.py",  # 0 s
    "tests/client/test_docs.py",  # 0 s
    "tests/metrics/test_compute.py",  # 0 s
    "tests/metrics/test_doc_declared.py",  # 0 s
    "tests/metrics/test_newey_west.py",  # 0 s
    "tests/client/test_token_secrecy.py",  # 0 s
    "tests/client/test_benchmark.py",  # 0 s
    "tests/client/test_call.py",  # 0 s
    "tests/records/test_standings_read.py",  # 0 s
    "tests/client/test_kind_missing.py",  # 0 s
    "tests/e2e/test_response_headers.py",  # 0 s
    "tests/demo/test_exposures.py",  # 0 s
    "tests/e2e/test_attribution_served.py",  # 0 s
    "tests/identity/test_timing.py",  # 0 s
    "tests/demo/test_corpus_states.py",  # 0 s
    "tests/api/test_catalog.py",  # 0 s
    "tests/identity/test_demo_banner.py",  # 0 s
    "tests/e2e/test_raw_paths.py",  # 0 s
    "tests/lake/test_answers.py",  # 0 s
    "tests/analytics/test_near_constant.py",  # 0 s
    "tests/identity/test_tokens.py",  # 0 s
    "tests/e2e/test_no_token_echo.py",  # 0 s
    "tests/pipeline/test_catalogue_residual.py",  # 0 s
    "tests/limits/test_redis_backend.py",  # 0 s
    "tests/api/test_query_parsed_once.py",  # 0 s
    "tests/e2e/test_capacity_served.py",  # 0 s
    "tests/client/test_transport.py",  # 0 s
    "tests/api/test_allow_list_mask.py",  # 0 s
    "tests/sharing/test_byte_ranges.py",  # 0 s
    "tests/api/test_query_declarations.py",  # 0 s
    "tests/identity/test_cache.py",  # 0 s
    "tests/api/test_figures.py",  # 0 s
    "tests/demo/test_calendar.py",  # 0 s
    "tests/e2e/test_parser_refusals.py",  # 0 s
    "tests/api/test_event_answers.py",  # 0 s
    "tests/client/test_log_redaction.py",  # 0 s
    "tests/identity/test_docs.py",  # 0 s
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
