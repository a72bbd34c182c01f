"""The HTTP protocols `alpha-results serve` hands uvicorn: uvicorn's own, with TCP_NODELAY set on
every accepted connection, and the parser's own refusals (a request it cannot parse, such as a
NUL byte in a header, never reaches the app) answered in the JSON error envelope like every other
answer of the service, not as uvicorn's plain text.

Why: with `--workers 2` uvicorn binds the listening socket itself (`socket.socket(AF_INET)`, whose
protocol number is 0), and asyncio sets TCP_NODELAY only on sockets whose protocol number is
`IPPROTO_TCP`; one worker gets its socket from `getaddrinfo` and has it. A response leaves as two
writes (head, then body), so without TCP_NODELAY Nagle's algorithm held the body until the
client's delayed ACK of the head: about 44 ms per keep-alive request instead of 0.5 ms. uvloop sets
TCP_NODELAY on every TCP handle, but the server must not depend on which event loop runs it.

Imported only by uvicorn in each worker (by name, from `serve.commands.uvicorn_options`), so the
CLI's other commands do not pay for importing uvicorn's protocol modules.
"""

from __future__ import annotations

import asyncio
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from serve import errors
from serve.envelope import error_response, request_id_of


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """TCP_NODELAY on the transport's socket, when it is a TCP socket (not a Unix socket)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def parser_refusal() -> bytes:
    """The whole HTTP/1.1 response for a request the parser refused: 400 `bad_request` in the one
    error envelope (serve.envelope), and the connection closed (the stream cannot be trusted)."""
    request_id = request_id_of({})
    error = errors.BadRequest("The request is not valid HTTP/1.1 and was not read.")
    body = bytes(error_response(error, request_id).content)
    head = (
        "HTTP/1.1 400 Bad Request\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        f"x-request-id: {request_id}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class _ServiceConnection:
    """What both protocols add to uvicorn's: TCP_NODELAY, and the envelope on parser refusals."""

    transport: asyncio.Transport

    def connection_made(self, transport: asyncio.Transport) -> None:
        set_nodelay(transport)
        super().connection_made(transport)  # type: ignore[misc]

    def send_400_response(self, msg: str) -> None:
        self.transport.write(parser_refusal())
        self.transport.close()


class NoDelayHttpToolsProtocol(_ServiceConnection, HttpToolsProtocol):  # type: ignore[misc]
    pass


class NoDelayH11Protocol(_ServiceConnection, H11Protocol):  # type: ignore[misc]
    pass
