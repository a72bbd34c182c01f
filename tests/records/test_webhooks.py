"""Webhooks in the records, on both backends: registration, the progress that only moves forward,
the append-only attempts, and the lease that fences every write of the delivery worker."""

from __future__ import annotations

import datetime as dt

from records.event_log import EventScope, Reader, Wanted
from records.store import Records
from records.webhooks import Lease, Tried, Webhook

T0 = dt.datetime(2026, 11, 25, 18, 0, tzinfo=dt.UTC)
A = Lease("worker-a", 30.0)
B = Lease("worker-b", 30.0)


def register(records: Records, key_id: str = "k1", **filters: tuple[str, ...]) -> Webhook:
    return records.webhooks.register(
        key_id,
        "https://example.com/hook",
        "whsec_test",
        filters.get("types", ()),
        filters.get("alphas", ()),
        "a note",
        "operator",
    )


def tried(
    webhook: Webhook, event_id: int, outcome: str = "delivered", attempt: int = 1, **more: object
) -> Tried:
    return Tried(webhook.id, event_id, attempt, dt.datetime.now(dt.UTC), outcome, **more)  # type: ignore[arg-type]


def test_a_webhook_starts_at_the_newest_event_and_is_listed_without_removed_ones(records: Records) -> None:
    records.events.append("alpha.published", {}, alpha_id="a")
    before = records.events.append("alpha.published", {}, alpha_id="a")
    first = register(records, types=("alpha.published", "alpha.decay"), alphas=("a",))
    assert first.progress.delivered_through == before.id
    assert (first.types, first.alphas, first.state, first.secret) == (
        ("alpha.published", "alpha.decay"),
        ("a",),
        "active",
        "whsec_test",
    )
    second = register(records, key_id="k2")
    assert [w.id for w in records.webhooks.listed()] == [first.id, second.id]
    assert [w.id for w in records.webhooks.listed("k2")] == [second.id]

    assert records.webhooks.set_state(second.id, "removed", "removed by the operator")
    assert [w.id for w in records.webhooks.listed()] == [first.id]
    removed = records.webhooks.get(second.id)
    assert removed is not None and removed.state == "removed" and removed.secret == ""  # the secret is gone
    assert [w.id for w in records.webhooks.listed(include_removed=True)] == [first.id, second.id]
    # A removed webhook stays removed; an unknown one changes nothing.
    assert not records.webhooks.set_state(second.id, "active", "enabled")
    assert not records.webhooks.set_state("wh_unknown", "disabled", "x")
    assert [w.id for w in records.webhooks.active()] == [first.id]


def test_next_event_follows_the_filters_and_never_another_keys_events(records: Records) -> None:
    webhook = register(records, key_id="k1", types=("alpha.published", "webhook.disabled", "build.refused"))
    records.events.append("alpha.retired", {}, alpha_id="a")  # not a type it wants
    records.events.append("webhook.disabled", {}, audience="key", key_id="k2")  # another key's
    mine = records.events.append("webhook.disabled", {}, audience="key", key_id="k1")
    refused = records.events.append("build.refused", {}, audience="admin")
    published = records.events.append("alpha.published", {}, alpha_id="a")
    seen = []
    through = records.events.last_id()
    while (event := records.webhooks.next_event(webhook, through)) is not None:
        seen.append(event.id)
        assert records.webhooks.take_lease(A, dt.datetime.now(dt.UTC))
        assert records.webhooks.finish(A, tried(webhook, event.id))
        webhook = records.webhooks.get(webhook.id)  # type: ignore[assignment]
    # The administrators' event is offered (the worker decides, by the key, whether to send it).
    assert seen == [mine.id, refused.id, published.id]
    # Only up to `through` (the worker's horizon).
    later = records.events.append("alpha.published", {}, alpha_id="a")
    assert records.webhooks.next_event(webhook, later.id - 1) is None
    assert records.webhooks.next_event(webhook, later.id) is not None
    only_b = register(records, alphas=("b",))
    records.events.append("alpha.published", {}, alpha_id="a")
    b_event = records.events.append("alpha.published", {}, alpha_id="b")
    found = records.webhooks.next_event(only_b, b_event.id)
    assert found is not None and found.id == b_event.id


