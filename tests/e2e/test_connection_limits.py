"""What one connection may cost a worker, through the real `alpha-results serve` process and raw
sockets (serve/http_protocol.py; docs/security.md "Connections and request heads"): a request head
over its limits is refused in the error envelope without being buffered, a head that does not
arrive in time is refused, an idle connection is closed, a request body cannot hold a connection
open, each worker holds a bounded number of connections, and a refusal never takes the answer of a
pipelined request read before it."""

from __future__ import annotations

import fcntl
import json
import select
import socket
import struct
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.settings import Settings
from serve.http_protocol import ConnectionLimits
from serve.routes.developer import STATIC_DIR, SWAGGER_UI_URL, SWAGGER_UI_VERSION
from tests.bench.connections_bench import Hostile
from tests.health_wait import HANG_LIMIT, wait_until
from tests.shared_servers import HEAD_TIMEOUT, SharedServer
from tests.support.raw_connections import HEALTH, Answer, Peer, assert_refused
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e


@contextmanager
def server(tmp_path: Path, **settings: str) -> Iterator[int]:
    with server_and_output(tmp_path, **settings) as (port, _):
        yield port


@contextmanager
def server_and_output(tmp_path: Path, **settings: str) -> Iterator[tuple[int, list[str]]]:
    """`alpha-results serve` (one worker, an empty lake: health answers `degraded`, which is 200)."""
    lake = tmp_path / "lake"
    lake.mkdir(exist_ok=True)
    env = {"ALPHA_RESULTS_REQUEST_HEAD_TIMEOUT_SECONDS": str(HEAD_TIMEOUT)}
    env.update({f"ALPHA_RESULTS_{name.upper()}": value for name, value in settings.items()})
    with serving(lake, f"sqlite:///{tmp_path}/keys.sqlite3", workers=1, env=env) as (port, output):
        yield port, output


@pytest.fixture
def port(short_head_server: SharedServer) -> int:
    """The server with the default limits (and the short head timeout) for the tests that need
    nothing else of it, shared."""
    return short_head_server.port


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, list[str]]]:
    """16 connections per worker (and per peer: the worker's limit alone), and heads and sends
    that do not time out during a test (silent and non-reading connections stay held): the
    tests of idle and busy connections, one after the other."""
    with server_and_output(
        tmp_path_factory.mktemp("capped"),
        max_connections_per_worker="16",
        max_connections_per_peer="16",
        request_head_timeout_seconds="600",
        send_timeout_seconds="600",
    ) as served:
        yield served


@pytest.fixture(scope="module")
def one_second_send(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, list[str]]]:
    """A send timeout of 1 s: the tests of clients that read an answer slowly or not at all."""
    with server_and_output(tmp_path_factory.mktemp("one_second_send"), send_timeout_seconds="1") as served:
        yield served


def held_connections(port: int) -> list[str]:
    """The states of the connections the server holds on `port`: open, or closed by the client and
    not yet by the server (a place of the worker either way)."""
    return [state for state, _ in server_sockets(port).values() if state in ("ESTABLISHED", "CLOSE_WAIT")]


def holds_no_connection(port: int) -> bool:
    """Whether the server holds no connection on `port`: a test on a shared server starts from there."""
    return not held_connections(port)


def rss_peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def worker_pid(output: list[str]) -> int:
    """The worker's pid, from the access line of a request it answered (written once the response
    is sent: waited for)."""
    line = wait_until(
        lambda: next((line for line in output if line.startswith("{") and '"pid"' in line), None),
        f"an access line: {output}",
    )
    return int(json.loads(line)["pid"])


# ---------------------------------------------------------------------------------------------
# Oversized heads
# ---------------------------------------------------------------------------------------------


