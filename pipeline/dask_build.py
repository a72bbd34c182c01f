"""The Dask executor of `alpha-results build`: each seal one task on a `dask.distributed` cluster.

The client (the command) reads each seal's manifest to learn its target, then submits one task per
seal: the task validates, derives, commits the rows to the open tables, writes the serving files and
the exports, and publishes atomically (`pipeline.build.build_one`, the function the local executor runs). Seals of
the same alpha are submitted one after the other in the order given (the next when the previous
ended), as the local executor chains them, so their pointer switches never interleave; seals of
different alphas run wherever the scheduler puts them.

What comes back is the seal's `Outcome` (a refusal carries its report, printed exactly as the local
executor prints it), or a `Failure` when the task raised through all its retries or the scheduler
gave up on it (`KilledWorker`: every worker that ran it died). The client never stops at one seal:
every other seal still builds, and the command exits non-zero.

Lost workers: the scheduler runs a task whose worker died again elsewhere (up to
`distributed.scheduler.allowed-failures` times, 3 by default). A rerun is safe because publishing
is idempotent and exclusive: the same seal gives the same content id, so a rerun that finds its
content already published reports `unchanged`; every publish writes a folder of its own under a
lease, and the one the dead worker left half-written is garbage once its lease expires.
A task that raises (an object store that does not answer) is retried `TASK_RETRIES` times.

Once every seal's task has ended, the catalogue-wide steps (`pipeline.catalogue_steps`) run once,
as one more task on the cluster, where the lake is.

Progress: each task announces itself on a Dask event topic of this run when it starts (worker,
pid, attempt); the client turns that and each result into lines (queued, running, published,
unchanged, refused, failed) and prints the dashboard link when the scheduler serves one.

Workers must run the same pipeline version as the client (a task on a worker of another version
fails instead of publishing builds under other content ids), reach the seals and the lake at the
same addresses (an absolute path on a shared filesystem, or `s3://` with credentials in the
worker's environment), and import this project: install it in each worker's environment.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

from alpha_results_seal.families import DEFAULT_TEAM
from alpha_results_seal.printable import print_lines
from alpha_results_seal.seal_limits import SealLimits
from datasets import catalog
from pipeline import PIPELINE_VERSION, catalogue_neighbours, index_rows
from pipeline.build import Failure, SealResult, build_one, chains_by_target, seal_target
from pipeline.catalogue_steps import StepReport, run_catalogue_steps

TASK_RETRIES = 2
"""Reruns of a task that raised (not of a refused seal, which is an outcome, nor of a lost worker's
task, which the scheduler reruns by its own count)."""

CONNECT_TIMEOUT_SECONDS = 30
DASHBOARD_PROBE_SECONDS = 2
SCHEMES = ("dask://", "tcp://", "tls://")
TOPIC_PREFIX = "alpha-results-build"


class SchedulerAddressError(ValueError):
    pass


def scheduler_address(value: str) -> str:
    """`dask://HOST:PORT` (or `tcp://`, `tls://`, or a bare `HOST:PORT`) as Dask's address."""
    scheme, _, rest = value.rpartition("://")
    if scheme and f"{scheme}://" not in SCHEMES:
        raise SchedulerAddressError(f"{value!r}: the scheduler address must be dask://HOST:PORT")
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise SchedulerAddressError(f"{value!r}: the scheduler address must be dask://HOST:PORT")
    return f"{'tcp' if scheme in ('', 'dask') else scheme}://{host}:{port}"


def shared_path(path: str) -> str:
    """A path every worker resolves the same way: `s3://` as it is, a local one made absolute."""
    return path if "://" in path else os.path.abspath(path)


# -- progress -------------------------------------------------------------------------------------


class BuildProgress:
    """What the client hears as the build proceeds; every method is a no-op here. Called from
    the command's thread and from the Dask client's event thread, one call at a time."""

    def connected(self, scheduler: str, workers: int, dashboard: str | None) -> None:
        pass

    def queued(self, index: int, seal: str, target: str) -> None:
        pass

    def running(self, index: int, worker: str, pid: int, attempt: int) -> None:
        pass

    def finished(self, index: int, result: SealResult) -> None:
        pass

    def catalogue(self, state: str) -> None:
        pass


