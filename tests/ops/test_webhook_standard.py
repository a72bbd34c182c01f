"""Webhooks as the Standard Webhooks specification recommends ("Deliverability and reliability",
"Delivery success and failure"; issue 60, item 7), each asserted against a fault-injecting receiver
on loopback and the real `alpha-results deliver` process, on SQLite and PostgreSQL: a 410 disables
the endpoint at once, `Retry-After` is honoured, 429/502/504 throttle the webhook's later
deliveries, the retry schedule is the specification's, jittered, over days, and an operator
replays a range of events.

Times asserted are the worker's own records (when it attempted, when it will try next): lower
bounds its scheduling makes, which a slow machine only lengthens; nothing measures a duration.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json

import pytest

from delivery.deliveries import STANDARD_DELAYS, Schedule, retry_after_seconds
from tests.identity.conftest import postgres_schema_url, store_url
from tests.ops.webhook_receiver import receiving
from tests.support.webhooks import World, delivered_ids, world

__all__ = ["postgres_schema_url", "store_url", "world"]


def attempted(attempt: dict[str, object]) -> dt.datetime:
    return dt.datetime.fromisoformat(str(attempt["attempted_at"]).replace("Z", "+00:00"))


def next_at(attempt: dict[str, object]) -> dt.datetime:
    return dt.datetime.fromisoformat(str(attempt["next_attempt_at"]).replace("Z", "+00:00"))


def test_a_410_disables_the_endpoint_at_once(world: World) -> None:
    """Before, a receiver's 410 Gone was a failure like any other, retried for a day."""
    member = world.key()
    with receiving() as receiver:
        # Gone for good, as a real receiver is: an attempt whose outcome the worker could not record
        # (a statement past its deadline on a loaded database) is made again and meets 410 again.
        receiver.paths["/hook"] = 410
        hook = world.add(member.key_id, receiver.url())
        world.append("alpha.published", "Test_planted_factor")
        world.append("alpha.published", "Test_planted_factor")
        worker = world.start()
        world.wait_until(lambda: world.webhook(hook["id"])["state"] == "disabled", "the webhook disabled")
        assert world.stop(worker) == 0, world.logs()
    attempts = world.attempts(hook["id"])
    # At once: the first 410 recorded ends the deliveries; nothing is sent after it (the second
    # event never), whatever attempts went unrecorded before it.
    assert [(a["outcome"], a["http_status"], a["next_attempt_at"]) for a in attempts] == [
        ("failed", 410, None)
    ]
    sent = receiver.on("/hook")
    assert len({r.headers["webhook-id"] for r in sent}) == 1, "the second event was sent after the 410"
    shown = world.webhook(hook["id"])
    assert shown["reason"].startswith("the receiver answered 410 Gone: it wants no more deliveries")
    rows, _ = world.records.webhooks._database.execute(
        "SELECT key_id FROM events WHERE type = 'webhook.disabled'"
    )
    assert [row[0] for row in rows] == [member.key_id]  # its key told


@pytest.mark.parametrize("retry_after", ["7", "date"])
def test_retry_after_is_honoured(world: World, retry_after: str) -> None:
    """A 503 with `Retry-After` (seconds, or an HTTP date) is tried again no sooner than it asks,
    where the schedule alone (the test worker's 0.2 s) would have retried at once."""
    member = world.key()
    value = (
        "7"
        if retry_after == "7"
        else email.utils.format_datetime(dt.datetime.now(dt.UTC) + dt.timedelta(seconds=120), usegmt=True)
    )
    with receiving() as receiver:
        receiver.plan.append((503, {"Retry-After": value}))
        hook = world.add(member.key_id, receiver.url())
        world.append("alpha.published", "Test_planted_factor")
        worker = world.start()
        world.wait_until(lambda: len(world.attempts(hook["id"])) >= 1, "the first attempt")
        assert world.stop(worker) == 0, world.logs()
    [failed] = world.attempts(hook["id"])
    assert failed["http_status"] == 503
    # 7 s from the answer; the date 120 s from before the worker started (it starts in seconds).
    assert (next_at(failed) - attempted(failed)).total_seconds() >= (6.0 if retry_after == "7" else 60.0)


