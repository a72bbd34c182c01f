"""`as_of` on the read routes (issue 64, item 5), over the demo's history and its records: a route
asked as of a decision's read time answers from the catalogue generation and builds the API served
then and the decisions recorded by then (the builds and generation a decision read are pinned, so
kept whatever their age); a moment older than the history retention that no decision pinned is a
410 `as_of_gone`; one in the future a 400. The past is recomputed from the lake's files (polars)
and the records (sqlite3), not from the server's code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.analytics.conftest import Api
from tests.support.as_of_approval import ALPHA, approval
from tests.support.build_tables import build_table


@pytest.fixture(scope="module")
def decided(demo_records: Path) -> dict[str, Any]:
    return approval(demo_records)


def test_a_run_route_as_of_a_decisions_read_time_serves_the_build_it_read(
    api: Api, demo_lake: Path, decided: dict[str, Any]
) -> None:
    read = decided["snapshot"]["read"]
    then = api.ok(f"/v1/alphas/{ALPHA}/portfolio", book="long_short", limit=5000, as_of=read["at"])
    now = api.ok(f"/v1/alphas/{ALPHA}/portfolio", book="long_short", limit=5000)
    assert then["meta"]["as_of"] == read["at"] and then["meta"]["generation"] == read["generation"]
    assert then["meta"]["source"].endswith(f"@{read['build_id']}")
    assert "as_of" not in now["meta"] and not now["meta"]["source"].endswith(f"@{read['build_id']}")
    ledger = build_table(
        demo_lake / "alphas" / ALPHA / "builds" / read["build_id"], "portfolio", "long_short"
    ).sort("date")
    assert [r["date"] for r in then["data"]] == [d.isoformat() for d in ledger["date"]]
    assert [r["ending_equity"] for r in then["data"]] == ledger["ending_equity"].to_list()
    assert len(now["data"]) > len(then["data"])  # weekly runs were published after the decision


def test_the_catalogue_as_of_then_shows_the_standings_recorded_by_then(
    api: Api, decided: dict[str, Any]
) -> None:
    read = decided["snapshot"]["read"]
    rows = {r["alpha_id"]: r for r in api.all_rows("/v1/alphas", as_of=read["at"])}
    today = {r["alpha_id"]: r for r in api.all_rows("/v1/alphas")}
    # Read before its approval was recorded: nominated then, approved now.
    assert rows[ALPHA]["standing"] == "nominated" and today[ALPHA]["standing"] == "approved"
    assert read["at"] < decided["recorded_at"]


def test_a_moment_no_decision_pinned_past_the_history_is_gone_and_the_future_is_refused(api: Api) -> None:
    # The demo's history was published on a simulated clock years ago: past the 7 days kept.
    gone = api.get(f"/v1/alphas/{ALPHA}/portfolio", book="long_short", as_of="2021-10-01T00:00:00Z")
    assert gone.status_code == 410, gone.text
    error = gone.json()["error"]
    assert error["code"] == "as_of_gone" and "history" in error["details"]["reason"]
    before = api.get(f"/v1/alphas/{ALPHA}/metrics", as_of="2001-01-01T00:00:00Z")
    assert (
        before.status_code == 410 and "no catalogue generation" in before.json()["error"]["details"]["reason"]
    )
    future = api.get(f"/v1/alphas/{ALPHA}/metrics", as_of="2099-01-01T00:00:00+00:00")
    assert future.status_code == 400 and future.json()["error"]["details"]["parameters"][0]["name"] == "as_of"
    naive = api.get(f"/v1/alphas/{ALPHA}/metrics", as_of="2022-01-01T00:00:00")
    assert naive.status_code == 400 and "as_of" in naive.text


def test_the_decisions_the_queue_and_the_builds_pages_as_of_then(api: Api, decided: dict[str, Any]) -> None:
    """The alpha's decisions and the review queue as they stood at the read time (nominated by its
    seal, no decision yet), and its description, books and exports of the build served then."""
    read = decided["snapshot"]["read"]
    then = api.ok(f"/v1/alphas/{ALPHA}/promotions", as_of=read["at"])["data"]
    now = api.ok(f"/v1/alphas/{ALPHA}/promotions")["data"]
    assert (then["standing"], then["decisions"], len(then["nominations"])) == ("nominated", [], 1)
    assert now["standing"] == "approved" and now["decisions"]
    queue = api.ok("/v1/review", as_of=read["at"])
    assert ALPHA in [e["alpha"] for e in queue["data"]["entries"]] and queue["meta"]["as_of"] == read["at"]
    assert ALPHA not in [e["alpha"] for e in api.ok("/v1/review")["data"]["entries"]]
    for path in (f"/v1/alphas/{ALPHA}", f"/v1/alphas/{ALPHA}/books", f"/v1/alphas/{ALPHA}/exports"):
        answer = api.ok(path, as_of=read["at"])
        assert answer["meta"]["as_of"] == read["at"], path
    books = api.ok(f"/v1/alphas/{ALPHA}/books", as_of=read["at"])
    assert books["meta"]["source"].endswith(f"@{read['build_id']}")


def test_the_meta_of_an_answer_as_of_a_moment_is_declared(api: Api, decided: dict[str, Any]) -> None:
    """`meta.as_of` and `meta.generation` are keys of every route's declared `meta` (the OpenAPI
    document, which the generated client reads)."""
    from serve.app import openapi_document

    document = openapi_document()
    read = decided["snapshot"]["read"]
    for path, route in (
        (f"/v1/alphas/{ALPHA}/portfolio", "/v1/alphas/{alpha}/portfolio"),
        (f"/v1/alphas/{ALPHA}/analytics/checks", "/v1/alphas/{alpha}/analytics/checks"),
        ("/v1/review", "/v1/review"),
    ):
        meta = api.ok(path, as_of=read["at"])["meta"]
        schema = document["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        while "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        declared = schema["properties"]["meta"]
        while "$ref" in declared:
            declared = document["components"]["schemas"][declared["$ref"].rsplit("/", 1)[1]]
        assert {"as_of", "generation"} <= set(meta) <= set(declared["properties"]), path
