"""Promotions are an append-only history whose every record follows from the one before."""

from __future__ import annotations

import datetime as dt

import pytest

from records.promotions import PromotionRefused
from records.store import Records, open_records

SNAPSHOT = {
    "policy": {"min_information_ratio": 0.5},
    "checks": [{"id": "information_ratio", "verdict": "pass"}],
}


def approve(records: Records, alpha: str, day: str, by: str = "head of research") -> None:
    records.decide(alpha, "approved", dt.date.fromisoformat(day), by, "strong OOS", "b1", SNAPSHOT)


def test_a_history_is_kept_in_order_with_what_was_seen(records: Records) -> None:
    approve(records, "momentum_12_1", "2022-01-03")
    records.decide(
        "momentum_12_1", "retired", dt.date(2022, 6, 1), "risk", "decayed", "b2", {"reason": "decay"}
    )
    approve(records, "momentum_12_1", "2022-09-01")
    history = records.promotions.history("momentum_12_1")
    assert [(p.action, p.as_of.isoformat(), p.build_id) for p in history] == [
        ("approved", "2022-01-03", "b1"),
        ("retired", "2022-06-01", "b2"),
        ("approved", "2022-09-01", "b1"),
    ]
    assert (
        history[0].snapshot == SNAPSHOT and history[1].note == "decayed" and history[1].decided_by == "risk"
    )
    assert [p.id for p in history] == sorted(p.id for p in history)
    assert records.promotions.history("value_composite_legacy") == []


def test_a_decision_must_follow_from_the_last(records: Records) -> None:
    with pytest.raises(PromotionRefused, match="not approved"):
        records.decide("x", "retired", dt.date(2022, 1, 1), "me", "", "b", {})
    approve(records, "x", "2022-03-01")
    with pytest.raises(PromotionRefused, match="already approved"):
        approve(records, "x", "2022-04-01")
    with pytest.raises(PromotionRefused, match="before the last decision"):
        records.decide("x", "retired", dt.date(2022, 2, 1), "me", "", "b", {})
    with pytest.raises(PromotionRefused, match="who decided"):
        records.decide("y", "approved", dt.date(2022, 2, 1), "  ", "", "b", {})
    assert len(records.promotions.history("x")) == 1  # the refused ones left nothing


def test_the_standing_is_each_alphas_latest_decision(records: Records) -> None:
    assert records.promotions.standing() == {} and records.promotions.version() == 0
    approve(records, "a", "2022-01-03")
    approve(records, "b", "2022-01-04")
    records.decide("a", "retired", dt.date(2022, 2, 1), "me", "", "b1", {})
    standing = records.promotions.standing()
    assert {alpha: p.action for alpha, p in standing.items()} == {"a": "retired", "b": "approved"}
    assert records.promotions.version() == max(p.id for p in standing.values())


def test_two_processes_see_one_history(store_url: str) -> None:
    first, second = open_records(store_url), open_records(store_url)
    try:
        approve(first, "a", "2022-01-03")
        assert [p.action for p in second.promotions.history("a")] == ["approved"]
    finally:
        first.close()
        second.close()


def test_a_decision_and_its_event_are_written_together_or_not_at_all(records: Records) -> None:
    promotion, event = records.decide("a", "approved", dt.date(2022, 1, 3), "me", "go", "b1", SNAPSHOT)
    assert event.type == "alpha.approved" and event.alpha_id == "a"
    assert event.data == {
        "action": "approved",
        "as_of": "2022-01-03",
        "decided_by": "me",
        "note": "go",
        "build_id": "b1",
    }
    assert records.promotions.history("a") == [promotion]
    with pytest.raises(PromotionRefused):
        records.decide("a", "approved", dt.date(2022, 1, 4), "me", "", "b1", SNAPSHOT)
    assert records.events.last_id() == event.id  # the refused decision caused no event
    # A transaction whose second statement fails leaves nothing of the first.
    insert = records.promotions.statement("b", "approved", dt.date(2022, 1, 3), "me", "", "b1", {})
    with pytest.raises(Exception):  # noqa: B017 (the backend's own error for a missing table)
        records.database.transaction([insert, ("INSERT INTO no_such_table VALUES (1)", ())])
    assert records.promotions.history("b") == []
