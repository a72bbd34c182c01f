"""Reading a seal folder: manifest, one Arrow table per (kind, book), description, source archive.

Reading does not judge the content (that is `alpha_results_seal.validate`); it only refuses what it cannot
read at all, what is not the seal's own, or what would cost more than the seal's size limits to
read or decode (`alpha_results_seal.seal_files`, `alpha_results_seal.bounded_read`), with the same `SealRejected`
report. Each file is read once: the bytes hashed into the seal's identity are the bytes decoded.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pyarrow as pa

from alpha_results_seal import arrow_schemas as seal_schema
from alpha_results_seal.bounded_read import (
    SIZE_RULE,
    Footer,
    by_kind,
    decode_compact,
    expand,
    over_declared_limits,
    over_decoded_limit,
    parse_json_object,
    read_footer,
)
from alpha_results_seal.printable import bounded
from alpha_results_seal.rules import Findings, SealRejected
from alpha_results_seal.seal_files import SealFile, SizeLimit, not_owned, read_seal_file, refuse_not_owned
from alpha_results_seal.seal_limits import (
    DEFAULT_JSON_BYTES,
    FILE_BYTES_VARIABLE,
    JSON_BYTES_VARIABLE,
    SealLimits,
)
from alpha_results_seal.storage import Storage

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
    # The bytes of the files a build decodes, as read and hashed by `open_seal`; emptied once decoded.
    contents: dict[str, bytes] = field(default_factory=dict, repr=False)
    # Files `load_contents` refused to decode, and why: the rules reading them are not checked.
    unread: dict[str, str] = field(default_factory=dict)

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


def file_kind(name: str) -> str:
    """What limits and refusals call a file of the seal (`seal`: a file no build decodes)."""
    if name in (MANIFEST, DESCRIPTION):
        return name.removesuffix(".json")
    if name == SOURCE_ZIP:
        return "source"
    if name == BENCHMARK_DAILY:
        return "benchmark"
    kind = name.split("/")[0].removesuffix(".parquet")
    return kind if name.endswith(".parquet") and kind in seal_schema.KIND_SCHEMAS else "seal"


def size_limit(name: str, limits: SealLimits) -> SizeLimit:
    if name in (MANIFEST, DESCRIPTION):
        return SizeLimit(limits.json_bytes, JSON_BYTES_VARIABLE)
    return SizeLimit(limits.file_bytes, FILE_BYTES_VARIABLE)


def read_once(storage: Storage, path: str, name: str, limits: SealLimits) -> SealFile:
    """One file of the seal, read once: its hash, and its bytes when a build may decode it."""
    kind = file_kind(name)
    try:
        return read_seal_file(storage, path, name, kind, size_limit(name, limits), keep=kind != "seal")
    except FileNotFoundError as exc:  # removed since the seal was listed
        raise SealRejected("seal.regular_files", "seal", f"{name} left the seal while it was read") from exc


def read_manifest(storage: Storage, path: str, max_bytes: int = DEFAULT_JSON_BYTES) -> dict[str, Any]:
    """The manifest alone (what a seal publishes, before it is built), read as `open_seal` reads
    it: a link, a fifo or a hard link is refused without being opened to read."""
    if storage.is_local and os.path.islink(os.path.abspath(path)):
        raise SealRejected("seal.regular_files", "seal", f"the seal folder {path} is a symbolic link")
    try:
        found = read_seal_file(
            storage, path, MANIFEST, "manifest", SizeLimit(max_bytes, JSON_BYTES_VARIABLE), keep=True
        )
    except FileNotFoundError as exc:
        raise SealRejected("manifest.fields", "manifest", f"{path} has no {MANIFEST} file") from exc
    assert found.data is not None
    return parse_json_object(found.data, MANIFEST, "manifest", "manifest.fields")


def seal_target(seal_path: str, limits: SealLimits | None = None) -> str:
    """The alpha id (or `benchmark:<symbol>`) a seal publishes; its folder name when its manifest
    cannot be read as the build reads it (a link, a fifo, a hard link, over the JSON size limit:
    the build will refuse it, or fail, and say why). The target is only a label of the report, so
    nothing that goes wrong reading it ends the run."""
    max_bytes = (limits or SealLimits()).json_bytes
    try:
        manifest = read_manifest(Storage(seal_path), seal_path, max_bytes)
    except Exception:
        return os.path.basename(seal_path.rstrip("/"))
    return target_of(manifest, seal_path)


TARGET_MAX_CHARS = 200
"""A target is cut here, with a marker giving its length (`printable.bounded`): longer than any
alpha id (128) or `benchmark:<symbol>`, it is a refused seal's, and only a label of its report
(a 900 KB alpha id was echoed whole on every line naming the seal, and in its event)."""


def target_of(manifest: dict[str, Any], seal_path: str) -> str:
    """What a seal with this manifest publishes: its alpha id or `benchmark:<symbol>`, else (no
    alpha id) its folder's name."""
    if manifest.get("type") == "benchmark":
        target = f"benchmark:{manifest.get('symbol')}"
    else:
        target = str(manifest.get("alpha_id") or os.path.basename(seal_path.rstrip("/")))
    return bounded(target, TARGET_MAX_CHARS)


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
                what = not_owned(entry.stat(follow_symlinks=False))
                if what is not None:
                    raise refuse_not_owned(relative, what)
                if entry.is_dir(follow_symlinks=False):
                    pending.append(relative)
                elif not entry.name.startswith("."):
                    found.append(relative)
    return sorted(found)


