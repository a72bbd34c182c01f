"""Webhooks end to end (issue 35, item 4): registered with `alpha-results webhooks add`, delivered
by the real `alpha-results deliver` process to a real local receiver, on SQLite and PostgreSQL.

Each delivery is checked as a receiver would: the signature with independent code
(`tests.ops.webhook_receiver.signature_valid`), the body against the event as the log holds it.
Waits are on the receiver or the records, with deadlines; nothing asserts a duration.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import subprocess
import sys
from functools import partial

import psycopg
import pytest
from standardwebhooks import Webhook as StandardWebhook
from standardwebhooks import WebhookVerificationError

from access import Grants, open_store
from cli.main import main as cli
from core.context import AllowList
from delivery.webhooks import new_secret
from records.store import open_records
from tests.identity.conftest import postgres_schema_url, store_url
from tests.lake.conftest import soak_rounds
from tests.ops.webhook_receiver import Received, Receiver, ed25519_valid, receiving, signature_valid
from tests.support.webhooks import DEADLINE, REPO, World, delivered_ids
from tests.support.webhooks import world as world  # a fixture

__all__ = ["postgres_schema_url", "store_url"]

CREATED_AT = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"


def test_deliveries_are_signed_in_order_and_carry_the_event_as_the_feed_shows_it(world: World) -> None:
    member = world.key()
    with receiving() as receiver:
        hook = world.add(member.key_id, receiver.url(), "--note", "research desk", "--by", "ops")
        assert hook["secret"].startswith("whsec_") and hook["state"] == "active"
        assert "secret" not in world.webhook(hook["id"])  # shown once
        events = [
            world.append("alpha.published", "Test_planted_factor"),
            world.append("build.refused", audience="admin"),  # administrators only
            world.append("webhook.disabled", audience="key", key_id="someone_else_00"),  # another key's
            world.append("alpha.republished", "momentum_12_1", moved=["sharpe"]),
            world.append("webhook.disabled", audience="key", key_id=member.key_id),  # this key's
        ]
        expected = [events[0], events[3], events[4]]
        worker = world.start()
        receiver.wait_for(lambda r: len(r.on("/hook")) >= 3, "three deliveries")
        assert world.stop(worker) == 0, world.logs()
        assert world.records.webhooks.lease_holder() is None  # released on SIGTERM

    received = receiver.on("/hook")
    assert len(received) == 3
    for got, event in zip(received, expected, strict=True):
        cursor = world.records.cursors.write(event.id)
        # Standard Webhooks, checked by the specification's reference library; the id is the cursor.
        assert StandardWebhook(hook["secret"]).verify(got.body, got.headers) == json.loads(got.body)
        with pytest.raises(WebhookVerificationError):
            StandardWebhook("whsec_" + "x" * 43).verify(got.body, got.headers)
        assert got.headers["webhook-id"] == cursor
        assert signature_valid(hook["secret"], got.headers["alpha-results-signature"], got.body)  # deprecated
        assert not signature_valid("whsec_" + "x" * 43, got.headers["alpha-results-signature"], got.body)
        assert got.headers["content-type"] == "application/json"
        assert got.headers["alpha-results-event-id"] == cursor
        assert got.headers["alpha-results-event-type"] == event.type
        assert got.headers["alpha-results-webhook-id"] == hook["id"]
        assert got.headers["alpha-results-delivery-attempt"] == "1"
        body = got.event
        assert list(body) == ["id", "type", "alpha", "created_at", "data"]
        assert (body["id"], body["type"], body["alpha"], body["data"]) == (
            cursor,
            event.type,
            event.alpha_id,
            event.data,
        )
        assert body["created_at"] == event.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    attempts = world.attempts(hook["id"])
    assert [(a["event"], a["outcome"], a["http_status"]) for a in attempts] == [
        (world.records.cursors.write(events[0].id), "delivered", 200),
        (world.records.cursors.write(events[1].id), "skipped", None),
        (world.records.cursors.write(events[3].id), "delivered", 200),
        (world.records.cursors.write(events[4].id), "delivered", 200),
    ]
    assert attempts[1]["error"] == "skipped: access (the key may not see this event)"
    assert world.webhook(hook["id"])["delivered_through"] == events[4].id


def test_a_receiver_that_fails_then_times_out_is_retried_in_order_until_it_recovers(world: World) -> None:
    member = world.key()
    with receiving() as receiver:
        receiver.plan.extend([500, "hang"])  # then 200
        hook = world.add(member.key_id, receiver.url())
        first = world.append("alpha.published", "Test_a")
        second = world.append("alpha.published", "Test_b")
        worker = world.start("--timeout", "2")
        receiver.wait_for(lambda r: len(r.received) >= 4, "the first event three times, then the second")
        receiver.release()
        assert world.stop(worker) == 0, world.logs()

    first_id, second_id = (world.records.cursors.write(e.id) for e in (first, second))
    # The second event waited for the first (in order); the first came three times, the same id.
    assert delivered_ids(receiver) == [first_id, first_id, first_id, second_id]
    assert [r.headers["alpha-results-delivery-attempt"] for r in receiver.received] == ["1", "2", "3", "1"]
    assert len({r.body for r in receiver.received[:3]}) == 1  # the same body each time
    attempts = world.attempts(hook["id"])
    assert [(a["event"], a["attempt"], a["outcome"], a["http_status"]) for a in attempts] == [
        (first_id, 1, "failed", 500),
        (first_id, 2, "failed", None),
        (first_id, 3, "delivered", 200),
        (second_id, 1, "delivered", 200),
    ]
    assert attempts[0]["error"] == "HTTP 500: ok"  # what the receiver said
    assert attempts[1]["error"] == "answer: timed out after 2 s"
    for failed in attempts[:2]:
        assert failed["next_attempt_at"] > failed["attempted_at"]
    assert world.webhook(hook["id"])["retrying"] is None


def test_a_receiver_that_stalls_its_head_fails_the_attempt_and_the_event_is_retried(world: World) -> None:
    """Its status line, then a head never finished (issue 48, item 7): http.client read the socket
    the deadline shut as the end of the headers, and the worker recorded a 200, the event lost."""
    member = world.key()
    with receiving() as receiver:
        receiver.plan.append("stall-head")  # then 200
        hook = world.add(member.key_id, receiver.url())
        event = world.append("alpha.published", "Test_a")
        worker = world.start("--timeout", "2")
        world.wait_until(
            lambda: world.webhook(hook["id"])["delivered_through"] == event.id, "the event delivered"
        )
        receiver.release()
        assert world.stop(worker) == 0, world.logs()

    cursor = world.records.cursors.write(event.id)
    assert delivered_ids(receiver) == [cursor, cursor]
    attempts = world.attempts(hook["id"])
    assert [(a["attempt"], a["outcome"], a["http_status"], a["error"]) for a in attempts] == [
        (1, "failed", None, "answer: timed out after 2 s"),
        (2, "delivered", 200, None),
    ]


def signed_by(received: Received, secret: str) -> bool:
    """Whether the reference library of Standard Webhooks accepts the delivery with `secret`."""
    try:
        StandardWebhook(secret).verify(received.body, received.headers)
    except WebhookVerificationError:
        return False
    return True


def test_a_secret_and_an_ed25519_key_rotate_without_a_delivery_failing_verification(world: World) -> None:
    """`webhooks rotate-secret`: while the old key keeps signing, each delivery carries a signature
    by the old key and one by the new, so a receiver holding either accepts it; once it retires (at
    once with --keep-old-for 0) only the new one signs. Through the running worker, which reads the
    keys at every attempt."""
    member = world.key()
    with receiving() as receiver:
        hook = world.add(member.key_id, receiver.url(), "--ed25519")
        first_secret = hook["secret"]
        (first_public,) = [k["public_key"] for k in hook["signing_keys"] if k["scheme"] == "v1a"]
        worker = world.start()

        def deliver() -> Received:
            sent = world.append("alpha.published", "Test_a")
            cursor = world.records.cursors.write(sent.id)
            receiver.wait_for(lambda r: cursor in delivered_ids(r), f"event {sent.id} delivered")
            (got,) = [r for r in receiver.received if r.event_id == cursor]
            return got

        before = deliver()
        assert signed_by(before, first_secret) and ed25519_valid(first_public, before.headers, before.body)
        assert [e.split(",")[0] for e in before.headers["webhook-signature"].split(" ")] == ["v1", "v1a"]

        code, out, err = world.cli("webhooks", "rotate-secret", hook["id"], "--keep-old-for", "1h")
        assert code == 0, err
        rotated = json.loads(out)
        second_secret = rotated["secret"]
        assert second_secret != first_secret and "shown this once" in err
        assert [(k["scheme"], k["retires_at"] is None) for k in rotated["signing_keys"]] == [
            ("v1", True),
            ("v1", False),
            ("v1a", True),
        ]
        assert "secret" not in world.webhook(hook["id"])  # shown once
        overlap = deliver()
        assert signed_by(overlap, first_secret) and signed_by(overlap, second_secret)
        assert not signed_by(overlap, new_secret())
        assert ed25519_valid(first_public, overlap.headers, overlap.body)
        for secret in (first_secret, second_secret):  # the deprecated header, one v1= per secret
            assert signature_valid(secret, overlap.headers["alpha-results-signature"], overlap.body)

        code, out, err = world.cli(
            "webhooks", "rotate-secret", hook["id"], "--ed25519", "--keep-old-for", "0"
        )
        assert code == 0, err
        keys = json.loads(out)["signing_keys"]
        assert "secret" not in json.loads(out)
        (second_public,) = [k["public_key"] for k in keys if k["scheme"] == "v1a"]
        assert second_public != first_public
        code, out, err = world.cli("webhooks", "rotate-secret", hook["id"], "--keep-old-for", "0")
        assert code == 0, err
        third_secret = json.loads(out)["secret"]
        after = deliver()
        assert signed_by(after, third_secret)
        assert not signed_by(after, first_secret) and not signed_by(after, second_secret)
        assert ed25519_valid(second_public, after.headers, after.body)
        assert not ed25519_valid(first_public, after.headers, after.body)
        assert [e.split(",")[0] for e in after.headers["webhook-signature"].split(" ")] == ["v1", "v1a"]
        assert world.stop(worker) == 0, world.logs()

    for args, says in (
        (("rotate-secret", "wh_nosuch"), "no webhook 'wh_nosuch'"),
        (("rotate-secret", hook["id"], "--keep-old-for", "8d"), "for 0 to 7 days"),
    ):
        code, _, err = world.cli("webhooks", *args)
        assert code == 1 and says in err, (args, err)
    refused = io.StringIO()
    with pytest.raises(SystemExit), contextlib.redirect_stderr(refused):  # argparse's refusal
        cli(["webhooks", "rotate-secret", hook["id"], "--keep-old-for", "soon", "--keystore", world.url])
    assert "a duration such as 0, 90m, 24h or 7d; got 'soon'" in refused.getvalue()


def test_sustained_failure_disables_the_webhook_and_tells_its_key(world: World) -> None:
    member, other = world.key(), world.key()
    with receiving() as receiver:
        receiver.paths["/failing"] = 503
        failing = world.add(member.key_id, receiver.url("/failing"))
        healthy = world.add(member.key_id, receiver.url("/healthy"), "--type", "webhook.disabled")
        bystander = world.add(other.key_id, receiver.url("/other"), "--type", "webhook.disabled")
        event = world.append("alpha.published", "Test_a")
        worker = world.start("--retry-window", "1.5")
        world.wait_until(lambda: world.webhook(failing["id"])["state"] == "disabled", "the webhook disabled")
        # The key's other webhook is told (it asked for webhook.disabled); another key's is not.
        receiver.wait_for(lambda r: len(r.on("/healthy")) == 1, "webhook.disabled at the key's other webhook")
        cursor = world.records.cursors.write(event.id)
        disabled = world.webhook(failing["id"])
        assert disabled["reason"].startswith(f"no 2xx answer for event {cursor} in ")
        assert disabled["retrying"]["event"] == cursor  # where delivery resumes when enabled
        attempts = world.attempts(failing["id"])
        assert len(attempts) >= 2 and {a["outcome"] for a in attempts} == {"failed"}
        assert [a["attempt"] for a in attempts] == list(range(1, len(attempts) + 1))
        assert attempts[-1]["next_attempt_at"] is None and attempts[-1]["error"] == "HTTP 503: ok"
        # Every recorded attempt was sent, and none beyond them. An attempt is sent again, with its
        # number, only when its record did not land (at least once, by design: a database that
        # could not be written in time on a loaded machine); the worker's log says so each time.
        sent = [int(r.headers["alpha-results-delivery-attempt"]) for r in receiver.on("/failing")]
        assert sorted(set(sent)) == [a["attempt"] for a in attempts]
        resent = len(sent) - len(attempts)
        logs = world.logs()
        assert resent == 0 or "not recorded" in logs or "cannot be used now" in logs, logs

        # Enabled again (the receiver fixed), it resumes at the event it stopped at.
        receiver.paths["/failing"] = 200
        code, _, err = world.cli("webhooks", "enable", failing["id"])
        assert code == 0, err
        # Then the notice of its own disabling, an event for its key like any other.
        receiver.wait_for(lambda r: len(r.on("/failing")) == len(sent) + 2, "the stuck event delivered")
        world.wait_until(lambda: world.webhook(failing["id"])["retrying"] is None, "the retry cleared")
        assert world.stop(worker) == 0, world.logs()

    notice = receiver.on("/healthy")[0]
    assert delivered_ids(receiver, "/failing") == [cursor] * (len(sent) + 1) + [notice.event_id]
    assert notice.event["type"] == "webhook.disabled" and notice.event["alpha"] is None
    assert notice.event["data"]["webhook_id"] == failing["id"]
    assert notice.event["data"]["event"] == cursor
    assert notice.event["data"]["reason"] == disabled["reason"]
    assert receiver.on("/other") == []
    assert world.webhook(bystander["id"])["state"] == "active"
    assert world.webhook(healthy["id"])["state"] == "active"


def test_a_key_gets_only_what_it_may_read_when_it_is_delivered(world: World) -> None:
    admin = world.key(role="admin")
    test_only = world.key(
        grants=Grants(
            AllowList.all(), AllowList.of_prefixes(["Test_"]), AllowList.all(), expose_raw_book=False
        )
    )
    runs_narrow = world.key(
        grants=Grants(
            AllowList.all(), AllowList.all(), AllowList.of_ids(["momentum_12_1"]), expose_raw_book=False
        )
    )
    no_events = world.key(
        grants=Grants(AllowList.of_ids(["meta.me"]), AllowList.all(), AllowList.all(), expose_raw_book=False)
    )
    loses = world.key()
    with receiving() as receiver:
        hooks = {
            name: world.add(key.key_id, receiver.url(f"/{name}"))
            for name, key in (
                ("admin", admin),
                ("test_only", test_only),
                ("runs_narrow", runs_narrow),
                ("no_events", no_events),
                ("loses", loses),
            )
        }
        before = [
            world.append("alpha.published", "Test_a"),
            world.append("alpha.published", "momentum_12_1"),
            world.append("build.refused", audience="admin"),
        ]
        worker = world.start()
        world.wait_until(
            lambda: world.webhook(hooks["loses"]["id"])["delivered_through"] >= before[-1].id,
            "the key that loses access, before",
        )
        world.store.revoke_key(loses.key_id)
        after = world.append("alpha.published", "Test_b")
        world.wait_until(
            lambda: world.webhook(hooks["loses"]["id"])["delivered_through"] >= after.id,
            "the revoked key's turn",
        )
        receiver.wait_for(lambda r: len(r.on("/admin")) >= 4, "the administrator's four")
        world.wait_until(
            lambda: all(world.webhook(h["id"])["delivered_through"] >= after.id for h in hooks.values()),
            "every webhook past the last event",
        )
        assert world.stop(worker) == 0, world.logs()

    def seen(name: str) -> list[int]:
        by_cursor = {world.records.cursors.write(e.id): e.id for e in [*before, after]}
        return [by_cursor[r.event_id] for r in receiver.on(f"/{name}")]

    published_test, published_momentum, refused = (e.id for e in before)
    assert seen("admin") == [published_test, published_momentum, refused, after.id]
    assert seen("test_only") == [published_test, after.id]
    assert seen("runs_narrow") == [published_momentum]  # both its alpha and run lists must admit it
    assert seen("no_events") == []
    assert seen("loses") == [published_test, published_momentum]
    skipped = {
        a["event_id"]: a["error"] for a in world.attempts(hooks["loses"]["id"]) if a["outcome"] == "skipped"
    }
    assert skipped == {
        refused: "skipped: access (the key may not see this event)",
        after.id: "skipped: access (key revoked)",
    }
    assert {a["error"] for a in world.attempts(hooks["no_events"]["id"])} == {
        "skipped: access (the key may not call events.list)"
    }


def test_one_worker_delivers_and_another_takes_over_when_it_dies(world: World) -> None:
    member = world.key()
    with receiving() as receiver:
        hook = world.add(member.key_id, receiver.url())
        # A lease longer than a stall of a busy machine: one worker holds it throughout.
        first, second = (world.start("--lease", "5", name=name) for name in ("first", "second"))
        first_six = [world.append("alpha.published", "Test_a") for _ in range(6)]
        world.wait_until(
            lambda: world.webhook(hook["id"])["delivered_through"] == first_six[-1].id,
            "six deliveries recorded",
        )
        holder = world.records.webhooks.lease_holder()
        assert holder is not None
        workers = {a["worker"] for a in world.attempts(hook["id"])}
        assert workers == {holder[0]}  # one worker delivered them all
        dying = next(w for w in (first, second) if f":{w.pid}:" in holder[0])
        surviving = second if dying is first else first
        dying.kill()
        dying.wait()
        later = [world.append("alpha.published", "Test_a") for _ in range(3)]
        cursors = {world.records.cursors.write(e.id) for e in [*first_six, *later]}
        receiver.wait_for(lambda r: {x.event_id for x in r.received} == cursors, "three more, by the other")
        assert world.stop(surviving) == 0, world.logs()
    attempts = world.attempts(hook["id"])
    assert len({a["worker"] for a in attempts}) == 2
    assert all(
        f":{surviving.pid}:" in a["worker"] for a in attempts if a["event_id"] in {e.id for e in later}
    )
    assert len(delivered_ids(receiver)) == 9  # killed between deliveries: none delivered twice


def test_deliver_once_refuses_while_another_worker_holds_the_lease(world: World) -> None:
    world.key()
    worker = world.start()
    world.wait_until(lambda: world.records.webhooks.lease_holder() is not None, "the lease taken")
    once = subprocess.run(
        [sys.executable, "-m", "cli.main", "deliver", "--once", "--keystore", world.url],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert once.returncode == 1 and "another worker" in once.stderr and f":{worker.pid}:" in once.stderr
    assert world.stop(worker) == 0


def test_deliver_once_delivers_what_is_due_and_exits(world: World) -> None:
    member = world.key()
    with receiving() as receiver:
        hook = world.add(member.key_id, receiver.url())
        events = [world.append("alpha.published", "Test_a") for _ in range(3)]
        once = subprocess.run(
            [sys.executable, "-m", "cli.main", "deliver", "--once", "--keystore", world.url],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=DEADLINE,
        )
        assert once.returncode == 0, once.stderr
        assert delivered_ids(receiver) == [world.records.cursors.write(e.id) for e in events]
    assert world.webhook(hook["id"])["delivered_through"] == events[-1].id
    assert world.records.webhooks.lease_holder() is None
    assert once.stderr.count("delivered (HTTP 200") == 3
    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "deliver",
            "--once",
            "--keystore",
            f"sqlite:///{world.folder}/none.db",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert missing.returncode == 1 and "error: the database cannot be opened" in missing.stderr


def test_the_worker_delivers_no_event_past_a_missing_id_until_it_commits_or_settles(
    postgres_schema_url: str,
) -> None:
    """PostgreSQL numbers an event at its insert: one committed after a later one must not be
    passed over (the worker's horizon, delivery.deliveries)."""
    from delivery.deliveries import Options, Worker

    records, store = open_records(postgres_schema_url), open_store(postgres_schema_url)
    try:
        worker = Worker(records, store, Options(settle=3600.0))
        first = records.events.append("alpha.published", {}, alpha_id="a")
        assert worker._advance_horizon() == first.id
        with psycopg.connect(postgres_schema_url) as slow:  # a transaction not yet committed
            slow.execute(
                "INSERT INTO events (type, alpha_id, audience, key_id, data, created_at) "
                "VALUES ('alpha.published', 'a', 'readers', NULL, '{}', %s)",
                (dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),),
            )
            later = records.events.append("alpha.published", {}, alpha_id="a")
            assert worker._advance_horizon() == first.id  # the id before `later` is missing
            slow.commit()
        assert worker._advance_horizon() == later.id
        # A transaction that rolled back leaves a gap for good: passed once `settle` has elapsed.
        with psycopg.connect(postgres_schema_url) as rolled_back:
            rolled_back.execute(
                "INSERT INTO events (type, alpha_id, audience, key_id, data, created_at) "
                "VALUES ('alpha.published', 'a', 'readers', NULL, '{}', 'x')"
            )
            rolled_back.rollback()
        last = records.events.append("alpha.published", {}, alpha_id="a")
        assert worker._advance_horizon() == later.id
        settled = Worker(records, store, Options(settle=0.0))
        settled._horizon = later.id
        assert settled._advance_horizon() == last.id
    finally:
        records.close()
        store.close()


