"""What a SHA-256 check of a lake file saw, so that a file is hashed again only once it changed.

Builds and archives are immutable: a file whose SHA-256 matched its record stays whole until
something writes to it, and every write through the filesystem (in place, a replacement, a
truncation, a restore) changes the file's signature: inode, size, modification time or
status-change time (`st_ctime_ns`, which no user can set back). A worker keeps the signature each
check saw and compares it with every `stat` it makes anyway (each table access, each scrub, each
download): a file whose signature changed is hashed again before its bytes are trusted. What
changes no signature (silent bit rot under a filesystem without checksums) is not seen until a
build is opened with files that changed; docs/operations.md says so.

`ArchiveChecks` applies this to the content-addressed source archives the download route serves
(`archives/<alpha_id>/<sha256>.zip`, whose name is their recorded SHA-256), `VerifiedFiles` to
the exports of superseded builds it serves.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from datasets.faults import BuildDamaged

FileSignature = tuple[int, int, int, int]
"""(inode, size, mtime_ns, ctime_ns) of a file."""

VERIFIED_ARCHIVES = 4096
"""Archives whose check a worker remembers (a few hundred KiB at most): an archive fetched again
and unchanged is not hashed again."""


def signature(status: os.stat_result) -> FileSignature:
    return (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def local_stats(folder: str, relatives: Iterable[str]) -> dict[str, os.stat_result]:
    """`stat` of each of `relatives` (paths relative to the local `folder`) that exists. One `stat`
    per file, no descriptor: a worker out of file descriptors still sees every file (a folder walk
    silently skips the folders it cannot open, which read as missing files)."""
    stats = {}
    for relative in relatives:
        try:
            stats[relative] = os.stat(os.path.join(folder, relative))
        except FileNotFoundError:
            continue
    return stats


def signatures_digest(signatures: Mapping[str, FileSignature]) -> bytes:
    """One short value for the signatures of a set of files (what a worker remembers of a build it
    verified, so a reopened build whose files did not change is not hashed again)."""
    text = "\n".join(f"{relative}\t{signatures[relative]}" for relative in sorted(signatures))
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_file(path: str, relative: str, recorded: Mapping[str, Any]) -> os.stat_result:
    """The `stat` of the file at `path` (`relative` in its build's manifest) as checked; raises
    BuildDamaged unless it has the `recorded` size and SHA-256."""
    try:
        status = os.stat(path)  # before reading: a write during the read changes it, seen later
        if status.st_size != int(recorded["bytes"]):
            raise BuildDamaged(
                "truncated_file", f"{relative} has {status.st_size} bytes, {recorded['bytes']} recorded"
            )
        actual = sha256_of(path)
    except FileNotFoundError as exc:
        raise BuildDamaged("missing_file", f"{relative} is missing") from exc
    if actual != recorded.get("sha256"):
        raise BuildDamaged("corrupt_file", f"{relative} does not match its recorded SHA-256")
    return status


VERIFIED_FILES = 4096
"""Files of superseded builds whose check a worker remembers (a few hundred KiB at most)."""


class VerifiedFiles:
    """Files checked with `check_file` outside any open build (the exports of a superseded build,
    kept a while after a republish, that the download route still serves): a file fetched again
    with the signature and record it was checked with is not hashed again. Bounded: the `capacity`
    files checked most recently."""

    def __init__(self, capacity: int = VERIFIED_FILES) -> None:
        self.capacity = capacity
        self._verified: OrderedDict[str, tuple[FileSignature, str]] = OrderedDict()  # path -> (seen, sha256)
        self._lock = threading.Lock()

    def check(self, path: str, relative: str, recorded: Mapping[str, Any]) -> None:
        """`check_file`, unless the file at `path` was checked against this record and its
        signature has not changed since."""
        sha256 = str(recorded.get("sha256"))
        try:
            seen = signature(os.stat(path))
        except FileNotFoundError:
            seen = None
        with self._lock:
            if seen is not None and self._verified.get(path) == (seen, sha256):
                self._verified.move_to_end(path)
                return
        status = check_file(path, relative, recorded)  # raises BuildDamaged: nothing remembered
        with self._lock:
            self._verified[path] = (signature(status), sha256)
            self._verified.move_to_end(path)
            while len(self._verified) > self.capacity:
                self._verified.popitem(last=False)


class _Damage(NamedTuple):
    build_id: str  # the alpha's served build when the archive was found damaged
    path: str
    sha256: str
    seen: FileSignature  # the file as it was checked


class ArchiveChecks:
    """Source archives checked against their content address before the download route serves
    one; the archives found damaged, by alpha, for health (until whole again or no longer the
    alpha's served build's)."""

    def __init__(self, capacity: int = VERIFIED_ARCHIVES) -> None:
        self.capacity = capacity
        self._verified: OrderedDict[str, FileSignature] = OrderedDict()  # path -> signature checked
        self._damaged: dict[str, _Damage] = {}  # alpha_id -> its damaged archive
        self._lock = threading.Lock()

    def check(self, alpha_id: str, build_id: str | None, path: str, sha256: str) -> None:
        """Raises BuildDamaged (`corrupt_archive`) unless the archive at `path` (local) hashes to
        `sha256`, FileNotFoundError when it is gone; `build_id`: the alpha's served build, under
        which health reports the damage. Hashes only a file not checked with its current signature."""
        seen = signature(os.stat(path))
        with self._lock:
            known = self._damaged.get(alpha_id)
            if self._verified.get(path) == seen:
                self._verified.move_to_end(path)
                return
        if known is None or (known.path, known.seen) != (path, seen):
            if sha256_of(path) == sha256:
                self._remember(alpha_id, path, seen)
                return
            if build_id is not None:
                with self._lock:
                    self._verified.pop(path, None)
                    self._damaged[alpha_id] = _Damage(build_id, path, sha256, seen)
        raise BuildDamaged("corrupt_archive", f"the source archive of {alpha_id} does not match its SHA-256")

    def _remember(self, alpha_id: str, path: str, seen: FileSignature) -> None:
        with self._lock:
            self._verified[path] = seen
            while len(self._verified) > self.capacity:
                self._verified.popitem(last=False)
            known = self._damaged.get(alpha_id)
            if known is not None and known.path == path:
                del self._damaged[alpha_id]

    def damage(self) -> dict[str, str]:
        """alpha_id -> `corrupt_archive`, for the archives found damaged."""
        with self._lock:
            return dict.fromkeys(self._damaged, "corrupt_archive")

    def recheck(self, served: Mapping[str, str]) -> None:
        """Forgets the damage of alphas whose served build (`served`: alpha_id -> build id)
        changed, and of archives removed or whole again (hashed only once their file changed)."""
        with self._lock:
            damaged = list(self._damaged.items())
        for alpha_id, known in damaged:
            try:
                if served.get(alpha_id) == known.build_id:
                    self.check(alpha_id, known.build_id, known.path, known.sha256)
                    continue
            except BuildDamaged:
                continue
            except FileNotFoundError:
                pass  # gone: the download route answers 404, which is not damage
            with self._lock:
                if self._damaged.get(alpha_id) == known:
                    del self._damaged[alpha_id]
