"""A lake's files out of the page cache, without dropping the whole machine's (issue 63, item 4).

`/proc/sys/vm/drop_caches` would empty every process's cache on a shared machine (and is not
writable here), so a lake is made cold file by file:

- `pageout(pid, under)`: a running worker maps the catalogue's matrices and the builds' Arrow
  files, and the kernel never drops a page some process maps (`POSIX_FADV_DONTNEED` skips it).
  `process_madvise(MADV_PAGEOUT)` (Linux 5.10) on the worker's mappings of files under the lake
  reclaims those pages as memory pressure would: the mapping stays, its next touch is a fault read
  from the disk. Needs CAP_SYS_NICE and ptrace rights on the worker (root, or the worker's owner
  with the capability). It does not reclaim file pages mapped as 2 MiB folios (smaps'
  FilePmdMapped): the 10^6 worker's matrices stayed resident (docs/benchmarks.md, issue 63 item 4),
  so `resident` after an eviction is the figure that says whether a measure was cold.
- `memory_group(name)`, `within(group, argv)`, `reclaim(group)`: what `pageout` leaves, the
  memory controller takes. A worker started inside a memory cgroup of its own (cgroup v1
  `memory`), on a lake evicted before it started, is charged for every page of the lake it reads;
  the group's `memory.force_empty` then reclaims each of them that can be (file pages, 2 MiB folios
  included; its anonymous memory stays: no swap). Pages read into the cache before the worker
  started stay charged elsewhere (a charge no longer moves with a process on this kernel), hence
  the eviction first. Needs a writable `/sys/fs/cgroup/memory` (root); `memory_group` returns
  None where there is none, and the bench says so.
- `evict(paths)`: `fdatasync` then `posix_fadvise(POSIX_FADV_DONTNEED)` on every file: its
  unmapped pages leave the cache.
- `resident(paths)`: what stayed, counted with `mincore(2)` over a fresh mapping of each file
  (mapping a file faults nothing in, so counting does not warm it): the proof eviction worked.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import mmap
import os
import platform
from collections.abc import Iterable, Sequence
from pathlib import Path

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
_libc.syscall.restype = ctypes.c_long

PAGE = mmap.PAGESIZE
MADV_PAGEOUT = 21
# x86_64 and aarch64 share these numbers (the unified syscall table since 5.1).
_PIDFD_OPEN, _PROCESS_MADVISE = 434, 440
_UIO_MAXIOV = 1024


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def lake_files(root: str | Path) -> list[Path]:
    """Every regular file under `root`, in a stable order."""
    return sorted(p for p in Path(root).rglob("*") if p.is_file() and not p.is_symlink())


def evict(paths: Iterable[Path]) -> int:
    """Drop each file's unmapped pages from the page cache; the bytes advised."""
    advised = 0
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:  # a generation compacted away meanwhile
            continue
        try:
            # A dirty page is only queued for writing by the advice and stays: a file just
            # written (a catalogue generated a minute ago) is flushed first.
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            advised += os.fstat(fd).st_size
        finally:
            os.close(fd)
    return advised


def resident_pages(path: Path) -> tuple[int, int]:
    """(pages of `path` in the page cache, pages of `path`), by `mincore(2)`."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0, 0
        address = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), f"mmap {path}")
        try:
            pages = (size + PAGE - 1) // PAGE
            vector = (ctypes.c_ubyte * pages)()
            if _libc.mincore(ctypes.c_void_p(address), size, vector) != 0:
                raise OSError(ctypes.get_errno(), f"mincore {path}")
            return sum(byte & 1 for byte in bytes(vector)), pages
        finally:
            _libc.munmap(ctypes.c_void_p(address), size)
    finally:
        os.close(fd)


def resident(paths: Iterable[Path]) -> tuple[int, int]:
    """Bytes of `paths` in the page cache, bytes of `paths` (whole pages)."""
    held = total = 0
    for path in paths:
        try:
            found, pages = resident_pages(path)
        except FileNotFoundError:
            continue
        held, total = held + found * PAGE, total + pages * PAGE
    return held, total


def mapped_ranges(pid: int, under: str | Path) -> list[tuple[int, int]]:
    """(start, length) of each mapping in `pid` of a file under `under` (from /proc/PID/maps)."""
    root = str(Path(under).resolve())
    ranges = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith(root + "/"):
            start, end = (int(x, 16) for x in fields[0].split("-"))
            ranges.append((start, end - start))
    return ranges


def pageout(pid: int, under: str | Path) -> int:
    """Reclaim `pid`'s mapped pages of files under `under` (MADV_PAGEOUT); the bytes advised."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        raise OSError("process_madvise is used through its x86_64/aarch64 syscall number only")
    ranges = mapped_ranges(pid, under)
    if not ranges:
        return 0
    pidfd = _libc.syscall(_PIDFD_OPEN, ctypes.c_int(pid), ctypes.c_uint(0))
    if pidfd < 0:
        raise OSError(ctypes.get_errno(), f"pidfd_open {pid}")
    try:
        for first in range(0, len(ranges), _UIO_MAXIOV):
            batch = ranges[first : first + _UIO_MAXIOV]
            vectors = (_IoVec * len(batch))(*(_IoVec(start, length) for start, length in batch))
            done = _libc.syscall(
                _PROCESS_MADVISE,
                ctypes.c_int(pidfd),
                vectors,
                ctypes.c_size_t(len(batch)),
                ctypes.c_int(MADV_PAGEOUT),
                ctypes.c_uint(0),
            )
            if done < 0:
                raise OSError(ctypes.get_errno(), f"process_madvise {pid}")
    finally:
        os.close(pidfd)
    return sum(length for _, length in ranges)


MEMORY_CGROUPS = Path("/sys/fs/cgroup/memory")


def memory_group(name: str) -> Path | None:
    """A memory cgroup `bench-cold-NAME` (made if absent), or None where cgroup v1's memory
    controller is not writable."""
    group = MEMORY_CGROUPS / f"bench-cold-{name}"
    try:
        group.mkdir(exist_ok=True)
    except OSError:
        return None
    return group


def within(group: Path, argv: Sequence[str]) -> list[str]:
    """`argv` run inside `group`: the shell joins it, then becomes the command."""
    return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(group), *argv]


def reclaim(group: Path) -> None:
    """Every page charged to `group` that can be reclaimed, reclaimed (what stays: anonymous
    memory without swap; the kernel then answers EBUSY, which is not a failure here)."""
    try:
        (group / "memory.force_empty").write_text("0")
    except OSError as error:
        if error.errno != errno.EBUSY:
            raise


def remove_group(group: Path) -> None:
    """Remove `group` once its processes have ended."""
    try:
        group.rmdir()
    except OSError:
        pass


def make_cold(
    lake: str | Path, pids: Iterable[int] = (), groups: Iterable[Path] = (), files: list[Path] | None = None
) -> dict[str, int]:
    """Every page of the lake's files (or of `files`, those of the lake a run may read) out of the
    cache (the workers' mappings first, then what their memory `groups` hold), and what stayed:
    `resident_bytes` of `lake_bytes` (the check that eviction worked)."""
    paged = sum(pageout(pid, lake) for pid in pids)
    for group in groups:
        reclaim(group)
    files = lake_files(lake) if files is None else files
    evict(files)
    held, total = resident(files)
    return {"paged_out_bytes": paged, "lake_bytes": total, "resident_bytes": held}
