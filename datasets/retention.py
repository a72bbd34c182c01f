"""Which builds the lake keeps: the pointer's history, publish leases, and garbage collection.

A build is immutable once written. Three rules decide when its folder may go:

1. **Named builds stay.** The catalogue index's newest generation names the build readers serve
   (`datasets/catalogue_index.py`), and the pointer names the current build and its retained predecessors
   (`previous_builds`, with `superseded_at` for each). A predecessor is retained while it was
   superseded less than the operator's history retention ago (`ALPHA_RESULTS_BUILD_HISTORY_DAYS`,
   default 7 days, never under `layout.BUILD_RETENTION_SECONDS`), or while it is one of the
   `KEEP_PREVIOUS_BUILDS` newest. Workers re-read pointers at least every
   `layout.MAX_REFRESH_SECONDS` and map a build's files when they open it, so no worker still
   serves a build once it leaves this history, however fast the publishes come.
2. **Pinned builds stay.** A build a record read (a decision's snapshot: `datasets.pins`) is kept
   while the record exists, whatever its age.
3. **Leased builds stay.** A publish takes a lease (`leases/{build_id}.json`, renewed while it
   runs) before it creates its folder and drops it after the switch, so a folder that is still
   being written is never collected.
4. **Everything else is garbage**: a folder that no pointer names and no live lease covers (a
   killed publish, a killed prune, the loser of two publishes of one seal), except a complete
   build younger than `BUILD_RETENTION_SECONDS` (see `find_garbage`). Any later publish of
   the alpha collects it, and `alpha-results lake gc --apply` collects the whole lake.

Deleting a build removes its manifest (`alpha.json`, or `benchmark.json`) first, so a deletion
killed half-way leaves a folder that nothing reads as a build.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from alpha_results_seal.storage import Storage
from datasets import catalog, catalogue_index, layout, pins

log = logging.getLogger("datasets.retention")

KEEP_PREVIOUS_BUILDS = 2


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")


def _epoch(text: Any, default: float) -> float:
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return default
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def history(pointer: dict[str, Any] | None) -> set[str]:
    """Build ids a pointer names: the current one and the retained predecessors. Raises
    CorruptLakeFile for a pointer that names no build (it cannot say what must be kept)."""
    if pointer is None:
        return set()
    build_id, previous = pointer.get("build_id"), pointer.get("previous_builds", [])
    if not isinstance(build_id, str) or not build_id or not isinstance(previous, list):
        raise catalog.CorruptLakeFile("the pointer names no build")
    return {build_id, *(b for b in previous if isinstance(b, str))}


def next_history(previous: dict[str, Any] | None, new_build_id: str, now: float) -> dict[str, Any]:
    """`previous_builds` and `superseded_at` of the pointer that replaces `previous`.

    Pointers written before `superseded_at` was recorded count their predecessors as superseded
    now (kept longer, never shorter)."""
    keep = max(layout.history_seconds(), layout.BUILD_RETENTION_SECONDS)
    entries: list[tuple[str, float]] = []
    if previous and previous.get("build_id"):
        recorded = previous.get("superseded_at") or {}
        entries.append((previous["build_id"], now))
        entries += [(b, _epoch(recorded.get(b), now)) for b in previous.get("previous_builds", [])]
    kept: list[tuple[str, float]] = []
    for build_id, superseded in entries:
        if build_id == new_build_id or any(build_id == k for k, _ in kept):
            continue
        recent = now - superseded < keep
        if recent or len(kept) < KEEP_PREVIOUS_BUILDS:
            kept.append((build_id, superseded))
    return {
        "previous_builds": [b for b, _ in kept],
        "superseded_at": {b: _iso(t) for b, t in kept},
    }


# -- leases ---------------------------------------------------------------------------------------


@contextmanager
def publish_lease(storage: Storage, builds_dir: str, build_id: str) -> Iterator[None]:
    """Holds the lease on `build_id` while the block runs, renewing it from a daemon thread."""
    path = layout.lease_path(builds_dir, build_id)
    stop = threading.Event()

    def write() -> None:
        expires = time.time() + layout.PUBLISH_LEASE_SECONDS
        storage.replace_atomically(path, json.dumps({"build_id": build_id, "expires_at": expires}).encode())

    def renew() -> None:
        while not stop.wait(layout.PUBLISH_LEASE_SECONDS / 3):
            write()

    write()
    renewer = threading.Thread(target=renew, name=f"lease-{build_id}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        storage.delete_file(path)


def leases(storage: Storage, builds_dir: str) -> dict[str, float]:
    """Publish leases under `builds_dir`: build id -> expiry (epoch seconds)."""
    found: dict[str, float] = {}
    folder = layout.leases_dir(builds_dir)
    for name in storage.list_names(folder):
        if not name.endswith(".json"):
            continue
        try:
            lease = json.loads(storage.read_bytes(layout.join(folder, name)))
            found[name.removesuffix(".json")] = float(lease["expires_at"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unreadable or vanished: it protects nothing
    return found


# -- collection -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Garbage:
    builds_dir: str
    build_id: str

    @property
    def path(self) -> str:
        return layout.join(self.builds_dir, self.build_id)


def find_garbage(
    storage: Storage,
    builds_dir: str,
    pointer_path: str,
    now: float | None = None,
    indexed: frozenset[str] | None = None,
) -> list[Garbage]:
    """Build folders under `builds_dir` that rules 1 to 3 do not keep.

    The reads go in the publisher's order reversed: folders, then leases, then the pointer. A
    folder listed was created under a lease; a lease gone by the time leases are read was dropped
    after its build was switched in, so the pointer read last names it. A complete build that no
    pointer names (two publishes of one alpha switched at once and one lost the other's build from
    the history) is kept until it is `BUILD_RETENTION_SECONDS` old: a worker may have seen it.
    Raises CorruptLakeFile when the pointer cannot say what it names (then nothing is garbage).
    `indexed`: the builds the catalogue index names under `builds_dir` (read now when None).
    """
    now = time.time() if now is None else now
    folders = storage.list_names(builds_dir)
    leased = {b for b, expires in leases(storage, builds_dir).items() if expires > now}
    named = history(catalog.read_json(storage, pointer_path))
    if indexed is None:
        root = builds_dir.rstrip("/").removesuffix("/builds").rsplit("/", 2)[0]  # {root}/alphas/{id}/builds
        indexed = catalogue_index.indexed_builds(storage, builds_dir, now)
        indexed |= pins.pinned(storage, root).builds_of(builds_dir, root)
    named |= indexed
    return [
        Garbage(builds_dir, name)
        for name in folders
        if name not in named and name not in leased and not _recently_complete(storage, builds_dir, name, now)
    ]


def _recently_complete(storage: Storage, builds_dir: str, build_id: str, now: float) -> bool:
    for manifest in (layout.ALPHA_JSON, layout.BENCHMARK_JSON):
        written = storage.file_modified_at(layout.join(builds_dir, build_id, manifest))
        if written is not None and now - written < layout.BUILD_RETENTION_SECONDS:
            return True
    return False


def delete_build(storage: Storage, build_dir: str) -> None:
    """Manifest first, so a deletion killed half-way leaves nothing that reads as a build."""
    for manifest in (layout.ALPHA_JSON, layout.BENCHMARK_JSON):
        storage.delete_file(layout.join(build_dir, manifest))
    storage.delete_tree(build_dir)


def collect(
    storage: Storage,
    builds_dir: str,
    pointer_path: str,
    now: float | None = None,
    indexed: frozenset[str] | None = None,
) -> list[Garbage]:
    """Deletes the garbage under `builds_dir`, and the leases that expired; returns what it deleted."""
    now = time.time() if now is None else now
    garbage = find_garbage(storage, builds_dir, pointer_path, now, indexed)
    for item in garbage:
        delete_build(storage, item.path)
    for build_id, expires in leases(storage, builds_dir).items():
        if expires <= now:  # read as expired: a lease taken meanwhile has a name of its own
            storage.delete_file(layout.lease_path(builds_dir, build_id))
    for folder in (layout.leases_dir(builds_dir), pointer_path.rsplit("/", 1)[0]):
        _delete_abandoned_writes(storage, folder, now)
    return garbage


def _delete_abandoned_writes(storage: Storage, folder: str, now: float) -> None:
    """Temporary files of atomic writes (a lease, a pointer) killed before their rename. A write
    lasts milliseconds, so one older than a lease period belongs to no live writer."""
    for name in storage.list_names(folder):
        if name.startswith(".") and name.endswith(".tmp"):
            path = layout.join(folder, name)
            written = storage.file_modified_at(path)
            if written is not None and now - written > layout.PUBLISH_LEASE_SECONDS:
                storage.delete_file(path)


def lake_garbage(root: str, storage: Storage | None = None, now: float | None = None) -> list[Garbage]:
    """Garbage of every alpha and benchmark in the lake."""
    return _every_alpha(root, find_garbage, storage, now)


def collect_lake(
    root: str, storage: Storage | None = None, now: float | None = None, targets: Sequence[str] | None = None
) -> list[Garbage]:
    """Deletes the garbage of every alpha and benchmark in the lake (of `targets` only when given:
    alpha ids and `benchmark:SYMBOL`); returns what it deleted."""
    return _every_alpha(root, collect, storage, now, targets)


def _every_alpha(
    root: str,
    run: Callable[[Storage, str, str, float | None, frozenset[str] | None], list[Garbage]],
    storage: Storage | None,
    now: float | None,
    targets: Sequence[str] | None = None,
) -> list[Garbage]:
    storage = storage or Storage(root)
    found: list[Garbage] = []
    indexed = catalogue_index.indexed_by_folder(storage, root, now)  # read once for the whole lake
    held = pins.pinned(storage, root)  # what records pinned: kept while they exist
    folders = _build_folders(root, storage) if targets is None else _target_folders(root, targets)
    for builds_dir, pointer_path in folders:
        try:
            keep = indexed.get(builds_dir, frozenset()) | held.builds_of(builds_dir, root)
            found += run(storage, builds_dir, pointer_path, now, keep)
        except catalog.CorruptLakeFile as exc:
            log.error("not collecting under %s: %s", builds_dir, exc)  # what it names is unknown
    return found


def _target_folders(root: str, targets: Sequence[str]) -> list[tuple[str, str]]:
    folders = []
    for target in sorted(set(targets)):
        if target.startswith("benchmark:"):
            symbol = target.removeprefix("benchmark:")
            if layout.BENCHMARK_SYMBOL_PATTERN.fullmatch(symbol):
                folders.append(
                    (layout.benchmark_builds_dir(root, symbol), layout.benchmark_pointer(root, symbol))
                )
        elif layout.ALPHA_ID_PATTERN.fullmatch(target):
            folders.append((layout.alpha_builds_dir(root, target), layout.alpha_pointer(root, target)))
    return folders


def _build_folders(root: str, storage: Storage) -> list[tuple[str, str]]:
    folders = []
    for alpha_id in storage.list_names(layout.alphas_dir(root)):
        if layout.ALPHA_ID_PATTERN.fullmatch(alpha_id):
            folders.append((layout.alpha_builds_dir(root, alpha_id), layout.alpha_pointer(root, alpha_id)))
    for symbol in storage.list_names(layout.benchmarks_dir(root)):
        if layout.BENCHMARK_SYMBOL_PATTERN.fullmatch(symbol):
            folders.append(
                (layout.benchmark_builds_dir(root, symbol), layout.benchmark_pointer(root, symbol))
            )
    return folders
