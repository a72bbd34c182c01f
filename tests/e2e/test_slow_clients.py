"""The slow-client budget (issue 48, items 1 and 2; serve/slow_clients.py; docs/security.md "Slow
clients") through the real `alpha-results serve` process and raw sockets from several loopback
addresses (each one of 127.0.0.0/8 is a peer of its own):

- a request body that stops arriving (`Content-Length: 100` and one byte) is answered 408 in the
  error shape of the surface that reads it (`/mcp`, Delta Sharing's `query`) and its connection
  closed, where it was held for ever; a body arriving above the byte-rate floor is read whatever it
  takes, one below it is cut;
- the lock-outs, reproduced small on a worker of 16 places (4 per address): stalled bodies from
  four addresses, and one key's stalled bodies or event streams from four addresses, each filled
  every place and `/v1/health` answered 503; now the places come back (the deadline) or are never
  taken (the caps per key and per account, whose refusal is a 429 naming the cap).
"""

from __future__ import annotations

import json
import select
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from access import open_store
from records.store import open_records
from tests.health_wait import HANG_LIMIT, wait_until
from tests.ops.keys import DATA_GRANTS, ROOMY, IssuedKey, issue_key
from tests.support.raw_connections import HEALTH, Answer, Peer
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

PLACES, PER_ADDRESS = 16, 4
"""The worker's connection places and those of one address: four addresses fill the worker."""
ATTACKERS = [f"127.0.0.{n}" for n in range(2, 6)]
BYSTANDER = "127.0.0.6"
"""An address no attacker uses: the client that must still be answered."""
BODY_SECONDS = 1.5
"""The body deadline of the `deadline` server: short, so its tests are quick."""
CAP_PER_KEY, CAP_PER_ACCOUNT = 2, 3
"""Bodies and streams of one key, and of one account, the `caps` server holds at once."""
SHARING_QUERY = "/delta-sharing/shares/s/schemas/a/tables/t/query"


@dataclass
class Served:
    port: int
    output: list[str]
    keystore_url: str

    def key(self, user_id: str | None = None) -> IssuedKey:
        """A member key with every data endpoint, of a new account or of `user_id`'s."""
        store = open_store(self.keystore_url)
        try:
            if user_id is None:
                return issue_key(store)
            key, token = store.create_key(user_id, "second key", grants=DATA_GRANTS, rate_limit=ROOMY)
            return IssuedKey(key.key_id, token, user_id)
        finally:
            store.close()


@pytest.fixture(scope="module")
def tmp_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("slow_clients")


def serve(folder: Path, **settings: str) -> Iterator[Served]:
    """`alpha-results serve` (one worker, an empty lake: health answers `degraded`, which is 200)
    with `PLACES` connections, `PER_ADDRESS` per address, and `settings`."""
    folder.mkdir()
    (folder / "lake").mkdir()
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    open_records(keystore_url).close()  # the event tables and the cursors' secret, as a build makes them
    env = {
        "ALPHA_RESULTS_MAX_CONNECTIONS_PER_WORKER": str(PLACES),
        "ALPHA_RESULTS_MAX_CONNECTIONS_PER_PEER": str(PER_ADDRESS),
        **{f"ALPHA_RESULTS_{name.upper()}": value for name, value in settings.items()},
    }
    with serving(folder / "lake", keystore_url, workers=1, env=env) as (port, output):
        yield Served(port, output, keystore_url)


@pytest.fixture(scope="module")
def deadline(tmp_module: Path) -> Iterator[Served]:
    """A short body deadline, and caps per key and per account as large as the worker: the
    deadline alone is what frees the places."""
    yield from serve(
        tmp_module / "deadline",
        request_body_timeout_seconds=str(BODY_SECONDS),
        max_request_bodies_per_key=str(PLACES),
        max_request_bodies_per_account=str(PLACES),
    )


@pytest.fixture(scope="module")
def caps(tmp_module: Path) -> Iterator[Served]:
    """Small caps per key and per account, and a body deadline the tests never reach: a stalled
    body keeps its place until its client leaves."""
    yield from serve(
        tmp_module / "caps",
        request_body_timeout_seconds="600",
        max_request_bodies_per_key=str(CAP_PER_KEY),
        max_request_bodies_per_account=str(CAP_PER_ACCOUNT),
        max_streams_per_key=str(CAP_PER_KEY),
        max_streams_per_account=str(CAP_PER_ACCOUNT),
    )