STATES = ("queued", "running", "published", "unchanged", "refused", "failed")


class PrintedProgress(BuildProgress):
    """One line per change, to `stream` (stderr by default, so stdout holds the same report as
    the local executor's), with the run's counts after each seal ends."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream
        self.targets: dict[int, str] = {}
        self.states: dict[int, str] = {}
        self.started: dict[int, float] = {}

    def _print(self, line: str) -> None:
        print_lines([line], self.stream or sys.stderr)  # a seal's target escaped

    def connected(self, scheduler: str, workers: int, dashboard: str | None) -> None:
        waiting = "" if workers else " (tasks wait until workers join)"
        board = f"dashboard {dashboard}" if dashboard else "no dashboard (the scheduler serves none)"
        self._print(f"dask       scheduler {scheduler}, {workers} workers{waiting}, {board}")

    def queued(self, index: int, seal: str, target: str) -> None:
        self.targets[index] = target
        self.states[index] = "queued"
        self._print(f"queued     {target}  ({seal})")

    def running(self, index: int, worker: str, pid: int, attempt: int) -> None:
        if self.states.get(index) not in ("queued", "running"):
            return  # the event came in after the result (both travel separately)
        self.states[index] = "running"
        self.started[index] = time.monotonic()
        again = f", attempt {attempt} (its earlier worker was lost)" if attempt > 1 else ""
        self._print(f"running    {self.targets.get(index, '?')}  on {worker} (pid {pid}){again}")

    def finished(self, index: int, result: SealResult) -> None:
        self.states[index] = result.status
        counts = {state: 0 for state in STATES}
        for state in self.states.values():
            counts[state] = counts.get(state, 0) + 1
        done = len(self.states) - counts["queued"] - counts["running"]
        summary = ", ".join(f"{n} {state}" for state, n in counts.items() if n)
        took = f"  in {time.monotonic() - self.started[index]:.1f} s" if index in self.started else ""
        self._print(f"{result.status:<10} {result.target}{took}  [{done}/{len(self.states)} done: {summary}]")

    def catalogue(self, state: str) -> None:
        self._print(f"catalogue  {state}")


# -- worker side ----------------------------------------------------------------------------------


def _announce(topic: str, message: dict[str, Any]) -> None:
    """Logs an event on the run's topic from inside a task (nothing outside a worker)."""
    from distributed import get_worker  # the optional `dask` extra: imported where a Dask run needs it

    try:
        worker = get_worker()
    except ValueError:
        return
    worker.log_event(topic, {**message, "worker": worker.address, "pid": os.getpid()})


def build_seal_task(
    index: int,
    seal_path: str,
    target: str,
    lake_root: str,
    client_version: str,
    topic: str,
    indexed: bool,
    limits: SealLimits | None = None,
    team: str | None = DEFAULT_TEAM,
    allow_rollback: bool = False,
) -> SealResult:
    """One seal, on a worker: announced, checked against the client's pipeline version, built."""
    _announce(topic, {"event": "running", "index": index})
    if client_version != PIPELINE_VERSION:
        return Failure(
            seal_path,
            target,
            f"this worker runs pipeline {PIPELINE_VERSION}, the client {client_version}: "
            "install the same version of alpha-results on every worker",
        )
    return build_one(seal_path, lake_root, indexed, limits, team, allow_rollback)


def catalogue_task(lake_root: str, results: list[SealResult], topic: str) -> list[StepReport]:
    _announce(topic, {"event": "catalogue"})
    return run_catalogue_steps(lake_root, results)


# -- client side ----------------------------------------------------------------------------------


@dataclass
class DaskBuild:
    results: list[SealResult]
    catalogue: list[StepReport] = field(default_factory=list)
    dashboard: str | None = None


def seal_targets(seal_paths: Sequence[str], limits: SealLimits | None = None) -> list[str]:
    """Each seal's target, its manifest read by a few threads (one GET each on S3) within the
    run's JSON size limit, as the local executor reads it."""
    with ThreadPoolExecutor(max_workers=min(16, max(1, len(seal_paths)))) as pool:
        return list(pool.map(lambda path: seal_target(path, limits), seal_paths))


