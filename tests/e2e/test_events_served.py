"""`/v1/events` and `/v1/events/stream` through the real `alpha-results serve` (issue 35, items 4 and
5; docs/events.md, "The feed" and "The stream"), the events written into the records as the
pipeline and the command line write them (`records.store.open_records(url).events.append`).

What a key sees is checked as a user sees it: the pages and the stream of a key that may not read
an alpha are byte for byte what they would be if that alpha's events did not exist (no event, no
count, no cursor that moves)."""

from __future__ import annotations

import io
import json
import queue
import signal
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pyarrow as pa
import pyarrow.csv
import pyarrow.ipc
import pyarrow.parquet as pq
import pytest

from access import Grants, RateLimit, open_store
from core.context import AllowList
from records.cursors import Cursors
from records.event_log import Event as Recorded
from records.store import Records, open_records
from schemas.bodies.events import StreamedEvent
from serve.endpoints import endpoints
from tests.lake.conftest import Served, serving
from tests.ops.keys import IssuedKey, issue_key

pytestmark = pytest.mark.e2e

HEARTBEAT_SECONDS = 1.0
WAIT = 60.0
"""The longest any condition is waited for: far beyond what it takes on a busy machine."""
EVENTS_IDS = ("events.list", "events.stream")
COLUMNS = ["id", "type", "alpha", "created_at", "data"]


@dataclass
class World:
    server: Served
    url: str
    records: Records
    keys: dict[str, IssuedKey]

    def headers(self, who: str) -> dict[str, str]:
        return self.keys[who].headers

    def append(self, type: str, alpha: str | None = None, **data: Any) -> Recorded:
        return self.records.events.append(type, data, alpha_id=alpha)

    def cursor(self, event: Recorded) -> str:
        return self.records.cursors.write(event.id)

    def get(self, who: str, path: str, **params: Any) -> httpx.Response:
        return self.get_pairs(who, path, list(params.items()))

    def get_pairs(self, who: str, path: str, pairs: list[tuple[str, Any]]) -> httpx.Response:
        """GET `path` as `who` with the query `pairs` (a parameter may be given more than once)."""
        return httpx.get(
            f"http://127.0.0.1:{self.server.port}{path}",
            params=pairs,
            headers=self.headers(who),
            timeout=WAIT,
        )

    def store_do(self, action: str, *args: Any) -> None:
        store = open_store(self.url)
        try:
            getattr(store, action)(*args)
        finally:
            store.close()


def grants(alphas: AllowList, runs: AllowList, endpoints: AllowList | None = None) -> Grants:
    return Grants(endpoints or AllowList.all(), alphas, runs, expose_raw_book=False)


def new_key(url: str, role: str = "member", chosen: Grants | None = None) -> IssuedKey:
    store = open_store(url)
    try:
        return issue_key(store, role=role, grants=chosen)
    finally:
        store.close()


@contextmanager
def served_world(folder: Path, env: dict[str, str] | None = None) -> Iterator[World]:
    """A server over an empty lake (the events need none) whose records are made first, as the
    pipeline makes them, with the keys the tests read as."""
    (folder / "lake").mkdir()
    url = f"sqlite:///{folder}/keys.sqlite3"
    records = open_records(url)  # the tables and the cursors' secret
    admin = new_key(url, role="admin")
    keys = {
        "admin": admin,
        "member": new_key(url),
        "other_member": new_key(url),
        # Test_ alphas only, on both allow-lists (the default of a self-created key).
        "narrow": new_key(
            url, chosen=grants(AllowList.of_prefixes(["Test_"]), AllowList.of_prefixes(["Test_"]))
        ),
        # Every alpha's description, but only Test_ runs: an event carries run figures.
        "runs_narrow": new_key(url, chosen=grants(AllowList.all(), AllowList.of_prefixes(["Test_"]))),
        # The events, but not the routes that serve their figures.
        "no_figures": new_key(
            url,
            chosen=grants(
                AllowList.all(), AllowList.all(), AllowList.of_ids(["events.list", "events.stream"])
            ),
        ),
        "no_events": new_key(
            url,
            chosen=grants(
                AllowList.all(), AllowList.all(), AllowList.of_ids(["meta.me", "meta.keys", "meta.health"])
            ),
        ),
    }
    settings = {
        "ALPHA_RESULTS_EVENTS_HEARTBEAT_SECONDS": str(HEARTBEAT_SECONDS),
        "ALPHA_RESULTS_EVENTS_POLL_SECONDS": "0.1",
        **(env or {}),
    }
    try:
        with serving(str(folder / "lake"), (url, admin.headers), folder, env_extra=settings) as server:
            yield World(server, url, records, keys)
    finally:
        records.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with served_world(tmp_path_factory.mktemp("events_served")) as made:
        yield made


