"""The HTTP protocol `alpha-results serve` hands uvicorn: uvicorn's httptools protocol, plus what a
service facing hostile clients needs on each connection before any request reaches the app
(docs/security.md, "Connections and request heads"; the limits are settings, docs/settings.md).

- **Bounded request heads.** httptools sets no limit and gathers a header's bytes until it ends:
  a 100 MB header took 15 s of a worker's CPU, and incomplete ones held their bytes in memory. A
  request target over `max_request_target_bytes` is 414, a head over `max_request_head_bytes` 431,
  both refused as soon as the bytes arrive, so a worker never holds much more than the limit.
- **A head timeout.** A head must arrive whole within `request_head_timeout_seconds` of its first
  byte (of the connection's opening, for the first request), however slowly it trickles: else 408.
  A connection that sent nothing by then is closed without an answer (uvicorn closes an idle
  keep-alive connection after 5 s, and kept a connection that never sent a byte for ever).
- **A body still arriving closes its connection.** Only `/mcp` and Delta Sharing's `query` read a
  body, under a deadline and a byte-rate floor (serve/slow_clients.py, in the app, so that each
  surface refuses a late body in its own error shape); a request whose body has not arrived whole
  when its answer starts is answered and its connection closed, so a body trickled after the answer
  cannot hold the connection. One whose body arrived whole first keeps its connection as any
  request does (an MCP client's tool calls, each a POST, reuse one connection: nothing of theirs can
  arrive after the answer).
- **Connections per worker, shared fairly.** A worker holds at most `max_connections_per_worker`:
  each costs a descriptor and some memory, and a worker also needs descriptors for its backends
  and builds (docs/operations.md, "File limits"). At the limit a new connection closes a connection
  that may be closed (an idle one: it has sent no byte of a request yet, or is kept alive after
  its answers, all sent; else one whose request head is still arriving, answered 503 saying why)
  of the address holding the most connections in the address block holding the most (its idle one
  held longest first, then its oldest head). Refusing the newcomer instead let one client holding
  512 silent connections, reopened as they closed, get 158 of 159 other clients' connections
  refused; closing the oldest idle one alone let 128 unfinished heads from each of four addresses
  (issue 60) keep every place busy, and would close the newcomer of a client that holds one
  connection before its head came. Only when every held connection is busy (a request being
  answered or its body read, an answer being sent) is the newcomer answered 503 and closed at
  once.
- **Connections per peer and per address block.** A worker holds at most
  `max_connections_per_peer` connections from one client address (an IPv6 client's /64, which one
  host commonly holds whole): at the bound the peer's new connection closes the peer's own oldest
  idle one, else it is refused, so one client's busy connections cannot fill the worker. And at
  most `max_connections_per_address_block` from one block (an IPv4 /24, an IPv6 /48): at the bound
  the block's largest holder gives up a connection as above, so neighbours of a crowd keep their
  place and many addresses of one network hold half a worker at most. Loopback is a peer like any
  other. Behind trusted proxies (`trusted_proxy_hops` > 0) every connection comes from a proxy, so
  neither bound is applied: bounding each client is the proxy's to do.
- **Refusals in the error envelope**, like every other answer of the service, not uvicorn's plain
  text: these, and a request the parser refuses (a NUL byte in a header). A refusal comes after the
  answers of the requests read before it on the connection (a pipelined request keeps its answer),
  then nothing more is read: the sending side is shut and what the client still sends is dropped
  for `LINGER_SECONDS`, so a client still sending its head reads the refusal instead of a reset.
- **A send timeout.** An answer the client does not read waits in the connection's buffers: the
  app's send blocks, and a closing connection waits for them to drain, so a client that asks for a
  large body (the 1.4 MB Swagger UI bundle needs no key) and never reads held its connection for
  ever, and 512 of them filled a worker. While answer bytes wait, the client must take some of
  them every `send_timeout_seconds`, else the connection is dropped with a reset (there is no way
  to say anything more to a client that reads nothing, and a plain close leaves the unsent bytes
  queued in the kernel). A slow reader that makes progress is served.
- **A bounded kernel send buffer.** Linux grows a connection's send buffer up to 4 MiB by default,
  so a whole 1.7 MB answer went into the kernel, out of reach of the send timeout: the worker
  closed the connection after the keep-alive timeout, and the kernel kept the closed socket
  (FIN-WAIT-1) with its 1.7 MB queued for minutes, 20 such clients 48 MB. Each connection's
  SO_SNDBUF is `send_buffer_bytes`, so what the client does not take waits in the worker, and
  TCP_USER_TIMEOUT (twice the send timeout: the worker's own check acts first on an open
  connection) makes the kernel drop a connection, closed or not, whose queued bytes make no
  progress.
- **One send per answer.** uvicorn writes an answer's head when the app starts it and its body
  when the app sends it: two system calls, each waking the client on loopback, which took 40 % of
  a worker's samples on a loaded machine (issue 49, item 3). The writes one pass of the event loop
  makes on a connection leave together (`CoalescedWrites`: one `writelines`, which uvloop sends
  as one `writev`), so a whole answer is one send; a head whose body comes later (an event
  stream) leaves at the end of the pass, as before.
- **TCP_NODELAY** on every accepted connection. With `--workers 2` uvicorn binds the listening
  socket itself (`socket.socket(AF_INET)`, protocol number 0), and asyncio sets TCP_NODELAY only on
  sockets whose protocol number is `IPPROTO_TCP`. A response leaves as two writes (head, then body),
  so Nagle's algorithm held the body until the client's delayed ACK of the head: about 44 ms per
  keep-alive request instead of 0.5 ms. uvloop sets it on every TCP handle, but the server must not
  depend on which event loop runs it.

Imported only by uvicorn in each worker (by name, from `cli.serve.uvicorn_options`), so the
CLI's other commands do not pay for importing uvicorn's protocol modules.
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import http
import ipaddress
import logging
import socket
import struct
import termios
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NoReturn

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import get_remote_addr

from core import errors
from core.settings import Settings
from serve import stopping
from serve.envelope import CONTENT_TYPE_OPTIONS, JSON, REQUEST_ID_HEADER, error_response, request_id_of

log = logging.getLogger("serve.http")

LINGER_SECONDS = 2.0
"""How long a refused connection drops what the client still sends before it is closed. Closing
with unread bytes makes the kernel reset the connection, and the reset can overtake the refusal."""


@dataclass(frozen=True)
class ConnectionLimits:
    request_target_bytes: int
    head_bytes: int
    head_timeout_seconds: float
    connections: int
    connections_per_peer: int | None  # None behind trusted proxies: the peer is a proxy
    connections_per_block: int | None  # the same
    send_timeout_seconds: float
    send_buffer_bytes: int

    @classmethod
    def of(cls, settings: Settings) -> ConnectionLimits:
        direct = not settings.trusted_proxy_hops
        return cls(
            request_target_bytes=settings.max_request_target_bytes,
            head_bytes=settings.max_request_head_bytes,
            head_timeout_seconds=settings.request_head_timeout_seconds,
            connections=settings.max_connections_per_worker,
            connections_per_peer=settings.max_connections_per_peer if direct else None,
            connections_per_block=settings.max_connections_per_address_block if direct else None,
            send_timeout_seconds=settings.send_timeout_seconds,
            send_buffer_bytes=settings.send_buffer_bytes,
        )


@functools.cache
def worker_limits() -> ConnectionLimits:
    """The limits of this worker: read once, from the environment the app's settings come from."""
    return ConnectionLimits.of(Settings.from_env())