# -- requests ----------------------------------------------------------------------------------


def post_head(path: str, key: IssuedKey, length: int) -> bytes:
    """A POST head announcing `length` bytes of JSON body, as an MCP client or a Delta Sharing
    client sends it."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key.token}\r\n"
        f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def stalled(port: int, key: IssuedKey, source: str = "127.0.0.1", path: str = "/mcp") -> Peer:
    """The attack of the issue: a head announcing 100 bytes of body, and one byte of it."""
    peer = Peer(port, source=source)
    peer.send(post_head(path, key, 100) + b"{")
    return peer


def stream_request(key: IssuedKey) -> bytes:
    return (
        f"GET /v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key.token}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()


def stream_answer(peer: Peer) -> Answer:
    """The answer to a stream request: a 200's head alone (its body never ends), a refusal whole."""
    while b"\r\n\r\n" not in peer.buffer:
        assert peer._fill(), f"the connection closed before an answer: {peer.buffer[:200]!r}"
    if peer.buffer.startswith(b"HTTP/1.1 200 "):
        return Answer(200, {}, b"")
    return peer.answer()


def health_status(port: int, source: str = BYSTANDER) -> int:
    peer = Peer(port, source=source)
    try:
        peer.send(HEALTH)
        return peer.answer().status
    except (OSError, AssertionError):
        return 0  # refused at once and reset: no place
    finally:
        peer.close()


def answered(peers: list[Peer], count: int) -> list[tuple[Peer, Answer]]:
    """Wait for `count` of `peers` to answer (each one answer, read whole); the others are left
    unread. Fails as a hang when fewer answer within the hang limit."""
    done: list[tuple[Peer, Answer]] = []
    waiting = list(peers)
    deadline = time.monotonic() + HANG_LIMIT
    while len(done) < count:
        left = deadline - time.monotonic()
        assert left > 0, f"only {len(done)} of {count} connections answered (a hang)"
        readable, _, _ = select.select([p.sock for p in waiting], [], [], min(left, 1.0))
        for peer in [p for p in waiting if p.sock in readable]:
            done.append((peer, peer.answer()))
            waiting.remove(peer)
    return done


def unanswered(peer: Peer) -> bool:
    """Nothing has come on the connection, and it is open."""
    return not peer.buffer and not select.select([peer.sock], [], [], 0)[0]


def mcp_refusal(answer: Answer) -> dict[str, Any]:
    """The API's error envelope inside the JSON-RPC error `/mcp` answers a refused body with."""
    body = json.loads(answer.body)
    assert body["jsonrpc"] == "2.0" and body["id"] is None, body
    error: dict[str, Any] = body["error"]["data"]["error"]
    assert body["error"]["message"].startswith(f"HTTP {answer.status} {error['code']}: ")
    return error


# -- item 1: bodies that stop arriving -----------------------------------------------------------


def test_a_stalled_body_is_refused_with_408_in_the_shape_of_its_surface(deadline: Served) -> None:
    """Before, `Content-Length: 100` and one byte held the connection for ever (no answer after
    75 s, no close) at `/mcp` with any valid key, the self-service member key included, and at
    Delta Sharing's `query`."""
    key = deadline.key()
    mcp = stalled(deadline.port, key)
    answer = mcp.answer()
    assert answer.status == 408 and answer.headers["connection"] == "close", answer
    error = mcp_refusal(answer)
    assert error["code"] == "request_body_timeout"
    assert error["details"] == {
        "limit_seconds": BODY_SECONDS,
        "min_bytes_per_second": 1024,
        "received_bytes": 1,
    }
    assert mcp.closed_within()

    sharing = stalled(deadline.port, key, path=SHARING_QUERY)
    answer = sharing.answer()
    assert answer.status == 408 and answer.headers["connection"] == "close", answer
    body = json.loads(answer.body)
    assert body["errorCode"] == "REQUEST_BODY_TIMEOUT"  # the protocol's error body
    assert body["message"].startswith("The request body did not arrive in time (1 byte of it came): ")
    assert sharing.closed_within()

    def refused_routes() -> set[str]:
        lines = [json.loads(line) for line in list(deadline.output) if line.startswith("{")]
        return {line["route"] for line in lines if line["status"] == 408}

    # Each access line says 408 under its route (written once its answer is sent: waited for).
    wait_until(lambda: refused_routes() >= {"mcp", "exports.download"}, "the two 408 access lines")