def unique(prefix: str = "Test_") -> str:
    """An alpha id no other test uses, so each test reads only its own events (`alpha=`)."""
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def feed(world: World, who: str, **params: Any) -> dict[str, Any]:
    response = world.get(who, "/v1/events", **params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def all_pages(world: World, who: str, **params: Any) -> tuple[list[dict[str, Any]], str]:
    """Every event a key sees from `after` (or the start) on, following `meta.next_cursor`; and
    the cursor to resume from."""
    events: list[dict[str, Any]] = []
    while True:
        page = feed(world, who, **params)
        events += page["data"]
        params["after"] = page["meta"]["next_cursor"]
        if not page["pagination"]["has_more"]:
            return events, params["after"]


def without_request(body: dict[str, Any]) -> dict[str, Any]:
    """A page with what differs between two requests left out (their id and time)."""
    meta = {k: v for k, v in body["meta"].items() if k not in ("request_id", "generated_at")}
    return {**body, "meta": meta}


# -- Server-Sent Events as a client reads them -------------------------------------------------


@dataclass
class Message:
    id: str | None
    event: str | None
    data: str


@dataclass
class Stream:
    """One `/v1/events/stream` read by a real HTTP client (httpx, streaming) in a thread: each
    message or comment is queued as it arrives; `close` drops the connection."""

    port: int
    headers: dict[str, str]
    params: dict[str, Any] = field(default_factory=dict)
    items: queue.Queue[Message | str | None] = field(default_factory=queue.Queue)
    status: int | None = None
    body: bytes = b""
    opened: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)
    clean_end: bool = False

    def __post_init__(self) -> None:
        self.client = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=httpx.Timeout(WAIT))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        assert self.opened.wait(WAIT), "the stream did not answer"

    def run(self) -> None:
        try:
            with self.client.stream(
                "GET", "/v1/events/stream", params=self.params, headers=self.headers
            ) as answer:
                self.status = answer.status_code
                self.answer_headers = answer.headers
                if answer.status_code != 200:
                    self.body = answer.read()
                    self.opened.set()
                    return
                self.opened.set()
                fields: dict[str, str] = {}
                for line in answer.iter_lines():
                    if line == "":
                        if fields:
                            self.items.put(
                                Message(fields.get("id"), fields.get("event"), fields.get("data", ""))
                            )
                        fields = {}
                    elif line.startswith(":"):
                        self.items.put(line[1:].strip())
                    else:
                        name, _, value = line.partition(":")
                        fields[name] = value.removeprefix(" ")
                self.clean_end = True  # the body ended as HTTP says (the chunked terminator)
        except httpx.HTTPError:
            pass  # the connection was dropped (by `close`, or by the server)
        finally:
            self.opened.set()
            self.ended.set()
            self.items.put(None)

    def next(self) -> Message | str | None:
        """The next message or comment (None: the stream ended)."""
        return self.items.get(timeout=WAIT)

    def events(self, count: int) -> list[Message]:
        """The next `count` messages that carry an event (comments and the opening skipped)."""
        found: list[Message] = []
        while len(found) < count:
            item = self.next()
            assert item is not None, f"the stream ended after {len(found)} of {count} events"
            if isinstance(item, Message) and item.event is not None:
                found.append(item)
        return found

    def opening(self) -> Message:
        """The first message: where the stream starts (`id:` only)."""
        item = self.next()
        assert isinstance(item, Message) and item.event is None, item
        return item

    def close(self) -> None:
        self.client.close()
        self.thread.join(WAIT)


