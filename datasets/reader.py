"""The lake as one worker serves it: the catalogue of current builds, their opened views, health.

A background thread (`refresh`, every `refresh_seconds`) re-reads the pointers, so requests never
touch the lake to find a build: `alpha(alpha_id)` is a dictionary lookup. A request then takes
one `BuildView` (`view`) and reads only from it (`datasets.queries`; the series over a window are computed from its rows by `analytics.series`), so it
is answered from one build from start to end. Views are opened on first use; on a local lake the
build folder is mapped in place, on S3 its serving files are fetched once into a bounded local
cache (`datasets.local_cache`) and mapped from there.

Every per-build cost of a worker is bounded by a setting, not by the catalogue:
- at most `max_open_builds` views are open (least recently used evicted; a request holding an
  evicted view finishes on it); a view holds no descriptor and one map per serving file it read;
- builds are immutable, so a build is checked when it is opened (every file's size) and its
  SHA-256 in the background, begun at once (`_opened` wakes the thread), at most
  `hash_bytes_per_pass` bytes per refresh interval; after that each pass re-checks the sizes of
  at most `scrub_builds_per_pass` open builds, in turn, so a file removed or truncated later is
  still noticed (within open builds / scrub passes) at a bounded cost, and a file written since
  its check (`datasets.integrity`) is hashed again;
- the download route serves an export or a source archive only through `verified_export` /
  `verified_archive`: once it matched what was recorded, hashed then when not checked yet;
- a worker that runs out of descriptors, memory or maps while opening a build
  (`WorkerResourceExhausted`) answers that request 503, never marks the build damaged, logs the
  figure once, evicts half of its open builds and reports `degraded` in health for a while.

The same thread releases the pages requests mapped since the last pass (they stay in the shared
page cache), so a worker's resident memory holds what it touched lately, not all it ever touched.
A damaged build is marked so its requests answer 503 (never fewer rows) and re-opened once its
files are back. A damaged build, an alpha whose pointer or alpha.json is corrupt, a lake that
cannot be listed and a recent resource failure are what `health()` reports, from memory
(serve/health.py logs its changes once).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import hashlib
import json
import logging
import os
import resource
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from alpha_results_seal.storage import Storage
from datasets import catalog, catalogue_index, clock, export_files, layout, pins
from datasets.build_view import BuildView, manifest_problem
from datasets.catalogue_snapshot import CatalogueCache, CatalogueSnapshot
from datasets.derived import DerivedFiles
from datasets.export_files import index_entries
from datasets.faults import (
    BenchmarkMissing,
    BuildDamaged,
    HistoryGone,
    LakeUnavailable,
    WorkerResourceExhausted,
    lake_errors,
)
from datasets.integrity import ArchiveChecks, VerifiedFiles, local_stats
from datasets.local_cache import LocalCache, served_files
from datasets.screener import Screener
from datasets.served import BENCHMARK_KEY, AlphaBuild, BenchmarkBuild, Catalogue, Listing

__all__ = ["BuildView", "LakeHealth", "LakeReader", "LakeUnavailable"]

log = logging.getLogger("datasets.reader")

RESOURCE_MEMORY_SECONDS = 60.0
"""How long health reports a resource failure after the last one."""
VERIFIED_BUILDS = 65_536
"""(key, build) pairs whose hashes a worker remembers having verified, with the signatures of the
files it hashed: a build evicted and opened again unchanged is not hashed again (a few MiB at most)."""
RECHECK_SECONDS = (60.0, 300.0)
"""A damaged build is checked again at every pass for the first figure (an operator repairing it
sees it back at once), then after half its age of damage, at most the second: each check hashes
its files whole, so a build left damaged costs less and less."""


def _column(table: pa.Table, name: str) -> list[Any]:
    """A column of the index as a list; nulls when an older index has no such column."""
    return table.column(name).to_pylist() if name in table.column_names else [None] * table.num_rows


@dataclass(frozen=True)
class LakeHealth:
    down: bool  # the lake could not be read at all
    alphas: dict[str, str]  # alpha (or benchmark:SYMBOL) -> reason, for damaged served builds
    worker: str | None = None  # a resource this worker ran out of lately (never a build's damage)


READER_COUNTS = {
    "evicted": "open builds closed to stay within max_open_builds, or half of them after a resource failure",
    "checks": "integrity checks run: a build's files' sizes when it opens, a scrub of an open build's "
    "sizes, a step of the background SHA-256, a download's file",
    "checks_failed": "checks that found the build damaged (its routes answer 503 until it is whole)",
    "refresh_failures": "refresh passes that could not read the catalogue (the lake, a resource, a bug)",
    "resource_failures": "times the worker ran out of open files, memory or memory maps",
}
"""What `LakeReader.counts` counts, each since the worker started; the server's metrics are made of
them (serve/prometheus.py)."""


class ReaderCounts:
    """The `READER_COUNTS` of one reader: each only grows, from whichever thread did the work."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(READER_COUNTS, 0)

    def add(self, name: str, amount: int = 1) -> None:
        with self._lock:
            self._counts[name] += amount

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)