def tcp_socket(transport: asyncio.BaseTransport) -> Any:
    """The transport's socket when it is a TCP socket (not a Unix socket), else None."""
    sock = transport.get_extra_info("socket")
    return sock if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6) else None


def tune_socket(transport: asyncio.BaseTransport, limits: ConnectionLimits) -> None:
    """TCP_NODELAY, the bounded send buffer, and the kernel's own send timeout (twice the
    worker's, in milliseconds), on an accepted TCP connection."""
    if (sock := tcp_socket(transport)) is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, limits.send_buffer_bytes)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, int(limits.send_timeout_seconds * 2000))


def reset_on_close(transport: asyncio.BaseTransport) -> None:
    """SO_LINGER 0: closing sends a reset and the kernel discards what is still queued, instead of
    keeping the closed socket and its bytes until the client reads them or the kernel gives up."""
    if (sock := tcp_socket(transport)) is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


SIOCOUTQNSD = 0x894B
"""Linux's ioctl (linux/sockios.h) for the bytes a TCP socket holds and has not sent yet: those
the client's window has no room for. Bytes sent and not yet acknowledged are on their way."""


def queued_bytes(transport: asyncio.BaseTransport) -> tuple[int, int]:
    """Bytes in the kernel's queues of the transport's socket: received and not read by the worker
    (FIONREAD), and not sent to the client yet (SIOCOUTQNSD); (0, 0) for a non-TCP socket."""
    if (sock := tcp_socket(transport)) is None:
        return 0, 0
    unread, unsent = (
        struct.unpack("i", fcntl.ioctl(sock.fileno(), request, b"\0\0\0\0"))[0]
        for request in (termios.FIONREAD, SIOCOUTQNSD)
    )
    return unread, unsent