def stream(world: World, who: str, last_event_id: str | None = None, **params: Any) -> Stream:
    headers = {**world.headers(who), "Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    return Stream(world.server.port, headers, params)


# -- the feed ----------------------------------------------------------------------------------


def test_pages_oldest_first_and_resume_from_next_cursor(world: World) -> None:
    alpha = unique()
    appended = [
        world.append("alpha.published" if n == 0 else "alpha.republished", alpha, n=n) for n in range(7)
    ]
    pages: list[dict[str, Any]] = []
    params: dict[str, Any] = {"alpha": alpha, "limit": 3}
    while True:
        response = world.get("member", "/v1/events", **params)
        assert response.status_code == 200, response.text
        page = response.json()
        pages.append(page)
        if not page["pagination"]["has_more"]:
            assert "link" not in response.headers
            break
        # The Link header is the same request resumed after the page's last event.
        link = response.headers["link"]
        assert link.endswith('; rel="next"') and f"after={page['meta']['next_cursor']}" in link
        assert page["meta"]["next_cursor"] == page["data"][-1]["id"]
        params["after"] = page["meta"]["next_cursor"]
    assert [len(p["data"]) for p in pages] == [3, 3, 1]
    # Each page is, strictly, what its handler declares (no key the contract lacks).
    declared = endpoints()["events.list"].answer
    assert all(msgspec.json.decode(json.dumps(p), type=declared) for p in pages)
    served = [event for page in pages for event in page["data"]]
    assert [e["id"] for e in served] == [world.cursor(e) for e in appended]
    assert [e["data"] for e in served] == [{"n": n} for n in range(7)]
    assert {(e["type"], e["alpha"]) for e in served[1:]} == {("alpha.republished", alpha)}
    assert served[0]["created_at"] == appended[0].created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert all(p["pagination"]["offset"] == 0 for p in pages)

    # Polling from the last cursor: nothing new, the same cursor back; then exactly what follows.
    last = pages[-1]["meta"]["next_cursor"]
    empty = feed(world, "member", alpha=alpha, after=last)
    assert empty["data"] == [] and empty["meta"]["next_cursor"] == last
    assert empty["pagination"] == {"limit": 100, "offset": 0, "returned": 0, "total": 0, "has_more": False}
    later = world.append("alpha.checks_changed", alpha, flipped=["ic"])
    assert [e["id"] for e in feed(world, "member", alpha=alpha, after=last)["data"]] == [world.cursor(later)]


def test_newest_first_pages_go_back_and_the_link_keeps_the_order(world: World) -> None:
    """`order=newest` (the activity page, issue 64): the same events as the feed's order, reversed,
    each page older than the last through `meta.next_cursor` and the `Link` header; new events are
    read in the feed's order after the newest one's id."""
    alpha = unique()
    appended = [world.append("alpha.republished", alpha, n=n) for n in range(5)]
    pages: list[dict[str, Any]] = []
    params: dict[str, Any] = {"alpha": alpha, "limit": 2, "order": "newest"}
    while True:
        response = world.get("member", "/v1/events", **params)
        assert response.status_code == 200, response.text
        page = response.json()
        pages.append(page)
        if not page["pagination"]["has_more"]:
            break
        link = response.headers["link"]
        assert "order=newest" in link and f"after={page['meta']['next_cursor']}" in link
        params["after"] = page["meta"]["next_cursor"]
    served = [event for page in pages for event in page["data"]]
    assert [len(p["data"]) for p in pages] == [2, 2, 1]
    assert [e["id"] for e in served] == [world.cursor(e) for e in reversed(appended)]
    later = world.append("alpha.checks_changed", alpha, flipped=["ic"])
    fresh = feed(world, "member", alpha=alpha, after=served[0]["id"])
    assert [e["id"] for e in fresh["data"]] == [world.cursor(later)]
    bad = world.get("member", "/v1/events", order="sideways")
    assert bad.status_code == 400 and "order" in bad.text


def test_filters_by_type_and_alpha_repeated_or_listed(world: World) -> None:
    first, second = unique(), unique()
    made = [
        world.append("alpha.published", first),
        world.append("alpha.approved", first),
        world.append("alpha.published", second),
        world.append("alpha.retired", second),
    ]
    ids = [world.cursor(e) for e in made]
    repeated = world.get_pairs(
        "member", "/v1/events", [("alpha", first), ("alpha", second), ("type", "alpha.published")]
    )
    assert [e["id"] for e in repeated.json()["data"]] == [ids[0], ids[2]]
    listed = feed(world, "member", alpha=f"{first},{second}", type="alpha.approved,alpha.retired")
    assert [e["id"] for e in listed["data"]] == [ids[1], ids[3]]


def test_every_representation_carries_the_same_page(world: World) -> None:
    alpha = unique()
    hostile = unique("=HYPERLINK(")  # a cell a spreadsheet would run, as an alpha id
    world.append("alpha.published", alpha, note="=1+1", line="a\u2028b", nested={"x": [1, 2.5, None]})
    world.append("alpha.decay", alpha, check="live_information_ratio", value=-0.4)
    world.append("alpha.published", hostile, n=1)
    query = {"alpha": f"{alpha},{hostile}", "limit": 2}
    page = feed(world, "admin", **query)
    rows = page["data"]
    assert page["pagination"]["has_more"]

    for name, media in (
        ("csv", "text/csv"),
        ("ndjson", "application/x-ndjson"),
        ("arrow", "application/vnd.apache.arrow.stream"),
        ("parquet", "application/vnd.apache.parquet"),
    ):
        for how in ({"format": name}, {"accept": media}):
            params: dict[str, Any] = {**query, **({"format": name} if "format" in how else {})}
            headers = {**world.headers("admin"), **({"Accept": media} if "accept" in how else {})}
            response = httpx.get(
                f"http://127.0.0.1:{world.server.port}/v1/events",
                params=params,
                headers=headers,
                timeout=WAIT,
            )
            assert response.status_code == 200, response.text
            assert response.headers["content-type"].startswith(media)
            meta = json.loads(response.headers["x-meta"])
            assert meta["next_cursor"] == page["meta"]["next_cursor"] and meta["source"] == "records:events"
            assert json.loads(response.headers["x-pagination"])["has_more"] is True
            assert 'rel="next"' in response.headers["link"]
            if name == "ndjson":
                assert b"\\u2028" in response.content  # a record is one line for every reader
                served = [json.loads(line) for line in response.content.splitlines()]
                assert served == rows
                continue
            if name == "csv":
                text = pa.csv.ConvertOptions(column_types=dict.fromkeys(COLUMNS, pa.string()))
                table = pa.csv.read_csv(io.BytesIO(response.content), convert_options=text)
            elif name == "arrow":
                table = pyarrow.ipc.open_stream(response.content).read_all()
                assert (
                    json.loads(table.schema.metadata[b"meta"])["next_cursor"] == page["meta"]["next_cursor"]
                )
            else:
                table = pq.read_table(io.BytesIO(response.content))
            assert table.column_names == COLUMNS
            served = table.to_pylist()
            assert [r["id"] for r in served] == [r["id"] for r in rows]
            assert [r["type"] for r in served] == [r["type"] for r in rows]
            # `data` is one JSON text column, whatever keys each type's data has.
            assert [json.loads(r["data"]) for r in served] == [r["data"] for r in rows]
            if name == "csv":
                assert [r["created_at"] for r in served] == [r["created_at"] for r in rows]
            else:
                assert table.schema.field("created_at").type == pa.timestamp("us", tz="UTC")
                assert [r["created_at"].strftime("%Y-%m-%dT%H:%M:%S.%fZ") for r in served] == [
                    r["created_at"] for r in rows
                ]

    # The hostile alpha id is neutralised in the CSV as every text cell is, and kept as it is elsewhere.
    last = feed(world, "admin", **{**query, "after": page["meta"]["next_cursor"]})
    assert [r["alpha"] for r in last["data"]] == [hostile]
    csv = world.get("admin", "/v1/events", **{**query, "after": page["meta"]["next_cursor"], "format": "csv"})
    assert f'"\'{hostile}"' in csv.text


def test_an_empty_page_in_every_representation_has_its_columns(world: World) -> None:
    alpha = unique()
    for name in ("csv", "arrow", "parquet"):
        response = world.get("member", "/v1/events", alpha=alpha, format=name)
        assert response.status_code == 200, response.text
        if name == "csv":
            assert response.text.splitlines() == ['"id","type","alpha","created_at","data"']
        elif name == "arrow":
            assert pyarrow.ipc.open_stream(response.content).read_all().column_names[0] == "id"
        else:
            assert pq.read_table(io.BytesIO(response.content)).num_rows == 0


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"after": "not-a-cursor"}, "after"),
        ({"after": "0" * 32}, "after"),  # the right shape, but no cursor this service wrote
        ({"after": Cursors(b"another deployment").write(1)}, "after"),
        ({"type": "alpha.published,alpha.exploded"}, "type"),
        ({"type": ""}, "type"),
        ({"limit": "0"}, "limit"),
        ({"limit": "5001"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"sort": "id"}, "sort"),
    ],
)
def test_bad_parameters_are_400_naming_them(world: World, params: dict[str, str], named: str) -> None:
    # The stream takes no `limit`: there it is an unknown parameter, named as well.
    for path in ("/v1/events", "/v1/events/stream"):
        response = world.get("member", path, **params)
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "bad_request"
        assert named in [p["name"] for p in error["details"]["parameters"]], error


