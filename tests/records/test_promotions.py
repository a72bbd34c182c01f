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


def at(day: str | dt.date) -> dt.datetime:
    """Noon UTC of `day`: a decision is dated the day it is recorded, so a test records it then."""
    return dt.datetime.combine(dt.date.fromisoformat(str(day)), dt.time(12), tzinfo=dt.UTC)


def decide(
    records: Records,
    alpha: str,
    action: str,
    day: str,
    by: str = "me",
    note: str = "",
    build: str = "b",
    snapshot: dict | None = None,
) -> object:
    return records.decide(
        alpha, action, dt.date.fromisoformat(day), by, note, build, snapshot or {}, now=at(day)
    )  # type: ignore[arg-type]


def approve(records: Records, alpha: str, day: str, by: str = "head of research") -> None:
    records.decide(
        alpha, "approved", dt.date.fromisoformat(day), by, "strong OOS", "b1", SNAPSHOT, now=at(day)
    )


def test_a_history_is_kept_in_order_with_what_was_seen(records: Records) -> None:
    approve(records, "momentum_12_1", "2022-01-03")
    records.decide(
        "momentum_12_1",
        "retired",
        dt.date(2022, 6, 1),
        "risk",
        "decayed",
        "b2",
        {"reason": "decay"},
        now=at("2022-06-01"),
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
        decide(records, "x", "retired", "2022-01-01")
    approve(records, "x", "2022-03-01")
    with pytest.raises(PromotionRefused, match="already approved"):
        approve(records, "x", "2022-04-01")
    with pytest.raises(PromotionRefused, match="before the last decision"):
        # An import of a retirement taken elsewhere before the approval: still refused.
        records.decide(
            "x",
            "retired",
            dt.date(2022, 2, 1),
            "me",
            "",
            "b",
            {"imported_from": "minutes"},
            now=at("2022-04-01"),
        )
    with pytest.raises(PromotionRefused, match="who decided"):
        decide(records, "y", "approved", "2022-02-01", by="  ")
    assert len(records.promotions.history("x")) == 1  # the refused ones left nothing


def test_a_decision_is_dated_the_day_it_is_recorded_earlier_only_as_a_labelled_import(
    records: Records,
) -> None:
    today = at("2022-05-10")
    with pytest.raises(PromotionRefused, match="after today"):
        records.decide("x", "approved", dt.date(2022, 5, 11), "me", "", "b", {}, now=today)
    with pytest.raises(PromotionRefused, match="--import"):
        records.decide("x", "approved", dt.date(2022, 3, 1), "me", "", "b", {}, now=today)
    imported = {"imported_from": "committee minutes, 2022-03-01"}
    promotion, event = records.decide(
        "x", "approved", dt.date(2022, 3, 1), "me", "", "b", imported, now=today
    )
    assert promotion.as_of == dt.date(2022, 3, 1) and promotion.recorded_at == today
    assert promotion.imported_from == "committee minutes, 2022-03-01"
    assert event.data["imported_from"] == "committee minutes, 2022-03-01"


def test_a_nomination_waits_until_a_decision_follows_it(records: Records) -> None:
    records.nominate("x", "b1", "seal", "ready for review", now=at("2022-01-01"))
    read = records.decisions_in_force()
    assert read.nominations["x"].nominated_by == "seal" and read.latest == {}
    assert records.version() == (0, 1)
    approve(records, "x", "2022-01-03")
    assert records.decisions_in_force().latest["x"].action == "approved"


def test_the_standing_is_each_alphas_latest_decision(records: Records) -> None:
    assert records.promotions.standing() == {} and records.promotions.version() == 0
    approve(records, "a", "2022-01-03")
    approve(records, "b", "2022-01-04")
    decide(records, "a", "retired", "2022-02-01", build="b1")
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
    promotion, event = records.decide(
        "a", "approved", dt.date(2022, 1, 3), "me", "go", "b1", SNAPSHOT, now=at("2022-01-03")
    )
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
        records.decide("a", "approved", dt.date(2022, 1, 4), "me", "", "b1", SNAPSHOT, now=at("2022-01-04"))
    assert records.events.last_id() == event.id  # the refused decision caused no event
    # A transaction whose second statement fails leaves nothing of the first.
    insert = records.promotions.statement(
        "b", "approved", dt.date(2022, 1, 3), "me", "", "b1", {}, now=at("2022-01-03")
    )
    with pytest.raises(Exception):  # noqa: B017 (the backend's own error for a missing table)
        records.database.transaction([insert, ("INSERT INTO no_such_table VALUES (1)", ())])
    assert records.promotions.history("b") == []