def peer_of(client: tuple[str, int] | None) -> str:
    """The address a peer's connections are counted under: its IP address, an IPv6 one's /64 (one
    host commonly holds a whole /64), an IPv4-mapped IPv6 one's IPv4 address."""
    return _counted_as(client, 32, 64)


def block_of(client: tuple[str, int] | None) -> str:
    """The address block a peer's connections are also counted under: an IPv4 /24, an IPv6 /48 (a
    site's usual assignment, RFC 6177), an IPv4-mapped IPv6 address's /24."""
    return _counted_as(client, 24, 48)


def _counted_as(client: tuple[str, int] | None, v4_prefix: int, v6_prefix: int) -> str:
    host = client[0] if client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # a Unix socket: one peer, one block
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = v4_prefix if isinstance(address, ipaddress.IPv4Address) else v6_prefix
    if prefix == address.max_prefixlen:
        return str(address)
    return str(ipaddress.ip_network((address, prefix), strict=False))


class CoalescedWrites:
    """A connection's transport whose writes in one pass of the event loop leave as one
    `writelines` at its end (or before a close), with everything else the transport's own."""

    __slots__ = ("_transport", "_held", "_loop")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._held: list[bytes] | None = None
        self._loop = loop

    def write(self, data: bytes) -> None:
        if not data:
            return
        if self._held is None:
            self._held = [data]
            self._loop.call_soon(self.flush)
        else:
            self._held.append(data)

    def flush(self) -> None:
        held, self._held = self._held, None
        if held and not self._transport.is_closing():
            if len(held) == 1:
                self._transport.write(held[0])
            else:
                self._transport.writelines(held)

    def get_write_buffer_size(self) -> int:
        held = sum(len(data) for data in self._held) if self._held else 0
        return self._transport.get_write_buffer_size() + held

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class HeldConnections:
    """The connections a worker holds: how many per peer and per address block, and those that may
    be closed to make room, oldest first per peer: the idle ones, and those reading a request head
    with no request of theirs being answered (ordered dicts: adding, removing and taking the oldest
    are O(1); choosing whose to close is O(peers held), at most the worker's connections)."""

    def __init__(self) -> None:
        self.per_peer: Counter[str] = Counter()
        self.per_block: Counter[str] = Counter()
        self.peers_of_block: dict[str, set[str]] = {}
        self.idle: OrderedDict[ServiceHttpProtocol, None] = OrderedDict()
        self.idle_per_peer: dict[str, OrderedDict[ServiceHttpProtocol, None]] = {}
        self.heads_per_peer: dict[str, OrderedDict[ServiceHttpProtocol, None]] = {}
        self.held = 0

    def busy(self) -> int:
        """How many held connections are busy: a request being read or answered, or an answer
        being sent (the access log writes at once when only the caller's own is: serve/access_log.py)."""
        return self.held - len(self.idle)

    def hold(self, connection: ServiceHttpProtocol) -> None:
        self.held += 1
        self.per_peer[connection.peer] += 1
        self.per_block[connection.block] += 1
        self.peers_of_block.setdefault(connection.block, set()).add(connection.peer)
        self.mark_idle(connection)

    def release(self, connection: ServiceHttpProtocol) -> None:
        self.mark_busy(connection)
        self.held -= 1
        peer, block = connection.peer, connection.block
        self.per_peer[peer] -= 1
        if not self.per_peer[peer]:
            del self.per_peer[peer]
            self.idle_per_peer.pop(peer, None)
            self.heads_per_peer.pop(peer, None)
            self.peers_of_block[block].discard(peer)
        self.per_block[block] -= 1
        if not self.per_block[block]:
            del self.per_block[block]
            del self.peers_of_block[block]

    def mark_idle(self, connection: ServiceHttpProtocol) -> None:
        self.mark_busy(connection)
        connection.idle = True
        self.idle[connection] = None
        self.idle_per_peer.setdefault(connection.peer, OrderedDict())[connection] = None

    def mark_reading_head(self, connection: ServiceHttpProtocol) -> None:
        """A head is arriving and no earlier request of the connection is being answered: closing
        it loses the client nothing but a head it has been slow to send."""
        if not connection.reading_head:
            self.mark_busy(connection)
            connection.reading_head = True
            self.heads_per_peer.setdefault(connection.peer, OrderedDict())[connection] = None

    def mark_busy(self, connection: ServiceHttpProtocol) -> None:
        if connection.idle:
            connection.idle = False
            del self.idle[connection]
            del self.idle_per_peer[connection.peer][connection]
        if connection.reading_head:
            connection.reading_head = False
            del self.heads_per_peer[connection.peer][connection]

    def evict_oldest_idle(self, peer: str) -> bool:
        """Close the peer's idle connection held longest; False when it holds none. One found busy
        after all (bytes of a request not read yet, or of an answer not sent) leaves the idle ones:
        it is marked idle again when its next answer is sent, and an idle keep-alive connection is
        closed by uvicorn's keep-alive timeout anyway."""
        idle = self.idle_per_peer.get(peer)
        while idle:
            connection = next(iter(idle))
            self.mark_busy(connection)
            if connection.evictable():
                connection.evict()
                return True
        return False

    def make_room(self, limit: int, per: str, block: str | None = None) -> bool:
        """Close a connection of the address holding the most connections (of `block` when given,
        else of the address block holding the most) among those holding one that may be closed:
        its idle connection held longest, else its oldest unfinished head. False when none may be.
        So a client holding a few connections keeps them while others hold many: four addresses
        sending heads they never finish fill a worker no longer, and a client that sends its
        request in time is served."""
        while (peer := self._largest_holder(block)) is not None:
            if self.evict_oldest_idle(peer):
                return True
            heads = self.heads_per_peer.get(peer)
            if heads:
                connection = next(iter(heads))
                self.mark_busy(connection)
                connection.evict_head(limit, per)
                return True
        return False

    def _largest_holder(self, block: str | None) -> str | None:
        def may_close(peer: str) -> bool:
            return bool(self.idle_per_peer.get(peer)) or bool(self.heads_per_peer.get(peer))

        blocks = [block] if block is not None else self.per_block
        best: tuple[int, int, str] | None = None
        for name in blocks:
            for peer in self.peers_of_block.get(name, ()):
                if may_close(peer):
                    rank = (self.per_block[name], self.per_peer[peer], peer)
                    if best is None or rank > best:
                        best = rank
        return None if best is None else best[2]


