"""One opened build: its manifest checked, its serving files memory-mapped, damage detected.

A `BuildView` is what a request reads from start to end: routes take one view when they resolve
the alpha and never look at the pointer again, so a publish in the middle of a request changes
nothing in its answer. Views are immutable apart from their damage flag.

Opening checks every file the manifest (`alpha.json` / `benchmark.json` `files`) lists against
its recorded size; the SHA-256 of the serving files (and, on a local lake, of the Parquet exports
the download route serves from the build folder) is checked once per open, in the background
(`verify_hashes`, run by the reader's refresh thread), and on every reopen after damage before
the build is served again. Each table access re-checks its mapped file's size (`fstat`, about a
microsecond), so a file truncated under a running worker turns into `BuildDamaged`
(503 upstream_unavailable) instead of fewer rows or a SIGBUS. A removed file stays readable
through its mapping; the reader's refresh notices the removal in the lake and marks the build.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pyarrow as pa

from datasets import layout
from datasets.faults import BuildDamaged

T = TypeVar("T")


def manifest_problem(files: dict[str, Any], sizes: dict[str, int]) -> BuildDamaged | None:
    """The first file of `files` (relative path -> {bytes, sha256}) whose size in `sizes` differs."""
    if not files:
        return BuildDamaged("no_manifest", "the build lists no files (published before the serving layout)")
    for path, recorded in sorted(files.items()):
        size = sizes.get(path)
        if size is None:
            return BuildDamaged("missing_file", f"{path} is missing")
        if size != int(recorded["bytes"]):
            return BuildDamaged("truncated_file", f"{path} has {size} bytes, {recorded['bytes']} recorded")
    return None


def local_sizes(folder: str) -> dict[str, int]:
    """Size of every file under a local folder, by path relative to it."""
    sizes = {}
    for parent, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(parent, name)
            try:
                sizes[os.path.relpath(path, folder).replace(os.sep, "/")] = os.stat(path).st_size
            except FileNotFoundError:
                continue
    return sizes


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class _MappedTable:
    """One serving file mapped read-only; `table` is zero-copy over the mapping."""

    def __init__(self, path: str, expected_bytes: int) -> None:
        self.path = path
        self.expected_bytes = expected_bytes
        self.fd = -1
        self.fd = os.open(path, os.O_RDONLY)
        try:
            self.check()
            self._map = mmap.mmap(self.fd, 0, access=mmap.ACCESS_READ)
            self.table = pa.ipc.open_file(pa.BufferReader(pa.py_buffer(self._map))).read_all()
        except BaseException:
            os.close(self.fd)
            self.fd = -1
            raise

    def check(self) -> None:
        # Only the size: a removed file stays whole behind its descriptor (the refresh notices the
        # removal in the lake), but pages past a truncated end would fault when read.
        status = os.fstat(self.fd)
        if status.st_size != self.expected_bytes:
            raise BuildDamaged(
                "truncated_file", f"{self.path} has {status.st_size} bytes, {self.expected_bytes} recorded"
            )

    def release(self) -> None:
        """Unmap the pages requests touched; they stay in the page cache, and the next read maps
        them again (a minor fault). A freshly written file sits in the page cache in large folios,
        and a read maps a whole folio: without this, every worker's RSS would keep what any
        request ever touched of every build, although none of it is private to the worker."""
        self._map.madvise(mmap.MADV_DONTNEED)

    def __del__(self) -> None:
        # The mapping goes with the last Arrow buffer over it; the descriptor goes now.
        if self.fd >= 0:
            try:
                os.close(self.fd)
            except OSError:
                pass


class BuildView:
    """An opened build of an alpha or a benchmark (`name`), read from the local folder `folder`."""

    def __init__(
        self,
        name: str,
        build_id: str,
        entry: dict[str, Any],
        folder: str,
        hashed: tuple[str, ...] = (layout.SERVING_DIR,),
    ) -> None:
        self.name = name
        self.build_id = build_id
        self.entry = entry
        self.folder = folder
        self.files: dict[str, Any] = dict(entry.get("files") or {})
        self.hashed = tuple(folder.rstrip("/") + "/" for folder in hashed)  # see verify_hashes
        self._lock = threading.Lock()
        self._tables: dict[str, _MappedTable | None] = {}
        self._memo: dict[str, Any] = {}
        self.damage: BuildDamaged | None = None
        self.hashes_verified = False
        index = self._read_json(layout.serving_path("", layout.SERVING_INDEX))
        if index is None:
            raise BuildDamaged(
                "no_manifest", "the build has no serving index (published before the serving layout)"
            )
        self.index: dict[str, Any] = index.get("tables") or {}

    @property
    def alpha_id(self) -> str:
        return self.name

    @property
    def kinds_present(self) -> frozenset[str]:
        return frozenset(self.entry.get("kinds_present") or ())

    def books_of(self, kind: str) -> tuple[str, ...]:
        books = self.entry.get("books") or {}
        return tuple(books.get(kind) or ()) if isinstance(books, dict) else ()

    # -- files ------------------------------------------------------------------------------------

    def _local(self, relative: str) -> str:
        return os.path.join(self.folder, relative.lstrip("/"))

    def _read_json(self, relative: str) -> dict[str, Any] | None:
        relative = relative.lstrip("/")
        if relative not in self.files:
            return None
        try:
            with open(self._local(relative), "rb") as handle:
                payload = handle.read()
        except FileNotFoundError as exc:
            raise self.damaged(BuildDamaged("missing_file", f"{relative} is missing")) from exc
        if len(payload) != int(self.files[relative]["bytes"]):
            raise self.damaged(BuildDamaged("truncated_file", f"{relative} is not the recorded size"))
        document = json.loads(payload)
        assert isinstance(document, dict)
        return document

    def json(self, name: str) -> dict[str, Any] | None:
        """A JSON file of the build (description.json, source.json), read once."""
        return self.memo(f"json:{name}", lambda: self._read_json(name))

    def table(self, name: str) -> pa.Table | None:
        """The mapped serving table `name`; None when the build has none. Raises BuildDamaged."""
        self.raise_if_damaged()
        mapped = self._tables.get(name)
        if mapped is None and name not in self._tables:
            mapped = self._map(name)
        if mapped is None:
            return None
        try:
            mapped.check()
        except BuildDamaged as exc:
            raise self.damaged(exc) from None
        return mapped.table

    def _map(self, name: str) -> _MappedTable | None:
        relative = layout.serving_path("", name).lstrip("/")
        with self._lock:
            if name in self._tables:
                return self._tables[name]
            recorded = self.files.get(relative)
            try:
                mapped = (
                    None if recorded is None else _MappedTable(self._local(relative), int(recorded["bytes"]))
                )
            except FileNotFoundError as exc:
                raise self.damaged(BuildDamaged("missing_file", f"{relative} is missing")) from exc
            except (OSError, pa.ArrowException, ValueError) as exc:
                raise self.damaged(BuildDamaged("corrupt_file", f"{relative} cannot be read: {exc}")) from exc
            self._tables[name] = mapped
            return mapped

    def book_range(self, table: str, book: str) -> tuple[int, int] | None:
        ranges = (self.index.get(table) or {}).get("books") or {}
        found = ranges.get(book)
        return None if found is None else (int(found[0]), int(found[1]))

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """A value derived from this build alone (metrics inputs, JSON files), computed once."""
        if key in self._memo:
            return self._memo[key]
        value = compute()
        with self._lock:
            return self._memo.setdefault(key, value)

    # -- damage -----------------------------------------------------------------------------------

    def damaged(self, exc: BuildDamaged) -> BuildDamaged:
        if self.damage is None:
            self.damage = exc
        return exc

    def raise_if_damaged(self) -> None:
        if self.damage is not None:
            raise self.damage

    def check_sizes(self, sizes: dict[str, int]) -> None:
        """Marks the view damaged when the lake's files (`sizes`) differ from the manifest."""
        problem = manifest_problem(self.files, sizes)
        if problem is not None:
            self.damaged(problem)
        for mapped in list(self._tables.values()):
            if mapped is not None:
                try:
                    mapped.check()
                except BuildDamaged as exc:
                    self.damaged(exc)

    def release_pages(self) -> None:
        """`release` every mapped file of the build (see `_MappedTable.release`)."""
        for mapped in list(self._tables.values()):
            if mapped is not None:
                mapped.release()

    def verify_hashes(self) -> None:
        """Checks the SHA-256 of every file in the `hashed` folders (the serving files; on a local
        lake also the Parquet exports, which the download route serves from the build folder)
        against the manifest (marks damage)."""
        for relative, recorded in sorted(self.files.items()):
            if not relative.startswith(self.hashed):
                continue
            try:
                actual = sha256_of(self._local(relative))
            except FileNotFoundError:
                self.damaged(BuildDamaged("missing_file", f"{relative} is missing"))
                return
            if actual != recorded.get("sha256"):
                self.damaged(BuildDamaged("corrupt_file", f"{relative} does not match its recorded SHA-256"))
                return
        self.hashes_verified = True
