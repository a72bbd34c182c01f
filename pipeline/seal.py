"""Reading a seal folder: manifest, one Arrow table per (kind, book), description, source archive.

Reading does not judge the content (that is `pipeline.validate`); it only refuses what it cannot
read at all, or what would cost more than the seal's size limits to decode (`pipeline.bounded_read`),
with the same `SealRejected` report.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pyarrow as pa

from datasets.layout import join
from datasets.storage import Storage
from pipeline.bounded_read import read_footer, read_json_object, read_tables
from pipeline.rules import SealRejected
from pipeline.seal_limits import DEFAULT_JSON_BYTES, SealLimits
from schemas import seal as seal_schema

MANIFEST = "manifest.json"
DESCRIPTION = "description.json"
SOURCE_ZIP = "source.zip"
BENCHMARK_DAILY = "daily.parquet"


@dataclass
class Seal:
    path: str
    manifest: dict[str, Any]
    content_sha256: str
    files: list[str]  # every file in the seal, relative to its folder
    tables: dict[tuple[str, str | None], pa.Table] = field(default_factory=dict)
    description: dict[str, Any] | None = None
    source_zip: bytes | None = None

    @property
    def is_benchmark(self) -> bool:
        return self.manifest.get("type") == "benchmark"

    @property
    def alpha_id(self) -> str:
        return str(self.manifest.get("alpha_id") or self.manifest.get("symbol") or "?")

    def table(self, kind: str, book: str | None = None) -> pa.Table | None:
        return self.tables.get((kind, book))

    def book_tables(self, kind: str) -> dict[str, pa.Table]:
        return {book: t for (k, book), t in self.tables.items() if k == kind and book is not None}


def content_hash(storage: Storage, path: str, files: list[str]) -> str:
    """SHA-256 over every file's relative path and bytes, in path order: the seal's identity."""
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256(storage.read_bytes(join(path, name))).digest())
    return digest.hexdigest()


def read_manifest(storage: Storage, path: str, max_bytes: int = DEFAULT_JSON_BYTES) -> dict[str, Any]:
    manifest_path = join(path, MANIFEST)
    if storage.is_local and os.path.islink(manifest_path):
        raise SealRejected(
            "seal.regular_files", "seal", f"{MANIFEST} is a symbolic link, not a file of the seal"
        )
    if not storage.exists(manifest_path) or storage.is_dir(manifest_path):
        raise SealRejected("manifest.fields", "manifest", f"{path} has no {MANIFEST} file")
    return read_json_object(storage, manifest_path, MANIFEST, "manifest", "manifest.fields", max_bytes)


def owned_files(storage: Storage, path: str) -> list[str]:
    """Every file of the seal, relative to its folder, sorted; hidden files (a leading dot) left
    out. Seals come from many teams and are untrusted: anything but a regular file or folder the
    seal itself holds is refused before a byte of it is read (a symlink to the signing key would
    otherwise be published, and its size and hash printed in a refusal). The report names the
    entry, never a fact about what it points to."""
    if not storage.is_local:
        names = storage.list_files(path)
        for name in names:  # an object store has no links; a key must not leave the prefix
            parts = name.split("/")
            if "\\" in name or any(part in ("", ".", "..") for part in parts):
                raise SealRejected("seal.regular_files", "seal", f"{name!r} is not a path inside the seal")
        return [n for n in names if not n.split("/")[-1].startswith(".")]
    root = os.path.abspath(path)
    if os.path.islink(root):
        raise SealRejected("seal.regular_files", "seal", f"the seal folder {path} is a symbolic link")
    found: list[str] = []
    pending = [""]
    while pending:
        folder = pending.pop()
        with os.scandir(os.path.join(root, folder)) as entries:
            for entry in entries:
                relative = f"{folder}/{entry.name}" if folder else entry.name
                kind = _foreign(entry)
                if kind is not None:
                    raise SealRejected(
                        "seal.regular_files", "seal", f"{relative} is {kind}, not a file of the seal"
                    )
                if entry.is_dir(follow_symlinks=False):
                    pending.append(relative)
                elif not entry.name.startswith("."):
                    found.append(relative)
    return sorted(found)


def _foreign(entry: os.DirEntry[str]) -> str | None:
    """What makes a seal entry not the seal's own (None: a regular file or folder)."""
    if entry.is_symlink():
        return "a symbolic link"
    info = entry.stat(follow_symlinks=False)
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        return "a device, fifo or socket"
    if info.st_nlink > 1:
        return "a hard link (another name of a file elsewhere)"
    return None


