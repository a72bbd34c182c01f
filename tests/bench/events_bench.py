"""`just bench-events`: the event benchmarks of issue 35 (docs/benchmarks.md, "Events (issue 35)").

    python -m tests.bench.events_bench [--quick] [--only publish,streams,webhooks]
        [--publishes 50] [--streams 1000] [--events 1000] [--idle 30] [--keep]

One lake and one SQLite records database (the key store's) in a temporary folder; a small
benchmark seal, a small alpha (`Test_events_bench`, 30 names, 8 weeks) and a wide one
(`Test_events_wide`, 120 names: a 100-row week page) published first by the pipeline's own code.

1. **Publish to visible.** One `alpha-results serve` worker (default settings: the events poll
   `ALPHA_RESULTS_EVENTS_POLL_SECONDS` 0.5), an open `/v1/events/stream` read by httpx in a thread,
   and a poller of `GET /v1/events` after its cursor every 50-100 ms. `--publishes` publishes of
   `Test_events_bench`, alternating two versions (seeds 3 and 4: each publish is a new build), in
   this process as `alpha-results build --keystore` runs them (`pipeline.publish.publish_seal`,
   `pipeline.catalogue_steps.run_catalogue_steps`, then `pipeline.build_events.events_step` with the
   server's settings), one at a time, each after the last one's event was seen by both readers.
   Per publish, from the pointer switch (when `publish_seal` returned): the events step finished
   (event written), the event received on the stream, first seen on the feed.
2. **Open streams.** One worker with its connection bounds raised (`--streams` + 512 per worker
   and per peer; the worker raises its soft open-files limit to the hard one), `--streams` streams
   on raw sockets read by one thread with a selector (each checked: 200 and its opening
   `retry:`), with the events heartbeat at its default (15 s), none (3,600 s) and short (1 s):
   the worker's RSS before and after (MiB per stream), its CPU while idle for `--idle` seconds
   (utime + stime from /proc/<pid>/stat), and, at the default heartbeat, the latency of
   `GET /v1/me` and a 100-row week page with no stream and beside them, and the time one new
   event takes to reach every stream.
3. **Webhook deliveries.** A threaded HTTP receiver on loopback answering 200,
   `ALPHA_RESULTS_WEBHOOK_ALLOW_PRIVATE=true`, 1 then 10 webhooks registered with
   `alpha-results webhooks add` for a member key that reads `Test_` alphas, `--events` events
   appended (`records.store.open_records(url).events.append`), then the real `alpha-results
   deliver` worker (default options) until the receiver has every delivery: deliveries per second,
   every body's signature checked (`tests.ops.webhook_receiver.signature_valid`, independent of
   the server's code), none missing, each webhook's in order.

Every phase is bounded in time and ends by itself; the load average (/proc/loadavg) is printed
before and after each. `--quick`: 10 publishes, 100 streams, 200 events, 5 s idle.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import selectors
import shutil
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    Server,
    bounded_run,
    cli,
    create_admin_key,
    git_revision,
    memory_mib,
    run_checked,
    server_env,
    start_api,
    worker_pids,
)

ALPHA = "Test_events_bench"
WIDE = "Test_events_wide"
WIDE_NAMES = 120
WEEKS = 8
FIRST_FRIDAY = "2023-01-06"
TARGET_SECONDS = 2.0
"""Issue 35: an event on the feed and on open streams within 2 s of the publish that caused it."""
DEADLINE = 60.0
"""The longest one condition is waited for (an event seen, streams opened, a server answering)."""
HEARTBEATS = (("default", 15.0), ("none", 3600.0), ("short", 1.0))
"""The events heartbeats phase 2 runs under (name, ALPHA_RESULTS_EVENTS_HEARTBEAT_SECONDS); the
first also measures latency and fan-out."""
BUILD_TYPES = ("alpha.published", "alpha.republished")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Sizes:
    publishes: int
    streams: int
    events: int
    idle: float
    requests: int
    fanouts: int
    webhooks: tuple[int, ...] = (1, 10)


FULL = Sizes(publishes=50, streams=1000, events=1000, idle=30.0, requests=200, fanouts=5)
QUICK = Sizes(publishes=10, streams=100, events=200, idle=5.0, requests=50, fanouts=2)


# -- figures ----------------------------------------------------------------------------------


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (linear interpolation between the closest ranks, numpy's default)."""
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}" if np.isfinite(seconds) else "-"


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (every thread), from /proc/<pid>/stat."""
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def open_fds(pid: int) -> int:
    return len(os.listdir(Path("/proc") / str(pid) / "fd"))


def raise_own_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# -- the deployment ---------------------------------------------------------------------------


@dataclass
class Deployment:
    folder: Path
    lake: str
    url: str
    token: str
    member: str
    """A member key that reads `Test_` alphas and may call events.list (phase 3)."""
    children: Children
    servers: int = 0

    def env(self, **extra: str) -> dict[str, str]:
        env = server_env(self.lake, self.url)
        for name in list(env):
            if name.startswith("ALPHA_RESULTS_EVENTS_") or name.startswith("ALPHA_RESULTS_MAX_CONNECTIONS"):
                del env[name]  # the defaults, unless a phase sets one
        env.update(extra)
        return env

    def serve(self, name: str, **extra: str) -> tuple[Server, int]:
        self.servers += 1
        log = self.folder / f"server-{self.servers}-{name}.log"
        server = start_api(self.children, name, env=self.env(**extra), workers=1, log=log)
        [worker] = worker_pids(server.proc.pid)
        return server, worker

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def publish_and_record(seal: Path, lake: str, url: str) -> tuple[Any, float, float, Any]:
    """What `alpha-results build SEAL --keystore URL --jobs 1` does, in this process: the publish
    (`publish_seal`, the pointer switch and the catalogue index), the catalogue steps, then the
    events step with the server's settings. (outcome, publish returned, events written, report)."""
    from core.settings import Settings
    from pipeline.build_events import events_step
    from pipeline.catalogue_steps import run_catalogue_steps
    from pipeline.publish import publish_seal

    settings = Settings.from_env()
    outcome = publish_seal(str(seal), lake)
    switched = time.perf_counter()
    steps = run_catalogue_steps(lake, [outcome])
    alphas = [] if outcome.target.startswith("benchmark:") else [outcome.target]
    report = events_step(
        url, True, lake, alphas, [outcome], settings.checks_policy_file, settings.events_retention_days
    )
    written = time.perf_counter()
    failed = [s.error for s in [*steps, report] if s.error]
    if failed:
        raise BenchError(f"the build of {seal} failed a step: {failed}")
    return outcome, switched, written, report


