"""Analytics tools answer an agent in summary form unless called with `detail="full"` (issue 65:
"`analytics.mmc` answers 83 KB to an agent"; serve/model_context/summary.py): every figure of the route's
answer, each series longer than `LONGEST` items cut to its first and last `KEPT`. Read off the
declarations (no server), then through the app's own `/mcp` over the demo lake with its records
(approved alphas, so that mmc has its weekly series); the HTTP routes answer as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serve.endpoints import endpoints
from serve.model_context.summary import DETAIL, FULL, KEPT, LONGEST, SUMMARY, is_summarised, summarised
from serve.model_context.tools import SUMMARISED, route_tools
from serve.model_context.untrusted import untrusted_pointers
from tests.analytics.conftest import CALLERS, Api, serving
from tests.support.mcp_calls import post

MMC_BOUND = 8 << 10
"""The most bytes `analytics.mmc`'s default answer (its structured content) may take on the demo."""
ALPHA = "momentum_12_1"
MMC = f"/v1/alphas/{ALPHA}/analytics/mmc"
VOLATILE_META = ("request_id", "generated_at")


def test_the_tools_in_summary_form_are_the_analytics_objects_holding_a_series() -> None:
    tools = route_tools()
    assert tools["analytics.mmc"].lists == (("data", "weekly"), ("data", "overlap_weekly"))
    # The factors' figures are named entries, kept whole; their weekly series are cut.
    assert set(tools["analytics.factors"].lists) == {
        ("data", "weekly"),
        ("data", "running_sums"),
        ("data", "exposures"),
        ("data", "ic", "weeks"),
    }
    # A list within the items of another: each chart's weeks (the charts themselves are named).
    assert ("data", "charts", "*", "weeks") in tools["analytics.monitoring"].lists
    assert ("data", "charts") not in tools["analytics.monitoring"].lists
    # The checks battery holds no series: its tool takes no `detail`.
    assert not tools["analytics.checks"].summarises
    assert DETAIL not in tools["analytics.checks"].tool.input_schema["properties"]
    taking = {name for name, tool in tools.items() if tool.summarises}
    assert {
        "analytics.mmc",
        "analytics.factors",
        "analytics.drawdown_odds",
        "analytics.expectation",
    } <= taking
    # Only analytics answers of one object: a collection is paged, other groups' objects are short.
    for name in taking:
        assert endpoints()[name].group == "analytics" and endpoints()[name].body is not None, name
    assert "analytics.screen" not in taking and "performance.metrics" not in taking
    schema = tools["analytics.mmc"].tool.input_schema["properties"][DETAIL]
    assert (schema["enum"], schema["default"]) == ([SUMMARY, FULL], SUMMARY)
    assert f"`{DETAIL}` is `{FULL}`" in (tools["analytics.mmc"].tool.description or "")


def test_a_series_is_cut_past_the_longest_whole_list_and_the_answer_left_as_it_was() -> None:
    paths = route_tools()["analytics.monitoring"].lists
    answer = {
        "data": {
            "charts": [
                {"series": "ic", "weeks": list(range(LONGEST + 1)), "alarms": ["2021-01-08"]},
                {"series": "return", "weeks": list(range(LONGEST)), "alarms": []},
            ]
        },
        "meta": {"run": "r"},
    }
    before = json.dumps(answer)
    cut, counts = summarised(answer, paths, "call it whole")
    assert json.dumps(answer) == before
    assert counts == {"/data/charts/0/weeks": LONGEST + 1}
    assert cut["data"]["charts"][0]["weeks"] == {
        "count": LONGEST + 1,
        "first": [0, 1, 2],
        "last": [LONGEST - 2, LONGEST - 1, LONGEST],
        "omitted": LONGEST + 1 - 2 * KEPT,
        "whole": f"{LONGEST + 1 - 2 * KEPT} items omitted: call it whole",
    }
    assert is_summarised(cut["data"]["charts"][0]["weeks"])
    # A list of LONGEST items, the alarms and everything else: as they were.
    assert cut["data"]["charts"][1] == answer["data"]["charts"][1]  # type: ignore[index]
    assert cut["data"]["charts"][0]["alarms"] == ["2021-01-08"]
    assert cut["meta"] == {"run": "r"}


def test_seal_text_in_the_items_a_summary_keeps_is_named_where_it_stands() -> None:
    tool = route_tools()["analytics.factors"]
    exposures = [
        {"date": f"2021-01-{i + 1:02d}", "factor": f"sector {i}", "exposure": 0.1} for i in range(20)
    ]
    cut, counts = summarised({"data": {"exposures": exposures}}, tool.lists, "x")
    assert counts == {"/data/exposures": 20}
    pointers = [p for p in untrusted_pointers(tool.seal_text, cut) if p.startswith("/data/exposures")]
    assert pointers == [f"/data/exposures/first/{i}/factor" for i in range(KEPT)] + [
        f"/data/exposures/last/{i}/factor" for i in range(KEPT)
    ]
    kept = cut["data"]["exposures"]
    assert [kept[part][int(i)]["factor"] for part, i in (p.split("/")[3:5] for p in pointers)] == [
        "sector 0",
        "sector 1",
        "sector 2",
        "sector 17",
        "sector 18",
        "sector 19",
    ]


@pytest.fixture(scope="module")
def api(demo_lake: Path) -> Iterator[Api]:
    with serving(demo_lake, CALLERS) as found:
        yield found


