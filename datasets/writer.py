"""Writes the files of one build and records what it wrote (path, rows, bytes).

Every Parquet file is cast to its published schema from `schemas.lake` before it is written, so a
derivation that drifts from the contract fails here rather than in a reader. Files are written
whole (serialised in memory, then one write), which is what an object store needs anyway.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from alpha_results_seal.storage import Storage

# Small row groups keep date-window reads pruning well; zstd is read by every Parquet reader.
ROW_GROUP_SIZE = 64_000
COMPRESSION = "zstd"


@dataclass(frozen=True)
class WrittenFile:
    path: str
    table: str | None
    rows: int
    bytes: int
    sha256: str


@dataclass
class BuildWriter:
    storage: Storage
    written: list[WrittenFile] = field(default_factory=list)

    def write_parquet(self, path: str, data: pa.Table, schema: pa.Schema, table: str) -> WrittenFile:
        data = data.select(schema.names).cast(schema)
        sink = pa.BufferOutputStream()
        pq.write_table(data, sink, compression=COMPRESSION, row_group_size=ROW_GROUP_SIZE)
        return self._write(path, table, data.num_rows, sink.getvalue())

    def write_arrow(self, path: str, data: pa.Table) -> WrittenFile:
        """An uncompressed Arrow IPC file of one record batch: what a reader memory-maps."""
        data = data.combine_chunks()
        batches = data.to_batches(max_chunksize=max(1, data.num_rows))
        # Serialised into a buffer of its exact size (measured first): a growing buffer reallocates
        # to twice what it holds, and a copy to Python bytes doubles it again (issue 78, item 5).
        measured = pa.MockOutputStream()
        with pa.ipc.new_file(measured, data.schema) as ipc:
            for batch in batches:
                ipc.write_batch(batch)
        payload = pa.allocate_buffer(measured.size())
        with pa.ipc.new_file(pa.FixedSizeBufferWriter(payload), data.schema) as ipc:
            for batch in batches:
                ipc.write_batch(batch)
        return self._write(path, None, data.num_rows, payload)

    def write_bytes(self, path: str, payload: bytes) -> WrittenFile:
        """A file serialised by the caller (an export's Parquet): in the manifest, not in the
        table totals."""
        return self._write(path, None, 0, payload)

    def write_json(self, path: str, document: Any) -> WrittenFile:
        return self._write(path, None, 0, dumps(document))

    def _write(self, path: str, table: str | None, rows: int, payload: bytes | pa.Buffer) -> WrittenFile:
        digest = hashlib.sha256(payload).hexdigest()
        if not isinstance(payload, bytes) and not self.storage.is_local:
            payload = payload.to_pybytes()  # an object store's client takes bytes
        written = WrittenFile(path, table, rows, self.storage.write_bytes(path, payload), digest)
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

    def table_totals(self) -> dict[str, dict[str, int]]:
        """Rows and bytes per published table (partitions summed)."""
        totals: dict[str, dict[str, int]] = {}
        for item in self.written:
            if item.table is None:
                continue
            entry = totals.setdefault(item.table, {"rows": 0, "bytes": 0, "files": 0})
            entry["rows"] += item.rows
            entry["bytes"] += item.bytes
            entry["files"] += 1
        return totals


def dumps(document: Any) -> bytes:
    return json.dumps(document, indent=2, sort_keys=True, default=str).encode() + b"\n"
