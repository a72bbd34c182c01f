"""A bounded local copy of the serving files of S3 builds, so a worker maps them like local files.

`fetch` copies what a worker reads of one build (the serving files and the build's JSON files,
not the exports) into `{cache_dir}/{name}/{build_id}/`, verifying each file's size and
SHA-256 against the manifest, and publishes the folder with one rename: a folder in the cache is
always complete and verified, so workers sharing the cache directory reuse each other's copies.
When the cache holds more than `max_bytes`, the least recently used build folders are removed,
never one this worker serves from, nor one used in the last `RECENT_SECONDS` (the workers sharing
the folder touch what they serve at every refresh, `touch`), so the cache may run over its size
while every build in it is served.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import threading
import time
import uuid
from typing import Any

from alpha_results_seal.storage import Storage
from datasets import layout
from datasets.faults import BuildDamaged

log = logging.getLogger("datasets.cache")

RECENT_SECONDS = 120.0
"""A folder used this recently is never evicted: every worker touches the folders it serves at each
refresh (at most 60 s apart), so no worker evicts a build another worker serves."""


def served_files(files: dict[str, Any]) -> dict[str, Any]:
    """The manifest entries a worker reads: serving files and JSON documents."""
    prefix = layout.SERVING_DIR + "/"
    return {p: f for p, f in files.items() if p.startswith(prefix) or p.endswith(".json")}


def _folder_bytes(path: str) -> int:
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                total += os.path.getsize(os.path.join(folder, name))
    return total


class LocalCache:
    def __init__(self, cache_dir: str, max_bytes: int) -> None:
        self.cache_dir = cache_dir
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    def fetch(
        self,
        storage: Storage,
        build_dir: str,
        name: str,
        build_id: str,
        files: dict[str, Any],
        in_use: frozenset[str] = frozenset(),
    ) -> str:
        """The local folder holding `files` of the build (fetched now unless already cached).
        Eviction spares `in_use`, the folders the caller serves from."""
        target = os.path.join(self.cache_dir, name, build_id)
        if os.path.isdir(target):
            os.utime(target)  # recently used
            return target
        staging = os.path.join(self.cache_dir, ".staging", f"{name}-{build_id}-{uuid.uuid4().hex[:8]}")
        try:
            for relative, recorded in served_files(files).items():
                payload = storage.read_bytes(layout.join(build_dir, relative))
                if len(payload) != int(recorded["bytes"]):
                    raise BuildDamaged("truncated_file", f"{relative} has {len(payload)} bytes in the lake")
                if hashlib.sha256(payload).hexdigest() != recorded["sha256"]:
                    raise BuildDamaged("corrupt_file", f"{relative} does not match its recorded SHA-256")
                path = os.path.join(staging, relative)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as handle:
                    handle.write(payload)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            try:
                os.rename(staging, target)
            except OSError:  # another worker published the same build first: use its copy
                if not os.path.isdir(target):
                    raise
        except FileNotFoundError as exc:
            raise BuildDamaged("missing_file", f"a file of {build_id} is missing in the lake") from exc
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.evict(keep=in_use | {target})
        return target

    @staticmethod
    def touch(folder: str) -> None:
        """Mark a served build's folder as used now."""
        try:
            os.utime(folder)
        except FileNotFoundError:
            pass

    def evict(self, keep: frozenset[str]) -> None:
        """Removes least recently used build folders, never those in `keep`, until the cache fits
        `max_bytes` (or only kept folders are left)."""
        with self._lock:
            folders = []
            for name in os.listdir(self.cache_dir) if os.path.isdir(self.cache_dir) else []:
                if name.startswith("."):
                    continue
                parent = os.path.join(self.cache_dir, name)
                # Another worker sharing the folder may remove what this one lists: skipped.
                with contextlib.suppress(FileNotFoundError):
                    for build_id in os.listdir(parent):
                        path = os.path.join(parent, build_id)
                        with contextlib.suppress(FileNotFoundError):
                            folders.append((os.stat(path).st_mtime, path, _folder_bytes(path)))
            total = sum(size for _, _, size in folders)
            now = time.time()
            for used, path, size in sorted(folders):
                if total <= self.max_bytes:
                    break
                if path in keep or now - used < RECENT_SECONDS:
                    continue
                log.info("evicting %s from the serving cache (%d bytes)", path, size)
                shutil.rmtree(path, ignore_errors=True)
                total -= size
