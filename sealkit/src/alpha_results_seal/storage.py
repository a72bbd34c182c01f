"""Byte-level access to a lake or seal root, local folder or `s3://bucket/prefix`, through fsspec.

Paths handed to these functions are full paths as `datasets.layout` builds them (root included).
The one operation with a guarantee is `replace_atomically`: a reader sees the old bytes or the new
ones, never a torn file. Locally that is a temporary file in the same folder plus `os.replace`;
on an object store a single PUT, which S3 applies atomically per object.
"""

from __future__ import annotations

import os
import uuid
from datetime import datetime
from typing import Any

import fsspec
from fsspec.implementations.local import LocalFileSystem

# Bounded waits on an object store, so a dead or hung endpoint fails a request in seconds instead
# of hanging it: connect and per-read timeouts, one botocore retry, and no extra s3fs retry loop
# on top (s3fs retries 5 times with backoff by default). Callers may override any of them.
S3_CONFIG_DEFAULTS: dict[str, Any] = {
    "connect_timeout": 2,
    "read_timeout": 10,
    "retries": {"max_attempts": 2, "mode": "standard"},
}
S3FS_RETRIES = 1


class Storage:
    """One fsspec filesystem, chosen from the root's protocol."""

    def __init__(self, root: str, **storage_options: Any) -> None:
        self.root = root.rstrip("/") if root not in ("/", "") else root
        if root.startswith("s3://"):
            # Presigned URLs must use SigV4: every current AWS region refuses the SigV2 default.
            config = dict(storage_options.get("config_kwargs") or {})
            config.setdefault("signature_version", "s3v4")
            for name, value in S3_CONFIG_DEFAULTS.items():
                config.setdefault(name, value)
            # s3fs caches folder listings for the life of the filesystem, so a long-running server
            # would never see an alpha (or a build) published after its first listing.
            storage_options = {"use_listings_cache": False, **storage_options, "config_kwargs": config}
        self.fs, _ = fsspec.core.url_to_fs(root, **storage_options)
        if root.startswith("s3://"):
            self.fs.retries = S3FS_RETRIES
        self.is_local = isinstance(self.fs, LocalFileSystem)

    def read_bytes(self, path: str) -> bytes:
        # One GET: an open file on S3 is pinned to the object's version, so a pointer replaced
        # between open and read would fail the read instead of giving either version.
        return bytes(self.fs.cat_file(path))

    def write_bytes(self, path: str, data: bytes) -> int:
        if self.is_local:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self.fs.pipe_file(path, data)
        return len(data)

    def replace_atomically(self, path: str, data: bytes) -> None:
        if not self.is_local:
            self.fs.pipe_file(path, data)
            return
        os.replace(_written_beside(path, data), path)

    def create_exclusive(self, path: str, data: bytes) -> None:
        """Writes a new file in one step; raises FileExistsError when `path` exists already (a
        hard link of a complete temporary file locally, `If-None-Match: *` on S3), so of two
        writers exactly one creates it."""
        if not self.is_local:
            self.fs.pipe_file(path, data, IfNoneMatch="*")
            return
        temporary = _written_beside(path, data)
        try:
            os.link(temporary, path)
        finally:
            os.unlink(temporary)

    def exists(self, path: str) -> bool:
        return bool(self.fs.exists(path))

    def is_dir(self, path: str) -> bool:
        return bool(self.fs.isdir(path))

    def list_names(self, path: str) -> list[str]:
        """Names (not paths) of the entries directly under a folder; empty when it is absent."""
        if not self.fs.exists(path):
            return []
        return sorted(os.path.basename(p.rstrip("/")) for p in self.fs.ls(path, detail=False))

    def list_files(self, path: str) -> list[str]:
        """Paths of every file under a folder, relative to it, sorted."""
        if not self.fs.exists(path):
            return []
        base = self.fs._strip_protocol(path).rstrip("/")
        return sorted(p[len(base) + 1 :] for p in self.fs.find(path))

    def file_modified_at(self, path: str) -> float | None:
        """Modification time (epoch seconds) of one file; None when it is absent."""
        try:
            return _epoch(self.fs.info(path))
        except FileNotFoundError:
            return None

    def size(self, path: str) -> int:
        return int(self.fs.size(path))

    def delete_file(self, path: str) -> None:
        """Removes one file; absent is fine (another collector may have been first)."""
        try:
            self.fs.rm_file(path)
        except FileNotFoundError:
            pass

    def delete_tree(self, path: str) -> None:
        if self.fs.exists(path):
            self.fs.rm(path, recursive=True)
            if not self.is_local:
                self.fs.invalidate_cache(path)


def _written_beside(path: str, data: bytes) -> str:
    """A temporary file next to `path` holding `data`, flushed to disk: renamed or linked into
    place, it appears whole or not at all."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{uuid.uuid4().hex}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return temporary


def _epoch(info: dict[str, Any]) -> float | None:
    # Local files report `mtime` (epoch seconds), S3 objects `LastModified` (a datetime).
    value = info.get("mtime", info.get("LastModified"))
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value) if isinstance(value, int | float) else None
