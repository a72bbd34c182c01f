"""`/v1/alphas` and `/v1/alphas/{alpha}` against the small demo lake."""

from __future__ import annotations

from pathlib import Path

from datasets import catalog
from tests.api.conftest import Api

DESCRIPTION_KEYS = {
    "algo_id", "alpha_id", "name", "tldr", "copyright", "classification", "thesis", "signal", "parameters",
    "data_requirements", "source_papers",
}  # fmt: skip


def test_list_rows_and_fixed_order(api: Api, demo_lake: Path) -> None:
    body = api.ok("/v1/alphas")
    entries = catalog.list_alphas(str(demo_lake))
    expected = sorted(entries, key=lambda e: e["alpha_id"])
    expected.sort(key=lambda e: e["started_at"], reverse=True)
    assert [r["alpha_id"] for r in body["data"]] == [e["alpha_id"] for e in expected]
    for row, entry in zip(body["data"], expected, strict=True):
        assert list(row) == ["alpha_id", "name", "tldr", "standing", "approved_since"]
        # An app without records: nothing decided (tests/e2e/test_standings_served.py decides).
        assert (row["standing"], row["approved_since"]) == ("never", None)
        assert row["name"] == (entry.get("name") or entry["alpha_id"])
        assert row["tldr"] == entry.get("tldr")
    assert body["pagination"] == {"limit": 100, "offset": 0, "returned": 7, "total": 7, "has_more": False}


def test_search_is_case_insensitive_over_id_name_and_tldr(api: Api) -> None:
    by_name = api.ok("/v1/alphas", search="MOMENTUM")
    ids = {r["alpha_id"] for r in by_name["data"]}
    assert {"momentum_12_1", "Test_small_universe", "Test_ledger_only"} <= ids
    assert by_name["pagination"]["total"] == len(ids)
    by_tldr = api.ok("/v1/alphas", search="bounce back")
    assert [r["alpha_id"] for r in by_tldr["data"]] == ["Test_short_term_reversal"]
    assert api.ok("/v1/alphas", search="zzz-no-match")["pagination"]["total"] == 0


def test_complete_only_hides_incomplete_runs(api: Api) -> None:
    all_ids = {r["alpha_id"] for r in api.ok("/v1/alphas")["data"]}
    complete = {r["alpha_id"] for r in api.ok("/v1/alphas", complete_only="true")["data"]}
    assert "Test_low_vol_incomplete" in all_ids - complete
    assert {r["alpha_id"] for r in api.ok("/v1/alphas", complete_only="0")["data"]} == all_ids
    error = api.error("/v1/alphas", 400, "bad_request", complete_only="maybe")
    assert error["details"]["parameters"][0]["name"] == "complete_only"


def test_list_shows_only_readable_alphas(api: Api) -> None:
    ids = [r["alpha_id"] for r in api.ok("/v1/alphas", token="testonly")["data"]]
    assert ids and all(i.startswith("Test_") for i in ids)


def test_list_paging(api: Api) -> None:
    whole = api.ok("/v1/alphas")["data"]
    assert api.all_pages("/v1/alphas", limit=2) == whole
    last = api.ok("/v1/alphas", limit=3, offset=6)
    assert last["pagination"] == {"limit": 3, "offset": 6, "returned": 1, "total": 7, "has_more": False}


def test_description_has_every_key(api: Api, demo_lake: Path) -> None:
    body = api.ok("/v1/alphas/Test_planted_factor")
    data = body["data"]
    assert DESCRIPTION_KEYS <= set(data)
    assert data["algo_id"] == data["alpha_id"] == "Test_planted_factor"
    assert body["meta"]["alpha_id"] == "Test_planted_factor"
    assert [p["role"] for p in data["source_papers"]].count("seed") == 1


def test_partly_sealed_description_serves_nulls(api: Api) -> None:
    data = api.ok("/v1/alphas/Test_short_term_reversal")["data"]
    assert DESCRIPTION_KEYS <= set(data)
    assert data["copyright"] is None
    assert set(data["signal"]) >= {"score_direction", "signal_logic", "pseudocode", "validity_rules"}
    assert all(value is None for value in data["signal"].values())


def test_run_without_description(api: Api) -> None:
    error = api.error("/v1/alphas/Test_small_universe", 404, "alpha_description_not_found")
    assert error["details"] == {"alpha": "Test_small_universe"}
    assert "Test_small_universe" in {r["alpha_id"] for r in api.ok("/v1/alphas")["data"]}
    api.ok("/v1/alphas/Test_small_universe/rebalances")


def test_description_rejects_query_parameters(api: Api) -> None:
    error = api.error("/v1/alphas/Test_planted_factor", 400, "bad_request", limit="5")
    assert error["details"]["parameters"][0]["name"] == "limit"