def open_seal(path: str, storage: Storage | None = None, limits: SealLimits | None = None) -> Seal:
    """Lists and hashes a seal without reading its tables (enough to decide "unchanged")."""
    storage = storage or Storage(path)
    limits = limits or SealLimits()
    if storage.is_local and os.path.islink(os.path.abspath(path)):
        raise SealRejected("seal.regular_files", "seal", f"the seal folder {path} is a symbolic link")
    if not storage.is_dir(path):
        raise SealRejected("manifest.fields", "manifest", f"seal folder {path} does not exist")
    files = owned_files(storage, path)
    manifest = read_manifest(storage, path, limits.json_bytes)
    return Seal(path=path, manifest=manifest, content_sha256=content_hash(storage, path, files), files=files)


class TableFile(NamedTuple):
    name: str  # relative to the seal
    kind: str  # what its limits and refusals are named by
    key: tuple[str, str | None]  # where `Seal.tables` holds it
    schema: pa.Schema


def table_files(seal: Seal) -> list[TableFile]:
    """The Parquet files a build reads: a benchmark's daily series, or the files an alpha's
    (checked) manifest declares. An undeclared file is never read: `manifest.kinds_present`
    refuses it."""
    if seal.is_benchmark:
        daily = TableFile(BENCHMARK_DAILY, "benchmark", ("daily", None), seal_schema.BENCHMARK_DAILY)
        return [daily] if BENCHMARK_DAILY in seal.files else []
    declared = expected_files(seal.manifest)
    found = []
    for name in seal.files:
        if name in declared:
            parts = name.removesuffix(".parquet").split("/")
            book = parts[1] if len(parts) == 2 else None
            found.append(TableFile(name, parts[0], (parts[0], book), seal_schema.KIND_SCHEMAS[parts[0]]))
    return found


def load_contents(seal: Seal, storage: Storage | None = None, limits: SealLimits | None = None) -> Seal:
    """Reads the Parquet files, the description and the source archive into the seal, each
    within `limits` (`pipeline.bounded_read`: nothing is decoded before its size is checked)."""
    storage = storage or Storage(seal.path)
    limits = limits or SealLimits()
    files = table_files(seal)
    footers = [read_footer(storage, join(seal.path, f.name), f.name, f.kind, f.schema) for f in files]
    for file, table in zip(files, read_tables(footers, limits), strict=True):
        seal.tables[file.key] = table
    if DESCRIPTION in seal.files:
        path = join(seal.path, DESCRIPTION)
        seal.description = read_json_object(
            storage, path, DESCRIPTION, "description", "description.json_object", limits.json_bytes
        )
    if SOURCE_ZIP in seal.files:
        seal.source_zip = storage.read_bytes(join(seal.path, SOURCE_ZIP))
    return seal


def expected_files(manifest: dict[str, Any]) -> set[str]:
    """Files the manifest declares (alpha seals): one per global kind, one per book per book kind."""
    kinds = manifest.get("kinds_sealed") or []
    files: set[str] = set()
    for kind in kinds:
        if kind in seal_schema.GLOBAL_KINDS:
            files.add(seal_schema.kind_path(kind))
        elif kind == "trades":
            files.update(seal_schema.kind_path(kind, b) for b in manifest.get("trade_books") or [])
        elif kind in seal_schema.BOOK_KINDS:
            files.update(seal_schema.kind_path(kind, b) for b in manifest.get("books") or [])
    return files