def test_a_bad_last_event_id_is_400_naming_it(world: World) -> None:
    for value in ("zzz", "0" * 32):
        headers = {**world.headers("member"), "Last-Event-ID": value}
        response = httpx.get(
            f"http://127.0.0.1:{world.server.port}/v1/events/stream", headers=headers, timeout=WAIT
        )
        assert response.status_code == 400
        assert [p["name"] for p in response.json()["error"]["details"]["parameters"]] == ["Last-Event-ID"]


def test_the_routes_are_denied_by_default(world: World) -> None:
    for path in ("/v1/events", "/v1/events/stream"):
        response = world.get("no_events", path)
        assert response.status_code == 403
        assert response.json()["error"]["details"]["endpoint"] in EVENTS_IDS
        assert httpx.get(f"http://127.0.0.1:{world.server.port}{path}", timeout=WAIT).status_code == 401


# -- what a key sees ---------------------------------------------------------------------------


def test_a_key_learns_nothing_of_an_alpha_it_may_not_read(world: World) -> None:
    visible, hidden = unique(), unique("production_")
    both = f"{visible},{hidden}"
    first = world.append("alpha.published", visible, n=1)
    before = feed(world, "narrow", alpha=both, limit=1)
    assert [e["id"] for e in before["data"]] == [world.cursor(first)] and not before["pagination"]["has_more"]
    resume = before["meta"]["next_cursor"]
    polled = without_request(feed(world, "narrow", alpha=both, after=resume))

    # Events about the hidden alpha: the key's pages are what they were, to the byte (no event, no
    # count, no has_more, no cursor that moves), and the same as for an alpha that does not exist.
    for n in range(3):
        world.append("alpha.republished", hidden, n=n)
    assert without_request(feed(world, "narrow", alpha=both, limit=1)) == without_request(before)
    assert without_request(feed(world, "narrow", alpha=both, after=resume)) == polled
    for alpha in (hidden, unique("no_such_alpha_")):
        asked = without_request(feed(world, "narrow", alpha=alpha))
        assert asked["data"] == [] and asked["pagination"]["total"] == 0
    assert without_request(feed(world, "narrow", alpha=hidden)) == without_request(
        feed(world, "narrow", alpha=unique("no_such_alpha_"))
    )
    assert without_request(feed(world, "narrow", alpha=hidden, after=resume)) == without_request(
        feed(world, "narrow", alpha=unique("no_such_alpha_"), after=resume)
    )

    # The next visible event follows the last one it saw, as if nothing lay between.
    second = world.append("alpha.republished", visible, n=2)
    after = feed(world, "narrow", alpha=both, after=resume)
    assert [e["id"] for e in after["data"]] == [world.cursor(second)]
    assert after["pagination"] == {"limit": 100, "offset": 0, "returned": 1, "total": 1, "has_more": False}
    # A key that may read both sees all, with the same cursors: they name events, not positions.
    everything, _ = all_pages(world, "member", alpha=both)
    assert [e["alpha"] for e in everything] == [visible, hidden, hidden, hidden, visible]
    assert {everything[0]["id"], everything[-1]["id"]} == {world.cursor(first), world.cursor(second)}


