"""One opened build: its manifest checked, its serving files memory-mapped, damage detected.

A `BuildView` is what a request reads from start to end: routes take one view when they resolve
the alpha and never look at the pointer again, so a publish in the middle of a request changes
nothing in its answer. Views are immutable apart from their damage flag.

Opening checks every file the manifest (`alpha.json` / `benchmark.json` `files`) lists against
its recorded size; the SHA-256 of the serving files (and, on a local lake, of any Parquet export
a build before pipeline 2.13.0 stored, which the download route serves from the build folder) is checked once per open, in the background
and on a budget of bytes per refresh interval (`verify_some`, run by the reader's refresh thread),
and on every reopen after damage before the build is served again. The JSON files are checked
whole when first read. A file written since its check, or since it was mapped when its check has
not run yet (its signature changed: `datasets.integrity`), is hashed before it is used: by the table access or the download
that notices (`verify_file`), or queued by the scrub (`check_files`). A view holds no open file: each
serving file is mapped and its descriptor closed at once, so a worker's descriptors do not grow
with the builds it serves (its maps are bounded by the reader's number of open builds). Each table
access re-checks its file's size by path (`stat`, about a microsecond), so a file truncated under
a running worker turns into `BuildDamaged` (503 upstream_unavailable) instead of fewer rows or a
SIGBUS. A removed or replaced file stays readable through its mapping (the old inode is whole);
the reader's refresh notices it in the lake and marks the build.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import hashlib
import json
import mmap
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol, TypeVar

import pyarrow as pa

from datasets import layout
from datasets.faults import BuildDamaged, LakeUnavailable, WorkerResourceExhausted, exhausted
from datasets.integrity import FileSignature, check_file, local_stats, signature, signatures_digest

T = TypeVar("T")

_READING: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("reading", default=None)
"""The tables a `BuildView.memo` computation has read so far (None outside one)."""


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


def local_sizes(folder: str, files: Iterable[str]) -> dict[str, int]:
    """Size of each of `files` (paths relative to the local `folder`) that exists (`local_stats`)."""
    return {relative: status.st_size for relative, status in local_stats(folder, files).items()}


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

    def __init__(self, path: str, relative: str, expected_bytes: int) -> None:
        self.path = path
        self.relative = relative  # in the build's manifest
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

    def check(self) -> os.stat_result | None:
        """The mapped file's `stat` after checking its size (pages past a truncated end would fault
        when read); None when the path names no file or another inode: a file removed or replaced
        leaves the mapped one whole, and the refresh notices the change in the lake."""
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return None
        if (status.st_dev, status.st_ino) != self.inode:
            return None
        self._check_size(status.st_size)
        return status

    def release(self) -> None:
        """Unmap the pages requests touched; they stay in the page cache, and the next read maps
        them again (a minor fault). A freshly written file sits in the page cache in large folios,
        and a read maps a whole folio: without this, every worker's RSS would keep what any
        request ever touched of every build, although none of it is private to the worker."""
        if _DONTNEED is not None:
            _DONTNEED(self._region.address, self._region.size)


class Derived(Protocol):
    """Serving files a build does not hold, derived by the worker (`datasets.derived.DerivedFiles`)."""

    @property
    def names(self) -> Mapping[str, str]: ...

    def path(self, view: BuildView, name: str) -> str | None: ...

    def forget(self, path: str, why: str) -> None: ...


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
        derived: Derived | None = None,
    ) -> None:
        self.name = name
        self.on_exhausted = on_exhausted
        self.derived = derived  # a serving file the build lacks, derived locally (datasets.derived)
        self.build_id = build_id
        self.entry = entry
        self.folder = folder
        self.files: dict[str, Any] = dict(entry.get("files") or {})
        self.hashed = tuple(folder.rstrip("/") + "/" for folder in hashed)  # see verify_some
        self._lock = threading.Lock()
        self._tables: dict[str, _MappedTable | None] = {}
        self._memo: dict[str, tuple[Any, frozenset[str]]] = {}  # key -> (value, tables it read)
        self.damage: BuildDamaged | None = None
        self.hashed_files = tuple(
            relative for relative in sorted(self.files) if relative.startswith(self.hashed)
        )
        self._unhashed = list(self.hashed_files)  # verify_some's queue
        self._signatures: dict[str, FileSignature] = {}  # file -> what its last matching check saw
        # What each hashed file was when the build was opened: until its check has run, a file
        # whose signature differs from this was written since, and is hashed before it is used.
        self._opened = {
            relative: signature(status) for relative, status in local_stats(folder, self.hashed_files).items()
        }
        self._hash_lock = threading.Lock()  # one check of a file at a time (requests, background)
        self._holding = threading.local()  # `held`: this thread's check keeps what it finds back
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

    def local_path(self, relative: str) -> str:
        return os.path.join(self.folder, relative.lstrip("/"))

    def _read_json(self, relative: str) -> dict[str, Any] | None:
        relative = relative.lstrip("/")
        if relative not in self.files:
            return None
        try:
            with open(self.local_path(relative), "rb") as handle:
                payload = handle.read()
        except FileNotFoundError as exc:
            raise self.damaged(BuildDamaged("missing_file", f"{relative} is missing")) from exc
        except OSError as exc:
            if (resource := exhausted(exc)) is not None:
                self.on_exhausted(resource)  # the worker's problem, never the build's damage
                raise resource from exc
            raise LakeUnavailable(f"{relative} cannot be read: {exc}") from exc
        recorded = self.files[relative]
        if len(payload) != int(recorded["bytes"]):
            raise self.damaged(BuildDamaged("truncated_file", f"{relative} is not the recorded size"))
        # Small and read once per view: checked before any of it is used.
        if hashlib.sha256(payload).hexdigest() != recorded.get("sha256"):
            raise self.damaged(
                BuildDamaged("corrupt_file", f"{relative} does not match its recorded SHA-256")
            )
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
        reading = _READING.get()
        if reading is not None:
            reading.add(name)
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
            status = mapped.check()
        except BuildDamaged as exc:
            raise self.damaged(exc) from None
        self._recheck(mapped, status)
        return mapped.table

    def _recheck(self, mapped: _MappedTable, status: os.stat_result | None) -> None:
        """Hashes `mapped` now when it was written since its check, or since the build was opened
        when no check has run yet (the background check may be queued behind others)."""
        if status is not None and self._changed(mapped.relative, status):
            self.verify_file(mapped.relative)
            self.raise_if_damaged()

    def _map(self, name: str) -> _MappedTable | None:
        relative = layout.serving_path("", name).lstrip("/")
        with self._lock:
            if name in self._tables:
                return self._tables[name]
            recorded = self.files.get(relative)
            if recorded is None and self.derived is not None and name in self.derived.names:
                return self._map_derived(self.derived, name)
            try:
                mapped = (
                    None
                    if recorded is None
                    else _MappedTable(self.local_path(relative), relative, int(recorded["bytes"]))
                )
            except FileNotFoundError as exc:
                raise self.damaged(BuildDamaged("missing_file", f"{relative} is missing")) from exc
            except (OSError, pa.ArrowException, ValueError) as exc:
                if (resource := exhausted(exc)) is not None:
                    raise resource from exc  # the worker's problem, not the build's
                raise self.damaged(BuildDamaged("corrupt_file", f"{relative} cannot be read: {exc}")) from exc
            self._tables[name] = mapped
            return mapped

    def _map_derived(self, derived: Derived, name: str) -> _MappedTable | None:
        """The derived file `name` (`datasets.derived`) mapped, under `_lock`; None while it is not
        there (not remembered: the next access asks again). The build's manifest does not list it,
        so it is never hashed against one; its size is checked at every access like a listed file's."""
        path = derived.path(self, name)
        if path is None:
            return None
        try:
            mapped = _MappedTable(path, path, os.path.getsize(path))
        except FileNotFoundError:
            return None  # removed by the bound since it was found: derived again on a later access
        except (OSError, pa.ArrowException, ValueError) as exc:
            if (resource := exhausted(exc)) is not None:
                raise resource from exc
            # The worker's own cache, not the build: the page is made from the rows, and the file
            # derived again (a build reopened after a derived file changed under it lands here).
            derived.forget(path, str(exc))
            return None
        self._tables[name] = mapped
        return mapped

    def derived_folders(self) -> set[str]:
        """The folders of the derived files this view maps (the reader marks them used)."""
        return {
            os.path.dirname(mapped.path)
            for name, mapped in list(self._tables.items())
            if mapped is not None and self.derived is not None and name in self.derived.names
        }

    def book_range(self, table: str, book: str) -> tuple[int, int] | None:
        ranges = (self.index.get(table) or {}).get("books") or {}
        found = ranges.get(book)
        return None if found is None else (int(found[0]), int(found[1]))

    def book_rows(self, table: str, book: str) -> pa.Table | None:
        """The rows of `book` in the serving table `table` (one slice of it); None when the build
        has no such table, or no rows of the book in it."""
        rows = self.table(table)
        found = self.book_range(table, book)
        if rows is None or found is None:
            return None
        return rows.slice(found[0], found[1] - found[0])

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """A value derived from this build alone (metrics inputs, JSON files), computed once. A value
        may be arrays over the mapped files, not copies: each use checks the tables its computation
        read as a table access does (a `stat` each), so bytes written in place since are hashed
        before it is used."""
        found = self._memo.get(key)
        if found is None:
            read: set[str] = set()
            token = _READING.set(read)
            try:
                computed = compute()
            finally:
                _READING.reset(token)
            with self._lock:
                found = self._memo.setdefault(key, (computed, frozenset(read)))
        else:
            for name in found[1]:
                self.table(name)  # checks the file, and records it for an enclosing computation
            return found[0]
        enclosing = _READING.get()
        if enclosing is not None:
            enclosing |= found[1]  # an enclosing computation depends on them too
        return found[0]

    # -- damage -----------------------------------------------------------------------------------

    def damaged(self, exc: BuildDamaged) -> BuildDamaged:
        slot: list[BuildDamaged] | None = getattr(self._holding, "slot", None)
        if slot is not None:
            if not slot:
                slot.append(exc)
        elif self.damage is None:
            self.damage = exc
        return exc

    @contextlib.contextmanager
    def held(self) -> Iterator[list[BuildDamaged]]:
        """Damage this thread finds inside the block is kept in the yielded list, not served: the
        caller publishes it (`damaged`) once it knows the build, not the whole lake, is at fault.
        Requests never see a build as damaged because a check ran while the lake was unmounted."""
        slot: list[BuildDamaged] = []
        self._holding.slot = slot
        try:
            yield slot
        finally:
            self._holding.slot = None

    def raise_if_damaged(self) -> None:
        if self.damage is not None:
            raise self.damage

    def check_files(self, stats: Mapping[str, os.stat_result], files: dict[str, Any] | None = None) -> None:
        """Marks the view damaged when the files' sizes (`stats`, by path relative to the build)
        differ from the manifest (`files`: the part of it to check, by default all of it); queues
        for `verify_some` the checked files written since their check."""
        problem = manifest_problem(
            self.files if files is None else files, {path: status.st_size for path, status in stats.items()}
        )
        if problem is not None:
            self.damaged(problem)
        for mapped in list(self._tables.values()):
            if mapped is not None:
                try:
                    mapped.check()
                except BuildDamaged as exc:
                    self.damaged(exc)
        with self._hash_lock:
            for relative, status in stats.items():
                if self._changed(relative, status) and relative not in self._unhashed:
                    self._unhashed.append(relative)

    def release_pages(self) -> None:
        """`release` every mapped file of the build (see `_MappedTable.release`)."""
        for mapped in list(self._tables.values()):
            if mapped is not None:
                mapped.release()

    @property
    def hashes_verified(self) -> bool:
        return not self._unhashed

    def _changed(self, relative: str, status: os.stat_result) -> bool:
        """Whether the file was written since its SHA-256 matched or, before its first check, since
        the build was opened."""
        seen = self._signatures.get(relative) or self._opened.get(relative)
        return seen is not None and seen != signature(status)

    def verified_digest(self) -> bytes | None:
        """What the reader remembers of a build whose every hashed file matched (None until then)."""
        with self._hash_lock:
            return None if self._unhashed or self.damage else signatures_digest(self._signatures)

    def hashes_known(self, digest: bytes) -> bool:
        """Skips the SHA-256 check when the hashed files are, by their signatures, those a check of
        this immutable build found whole before (`digest`, from `verified_digest`); False when any
        changed since: then they are checked again (sizes are checked on open and by the scrub)."""
        stats = local_stats(self.folder, self.hashed_files)
        signatures = {relative: signature(status) for relative, status in stats.items()}
        if len(signatures) != len(self.hashed_files) or signatures_digest(signatures) != digest:
            return False
        with self._hash_lock:
            self._signatures = signatures
            self._unhashed = []
        return True

    def verify_hashes(self) -> None:
        """Checks the SHA-256 of every file not yet checked (marks damage)."""
        self.verify_some(None)

    def verify_some(self, budget: int | None) -> int:
        """Checks the SHA-256 of the files in the `hashed` folders (the serving files; on a local
        lake also the Parquet exports a build before pipeline 2.13.0 stored, which the download
        route serves from the build folder)
        against the manifest, file after file, until `budget` bytes were read (None: all);
        marks damage. Returns the bytes read; the next call goes on where this one stopped."""
        spent = 0
        while (
            self.damage is None
            and not getattr(self._holding, "slot", None)
            and (budget is None or spent < budget)
        ):
            with self._hash_lock:
                if not self._unhashed:
                    break
                spent += self._verify(self._unhashed[0])
        return spent

    def verify_file(self, relative: str) -> None:
        """Checks the SHA-256 of `relative` now unless it was checked and has not changed since;
        marks damage."""
        with self._hash_lock:
            try:
                status = os.stat(self.local_path(relative))
            except FileNotFoundError:
                status = None
            if status is None or relative not in self._signatures or self._changed(relative, status):
                self._verify(relative)

    def _verify(self, relative: str) -> int:
        """One file against the manifest, under `_hash_lock`; marks damage. Returns the bytes read."""
        try:
            status = check_file(self.local_path(relative), relative, self.files[relative])
        except BuildDamaged as exc:
            self._signatures.pop(relative, None)
            self.damaged(exc)
            return int(self.files[relative]["bytes"])
        self._signatures[relative] = signature(status)
        if relative in self._unhashed:
            self._unhashed.remove(relative)
        return int(status.st_size)
