"""Response compression: zstd when the client accepts it, else gzip, for bodies over 1 KiB.

Litestar's compression middleware does the negotiation and the headers (`Content-Encoding`,
`Vary: Accept-Encoding`); this module adds the zstd codec it lacks. Levels favour speed: the
serving path builds a 5,000-row page in milliseconds, and a slow codec would dominate it
(docs/benchmarks.md "Compression" has the measured sizes and times).
"""

from __future__ import annotations

from io import BytesIO
from typing import ClassVar

import zstandard
from litestar.config.compression import CompressionConfig

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
)