def test_the_run_allow_list_counts_too(world: World) -> None:
    """A key that may read a production alpha's description but not its run sees none of its
    events: they carry the run's figures, which its data routes would refuse."""
    production, testing = unique("production_"), unique()
    world.append("alpha.published", production, information_ratio=1.1)
    shown = world.append("alpha.published", testing, information_ratio=0.4)
    seen, _ = all_pages(world, "runs_narrow", alpha=f"{production},{testing}")
    assert [e["id"] for e in seen] == [world.cursor(shown)]


def test_administrators_events_and_a_keys_own(world: World) -> None:
    member, other = world.keys["member"], world.keys["other_member"]
    _, start = all_pages(world, "admin")
    refused = world.records.events.append("build.refused", {"rules": ["seal.sha256"]}, audience="admin")
    mine = world.records.events.append(
        "webhook.disabled", {"url": "https://x"}, audience="key", key_id=member.key_id
    )
    theirs = world.records.events.append(
        "webhook.disabled", {"url": "https://y"}, audience="key", key_id=other.key_id
    )
    seen = {
        who: [e["id"] for e in all_pages(world, who, after=start, type="build.refused,webhook.disabled")[0]]
        for who in ("admin", "member", "other_member", "narrow")
    }
    assert seen == {
        "admin": [world.cursor(refused)],
        "member": [world.cursor(mine)],
        "other_member": [world.cursor(theirs)],
        "narrow": [],
    }
    admin_event = feed(world, "admin", after=start, type="build.refused")["data"][0]
    assert admin_event["alpha"] is None and admin_event["data"] == {"rules": ["seal.sha256"]}


