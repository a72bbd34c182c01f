"""The client's side of events against the real `alpha-results serve`: the feed read across pages
and resumed from its cursor, the stream followed across dropped connections (no gap, no
duplicate), and a webhook's signature checked (docs/events.md)."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import queue
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from alpha_results_client import (
    Client,
    Event,
    PermissionDeniedError,
    Timeouts,
    WebhookSignatureError,
    decode_event,
    verify_webhook_signature,
)
from alpha_results_client.exceptions import AuthenticationError
from records.store import Records, open_records
from tests.client.conftest import Api, Key, api_over, cli

pytestmark = pytest.mark.e2e

WAIT = 60.0


@pytest.fixture(scope="module")
def events_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, Records]]:
    """A server over an empty lake (the events need none), quick heartbeats and polls, and the
    records it reads, written here as the pipeline writes them."""
    workdir = tmp_path_factory.mktemp("client_events")
    (workdir / "lake").mkdir()
    records = open_records(f"sqlite:///{workdir}/keys.sqlite3")
    settings = {"ALPHA_RESULTS_EVENTS_HEARTBEAT_SECONDS": "1", "ALPHA_RESULTS_EVENTS_POLL_SECONDS": "0.1"}
    try:
        with api_over(workdir / "lake", workdir, **settings) as api:
            yield api, records
    finally:
        records.close()


@pytest.fixture(scope="module")
def key(events_api: tuple[Api, Records]) -> Key:
    return events_api[0].key("events")


def client_of(api: Api, key: Key, **options: Any) -> Client:
    return Client(api.base_url, token=key.token, timeouts=Timeouts(read=20.0), **options)


def unique() -> str:
    return f"Test_{uuid.uuid4().hex[:10]}"


def test_the_feed_reads_every_page_and_resumes_from_its_cursor(
    events_api: tuple[Api, Records], key: Key
) -> None:
    api, records = events_api
    alpha = unique()
    made = [records.events.append("alpha.republished", {"n": n}, alpha_id=alpha) for n in range(5)]
    with client_of(api, key) as client:
        feed = client.events(alpha=alpha, page_size=2)
        seen = []
        for event in feed:
            seen.append(event)
            if len(seen) == 3:
                break
        assert feed.cursor == seen[-1].id  # stopped midway: resume after the last one iterated
        rest = client.events(after=feed.cursor, alpha=[alpha])
        seen += rest.to_list()
        assert [e.data for e in seen] == [{"n": n} for n in range(5)]
        assert [e.id for e in seen] == [records.cursors.write(e.id) for e in made]
        first = seen[0]
        assert isinstance(first, Event) and first.type == "alpha.republished" and first.alpha == alpha
        assert first.created_at == made[0].created_at and first.created_at.tzinfo is not None
        # At the end, nothing new: iterating from the cursor reads nothing and keeps it.
        end = rest.cursor
        assert client.events(after=end, alpha=alpha).to_list() == []
        later = records.events.append("alpha.retired", {}, alpha_id=alpha)
        assert [e.id for e in client.events(after=end, type=["alpha.retired"], alpha=alpha)] == [
            records.cursors.write(later.id)
        ]


def test_a_key_without_the_events_routes_is_refused(events_api: tuple[Api, Records]) -> None:
    api, _ = events_api
    meta_only = api.key("meta-only", endpoints="meta.me,meta.keys,meta.health")
    with client_of(api, meta_only) as client:
        with pytest.raises(PermissionDeniedError) as refused:
            client.events().to_list()
    assert refused.value.details["endpoint"] == "events.list"


class Dropping(httpx.BaseTransport):
    """The real transport, except that each `/v1/events/stream` answer listed in `drops` is cut
    (a read error, as a dropped connection gives) once that many events were read: the next event
    never reaches the client (the opening and heartbeats do)."""

    def __init__(self, drops: list[int]) -> None:
        self.inner = httpx.HTTPTransport()
        self.drops = drops
        self.last_event_ids: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path != "/v1/events/stream" or response.status_code != 200:
            return response
        self.last_event_ids.append(request.headers.get("last-event-id"))
        if not self.drops:
            return response
        after = self.drops.pop(0)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=CutStream(response.stream, after),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self.inner.close()


class CutStream(httpx.SyncByteStream):
    def __init__(self, inner: Any, events: int) -> None:
        self.inner, self.events = inner, events

    def __iter__(self) -> Iterator[bytes]:
        buffered = b""
        for chunk in self.inner:
            buffered += chunk
            while b"\n\n" in buffered:
                message, buffered = buffered.split(b"\n\n", 1)
                if b"\nevent:" in b"\n" + message:
                    if self.events == 0:
                        raise httpx.ReadError("connection dropped by the test")
                    self.events -= 1
                yield message + b"\n\n"

    def close(self) -> None:
        self.inner.close()


def test_the_stream_reconnects_with_the_last_id_and_loses_nothing(
    events_api: tuple[Api, Records], key: Key
) -> None:
    api, records = events_api
    alpha = unique()
    before = records.events.append("alpha.published", {"n": 0}, alpha_id=alpha)
    # Cut after 2 events, then at the first event of the second connection, then never.
    transport = Dropping([2, 0])
    made: list[Any] = []
    with client_of(api, key, http_transport=transport) as client:
        opened = client.stream_events(after=records.cursors.write(before.id), alpha=alpha)
        found: queue.Queue[Event] = queue.Queue()

        def read() -> None:
            for event in opened:
                found.put(event)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            made = [records.events.append("alpha.republished", {"n": n}, alpha_id=alpha) for n in range(1, 7)]
            received = [found.get(timeout=WAIT) for _ in range(6)]
        finally:
            opened.close()
            reader.join(WAIT)
    assert [e.id for e in received] == [records.cursors.write(e.id) for e in made]  # no gap, no duplicate
    assert found.empty()
    assert opened.connections >= 3
    # The first connection asked with `after`; each reconnection named the last event received.
    assert transport.last_event_ids[0] is None
    assert transport.last_event_ids[1] == received[1].id
    assert transport.last_event_ids[2] == received[1].id
    assert opened.last_event_id == received[-1].id


def test_a_stream_from_now_resumes_from_its_opening_after_a_drop(
    events_api: tuple[Api, Records], key: Key
) -> None:
    api, records = events_api
    alpha = unique()
    records.events.append("alpha.published", {"old": True}, alpha_id=alpha)
    transport = Dropping([0])  # cut at the first event: only the opening was received
    with client_of(api, key, http_transport=transport) as client:
        opened = client.stream_events(alpha=alpha)
        found: queue.Queue[Event] = queue.Queue()

        def read() -> None:
            for event in opened:
                found.put(event)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            wait_for(lambda: opened.last_event_id is not None)  # opened: "now" is set
            new = records.events.append("alpha.approved", {"new": True}, alpha_id=alpha)
            assert found.get(timeout=WAIT).id == records.cursors.write(new.id)
        finally:
            opened.close()
            reader.join(WAIT)
    # It reconnected from where it had started (the newest event the key saw), not from "now",
    # which is after the event it lost.
    assert transport.last_event_ids[0] is None and transport.last_event_ids[1] is not None
    assert found.empty()


def test_heartbeats_are_counted_and_a_revoked_key_raises(events_api: tuple[Api, Records]) -> None:
    api, _ = events_api
    doomed = api.key("doomed")
    with client_of(api, doomed) as client:
        opened = client.stream_events(alpha=unique())
        outcome: queue.Queue[BaseException | None] = queue.Queue()

        def read() -> None:
            try:
                for _ in opened:
                    pass
                outcome.put(None)
            except BaseException as exc:
                outcome.put(exc)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        wait_for(lambda: opened.heartbeats >= 2)
        cli(api.keystore_url, "keys", "revoke", doomed.key_id)
        raised = outcome.get(timeout=WAIT)
        reader.join(WAIT)
    assert isinstance(raised, AuthenticationError) and raised.code == "key_revoked", raised


def wait_for(condition: Any) -> None:
    pause = threading.Event()
    for _ in range(int(WAIT * 20)):
        if condition():
            return
        pause.wait(0.05)
    raise AssertionError("the condition was not met in time")


# -- webhook signatures ---------------------------------------------------------------------------

SECRET = "whsec_é_not_ascii"
BODY = (
    b'{"id":"0123456789abcdef0123456789abcdef","type":"alpha.decay","alpha":"Test_x",'
    b'"created_at":"2026-11-25T18:00:00.000000Z","data":{"check":"live_information_ratio"}}'
)
SIGNED_AT = 1_795_000_000


def signed(secret: str = SECRET, timestamp: int = SIGNED_AT, body: bytes = BODY) -> str:
    """The signature as the contract states it, written out here independently of the client."""
    digest = hmac.new(secret.encode("utf-8"), str(timestamp).encode() + b"." + body, hashlib.sha256)
    return digest.hexdigest()


def test_a_signature_made_with_the_secret_over_the_body_verifies() -> None:
    header = f"t={SIGNED_AT},v1={signed()}"
    assert verify_webhook_signature(SECRET, header, BODY, now=SIGNED_AT + 10) == SIGNED_AT
    # While a secret is rotated, a delivery carries one v1 per secret: any one may match.
    rotating = f"t={SIGNED_AT}, v1={signed('old secret')}, v1={signed()}"
    assert verify_webhook_signature(SECRET, rotating, BODY, now=SIGNED_AT) == SIGNED_AT
    assert (
        Client.verify_webhook_signature(SECRET.encode(), header, bytearray(BODY), now=SIGNED_AT) == SIGNED_AT
    )
    event = decode_event(BODY)
    assert (event.type, event.alpha, event.created_at) == (
        "alpha.decay",
        "Test_x",
        dt.datetime(2026, 11, 25, 18, tzinfo=dt.UTC),
    )


@pytest.mark.parametrize(
    ("header", "body", "now", "reason"),
    [
        (f"t={SIGNED_AT},v1={signed('another secret')}", BODY, SIGNED_AT, "mismatch"),
        (f"t={SIGNED_AT},v1={signed()}", BODY.replace(b"Test_x", b"Test_y"), SIGNED_AT, "mismatch"),
        (f"t={SIGNED_AT + 1},v1={signed()}", BODY, SIGNED_AT, "mismatch"),  # the timestamp is signed too
        (f"t={SIGNED_AT},v1={signed()}", BODY, SIGNED_AT + 301, "expired"),  # a replay, 5 min later
        (f"t={SIGNED_AT},v1={signed()}", BODY, SIGNED_AT - 301, "expired"),  # from the future
        (f"v1={signed()}", BODY, SIGNED_AT, "malformed"),
        (f"t=soon,v1={signed()}", BODY, SIGNED_AT, "malformed"),
        (f"t={SIGNED_AT},t={SIGNED_AT},v1={signed()}", BODY, SIGNED_AT, "malformed"),
        (f"t={SIGNED_AT}", BODY, SIGNED_AT, "malformed"),
        ("", BODY, SIGNED_AT, "malformed"),
    ],
)
def test_a_bad_or_old_signature_raises(header: str, body: bytes, now: int, reason: str) -> None:
    with pytest.raises(WebhookSignatureError) as refused:
        verify_webhook_signature(SECRET, header, body, now=now)
    assert refused.value.reason == reason
    assert str(refused.value)


def test_the_tolerance_is_the_callers_and_the_body_must_be_bytes() -> None:
    header = f"t={SIGNED_AT},v1={signed()}"
    assert verify_webhook_signature(SECRET, header, BODY, tolerance_seconds=3600, now=SIGNED_AT + 3000)
    with pytest.raises(TypeError):
        verify_webhook_signature(SECRET, header, BODY.decode(), now=SIGNED_AT)  # type: ignore[arg-type]


def test_the_default_clock_is_now() -> None:
    now = int(dt.datetime.now(dt.UTC).timestamp())
    assert verify_webhook_signature(SECRET, f"t={now},v1={signed(timestamp=now)}", BODY) == now
    with pytest.raises(WebhookSignatureError):
        verify_webhook_signature(SECRET, f"t={SIGNED_AT},v1={signed()}", BODY)


def test_the_documented_calls_bind_to_the_client() -> None:
    """docs/events.md, "In the client": each call of the example binds to what it calls (a
    documented keyword the client lacks is a TypeError in the reader's hands)."""
    import ast
    import inspect
    import re
    from pathlib import Path

    import alpha_results_client

    text = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text()
    section = text.split("## In the client", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    receivers: dict[str, Any] = {
        "client": Client,
        "feed": alpha_results_client.EventFeed,
        "stream": alpha_results_client.EventStream,
    }
    bound = 0
    for node in ast.walk(ast.parse(code.group(1))):
        if not isinstance(node, ast.Call):
            continue
        target: Any = None
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            owner = receivers.get(node.func.value.id)
            target = getattr(owner, node.func.attr) if owner is not None else None
            arguments: list[Any] = [None]  # self
        elif isinstance(node.func, ast.Name) and node.func.id in alpha_results_client.__all__:
            target, arguments = getattr(alpha_results_client, node.func.id), []
        if target is None:
            continue
        arguments += [None] * len(node.args)
        inspect.signature(target).bind(*arguments, **{k.arg: None for k in node.keywords if k.arg})
        bound += 1
    assert bound >= 4