def member_key(url: str, env: dict[str, str]) -> str:
    """A member account whose ceiling admits every endpoint (its alphas and runs stay `Test_`) and
    a key of it, by the operator CLI: the key id."""
    email = f"bench-member-{uuid.uuid4().hex[:8]}@example.com"
    store = ["--keystore", url]
    run_checked(
        [*cli(), "accounts", "create", "--email", email, "--role", "member", *store], env=env, timeout=60
    )
    ceiling = ["--endpoints", "all", "--alphas", "prefix:Test_", "--runs", "prefix:Test_"]
    run_checked([*cli(), "accounts", "set-ceiling", email, *ceiling, *store], env=env, timeout=60)
    made = json.loads(
        run_checked(
            [*cli(), "keys", "create", "--user", email, "--name", "webhooks", "--json", *store],
            env=env,
            timeout=60,
        )
    )
    return str(made["key_id"])


@contextlib.contextmanager
def deployment(children: Children, folder: Path) -> Iterator[Deployment]:
    from records.store import open_records
    from tests.pipeline.factory import write_benchmark_seal, write_factory_seal

    lake, url = str(folder / "lake"), f"sqlite:///{folder / 'keys.sqlite3'}"
    env = server_env(lake, url)
    admin = create_admin_key(url, env)
    open_records(url).close()  # the records' tables and the cursors' secret, as a build makes them
    member = member_key(url, env)
    seals = folder / "seals"
    for seal in (
        write_benchmark_seal(seals / "spy", sessions=90),
        write_factory_seal(seals / "wide", alpha_id=WIDE, weeks=WEEKS, names=WIDE_NAMES, seed=7),
        write_factory_seal(seals / "v3", alpha_id=ALPHA, weeks=WEEKS, seed=3),
    ):
        publish_and_record(seal, lake, url)
    write_factory_seal(seals / "v4", alpha_id=ALPHA, weeks=WEEKS, seed=4)
    yield Deployment(folder, lake, url, admin.token, member, children)


