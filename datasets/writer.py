"""Writes the files of one build and records what it wrote (path, rows, bytes).

Every Parquet file is cast to its published schema from `schemas.lake` before it is written, so a
derivation that drifts from the contract fails here rather than in a reader. On an object store a
file is written whole (serialised in memory, then one write); on a local lake, Parquet and Arrow
files are serialised straight into the file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from alpha_results_seal.storage import Storage
from datasets import spool

# Small row groups keep date-window reads pruning well; zstd is read by every Parquet reader.
ROW_GROUP_SIZE = 64_000
COMPRESSION = "zstd"


@dataclass(frozen=True)
class WrittenFile:
    path: str
    rows: int
    bytes: int
    sha256: str


@dataclass
class BuildWriter:
    storage: Storage
    written: list[WrittenFile] = field(default_factory=list)

    def write_parquet(self, path: str, data: pa.Table, schema: pa.Schema) -> WrittenFile:
        data = data.select(schema.names).cast(schema)

        def write(sink: Any) -> None:
            pq.write_table(data, sink, compression=COMPRESSION, row_group_size=ROW_GROUP_SIZE)

        return self._serialise(path, data.num_rows, write)

    def write_arrow(self, path: str, data: pa.Table) -> WrittenFile:
        """An uncompressed Arrow IPC file of one record batch: what a reader memory-maps."""
        data = data.combine_chunks()
        batches = data.to_batches(max_chunksize=max(1, data.num_rows))

        def write(sink: Any) -> None:
            with pa.ipc.new_file(sink, data.schema) as ipc:
                for batch in batches:
                    ipc.write_batch(batch)

        return self._serialise(path, data.num_rows, write)

    def _serialise(self, path: str, rows: int, write: Callable[[Any], None]) -> WrittenFile:
        """A file `write` serialises into the sink it is given. On a local lake the sink is the
        file itself, hashed as it is written: Arrow hands it its buffers, so no copy of the file is
        held in memory (a build's largest serving file is gigabytes: issue 78, item 5); on an object
        store, the file whole in memory, then one write."""
        if not self.storage.is_local:
            sink = pa.BufferOutputStream()
            write(sink)
            return self._write(path, rows, sink.getvalue().to_pybytes())
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "wb") as handle:
            hashing = _HashingFile(handle)
            write(pa.PythonFile(hashing, mode="w"))
        written = WrittenFile(path, rows, hashing.size, hashing.digest.hexdigest())
        self.written.append(written)
        return written

    def write_bytes(self, path: str, payload: bytes) -> WrittenFile:
        """A file serialised by the caller (an export's Parquet), listed in the manifest."""
        return self._write(path, 0, payload)

    def write_json(self, path: str, document: Any) -> WrittenFile:
        return self._write(path, 0, dumps(document))

    def _write(self, path: str, rows: int, payload: bytes) -> WrittenFile:
        digest = hashlib.sha256(payload).hexdigest()
        written = WrittenFile(path, rows, self.storage.write_bytes(path, payload), digest)
        self.written.append(written)
        return written

    def manifest(self, build_dir: str) -> dict[str, dict[str, Any]]:
        """Every file written under `build_dir`, by path relative to it: bytes and SHA-256."""
        prefix = build_dir.rstrip("/") + "/"
        return {
            f.path[len(prefix) :]: {"bytes": f.bytes, "sha256": f.sha256}
            for f in self.written
            if f.path.startswith(prefix)
        }


class _HashingFile:
    """A binary file that hashes and counts what is written to it (`pa.PythonFile` wraps it)."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle, self.digest, self.size, self.closed = handle, hashlib.sha256(), 0, False

    def write(self, data: Any) -> int:
        before = self.size
        if not spool.copy_spooled(data, self._write):
            self._write(memoryview(data).cast("B"))
        return self.size - before

    def _write(self, view: memoryview) -> None:
        self.digest.update(view)
        self.handle.write(view)
        self.size += view.nbytes

    def tell(self) -> int:
        return self.size

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        self.handle.flush()

    def close(self) -> None:
        self.closed = True


def dumps(document: Any) -> bytes:
    return json.dumps(document, indent=2, sort_keys=True, default=str).encode() + b"\n"
