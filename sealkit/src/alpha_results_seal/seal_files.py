"""Reading one file of a seal: once, within its size limit, never leaving the seal.

Seals are untrusted, and a seal folder may change while it is read. Locally each file is opened
component by component from the seal folder without following a link (`O_NOFOLLOW`), and without
waiting on a fifo (`O_NONBLOCK`); the descriptor is then checked (`fstat`: a regular file with one
name) and its size capped before a byte is read. The bytes are hashed as they are read, in chunks,
and the bytes a build decodes are those same bytes, so `content_sha256` is always of what is
published. An object store has no links: its listing is checked (`alpha_results_seal.seal.owned_files`) and
each object is measured, then read in one GET.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass

from alpha_results_seal.bounded_read import SIZE_RULE
from alpha_results_seal.identifiers import join
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.storage import Storage

CHUNK = 1 << 20
OWNED_RULE = "seal.regular_files"
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@dataclass(frozen=True)
class SealFile:
    sha256: bytes  # the digest of every byte read
    data: bytes | None  # those bytes, when asked to keep them


@dataclass(frozen=True)
class SizeLimit:
    bytes: int
    variable: str  # the setting that raises it, named in a refusal


def not_owned(info: os.stat_result) -> str | None:
    """What makes an entry (not followed) something other than a file or folder of the seal's
    own; None for a folder or a regular file with a single name."""
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link"
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        return "a device, fifo or socket"
    if info.st_nlink > 1:
        return "a hard link (another name of a file elsewhere)"
    return None


def refuse_not_owned(name: str, what: str) -> SealRejected:
    return SealRejected(OWNED_RULE, "seal", f"{name} is {what}, not a file of the seal")


def read_seal_file(
    storage: Storage, seal_path: str, name: str, kind: str, limit: SizeLimit, keep: bool
) -> SealFile:
    """The SHA-256 of `name` (relative to the seal), and its bytes when `keep`. Refuses a file
    over `limit` (`seal.size_limits`, measured before it is read) and, locally, anything but a
    regular file of the seal reached without a link (`seal.regular_files`). Raises
    FileNotFoundError when the file is not there."""
    if not storage.is_local:
        path = join(seal_path, name)
        _within(name, kind, storage.size(path), limit)
        data = storage.read_bytes(path)
        _within(name, kind, len(data), limit)  # it grew since it was measured
        return SealFile(hashlib.sha256(data).digest(), data if keep else None)
    descriptor = _open_inside(os.path.abspath(seal_path), name)
    try:
        info = os.fstat(descriptor)
        what = not_owned(info) or ("a folder" if stat.S_ISDIR(info.st_mode) else None)
        if what is not None:
            raise refuse_not_owned(name, what)
        _within(name, kind, info.st_size, limit)
        return _read(descriptor, name, kind, limit, keep)
    finally:
        os.close(descriptor)


def _open_inside(root: str, name: str) -> int:
    """A descriptor of `name` under `root`, each folder on the way and the file itself opened
    without following a link: a link swapped in after the seal was listed fails the open."""
    parts = name.split("/")
    try:
        folder = os.open(root, _FOLDER)
    except OSError as exc:
        raise _not_reached(root, exc) from exc
    try:
        for part in parts[:-1]:
            inner = os.open(part, _FOLDER, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(parts[-1], _FILE, dir_fd=folder)
    except OSError as exc:
        raise _not_reached(name, exc) from exc
    finally:
        os.close(folder)


def _not_reached(name: str, exc: OSError) -> Exception:
    if exc.errno == errno.ELOOP:  # swapped for a link since the seal was listed
        return refuse_not_owned(name, "a symbolic link, or in a linked folder")
    if exc.errno == errno.ENOTDIR:
        return refuse_not_owned(name, "in something that is not a folder")
    if exc.errno == errno.ENOENT:
        return FileNotFoundError(errno.ENOENT, f"{name} is not in the seal")
    return exc


def _read(descriptor: int, name: str, kind: str, limit: SizeLimit, keep: bool) -> SealFile:
    digest = hashlib.sha256()
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(descriptor, CHUNK):
        size += len(chunk)
        _within(name, kind, size, limit)  # it grew since it was measured
        digest.update(chunk)
        if keep:
            chunks.append(chunk)
    return SealFile(digest.digest(), b"".join(chunks) if keep else None)


def _within(name: str, kind: str, size: int, limit: SizeLimit) -> None:
    if size > limit.bytes:
        raise SealRejected(
            SIZE_RULE,
            kind,
            f"{name} has {size:,} bytes; the limit is {limit.bytes:,} bytes ({limit.variable})",
        )
