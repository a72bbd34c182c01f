"""What a worker derives from a build for speed, on its own disk, bounded and rebuildable (issue 78,
item 4: "serving without copies"): row bytes, and the Parquet exports a folder lake does not store
(`DerivedFiles.made_export`, pipeline 2.13.0: made on their first download, `datasets.export_files`).

**Row bytes** (`datasets.queries.ROW_JSON` and `ROW_PARTS`: each row's JSON for each served field
set) are a function of one serving table and two to four times its size: 459 of the 750 MB that
momentum_12_1's weekly run wrote again into the lake (docs/benchmarks.md). The lake no longer
holds them (pipeline 2.11.0). A worker derives a table's row bytes the first time a page asks for
them, in the background (a child process, `_Background`): that page, and every page until they are
there, is made from the rows (the same bytes: tests/api/test_row_bytes.py), and the next one is a
slice or a take of them.

They live in `{serving_cache_dir}/.derived/{alpha}/{key}/{table}_json.arrow` (`_key`: the serving
file's recorded SHA-256, the field sets and `FORMAT`), the layout and format the pipeline wrote
them in (uncompressed Arrow IPC, one record batch, mapped), published by one rename once on disk,
so a file there is always whole. The workers of one machine share them: one derives a file under a
lock (`fcntl.flock` on `{file}.lock`), the others make rows until it is there. The folder is bounded
by `serving_cache_bytes` as the S3 serving cache is (`datasets.local_cache`): once a derived file is
written, the least recently used folders are removed until it fits, never one used in the last
`RECENT_SECONDS` (every worker marks the folders of the files it maps at each refresh). A worker
keeps a removed file it mapped (the mapping holds its inode) and derives it again after its next
open of the build; a file it cannot read is removed and derived again, never a damaged build.
Nothing here is trusted more than the serving table it came from: it is derived from the serving
file's bytes once they hash to what the build's manifest records, by the function the pipeline
used, and nothing but this module writes into the folder.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import multiprocessing
import multiprocessing.connection

# What starting the child imports, imported with the worker rather than by the first request that
# derives (serve.warm: a request imports no module once the worker is ready).
import multiprocessing.popen_spawn_posix
import multiprocessing.process
import multiprocessing.resource_tracker
import multiprocessing.spawn
import os
import queue
import threading
import time
import uuid
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from alpha_results_seal.storage import Storage
from datasets import layout, queries
from datasets.faults import BuildDamaged
from datasets.integrity import VerifiedFiles
from datasets.local_cache import LocalCache
from datasets.serving_layout import row_json_serving
from datasets.writer import BuildWriter

if TYPE_CHECKING:
    from datasets.build_view import BuildView

log = logging.getLogger("datasets.derived")

DERIVED_DIR = ".derived"
"""The derived files' folder inside the serving cache (a dot: the S3 cache's eviction skips it)."""

RETRY_SECONDS = 60.0
"""A derivation that failed is not tried again for this long (each page is made from the rows)."""

DERIVED = {queries.row_json_table(table): table for table in queries.ROW_JSON}
"""Each derived serving file (by its name) and the serving table it is derived from."""


FORMAT = 1
"""Part of every derived file's key: raise it when the bytes a row makes change (`queries.RowShape`,
the encoder), so no worker serves a file an earlier version derived."""


def _key(source: str, sha256: str) -> str:
    """The folder of what is derived from one serving file: its recorded SHA-256 (so the files of a
    build copied into another lake, or of an identical build of the same alpha, are shared, and a
    serving file changed in place is never served through bytes derived from its old content), the
    field sets derived and `FORMAT`."""
    spec = repr((FORMAT, sha256, queries.ROW_JSON[source], queries.ROW_PARTS.get(source)))
    return hashlib.sha256(spec.encode()).hexdigest()[:32]


class DerivedFiles:
    """A worker's derived files under `{cache_dir}/.derived`, at most `max_bytes` (see the module)."""

    def __init__(self, cache_dir: str, max_bytes: int) -> None:
        self.names = DERIVED
        self.root = os.path.join(cache_dir, DERIVED_DIR)
        self._bound = LocalCache(self.root, max_bytes)
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._failed: dict[str, float] = {}  # target -> monotonic time before which it is not retried
        self._made = VerifiedFiles()  # made exports as last checked against their record

    def path(self, view: BuildView, name: str) -> str | None:
        """The local file `name` derived from `view`'s build; None when it is not derived (yet:
        its derivation is started now unless it runs) or `name` is not derived."""
        source = DERIVED.get(name)
        if source is None:
            return None
        recorded = view.files.get(_relative(source))
        if recorded is None:
            return None
        target = os.path.join(self.root, view.name, _key(source, str(recorded["sha256"])), f"{name}.arrow")
        if os.path.exists(target):
            LocalCache.touch(os.path.dirname(target))
            return target
        with self._lock:
            if target in self._pending or self._failed.get(target, 0.0) > time.monotonic():
                return None
            self._pending.add(target)
        job = partial(
            self._derive, view.local_path(_relative(source)), str(recorded["sha256"]), source, target
        )
        _BACKGROUND.submit(job)
        return None

    def made_export(self, alpha: str, entry: dict[str, Any], make: Callable[[], bytes]) -> str:
        """The local file of an export the lake did not store (`entry`: its `exports/index.json`
        entry, pipeline 2.13.0), made by `make` on the first ask and kept content-addressed by its
        recorded SHA-256 (`{alpha}/export-{first 32 hex digits}/{file}`, bounded as the row bytes
        are). Made in the asking thread, under the file's lock: a second worker asking meanwhile
        waits for it rather than making it again. Bytes that do not hash to the record are never
        kept or sent (BuildDamaged `export_not_reproduced`: the server's code, or its Parquet
        writer, makes it otherwise than the publish did), and are not made again for
        `RETRY_SECONDS` (each ask meanwhile is refused at once)."""
        sha256 = str(entry["sha256"])
        folder = os.path.join(self.root, alpha, f"export-{sha256[:32]}")
        target = os.path.join(folder, os.path.basename(str(entry["path"])))
        recorded = {"bytes": int(entry["bytes"]), "sha256": sha256}
        for last in (False, True):
            if not os.path.exists(target):
                os.makedirs(folder, exist_ok=True)
                LocalCache.touch(folder)  # in use: eviction leaves it while it is made
                with open(f"{target}.lock", "a+b") as lock:
                    fcntl.flock(lock, fcntl.LOCK_EX)
                    if not os.path.exists(target):
                        # Asked under the lock: threads that waited on a failed make fail at once.
                        self._refuse_if_failed_lately(target)
                        self._make(target, sha256, make)
                self._bound.evict(keep=frozenset({folder}))
            try:  # what is sent is what the listing promised: a kept file changed since is made again
                self._made.check(target, os.path.basename(target), recorded)
                break
            except BuildDamaged as exc:
                if last:
                    raise
                self.forget(target, str(exc))
        LocalCache.touch(folder)
        return target

    def _refuse_if_failed_lately(self, target: str) -> None:
        with self._lock:
            failed = self._failed.get(target)
        if failed is not None and failed > time.monotonic():
            raise BuildDamaged(
                "export_not_reproduced", f"{os.path.basename(target)} was not reproduced lately"
            )

    def _make(self, target: str, sha256: str, make: Callable[[], bytes]) -> None:
        try:
            payload = make()
            if hashlib.sha256(payload).hexdigest() != sha256:
                raise BuildDamaged(
                    "export_not_reproduced",
                    f"{os.path.basename(target)} made here does not match its recorded SHA-256",
                )
        except BuildDamaged:
            with self._lock:
                self._failed[target] = time.monotonic() + RETRY_SECONDS
            raise
        folder, name = os.path.split(target)
        temporary = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with open(temporary, "wb") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())  # on disk before its rename publishes it
            os.rename(temporary, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)

    def wait(self) -> None:
        """Returns once every derivation this process started before the call is done (tests,
        benchmarks)."""
        _BACKGROUND.wait()

    def forget(self, path: str, why: str) -> None:
        """Removes a derived file that cannot be read (a page is made from the rows, and the next
        ask derives it again) rather than failing its build."""
        log.warning("removing the derived file %s: %s", path, why)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)

    def _derive(self, served: str, sha256: str, source: str, target: str) -> None:
        try:
            self._write(served, sha256, source, target)
            with self._lock:
                self._failed.pop(target, None)
        except Exception:  # the pages are made from the rows meanwhile: never a failed request
            if not threading.main_thread().is_alive():  # the process is exiting: its exit handlers
                return  # stopped the daemon child, which cut the derivation short; nothing failed
            log.exception("row bytes of %s could not be derived into %s", source, target)
            with self._lock:  # not asked again at every page: a lasting cause would spin
                self._failed[target] = time.monotonic() + RETRY_SECONDS
        finally:
            with self._lock:
                self._pending.discard(target)

    def _write(self, served: str, sha256: str, source: str, target: str) -> None:
        folder = os.path.dirname(target)
        os.makedirs(folder, exist_ok=True)
        with open(f"{target}.lock", "a+b") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # another worker derives it: this one makes rows until it is there
            if os.path.exists(target):
                return
            temporary = os.path.join(folder, f".{os.path.basename(target)}.{uuid.uuid4().hex[:8]}.tmp")
            try:
                _BACKGROUND.run(derive_file, served, sha256, source, temporary)
                os.rename(temporary, target)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary)
        self._bound.evict(keep=frozenset({folder}))