# -- the stream --------------------------------------------------------------------------------


def test_the_stream_sends_each_event_once_and_resumes_without_gap_or_duplicate(world: World) -> None:
    alpha = unique()
    opened = stream(world, "member", alpha=alpha)
    try:
        assert opened.status == 200
        assert opened.answer_headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in opened.answer_headers
        assert opened.answer_headers["cache-control"] == "no-store"
        assert opened.opening().id is not None
        first = [world.append("alpha.republished", alpha, n=n) for n in range(3)]
        received = opened.events(2)  # two of the three, then the connection drops
    finally:
        opened.close()
    assert [json.loads(m.data)["data"]["n"] for m in received] == [0, 1]
    assert all(msgspec.json.decode(m.data, type=StreamedEvent) for m in received)  # as declared, strictly
    for message, event in zip(received, first, strict=False):
        assert message.id == world.cursor(event) and message.event == "alpha.republished"
        assert json.loads(message.data) == {
            "id": world.cursor(event),
            "type": "alpha.republished",
            "alpha": alpha,
            "created_at": event.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "data": {"n": event.data["n"]},
        }

    more = [world.append("alpha.republished", alpha, n=n) for n in range(3, 6)]
    resumed = stream(world, "member", last_event_id=received[-1].id, alpha=alpha)
    try:
        assert resumed.opening().id == received[-1].id
        rest = resumed.events(4)
    finally:
        resumed.close()
    ids = [m.id for m in received + rest]
    assert ids == [world.cursor(e) for e in first + more]  # no gap, no duplicate
    # The same events on the feed, with the same ids.
    assert [e["id"] for e in all_pages(world, "member", alpha=alpha)[0]] == ids


def test_a_stream_from_now_sends_only_new_events_and_after_wins_below_last_event_id(world: World) -> None:
    alpha = unique()
    old = world.append("alpha.published", alpha)
    now = stream(world, "member", last_event_id="", alpha=alpha)  # an empty Last-Event-ID is none
    try:
        now.opening()
        new = world.append("alpha.approved", alpha, as_of="2026-11-20")
        assert [m.id for m in now.events(1)] == [world.cursor(new)]
    finally:
        now.close()
    # `after=` starts the stream; a Last-Event-ID (an EventSource reconnecting) wins over it.
    from_after = stream(world, "member", alpha=alpha, after=world.cursor(old))
    both = stream(world, "member", last_event_id=world.cursor(new), alpha=alpha, after=world.cursor(old))
    try:
        assert [m.id for m in from_after.events(1)] == [world.cursor(new)]
        latest = world.append("alpha.retired", alpha)
        assert [m.id for m in both.events(1)] == [world.cursor(latest)]
    finally:
        from_after.close()
        both.close()


def test_heartbeats_arrive_on_a_quiet_stream(world: World) -> None:
    quiet = stream(world, "member", alpha=unique())
    try:
        quiet.opening()
        beats = [quiet.next() for _ in range(2)]
    finally:
        quiet.close()
    assert beats == ["heartbeat", "heartbeat"]