# -- phase 1: publish to visible --------------------------------------------------------------


class Seen:
    """When each build's event was first seen by one reader (perf_counter)."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self.lock = threading.Lock()
        self.error: str | None = None

    def saw(self, event: dict[str, Any], now: float) -> None:
        if event.get("type") in BUILD_TYPES and event.get("alpha") == ALPHA:
            build = str((event.get("data") or {}).get("build_id"))
            with self.lock:
                self.at.setdefault(build, now)

    def get(self, build: str) -> float | None:
        with self.lock:
            return self.at.get(build)


class SseReader:
    """`/v1/events/stream` from now, read by httpx (streaming) in a thread."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        self.seen = Seen()
        self.opened = threading.Event()
        self.status: int | None = None
        self.client = httpx.Client(base_url=base_url, headers=headers, timeout=httpx.Timeout(DEADLINE))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        if not self.opened.wait(DEADLINE) or self.status != 200:
            raise BenchError(f"the stream did not open: status {self.status}, {self.seen.error}")

    def run(self) -> None:
        try:
            with self.client.stream(
                "GET", "/v1/events/stream", headers={"Accept": "text/event-stream"}
            ) as answer:
                self.status = answer.status_code
                self.opened.set()
                data = ""
                for line in answer.iter_lines():
                    if line.startswith("data:"):
                        data = line[5:].strip()
                    elif line == "" and data:
                        self.seen.saw(json.loads(data), time.perf_counter())
                        data = ""
        except httpx.HTTPError as exc:
            self.seen.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.opened.set()

    def close(self) -> None:
        self.client.close()
        self.thread.join(10)


