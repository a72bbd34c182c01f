"""Each corpus state gives its documented warning (always 200); access limits; the _doc block."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemas.choices import WARNING_CODES
from serve.doc_blocks.metrics_doc import metrics_doc
from tests.knowledge import current_build
from tests.metrics.conftest import Api
from tests.support.build_tables import build_table, has_table

ALPHAS = [
    "momentum_12_1",
    "Test_planted_factor",
    "Test_short_term_reversal",
    "Test_small_universe",
    "Test_low_vol_incomplete",
    "Test_ledger_only",
    "value_composite_legacy",
]


def warning_codes(body: dict[str, Any]) -> set[tuple[str, str | None]]:
    return {(w["code"], w.get("block") or w.get("kind")) for w in body["meta"].get("warnings", [])}


def metrics(api: Api, alpha: str, token: str = "raw", **params: Any) -> dict[str, Any]:
    return api.ok(f"/v1/alphas/{alpha}/metrics", token, **params)


def test_complete_alpha_has_no_warnings_and_every_block(api: Api, demo_lake: Path) -> None:
    # Its only warning: the demo's vendor correction restated some of its published sessions
    # (issue 64), which its build's restatements table records.
    body = metrics(api, "momentum_12_1", panel=1, granularity="monthly")
    restated = build_table(current_build(demo_lake, "momentum_12_1"), "restatements")
    assert restated.height > 0
    assert warning_codes(body) == {("restated", None)}, body["meta"]["warnings"]
    # An alpha whose runs read the feed as first delivered has nothing to say (its build has no
    # restatements rows in the open tables).
    assert not has_table(current_build(demo_lake, "Test_planted_factor"), "restatements")
    assert "warnings" not in metrics(api, "Test_planted_factor", panel=1, granularity="monthly")["meta"]
    data = body["data"]
    assert all(
        data[k] is not None
        for k in ("core", "rank_ic", "signal_processing", "periods", "ic_deciles", "panel")
    )
    assert all(data["nwt"][k] is not None for k in ("ic", "ic_score_panel", "ir"))
    assert body["meta"]["run"] == data["alpha"] == "momentum_12_1"
    assert data["source_alpha_id"] == body["meta"]["source_alpha_id"] == "mom-12-1-r7"


def test_ledger_only_alpha_is_an_ic_family_mismatch(api: Api) -> None:
    body = metrics(api, "Test_ledger_only", panel=1)
    data = body["data"]
    assert ("ic_family_mismatch", "nwt.ic") in warning_codes(body)
    assert ("missing_core_metrics", "core") in warning_codes(body)
    assert data["nwt"]["ic"] is None and data["ic_deciles"] is None and data["panel"] is None
    assert data["core"]["ic"] == {**data["core"]["ic"], "status": "not_measurable", "value": None}
    assert data["core"]["tenure"]["source"] == "portfolio" and data["core"]["tenure"]["weeks"] is None
    assert data["nwt"]["ir"] is not None


def test_legacy_alpha_whose_mean_ic_does_not_reproduce(api: Api) -> None:
    body = metrics(api, "value_composite_legacy")
    assert ("ic_reproduction_mismatch", "nwt.ic") in warning_codes(body)
    assert body["data"]["nwt"]["ic"] is None
    assert body["data"]["core"]["ic"]["status"] == "available"


def test_incomplete_alpha_names_its_missing_kinds(api: Api) -> None:
    body = metrics(api, "Test_low_vol_incomplete")
    kinds = {w.get("kind") for w in body["meta"]["warnings"] if w["code"] == "missing_kind"}
    assert {"pnl", "trades"} <= kinds


def test_small_universe_skips_and_counts_thin_weeks(api: Api) -> None:
    body = metrics(api, "Test_small_universe")
    rebalances = api.all_rows("/v1/alphas/Test_small_universe/rebalances")
    assert body["data"]["ic_deciles"]["weeks_skipped"] > 0
    assert body["data"]["ic_deciles"]["weeks_skipped"] >= sum(1 for r in rebalances if r["n_symbols"] < 20)


def test_window_makes_stored_blocks_say_they_are_lifetime(api: Api) -> None:
    body = metrics(api, "momentum_12_1", **{"from": "2021-06-01", "to": "2021-12-31"})
    assert {("window_lifetime_only", "core"), ("window_lifetime_only", "nwt.ic")} <= warning_codes(body)
    assert body["data"]["window"] == {"from": "2021-06-01", "to": "2021-12-31"}


def test_a_metrics_only_key_gets_access_limited_blocks(api: Api) -> None:
    body = metrics(api, "momentum_12_1", "metrics_only", panel=1)
    data = body["data"]
    assert data["ic_deciles"] is None and data["panel"] is None
    assert all(data["nwt"][k] is None for k in ("ic", "ic_score_panel", "ir"))
    limited = {w["block"] for w in body["meta"]["warnings"] if w["code"] == "access_limited"}
    assert {"ic_deciles", "nwt.ic", "nwt.ic_score_panel", "nwt.ir", "panel"} <= limited
    assert data["core"]["ic"]["status"] == "available"


def test_annualised_icir_entries_state_their_periods_per_year(api: Api) -> None:
    data = metrics(api, "momentum_12_1")["data"]
    for entry in (data["core"]["icir"], data["rank_ic"]["raw"]["icir"]):
        assert entry["annualisation"] == "annualised"
        assert entry["periods_per_year"] == 52


@pytest.mark.parametrize(
    "params",
    [
        {"granularity": "weekly"},
        {"panel": "maybe"},
        {"doc": "2"},
        {"from": "2021-13-01"},
        {"book": "long_only"},
        {"from": "2022-01-01", "to": "2021-01-01"},
    ],
)
def test_bad_parameters_are_400(api: Api, params: dict[str, str]) -> None:
    response = api.get("/v1/alphas/momentum_12_1/metrics", **params)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"


def test_doc_endpoint_is_identical_for_every_alpha_and_cacheable(api: Api) -> None:
    bodies = []
    raw_bodies = set()
    for alpha in ("momentum_12_1", "Test_ledger_only", "momentum_12_1"):
        response = api.get(f"/v1/alphas/{alpha}/metrics/_doc")
        assert response.status_code == 200
        assert response.headers["cache-control"] == "public, max-age=86400, immutable"
        bodies.append(response.json()["data"])
        raw_bodies.add(response.content)
    # An immutable cache entry: the same bytes for every call and alpha (request id in the header).
    assert len(raw_bodies) == 1
    assert bodies[0] == bodies[1] == metrics_doc()
    assert bodies[0]["schema_version"] == "2.0.0"
    assert set(bodies[0]["warnings"]) == set(WARNING_CODES)
    for key in ("path", "identity", "parameters", "window_semantics", "access", "signal_families"):
        assert bodies[0]["endpoint"][key]
    embedded = metrics(api, "Test_planted_factor", doc=1)["data"]["doc"]
    assert embedded == bodies[0]


def test_doc_endpoint_still_applies_alpha_authorisation(api: Api) -> None:
    forbidden = api.get("/v1/alphas/momentum_12_1/metrics/_doc", "testonly")
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "run_not_allowed"
    missing = api.get("/v1/alphas/Test_no_such_alpha/metrics/_doc")
    assert missing.status_code == 404


def paths(value: Any, prefix: str = "") -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        for key, child in value.items():
            path = f"{prefix}.{key}" if prefix else key
            found.add(path)
            if path != "doc":  # the embedded block documents itself
                found |= paths(child, path)
    elif isinstance(value, list):
        for child in value:
            found |= paths(child, f"{prefix}[]")
    return found


def test_every_served_path_and_warning_is_documented(api: Api) -> None:
    doc = metrics_doc()
    served: set[str] = set()
    emitted: set[str] = set()
    for alpha in ALPHAS:
        for granularity in ("overall", "yearly", "monthly"):
            for token, params in (
                ("raw", {"panel": 1, "doc": 1}),
                ("raw", {"from": "2021-03-01", "to": "2021-05-01"}),
                ("metrics_only", {"panel": 1}),
            ):
                body = metrics(api, alpha, token, granularity=granularity, **params)
                served |= paths(body["data"])
                emitted |= {w["code"] for w in body["meta"].get("warnings", [])}
    undocumented = sorted(served - set(doc["fields"]))
    assert not undocumented, undocumented
    assert emitted <= set(doc["warnings"])
    # Every documented stat path is reachable: a stale entry would mislead readers.
    assert "core.excess_sharpe.risk_free_rate" in served and "periods[].core.tenure.weeks" in served
