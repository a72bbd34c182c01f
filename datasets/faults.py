"""What reading the lake can fail with, and the one way those failures leave the lake package.

Every failure to read the lake surfaces as `LakeUnavailable`, which serve maps to 503
`upstream_unavailable`; `BuildDamaged` is the kind that names a damaged build of one alpha.
Anything else raised while reading is a bug and stays one (500).
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa
from botocore.exceptions import BotoCoreError  # botocore: a core dependency, through s3fs

log = logging.getLogger("datasets.reader")


class LakeUnavailable(Exception):
    """The lake (local folder or object store) could not be read, or not as published."""


class CorruptLakeFile(LakeUnavailable):
    """A lake file exists but cannot be understood (unparsable JSON, a pointer without a build)."""


class BuildDamaged(LakeUnavailable):
    """A file of a served build is missing, truncated or not what the build's manifest records."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        # missing_file | truncated_file | corrupt_file | no_manifest; export_not_reproduced (a made
        # export's bytes are not its record's: the download fails, the build is not damaged)
        self.reason = reason


RESOURCE_ERRNOS = {
    errno.EMFILE: "open files of the process",
    errno.ENFILE: "open files of the system",
    errno.ENOMEM: "memory or memory maps",
}
"""What a worker can run out of while opening a healthy build (a failed `mmap` is ENOMEM)."""


class WorkerResourceExhausted(LakeUnavailable):
    """This worker ran out of a resource while reading a healthy build: the worker's problem, never
    the build's damage (503 for the request; the reader evicts builds and recovers)."""

    def __init__(self, resource: str, detail: str) -> None:
        super().__init__(detail)
        self.resource = resource


def exhausted(exc: BaseException) -> WorkerResourceExhausted | None:
    """`exc` as a resource failure of the worker, or None when it is something else."""
    found = exc if isinstance(exc, OSError) else exc.__cause__
    code = found.errno if isinstance(found, OSError) else None
    if code not in RESOURCE_ERRNOS:
        return None
    return WorkerResourceExhausted(RESOURCE_ERRNOS[code], f"{errno.errorcode[code]}: {found}")


# What reading the lake raises when the lake (not this code) is at fault: unreachable or missing
# files, unreadable Parquet or Arrow, unparsable JSON. ValueError and KeyError are not here: from
# this code they are bugs, and a bug must be a 500, not a 503 that invites a retry.
STORE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    pa.ArrowException,
    BotoCoreError,  # s3fs lets botocore's connection errors (refused, timed out, DNS) through untranslated
)


@contextmanager
def lake_errors(root: str) -> Iterator[None]:
    """Turn a failure to read the lake under `root` into `LakeUnavailable` (logged, no detail)."""
    try:
        yield
    except LakeUnavailable:
        raise
    except STORE_ERRORS as exc:
        if (resource := exhausted(exc)) is not None:
            raise resource from exc  # the worker's problem, logged once by the reader
        log.warning("lake read failed under %s: %s", root, exc)
        raise LakeUnavailable(str(exc)) from exc


CATALOGUE_UNREADABLE = (
    "A published build of the catalogue cannot be read, so the catalogue-wide figures are "
    "unavailable; retry with backoff."
)
"""Never names the alpha: the caller may not be allowed to know it exists."""


class CatalogueIncomplete(Exception):
    """The catalogue-wide figures cannot be read whole (a published build unreadable, the index, a
    matrix or a neighbour list absent or unreadable): never a figure over fewer alphas than the
    caller may read. The message says what an operator does about it and names no alpha."""

    def __init__(self, message: str = CATALOGUE_UNREADABLE) -> None:
        super().__init__(message)
        self.message = message


class HistoryGone(Exception):
    """A read `as_of` a moment the lake no longer keeps (before its oldest kept generation, past
    the operator's history retention and pinned by no record, or a build of it collected since).
    The message says which; it names no alpha."""


class BenchmarkMissing(Exception):
    """A benchmark series that is not published in the lake (`configured` False) or cannot be read."""

    def __init__(self, symbol: str, configured: bool) -> None:
        super().__init__(f"benchmark {symbol} {'cannot be read' if configured else 'is not published'}")
        self.symbol = symbol
        self.configured = configured