class FeedPoller:
    """`GET /v1/events?after=<cursor>` every 50-100 ms (a random pause after each answer)."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        self.seen = Seen()
        self.requests = 0
        self.stopping = threading.Event()
        self.client = httpx.Client(base_url=base_url, headers=headers, timeout=DEADLINE)
        self.cursor = self.newest()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def page(self, after: str | None) -> dict[str, Any]:
        params = {"limit": "100", **({"after": after} if after else {})}
        response = self.client.get("/v1/events", params=params)
        self.requests += 1
        if response.status_code != 200:
            raise BenchError(f"GET /v1/events answered {response.status_code}: {response.text[:300]}")
        body: dict[str, Any] = response.json()
        return body

    def newest(self) -> str | None:
        cursor: str | None = None
        while True:
            body = self.page(cursor)
            cursor = body["meta"].get("next_cursor") or cursor
            if not body["pagination"]["has_more"]:
                return cursor

    def run(self) -> None:
        rng = random.Random(11)
        while not self.stopping.is_set():
            try:
                body = self.page(self.cursor)
            except (httpx.HTTPError, BenchError) as exc:
                self.seen.error = str(exc)
                return
            now = time.perf_counter()
            for event in body["data"]:
                self.seen.saw(event, now)
            self.cursor = body["meta"].get("next_cursor") or self.cursor
            self.stopping.wait(rng.uniform(0.05, 0.1))

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(10)
        self.client.close()


@dataclass
class PublishFigures:
    publish: list[float] = field(default_factory=list)
    written: list[float] = field(default_factory=list)
    stream: list[float] = field(default_factory=list)
    feed: list[float] = field(default_factory=list)


def phase_publish(d: Deployment, sizes: Sizes) -> list[str]:
    server, worker = d.serve("publish")
    seals = [d.folder / "seals" / "v4", d.folder / "seals" / "v3"]  # v3 is served: v4 first
    figures = PublishFigures()
    reader = SseReader(server.base_url, d.headers())
    poller = FeedPoller(server.base_url, d.headers())
    rng = random.Random(5)
    try:
        for number in range(sizes.publishes):
            started = time.perf_counter()
            outcome, switched, written, _ = publish_and_record(seals[number % 2], d.lake, d.url)
            if outcome.status != "published":
                raise BenchError(f"publish {number} was {outcome.status}, not a new build")
            build = outcome.build_id
            deadline = written + DEADLINE
            while reader.seen.get(build) is None or poller.seen.get(build) is None:
                if time.perf_counter() > deadline or reader.seen.error or poller.seen.error:
                    raise BenchError(
                        f"publish {number} ({build}): stream {reader.seen.get(build)}, feed "
                        f"{poller.seen.get(build)} after {DEADLINE:.0f} s; {reader.seen.error or ''} "
                        f"{poller.seen.error or ''}\n{server.log_tail()}"
                    )
                time.sleep(0.005)
            on_stream, on_feed = reader.seen.get(build), poller.seen.get(build)
            assert on_stream is not None and on_feed is not None
            figures.publish.append(switched - started)
            figures.written.append(written - switched)
            figures.stream.append(on_stream - switched)
            figures.feed.append(on_feed - switched)
            time.sleep(rng.uniform(0.0, 0.5))  # no phase lock with the server's poll
    finally:
        reader.close()
        poller.close()
        d.children.stop(server.proc)
    return publish_table(figures, sizes, poller.requests)


def publish_table(f: PublishFigures, sizes: Sizes, polls: int) -> list[str]:
    n = len(f.stream)
    rows = [
        f"{n} publishes of {ALPHA} (alternating seeds 3 and 4), one worker, events poll 0.5 s (the default); "
        f"the feed polled every 50-100 ms ({polls} requests)",
        "",
        "| from the pointer switch (publish_seal returned) to | p50 ms | p99 ms | max ms | within 2 s |",
        "|---|---|---|---|---|",
    ]
    for name, values in (
        ("the event written (the events step finished)", f.written),
        ("received on the open stream", f.stream),
        ("first seen on `GET /v1/events`", f.feed),
    ):
        within = sum(v <= TARGET_SECONDS for v in values)
        rows.append(
            f"| {name} | {ms(pct(values, 50))} | {ms(pct(values, 99))} | {ms(max(values))} | {within} of {n} |"
        )
    stream_part = [s - w for s, w in zip(f.stream, f.written, strict=True)]
    feed_part = [s - w for s, w in zip(f.feed, f.written, strict=True)]
    rows += [
        f"| (the server's part: event written to received on the stream; the poll bounds it at 500) "
        f"| {ms(pct(stream_part, 50))} | {ms(pct(stream_part, 99))} | {ms(max(stream_part))} | |",
        f"| (the feed's part: event written to first seen; the poller's 50-100 ms bound it) "
        f"| {ms(pct(feed_part, 50))} | {ms(pct(feed_part, 99))} | {ms(max(feed_part))} | |",
        f"| (for scale: the publish itself, publish_seal) | {ms(pct(f.publish, 50))} "
        f"| {ms(pct(f.publish, 99))} | {ms(max(f.publish))} | |",
    ]
    return rows


# -- phase 2: open streams --------------------------------------------------------------------

STREAM_REQUEST = (
    "GET /v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
    "Accept: text/event-stream\r\n\r\n"
)
OPEN_BATCH = 50
TAIL = 256


@dataclass
class RawStream:
    sock: socket.socket
    head: bytes = b""
    status: int | None = None
    opened: bool = False
    """Its first bytes seen: the opening `retry:` of the stream."""
    tail: bytes = b""
    received: int = 0
    heartbeats: int = 0
    closed: bool = False
    marks: dict[bytes, float] = field(default_factory=dict)


class RawStreams:
    """`count` streams on raw sockets (HTTP/1.1, chunked bodies searched as bytes), read by one
    thread with a selector once opened."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.request = port, STREAM_REQUEST.format(token=token).encode()
        self.selector = selectors.DefaultSelector()
        self.streams: list[RawStream] = []
        self.watching: bytes | None = None
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def feed(self, stream: RawStream, data: bytes, now: float) -> None:
        stream.received += len(data)
        if stream.status is None:
            stream.head += data
            if b"\r\n\r\n" not in stream.head:
                return
            head, _, data = stream.head.partition(b"\r\n\r\n")
            stream.status = int(head.split(b" ", 2)[1])
        text = stream.tail + data
        if not stream.opened and b"retry: " in text:
            stream.opened = True
        stream.heartbeats += data.count(b": heartbeat")
        mark = self.watching
        if mark is not None and mark not in stream.marks and mark in text:
            stream.marks[mark] = now
        stream.tail = text[-TAIL:]

    def pump(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            stream: RawStream = key.data
            try:
                data = stream.sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                stream.closed = True
                self.selector.unregister(stream.sock)
                continue
            self.feed(stream, data, time.perf_counter())

    def open(self, count: int) -> float:
        """Open `count` streams, `OPEN_BATCH` at a time (each batch answered before the next):
        seconds taken. Every one must answer 200 with the stream's opening."""
        started = time.perf_counter()
        while len(self.streams) < count:
            batch = []
            for _ in range(min(OPEN_BATCH, count - len(self.streams))):
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=DEADLINE)
                sock.sendall(self.request)
                sock.setblocking(False)
                stream = RawStream(sock)
                self.selector.register(sock, selectors.EVENT_READ, stream)
                self.streams.append(stream)
                batch.append(stream)
            deadline = time.monotonic() + DEADLINE
            while not all(s.opened or s.closed or (s.status not in (None, 200)) for s in batch):
                if time.monotonic() > deadline:
                    raise BenchError(f"{sum(not s.opened for s in batch)} streams of a batch unanswered")
                self.pump(0.1)
        refused = [s for s in self.streams if s.status != 200 or not s.opened or s.closed]
        if refused:
            statuses = sorted({(s.status, s.closed) for s in refused}, key=str)
            raise BenchError(f"{len(refused)} of {count} streams not opened: (status, closed) {statuses}")
        return time.perf_counter() - started

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stopping.is_set():
            self.pump(0.05)

    def reached(self, mark: bytes) -> int:
        return sum(mark in s.marks for s in self.streams)

    def alive(self) -> int:
        return sum(not s.closed for s in self.streams)

    def close(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(10)
        for stream in self.streams:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(stream.sock)
            stream.sock.close()
        self.selector.close()


def latencies(client: httpx.Client, paths: Sequence[str], requests: int) -> dict[str, list[float]]:
    """`requests` sequential GETs of each path, interleaved, over one kept-alive connection
    (after 10 of each to warm up): seconds per request."""
    out: dict[str, list[float]] = {path: [] for path in paths}
    for number in range(requests + 10):
        for path in paths:
            started = time.perf_counter()
            response = client.get(path)
            took = time.perf_counter() - started
            if response.status_code != 200:
                raise BenchError(f"GET {path} answered {response.status_code}: {response.text[:300]}")
            if number >= 10:
                out[path].append(took)
    return out


def idle_cpu(worker: int, seconds: float) -> float:
    """The worker's CPU, % of one core, over `seconds` of doing nothing asked."""
    before, started = cpu_seconds(worker), time.perf_counter()
    time.sleep(seconds)
    return 100 * (cpu_seconds(worker) - before) / (time.perf_counter() - started)


def fan_out(d: Deployment, streams: RawStreams, count: int) -> tuple[list[float], list[float]]:
    """`count` events, one at a time: every stream's delay (s) from the append to the event's
    bytes, and per event the delay to the last stream."""
    from records.store import open_records

    records = open_records(d.url, create=False)
    delays: list[float] = []
    last: list[float] = []
    try:
        for number in range(count):
            mark = f"fanout-{number}-{uuid.uuid4().hex[:8]}".encode()
            streams.watching = mark
            appended = time.perf_counter()
            records.events.append("alpha.checks_changed", {"mark": mark.decode()}, alpha_id=ALPHA)
            deadline = appended + DEADLINE
            while (reached := streams.reached(mark)) < len(streams.streams):
                if time.perf_counter() > deadline:
                    raise BenchError(f"event {number} reached {reached} of {len(streams.streams)} streams")
                time.sleep(0.01)
            these = [s.marks[mark] - appended for s in streams.streams]
            delays += these
            last.append(max(these))
            time.sleep(random.uniform(0.5, 1.0))
    finally:
        records.close()
    return delays, last


class Prober:
    """`GET path` one after another (20 ms apart) on its own connection while the `with` lasts:
    seconds per request."""

    def __init__(self, base_url: str, headers: dict[str, str], path: str) -> None:
        self.client = httpx.Client(base_url=base_url, headers=headers, timeout=DEADLINE)
        self.path, self.took, self.failed = path, list[float](), 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self) -> Prober:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(DEADLINE)
        self.client.close()

    def run(self) -> None:
        while not self.stopping.is_set():
            started = time.perf_counter()
            try:
                ok = self.client.get(self.path).status_code == 200
            except httpx.HTTPError:
                ok = False
            if ok:
                self.took.append(time.perf_counter() - started)
            else:
                self.failed += 1
            self.stopping.wait(0.02)