def test_the_lease_is_held_by_one_worker_until_it_expires(records: Records) -> None:
    assert records.webhooks.take_lease(A, T0)
    assert not records.webhooks.take_lease(B, T0 + dt.timedelta(seconds=29))
    assert records.webhooks.take_lease(A, T0 + dt.timedelta(seconds=29))  # renewed: 30 s from now
    assert not records.webhooks.take_lease(B, T0 + dt.timedelta(seconds=58))
    assert records.webhooks.take_lease(B, T0 + dt.timedelta(seconds=60))  # expired: taken over
    assert not records.webhooks.take_lease(A, T0 + dt.timedelta(seconds=61))
    holder = records.webhooks.lease_holder()
    assert holder is not None and holder[0] == "worker-b"
    records.webhooks.release_lease(A)  # not A's: nothing happens
    assert records.webhooks.lease_holder() is not None
    records.webhooks.release_lease(B)
    assert records.webhooks.lease_holder() is None
    assert records.webhooks.take_lease(A, T0)


def test_a_worker_that_lost_the_lease_writes_nothing(records: Records) -> None:
    webhook = register(records)
    event = records.events.append("alpha.published", {}, alpha_id="a")
    far = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    assert records.webhooks.take_lease(A, dt.datetime.now(dt.UTC))
    assert records.webhooks.take_lease(B, far)  # A stalled past its lease; B took over
    assert not records.webhooks.finish(A, tried(webhook, event.id))
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=30)
    assert not records.webhooks.retry_later(
        A, tried(webhook, event.id, "failed", error="HTTP 500", next_attempt_at=later), T0
    )
    assert not records.webhooks.give_up(
        A,
        tried(webhook, event.id, "failed", error="HTTP 500"),
        webhook,
        "failing",
        {"webhook_id": webhook.id},
    )
    unchanged = records.webhooks.get(webhook.id)
    assert unchanged is not None and unchanged.progress == webhook.progress and unchanged.state == "active"
    assert records.webhooks.attempts(webhook.id) == []
    assert records.events.last_id() == event.id  # no webhook.disabled
    assert records.webhooks.finish(B, tried(webhook, event.id))


def test_progress_only_moves_forward_and_retries_are_remembered(records: Records) -> None:
    webhook = register(records)
    first = records.events.append("alpha.published", {}, alpha_id="a")
    second = records.events.append("alpha.published", {}, alpha_id="a")
    assert records.webhooks.take_lease(A, dt.datetime.now(dt.UTC))
    next_at = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=30)
    failed = tried(webhook, first.id, "failed", http_status=500, error="HTTP 500", next_attempt_at=next_at)
    assert records.webhooks.retry_later(A, failed, T0)
    progress = records.webhooks.get(webhook.id).progress  # type: ignore[union-attr]
    assert (progress.pending_event, progress.failures, progress.failing_since) == (first.id, 1, T0)
    assert progress.next_attempt_at == next_at
    assert records.webhooks.finish(A, tried(webhook, second.id))
    # A late report about the first event (a duplicate delivery) is recorded, and cannot move the
    # progress back.
    assert records.webhooks.finish(A, tried(webhook, first.id, attempt=2))
    progress = records.webhooks.get(webhook.id).progress  # type: ignore[union-attr]
    assert (progress.delivered_through, progress.pending_event, progress.failures) == (second.id, None, 0)
    # Every attempt is kept, in order (the late one too: it happened).
    kept = records.webhooks.attempts(webhook.id)
    assert [(a.event_id, a.attempt, a.outcome, a.http_status) for a in kept] == [
        (first.id, 1, "failed", 500),
        (second.id, 1, "delivered", None),
        (first.id, 2, "delivered", None),
    ]
    assert [a.event_id for a in records.webhooks.attempts(webhook.id, limit=2)] == [second.id, first.id]
    assert {a.worker for a in kept} == {"worker-a"}


def test_giving_up_disables_and_tells_only_the_key_once(records: Records) -> None:
    webhook = register(records, key_id="k1")
    event = records.events.append("alpha.published", {}, alpha_id="a")
    assert records.webhooks.take_lease(A, dt.datetime.now(dt.UTC))
    last = tried(webhook, event.id, "failed", attempt=30, error="connect: connection refused")
    said = {"webhook_id": webhook.id, "reason": "no 2xx"}
    assert records.webhooks.give_up(A, last, webhook, "no 2xx for a day", said)
    disabled = records.webhooks.get(webhook.id)
    assert disabled is not None and (disabled.state, disabled.reason) == ("disabled", "no 2xx for a day")
    assert disabled.progress.delivered_through == webhook.progress.delivered_through  # the event is not done
    told = records.events.page(
        Reader(scopes=(EventScope(everything=True),), key_id="k1"), Wanted(after=event.id)
    )
    assert [(e.type, e.audience, e.key_id, e.data) for e in told.events] == [
        ("webhook.disabled", "key", "k1", said)
    ]
    assert (
        records.events.page(
            Reader(scopes=(EventScope(everything=True),), admin=True, key_id="k2"), Wanted(after=event.id)
        ).events
        == []
    )
    # Already disabled (by the operator, or another report): no second event.
    assert not records.webhooks.give_up(A, last, webhook, "no 2xx for a day", said)
    assert records.events.last_id() == told.events[0].id
    # Enabling clears the retry state; the event is tried again.
    assert records.webhooks.set_state(webhook.id, "active", "enabled by the operator")
    enabled = records.webhooks.get(webhook.id)
    assert enabled is not None and enabled.state == "active" and enabled.progress.failures == 0
    records.webhooks.skip_to_now(webhook.id)
    skipped = records.webhooks.get(webhook.id)
    assert skipped is not None and skipped.progress.delivered_through == records.events.last_id()