def test_an_oversized_header_is_refused_with_431_and_the_connection_closed(port: int) -> None:
    peer = Peer(port)
    # 100 kB of one header, the head unfinished: the refusal comes as soon as 64 KiB were read,
    # not at the end of the head (nor at the head timeout: that would be a 408).
    peer.send(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000)
    answer = peer.answer()
    assert_refused(answer, 431, "request_head_too_large")
    assert answer.error["details"] == {"limit_bytes": 65536}
    try:  # the rest of a 10 MB header: nothing the worker keeps (the memory test below)
        peer.send(b"a" * 9_900_000 + b"\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server stopped reading
    assert peer.closed_within()
    # Many headers, each small, over the limit in total: the same refusal.
    peer = Peer(port)
    many = b"".join(b"X-H%d: %s\r\n" % (i, b"b" * 1000) for i in range(80))
    peer.send(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n")
    assert_refused(peer.answer(), 431, "request_head_too_large")
    assert peer.closed_within()
    # A head just under the limit is served.
    peer = Peer(port)
    peer.send(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 60_000 + b"\r\n\r\n")
    assert peer.answer().status == 200
    peer.close()


def test_an_overlong_request_target_is_refused_with_414(port: int) -> None:
    peer = Peer(port)
    peer.send(b"GET /v1/health?" + b"q" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = peer.answer()
    assert_refused(answer, 414, "request_target_too_long")
    assert answer.error["details"] == {"limit_bytes": 8192}
    assert peer.closed_within()
    # Under the limit: an ordinary answer (here the health route's 400 for a query string).
    peer = Peer(port)
    peer.send(b"GET /v1/health?" + b"q" * 8000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert peer.answer().status == 400
    peer.close()


def test_incomplete_huge_headers_do_not_grow_the_worker(short_head_server: SharedServer) -> None:
    """Four connections each sending 40 MB of one header that never ends: the worker reads about
    64 KiB of each and drops the rest, so its peak memory stays where it was."""
    port, output = short_head_server.port, short_head_server.output
    peer = Peer(port)
    peer.send(HEALTH)
    assert peer.answer().status == 200
    pid = worker_pid(output)
    before = rss_peak_kib(pid)

    def flood() -> None:
        peer = Peer(port, timeout=30)
        try:
            peer.send(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ")
            for _ in range(40):
                peer.send(b"a" * 1_000_000)
        except OSError:
            pass  # refused and closed: the rest is not wanted
        finally:
            peer.close()

    threads = [threading.Thread(target=flood) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_LIMIT)
    grown_mib = (rss_peak_kib(pid) - before) / 1024
    peer = Peer(port)
    peer.send(HEALTH)
    assert peer.answer().status == 200  # the worker still answers
    assert grown_mib < 16, f"the worker's peak memory grew by {grown_mib:.0f} MiB"


# ---------------------------------------------------------------------------------------------
# Heads that do not arrive, idle connections, bodies
# ---------------------------------------------------------------------------------------------


def test_a_head_that_does_not_arrive_in_time_is_refused_with_408(port: int) -> None:
    peer = Peer(port)
    peer.send(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")  # never finished
    answer = peer.answer()
    assert_refused(answer, 408, "request_head_timeout")
    assert answer.error["details"] == {"limit_seconds": HEAD_TIMEOUT}  # the server's setting
    assert peer.closed_within()
    # A slow client that keeps sending does not extend the deadline: the refusal comes while it
    # is still trickling a head that would take it at least a minute (a byte per 0.1 s).
    peer = Peer(port)
    trickle = b"GET /v1/health HTTP/1.1\r\nX-Slow: " + b"s" * 600
    sent = 0
    while sent < len(trickle) and not select.select([peer.sock], [], [], 0.1)[0]:
        peer.send(trickle[sent : sent + 1])
        sent += 1
    assert_refused(peer.answer(), 408, "request_head_timeout")
    assert sent < len(trickle), "the server kept reading a head past its timeout"


def test_an_idle_connection_is_closed_without_an_answer(port: int) -> None:
    peers = [Peer(port) for _ in range(20)]
    for peer in peers:
        assert peer.closed_within()  # at the head timeout; before, never
        assert peer.buffer == b""  # nothing was asked, nothing is answered
    # Empty lines before a head are not a head: they keep no connection open either, after an
    # answer (when uvicorn's keep-alive timer no longer runs) as before one. The server closes the
    # connection while the client still sends them.
    peer = Peer(port)
    peer.send(HEALTH)
    assert peer.answer().status == 200

    def closed_while_sending() -> bool:
        try:
            peer.send(b"\r\n")
        except OSError:
            return True  # reset: closed
        return bool(select.select([peer.sock], [], [], 0.25)[0]) and peer.closed_within()

    wait_until(
        closed_while_sending, "the server closing a connection that sends only empty lines", interval=0
    )
    assert peer.buffer == b""


def test_a_request_body_cannot_hold_the_connection_open(port: int) -> None:
    """A request whose body has not arrived whole when it is answered is answered and its
    connection closed, so a body trickled after the answer holds nothing."""
    peer = Peer(port)
    peer.send(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
    answer = peer.answer()
    assert answer.status == 200 and answer.headers["connection"] == "close"
    assert peer.closed_within()


def test_a_whole_body_keeps_the_connection_for_the_next_request(port: int) -> None:
    """A body that arrived whole before its answer cannot trickle after it: its connection serves
    the next request (an MCP client's tool calls, each a POST, on one connection)."""
    peer = Peer(port)
    peer.send(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n\r\nabc")
    first = peer.answer()
    assert first.status == 401 and first.headers.get("connection") != "close", first.headers
    peer.send(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert peer.answer().status == 200


# ---------------------------------------------------------------------------------------------
# Connections per worker and per peer
# ---------------------------------------------------------------------------------------------


def logged(output: list[str], text: str, mark: int = 0) -> None:
    """Wait for a line of the server's output (read by a thread as it is written), from `mark` on,
    holding `text`."""
    wait_until(lambda: any(text in line for line in output[mark:]), f"a log line with {text!r}")


def asset_request(name: str) -> bytes:
    return f"GET {SWAGGER_UI_URL}/{name} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


BUNDLE = asset_request("swagger-ui-bundle.js")
"""The Swagger UI bundle: 1.7 MB, no key needed, larger than what the kernel queues for a connection."""


def non_reader(port: int, request: bytes = BUNDLE, source: str = "127.0.0.1") -> socket.socket:
    """A client that asks for `request` and never reads it, with a 4 KiB receive buffer (the
    kernel takes little of the answer on its side)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(request)
    return sock


def received_bytes(sock: socket.socket) -> int:
    return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0])


def busy_reader(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection busy sending the bundle to a client that does not read it."""
    sock = non_reader(port, source=source)
    wait_until(lambda: received_bytes(sock) > 0, "the answer arriving")
    return sock


@pytest.mark.parametrize("kept_alive", [False, True], ids=["silent", "kept_alive"])
def test_idle_connections_of_one_client_do_not_lock_another_out(
    capped: tuple[int, list[str]], kept_alive: bool
) -> None:
    """One client holds every connection of the worker, each idle (never sending, or kept alive
    after one request), and reopens each one the server closes: before, every other client got 503
    too_many_connections (158 of 159 tries at the default 512). Now a newcomer closes the idle
    connection held longest, and every try of another client is answered."""
    cap, tries = 16, 20
    port, output = capped
    wait_until(lambda: holds_no_connection(port), "the server free of the last test's connections")
    mark = len(output)
    statuses = []
    with Hostile(port, cap, kept_alive=kept_alive) as hostile:
        for _ in range(tries):
            wait_until(hostile.holding, f"the hostile client holding {cap} connections")
            peer = Peer(port, source="127.0.0.2")
            peer.send(HEALTH)
            statuses.append(peer.answer().status)
            peer.close()
    assert statuses == [200] * tries
    logged(output, "closed an idle connection from 127.0.0.1", mark)


def test_a_connection_is_refused_only_when_every_held_one_is_busy(capped: tuple[int, list[str]]) -> None:
    """Busy connections (here answers being sent to clients that do not read them) are never
    closed to make room; an idle one is. A newcomer is refused only when all are busy."""
    cap = 16
    port, output = capped
    wait_until(lambda: holds_no_connection(port), "the server free of the last test's connections")
    mark = len(output)
    readers = [busy_reader(port) for _ in range(cap - 1)]
    silent = Peer(port)
    newcomer = Peer(port, source="127.0.0.2")
    newcomer.send(HEALTH)
    assert newcomer.answer().status == 200  # the silent connection made room
    assert silent.closed_within()
    assert silent.buffer == b""  # nothing was asked, nothing is answered
    newcomer.close()
    readers.append(busy_reader(port))  # takes the newcomer's place (closing it, if still held)
    extra = Peer(port, source="127.0.0.2")
    answer = extra.answer()
    assert_refused(answer, 503, "too_many_connections")
    assert answer.headers["retry-after"] == "1"
    assert answer.error["details"] == {"limit": cap, "per": "worker"}
    assert extra.closed_within()
    logged(output, "refused a connection: 16 busy (max_connections_per_worker)", mark)
    for sock in readers:
        sock.close()
    again = Peer(port, source="127.0.0.2")
    again.send(HEALTH)
    assert again.answer().status == 200
    again.close()


def test_one_peer_holds_at_most_its_share_of_a_worker(tmp_path: Path) -> None:
    cap, share = 16, 4
    with server_and_output(
        tmp_path,
        max_connections_per_worker=str(cap),
        max_connections_per_peer=str(share),
        request_head_timeout_seconds="600",  # the busy heads stay busy for the test's length
    ) as (port, output):
        busy = [Peer(port, source="127.0.0.2") for _ in range(share)]
        for peer in busy:
            peer.send(b"GET /v1/health HTTP/1.1\r\n")  # a request being read: busy
        fifth = Peer(port, source="127.0.0.2")
        answer = fifth.answer()
        assert_refused(answer, 503, "too_many_connections")
        assert answer.error["details"] == {"limit": share, "per": "peer_address"}
        assert answer.error["message"] == (
            "This server process holds 4 connections from your address, each busy; retry shortly."
        )
        assert fifth.closed_within()
        logged(output, "refused a connection from 127.0.0.2: 4 busy (max_connections_per_peer)")
        # Another address is served meanwhile, and stays held, idle, after its answer.
        other = Peer(port, source="127.0.0.3")
        other.send(HEALTH)
        assert other.answer().status == 200
        # The peer's own idle connection, not another peer's, makes room for its newcomer.
        busy[0].send(b"Host: x\r\n\r\n")
        assert busy[0].answer().status == 200
        newcomer = Peer(port, source="127.0.0.2")
        newcomer.send(HEALTH)
        assert newcomer.answer().status == 200
        assert busy[0].closed_within()
        other.send(HEALTH)
        assert other.answer().status == 200
        for peer in [*busy, other, newcomer]:
            peer.close()


UNFINISHED = b"GET /v1/health HTTP/1.1\r\n"
"""A request head begun and never finished: a busy connection until the head timeout."""


def unfinished_heads(port: int, sources: list[str], each: int) -> list[Peer]:
    heads = []
    for source in sources:
        for _ in range(each):
            peer = Peer(port, source=source)
            peer.send(UNFINISHED)
            heads.append(peer)
    return heads


def closed_for_room(heads: list[Peer]) -> list[Answer]:
    """The answers of the heads the server closed to make room (each a 503 before its close),
    those peers taken out of `heads`."""
    found = []
    for peer in list(heads):
        if select.select([peer.sock], [], [], 0)[0]:
            answer = peer.answer()
            assert peer.closed_within()
            found.append(answer)
            heads.remove(peer)
            peer.close()
    return found


@pytest.fixture(scope="module")
def fair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, list[str]]]:
    """16 places per worker, 4 per address, 8 per address block, and heads that do not time out
    during a test: issue 60's lock-out from four addresses, small."""
    with server_and_output(
        tmp_path_factory.mktemp("fair"),
        max_connections_per_worker="16",
        max_connections_per_peer="4",
        max_connections_per_address_block="8",
        request_head_timeout_seconds="600",
    ) as served:
        yield served


def test_unfinished_heads_from_four_addresses_do_not_lock_out_a_client(fair: tuple[int, list[str]]) -> None:
    """Issue 60, finding 1: 128 unfinished heads from each of four addresses filled a worker's 512
    places and a well-behaved client's /v1/health got 503 (0 of 10). Now, with the worker full of
    heads, a newcomer closes the oldest unfinished head of the address holding the most (in the
    largest block), answered 503 saying why; a client that sends its request in time is served,
    and one whose connection is open but has not sent its head yet is not the one closed."""
    port, output = fair
    wait_until(lambda: holds_no_connection(port), "the server free of the last test's connections")
    mark = len(output)
    sources = [f"127.0.{n}.2" for n in range(1, 5)]  # four addresses in four /24 blocks
    heads = unfinished_heads(port, sources, 4)  # 16: the worker is full, each one busy
    bystander = Peer(port, source="127.0.9.1")
    bystander.send(HEALTH)
    assert bystander.answer().status == 200  # before: 503 too_many_connections
    logged(output, "closed an unfinished request head from 127.0.", mark)
    (closed,) = closed_for_room(heads)
    assert_refused(closed, 503, "too_many_connections")
    assert closed.error["details"] == {"limit": 16, "per": "worker", "closed": "unfinished_head"}
    # A client whose connection is open and whose head has not come yet keeps its place while an
    # address holding more opens another: the newcomer closes one of that address's heads.
    waiting = Peer(port, source="127.0.8.1")
    more = unfinished_heads(port, [sources[0]], 1)
    waiting.send(HEALTH)
    assert waiting.answer().status == 200
    for peer in [*heads, *more, bystander, waiting]:
        peer.close()


def test_an_address_block_holds_at_most_its_share_and_its_small_holders_keep_theirs(
    fair: tuple[int, list[str]],
) -> None:
    """Addresses of one /24 hold at most `max_connections_per_address_block` of a worker: beyond,
    a newcomer of the block closes an unfinished head of the block's largest holder (another
    address of the same block included), and only when none may be closed is it refused."""
    port, output = fair
    wait_until(lambda: holds_no_connection(port), "the server free of the last test's connections")
    heads = unfinished_heads(port, ["127.0.0.2", "127.0.0.3"], 4)  # the block 127.0.0.0/24 is full
    neighbour = Peer(port, source="127.0.0.4")
    neighbour.send(HEALTH)
    assert neighbour.answer().status == 200
    (closed,) = closed_for_room(heads)
    assert closed.error["details"] == {"limit": 8, "per": "address_block", "closed": "unfinished_head"}
    # Outside the block nothing is closed: the worker has room.
    other = Peer(port, source="127.0.5.1")
    other.send(HEALTH)
    assert other.answer().status == 200
    assert closed_for_room(heads) == []
    # A block whose every connection is busy refuses its newcomer with the block's 503.
    for peer in heads:
        peer.close()
    neighbour.close()
    # Gone from the server (TIME_WAIT, which the kernel keeps 60 s after the server closed first,
    # holds no place): only `other`'s remains.
    wait_until(lambda: len(held_connections(port)) <= 1, "the block's connections gone")
    busy = [busy_reader(port, source="127.0.0.2") for _ in range(4)]
    busy += [busy_reader(port, source="127.0.0.3") for _ in range(4)]
    refused = Peer(port, source="127.0.0.4")
    answer = refused.answer()
    assert_refused(answer, 503, "too_many_connections")
    assert answer.error["details"] == {"limit": 8, "per": "address_block"}
    logged(output, "busy in 127.0.0.0/24 (max_connections_per_address_block)")
    for sock in busy:
        sock.close()
    other.close()


# ---------------------------------------------------------------------------------------------
# Pipelining
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "refused",
    [
        (b"GARBAGE\r\n\r\n", 400, "bad_request"),
        (b"GET /v1/health HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n", 431, "request_head_too_large"),
    ],
    ids=["unparsable", "oversized"],
)
def test_a_pipelined_request_keeps_its_answer_before_the_next_is_refused(
    port: int, refused: tuple[bytes, int, str]
) -> None:
    raw, status, code = refused
    peer = Peer(port)
    peer.send(HEALTH + HEALTH + raw)  # one packet
    for _ in range(2):
        first = peer.answer()
        assert first.status == 200 and b'"status":"degraded"' in first.body
    assert_refused(peer.answer(), status, code)
    assert peer.closed_within()


def test_clients_that_never_read_a_large_answer_cannot_hold_the_connections(tmp_path: Path) -> None:
    """Requests for the Swagger UI bundle (1.7 MB, no key needed) whose answers are never read held
    their connection for ever, so as many such clients as the connection cap locked every other
    client out (503, still after 12 s). Each is now dropped once it has read nothing for the send
    timeout. Six requests pipelined on each connection: more than the kernel's buffers absorb even
    at Linux's default 4 MiB send buffer (the server's is 256 KiB), so the answer waits in the
    server process."""
    cap, send_timeout, pipelined = 3, 1.0, 6
    request = f"GET {SWAGGER_UI_URL}/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    with server_and_output(
        tmp_path, max_connections_per_worker=str(cap), send_timeout_seconds=str(send_timeout)
    ) as (port, output):
        readers = []
        for _ in range(cap):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel takes little
            sock.connect(("127.0.0.1", port))
            sock.sendall(request * pipelined)
            readers.append(sock)
        # Never reading: each is dropped once it has taken nothing for the send timeout (logged).
        wait_until(
            lambda: sum("dropped a connection" in line for line in list(output)) == cap,
            f"the {cap} non-readers dropped",
        )
        peer = Peer(port)
        peer.send(HEALTH)
        answer = peer.answer()
        assert answer.status == 200, answer  # a place was free: the non-readers were dropped
        peer.close()
        for sock in readers:
            reader = Peer.__new__(Peer)
            reader.sock, reader.buffer = sock, b""
            assert reader.closed_within()  # what was sent, then the end: never the whole bundle
            assert len(reader.buffer) < pipelined * 1_700_000
            sock.close()
        assert sum("dropped a connection" in line for line in output) == cap
        assert not [line for line in output if "Traceback" in line or "Exception in ASGI" in line]


def test_a_slow_reader_of_a_large_answer_is_served_whole(one_second_send: tuple[int, list[str]]) -> None:
    """A client that reads the bundle in small bites is never dropped, whatever the worker's
    buffer holds at each check: it took some bytes in each send-timeout period, even when the
    worker refilled its buffer with the file's next 1 MB chunk in between (more bytes waiting)."""
    bundle = (STATIC_DIR / "swagger-ui" / SWAGGER_UI_VERSION / "swagger-ui-bundle.js").read_bytes()
    port, output = one_second_send
    mark = len(output)
    sock = non_reader(port)
    sock.settimeout(60)
    received = b""
    while b"\r\n\r\n" not in received or len(received.partition(b"\r\n\r\n")[2]) < len(bundle):
        chunk = sock.recv(4096)  # a bite at a time, a pause between bites: about 300 KB/s
        assert chunk, f"closed after {len(received):,} bytes"
        received += chunk
        time.sleep(0.01)
    sock.close()
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    assert body == bundle
    assert not [line for line in output[mark:] if "dropped a connection" in line]


TCP_STATES = {1: "ESTABLISHED", 4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT"}


def server_sockets(port: int) -> dict[int, tuple[str, int]]:
    """The server's TCP connections on `port`, from the kernel's table (/proc/net/tcp), by the
    client's port: (state, bytes queued to send)."""
    sockets = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        _, local, remote, state, queues, *_ = line.split()
        if int(local.rpartition(":")[2], 16) == port and (client_port := int(remote.rpartition(":")[2], 16)):
            sockets[client_port] = (TCP_STATES.get(int(state, 16), state), int(queues.partition(":")[0], 16))
    return sockets


@pytest.mark.parametrize(
    "asset",
    ["swagger-ui-bundle.js", "swagger-ui.css"],
    ids=["larger_than_the_send_buffer", "within_the_send_buffer"],
)
def test_an_answer_the_client_does_not_read_is_not_left_in_the_kernel(
    one_second_send: tuple[int, list[str]], asset: str
) -> None:
    """A client with a small receive buffer asks for a public asset and never reads. Before, the
    kernel took the whole answer (its send buffer grows to 4 MiB), the worker closed the
    connection after its keep-alive timeout, and the kernel kept the closed socket in FIN-WAIT-1
    with the answer queued for minutes (1.7 MB for the bundle, 20 clients 48 MB). Now the kernel
    holds at most the bounded send buffer: the rest waits in the worker, which drops the
    connection with a reset once the client has taken nothing for the send timeout; what fits in
    the kernel is dropped by it (TCP_USER_TIMEOUT) soon after. Either way the server's socket and
    its queue are gone, and the client, once it reads, meets the reset."""
    port, output = one_second_send
    mark = len(output)
    sock = non_reader(port, asset_request(asset))
    client_port = sock.getsockname()[1]
    wait_until(
        lambda: server_sockets(port).get(client_port, ("", 0))[1] > 0, "the answer queued in the kernel"
    )
    wait_until(
        lambda: client_port not in server_sockets(port),
        f"the server's socket gone with its queue: {server_sockets(port).get(client_port)}",
    )
    sock.settimeout(10)
    received = 0
    with pytest.raises(ConnectionResetError):
        while chunk := sock.recv(65536):
            received += len(chunk)
    assert received < (STATIC_DIR / "swagger-ui" / SWAGGER_UI_VERSION / asset).stat().st_size
    sock.close()
    assert not [line for line in output[mark:] if "Traceback" in line or "Exception" in line]


# ---------------------------------------------------------------------------------------------
# The settings
# ---------------------------------------------------------------------------------------------


def test_the_limits_are_settings_and_a_bad_value_refuses_to_start() -> None:
    assert ConnectionLimits.of(Settings.from_env({})) == ConnectionLimits(
        request_target_bytes=8192,
        head_bytes=65536,
        head_timeout_seconds=10.0,
        connections=512,
        connections_per_peer=128,
        connections_per_block=256,
        send_timeout_seconds=30.0,
        send_buffer_bytes=262144,
    )
    # Behind trusted proxies every connection comes from a proxy: no bound per peer or block.
    proxied = ConnectionLimits.of(Settings.from_env({"ALPHA_RESULTS_TRUSTED_PROXY_HOPS": "1"}))
    assert proxied.connections_per_peer is None and proxied.connections_per_block is None
    bad = {
        "ALPHA_RESULTS_MAX_REQUEST_TARGET_BYTES": "0",
        "ALPHA_RESULTS_MAX_REQUEST_HEAD_BYTES": "-1",
        "ALPHA_RESULTS_REQUEST_HEAD_TIMEOUT_SECONDS": "inf",
        "ALPHA_RESULTS_MAX_CONNECTIONS_PER_WORKER": "many",
        "ALPHA_RESULTS_MAX_CONNECTIONS_PER_PEER": "0",
        "ALPHA_RESULTS_MAX_CONNECTIONS_PER_ADDRESS_BLOCK": "0",
        "ALPHA_RESULTS_SEND_TIMEOUT_SECONDS": "0",
        "ALPHA_RESULTS_SEND_BUFFER_BYTES": "-4096",
    }
    for name, value in bad.items():
        with pytest.raises(ValueError, match=name):
            Settings.from_env({name: value})
