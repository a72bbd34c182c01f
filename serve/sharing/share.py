"""What one key's share holds: the alphas it may read as schemas, their exports as tables.

- **One share per key**, named `SHARE_NAME` for every key: what it holds is the key's view (its
  alpha and run allow-lists, its endpoint allow-list, its raw-book flag), never more.
- **A schema per alpha** the key may read (both allow-lists admit it, as every alpha route asks:
  `Caller.may_read`), named by its alpha id.
- **A table per export file the key may export** (`ExportFile.visible_to`: the key may call the
  JSON route of the same rows, and the file's audience matches its raw-book flag), named
  `<dataset>` or, for a book dataset, `<dataset>_<book>` (`-` becomes `_`: `equity_curve_long_short`).
  A key without raw-book access never gets a table of a `raw_` book, and its `decisions` table is
  the export without the `raw_*` columns: no URL it is handed names a file holding raw fields.
  The benchmark's export is no alpha's and is not shared (the benchmark routes serve it).
- **Version**: the served build's `built_at` (alpha.json) in seconds since the epoch. A newer build
  of an alpha is built after the one it replaces, so the version grows with every build published
  (two builds of one alpha within the same second would share a version: the publish of a build
  takes longer than that). **History**: a `timestamp` reads the table as the API served it then
  (`LakeReader.at`, as a read route's `as_of`), a `version` the retained build of that version
  (`version_moment`: the pointer's predecessors, read as of just before each was superseded), so
  the history shared is the one the lake keeps (its builds, by the operator's history retention and
  the decisions' pins); a version or moment it no longer keeps is refused, and `startingVersion`
  (change data) is refused as the protocol's reference server refuses a table without it.
- **Names are case-insensitive** (PROTOCOL.md): an exact match first, else the one name that
  matches ignoring case.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from core.context import Caller
from datasets import catalog, layout
from datasets.faults import lake_errors
from datasets.reader import BuildView, LakeReader
from datasets.served import AlphaBuild
from serve.signing.export_urls import ExportFile, alpha_exports, made_file

SHARE_NAME = "alpha_results"
"""The name of every key's share (what it holds is the key's own view)."""
_IDS = uuid.uuid5(uuid.NAMESPACE_URL, "https://alpha-results/delta-sharing")
"""The namespace of the share's and tables' ids: stable UUIDs derived from their names."""


def share_id() -> str:
    return str(uuid.uuid5(_IDS, SHARE_NAME))


def table_id(alpha: str, table: str) -> str:
    """A table's `id`: the same for every key and every build of the alpha (PROTOCOL.md: immutable
    through the table's life)."""
    return str(uuid.uuid5(_IDS, f"{alpha}/{table}"))


def table_name(export: ExportFile) -> str:
    name = export.dataset.replace("-", "_")
    return name if export.book is None else f"{name}_{export.book}"


def matching(wanted: str, names: list[str]) -> str | None:
    """The name among `names` a case-insensitive protocol name addresses: an exact match, else
    the only one equal ignoring case; None when there is none (or more than one)."""
    if wanted in names:
        return wanted
    folded = [n for n in names if n.casefold() == wanted.casefold()]
    return folded[0] if len(folded) == 1 else None


def readable_alphas(caller: Caller, reader: LakeReader) -> list[str]:
    """The schemas of the key's share: the published alphas it may read, sorted by id."""
    return sorted(a for a in reader.alphas() if caller.may_read(a))