@functools.cache
def worker_connections() -> HeldConnections:
    return HeldConnections()


def refusal(error: errors.ApiError) -> bytes:
    """The whole HTTP/1.1 response refusing a connection or a request head: `error` in the one
    error envelope (serve.envelope), and `connection: close`."""
    request_id = request_id_of({})
    body = bytes(error_response(error, request_id).content)
    headers = {
        "content-type": JSON,
        "content-length": str(len(body)),
        REQUEST_ID_HEADER.lower(): request_id,
        CONTENT_TYPE_OPTIONS[0].lower(): CONTENT_TYPE_OPTIONS[1],
        **{name.lower(): value for name, value in error.headers.items()},
        "connection": "close",
    }
    status = f"HTTP/1.1 {error.status} {http.HTTPStatus(error.status).phrase}\r\n"
    head = status + "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    return head.encode("latin-1") + body


def unparsable(reason: str) -> errors.ApiError:
    """400 `bad_request` for a request the parser refused. The envelope is the spec's:
    `details.parameters` is a list, empty since no parameter was read, and `details.rule` says
    which rule of HTTP/1.1 the request broke (the parser's words, about the client's own bytes)."""
    return errors.BadRequest(
        f"The request is not valid HTTP/1.1 and was not read: {reason}.",
        details={"parameters": [], "rule": reason},
    )


