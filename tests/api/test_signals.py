"""`/rebalances`, `/rebalances/{date}` and `/scores` against the small demo lake."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from schemas import choices, wire
from tests.api.conftest import Api
from tests.api.lakedata import table

ALPHA = "Test_planted_factor"
BASE = f"/v1/alphas/{ALPHA}"
WEEK = "2021-01-15"


def test_rebalance_index(api: Api, demo_lake: Path) -> None:
    body = api.ok(f"{BASE}/rebalances", limit=5000)
    expected = table(demo_lake, ALPHA, "rebalances").sort("date")
    assert [set(r) for r in body["data"]] == [{"date", "week_status", "n_symbols"}] * expected.height
    assert [r["date"] for r in body["data"]] == [d.isoformat() for d in expected["date"]]
    assert [r["n_symbols"] for r in body["data"]] == expected["n_symbols"].to_list()
    assert body["meta"]["run"] == ALPHA
    assert body["meta"]["source_alpha_id"]
    window = api.ok(f"{BASE}/rebalances", **{"from": "2021-02-01", "to": "2021-02-28"})
    assert [r["date"] for r in window["data"]] == ["2021-02-05", "2021-02-12", "2021-02-19", "2021-02-26"]


def test_pending_and_skip_weeks_are_listed(api: Api) -> None:
    statuses = {r["week_status"] for r in api.all_pages("/v1/alphas/momentum_12_1/rebalances", limit=5000)}
    assert "traded" in statuses
    assert statuses - {"traded"}, "the demo corpus has pending and skip weeks"


def test_index_of_a_run_without_rebalances_is_empty_with_warning(api: Api) -> None:
    body = api.ok("/v1/alphas/Test_ledger_only/rebalances")
    assert body["data"] == []
    assert body["pagination"]["total"] == 0
    assert body["meta"]["warnings"] == [
        {"code": "kind_missing", "kind": "rebalances", "message": body["meta"]["warnings"][0]["message"]}
    ]
    api.error("/v1/alphas/Test_ledger_only/rebalances/2021-01-15", 404, "rebalance_not_found")


def test_cross_section_defaults_and_meta(api: Api, demo_lake: Path) -> None:
    body = api.ok(f"{BASE}/rebalances/{WEEK}", limit=5000)
    rows = body["data"]
    expected = table(demo_lake, ALPHA, "decisions").filter(pl.col("date") == pl.date(2021, 1, 15))
    assert len(rows) == expected.height == body["meta"]["n_symbols"]
    assert body["meta"]["book"] == "long_short" and body["meta"]["date"] == WEEK
    assert body["meta"]["week_status"] == "traded"
    keys = [(-r["score"], r["symbol"]) for r in rows]
    assert keys == sorted(keys), "default order is score descending with a ticker tiebreak"
    for row in rows:
        assert list(row) == [f for f in wire.DECISION_FIELDS if f in row], "served in the documented order"
    for row in rows:
        assert row["score"] == pytest.approx(row["direction"] * row["confidence"])
        assert row["raw_score"] == pytest.approx(row["raw_direction"] * row["raw_confidence"])


def test_cross_section_without_raw_access_has_no_raw_fields(api: Api) -> None:
    body = api.ok(f"{BASE}/rebalances/{WEEK}", token="plain")
    assert body["data"]
    for row in body["data"]:
        assert not [k for k in row if k.startswith("raw_")]
    assert not [k for k in body["meta"] if k.startswith("raw_")]


@pytest.mark.parametrize(
    "params, key",
    [
        ({"sort": "rank"}, lambda r: (r["average_rank"], r["symbol"])),
        ({"sort": "rank", "order": "desc"}, lambda r: (-r["average_rank"], r["symbol"])),
        ({"sort": "symbol"}, lambda r: r["symbol"]),
        ({"sort": "score", "order": "ASC"}, lambda r: (r["score"], r["symbol"])),
        ({"sort": "weight"}, lambda r: (-r["long_short_target_weight"], r["symbol"])),
        ({"sort": "weight", "book": "long_only"}, lambda r: (-r["long_only_target_weight"], r["symbol"])),
    ],
)
def test_cross_section_sorts(api: Api, params: dict[str, str], key: Callable[[dict[str, Any]], Any]) -> None:
    rows = api.ok(f"{BASE}/rebalances/{WEEK}", limit=5000, **params)["data"]
    assert rows == sorted(rows, key=key)


@pytest.mark.parametrize(
    "value, side", [("long", 1), ("1", 1), ("SHORT", -1), ("-1", -1), ("flat", 0), ("Neutral", 0), ("0", 0)]
)
def test_direction_filter_and_synonyms(api: Api, value: str, side: int) -> None:
    whole = api.ok(f"{BASE}/rebalances/{WEEK}", limit=5000)["data"]
    kept = api.ok(f"{BASE}/rebalances/{WEEK}", limit=5000, direction=value)
    assert kept["data"] == [r for r in whole if r["direction"] == side]
    assert kept["meta"]["n_symbols"] == len(whole)
    assert kept["pagination"]["total"] == len(kept["data"])


def test_symbol_list_and_min_abs_weight(api: Api) -> None:
    whole = api.ok(f"{BASE}/rebalances/{WEEK}", limit=5000)["data"]
    picked = [whole[0]["symbol"], whole[-1]["symbol"]]
    body = api.ok(f"{BASE}/rebalances/{WEEK}", symbol=f"{picked[1].lower()}, {picked[0]}")
    assert {r["symbol"] for r in body["data"]} == set(picked)
    for book, column in choices.WEIGHT_BOOKS.items():
        kept = api.ok(f"{BASE}/rebalances/{WEEK}", limit=5000, min_abs_weight="0.05", book=book)["data"]
        assert kept == [r for r in whole if abs(r[column]) >= 0.05]
        assert kept


def test_cross_section_parameter_errors_name_every_parameter(api: Api) -> None:
    error = api.error(
        f"{BASE}/rebalances/{WEEK}", 400, "bad_request",
        sort="alpha", order="up", direction="sideways", min_abs_weight="-1", book="raw_long_short",
    )  # fmt: skip
    rules = {p["name"]: p["rule"] for p in error["details"]["parameters"]}
    assert set(rules) == {"sort", "order", "direction", "min_abs_weight", "book"}
    assert "long, -1, short" in rules["direction"] and "neutral" in rules["direction"]


def test_rebalance_not_found_names_neighbours(api: Api) -> None:
    error = api.error(f"{BASE}/rebalances/2021-01-16", 404, "rebalance_not_found")
    assert error["details"] == {
        "first_rebalance": "2021-01-08",
        "last_rebalance": "2022-03-11",
        "previous_rebalance": "2021-01-15",
        "next_rebalance": "2021-01-22",
    }
    before = api.error(f"{BASE}/rebalances/2020-01-01", 404, "rebalance_not_found")["details"]
    assert before["previous_rebalance"] is None and before["next_rebalance"] == "2021-01-08"
    after = api.error(f"{BASE}/rebalances/2030-01-01", 404, "rebalance_not_found")["details"]
    assert after["next_rebalance"] is None and after["previous_rebalance"] == "2022-03-11"
    malformed = api.error(f"{BASE}/rebalances/2021-1-15", 400, "bad_request")
    assert malformed["details"]["parameters"][0]["name"] == "date"


def test_scores_core_and_all(api: Api) -> None:
    core = api.ok(f"{BASE}/scores", limit=50)
    assert core["meta"]["fields"] == "core"
    assert set(core["data"][0]) == set(wire.SCORE_CORE_FIELDS)
    plain = api.ok(f"{BASE}/scores", token="plain", limit=50)
    assert set(plain["data"][0]) == set(wire.SCORE_CORE_FIELDS) - {"raw_score"}
    full = api.ok(f"{BASE}/scores", limit=50, fields="all")
    assert full["meta"]["fields"] == "all"
    assert set(full["data"][0]) <= set(wire.SCORE_ALL_FIELDS)
    assert {"decision_reason", "raw_fill_at", "unavailability_reason"} <= set(full["data"][0])
    plain_all = api.ok(f"{BASE}/scores", token="plain", fields="all")
    assert not [k for k in plain_all["data"][0] if k.startswith("raw_")]
    keys = [(r["date"], r["symbol"]) for r in core["data"]]
    assert keys == sorted(keys)
    api.error(f"{BASE}/scores", 400, "bad_request", fields="some")


def test_scores_filters(api: Api, demo_lake: Path) -> None:
    decisions = table(demo_lake, ALPHA, "decisions")
    symbol = decisions["symbol"][0]
    body = api.ok(f"{BASE}/scores", symbol=symbol, limit=5000, **{"from": "2021-03-01", "to": "2021-06-30"})
    expected = decisions.filter(
        (pl.col("symbol") == symbol) & pl.col("date").is_between(pl.date(2021, 3, 1), pl.date(2021, 6, 30))
    ).sort("date")
    assert [r["date"] for r in body["data"]] == [d.isoformat() for d in expected["date"]]
    assert [r["score"] for r in body["data"]] == pytest.approx(expected["score"].to_list())


def test_scores_agree_with_the_cross_section(api: Api) -> None:
    cross = {r["symbol"]: r for r in api.ok(f"{BASE}/rebalances/{WEEK}", limit=5000)["data"]}
    panel = api.ok(f"{BASE}/scores", limit=5000, **{"from": WEEK, "to": WEEK})["data"]
    assert {r["symbol"] for r in panel} == set(cross)
    for row in panel:
        assert row["score"] == cross[row["symbol"]]["score"]
        assert row["average_rank"] == cross[row["symbol"]]["average_rank"]


def test_unsealed_fields_are_omitted_and_nulls_explicit(api: Api) -> None:
    rows = api.all_pages("/v1/alphas/momentum_12_1/scores", limit=5000, fields="all")
    assert all("fill_at" in r and "forward_return" in r for r in rows)
    assert any(r["forward_return"] is None for r in rows), "pending weeks have null forward returns"