def version_moment(reader: LakeReader, alpha: str, version: int) -> tuple[str, datetime] | None:
    """The retained predecessor of `alpha`'s served build whose version is `version`, and a moment
    it was served (just before it was superseded): read as of then through `LakeReader.at`, so
    the lake's history rules apply. None when the pointer keeps no such build, or what it records
    of one cannot be read. Blocking (the pointer; each predecessor's `alpha.json` once a process)."""
    with lake_errors(reader.root):
        try:
            pointer = catalog.read_json(reader.storage, layout.alpha_pointer(reader.root, alpha)) or {}
        except catalog.CorruptLakeFile:
            return None
        superseded = pointer.get("superseded_at")
        previous = pointer.get("previous_builds")
        if not isinstance(superseded, dict) or not isinstance(previous, list):
            return None
        for build_id in previous:
            moment = _moment(superseded.get(build_id))
            if (
                isinstance(build_id, str)
                and moment is not None
                and _built_version(reader, alpha, build_id) == version
            ):
                return build_id, moment - timedelta(microseconds=1)
    return None


def _moment(text: object) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


_BUILT_VERSIONS: OrderedDict[tuple[str, str, str], int | None] = OrderedDict()
_BUILT_VERSIONS_LOCK = threading.Lock()


def _built_version(reader: LakeReader, alpha: str, build_id: str) -> int | None:
    """A build's version, read from its `alpha.json` once (a build never changes), at most 4,096
    remembered; None when it cannot be read."""
    key = (reader.root, alpha, build_id)
    with _BUILT_VERSIONS_LOCK:
        if key in _BUILT_VERSIONS:
            return _BUILT_VERSIONS[key]
    path = layout.join(layout.alpha_build_dir(reader.root, alpha, build_id), layout.ALPHA_JSON)
    try:
        entry = catalog.read_json(reader.storage, path)
    except catalog.CorruptLakeFile:
        entry = None
    built = (
        _moment(entry.get("built_at"))
        if isinstance(entry, dict) and isinstance(entry.get("built_at"), str)
        else None
    )
    version = None if built is None else int(built.timestamp())
    if entry is not None:  # a build not (yet, or any more) there is not remembered
        with _BUILT_VERSIONS_LOCK:
            _BUILT_VERSIONS[key] = version
            while len(_BUILT_VERSIONS) > 4096:
                _BUILT_VERSIONS.popitem(last=False)
    return version


def table_version_of(entry: dict[str, Any]) -> int:
    return int(datetime.fromisoformat(str(entry["built_at"])).timestamp())


def table_version(build: AlphaBuild | BuildView) -> int:
    """The Delta table version of every table of the alpha's served build (module docstring)."""
    if not isinstance(build.entry.get("built_at"), str):  # every build since pipeline 1.0 records it
        raise ValueError(f"build {build.build_id} records no built_at")
    return table_version_of(build.entry)


@dataclass(frozen=True)
class SharedTable:
    alpha: str  # the schema
    name: str
    export: ExportFile


def shared_tables(caller: Caller, view: BuildView) -> list[SharedTable]:
    """The tables of one alpha's schema for this key, in `/exports` order."""
    visible = sorted((f for f in alpha_exports(view) if f.visible_to(caller)), key=ExportFile.sort_key)
    return [SharedTable(view.name, table_name(f), f) for f in visible]


class ExportSchemas:
    """The Arrow schema of each export file, read from its Parquet footer once per file (files are
    immutable: keyed by object path and SHA-256), at most `capacity` kept."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._schemas: OrderedDict[tuple[str, str], pa.Schema] = OrderedDict()
        self._lock = threading.Lock()

    def schema(self, reader: LakeReader, export: ExportFile) -> pa.Schema:
        key = (export.object_path, export.sha256)
        with self._lock:
            found = self._schemas.get(key)
            if found is not None:
                self._schemas.move_to_end(key)
                return found
        if export.stored:
            storage = reader.storage
            with storage.fs.open(layout.join(storage.root, export.object_path), "rb") as handle:
                schema = pq.read_schema(handle)
        else:  # made by this server on the first ask, as its download is (export_files)
            path = made_file(reader, export)
            schema = pq.read_schema(path)
        with self._lock:
            self._schemas[key] = schema
            while len(self._schemas) > self.capacity:
                self._schemas.popitem(last=False)
        return schema


EXPORT_SCHEMAS = ExportSchemas()
"""One per worker process."""