def call(api: Api, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The result of a `tools/call` to the app's `/mcp` (the test caller `raw`)."""
    response = post(api, name, arguments, None)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


def leaves(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every scalar of a JSON value with its pointer (a summarised list is one leaf, its own)."""
    if isinstance(value, dict) and not is_summarised(value):
        for key, item in value.items():
            yield from leaves(item, f"{pointer}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, f"{pointer}/{index}")
    else:
        yield pointer, value


def test_mmc_answers_an_agent_in_summary_form_by_default_and_whole_on_request(api: Api) -> None:
    over_http = api.ok(MMC)
    whole = over_http["data"]
    summary = call(api, "analytics.mmc", {"alpha": ALPHA})
    answer = summary["structuredContent"]
    size = len(json.dumps(answer, separators=(",", ":")))
    route_size = len(json.dumps(over_http, separators=(",", ":")))
    assert size <= MMC_BOUND < route_size, (size, route_size)
    assert not summary["isError"]
    assert json.loads(summary["content"][0]["text"]) == answer  # the text block: the same JSON
    # The series cut, each named with its length, and how to have them whole.
    assert summary["_meta"][SUMMARISED] == {
        "/data/weekly": len(whole["weekly"]),
        "/data/overlap_weekly": len(whole["overlap_weekly"]),
    }
    for name in ("weekly", "overlap_weekly"):
        cut = answer["data"][name]
        assert cut["count"] == len(whole[name]) > LONGEST
        assert (cut["first"], cut["last"]) == (whole[name][:KEPT], whole[name][-KEPT:])
        assert 'call analytics.mmc with "detail": "full"' in cut["whole"]
    assert '"detail":"full"' in summary["content"][-1]["text"]
    # Every scalar of the route's answer (but the series cut) is in the summary, unchanged.
    served = dict(leaves(answer["data"]))
    expected = {
        pointer: value
        for pointer, value in leaves(whole)
        if not pointer.startswith(("/weekly/", "/overlap_weekly/"))
    }
    assert (
        expected and {p: v for p, v in served.items() if p not in ("/weekly", "/overlap_weekly")} == expected
    )
    assert {k: v for k, v in answer["meta"].items() if k not in VOLATILE_META} == {
        k: v for k, v in over_http["meta"].items() if k not in VOLATILE_META
    }
    # `detail="full"` is the route's answer, whole.
    full = call(api, "analytics.mmc", {"alpha": ALPHA, DETAIL: FULL})
    assert full["structuredContent"]["data"] == whole
    assert SUMMARISED not in full.get("_meta", {})
    # `detail="summary"` is the default's answer.
    assert (
        call(api, "analytics.mmc", {"alpha": ALPHA, DETAIL: SUMMARY})["structuredContent"]["data"]
        == answer["data"]
    )


SUMMARISING = sorted(name for name, tool in route_tools().items() if tool.summarises)
SHORT_ON_THE_DEMO = {
    "analytics.overfitting",
    "analytics.costs",
    "analytics.decay",
    "analytics.attribution",
    "analytics.capacity",
}
"""Tools whose series hold at most `LONGEST` items on the small demo: their summary is their answer."""


@pytest.mark.parametrize("name", SUMMARISING)
def test_every_summary_keeps_every_value_outside_the_series_it_cuts(api: Api, name: str) -> None:
    """Each tool's default answer against its `detail="full"` one: equal once each cut series is put
    back whole from the full answer (so nothing else moved), each cut series' ends the whole one's."""
    # value_composite_legacy: approved and decaying on the demo, so its live series are long.
    arguments = {"alpha": "value_composite_legacy", "with": ALPHA}
    taken = route_tools()[name].tool.input_schema["properties"]
    arguments = {k: v for k, v in arguments.items() if k in taken}
    summary, full = call(api, name, arguments), call(api, name, {**arguments, DETAIL: FULL})
    assert not summary["isError"] and not full["isError"], (summary, full)
    cut, whole = summary["structuredContent"], full["structuredContent"]
    pointers = summary.get("_meta", {}).get(SUMMARISED, {})
    assert pointers or name in SHORT_ON_THE_DEMO, name
    for pointer in sorted(pointers, key=len, reverse=True):  # inner series first: their parents hold them
        *parents, last = pointer.split("/")[1:]
        holder, source = cut, whole
        steps = iter(parents)
        for step in steps:
            holder = holder[int(step)] if isinstance(holder, list) else holder[step]
            if step in ("first", "last") and isinstance(source, list):  # an item a summary kept
                index = int(next(steps))
                holder = holder[index]
                source = source[index if step == "first" else len(source) - KEPT + index]
            else:
                source = source[int(step)] if isinstance(source, list) else source[step]
        items = source[last]
        assert holder[last]["count"] == pointers[pointer] == len(items) > LONGEST, pointer
        assert (holder[last]["first"], holder[last]["last"]) == (items[:KEPT], items[-KEPT:]), pointer
        holder[last] = items  # put back whole: the answers must then be equal
    without = {k: v for k, v in cut["meta"].items() if k not in VOLATILE_META}
    assert without == {k: v for k, v in whole["meta"].items() if k not in VOLATILE_META}, name
    assert cut["data"] == whole["data"], name


def test_a_bad_detail_is_refused_naming_it(api: Api) -> None:
    for arguments, rule in (
        ({"alpha": ALPHA, DETAIL: "brief"}, "must be one of summary, full"),
        ({"alpha": ALPHA, DETAIL: True}, "must be a JSON string"),
    ):
        refused = call(api, "analytics.mmc", arguments)
        assert refused["isError"], arguments
        error = refused["structuredContent"]["error"]
        assert error["code"] == "bad_request"
        assert error["details"]["parameters"] == [{"name": DETAIL, "rule": rule}], arguments
    # A tool without a series takes no `detail`.
    error = call(api, "analytics.checks", {"alpha": ALPHA, DETAIL: FULL})["structuredContent"]["error"]
    assert error["details"]["parameters"] == [{"name": DETAIL, "rule": "is not a parameter of this tool"}]
