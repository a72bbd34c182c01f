"""One opened build: its manifest checked, its serving files memory-mapped, damage detected.

A `BuildView` is what a request reads from start to end: routes take one view when they resolve
the alpha and never look at the pointer again, so a publish in the middle of a request changes
nothing in its answer. Views are immutable apart from their damage flag.

Opening checks every file the manifest (`alpha.json` / `benchmark.json` `files`) lists against
its recorded size; the SHA-256 of the serving files (and, on a local lake, of the Parquet exports
the download route serves from the build folder) is checked once per open, in the background
and on a budget of bytes per refresh pass (`verify_some`, run by the reader's refresh thread), and
on every reopen after damage before the build is served again. A view holds no open file: each
serving file is mapped and its descriptor closed at once, so a worker's descriptors do not grow
with the builds it serves (its maps are bounded by the reader's number of open builds). Each table
access re-checks its file's size by path (`stat`, about a microsecond), so a file truncated under
a running worker turns into `BuildDamaged` (503 upstream_unavailable) instead of fewer rows or a
SIGBUS. A removed or replaced file stays readable through its mapping (the old inode is whole);
the reader's refresh notices it in the lake and marks the build.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import mmap
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pyarrow as pa

from datasets import layout
from datasets.faults import BuildDamaged, LakeUnavailable, WorkerResourceExhausted, exhausted

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


def local_sizes(folder: str, files: dict[str, Any]) -> dict[str, int]:
    """Size of each of `files` (paths relative to the local `folder`) that exists. One `stat` per
    file, no descriptor: a worker out of file descriptors still sees every file (a folder walk
    silently skips the folders it cannot open, which read as missing files)."""
    sizes = {}
    for relative in files:
        try:
            sizes[relative] = os.stat(os.path.join(folder, relative)).st_size
        except FileNotFoundError:
            continue
    return sizes


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _madvise_dontneed() -> Callable[[int, int], int] | None:
    """libc's madvise(MADV_DONTNEED), or None where there is none (pyarrow maps do not expose it)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        advise = libc.madvise
    except (OSError, AttributeError):
        return None
    advise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    advise.restype = ctypes.c_int
    return lambda address, size: int(advise(address, size, mmap.MADV_DONTNEED))


_DONTNEED = _madvise_dontneed()


class _MappedTable:
    """One serving file mapped read-only; `table` is zero-copy over the mapping.

    Mapped by pyarrow, whose mapping lives as long as a buffer over it, so the descriptor is closed
    at once: a worker's descriptors do not grow with the builds it has open. (Python's `mmap`
    keeps a duplicate descriptor per map until Python 3.13's `trackfd=False`.)"""

    def __init__(self, path: str, expected_bytes: int) -> None:
        self.path = path
        self.expected_bytes = expected_bytes
        fd = os.open(path, os.O_RDONLY)
        try:
            status = os.fstat(fd)
            self.inode = (status.st_dev, status.st_ino)
            self._check_size(status.st_size)
            # The inode just checked, not whatever the path names a moment later.
            by_fd = f"/proc/self/fd/{fd}"
            mapped = pa.memory_map(by_fd if os.path.exists(by_fd) else path)
        finally:
            os.close(fd)
        try:
            self._region = mapped.read_buffer(status.st_size)  # the whole mapping, zero-copy
        finally:
            mapped.close()
        self.table = pa.ipc.open_file(pa.BufferReader(self._region)).read_all()

    def _check_size(self, size: int) -> None:
        if size != self.expected_bytes:
            raise BuildDamaged(
                "truncated_file", f"{self.path} has {size} bytes, {self.expected_bytes} recorded"
            )

    def check(self) -> None:
        # Only the size of the mapped file: pages past a truncated end would fault when read. A
        # file removed or replaced (another inode at the path) leaves the mapped one whole; the
        # refresh notices the change in the lake.
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return
        if (status.st_dev, status.st_ino) == self.inode:
            self._check_size(status.st_size)

    def release(self) -> None:
        """Unmap the pages requests touched; they stay in the page cache, and the next read maps
        them again (a minor fault). A freshly written file sits in the page cache in large folios,
        and a read maps a whole folio: without this, every worker's RSS would keep what any
        request ever touched of every build, although none of it is private to the worker."""
        if _DONTNEED is not None:
            _DONTNEED(self._region.address, self._region.size)


