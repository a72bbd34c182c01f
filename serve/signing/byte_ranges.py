"""One byte range of a download (RFC 9110 14.2): what `Range: bytes=...` asks of a file of `size` bytes.

Readers of Parquet over HTTP (pyarrow through fsspec, which the Delta Sharing clients use; Spark;
DuckDB) read the footer at the end of the file first, then the column chunks: without ranges they
cannot read a file at all. One range is served (206 with `Content-Range`); a header naming several,
or in another unit, is ignored and the whole file served (200), as RFC 9110 permits; a range that
starts past the end is 416 with `Content-Range: bytes */<size>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BYTE_RANGE = re.compile(r"bytes=([0-9]{0,19})-([0-9]{0,19})")
"""A single range: `bytes=first-last`, `bytes=first-` or `bytes=-suffix_length`."""


class Unsatisfiable(Exception):
    """The range starts at or past the end of the file (416)."""


@dataclass(frozen=True)
class ByteRange:
    start: int
    stop: int  # exclusive

    @property
    def length(self) -> int:
        return self.stop - self.start

    def content_range(self, size: int) -> str:
        return f"bytes {self.start}-{self.stop - 1}/{size}"


def requested_range(header: str | None, size: int) -> ByteRange | None:
    """The one range `header` asks of a file of `size` bytes; None for the whole file (no header,
    several ranges, another unit, or a range covering the whole file); `Unsatisfiable` for 416."""
    if header is None:
        return None
    match = BYTE_RANGE.fullmatch(header.strip())
    if match is None or (not match[1] and not match[2]):
        return None
    first, last = match[1], match[2]
    if not first:  # the last `suffix` bytes
        suffix = int(last)
        if suffix == 0:
            raise Unsatisfiable
        start, stop = max(0, size - suffix), size
    else:
        start = int(first)
        stop = size if not last else min(int(last) + 1, size)
        if last and int(last) < start:
            return None  # invalid: ignored (RFC 9110 14.1.1), the whole file
        if start >= size:
            raise Unsatisfiable
    if start == 0 and stop == size:
        return None
    return ByteRange(start, stop)
