"""Issue 81, item 1: a key without raw-book access is served no raw book through a build's
restatements, as through every other route (`schemas.wire.book_visible`, the one rule): not the
rows of `/v1/alphas/{alpha}/restatements`, not their count in a window answer's `restated`
warning, not their values in the `alpha.restated` event the feed, the stream and webhooks serve
(`delivery.event_answers.shown_data`). The demo restated momentum_12_1's run, raw books included."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from delivery.event_answers import EVERYTHING, Viewer, shown_data
from records.store import open_records
from schemas.query import LIMIT_MAX
from tests.analytics.conftest import serving
from tests.api.conftest import Api
from tests.callers import DATA_IDS, make_caller
from tests.conftest import records_of

ALPHA = "momentum_12_1"
RAW_BOOKS = ("raw_long_short", "raw_long_only")


def restated_count(body: dict[str, Any]) -> int:
    """The count a window answer's `restated` warning states (0 without one)."""
    for warning in body["meta"].get("warnings", []):
        if warning["code"] == "restated":
            found = re.match(r"(\d+) value\(s\)", warning["message"])
            assert found, warning
            return int(found.group(1))
    return 0


def test_the_issue_s_report_a_raw_off_key_reads_no_raw_book_s_restatements(api: Api) -> None:
    path = f"/v1/alphas/{ALPHA}/restatements"
    everything = api.all_pages(path, 500, "raw")
    raw_rows = [row for row in everything if row["book"] in RAW_BOOKS]
    assert raw_rows, "the demo restates the raw books too: the control that makes this test able to fail"
    plain = api.all_pages(path, 500, "plain")
    assert [row for row in plain if row["book"] in RAW_BOOKS] == []
    # The same rows otherwise, in the same order, with their values.
    assert plain == [row for row in everything if row["book"] not in RAW_BOOKS]
    # As /portfolio answers it: for this key a raw book does not exist.
    api.error(f"/v1/alphas/{ALPHA}/portfolio", 400, "unknown_book", "plain", book="raw_long_short")


def test_a_window_answer_s_restated_warning_counts_no_raw_book_for_a_raw_off_key(api: Api) -> None:
    everything = api.all_pages(f"/v1/alphas/{ALPHA}/restatements", 500, "raw")
    raw_count = sum(row["book"] in RAW_BOOKS for row in everything)
    path = f"/v1/alphas/{ALPHA}/portfolio"
    assert restated_count(api.ok(path, "raw", book="long_short")) == len(everything)
    assert restated_count(api.ok(path, "plain", book="long_short")) == len(everything) - raw_count


def test_the_restated_event_carries_no_raw_book_to_a_raw_off_key(demo_lake: Path) -> None:
    records = open_records(f"sqlite:///{records_of(demo_lake)}", create=False)
    try:
        event = records.events.latest(ALPHA, ("alpha.restated",))
    finally:
        records.close()
    assert event is not None
    whole = shown_data(event.data, EVERYTHING)
    raw_seen = [row for row in whole["raw_books"]["restated"] if row["book"] in RAW_BOOKS]
    assert raw_seen and all(row["book"] not in RAW_BOOKS for row in whole["restated"])
    plain = shown_data(event.data, Viewer(lambda _: True, every_alpha=True, raw=False))
    assert "raw_books" not in plain
    assert not any(name in str(plain) for name in RAW_BOOKS)
    assert plain["count"] == whole["count"] == len(whole["restated"])
    # The feed, the stream and webhooks serve it by this (`event_answer`): through the real server,
    # tests/e2e/test_raw_off_key_served.py.


def test_an_event_recorded_before_raw_books_were_kept_apart_is_cut_for_a_raw_off_key() -> None:
    rows = [
        {
            "dataset": "portfolio",
            "book": book,
            "date": f"2021-01-0{day}",
            "field": "return",
            "period": None,
            "symbol": None,
            "before": 0.01,
            "after": 0.02,
            "names_changed": None,
        }
        for day, book in ((4, "raw_long_short"), (5, "long_short"), (6, "raw_long_only"))
    ]
    old = {
        "build_id": "b2",
        "previous_build_id": "b1",
        "count": 3,
        "first_date": "2021-01-04",
        "last_date": "2021-01-06",
        "restated": rows,
    }
    plain = shown_data(old, Viewer(lambda _: True, every_alpha=True, raw=False))
    assert plain["restated"] == [rows[1]]
    assert (plain["count"], plain["first_date"], plain["last_date"]) == (1, "2021-01-05", "2021-01-05")
    assert shown_data(old, EVERYTHING) == old


def test_the_restated_event_withholds_the_values_the_restatements_route_withholds(demo_lake: Path) -> None:
    """A key that may call the restatements route but may not read the ledger is served a portfolio
    restatement's date and field, not its values, on the route; the `alpha.restated` event the feed
    serves asks the same rule (`analytics.restatements.withheld_reason`), its raw books' rows too."""
    callers = {
        "raw": make_caller(expose_raw_book=True),
        "noledger": make_caller(endpoints=DATA_IDS - {"portfolio.ledger"}, expose_raw_book=True),
    }
    with serving(demo_lake, callers) as api:
        route = api.ok(f"/v1/alphas/{ALPHA}/restatements", "noledger", limit=LIMIT_MAX)
        control = api.ok("/v1/events", "raw", type="alpha.restated", alpha=ALPHA, limit=100)["data"]
        events = api.ok("/v1/events", "noledger", type="alpha.restated", alpha=ALPHA, limit=100)["data"]
    assert not route["pagination"]["has_more"]
    withheld = {row["withheld_reason"] for row in route["data"] if row["dataset"] == "portfolio"}
    assert withheld == {"access_limited: built from the ledger, which this key may not read"}
    assert all(
        row["before"] is None and row["after"] is None for row in route["data"] if row["withheld_reason"]
    )
    # The control: the same event carries the values to a key that reads the ledger.
    assert any(row["before"] is not None for e in control for row in e["data"]["restated"])
    rows = [row for e in events for row in e["data"]["restated"] + e["data"]["raw_books"]["restated"]]
    assert any(row["book"] in RAW_BOOKS for row in rows), "the raw books' values too"
    reasons = {
        (r["dataset"], r["book"], r["date"], r["field"], r["period"]): r["withheld_reason"]
        for r in route["data"]
    }
    for row in rows:
        why = reasons[(row["dataset"], row["book"], row["date"], row["field"], row["period"])]
        assert row.get("withheld_reason") == why, row
        if why is not None:
            assert (row["symbol"], row["before"], row["after"]) == (None, None, None), row