class BuildView:
    """An opened build of an alpha or a benchmark (`name`), read from the local folder `folder`."""

    def __init__(
        self,
        name: str,
        build_id: str,
        entry: dict[str, Any],
        folder: str,
        hashed: tuple[str, ...] = (layout.SERVING_DIR,),
        on_exhausted: Callable[[WorkerResourceExhausted], None] = lambda exc: None,
    ) -> None:
        self.name = name
        self.on_exhausted = on_exhausted
        self.build_id = build_id
        self.entry = entry
        self.folder = folder
        self.files: dict[str, Any] = dict(entry.get("files") or {})
        self.hashed = tuple(folder.rstrip("/") + "/" for folder in hashed)  # see verify_hashes
        self._lock = threading.Lock()
        self._tables: dict[str, _MappedTable | None] = {}
        self._memo: dict[str, Any] = {}
        self.damage: BuildDamaged | None = None
        self._unhashed = [
            relative for relative in sorted(self.files) if relative.startswith(self.hashed)
        ]  # verify_some's queue
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
        except OSError as exc:
            if (resource := exhausted(exc)) is not None:
                self.on_exhausted(resource)  # the worker's problem, never the build's damage
                raise resource from exc
            raise LakeUnavailable(f"{relative} cannot be read: {exc}") from exc
        if len(payload) != int(self.files[relative]["bytes"]):
            raise self.damaged(BuildDamaged("truncated_file", f"{relative} is not the recorded size"))
        document = json.loads(payload)
        assert isinstance(document, dict)
        return document

    def json(self, name: str) -> dict[str, Any] | None:
        """A JSON file of the build (description.json, source.json), read once."""
        return self.memo(f"json:{name}", lambda: self._read_json(name))

    def table(self, name: str) -> pa.Table | None:
        """The mapped serving table `name`; None when the build has none. Raises BuildDamaged, or
        WorkerResourceExhausted when the worker cannot map it even after `on_exhausted` (the
        reader closing its least recently used builds) freed what it could."""
        self.raise_if_damaged()
        mapped = self._tables.get(name)
        if mapped is None and name not in self._tables:
            try:
                mapped = self._map(name)
            except WorkerResourceExhausted as exc:
                self.on_exhausted(exc)
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
                if (resource := exhausted(exc)) is not None:
                    raise resource from exc  # the worker's problem, not the build's
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

    def check_sizes(self, sizes: dict[str, int], files: dict[str, Any] | None = None) -> None:
        """Marks the view damaged when the files' `sizes` differ from the manifest (`files`: the
        part of it to check, by default all of it)."""
        problem = manifest_problem(self.files if files is None else files, sizes)
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

    @property
    def hashes_verified(self) -> bool:
        return not self._unhashed

    def hashes_known(self) -> None:
        """Every hash of this immutable build was verified when it was open before: no need again
        (its sizes are still checked when it opens and by the scrub)."""
        self._unhashed = []

    def verify_hashes(self) -> None:
        """Checks the SHA-256 of every file not yet checked (marks damage)."""
        self.verify_some(None)

    def verify_some(self, budget: int | None) -> int:
        """Checks the SHA-256 of the files in the `hashed` folders (the serving files; on a local
        lake also the Parquet exports, which the download route serves from the build folder)
        against the manifest, file after file, until `budget` bytes were read (None: all);
        marks damage. Returns the bytes read; the next call goes on where this one stopped."""
        spent = 0
        while self._unhashed and self.damage is None and (budget is None or spent < budget):
            relative = self._unhashed[0]
            recorded = self.files[relative]
            try:
                actual = sha256_of(self._local(relative))
            except FileNotFoundError:
                self.damaged(BuildDamaged("missing_file", f"{relative} is missing"))
                break
            spent += int(recorded.get("bytes") or 0)
            if actual != recorded.get("sha256"):
                self.damaged(BuildDamaged("corrupt_file", f"{relative} does not match its recorded SHA-256"))
                break
            self._unhashed.pop(0)
        return spent