def test_throttling_answers_pace_the_webhooks_later_deliveries(world: World) -> None:
    """429, 502 and 504 say the receiver is overloaded: after one, at most one delivery per pace
    (0.5 s here, doubling with each further one, halving with each delivery). Before, the next
    events went out as fast as the receiver answered."""
    member = world.key()
    with receiving() as receiver:
        receiver.plan.extend([429, 502, 200, 200, 504, 200, 200])
        hook = world.add(member.key_id, receiver.url())
        for _ in range(5):
            world.append("alpha.published", "Test_planted_factor")
        worker = world.start("--throttle", "0.5")
        receiver.wait_for(lambda r: len(r.on("/hook")) >= 7, "seven attempts")
        world.wait_until(
            lambda: len([a for a in world.attempts(hook["id"]) if a["outcome"] == "delivered"]) == 5,
            "five deliveries recorded",
        )
        assert world.stop(worker) == 0, world.logs()
    attempts = world.attempts(hook["id"])
    statuses = [a["http_status"] for a in attempts]
    assert statuses == [429, 502, 200, 200, 504, 200, 200, 200]
    # The pace after each answer: 429 -> 0.5, 502 -> 1, 200 -> 0.5, 200 -> 0.25, 504 -> 0.5, 200 -> 0.25,
    # 200 -> 0.125.
    paces = [0.5, 1.0, 0.5, 0.25, 0.5, 0.25, 0.125]
    for before, after, pace in zip(attempts, attempts[1:], paces, strict=False):
        gap = (attempted(after) - attempted(before)).total_seconds()
        assert gap >= pace, (before, after, pace)
    # Each throttled event was delivered all the same, in order.
    assert len(set(delivered_ids(receiver))) == 5


def test_the_retry_schedule_is_the_specifications_jittered_over_days() -> None:
    schedule = Schedule()
    assert schedule.delays == STANDARD_DELAYS == (5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
    assert schedule.window == sum(STANDARD_DELAYS) > 3 * 86400  # about 75.7 h of trying
    for failures, step in enumerate((*STANDARD_DELAYS, 86400.0), start=1):
        assert schedule.delay(failures, lambda: 0.0) == pytest.approx(step * 0.8)
        assert schedule.delay(failures, lambda: 1.0) == pytest.approx(step * 1.2)
    waits = {round(schedule.delay(3), 3) for _ in range(50)}
    assert len(waits) > 40 and all(1440 <= w <= 2160 for w in waits)  # spread, never outside the band
    assert Schedule.doubling(0.2, 0.4, 10.0).delays == (0.2, 0.4)
    assert Schedule.doubling(30, 3600, 86400).delays == (30, 60, 120, 240, 480, 960, 1920, 3600)


def test_retry_after_reads_seconds_and_dates() -> None:
    now = 1_800_000_000.0
    date = email.utils.formatdate(now + 120, usegmt=True)
    assert retry_after_seconds("120", now) == 120.0
    assert retry_after_seconds(date, now) == pytest.approx(120.0)
    assert retry_after_seconds(email.utils.formatdate(now - 60, usegmt=True), now) == 0.0
    assert retry_after_seconds("soon", now) is None and retry_after_seconds(None) is None
    assert retry_after_seconds("9" * 400, now) is not None  # read whole as a large number, then capped


def test_an_operator_replays_a_range_of_events_then_delivery_resumes(world: World) -> None:
    member = world.key()
    with receiving() as receiver:
        hook = world.add(member.key_id, receiver.url())
        events = [world.append("alpha.published", "Test_planted_factor") for _ in range(5)]
        worker = world.start()
        receiver.wait_for(lambda r: len(r.on("/hook")) >= 5, "five deliveries")
        world.wait_until(
            lambda: world.webhook(hook["id"])["delivered_through"] == events[-1].id, "all recorded"
        )
        cursors = [world.records.cursors.write(e.id) for e in events]
        code, out, err = world.cli(
            "webhooks", "replay", hook["id"], "--from", cursors[1], "--to", cursors[3], "--by", "ops"
        )
        assert code == 0, err
        assert json.loads(out)["delivered_through"] == events[0].id
        world.wait_until(lambda: len(receiver.on("/hook")) >= 8, "the replayed three")
        later = world.append("alpha.published", "Test_planted_factor")
        receiver.wait_for(lambda r: len(r.on("/hook")) >= 9, "the next event")
        world.wait_until(
            lambda: world.webhook(hook["id"])["delivered_through"] == later.id,
            "the progress past the new event",
        )
        assert world.stop(worker) == 0, world.logs()
    assert delivered_ids(receiver) == [*cursors, *cursors[1:4], world.records.cursors.write(later.id)]
    assert world.records.webhooks.replay_of(hook["id"]) is None
    # A cursor that is none of this deployment's, or a range backwards, is refused.
    assert world.cli("webhooks", "replay", hook["id"], "--from", "f" * 32)[0] == 1
    code, _, err = world.cli("webhooks", "replay", hook["id"], "--from", cursors[3], "--to", cursors[1])
    assert code == 1 and "the range is empty" in err