def dashboard_link(client: Any) -> str | None:
    """The dashboard's address when the scheduler serves one. Its HTTP server always runs, but
    serves the dashboard only with bokeh installed beside it (a 404 otherwise); a link this
    machine cannot reach (behind a proxy, `distributed.dashboard.link`) is given as it is."""
    try:
        link = str(client.dashboard_link or "")
    except (KeyError, AttributeError):
        return None
    if not link:
        return None
    try:
        with urllib.request.urlopen(link, timeout=DASHBOARD_PROBE_SECONDS):
            pass
    except urllib.error.HTTPError:
        return None
    except (OSError, ValueError):
        return f"{link} (not reachable from here)"
    return link


def build_on_dask(
    seal_paths: Sequence[str],
    lake_root: str,
    scheduler: str,
    progress: BuildProgress | None = None,
    retries: int = TASK_RETRIES,
    indexed: bool = True,
    limits: SealLimits | None = None,
    team: str | None = DEFAULT_TEAM,
    allow_rollback: bool = False,
) -> DaskBuild:
    """Builds every seal as a task on the cluster at `scheduler` (a Dask address), then runs the
    catalogue-wide steps once. Results in the order of `seal_paths`. `limits` (the client's,
    `alpha-results build` reads them once) travel with each task."""
    from distributed import Client, as_completed  # the optional `dask` extra

    progress = progress or BuildProgress()
    seals = [shared_path(p) for p in seal_paths]
    lake_root = shared_path(lake_root)
    targets = seal_targets(seals, limits)
    chains = chains_by_target(targets)
    run_id = uuid.uuid4().hex[:12]
    topic = f"{TOPIC_PREFIX}-{run_id}"
    attempts: dict[int, int] = {}
    lock = threading.Lock()

    def on_event(event: tuple[float, dict[str, Any]]) -> None:
        message = event[1]
        with lock:
            if message.get("event") == "running":
                index = int(message["index"])
                attempts[index] = attempts.get(index, 0) + 1
                progress.running(index, str(message["worker"]), int(message["pid"]), attempts[index])
            elif message.get("event") == "catalogue":
                progress.catalogue(f"running the catalogue-wide steps on {message['worker']}")

    client = Client(scheduler, timeout=CONNECT_TIMEOUT_SECONDS, set_as_default=False)
    futures: dict[Any, int] = {}
    try:
        client.subscribe_topic(topic, on_event)
        dashboard = dashboard_link(client)
        with lock:
            progress.connected(scheduler, len(client.nthreads()), dashboard)
            for index, seal in enumerate(seals):
                progress.queued(index, seal, targets[index])

        def submit(index: int) -> Any:
            future = client.submit(
                build_seal_task,
                index,
                seals[index],
                targets[index],
                lake_root,
                PIPELINE_VERSION,
                topic,
                indexed,
                limits,
                team,
                allow_rollback,
                key=f"alpha-results-seal-{run_id}-{index}",
                retries=retries,
                pure=False,
            )
            futures[future] = index
            return future

        waiting = {target: list(indexes) for target, indexes in chains.items()}
        running = as_completed([submit(indexes.pop(0)) for indexes in waiting.values()], loop=client.loop)
        results: list[SealResult | None] = [None] * len(seals)
        for future in running:
            index = futures.pop(future)
            result = _result(future, seals[index], targets[index])
            results[index] = result
            with lock:
                progress.finished(index, result)
            rest = waiting[targets[index]]
            if rest:
                running.add(submit(rest.pop(0)))
        ended = [r for r in results if r is not None]

        with lock:
            progress.catalogue("queued the catalogue-wide steps")
        steps = client.submit(
            catalogue_task, lake_root, ended, topic, key=f"alpha-results-catalogue-{run_id}", retries=retries
        )
        try:
            reports = list(steps.result())
        except Exception as exc:  # the task itself failed (its worker kept dying): report it
            reports = [StepReport("catalogue-wide steps", error=f"{type(exc).__name__}: {exc}")]
        return DaskBuild(ended, reports, dashboard)
    finally:
        if futures:  # interrupted: what has not started yet is not started
            client.cancel(list(futures))
        try:
            client.unsubscribe_topic(topic)
        except ValueError:
            pass
        client.close()