def week_paths() -> list[str]:
    first = np.datetime64(FIRST_FRIDAY)
    weeks = [str(first + np.timedelta64(7 * w, "D")) for w in range(WEEKS - 1)]
    return [f"/v1/alphas/{WIDE}/rebalances/{week}?limit=100" for week in weeks]


def phase_streams(d: Deployment, sizes: Sizes) -> list[str]:
    bound = str(sizes.streams + 512)
    rows = [
        f"{sizes.streams} streams on one worker (ALPHA_RESULTS_MAX_CONNECTIONS_PER_WORKER and _PER_PEER "
        f"{bound}; the worker raises its soft open-files limit to the hard one, "
        f"{resource.getrlimit(resource.RLIMIT_NOFILE)[1]} here), events poll 0.5 s, idle {sizes.idle:g} s",
        "",
        "| heartbeat | opened in s | worker RSS before MiB | after MiB | MiB per stream | fds after "
        "| idle CPU % no stream | idle CPU % with the streams | heartbeats received | streams alive |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(rows), flush=True)
    extra: list[str] = []
    for name, heartbeat in HEARTBEATS:
        full = name == HEARTBEATS[0][0]
        server, worker = d.serve(
            f"streams-{name}",
            ALPHA_RESULTS_EVENTS_HEARTBEAT_SECONDS=str(heartbeat),
            ALPHA_RESULTS_MAX_CONNECTIONS_PER_WORKER=bound,
            ALPHA_RESULTS_MAX_CONNECTIONS_PER_PEER=bound,
        )
        streams = RawStreams(server.port, d.token)
        try:
            with httpx.Client(base_url=server.base_url, headers=d.headers(), timeout=DEADLINE) as client:
                paths = ["/v1/me", *week_paths()]
                page = client.get(paths[1]).json()
                if page["pagination"]["returned"] != 100:
                    raise BenchError(f"the week page holds {page['pagination']['returned']} rows, not 100")
                # Warm the worker (the routes, the alpha's build) before its memory is read.
                latencies(client, [paths[0], *paths[1:]], 2)
                quiet = idle_cpu(worker, sizes.idle) if full else float("nan")
                alone = latencies(client, paths[:2], sizes.requests) if full else {}
                before = memory_mib(worker)[0]
                opened = streams.open(sizes.streams)
                streams.start()
                time.sleep(2.0)
                after = memory_mib(worker)[0]
                fds = open_fds(worker)
                beats = sum(s.heartbeats for s in streams.streams)
                busy = idle_cpu(worker, sizes.idle)
                beats = sum(s.heartbeats for s in streams.streams) - beats
                if full:
                    beside = latencies(client, paths[:2], sizes.requests)
                    with Prober(server.base_url, d.headers(), paths[0]) as probe:
                        delays, last = fan_out(d, streams, sizes.fanouts)
                    extra += latency_rows(alone, beside, paths[:2], sizes)
                    extra += fanout_rows(delays, last, sizes, probe)
                alive = streams.alive()
        finally:
            streams.close()
            d.children.stop(server.proc)
        rows.append(
            f"| {name} ({heartbeat:g} s) | {opened:.1f} | {before:.0f} | {after:.0f} "
            f"| {(after - before) / sizes.streams:.3f} | {fds} | "
            f"{'-' if not np.isfinite(quiet) else f'{quiet:.1f}'} | {busy:.1f} | {beats} | {alive} of {sizes.streams} |"
        )
        print(rows[-1], flush=True)
    return [*rows, "", *extra]


def latency_rows(
    alone: dict[str, list[float]], beside: dict[str, list[float]], paths: Sequence[str], sizes: Sizes
) -> list[str]:
    names = {paths[0]: "`GET /v1/me`", paths[1]: "a 100-row week page"}
    rows = [
        f"Latency at the default heartbeat, {sizes.requests} sequential requests each (interleaved, one "
        "kept-alive connection), with no stream open and beside the streams:",
        "",
        "| request | p50 ms alone | p99 ms alone | p50 ms beside | p99 ms beside | p50 ratio | p99 ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for path in paths:
        a50, a99, b50, b99 = (
            pct(alone[path], 50),
            pct(alone[path], 99),
            pct(beside[path], 50),
            pct(beside[path], 99),
        )
        rows.append(
            f"| {names[path]} | {a50 * 1000:.1f} | {a99 * 1000:.1f} | {b50 * 1000:.1f} | {b99 * 1000:.1f} "
            f"| {b50 / a50:.2f} | {b99 / a99:.2f} |"
        )
    return [*rows, ""]


def fanout_rows(delays: list[float], last: list[float], sizes: Sizes, probe: Prober) -> list[str]:
    return [
        f"One new event (appended to the records) to every one of the {sizes.streams} streams, "
        f"{sizes.fanouts} events, one at a time; meanwhile `GET /v1/me` one after another (20 ms "
        f"apart) on another connection ({len(probe.took)} answered 200, {probe.failed} not):",
        "",
        "| delay | p50 ms | p99 ms | max ms |",
        "|---|---|---|---|",
        f"| from the append to each stream, across streams and events ({len(delays)}) "
        f"| {ms(pct(delays, 50))} | {ms(pct(delays, 99))} | {ms(max(delays))} |",
        f"| from the append to the last stream, per event ({len(last)}) | {ms(pct(last, 50))} "
        f"| {ms(pct(last, 99))} | {ms(max(last))} |",
        f"| `GET /v1/me` during the fan-outs ({len(probe.took)}) | {pct(probe.took, 50) * 1000:.1f} "
        f"| {pct(probe.took, 99) * 1000:.1f} | {max(probe.took, default=float('nan')) * 1000:.1f} |",
        "",
    ]


# -- phase 3: webhook deliveries --------------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    at: float
    wall: float
    path: str
    headers: dict[str, str]
    body: bytes


class FastReceiver:
    """A threaded HTTP server on loopback answering every POST 200 at once, keeping what came."""

    def __init__(self) -> None:
        self.received: list[Delivery] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                got = Delivery(
                    time.perf_counter(),
                    time.time(),
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                with receiver.lock:  # before the answer: the next delivery waits for it
                    receiver.received.append(got)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.request_queue_size = 128
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_port}{path}"

    def count(self) -> int:
        with self.lock:
            return len(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def phase_webhooks(d: Deployment, sizes: Sizes) -> list[str]:
    from records.store import open_records
    from tests.ops.webhook_receiver import signature_valid

    env = d.env(ALPHA_RESULTS_WEBHOOK_ALLOW_PRIVATE="true")
    rows = [
        f"{sizes.events} events appended, then `alpha-results deliver` (default options: --poll 1, "
        "--concurrency 8) started; a threaded receiver on loopback answering 200",
        "",
        "| webhooks | deliveries | first delivery after start s | first to last s | deliveries/s "
        "(first to last) | deliveries/s (from start) | signatures valid | missing | duplicates | in order |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(rows), flush=True)
    registered: list[str] = []
    for count in sizes.webhooks:
        for webhook_id in registered:
            run_checked([*cli(), "webhooks", "remove", webhook_id, "--keystore", d.url], env=env, timeout=60)
        receiver = FastReceiver()
        worker = None
        try:
            secrets: dict[str, str] = {}
            paths: dict[str, str] = {}
            for number in range(count):
                path = f"/hook-{count}-{number}"
                added = json.loads(
                    run_checked(
                        [*cli(), "webhooks", "add", d.member, receiver.url(path), "--keystore", d.url],
                        env=env,
                        timeout=60,
                    )
                )
                secrets[added["id"]], paths[path] = added["secret"], added["id"]
            registered = list(secrets)
            records = open_records(d.url, create=False)
            try:
                appended = [
                    records.events.append(
                        "alpha.checks_changed", {"seq": n, "bench": "webhooks"}, alpha_id=ALPHA
                    )
                    for n in range(sizes.events)
                ]
                cursors = [records.cursors.write(e.id) for e in appended]
            finally:
                records.close()
            expected = count * sizes.events
            started = time.perf_counter()
            log = d.folder / f"deliver-{count}.log"
            worker = d.children.start([*cli(), "deliver", "--keystore", d.url], env=env, log=log)
            limit = max(120.0, expected / 5)
            deadline = started + limit
            while receiver.count() < expected:
                if worker.poll() is not None or time.perf_counter() > deadline:
                    tail = log.read_text(errors="replace")[-2000:]
                    raise BenchError(
                        f"{receiver.count()} of {expected} deliveries after {time.perf_counter() - started:.0f} s "
                        f"(worker exit {worker.poll()}):\n{tail}"
                    )
                time.sleep(0.01)
            d.children.stop(worker)
            worker = None
            got = list(receiver.received)
        finally:
            if worker is not None:
                d.children.stop(worker)
            receiver.close()
        valid = sum(
            signature_valid(secrets[paths[g.path]], g.headers["alpha-results-signature"], g.body, now=g.wall)
            for g in got
        )
        missing = duplicates = 0
        ordered = True
        for path in paths:
            ids = [g.headers["alpha-results-event-id"] for g in got if g.path == path]
            bodies = {json.loads(g.body)["id"] for g in got if g.path == path}
            missing += len(set(cursors) - set(ids)) + len(set(cursors) - bodies)
            duplicates += len(ids) - len(set(ids))
            first = list(dict.fromkeys(ids))
            ordered = ordered and first == [c for c in cursors if c in set(first)]
        times = [g.at for g in got]
        first_at, last_at = min(times) - started, max(times) - started
        rows.append(
            f"| {count} | {len(got)} | {first_at:.2f} | {last_at - first_at:.2f} "
            f"| {(len(got) - 1) / (last_at - first_at):.0f} | {len(got) / last_at:.0f} "
            f"| {valid} of {len(got)} | {missing} | {duplicates} | {'yes' if ordered else 'NO'} |"
        )
        print(rows[-1], flush=True)
        if valid != len(got) or missing or not ordered:
            raise BenchError(f"deliveries wrong: {rows[-1]}")
    return rows


# -- the run ----------------------------------------------------------------------------------

PHASES = {"publish": phase_publish, "streams": phase_streams, "webhooks": phase_webhooks}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 publishes, 100 streams, 200 events")
    parser.add_argument("--only", default=",".join(PHASES), help="phases to run: publish,streams,webhooks")
    parser.add_argument("--publishes", type=int, default=None)
    parser.add_argument("--streams", type=int, default=None)
    parser.add_argument("--events", type=int, default=None)
    parser.add_argument("--idle", type=float, default=None, help="seconds of idle CPU measured")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs, lake)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    sizes = Sizes(
        publishes=args.publishes or sizes.publishes,
        streams=args.streams or sizes.streams,
        events=args.events or sizes.events,
        idle=args.idle or sizes.idle,
        requests=sizes.requests,
        fanouts=sizes.fanouts,
    )
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in only if name not in PHASES]
    if unknown:
        parser.error(f"--only: unknown phase {unknown}; one of {', '.join(PHASES)}")
    limits = raise_own_fd_limit()
    if "streams" in only and limits < sizes.streams + 256:
        raise BenchError(f"this process may open {limits} files: too few for {sizes.streams} streams")
    print(
        f"events-bench: {git_revision()} ({REPO}), {os.cpu_count()} CPUs, {sizes}; load average "
        f"(1, 5, 15 min) at start {load()}",
        flush=True,
    )
    seconds = 600 + 3 * sizes.publishes + 4 * (sizes.idle * 2 + sizes.streams / 20 + 120) + sizes.events
    folder = Path(tempfile.mkdtemp(prefix="events-bench-"))
    out: list[str] = []
    try:
        with bounded_run(seconds), Children() as children, deployment(children, folder) as d:
            for name in only:
                before = load()
                print(f"\n## {name} (load average before: {before})\n", flush=True)
                rows = PHASES[name](d, sizes)
                out += [f"### {name}: load average {before} before, {load()} after", "", *rows, ""]
                print("\n".join(rows), f"\n(load average after: {load()})", flush=True)
    finally:
        if args.keep:
            print(f"work folder kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print("\n" + "\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