def test_a_streaming_key_learns_nothing_of_an_alpha_it_may_not_read(world: World) -> None:
    visible, hidden = unique(), unique("production_")
    watching = stream(world, "narrow", alpha=f"{visible},{hidden}")
    unfiltered = stream(world, "narrow")
    try:
        start = watching.opening().id
        unfiltered.opening()
        for n in range(3):
            world.append("alpha.published", hidden, n=n)
        shown = world.append("alpha.published", visible)
        # The first thing after the opening is the visible event (heartbeats aside): nothing was
        # sent for the hidden ones, not even an `id:`.
        for opened in (watching, unfiltered):
            item = opened.next()
            while item == "heartbeat":
                item = opened.next()
            assert isinstance(item, Message) and item.id == world.cursor(shown), item
    finally:
        watching.close()
        unfiltered.close()
    # The opening cursor (the newest event the key may see) did not move with the hidden ones.
    again = stream(world, "narrow", alpha=f"{visible},{hidden}")
    try:
        assert again.opening().id == world.cursor(shown) != start
    finally:
        again.close()


def test_a_revoked_key_is_cut_and_narrowed_allow_lists_apply_at_once(world: World) -> None:
    key = new_key(world.url)
    world.keys["revoked"] = key
    alpha, other = unique(), unique()
    opened = stream(world, "revoked", alpha=f"{alpha},{other}")
    try:
        opened.opening()
        world.append("alpha.published", alpha)
        assert len(opened.events(1)) == 1
        # The key may now read `other` only: the next event about `alpha` is not sent.
        world.store_do(
            "set_key_grants", key.key_id, grants(AllowList.of_ids([other]), AllowList.of_ids([other]))
        )
        world.append("alpha.republished", alpha)
        shown = world.append("alpha.published", other)
        assert [m.id for m in opened.events(1)] == [world.cursor(shown)]
        world.store_do("revoke_key", key.key_id)
        while (item := opened.next()) is not None:  # heartbeats until the key is checked again
            assert item == "heartbeat", item
        assert opened.clean_end
    finally:
        opened.close()
    refused = world.get("revoked", "/v1/events/stream")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "key_revoked"


def test_a_stream_is_one_request_for_the_rate_limits(world: World) -> None:
    alpha = unique()
    store = open_store(world.url)
    try:  # the day window binds (the fewest requests left), so the count spans the whole test
        key = issue_key(
            store, rate_limit=RateLimit(per_second=1000, per_minute=10_000, per_day=50, monthly_requests=None)
        )
    finally:
        store.close()
    world.keys["metered"] = key
    opened = stream(world, "metered", alpha=alpha)
    try:
        used = int(opened.answer_headers["x-ratelimit-used"])
        opened.opening()
        for n in range(5):
            world.append("alpha.republished", alpha, n=n)
        opened.events(5)
        opened.next()  # a heartbeat too
    finally:
        opened.close()
    me = world.get("metered", "/v1/me")
    assert me.status_code == 200
    assert me.headers["x-ratelimit-window"] == opened.answer_headers["x-ratelimit-window"] == "day"
    # The stream was one request of the window; /v1/me the next one.
    assert int(me.headers["x-ratelimit-used"]) == used + 1


# -- the server's limits and its stop ----------------------------------------------------------


def test_a_client_that_does_not_read_is_cut_by_the_send_timeout(tmp_path: Path) -> None:
    """A stream whose client reads nothing fills its connection's buffers; then the send timeout
    drops it, as for any answer (serve/http_protocol.py)."""
    env = {
        "ALPHA_RESULTS_SEND_TIMEOUT_SECONDS": "1",
        "ALPHA_RESULTS_SEND_BUFFER_BYTES": "4096",
        "ALPHA_RESULTS_LOG_LEVEL": "info",
    }
    with served_world(tmp_path, env) as world:
        server = world.server
        alpha = unique()
        silent = socket.create_connection(("127.0.0.1", server.port))
        silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        token = world.headers("member")["Authorization"]
        silent.sendall(
            f"GET /v1/events/stream?alpha={alpha} HTTP/1.1\r\nHost: x\r\nAuthorization: {token}\r\n\r\n".encode()
        )
        try:
            big = "x" * 100_000
            appended = 0
            while "dropped a connection" not in server.output():
                if appended < 400:  # 40 MB at most: far more than every buffer on the way
                    world.append("alpha.republished", alpha, padding=big)
                    appended += 1
                else:
                    wait_for_line(server, "dropped a connection")
            assert "read none of" in server.output()
        finally:
            silent.close()
        # The server still answers.
        assert world.get("member", "/v1/events", alpha=unique()).status_code == 200


def wait_for_line(server: Served, text: str) -> None:
    deadline = threading.Event()
    for _ in range(int(WAIT * 10)):
        if text in server.output():
            return
        deadline.wait(0.1)
    raise AssertionError(f"no {text!r} in the server's output:\n{server.output()}")