def _result(future: Any, seal: str, target: str) -> SealResult:
    """The seal's result; whatever went wrong with its task, or with fetching what it returned,
    is that seal's `Failure`, never the end of the run (the other seals and the summary follow)."""
    try:
        if future.status == "finished":
            result = future.result()
            if isinstance(result, SealResult):
                return result
            return Failure(seal, target, f"the task returned {type(result).__name__}, not a seal's result")
        if future.status == "error":
            error = future.exception()
            return Failure(seal, target, f"{type(error).__name__}: {error}")
    except Exception as exc:
        return Failure(seal, target, f"{type(exc).__name__}: {exc}")
    return Failure(seal, target, f"the task ended {future.status} (the scheduler lost it)")


def rebuild_index_on_dask(
    lake_root: str, scheduler: str, timings: dict[str, float] | None = None, parts_for: int | None = None
) -> int:
    """`lake index --executor dask://...`: the rebuild partitioned over the cluster's workers
    (docs/lake.md "The whole rebuild on a cluster"): every published alpha's catalogue index row,
    one task per alpha; the pairing plan's candidates (two correlations of each alpha with every
    other: O(N^2)), one task per block of rows, the matrices scattered to the workers once; the
    score pairings of the plan and of its second hop, one task per chunk of alphas. Blocks and
    chunks are sized to give each worker about TASKS_PER_WORKER tasks per phase, so a slow task
    holds the phase back less. This process commits them as one generation; `timings` receives the
    seconds of each phase. `parts_for`: size the parts for that many workers instead of the
    cluster's (a benchmark measures on one worker the tasks a larger cluster would run)."""
    from distributed import Client  # the optional `dask` extra

    root = shared_path(lake_root)
    alphas = catalog.published_alpha_ids(root)
    with Client(scheduler, timeout=CONNECT_TIMEOUT_SECONDS, set_as_default=False) as client:
        workers = parts_for or max(1, len(client.scheduler_info().get("workers", {})))
        started = time.perf_counter()
        futures = client.map(index_rows.row_task, [root] * len(alphas), alphas, pure=False)
        rows: list[dict[str, Any] | None] = client.gather(futures)
        if timings is not None:
            timings["row_tasks"] = time.perf_counter() - started

        passes = iter(range(1, 1_000))

        def pair_all(root: str, plan: list[Any]) -> list[Any]:
            size = parts_of(len(plan), workers, PAIR_CHUNK)
            chunks = [plan[start : start + size] for start in range(0, len(plan), size)]
            run = f"pair_chunk-pass{next(passes)}-{uuid.uuid4().hex[:8]}"
            keys = [f"{run}-{n}" for n in range(len(chunks))]  # the pass in each task's name
            pairing = client.map(index_rows.pair_chunk, [root] * len(chunks), chunks, key=keys)
            return [found for part in client.gather(pairing) for found in part]

        def candidates_of(matrices: Any, chosen: list[int], eligible: Any, count: int) -> list[list[int]]:
            proxies = {basis: matrices[basis] for basis in catalogue_neighbours.PROXY_BASES}
            shared = client.scatter(proxies, broadcast=True)
            size = parts_of(len(chosen), workers, CANDIDATE_BLOCK)
            blocks = [chosen[start : start + size] for start in range(0, len(chosen), size)]
            found = client.map(
                catalogue_neighbours.candidate_block,
                [shared] * len(blocks),
                blocks,
                [eligible] * len(blocks),
                [count] * len(blocks),
                pure=False,
            )
            return [row for part in client.gather(found) for row in part]

        return index_rows.rebuild(root, rows, pair_all, candidates_of, timings)


PAIR_CHUNK = 64
"""Alphas per pairing task of a rebuild on Dask at most (each task reads its alphas' and candidates'
scores)."""
CANDIDATE_BLOCK = 512
"""Rows per candidates task of a rebuild on Dask at most."""
TASKS_PER_WORKER = 4
"""Tasks per worker a phase is cut into (fewer, larger ones when the cap above is reached)."""


def parts_of(items: int, workers: int, most: int) -> int:
    """The size of each part when `items` are cut into about TASKS_PER_WORKER parts per worker,
    at most `most` items each (at least one)."""
    return max(1, min(most, -(-items // (TASKS_PER_WORKER * workers))))
