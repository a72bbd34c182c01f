"""Response compression: zstd when the client accepts it, else gzip, for bodies over 1 KiB.

Litestar's compression middleware compresses and sets the headers (`Content-Encoding`,
`Vary: Accept-Encoding`); this module adds the zstd codec it lacks and the negotiation: Litestar
looks for the coding's name anywhere in `Accept-Encoding`, so `zstd;q=0` (RFC 9110: not
acceptable) got zstd and `ZSTD` (content-codings are case-insensitive) got none. Levels favour
speed: the serving path builds a 5,000-row page in milliseconds, and a slow codec would dominate it
(docs/benchmarks.md "Compression" has the measured sizes and times).
"""

from __future__ import annotations

import functools
from io import BytesIO
from typing import ClassVar

import zstandard
from litestar.config.compression import CompressionConfig
from litestar.middleware.compression import CompressionMiddleware
from litestar.types import Message, Receive, Scope, Send

from schemas.choices import REPRESENTATIONS
from serve.weights import weighted_members

MINIMUM_BYTES = 1024
ZSTD_LEVEL = 1
GZIP_LEVEL = 1


class ZstdCompression:
    """`litestar.middleware.compression.facade.CompressionFacade` for zstd."""

    encoding: ClassVar[str] = "zstd"

    def __init__(self, buffer: BytesIO, compression_encoding: str, config: CompressionConfig) -> None:
        self.buffer = buffer
        self._compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL).compressobj()

    def write(self, body: bytes) -> None:
        self.buffer.write(self._compressor.compress(body))

    def close(self) -> None:
        self.buffer.write(self._compressor.flush())


CODINGS = ("zstd", "gzip")
"""The codings served, in the server's order of preference between codings of equal weight."""


@functools.lru_cache(maxsize=256)
def negotiated_coding(accept_encoding: str) -> str | None:
    """The coding to answer with for `accept_encoding` (RFC 9110 12.5.3), None for no coding.

    The client's highest weighted coding of `CODINGS`, the first of them on equal weight. Names are
    case-insensitive; `q=0` marks a coding not acceptable; `*` weighs every coding not named; a
    member whose weight is not a valid qvalue is ignored. Kept per text: a client sends the same
    line on every request, and a route answered below the framework asks twice (serve/front.py
    `answer_direct`, then the middleware)."""
    weights = dict(weighted_members(accept_encoding))
    default = weights.get("*", 0.0)
    best = max(CODINGS, key=lambda coding: weights.get(coding, default))  # the first of equals
    return best if weights.get(best, default) > 0 else None


INCOMPRESSIBLE_TYPES = frozenset({REPRESENTATIONS["parquet"].encode()})
"""Bodies compressed inside already (Parquet pages are zstd): sent as they are whatever the route."""


def _content_type(message: Message) -> bytes:
    headers: list[tuple[bytes, bytes]] = list(message.get("headers", ()))  # type: ignore[call-overload]
    for name, value in headers:
        if name.lower() == b"content-type":
            return bytes(value.split(b";")[0].strip().lower())
    return b""


class NegotiatedCompression(CompressionMiddleware):
    """Litestar's compression with `negotiated_coding` choosing the coding; bodies of
    `INCOMPRESSIBLE_TYPES` pass as they are."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        accept = b",".join(value for name, value in scope["headers"] if name.lower() == b"accept-encoding")
        coding = negotiated_coding(accept.decode("latin-1"))
        if coding is None:
            await self.app(scope, receive, send)
            return
        compressed = self.create_compression_send_wrapper(send=send, compression_encoding=coding, scope=scope)
        plain = False

        async def either(message: Message) -> None:
            nonlocal plain
            if message["type"] == "http.response.start":
                plain = _content_type(message) in INCOMPRESSIBLE_TYPES
            await (send if plain else compressed)(message)

        await self.app(scope, receive, either)


SKIP_COMPRESSION = "skip_compression"
"""`opt` key of a route whose bodies are compressed files already (the signed downloads: zip
archives, zstd Parquet exports): sent as they are, with their `Content-Length`."""

COMPRESSION = CompressionConfig(
    backend="zstd",
    compression_facade=ZstdCompression,
    minimum_size=MINIMUM_BYTES,
    gzip_fallback=True,
    gzip_compress_level=GZIP_LEVEL,
    exclude_opt_key=SKIP_COMPRESSION,
    middleware_class=NegotiatedCompression,
)