def test_a_stream_asked_for_with_a_stalled_body_is_refused_with_408(deadline: Served) -> None:
    """Issue 81, item 8 (c): the event stream answered a request whose body had not arrived and
    streamed on, so its trickled body was never cut (no 408, the connection held as long as the
    client liked). It reads the body first now, under the same deadline: 408, in the API's envelope."""
    key = deadline.key()
    peer = Peer(deadline.port)
    head = stream_request(key).replace(b"\r\n\r\n", b"\r\nContent-Length: 100\r\n\r\n", 1)
    peer.send(head + b"{")
    answer = stream_answer(peer)  # before: a 200 stream at once, its body held open
    assert answer.status == 408 and answer.headers["connection"] == "close", answer
    error = json.loads(answer.body)["error"]
    assert error["code"] == "request_body_timeout" and error["details"]["received_bytes"] == 1, error
    assert peer.closed_within()
    # A body that arrives whole is read and the stream answers as without one.
    whole = Peer(deadline.port)
    whole.send(stream_request(key).replace(b"\r\n\r\n", b"\r\nContent-Length: 2\r\n\r\n", 1) + b"{}")
    assert stream_answer(whole).status == 200
    whole.close()


def test_a_body_above_the_byte_rate_floor_is_read_whatever_it_takes(deadline: Served) -> None:
    """The deadline grows by 1 s for every 1,024 bytes received: a 30 KB message sent in pieces
    over longer than the deadline is read whole and answered; one trickled at 10 bytes a second is
    cut while it is still being sent."""
    key = deadline.key()
    message = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}).encode()
    body = message + b" " * 30_000  # whitespace is JSON: one message, 30 KB
    peer = Peer(deadline.port)
    peer.send(post_head("/mcp", key, len(body)))
    started = time.monotonic()
    for start in range(0, len(body), 1500):
        peer.send(body[start : start + 1500])
        # At least the deadline's length in all: without the floor's credit the body would be cut.
        time.sleep(BODY_SECONDS / 10)
    assert time.monotonic() - started > BODY_SECONDS
    answer = peer.answer()
    assert answer.status == 200, answer
    assert json.loads(answer.body) == {"jsonrpc": "2.0", "id": 7, "result": {}}
    peer.close()

    slow = Peer(deadline.port)
    slow.send(post_head("/mcp", key, 2000))
    sent = 0
    while sent < 2000 and not select.select([slow.sock], [], [], 0.1)[0]:
        slow.send(b" ")  # 10 bytes a second: far below the floor
        sent += 1
    assert slow.answer().status == 408
    assert sent < 2000, "the server kept reading a body below the floor"
    assert slow.closed_within()


def test_stalled_bodies_from_four_addresses_no_longer_lock_out_the_worker(deadline: Served) -> None:
    """The issue's attack, small: one key's stalled bodies from four addresses, four each, hold
    every place of the worker, so another client's `/v1/health` was 503 for as long as they
    stayed, which was for ever. Each is now cut at its deadline and its place given back."""
    key = deadline.key()
    peers = [stalled(deadline.port, key, source) for source in ATTACKERS for _ in range(PER_ADDRESS)]
    for _, answer in answered(peers, len(peers)):
        assert answer.status == 408, answer
        assert mcp_refusal(answer)["code"] == "request_body_timeout"
    for peer in peers:
        assert peer.closed_within()
    assert wait_until(lambda: health_status(deadline.port) == 200, "the bystander's health answered")


# -- the caps per key and per account: bodies and streams ----------------------------------------