def _relative(source: str) -> str:
    return layout.serving_path("", source).lstrip("/")


def derive_file(path: str, sha256: str, source: str, into: str) -> None:
    """Writes into `into` the row bytes of the serving table `source` held in the file `path`, whose
    bytes must hash to `sha256` (what the build's manifest records: the worker's checks of the file
    may not have run yet). Runs in the child process (`_Background`)."""
    with pa.memory_map(path) as mapped:
        region = mapped.read_buffer()
    if hashlib.sha256(memoryview(region)).hexdigest() != sha256:
        raise BuildDamaged("corrupt_file", f"{path} does not match its recorded SHA-256")
    served = pa.ipc.open_file(pa.BufferReader(region)).read_all()
    BuildWriter(Storage(os.path.dirname(into))).write_arrow(into, row_json_serving(source, served))
    with open(into, "rb") as written:  # on disk before its rename publishes it
        os.fsync(written.fileno())


def _lower_priority() -> None:
    with contextlib.suppress(OSError):
        os.nice(10)


class _Background:
    """Where derivations run: one at a time per process, in a child process (spawned on the first,
    at a lower CPU priority, started again if it died), waited for by a daemon thread. A derivation is
    Python work for each row (the encoder per row, as a page's rows are made): in a thread of the
    worker it would hold the interpreter's lock beside the requests (measured: a bystander's p99 x10
    while momentum_12_1's were derived in a thread). The thread and the child are daemons, so a
    worker told to stop never waits for a derivation; a stopped one leaves a temporary file, never a
    derived one. A child that dies (killed, out of memory) fails its derivation, not the thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.Queue[Callable[[], None]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._child: multiprocessing.process.BaseProcess | None = None
        self._pipe: multiprocessing.connection.Connection | None = None

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="derive", daemon=True)
                self._thread.start()
        self._jobs.put(job)

    def wait(self) -> None:
        done = threading.Event()
        self.submit(done.set)
        done.wait()

    def run(self, function: Callable[..., None], *args: str) -> None:
        """`function(*args)` in the child process, waited for (called by the thread only)."""
        if self._child is None or self._pipe is None or not self._child.is_alive():
            context = multiprocessing.get_context("spawn")
            mine, theirs = context.Pipe()
            self._child = context.Process(target=_serve, args=(theirs,), name="derive", daemon=True)
            self._child.start()
            theirs.close()
            self._pipe = mine
        try:
            self._pipe.send((function, args))
            while not self._pipe.poll(1.0) and self._child.is_alive():
                pass
            failed = self._pipe.recv()  # EOFError once the child is gone, whatever it sent
        except (EOFError, OSError) as exc:
            self._child = None
            raise ChildProcessError("the process deriving row bytes died") from exc
        if failed:
            raise RuntimeError(failed)

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                job()
            except Exception:  # the thread outlives any job: later derivations and `wait` need it
                log.exception("a derivation job failed")


def _serve(pipe: multiprocessing.connection.Connection) -> None:
    """The child: runs each job it is sent and answers "" or what failed; ends with its parent
    (the pipe's end)."""
    _lower_priority()
    while True:
        try:
            function, args = pipe.recv()
        except EOFError:
            return
        try:
            function(*args)
            answer = ""
        except Exception as exc:  # told to the parent, which logs it
            answer = f"{type(exc).__name__}: {exc}"
        try:
            pipe.send(answer)
        except OSError:  # the parent is gone (exiting): so is the one who asked
            return


_BACKGROUND = _Background()
