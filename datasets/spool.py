"""Binary columns larger than memory, made a chunk at a time and written without being held.

A build's row bytes (`datasets.queries.row_json`) are gigabytes for a large alpha (3,000 names x 20
years: several GiB for the decisions alone), and a serving file is one Arrow record batch, so a
column must be one array. `spooled` appends each chunk's bytes to an anonymous temporary file and
returns one `large_binary` array whose offsets are in memory and whose data buffer is that file,
memory-mapped. `BuildWriter` (datasets/writer.py) recognises such a buffer when Arrow hands it
over and copies it from the file by reads (`copy_spooled`), never touching the mapping, so its
pages never count in the build's memory (issue 78, item 5).
"""

from __future__ import annotations

import mmap
import os
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterable

import numpy as np
import pyarrow as pa

COPY_BYTES = 8 << 20

_lock = threading.Lock()
_regions: dict[int, tuple[int, int, int]] = {}  # address -> (size, fd, id of the mapping)


def spooled(chunks: Iterable[pa.Array]) -> pa.Array:
    """One `large_binary` array of `chunks` (`large_binary` arrays without nulls) in order, its
    data buffer a temporary file mapped read-only."""
    handle = tempfile.TemporaryFile()
    ends = [np.zeros(1, dtype=np.int64)]
    written = 0
    for chunk in chunks:
        if chunk.null_count:
            raise ValueError("a spooled column has no nulls")
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64)[
            chunk.offset : chunk.offset + len(chunk) + 1
        ]
        data = chunk.buffers()[2]
        first, last = int(offsets[0]), int(offsets[-1])
        if last > first:
            handle.write(memoryview(data)[first:last])
        ends.append(offsets[1:] - first + written)
        written += last - first
    handle.flush()
    offsets_buffer = pa.py_buffer(np.concatenate(ends))
    length = len(offsets_buffer) // 8 - 1
    if written == 0:
        handle.close()
        return pa.Array.from_buffers(pa.large_binary(), length, [None, offsets_buffer, pa.py_buffer(b"")])
    mapping = mmap.mmap(handle.fileno(), written, prot=mmap.PROT_READ)
    data_buffer = pa.py_buffer(mapping)
    with _lock:
        _regions[data_buffer.address] = (written, os.dup(handle.fileno()), id(mapping))
    handle.close()  # the mapping and the duplicated descriptor keep the file
    _release_with(data_buffer, mapping)
    return pa.Array.from_buffers(pa.large_binary(), length, [None, offsets_buffer, data_buffer], null_count=0)


def _release_with(buffer: pa.Buffer, mapping: mmap.mmap) -> None:
    """Forget the region (and close its descriptor) once the mapping is collected: the Arrow
    buffer, and so every array of it, holds the mapping."""
    address = buffer.address

    def forget() -> None:
        with _lock:
            found = _regions.pop(address, None)
        if found is not None:
            os.close(found[1])

    weakref.finalize(mapping, forget)


def copy_spooled(data: object, write: Callable[[memoryview], None]) -> bool:
    """When `data` is (a slice of) a spooled data buffer, hand its bytes to `write` in pieces read
    from its file and answer True; else False (the caller writes `data` itself)."""
    if not isinstance(data, pa.Buffer) or not _regions:
        return False
    address, size = data.address, data.size
    with _lock:
        found = next(
            ((start, fd) for start, (length, fd, _) in _regions.items() if start <= address < start + length),
            None,
        )
    if found is None:
        return False
    start, fd = found
    offset, end = address - start, address - start + size
    piece = bytearray(COPY_BYTES)
    while offset < end:
        count = os.preadv(fd, [memoryview(piece)[: min(COPY_BYTES, end - offset)]], offset)
        if count <= 0:
            raise OSError(f"a spooled column's file ended at {offset} of {end}")
        write(memoryview(piece)[:count])
        offset += count
    return True
