"""The operating-system limits a worker runs under (docs/operations.md, "File limits").

A worker's descriptors are its sockets, the key store's and limiter's connections and a few files
while a build is being opened (a served build holds none: its serving files are mapped and their
descriptors closed). The soft open-files limit of many containers and systemd units is 1,024,
well under the hard limit, so each worker raises its soft limit to the hard one at start and logs
both: a worker never runs short of descriptors merely because nobody asked for them.
"""

from __future__ import annotations

import ctypes
import logging
import resource

log = logging.getLogger("serve.resources")


def raise_open_files_limit() -> tuple[int, int, int]:
    """Raises this process's soft RLIMIT_NOFILE to its hard limit; returns (before, now, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    raised = soft
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            raised = wanted
        except (ValueError, OSError) as exc:  # a platform or sandbox that refuses it
            log.warning("open files: cannot raise the soft limit %d to %d: %s", soft, wanted, exc)
    return soft, raised, hard


def log_open_files_limit(max_open_builds: int) -> None:
    """`on_startup`: raise the soft limit and say what the worker runs under."""
    before, now, hard = raise_open_files_limit()
    log.info(
        "open files: soft limit %d (was %d), hard limit %s; at most %d builds open (max_open_builds)",
        now, before, "unlimited" if hard == resource.RLIM_INFINITY else hard, max_open_builds,
    )  # fmt: skip


M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def limit_malloc_arenas(arenas: int) -> bool:
    """Caps this process's glibc malloc arenas at `arenas` (0: leave glibc's default); False where
    the C library has no `mallopt` (musl, macOS) or refuses.

    Each thread that meets contention gets an arena of its own, up to 8 per core, and memory
    freed in one arena is not reused by another: under a thread pool's traffic a worker's
    anonymous memory grew by about 30 MiB over ten minutes before it levelled, and stayed flat
    with 2 arenas, at no measured cost in throughput (docs/benchmarks.md "Soak")."""
    if arenas <= 0:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))


def limit_memory_arenas(arenas: int) -> None:
    """`on_startup`: cap the arenas before the worker's threads allocate, and say so."""
    if limit_malloc_arenas(arenas):
        log.info("malloc: at most %d arenas (malloc_arenas)", arenas)
    elif arenas > 0:
        log.info("malloc: arenas not capped (no glibc mallopt here)")