def open_seal(path: str, storage: Storage | None = None, limits: SealLimits | None = None) -> Seal:
    """Lists the seal and reads each of its files once, each within its size limit: the content
    hash (enough to decide "unchanged") and the bytes `load_contents` decodes, the same bytes."""
    storage = storage or Storage(path)
    limits = limits or SealLimits()
    if storage.is_local and os.path.islink(os.path.abspath(path)):
        raise SealRejected("seal.regular_files", "seal", f"the seal folder {path} is a symbolic link")
    if not storage.is_dir(path):
        raise SealRejected("manifest.fields", "manifest", f"seal folder {path} does not exist")
    files = owned_files(storage, path)
    if MANIFEST not in files:
        raise SealRejected("manifest.fields", "manifest", f"{path} has no {MANIFEST} file")
    read = {MANIFEST: read_once(storage, path, MANIFEST, limits)}
    manifest_bytes = read[MANIFEST].data
    assert manifest_bytes is not None  # a manifest is always kept
    manifest = parse_json_object(manifest_bytes, MANIFEST, "manifest", "manifest.fields")
    for name in files:
        if name != MANIFEST:
            read[name] = read_once(storage, path, name, limits)
    # The seal's identity: SHA-256 over every file's relative path and SHA-256, in path order.
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0")
        digest.update(read[name].sha256)
    contents = {name: found.data for name, found in read.items() if found.data is not None}
    return Seal(path, manifest, digest.hexdigest(), files, contents=contents)


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


def load_contents(
    seal: Seal, limits: SealLimits | None = None, found: Findings | None = None, with_tables: bool = True
) -> Seal:
    """Decodes the Parquet files, the description and the source archive from the bytes
    `open_seal` read and hashed, each within `limits` (`alpha_results_seal.bounded_read`: nothing is
    decoded before its size is checked), then lets those bytes go.

    A file it refuses is recorded in `found` and left out (`Seal.unread` says why) while the
    others are decoded; with no `found`, the first refusal is raised. When a kind is over its
    size limits (as its footers declare them, or decoded), no table of the seal is read.
    `with_tables` false: none of the Parquet files (a manifest that does not say which the seal
    holds)."""
    limits = limits or SealLimits()
    refusals = Findings() if found is None else found
    files = table_files(seal) if with_tables else []
    keys = {f.name: f.key for f in files}
    footers: list[Footer] = []
    for file in files:
        try:
            footers.append(read_footer(seal.contents[file.name], file.name, file.kind, file.schema))
        except SealRejected as refused:
            refusals.add(refused)
            seal.unread[file.name] = f"{file.name} was refused by {refused.rule}"
    compact: dict[str, list[tuple[pa.Table, int]]] = {}
    over = over_declared_limits(footers, limits)
    for kind, group in by_kind(footers).items():
        if over:  # nothing of the seal is decoded
            continue
        try:
            compact[kind] = decode_compact(group)
        except SealRejected as refused:
            refusals.add(refused)
            seal.unread.update((f.name, f"{f.name} was refused by {refused.rule}") for f in group)
            continue
        decoded_over = over_decoded_limit(group, compact[kind], limits)
        if decoded_over is not None:
            over.append(decoded_over)
    for kind_over in over:
        refusals.add(kind_over)
    for kind, group in by_kind(footers).items():
        if over:  # no string is expanded
            why = (
                "is over its kind's size limits"
                if kind in {r.kind for r in over}
                else "was not read: a kind of the seal is over its size limits"
            )
            for f in group:
                seal.unread.setdefault(f.name, f"{f.name} {why} ({SIZE_RULE})")
        elif kind in compact:
            tables = expand(compact.pop(kind))
            seal.tables.update((keys[f.name], table) for f, table in zip(group, tables, strict=True))
    if DESCRIPTION in seal.contents:
        try:
            seal.description = parse_json_object(
                seal.contents[DESCRIPTION], DESCRIPTION, "description", "description.json_object"
            )
        except SealRejected as refused:
            refusals.add(refused)
            seal.unread[DESCRIPTION] = f"{DESCRIPTION} was refused by {refused.rule}"
    seal.source_zip = seal.contents.get(SOURCE_ZIP)
    seal.contents.clear()
    if found is None:
        refusals.refuse()
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