def head_too_large(limit: int) -> errors.ApiError:
    return errors.RequestHeadTooLarge(
        f"The request head (request line and header fields) is larger than {limit:,} bytes.",
        details={"limit_bytes": limit},
    )


def head_timeout(seconds: float) -> errors.ApiError:
    return errors.RequestHeadTimeout(
        f"The request head did not arrive whole within {seconds:g} s.", details={"limit_seconds": seconds}
    )


def _holding(limit: int, per: str) -> str:
    return {
        "worker": f"its {limit:,} connections",
        "peer_address": f"{limit:,} connections from your address",
        "address_block": f"{limit:,} connections from your address block",
    }[per]


def too_many_connections(limit: int, per: str) -> errors.ApiError:
    """503 for a connection beyond `limit` busy connections `per` worker, per peer address or per
    address block."""
    return errors.TooManyConnections(
        f"This server process holds {_holding(limit, per)}, each busy; retry shortly.",
        details={"limit": limit, "per": per},
        headers={"Retry-After": "1"},
    )


def head_closed_for_room(limit: int, per: str) -> errors.ApiError:
    """503 for a connection closed while its request head was still arriving, to hold another's:
    the server holds `limit` connections `per` worker or address block, the most of them this
    client's address's."""
    return errors.TooManyConnections(
        f"This server process holds {_holding(limit, per)}, the most of them from your address, and "
        "needed this one's place while its request head was still arriving; retry shortly.",
        details={"limit": limit, "per": per, "closed": "unfinished_head"},
        headers={"Retry-After": "1"},
    )


def head_size(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]]) -> int:
    """The bytes of a request head as sent without optional whitespace: `METHOD target HTTP/1.1`,
    each `name: value` line, and the empty line that ends the head."""
    return len(method) + len(target) + 12 + sum(len(name) + len(value) + 4 for name, value in headers) + 2