def resource_figure(what: str) -> str:
    """How much of `what` (a `faults.RESOURCE_ERRNOS` text) this process holds against its limit,
    for a resource failure's log: descriptors against the soft limit, or memory maps against
    `vm.max_map_count` and the resident memory."""
    try:
        if "files" in what:
            soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
            return f"{len(os.listdir('/proc/self/fd'))} of {soft} open files"
        with open("/proc/self/maps") as maps, open("/proc/sys/vm/max_map_count") as limit:
            mapped, most = sum(1 for _ in maps), int(limit.read())
        return f"{mapped} of {most} memory maps, {_resident_mib()} MiB resident"
    except (OSError, ValueError):
        return "unknown"


def _resident_mib() -> int:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) // 1024


PAST_CATALOGUES = 8
"""Past catalogues (`LakeReader.at`) a worker keeps, by generation number, least recently asked
dropped first: a dashboard reading a decision's `as_of` asks one generation again and again, and
a key sending distinct moments across many generations is bounded by its `as_of` budget
(serve/limits/as_of.py) rather than by this cache."""


class LakeReader:
    def __init__(
        self,
        root: str,
        refresh_seconds: float = 2.0,
        cache_dir: str = "var/cache/serving",
        cache_bytes: int = 8 << 30,
        max_open_builds: int = 64,
        scrub_builds_per_pass: int = 8,
        hash_bytes_per_pass: int = 256 << 20,
    ) -> None:
        if not 0 < refresh_seconds <= layout.MAX_REFRESH_SECONDS:
            raise ValueError(f"refresh_seconds must be in (0, {layout.MAX_REFRESH_SECONDS:g}]")
        if min(max_open_builds, scrub_builds_per_pass, hash_bytes_per_pass) < 1:
            raise ValueError("max_open_builds, scrub_builds_per_pass and hash_bytes_per_pass must be >= 1")
        self.root = root
        self.refresh_seconds = refresh_seconds
        self.max_open_builds = max_open_builds
        self.scrub_builds_per_pass = scrub_builds_per_pass
        self.hash_bytes_per_pass = hash_bytes_per_pass
        self._storage = Storage(root)
        self._cache = None if self._storage.is_local else LocalCache(cache_dir, cache_bytes)
        self.derived = DerivedFiles(cache_dir, cache_bytes)  # row bytes, derived on first use
        self._catalogue: Catalogue | None = None
        self._catalogue_cache = CatalogueCache()  # what snapshots map once per catalogue generation
        self._screener = Screener()  # the screener's DuckDB database over the catalogue index
        self._bug: Exception | None = None  # a failed refresh that was not the lake's fault
        self._entries: dict[tuple[str, str], dict[str, Any]] = {}  # (key, build_id) -> manifest
        self._views: OrderedDict[str, BuildView] = OrderedDict()  # key -> opened build, LRU first
        self._scrubbed: list[str] = []  # keys of open views not yet size-checked in this round
        self._resource_failure: tuple[float, str] | None = None  # (monotonic time, what ran out)
        self._generation: catalogue_index.Generation | None = None  # of the catalogue index read
        self._generations: dict[int, catalogue_index.Generation] = {}  # read by `at`: never rewritten
        self._past: OrderedDict[int, Catalogue] = OrderedDict()  # past catalogues `at` read, LRU first
        self._warned_unindexed = False
        self._failed: dict[str, tuple[str, BuildDamaged]] = {}  # key -> (build_id, why it did not open)
        self._recheck: dict[str, tuple[float, float]] = {}  # failed key -> (first failed, next check)
        self._verified: OrderedDict[tuple[str, str], bytes] = OrderedDict()  # -> verified_digest
        self._hash_budget = hash_bytes_per_pass  # left in this refresh interval
        self._opened = threading.Event()  # a build was opened: check its hashes now (`_run`)
        self._archives = ArchiveChecks()
        self._superseded_files = VerifiedFiles()  # exports of superseded builds, as last checked
        self._lock = threading.Lock()
        # One refresh pass at a time: a pass that read the lake before a change must not publish
        # its catalogue after a pass that read it since (a lake being deleted, seen half gone by
        # the background pass, would otherwise replace the failure an explicit refresh found).
        self._refresh_lock = threading.Lock()
        self._open_locks: dict[str, threading.Lock] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.counts = ReaderCounts()

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
        self._opened.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _run(self) -> None:
        # Background work (SHA-256 of a newly opened build runs here) yields the CPU to requests.
        with contextlib.suppress(OSError, AttributeError):  # a platform without per-thread nice
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        due = time.monotonic() + self.refresh_seconds
        while not self._stop.is_set():
            # A newly opened build is hashed at once (within the interval's budget), so the window
            # in which it is served unchecked is its hashing time, not a refresh interval.
            if self._opened.wait(max(0.0, due - time.monotonic())) and not self._stop.is_set():
                self._opened.clear()
                with self._refresh_lock:
                    self._verify_opened()
            if time.monotonic() >= due and not self._stop.is_set():
                self.refresh()
                due = time.monotonic() + self.refresh_seconds

    def _current(self) -> Catalogue:
        if self._catalogue is None and self._bug is None:
            self.start()
        if self._bug is not None:
            raise self._bug  # a bug stays one (500), never an outage
        assert self._catalogue is not None
        return self._catalogue

    # -- catalogue ------------------------------------------------------------------------------

    def catalogue(self) -> Catalogue:
        """The whole catalogue as of the last refresh (order, version, index). Raises
        LakeUnavailable when the last re-read of the lake failed."""
        catalogue = self._current()
        if catalogue.failure is not None:
            raise LakeUnavailable(catalogue.failure)
        return catalogue

    def snapshot(self) -> CatalogueSnapshot:
        """The catalogue as one request reads it (`datasets.catalogue_snapshot`): every
        catalogue-wide figure of an answer comes from this one generation. Raises LakeUnavailable
        as `catalogue` does."""
        return CatalogueSnapshot(
            self.catalogue(), self._storage, self.root, self._catalogue_cache, self._screener
        )

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

    def benchmark_view(self, symbol: str, *, ready_only: bool = False) -> BuildView | None:
        """The served build of benchmark `symbol`, opened: the one way anything reads a benchmark
        (the server's routes, a notebook's figures). `BenchmarkMissing` when the lake publishes no
        such benchmark (`configured` False) or cannot read it (True). `ready_only`: None instead of
        opening a build not open yet (no I/O: the server then opens it in a worker thread)."""
        try:
            build = self.benchmark(symbol)
            if build is None:
                raise BenchmarkMissing(symbol, configured=False)
            return self.ready_view(build) if ready_only else self.view(build)
        except LakeUnavailable as exc:
            raise BenchmarkMissing(symbol, configured=True) from exc

    def at(self, moment: dt.datetime) -> LakeReader | PastReader:
        """The lake as the API served it at `moment` (a read route's `as_of`): the catalogue
        generation committed last by then, with its builds (this reader when that is the current
        one). Raises `HistoryGone` when the lake no longer keeps it: no generation kept is that old,
        or `moment` is older than the history retention (`layout.history_seconds`) and no record
        pinned that generation (`datasets.pins`).

        Blocking (a listing, a few generation files, the pins, a past index): a server asks it in a
        worker thread (`serve.routes.base.context_of`). A moment since the current generation was
        committed costs nothing; a past generation's catalogue is read once and kept
        (`PAST_CATALOGUES`, by generation number), so distinct moments within one past generation
        cost a listing and a binary search over the generations' files, which are kept too
        (a generation file is never rewritten)."""
        current = self.catalogue()
        served = current.generation
        known = None if served is None else served.known
        if served is not None and known is not None and known <= moment:
            return self
        generation = catalogue_index.generation_at(self._storage, self.root, moment, self._generations)
        if generation is None:
            raise HistoryGone(f"the lake keeps no catalogue generation from {moment.isoformat()} or earlier")
        if served is not None and generation.number == served.number:
            return self
        retained = clock.now().timestamp() - layout.history_seconds()
        if (
            moment.timestamp() < retained
            and generation.number not in pins.pinned(self._storage, self.root).generations
        ):
            raise HistoryGone(
                f"{moment.isoformat()} is older than the history this lake keeps "
                f"({layout.history_seconds() / 86_400:g} days) and no decision pinned what was served then"
            )
        with self._lock:
            catalogue = self._past.get(generation.number)
            if catalogue is not None:
                self._past.move_to_end(generation.number)
        if catalogue is None:
            try:
                catalogue = self._catalogue_of(generation, current.alphas)
            except (FileNotFoundError, LakeUnavailable) as exc:
                raise HistoryGone(f"the catalogue served at {moment.isoformat()} is no longer kept") from exc
            with self._lock:
                self._past[generation.number] = catalogue
                while len(self._past) > PAST_CATALOGUES:
                    self._past.popitem(last=False)
        return PastReader(self, catalogue)

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
        except WorkerResourceExhausted as exc:
            self.counts.add("refresh_failures")
            self._out_of(exc)  # the worker's problem: logged, builds closed, health degraded
            if previous is not None:
                return  # served as read at the last pass; the next pass reads the lake again
            catalogue = Catalogue({}, {}, {}, failure=str(exc))
        except LakeUnavailable as exc:
            self.counts.add("refresh_failures")
            catalogue = Catalogue(
                previous.alphas if previous else {},
                previous.unreadable if previous else {},
                previous.benchmarks if previous else {},
                failure=str(exc) or "lake unavailable",
                index=previous.index if previous else None,
                version=previous.version if previous else "",
                order=previous.order if previous else (),
                listing=previous.listing if previous else None,
                generation=previous.generation if previous else None,
            )
        except Exception as exc:  # not the lake's fault: a bug, answered 500 until a pass succeeds
            self.counts.add("refresh_failures")
            log.exception("lake refresh failed")
            self._bug = exc
            return
        self._bug = None
        self._catalogue = catalogue
        if previous is not None and catalogue.failure is None and catalogue is not previous:
            _log_new_builds(previous, catalogue)  # a pass that found no new generation logs nothing
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
        """The catalogue from the lake's index (O(1) requests while it is unchanged), or from
        every pointer on a lake without one. A corrupt pointer or alpha.json costs only its alpha;
        any other failure fails the pass."""
        self._check_root()
        generation = catalogue_index.newest(self._storage, self.root, self._generation)
        if generation is None:
            return self._scan_pointers()
        previous = self._catalogue
        if (
            previous is not None
            and previous.failure is None
            and self._generation is not None
            and generation.number == self._generation.number
        ):
            return previous  # unchanged: the pass cost one request
        catalogue = self._catalogue_of(generation, {} if previous is None else previous.alphas)
        self._log_unreadable(catalogue.unreadable)
        self._generation = generation
        return catalogue

    def _catalogue_of(
        self, generation: catalogue_index.Generation, known: Mapping[str, AlphaBuild]
    ) -> Catalogue:
        """The catalogue `generation` indexes (`known`: builds already read, kept as they are)."""
        index = catalogue_index.read_index(self._storage, self.root, generation)
        alphas: dict[str, AlphaBuild] = {}
        unreadable: dict[str, str] = {}
        columns = (index.column(name).to_pylist() for name in ("alpha_id", "build_id", "entry", "unreadable"))
        for alpha_id, build_id, entry, reason in zip(*columns, strict=True):
            if reason is not None or entry is None:
                unreadable[alpha_id] = reason or "the catalogue index holds no entry"
                continue
            old = known.get(alpha_id)
            if old is not None and old.build_id == build_id:
                alphas[alpha_id] = old
                continue
            build_dir = layout.alpha_build_dir(self.root, alpha_id, build_id)
            alphas[alpha_id] = AlphaBuild(alpha_id, build_id, build_dir, entry)
        benchmarks: dict[str, BenchmarkBuild] = {}
        for symbol, build_id in sorted(generation.benchmarks.items()):
            build_dir = layout.benchmark_build_dir(self.root, symbol, build_id)
            entry = self._entry(
                BENCHMARK_KEY + symbol, build_id, layout.join(build_dir, layout.BENCHMARK_JSON)
            )
            benchmarks[symbol] = BenchmarkBuild(symbol, build_id, build_dir, entry)
        listed = index.filter(
            pc.and_(pc.is_valid(index.column("entry")), pc.is_null(index.column("unreadable")))
        )
        order = tuple(listed.column("alpha_id").to_pylist())
        return Catalogue(
            alphas,
            unreadable,
            benchmarks,
            index=index.drop_columns(["entry"]),  # held as text by each AlphaBuild alone
            version=f"g{generation.number}",
            order=order,
            listing=Listing.of(
                list(order),
                [
                    f"{b}@{at}"
                    for b, at in zip(_column(listed, "build_id"), _column(listed, "indexed_at"), strict=True)
                ],
                *(listed.column(n).to_pylist() for n in ("name", "tldr", "complete")),
            ),
            generation=generation,
        )

    def _scan_pointers(self) -> Catalogue:
        """A lake without a catalogue index (published before it): every pointer, every pass."""
        alphas: dict[str, AlphaBuild] = {}
        entries: dict[str, dict[str, Any]] = {}
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
            entries[alpha_id] = entry
            summary = json.dumps({k: v for k, v in entry.items() if k != "files"})
            alphas[alpha_id] = AlphaBuild(alpha_id, published.build_id, published.build_dir, summary)
        benchmarks: dict[str, BenchmarkBuild] = {}
        for symbol in self._storage.list_names(layout.benchmarks_dir(self.root)):
            bench = catalog.current_benchmark(self.root, symbol, self._storage)
            if bench is not None:
                key = BENCHMARK_KEY + symbol
                entry = self._entry(key, bench.build_id, layout.join(bench.build_dir, layout.BENCHMARK_JSON))
                benchmarks[symbol] = BenchmarkBuild(symbol, bench.build_id, bench.build_dir, entry)
        # An empty lake (a first `serve --init-demo`, about to build one) has nothing to index.
        if (alphas or unreadable or benchmarks) and not self._warned_unindexed:
            log.warning(
                "the lake %s has no catalogue index: every refresh reads every pointer; "
                "`alpha-results lake index` writes one",
                self.root,
            )
            self._warned_unindexed = True
        self._log_unreadable(unreadable)
        order = tuple(
            sorted(alphas, key=lambda alpha: catalog.catalogue_order({**entries[alpha], "alpha_id": alpha}))
        )
        version = hashlib.sha256(",".join(f"{a}@{alphas[a].build_id}" for a in order).encode()).hexdigest()
        return Catalogue(
            alphas,
            unreadable,
            benchmarks,
            version=version[:16],
            order=order,
            listing=Listing.of(
                list(order),
                [alphas[a].build_id for a in order],
                *([entries[a].get(name) for a in order] for name in ("name", "tldr", "complete")),
            ),
        )

    @staticmethod
    def _log_unreadable(unreadable: dict[str, str]) -> None:
        for alpha_id, reason in unreadable.items():
            log.error("alpha %s is published but unreadable, not served: %s", alpha_id, reason)

    # -- views ----------------------------------------------------------------------------------

    def ready_view(self, build: AlphaBuild | BenchmarkBuild) -> BuildView | None:
        """The opened view of `build` when it is open (no I/O); raises LakeUnavailable when the
        build is damaged."""
        view = self._views.get(build.key)
        if view is not None and view.build_id == build.build_id:
            view.raise_if_damaged()
            with contextlib.suppress(KeyError):  # evicted meanwhile: still served to this request
                self._views.move_to_end(build.key)
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
                try:
                    view = self._open(build)
                except WorkerResourceExhausted as exc:
                    self._out_of(exc)
                    view = self._open(build)  # once more, with half the builds closed
        return view

    def _out_of(self, exc: WorkerResourceExhausted) -> None:
        """A resource failure: logged once per episode with the figure, half the views evicted."""
        now = time.monotonic()
        known = self._resource_failure
        if known is None or now - known[0] > RESOURCE_MEMORY_SECONDS:
            log.error(
                "worker out of %s (%s, %d builds open, max_open_builds %d): closing the least "
                "recently used builds; no build is damaged",
                exc.resource, resource_figure(exc.resource), len(self._views), self.max_open_builds,
            )  # fmt: skip
        self._resource_failure = (now, exc.resource)
        self.counts.add("resource_failures")
        self._evict(len(self._views) // 2)
        gc.collect()  # evicted views' maps go with their last reference

    def _evict(self, keep: int) -> None:
        """Closes the least recently used views until `keep` are open."""
        with self._lock:
            while len(self._views) > keep:
                self._views.popitem(last=False)
                self.counts.add("evicted")

    def _open(self, build: AlphaBuild | BenchmarkBuild, verify: bool = False) -> BuildView:
        name = build.alpha_id if isinstance(build, AlphaBuild) else build.symbol
        try:
            with lake_errors(self.root):
                entry = self._manifest(build)
                files = entry.get("files") or {}
                problem = manifest_problem(files, self._sizes(build.build_dir, files))
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
                view = BuildView(name, build.build_id, entry, folder, hashed, self._out_of, self.derived)
                verified = self._verified.get((build.key, build.build_id))
                if verified is not None and not verify and not view.hashes_known(verified):
                    # Files of a build this worker found whole have been written since: checked
                    # before any of it is served, not on the background budget.
                    verify = True
                if verify:
                    view.verify_hashes()
                    view.raise_if_damaged()
        except WorkerResourceExhausted:
            raise
        except BuildDamaged as exc:
            self.counts.add("checks")
            self.counts.add("checks_failed")
            known = self._failed.get(build.key)
            if known is None or known[0] != build.build_id or known[1].reason != exc.reason:
                log.warning("build %s of %s cannot be served: %s", build.build_id, name, exc)  # once
            self._failed[build.key] = (build.build_id, exc)
            raise
        self.counts.add("checks")
        self._failed.pop(build.key, None)
        with self._lock:
            self._views[build.key] = view
        self._evict(self.max_open_builds)
        if not view.hashes_verified:
            self._opened.set()
        return view

    def _manifest(self, build: AlphaBuild | BenchmarkBuild) -> dict[str, Any]:
        """The build's whole manifest (alpha.json with its `files`), read when it is opened: the
        catalogue keeps only the rest of it, for every alpha."""
        if isinstance(build, BenchmarkBuild):
            return build.entry
        try:
            entry = catalog.read_json(self._storage, layout.join(build.build_dir, layout.ALPHA_JSON))
        except catalog.CorruptLakeFile as exc:
            raise BuildDamaged("corrupt_file", f"{layout.ALPHA_JSON} cannot be read: {exc}") from exc
        if entry is None:
            raise BuildDamaged("missing_file", f"{layout.ALPHA_JSON} is missing")
        return entry

    def _sizes(self, build_dir: str, files: dict[str, Any]) -> dict[str, int]:
        """Size of every file of a build in the lake, by path relative to the build."""
        if self._storage.is_local:
            return {path: status.st_size for path, status in local_stats(build_dir, files).items()}
        base = self._storage.fs._strip_protocol(build_dir).rstrip("/")
        found = self._storage.fs.find(build_dir, detail=True)
        return {path[len(base) + 1 :]: int(info.get("size") or 0) for path, info in found.items()}

    def _follow(self, catalogue: Catalogue) -> None:
        """Drops views of builds no longer current; checks a bounded part of the rest (hashes of
        newly opened builds, the sizes of `scrub_builds_per_pass` open builds); re-opens repaired
        builds."""
        current = _Served(catalogue)  # no dict of the whole catalogue per pass (issue 51)
        self._drop_replaced(current)
        views = list(self._views.items())
        if not self._scrubbed:
            self._scrubbed = [key for key, _ in views]
        scrub, self._scrubbed = (
            self._scrubbed[: self.scrub_builds_per_pass],
            self._scrubbed[self.scrub_builds_per_pass :],
        )
        for key in scrub:
            scrubbed = self._views.get(key)
            if scrubbed is not None and key in current:
                self._checked(key, scrubbed, partial(self._scrub, scrubbed))
        self._hash_budget = self.hash_bytes_per_pass  # after the scrub: hashes what it found changed
        self._verify_opened()
        self._archives.recheck(_ServedBuilds(catalogue.alphas))
        for _, view in views:
            if view.damage is None:
                view.release_pages()
                if self._cache is not None:
                    self._cache.touch(view.folder)
                for folder in view.derived_folders():  # in use: kept by every worker's bound
                    LocalCache.touch(folder)
        self._reopen_repaired(current)

    def _reopen_repaired(self, current: _Served) -> None:
        """Re-opens the failed builds whose recheck is due and that are whole again; a build still
        damaged is rechecked later, after a wait that grows with its age."""
        now = time.monotonic()
        for key in list(self._recheck):
            if key not in self._failed:
                del self._recheck[key]
        for key, (build_id, _) in list(self._failed.items()):
            first, due = self._recheck.get(key, (now, now))
            if now < due:
                continue
            try:
                repaired = self._open(current[key], verify=True)  # once every file is whole again
            except LakeUnavailable:
                age = now - first
                wait = 0.0 if age < RECHECK_SECONDS[0] else min(age / 2, RECHECK_SECONDS[1])
                self._recheck[key] = (first, now + wait)
                continue
            self._remember_verified(key, repaired)
            log.info("build %s of %s is whole again and served", build_id, key)

    def _drop_replaced(self, current: _Served) -> None:
        """Forgets the views and failures of builds no longer current."""
        with self._lock:
            for key in list(self._views):
                if key not in current or current[key].build_id != self._views[key].build_id:
                    del self._views[key]  # requests still holding it finish on it
        for key in list(self._failed):
            if key not in current or current[key].build_id != self._failed[key][0]:
                del self._failed[key]

    def _verify_opened(self) -> None:
        """The SHA-256 of open builds not verified yet (newly opened, or with files written since
        their check), within what is left of this refresh interval's `hash_bytes_per_pass`."""
        for key, view in list(self._views.items()):
            if self._hash_budget <= 0:
                return
            if view.damage is None and not view.hashes_verified:
                self._hash_budget -= self._checked(key, view, partial(view.verify_some, self._hash_budget))
                self._remember_verified(key, view)  # once every file matched: with what it saw now
            elif (key, view.build_id) not in self._verified:
                self._remember_verified(key, view)  # verified by requests (downloads)

    def _remember_verified(self, key: str, view: BuildView) -> None:
        digest = view.verified_digest()
        if digest is None:
            return
        self._verified[(key, view.build_id)] = digest
        self._verified.move_to_end((key, view.build_id))
        while len(self._verified) > VERIFIED_BUILDS:
            self._verified.popitem(last=False)

    def _checked(self, key: str, view: BuildView, check: Callable[[], int | None]) -> int:
        """Runs one check of an open view; a damaged view is closed and remembered as failed.
        Returns the bytes the check read."""
        spent = 0
        self.counts.add("checks")
        with view.held() as found:
            try:
                with lake_errors(self.root):
                    spent = check() or 0
            except WorkerResourceExhausted:
                return spent  # not the build's fault; checked again later
            except LakeUnavailable as exc:
                view.damaged(BuildDamaged("unreadable", str(exc)))
        if found and self._cache is None and not self._storage.is_dir(self.root):
            # The lake folder went away under the check (an unmounted volume): an outage, which the
            # refresh reports, not this build's damage; the check runs again once it is back.
            return spent
        if found:
            view.damaged(found[0])
        if view.damage is None:
            return spent
        self.counts.add("checks_failed")
        with self._lock:
            self._views.pop(key, None)
        self._failed[key] = (view.build_id, view.damage)
        return spent

    def _scrub(self, view: BuildView) -> None:
        # An S3 build is served from its local copy, verified when fetched: check that copy, so an
        # idle worker makes no request to the store for its open builds. (A local build is served
        # from its folder in the lake.)
        files = view.files if self._cache is None else served_files(view.files)
        view.check_files(local_stats(view.folder, files), files)

    # -- downloads ------------------------------------------------------------------------------

    def verified_export(
        self,
        name: str,
        build_id: str,
        relative: str,
        benchmark: bool = False,
        *,
        computed: Mapping[str, Callable[[pa.Table], pa.Table]],
    ) -> str | None:
        """The local path of the file `relative` (an export) of build `build_id` of alpha (or
        benchmark) `name` once its size and SHA-256 match what the build recorded: a stored file
        hashed now unless checked and unchanged since (a superseded build's file too, by its stat
        signature); an export the lake did not store made from the build's serving tables (with
        `computed`, `analytics.series.COMPUTED_EXPORTS`) on the first ask and kept in this
        machine's derived folder (`DerivedFiles.made_export`). None when that build does not list
        it. Raises BuildDamaged: of a stored file of the served build, the build is then damaged
        (every route of the alpha 503, health names it); of a superseded build or a made export,
        only the download fails. LakeUnavailable when unreadable."""
        served = self.benchmark(name) if benchmark else self.alpha(name)
        if served is not None and served.build_id == build_id:
            view = self.view(served)
            if relative not in view.files:
                view.raise_if_damaged()  # a damaged build's exports are refused as its routes are
                return self._made_export(view, relative, computed)
            self._checked(served.key, view, partial(view.verify_file, relative))
            view.raise_if_damaged()
            return view.local_path(relative)
        build_dir = (layout.benchmark_build_dir if benchmark else layout.alpha_build_dir)(
            self.root, name, build_id
        )
        with lake_errors(self.root):
            manifest = catalog.read_json(
                self._storage,
                layout.join(build_dir, layout.BENCHMARK_JSON if benchmark else layout.ALPHA_JSON),
            )
            if manifest is None:
                if not self._storage.exists(self.root):  # the lake is gone, not the build
                    raise LakeUnavailable(f"the lake {self.root} is absent or unreachable")
                return None
            recorded = manifest.get("files", {}).get(relative)
            if recorded is None:
                return self._made_export(BuildView(name, build_id, manifest, build_dir), relative, computed)
            path = layout.join(build_dir, relative)
            self._superseded_files.check(path, relative, recorded)  # no view: remembered by signature
        return path

    def _made_export(
        self,
        view: BuildView,
        relative: str,
        computed: Mapping[str, Callable[[pa.Table], pa.Table]],
    ) -> str | None:
        """An export of `view`'s build its index lists as not stored, made (or found made): its
        local path; None when the index lists no such export. One this code cannot make from the
        build (a dataset, book or column it does not know) is BuildDamaged `export_not_reproduced`,
        as bytes that do not hash to the record are."""
        index = view.json(export_files.INDEX_PATH)
        listed = index_entries(index) or []
        entry = next(
            (e for e in listed if e.get("path") == relative and e.get("stored") is False and "sha256" in e),
            None,
        )
        if entry is None:
            return None

        def make() -> bytes:
            try:
                return export_files.made_export(view, relative, computed)
            except (KeyError, ValueError, pa.ArrowException) as exc:
                raise BuildDamaged(
                    "export_not_reproduced", f"{relative} cannot be made here: {exc!r}"
                ) from exc

        with lake_errors(self.root):
            try:
                return self.derived.made_export(view.name, entry, make)
            except BuildDamaged:
                recorded = (index or {}).get("writer")
                if recorded != export_files.PARQUET_WRITER:  # the likely cause, for the operator
                    log.warning(
                        "%s of %s was written by %s, this server writes with %s: publish it again",
                        relative,
                        view.name,
                        recorded,
                        export_files.PARQUET_WRITER,
                    )
                raise

    def verified_archive(self, alpha_id: str, object_path: str, sha256: str) -> str:
        """The local path of a content-addressed source archive (`object_path` relative to the lake
        root) once it hashes to `sha256`, its name: hashed now unless checked and unchanged since.
        Raises BuildDamaged (`corrupt_archive`, which health reports for the alpha until the file
        is whole again), FileNotFoundError when it is gone."""
        served = self.alphas().get(alpha_id)
        path = layout.join(self.root, object_path)
        self._archives.check(alpha_id, None if served is None else served.build_id, path, sha256)
        return path

    # -- health ---------------------------------------------------------------------------------

    def open_builds(self) -> int:
        """Builds this worker holds open now (at most `max_open_builds`)."""
        return len(self._views)

    def damaged_builds(self) -> int:
        """Served builds this worker found damaged and does not serve until they are whole."""
        return len(self._failed)

    def health(self) -> LakeHealth:
        """The lake as of the last refresh, from memory."""
        catalogue = self._catalogue
        if catalogue is None:
            return LakeHealth(down=False, alphas={})
        alphas = {alpha: "unreadable" for alpha in catalogue.unreadable}
        alphas.update(self._archives.damage())  # a damaged build's own reason wins below
        for key, (_, exc) in list(self._failed.items()):
            alphas[key] = exc.reason
        worker = None
        failure = self._resource_failure
        if failure is not None and time.monotonic() - failure[0] <= RESOURCE_MEMORY_SECONDS:
            worker = f"ran out of {failure[1]}; closed the least recently used builds"
        return LakeHealth(
            down=catalogue.failure is not None, alphas=dict(sorted(alphas.items())), worker=worker
        )


def _log_new_builds(previous: Catalogue, catalogue: Catalogue) -> None:
    """One line per alpha whose served build changed (or that is served for the first time)."""
    for alpha_id, build in catalogue.alphas.items():
        before = previous.alphas.get(alpha_id)
        if before is None or before.build_id != build.build_id:
            log.info(
                "serving build %s of %s (was %s)",
                build.build_id, alpha_id, before.build_id if before else "not served",
            )  # fmt: skip


class _Served(Mapping[str, "AlphaBuild | BenchmarkBuild"]):
    """The served builds of `catalogue` by view key (alpha id, `benchmark:` + symbol), looked up in
    its own dicts: a refresh pass touches the views it holds, not every alpha of the catalogue."""

    def __init__(self, catalogue: Catalogue) -> None:
        self._alphas, self._benchmarks = catalogue.alphas, catalogue.benchmarks

    def __getitem__(self, key: str) -> AlphaBuild | BenchmarkBuild:
        if key.startswith(BENCHMARK_KEY):
            return self._benchmarks[key[len(BENCHMARK_KEY) :]]
        return self._alphas[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._alphas
        yield from (BENCHMARK_KEY + symbol for symbol in self._benchmarks)

    def __len__(self) -> int:
        return len(self._alphas) + len(self._benchmarks)


class _ServedBuilds(Mapping[str, str]):
    """alpha_id -> its served build id, read from the catalogue's dict when asked."""

    def __init__(self, alphas: Mapping[str, AlphaBuild]) -> None:
        self._alphas = alphas

    def __getitem__(self, alpha_id: str) -> str:
        return self._alphas[alpha_id].build_id

    def __iter__(self) -> Iterator[str]:
        return iter(self._alphas)

    def __len__(self) -> int:
        return len(self._alphas)


class PastReader:
    """A `LakeReader` as it served a past catalogue generation (`LakeReader.at`): its catalogue,
    alphas, benchmarks and snapshot are that generation's; a build is opened for this reader alone
    when it is not the one served now (never replacing a served build in the worker's views), and
    one collected since is `HistoryGone`. Everything else is the live reader's."""

    def __init__(self, reader: LakeReader, catalogue: Catalogue) -> None:
        self._reader = reader
        self._catalogue = catalogue
        self._views: dict[tuple[str, str], BuildView] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)

    @property
    def generation(self) -> int | None:
        return None if self._catalogue.generation is None else self._catalogue.generation.number

    def catalogue(self) -> Catalogue:
        return self._catalogue

    def snapshot(self) -> CatalogueSnapshot:
        reader = self._reader
        return CatalogueSnapshot(
            self._catalogue, reader.storage, reader.root, reader._catalogue_cache, reader._screener
        )

    def alphas(self) -> dict[str, AlphaBuild]:
        return self._catalogue.alphas

    def alpha(self, alpha_id: str) -> AlphaBuild | None:
        build = self._catalogue.alphas.get(alpha_id)
        if build is None and alpha_id in self._catalogue.unreadable:
            raise LakeUnavailable(self._catalogue.unreadable[alpha_id])
        return build

    def benchmark(self, symbol: str) -> BenchmarkBuild | None:
        return self._catalogue.benchmarks.get(symbol)

    def benchmark_view(self, symbol: str, *, ready_only: bool = False) -> BuildView | None:
        build = self.benchmark(symbol)
        if build is None:
            raise BenchmarkMissing(symbol, configured=False)
        return self.view(build)

    def ready_view(self, build: AlphaBuild | BenchmarkBuild) -> BuildView | None:
        return self.view(build)

    def view(self, build: AlphaBuild | BenchmarkBuild) -> BuildView:
        served = self._reader.ready_view(build)
        if served is not None:
            return served
        key = (build.key, build.build_id)
        view = self._views.get(key)
        if view is None:
            if not self._reader.storage.exists(layout.join(build.build_dir, manifest_name(build))):
                raise HistoryGone("a build served then is no longer kept")
            view = self._views[key] = self._reader._open(build)
        return view


def manifest_name(build: AlphaBuild | BenchmarkBuild) -> str:
    return layout.BENCHMARK_JSON if isinstance(build, BenchmarkBuild) else layout.ALPHA_JSON