def test_operator_refusals_exit_1_with_the_reason(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    member = world.key()
    revoked = world.key()
    world.store.revoke_key(revoked.key_id)
    monkeypatch.setenv("ALPHA_RESULTS_WEBHOOK_ALLOW_PRIVATE", "false")
    for args, says in (
        (("nosuchkey000000", "https://93.184.215.14/x"), "no key 'nosuchkey000000'"),
        ((revoked.key_id, "https://93.184.215.14/x"), "is revoked"),
        ((member.key_id, "http://93.184.215.14/x"), "must start with https://"),
        ((member.key_id, "https://127.0.0.1/x"), "loopback address"),
        ((member.key_id, "https://10.0.0.8/x"), "private address"),
        ((member.key_id, "https://u:p@93.184.215.14/x"), "credentials"),
        (
            (member.key_id, "https://93.184.215.14/x", "--type", "alpha.nope"),
            "unknown event type(s): alpha.nope",
        ),
    ):
        code, out, err = world.cli("webhooks", "add", *args)
        assert (code, out) == (1, ""), (args, out)
        assert err.startswith("error: ") and says in err, (args, err)
    assert world.records.webhooks.listed(include_removed=True) == []
    # A public https destination is accepted with the setting off.
    added = world.add(member.key_id, "https://93.184.215.14/x", "--type", "alpha.decay", "--alpha", "Test_a")
    assert (added["types"], added["alphas"]) == (["alpha.decay"], ["Test_a"])
    for args, says in (
        (("attempts", "wh_nosuch"), "no webhook 'wh_nosuch'"),
        (("disable", "wh_nosuch"), "no webhook 'wh_nosuch'"),
        (("enable", added["id"]), "already active"),
    ):
        code, _, err = world.cli("webhooks", *args)
        assert code == 1 and says in err, (args, err)
    assert world.cli("webhooks", "disable", added["id"])[0] == 0
    assert world.webhook(added["id"])["state"] == "disabled"
    assert world.cli("webhooks", "remove", added["id"])[0] == 0
    code, out, _ = world.cli("webhooks", "list")
    assert (code, json.loads(out)) == (0, [])
    code, _, err = world.cli("webhooks", "enable", added["id"])
    assert code == 1 and "no webhook" in err
    # A webhook of a key that may not read events yet is registered, with a warning.
    narrow = world.key(grants=Grants(AllowList.of_ids(["meta.me"]), AllowList.all(), AllowList.all(), False))
    code, _, err = world.cli("webhooks", "add", narrow.key_id, "https://93.184.215.14/x")
    assert code == 0 and "warning: nothing is delivered while the key may not call events.list" in err


KILLS = soak_rounds(5, 20)
"""Kills of a delivery worker mid-delivery: five in the suite, twenty under `just soak-lake`."""


def holding_more(receiver: Receiver, than: int) -> bool:
    return receiver.holding > than


def test_a_worker_killed_mid_delivery_again_and_again_loses_no_event(world: World) -> None:
    """SIGKILL while the receiver holds a delivery (it has the body; the worker has no answer):
    the next worker re-delivers that event, same id and body, then goes on in order."""
    member = world.key()
    with receiving() as receiver:
        hook = world.add(member.key_id, receiver.url())
        events = [world.append("alpha.published", f"Test_{n % 3}") for n in range(2 * KILLS + 10)]
        cursors = [world.records.cursors.write(e.id) for e in events]
        for kill in range(KILLS):
            held = receiver.holding
            receiver.plan.extend([200, 200, "hold"])  # two answered, the third held
            worker = world.start("--lease", "1", name=f"killed-{kill}")
            receiver.wait_for(partial(holding_more, than=held), f"a delivery in flight (kill {kill + 1})")
            worker.kill()
            worker.wait()
            receiver.plan.clear()
            receiver.release()
        worker = world.start(name="last")
        receiver.wait_for(lambda r: set(cursors) <= {x.event_id for x in r.received}, "every event")
        world.wait_until(
            lambda: world.webhook(hook["id"])["delivered_through"] == events[-1].id, "all recorded"
        )
        assert world.stop(worker) == 0, world.logs()

    received = receiver.on("/hook")
    # In order, each event at least once; a duplicate is the same event again, right after itself.
    collapsed = [
        r.event_id for n, r in enumerate(received) if n == 0 or received[n - 1].event_id != r.event_id
    ]
    assert collapsed == cursors
    bodies: dict[str, set[bytes]] = {}
    for r in received:
        assert r.event["id"] == r.event_id
        assert signature_valid(hook["secret"], r.headers["alpha-results-signature"], r.body)
        bodies.setdefault(r.event_id, set()).add(r.body)
    assert all(len(b) == 1 for b in bodies.values())  # a re-delivery is the same body
    assert len(received) - len(cursors) >= KILLS  # each kill cost (at least) one re-delivery
    delivered = [a for a in world.attempts(hook["id"]) if a["outcome"] == "delivered"]
    assert [a["event_id"] for a in delivered] == [e.id for e in events]  # each recorded once
