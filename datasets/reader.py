"""The lake as one worker serves it: the catalogue of current builds, their opened views, health.

A background thread (`refresh`, every `refresh_seconds`) re-reads the pointers, so requests never
touch the lake to find a build: `alpha(alpha_id)` is a dictionary lookup. A request then takes
one `BuildView` (`view`) and reads only from it (`datasets.queries`, `datasets.series`), so it
is answered from one build from start to end. Views are opened on first use; on a local lake the
build folder is mapped in place, on S3 its serving files are fetched once into a bounded local
cache (`datasets.local_cache`) and mapped from there.

The same thread releases the pages requests mapped since the last pass (they stay in the shared
page cache), so a worker's resident memory holds what it touched lately, not all it ever touched.
It also keeps the served builds honest: it compares every opened build's files with its
manifest (sizes each pass, SHA-256 once after opening), marks a damaged build so its requests
answer 503 (never fewer rows), and re-opens it once its files are back. A damaged build, an alpha
whose pointer or alpha.json is corrupt, and a lake that cannot be listed are what `health()`
reports, from memory (serve/health.py logs its changes once).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from datasets import catalog, layout
from datasets.build_view import BuildView, local_sizes, manifest_problem
from datasets.faults import BuildDamaged, LakeUnavailable, lake_errors
from datasets.local_cache import LocalCache
from datasets.storage import Storage

__all__ = ["AlphaBuild", "BenchmarkBuild", "BuildView", "LakeHealth", "LakeReader", "LakeUnavailable"]

log = logging.getLogger("datasets.reader")

BENCHMARK_KEY = "benchmark:"


@dataclass(frozen=True)
class AlphaBuild:
    """The current build of one alpha as the catalogue knows it (alpha.json in `entry`)."""

    alpha_id: str
    build_id: str
    build_dir: str
    entry: dict[str, Any] = field(hash=False, compare=False)

    @property
    def key(self) -> str:
        return self.alpha_id


@dataclass(frozen=True)
class BenchmarkBuild:
    symbol: str
    build_id: str
    build_dir: str
    entry: dict[str, Any] = field(hash=False, compare=False)

    @property
    def key(self) -> str:
        return BENCHMARK_KEY + self.symbol


@dataclass(frozen=True)
class Catalogue:
    alphas: dict[str, AlphaBuild]
    unreadable: dict[str, str]  # published alphas whose pointer or alpha.json is corrupt
    benchmarks: dict[str, BenchmarkBuild]
    failure: str | None = None  # why the last re-read failed (the lake could not be listed)


@dataclass(frozen=True)
class LakeHealth:
    down: bool  # the lake could not be read at all
    alphas: dict[str, str]  # alpha (or benchmark:SYMBOL) -> reason, for damaged served builds


class LakeReader:
    def __init__(
        self,
        root: str,
        refresh_seconds: float = 2.0,
        cache_dir: str = "var/cache/serving",
        cache_bytes: int = 8 << 30,
    ) -> None:
        if not 0 < refresh_seconds <= layout.MAX_REFRESH_SECONDS:
            raise ValueError(f"refresh_seconds must be in (0, {layout.MAX_REFRESH_SECONDS:g}]")
        self.root = root
        self.refresh_seconds = refresh_seconds
        self._storage = Storage(root)
        self._cache = None if self._storage.is_local else LocalCache(cache_dir, cache_bytes)
        self._catalogue: Catalogue | None = None
        self._bug: Exception | None = None  # a failed refresh that was not the lake's fault
        self._entries: dict[tuple[str, str], dict[str, Any]] = {}  # (key, build_id) -> manifest
        self._views: dict[str, BuildView] = {}  # key -> the opened current build
        self._failed: dict[str, tuple[str, BuildDamaged]] = {}  # key -> (build_id, why it did not open)
        self._lock = threading.Lock()
        # One refresh pass at a time: a pass that read the lake before a change must not publish
        # its catalogue after a pass that read it since (a lake being deleted, seen half gone by
        # the background pass, would otherwise replace the failure an explicit refresh found).
        self._refresh_lock = threading.Lock()
        self._open_locks: dict[str, threading.Lock] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def storage(self) -> Storage:
        return self._storage

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """First catalogue read now, then the refresh thread (idempotent)."""
        with self._lock:
            if self._thread is not None:
                return
            # pyarrow imports pandas on its first conversion to numpy (about 0.5 s): pay it here,
            # at worker start, not in the first request for an alpha.
            pa.array([0], pa.int32()).to_numpy()
            self._thread = threading.Thread(target=self._run, name="lake-refresh", daemon=True)
        if self._catalogue is None:
            self.refresh()
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _run(self) -> None:
        # Background work (SHA-256 of a newly opened build runs here) yields the CPU to requests.
        with contextlib.suppress(OSError, AttributeError):  # a platform without per-thread nice
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        while not self._stop.wait(self.refresh_seconds):
            self.refresh()

    def _current(self) -> Catalogue:
        if self._catalogue is None and self._bug is None:
            self.start()
        if self._bug is not None:
            raise self._bug  # a bug stays one (500), never an outage
        assert self._catalogue is not None
        return self._catalogue

    # -- catalogue ------------------------------------------------------------------------------

    def alphas(self) -> dict[str, AlphaBuild]:
        """Every readable published alpha's current build. Raises LakeUnavailable when the last
        re-read of the lake failed."""
        catalogue = self._current()
        if catalogue.failure is not None:
            raise LakeUnavailable(catalogue.failure)
        return catalogue.alphas

    def alpha(self, alpha_id: str) -> AlphaBuild | None:
        """The current build of `alpha_id`; None when nothing is published under it. Raises
        LakeUnavailable when it is published but unreadable: it exists, so it is not "not found"."""
        build = self.alphas().get(alpha_id)
        if build is None:
            reason = self._current().unreadable.get(alpha_id)
            if reason is not None:
                raise LakeUnavailable(reason)
        return build

    def benchmark(self, symbol: str) -> BenchmarkBuild | None:
        catalogue = self._current()
        if catalogue.failure is not None:
            raise LakeUnavailable(catalogue.failure)
        return catalogue.benchmarks.get(symbol)

    def builds(self) -> list[dict[str, Any]]:
        """Every build kept in the lake (`catalog.list_builds`), read now, not cached."""
        with lake_errors(self.root):
            self._check_root()
            return catalog.list_builds(self.root, self._storage)

    def refresh(self) -> None:
        """One pass: re-read the pointers, then check and repair the opened views."""
        with self._refresh_lock:
            self._refresh()

    def _refresh(self) -> None:
        previous = self._catalogue
        try:
            with lake_errors(self.root):
                catalogue = self._read_catalogue()
        except LakeUnavailable as exc:
            catalogue = Catalogue(
                previous.alphas if previous else {},
                previous.unreadable if previous else {},
                previous.benchmarks if previous else {},
                failure=str(exc) or "lake unavailable",
            )
        except Exception as exc:  # not the lake's fault: a bug, answered 500 until a pass succeeds
            log.exception("lake refresh failed")
            self._bug = exc
            return
        self._bug = None
        self._catalogue = catalogue
        if catalogue.failure is None:
            self._follow(catalogue)

    def _check_root(self) -> None:
        # A missing local root would otherwise read as an empty lake (every alpha 404).
        if self._storage.is_local and not self._storage.is_dir(self.root):
            raise FileNotFoundError(f"the lake root {self.root} is not a folder")

    def _entry(self, key: str, build_id: str, path: str) -> dict[str, Any]:
        """The manifest of an immutable build, read once."""
        cached = self._entries.get((key, build_id))
        if cached is None:
            cached = catalog.read_json(self._storage, path) or {}
            self._entries[(key, build_id)] = cached
        return cached

    def _read_catalogue(self) -> Catalogue:
        """A corrupt pointer or alpha.json costs only its alpha; any other failure fails the pass."""
        self._check_root()
        alphas: dict[str, AlphaBuild] = {}
        unreadable: dict[str, str] = {}
        for alpha_id in catalog.published_alpha_ids(self.root, self._storage):
            try:
                published = catalog.current_build(self.root, alpha_id, self._storage)
                if published is None:
                    continue  # pointer removed since the listing
                entry = self._entry(
                    alpha_id, published.build_id, layout.join(published.build_dir, layout.ALPHA_JSON)
                )
            except catalog.CorruptLakeFile as exc:
                unreadable[alpha_id] = str(exc)
                continue
            alphas[alpha_id] = AlphaBuild(alpha_id, published.build_id, published.build_dir, entry)
        benchmarks: dict[str, BenchmarkBuild] = {}
        for symbol in self._storage.list_names(layout.benchmarks_dir(self.root)):
            bench = catalog.current_benchmark(self.root, symbol, self._storage)
            if bench is not None:
                key = BENCHMARK_KEY + symbol
                entry = self._entry(key, bench.build_id, layout.join(bench.build_dir, layout.BENCHMARK_JSON))
                benchmarks[symbol] = BenchmarkBuild(symbol, bench.build_id, bench.build_dir, entry)
        for alpha_id, reason in unreadable.items():
            log.error("alpha %s is published but unreadable, not served: %s", alpha_id, reason)
        return Catalogue(alphas, unreadable, benchmarks)

    # -- views ----------------------------------------------------------------------------------

    def ready_view(self, build: AlphaBuild | BenchmarkBuild) -> BuildView | None:
        """The opened view of `build` when it is open (no I/O); raises LakeUnavailable when the
        build is damaged."""
        view = self._views.get(build.key)
        if view is not None and view.build_id == build.build_id:
            view.raise_if_damaged()
            return view
        failed = self._failed.get(build.key)
        if failed is not None and failed[0] == build.build_id:
            raise failed[1]
        return None

    def view(self, build: AlphaBuild | BenchmarkBuild) -> BuildView:
        """The view of `build`, opened now when needed (maps files; on S3 fetches them first)."""
        view = self.ready_view(build)
        if view is not None:
            return view
        with self._lock:
            open_lock = self._open_locks.setdefault(build.key, threading.Lock())
        with open_lock:
            view = self.ready_view(build)
            if view is None:
                view = self._open(build)
        return view

    def _open(self, build: AlphaBuild | BenchmarkBuild, verify: bool = False) -> BuildView:
        name = build.alpha_id if isinstance(build, AlphaBuild) else build.symbol
        try:
            with lake_errors(self.root):
                files = build.entry.get("files") or {}
                problem = manifest_problem(files, self._sizes(build.build_dir))
                if problem is not None:
                    raise problem
                if self._cache is None:
                    folder = build.build_dir
                else:
                    in_use = frozenset(v.folder for v in list(self._views.values()))
                    folder = self._cache.fetch(
                        self._storage, build.build_dir, name, build.build_id, files, in_use
                    )
                # A local build folder is served as it is, exports included (the download route
                # reads them there); an S3 build's exports are fetched from S3, not cached here.
                local = self._cache is None
                hashed = (layout.SERVING_DIR, layout.EXPORTS_DIR) if local else (layout.SERVING_DIR,)
                view = BuildView(name, build.build_id, build.entry, folder, hashed)
                if verify:
                    view.verify_hashes()
                    view.raise_if_damaged()
        except BuildDamaged as exc:
            known = self._failed.get(build.key)
            if known is None or known[0] != build.build_id or known[1].reason != exc.reason:
                log.warning("build %s of %s cannot be served: %s", build.build_id, name, exc)  # once
            self._failed[build.key] = (build.build_id, exc)
            raise
        self._failed.pop(build.key, None)
        self._views[build.key] = view
        return view

    def _sizes(self, build_dir: str) -> dict[str, int]:
        """Size of every file of a build in the lake, by path relative to the build."""
        if self._storage.is_local:
            return local_sizes(build_dir)
        base = self._storage.fs._strip_protocol(build_dir).rstrip("/")
        found = self._storage.fs.find(build_dir, detail=True)
        return {path[len(base) + 1 :]: int(info.get("size") or 0) for path, info in found.items()}

    def _follow(self, catalogue: Catalogue) -> None:
        """Drops views of builds no longer current, checks the rest, re-opens repaired ones."""
        current: dict[str, AlphaBuild | BenchmarkBuild] = {b.key: b for b in catalogue.alphas.values()}
        current.update({b.key: b for b in catalogue.benchmarks.values()})
        for key in list(self._views):
            if key not in current or current[key].build_id != self._views[key].build_id:
                del self._views[key]  # requests still holding it finish on it
        for key in list(self._failed):
            if key not in current or current[key].build_id != self._failed[key][0]:
                del self._failed[key]
        for key, view in list(self._views.items()):
            try:
                with lake_errors(self.root):
                    view.check_sizes(self._sizes(current[key].build_dir))
                    if view.damage is None and not view.hashes_verified:
                        view.verify_hashes()
            except LakeUnavailable as exc:
                view.damaged(BuildDamaged("unreadable", str(exc)))
            if view.damage is not None:
                del self._views[key]
                self._failed[key] = (view.build_id, view.damage)
            else:
                view.release_pages()
                if self._cache is not None:
                    self._cache.touch(view.folder)
        for key, (build_id, _) in list(self._failed.items()):
            try:
                self._open(current[key], verify=True)  # back only once every file is whole again
            except LakeUnavailable:
                continue
            log.info("build %s of %s is whole again and served", build_id, key)

    # -- health ---------------------------------------------------------------------------------

    def health(self) -> LakeHealth:
        """The lake as of the last refresh, from memory."""
        catalogue = self._catalogue
        if catalogue is None:
            return LakeHealth(down=False, alphas={})
        alphas = {alpha: "unreadable" for alpha in catalogue.unreadable}
        for key, (_, exc) in list(self._failed.items()):
            alphas[key] = exc.reason
        return LakeHealth(down=catalogue.failure is not None, alphas=dict(sorted(alphas.items())))