def test_open_streams_end_cleanly_when_the_server_stops(tmp_path: Path) -> None:
    with served_world(tmp_path) as world:
        server = world.server
        streams = [stream(world, "member", alpha=unique()) for _ in range(3)]
        for opened in streams:
            opened.opening()
        server.process.terminate()
        # Each stream's body ends (its chunked terminator), then the server exits by itself.
        for opened in streams:
            assert opened.ended.wait(WAIT), "a stream was still open"
            assert opened.clean_end
            opened.close()
        # uvicorn ends a graceful stop by raising the signal it caught again: SIGTERM, not a kill.
        assert server.process.wait(timeout=WAIT) in (0, -signal.SIGTERM)


def test_an_events_figures_are_shown_as_the_routes_that_serve_them_would(world: World) -> None:
    """A key that may read the alpha and call the feed, but not the screener or the checks, gets
    the event with its figures null and named in `data.withheld`, on the feed and the stream."""
    alpha = unique()
    said = {
        "build_id": "b2",
        "previous_build_id": "b1",
        "headline": {"information_ratio": 1.2, "sessions": 40},
        "figures": {"information_ratio": {"before": 1.0, "after": 1.2, "moved": True}},
        "moved": ["information_ratio"],
        "checks": {"information_ratio": {"value": 1.2, "unit": "ratio", "verdict": "pass"}},
    }
    world.records.events.append("alpha.republished", said, alpha_id=alpha)
    [full] = feed(world, "member", alpha=alpha)["data"]
    assert full["data"] == said
    [limited] = feed(world, "no_figures", alpha=alpha)["data"]
    assert limited["id"] == full["id"]
    assert limited["data"] == {
        "build_id": "b2",
        "previous_build_id": "b1",
        "headline": None,
        "figures": None,
        "moved": None,
        "checks": None,
        "withheld": {
            block: f"access_limited: served by {route}, which this key may not call"
            for block, route in (
                ("headline", "analytics.screen"),
                ("figures", "analytics.screen"),
                ("moved", "analytics.screen"),
                ("checks", "analytics.checks"),
            )
        },
    }
    opened = stream(world, "no_figures", after=full["id"], alpha=alpha)
    try:
        world.records.events.append("alpha.republished", said, alpha_id=alpha)
        [sent] = opened.events(1)
    finally:
        opened.close()
    assert json.loads(sent.data)["data"] == limited["data"]


def test_a_check_over_the_catalogue_reaches_only_a_key_that_reads_every_alpha(world: World) -> None:
    """Issues 46 and 48: an event's production correlation, residual and Deflated Sharpe were
    computed by the pipeline over every alpha; a key of the `Test_` alphas alone read them on the
    feed and the stream. Now each is withheld from it (its own /analytics/checks computes them over
    the alphas it may read), and shown to a key that reads every alpha."""
    from delivery.event_answers import OVER_CATALOGUE

    alpha = unique()
    checks = {
        "information_ratio": {"value": 1.2, "unit": "ratio", "verdict": "pass"},
        "production_correlation": {"value": 0.0333, "unit": "correlation", "verdict": "pass"},
        "residual_information_ratio": {"value": 0.79, "unit": "ratio", "verdict": "pass"},
        "deflated_sharpe": {"value": 0.99, "unit": "probability", "verdict": "pass"},
    }
    said = {"build_id": "b1", "headline": None, "checks": checks}
    first = world.records.events.append("alpha.published", said, alpha_id=alpha)
    [everything] = feed(world, "member", alpha=alpha)["data"]
    assert everything["data"]["checks"] == checks
    wide = ("production_correlation", "residual_information_ratio", "deflated_sharpe")
    withheld = {
        **checks,
        **{
            check: {
                **checks[check],
                "value": None,
                "verdict": "not_measurable",
                "withheld_reason": OVER_CATALOGUE,
            }
            for check in wide
        },
    }
    [narrow] = feed(world, "narrow", alpha=alpha)["data"]
    assert narrow["data"]["checks"] == withheld
    opened = stream(world, "narrow", after=world.cursor(first), alpha=alpha)
    try:
        world.records.events.append("alpha.published", said, alpha_id=alpha)
        [sent] = opened.events(1)
    finally:
        opened.close()
    assert json.loads(sent.data)["data"]["checks"] == withheld