def announces_body(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    return any(
        name == b"transfer-encoding" or (name == b"content-length" and value.strip() != b"0")
        for name, value in headers
    )


class HeadRefused(Exception):
    """Raised from a parser callback to stop the parser; `data_received` answers the refusal."""


class ServiceHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the module's limits, refusals and TCP_NODELAY."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = worker_limits()
        self.held = worker_connections()
        self.peer = ""  # peer_of(client), counted in `held` once the connection is admitted
        self.block = ""  # block_of(client), the same
        self.admitted = False
        self.idle = False  # in `held`'s idle connections: may be closed to admit another
        self.reading_head = False  # in `held`'s unfinished heads: may be closed to admit another
        self.head_open = True  # the next bytes read belong to a request head (or come before one)
        self.head_begun = False  # a head's first byte was parsed, and not its end
        self.head_bytes = 0  # bytes read since the head opened (those of its first read may be missed)
        # The request whose body is arriving and whether it asked to keep the connection: kept only
        # if the body ends before its answer starts (`on_message_complete`).
        self.body_of: tuple[Any, bool] | None = None
        self.head_timer: asyncio.TimerHandle | None = None
        self.refused: bytes | None = None  # the refusal, written or waiting for earlier answers
        self.refused_by_callback: errors.ApiError | None = None
        self.send_timer: asyncio.TimerHandle | None = None
        self.took_some = False  # the client took answer bytes since the send timer was armed
        self.cycles: list[Any] = []  # the requests read and not yet answered whole, in order

    # -- the connection ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        tune_socket(transport, self.limits)
        client = get_remote_addr(transport)
        self.peer, self.block = peer_of(client), block_of(client)
        if (refused := self.admission()) is not None:
            self.transport, self.refused = transport, b""
            transport.write(refusal(refused))
            transport.close()  # at once: lingering would hold the descriptor the limit protects
            return
        super().connection_made(CoalescedWrites(transport, self.loop))  # type: ignore[arg-type]
        self.admitted = True
        self.held.hold(self)
        self.arm_head_timer()

    def shutdown(self) -> None:
        # Before uvicorn waits for the connections to close: an open event stream ends its answer
        # on this announcement, or the worker would wait for it for ever (serve/stopping.py).
        stopping.announce()
        super().shutdown()

    def admission(self) -> errors.ApiError | None:
        """None when this connection may be held, making room by closing another if needed; else
        the refusal. A peer at its bound makes room among its own idle connections only; at its
        block's bound, or the worker's, the address holding the most (in the block, in the worker's
        largest block) gives up an idle connection or an unfinished head."""
        limits, held = self.limits, self.held
        per_peer, per_block = limits.connections_per_peer, limits.connections_per_block
        if per_peer is not None and held.per_peer[self.peer] >= per_peer:
            if not held.evict_oldest_idle(self.peer):
                log.warning(
                    "refused a connection from %s: %d busy (max_connections_per_peer)", self.peer, per_peer
                )
                return too_many_connections(per_peer, "peer_address")
        elif per_block is not None and held.per_block[self.block] >= per_block:
            if not held.make_room(per_block, "address_block", self.block):
                log.warning(
                    "refused a connection from %s: %d busy in %s (max_connections_per_address_block)",
                    self.peer,
                    per_block,
                    self.block,
                )
                return too_many_connections(per_block, "address_block")
        elif len(self.connections) >= limits.connections and not held.make_room(limits.connections, "worker"):
            log.warning("refused a connection: %d busy (max_connections_per_worker)", len(self.connections))
            return too_many_connections(limits.connections, "worker")
        return None

    def evictable(self) -> bool:
        """Idle now: no request byte waits unread (the client may have just sent one: closing then
        would reset the connection), and its answers have left the server whole, none waiting in
        the worker or unsent in the kernel (a client that does not read them is not idle, and
        closing would leave them queued in the kernel)."""
        transport = self.transport
        return (
            not transport.is_closing()
            and not transport.get_write_buffer_size()
            and queued_bytes(transport) == (0, 0)
        )

    def evict(self) -> None:
        log.info("closed an idle connection from %s to hold another", _peer(self.client))
        self.transport.close()

    def evict_head(self, limit: int, per: str) -> None:
        """Close this connection, whose head is still arriving, with a 503 saying why, at once (its
        place is wanted now: no lingering)."""
        log.info("closed an unfinished request head from %s to hold another", _peer(self.client))
        self.stop_head_timer()
        self.refused = b""  # nothing more is read
        if not self.transport.is_closing():
            self.transport.write(refusal(head_closed_for_room(limit, per)))
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_head_timer()
        self.stop_send_timer()
        if self.admitted:
            self.admitted = False
            self.held.release(self)
        super().connection_lost(exc)

    # -- answers the client does not read --------------------------------------------------------

    def pause_writing(self) -> None:
        super().pause_writing()
        self.watch_sending()

    def resume_writing(self) -> None:
        super().resume_writing()
        self.took_some = True  # the buffer fell below its low mark: the kernel sent, the client read

    def watch_sending(self) -> None:
        """Check, `send_timeout_seconds` from now, that the client took some of the answer bytes
        waiting now (the transport's buffer; the kernel's buffers are full before it holds any)."""
        if self.send_timer is None:  # closing too: a close waits for the bytes to drain
            waiting = self.transport.get_write_buffer_size()
            if waiting:
                self.took_some = False
                self.send_timer = self.loop.call_later(
                    self.limits.send_timeout_seconds, self.check_sending, waiting
                )

    def check_sending(self, waiting_before: int) -> None:
        self.send_timer = None
        waiting = self.transport.get_write_buffer_size()
        if not waiting:
            return
        # Fewer bytes wait, or the buffer fell below its low mark and the app refilled it with its
        # next chunk (up to 1 MB for a file): comparing the counts alone would miss that reader.
        if waiting < waiting_before or self.took_some:
            self.watch_sending()  # a slow reader, but a reader
            return
        log.info(
            "dropped a connection from %s: its client read none of %d answer bytes in %g s (send_timeout_seconds)",
            _peer(self.client),
            waiting,
            self.limits.send_timeout_seconds,
        )
        # Before the abort, so no answer writes to the closed transport (uvloop raises): every
        # unfinished one, since `self.cycle` is the last request parsed, not the one answering;
        # its `receive` is woken too (uvicorn wakes the last one's only), or a shutdown waits for ever.
        for cycle in self.cycles:
            cycle.disconnected = cycle.disconnected or not cycle.response_complete
            cycle.message_event.set()
        reset_on_close(self.transport)
        self.transport.abort()

    def stop_send_timer(self) -> None:
        if self.send_timer is not None:
            self.send_timer.cancel()
            self.send_timer = None

    def data_received(self, data: bytes) -> None:
        if self.refused is not None:
            return  # dropped: nothing after a refusal is read
        self._unset_keepalive_if_required()
        if self.head_open and not self.answering():
            self.held.mark_reading_head(self)
        else:
            self.held.mark_busy(self)
        if self.head_open:
            self.head_bytes += len(data)
            if self.head_timer is None:  # bytes before a head (empty lines) start its clock too
                self.arm_head_timer()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
        except httptools.HttpParserError as exc:
            self.refuse(self.refused_by_callback or unparsable(str(exc) or "malformed request"))
        else:
            if self.head_open and self.head_bytes > self.limits.head_bytes:
                self.refuse(head_too_large(self.limits.head_bytes))

    def arm_head_timer(self) -> None:
        self.head_timer = self.loop.call_later(self.limits.head_timeout_seconds, self.head_timed_out)

    def head_timed_out(self) -> None:
        self.head_timer = None
        if self.head_begun:
            self.refuse(head_timeout(self.limits.head_timeout_seconds))
        elif self.refused is None and not self.answering():
            self.transport.close()  # nothing was asked: nothing to answer

    def stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    # -- the parser's callbacks ----------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.head_begun = True
        if self.head_timer is None:
            self.arm_head_timer()

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > self.limits.request_target_bytes:
            self.stop_parser(errors.target_too_long(self.limits.request_target_bytes))

    def on_headers_complete(self) -> None:
        # `head_bytes` misses the part of a head read together with the end of the request before
        # it (pipelining); the head's own size catches that, once it is whole.
        if head_size(self.parser.get_method(), self.url, self.headers) > self.limits.head_bytes:
            self.stop_parser(head_too_large(self.limits.head_bytes))
        self.head_open = self.head_begun = False
        self.head_bytes = 0
        self.stop_head_timer()
        self.held.mark_busy(self)  # a request to answer: no longer a head that may be closed
        super().on_headers_complete()
        self.cycles = [cycle for cycle in self.cycles if not cycle.response_complete]
        if self.cycle is not None:
            self.cycles.append(self.cycle)
        if announces_body(self.headers) and self.cycle is not None:
            self.body_of = (self.cycle, self.cycle.keep_alive)
            self.cycle.keep_alive = False

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.head_open = True
        if self.body_of is not None:
            cycle, keep_alive = self.body_of
            self.body_of = None
            if cycle is self.cycle and keep_alive and not cycle.response_started:
                cycle.keep_alive = True  # the whole body came before the answer: nothing can trickle

    def stop_parser(self, error: errors.ApiError) -> NoReturn:
        self.refused_by_callback = error
        raise HeadRefused(error.code)

    # -- refusals ------------------------------------------------------------------------------

    def answering(self) -> bool:
        """True while a request read before now has not had its whole answer."""
        return bool(self.pipeline) or (self.cycle is not None and not self.cycle.response_complete)

    def refuse(self, error: errors.ApiError) -> None:
        """Answer `error` and close, after the answers of the requests read before it."""
        log.info("refused a request from %s: %d %s", _peer(self.client), error.status, error.code)
        self.held.mark_busy(self)
        self.stop_head_timer()
        self.refused = refusal(error)
        if not self.answering():
            self.send_refusal()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.watch_sending()  # the answer's tail may still wait, below the pause threshold
        if (
            self.timeout_keep_alive_task is not None
            and self.refused is None
            and not (self.head_begun or self.head_bytes)
        ):
            self.held.mark_idle(self)  # kept alive, and nothing of a next request read yet
        if self.refused and not self.answering() and not self.transport.is_closing():
            self.send_refusal()

    def send_refusal(self) -> None:
        assert self.refused is not None
        self._unset_keepalive_if_required()
        self.transport.write(self.refused)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.flow.resume_reading()  # drain what the client still sends (data_received drops it)
        self.loop.call_later(LINGER_SECONDS, self.transport.close)


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "an unknown peer"
