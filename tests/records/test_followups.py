"""Catalogue follow-ups (records.followups, issue 79 item 5): recorded with the decision that leaves
them, pending until an attempt succeeds, each failed attempt counted with its error."""

from __future__ import annotations

import datetime as dt

import pytest

from records.promotions import PromotionRefused
from records.store import Records

DAY = dt.date(2022, 1, 3)
NOON = dt.datetime(2022, 1, 3, 12, tzinfo=dt.UTC)


def decide_with_followup(records: Records, alpha: str, now: dt.datetime = NOON) -> None:
    records.decide(
        alpha,
        "approved",
        now.date(),
        "me",
        "",
        "b1",
        {},
        now=now,
        consequences=[records.followups.statement(alpha, "alpha.approved", now=now)],
    )


def test_a_followup_is_written_with_its_decision_or_not_at_all(records: Records) -> None:
    decide_with_followup(records, "a")
    [pending] = records.followups.pending()
    assert (pending.alpha_id, pending.cause, pending.recorded_at) == ("a", "alpha.approved", NOON)
    assert (pending.attempts, pending.last_attempt_at, pending.error, pending.done_at) == (
        0,
        None,
        None,
        None,
    )
    assert records.followups.pending_count() == 1
    with pytest.raises(PromotionRefused):  # already approved: neither the decision nor its follow-up
        decide_with_followup(records, "a")
    assert records.followups.pending_count() == 1


def test_a_failed_attempt_stays_pending_until_one_succeeds(records: Records) -> None:
    decide_with_followup(records, "a")
    decide_with_followup(records, "b")
    ids = [f.id for f in records.followups.pending()]
    later = NOON + dt.timedelta(minutes=5)
    records.followups.failed(ids, "OSError: No space left on device", now=later)
    records.followups.failed(ids[:1], "OSError: No space left on device", now=later)
    found = {f.alpha_id: f for f in records.followups.pending()}
    assert (found["a"].attempts, found["b"].attempts) == (2, 1)
    assert found["a"].error == "OSError: No space left on device"
    assert found["a"].last_attempt_at == later
    assert "2 attempt(s)" in found["a"].line() and "No space left on device" in found["a"].line()
    done_at = later + dt.timedelta(minutes=1)
    records.followups.done(ids, now=done_at)
    assert records.followups.pending() == []
    assert records.followups.pending_count() == 0
    [a] = records.followups.history("a")
    assert (a.attempts, a.error, a.done_at) == (3, None, done_at)
    records.followups.failed(ids, "too late", now=done_at)  # a done follow-up is not reopened
    assert records.followups.pending_count() == 0