def test_one_key_cannot_fill_a_worker_with_stalled_bodies(caps: Served) -> None:
    """Even before their deadline: one key's stalled bodies hold at most its cap of the worker's
    places (the rest are 429 before a byte of them is read), its account's keys together theirs,
    and a place is given back when its client leaves."""
    key = caps.key()
    peers = [stalled(caps.port, key, source) for source in ATTACKERS for _ in range(PER_ADDRESS)]
    refused = answered(peers, len(peers) - CAP_PER_KEY)
    for peer, answer in refused:
        assert answer.status == 429, answer
        assert answer.headers["retry-after"] == "10" and answer.headers["connection"] == "close"
        error = mcp_refusal(answer)
        assert error["code"] == "too_many_request_bodies"
        assert error["details"] == {"limit": CAP_PER_KEY, "per": "key"}
        assert error["message"] == (
            f"This key holds {CAP_PER_KEY} request bodies still arriving on this server process, "
            "the most it may; retry once one of them has ended."
        )
        assert peer.closed_within()
    held = [peer for peer in peers if not any(peer is done for done, _ in refused)]
    assert len(held) == CAP_PER_KEY and all(unanswered(peer) for peer in held)
    assert health_status(caps.port) == 200  # the places the key could not take are free

    # Another key of the same account: the account's cap counts both keys' bodies.
    second = caps.key(key.user_id)
    allowed = stalled(caps.port, second, BYSTANDER)
    over = stalled(caps.port, second, BYSTANDER)
    [(late, answer)] = answered([allowed, over], 1)
    assert mcp_refusal(answer)["details"] == {"limit": CAP_PER_ACCOUNT, "per": "account"}

    # A place comes back when its client leaves: the key's next body is read (here a whole one).
    for peer in [*held, allowed if late is over else over]:
        peer.close()
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()

    def ping_answered() -> bool:
        peer = Peer(caps.port)
        peer.send(post_head("/mcp", key, len(ping)) + ping)
        status = peer.answer().status
        peer.close()
        return status == 200

    wait_until(ping_answered, "a body of the key read once its stalled ones left")


def test_one_key_cannot_fill_a_worker_with_event_streams(caps: Served) -> None:
    """One key opened 4 x 128 streams and every other client got 503. A worker now holds at most
    the key's cap of its streams, and its account's cap of all its keys' streams; the next is 429
    `too_many_streams` naming the cap, its connection kept (idle, so it makes room for others)."""
    key = caps.key()
    peers = [Peer(caps.port, source=source) for source in ATTACKERS for _ in range(PER_ADDRESS)]
    for peer in peers:
        peer.send(stream_request(key))
    answers = [stream_answer(peer) for peer in peers]
    assert sorted(answer.status for answer in answers) == [200] * CAP_PER_KEY + [429] * (
        len(peers) - CAP_PER_KEY
    )
    for answer in [a for a in answers if a.status == 429]:
        assert answer.error["code"] == "too_many_streams", answer
        assert answer.error["details"] == {"limit": CAP_PER_KEY, "per": "key"}
        assert answer.error["message"] == (
            f"This key holds {CAP_PER_KEY} open event streams on this server process, the most it "
            "may; retry once one of them has ended."
        )
        assert answer.headers["retry-after"] == "10"
    assert health_status(caps.port) == 200

    second = caps.key(key.user_id)
    allowed, over = Peer(caps.port, source=BYSTANDER), Peer(caps.port, source=BYSTANDER)
    for peer in (allowed, over):
        peer.send(stream_request(second))
    assert stream_answer(allowed).status == 200
    refused = stream_answer(over)
    assert refused.status == 429 and refused.error["details"] == {"limit": CAP_PER_ACCOUNT, "per": "account"}
    # Another account's key is not held back by this one's.
    other = Peer(caps.port, source=BYSTANDER)
    other.send(stream_request(caps.key()))
    assert stream_answer(other).status == 200

    # The places come back when the streams' clients leave.
    for peer, answer in zip(peers, answers, strict=True):
        if answer.status == 200:
            peer.close()

    def opens() -> bool:
        peer = Peer(caps.port)
        peer.send(stream_request(key))
        status = stream_answer(peer).status
        peer.close()
        return status == 200

    wait_until(opens, "a stream of the key opened once its streams were closed")
    for peer in [*peers, allowed, over, other]:
        peer.close()