def test_old_attempts_go_with_the_retention(records: Records) -> None:
    webhook = register(records)
    event = records.events.append("alpha.published", {}, alpha_id="a")
    assert records.webhooks.take_lease(A, dt.datetime.now(dt.UTC))
    old = Tried(webhook.id, event.id, 1, T0 - dt.timedelta(days=100), "failed", error="x",
                next_attempt_at=T0)  # fmt: skip
    assert records.webhooks.retry_later(A, old, old.at)
    assert records.webhooks.finish(A, tried(webhook, event.id, attempt=2))
    assert records.webhooks.purge_attempts(T0 - dt.timedelta(days=90)) == 1
    assert [a.attempt for a in records.webhooks.attempts(webhook.id)] == [2]


def test_registrations_get_distinct_ids(records: Records) -> None:
    ids = {register(records).id for _ in range(3)}
    assert len(ids) == 3 and all(i.startswith("wh_") for i in ids)


def test_a_rotation_keeps_the_old_key_signing_until_it_retires(records: Records) -> None:
    """The keys a delivery is signed with (`signing_keys`): the current secret, a replaced one
    until its `retires_at`, the Ed25519 keys; a rotation written whole, a removal taking them all."""
    webhook = records.webhooks.register(
        "k1", "https://example.com/hook", "whsec_first", (), (), "", "operator", private_key="whsk_first"
    )
    assert [(k.scheme, k.secret, k.retires_at) for k in records.webhooks.signing_keys(webhook.id, T0)] == [
        ("v1", "whsec_first", None),
        ("v1a", "whsk_first", None),
    ]
    later = T0 + dt.timedelta(hours=1)
    assert records.webhooks.rotate(webhook.id, "v1", "whsec_second", later, T0)
    assert records.webhooks.rotate(webhook.id, "v1a", "whsk_second", later, T0)
    rotated = records.webhooks.get(webhook.id)
    assert rotated is not None and rotated.secret == "whsec_second"  # the current one, as before
    assert [(k.scheme, k.secret, k.retires_at) for k in records.webhooks.signing_keys(webhook.id, T0)] == [
        ("v1", "whsec_second", None),
        ("v1", "whsec_first", later),
        ("v1a", "whsk_second", None),
        ("v1a", "whsk_first", later),
    ]
    # Retired: no longer signing, and deleted at the next rotation (an overlap of 0: at once).
    assert [k.secret for k in records.webhooks.signing_keys(webhook.id, later)] == [
        "whsec_second",
        "whsk_second",
    ]
    assert records.webhooks.rotate(webhook.id, "v1", "whsec_third", later, later)
    assert [k.secret for k in records.webhooks.signing_keys(webhook.id, later)] == [
        "whsec_third",
        "whsk_second",
    ]
    stored, _ = records.database.execute(
        "SELECT secret FROM webhook_signing_keys WHERE webhook_id = ? ORDER BY id", (webhook.id,)
    )
    assert [row[0] for row in stored] == ["whsk_second"]
    # A webhook without an Ed25519 key gets one by rotating it; a removed one keeps no key.
    plain = register(records)
    assert records.webhooks.rotate(plain.id, "v1a", "whsk_new", T0, T0)
    assert [k.scheme for k in records.webhooks.signing_keys(plain.id, T0)] == ["v1", "v1a"]
    assert records.webhooks.set_state(webhook.id, "removed", "removed by the operator")
    assert records.webhooks.signing_keys(webhook.id, T0) == []
    assert not records.webhooks.rotate(webhook.id, "v1", "whsec_fourth", later, T0)
    assert not records.webhooks.rotate(webhook.id, "v1a", "whsk_fourth", later, T0)
    gone, _ = records.database.execute(
        "SELECT count(*) FROM webhook_signing_keys WHERE webhook_id = ?", (webhook.id,)
    )
    assert gone[0][0] == 0
