"""The operating-system limits a worker runs under (docs/operations.md, "File limits").

A worker's descriptors are its sockets, the key store's and limiter's connections and a few files
while a build is being opened (a served build holds none: its serving files are mapped and their
descriptors closed). The soft open-files limit of many containers and systemd units is 1,024,
well under the hard limit, so each worker raises its soft limit to the hard one at start and logs
both: a worker never runs short of descriptors merely because nobody asked for them.
"""

from __future__ import annotations

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
