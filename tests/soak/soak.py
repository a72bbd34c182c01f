"""`just soak`: a bounded soak of the shared deployment, loopback only.

    python -m tests.soak.soak [--seconds 300] [--seed N] [--keep]

Setup (all on 127.0.0.1, every process ended on the way out): a moto S3 server holding the lake,
a private `redis-server` (no persistence) as the limiter, a PostgreSQL database of its own on the
shared server as the key store (dropped at the end), the small demo corpus built into the S3 lake
with `alpha-results build`, the keys (an admin key made with the operator CLI; a self-service key;
a tight key, 5/s, 240/min and a day quota reached during the run; members and refused keys), and
`alpha-results serve --workers 2` over all of it.

Before the load, every planned request (tests/soak/traffic.py: about 4,000 over every endpoint
family, valid and invalid) is answered once for each of the two versions of the republished alpha
and its answer recorded. Then, for `--seconds`: client threads send those requests at random
(admin, members, the tight key well above its rate, the self-service key, hostile requests); the
republished alpha is published every 10 s (what `alpha-results build SEAL` does, version A or B in
turn: a switch, then an `unchanged`, from a warm process); Redis is killed (SIGKILL) about halfway
and restarted empty; each worker's RSS is read from /proc and `/v1/health` asked every second.

Checks, printed as a table and written to var/soak/soak.md (the run's figures to soak.json):
- no 5xx other than the documented 503s (which are counted by code, route and phase);
- no wrong answer: every answer equals the one recorded for the version it names, and every
  request is answered;
- the RSS of each worker flat after the warm-up (first, last, max, least-squares slope), and the
  same two worker processes throughout;
- no quota exceeded by the tight key, counted from the client side: never more than its rate in a
  second (twice the rate while the limiter is down, planned or not, as the limiter's own log lines
  say: each worker enforces it alone), never more than its minute limit in a minute no outage
  touched, never more than its day quota; and the usage the server reports at the end equal to
  what the client saw admitted;
- publishes every 10 s all succeeded; the Redis restart happened and health showed it; health
  otherwise ok.
Exits 1 when a requirement fails, 2 when the soak could not run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from access import RateLimit
from alpha_results_seal.seal import open_seal
from alpha_results_seal.storage import Storage
from pipeline.publish import content_id_for
from schemas.registry import ALL_IDS
from serve.limits.ledger import SYNC_SECONDS
from tests.bench.harness import (
    REPO,
    BenchError,
    Children,
    RunTimeLimit,
    bounded_run,
    git_revision,
)
from tests.bench.load_bench import private_postgres
from tests.bench.scale_bench import slope
from tests.soak.deployment import (
    REPUBLISHED,
    SELF_SERVICE,
    TIGHT,
    WORKERS,
    Deployment,
    Keys,
    PrivateRedis,
    Seals,
    build,
    content_of,
    create_keys,
    make_bucket,
    serve,
    start_moto,
    write_seals,
)
from tests.soak.traffic import (
    Checker,
    Client,
    ClientSpec,
    Connection,
    Expectations,
    Plan,
    SetupError,
    Tally,
    make_plan,
)

RSS_SLOPE_LIMIT = 1.0
"""MiB per minute: the least-squares slope of a worker's RSS after the warm-up must stay below it
(a leak of 100 bytes per request at the soak's rate would show about 1.5 MiB/min) ..."""
RSS_NOISE = 4.0
"""... unless the growth that slope fits over the whole window stays below this many MiB: a worker's
RSS moves by a few MiB as requests touch mapped pages and builds are swapped, so the slope of a
short window says nothing."""
RSS_GROWTH_LIMIT = 16.0
"""MiB: the median of a worker's last 10 RSS samples may exceed that of its first 10 after the
warm-up by at most this much."""
LIMITER_GRACE = 2.0
"""Seconds after `/v1/health` shows the limiter up again that still count as the outage (the other
worker's client reconnects on its next request)."""


def say(line: str = "") -> None:
    print(line, flush=True)


# -- background activities -------------------------------------------------------------------------


class SoakChildren(Children):
    """`Children` that also ends a process started elsewhere (the publisher needs pipes)."""

    def __enter__(self) -> SoakChildren:
        return self

    def adopt(self, proc: subprocess.Popen[bytes]) -> None:
        self._running.append(proc)


@dataclass
class Publish:
    started: float
    ended: float
    version: str
    status: str
    build_id: str
    exit_code: int


PUBLISHER = r"""
import contextlib, io, json, sys, time
from cli.lake import run_build
from cli.main import build_parser

lake = sys.argv[1]
print("ready", flush=True)
for line in sys.stdin:
    out = io.StringIO()
    started = time.time()
    with contextlib.redirect_stdout(out):
        # The command's own parser: its defaults are the CLI's, whatever options it gains.
        code = run_build(build_parser("build").parse_args(["build", line.strip(), "--lake", lake, "--jobs", "1"]))
    print(json.dumps({"code": code, "output": out.getvalue(), "started": started, "ended": time.time()}), flush=True)
"""
"""A warm process that does what `alpha-results build SEAL --lake LAKE` does (`run_build`: the build,
then the lake's garbage) for each seal path read from stdin: the publish without the interpreter's
start and imports, which would cost seconds per publish on a machine the load already keeps busy."""


class Publisher(threading.Thread):
    """Every `every` seconds, a publish of the republished alpha, A, A, B, B, ... (one at a time:
    when a publish takes longer than `every`, the next starts as soon as it ends)."""

    def __init__(
        self,
        children: SoakChildren,
        work: Path,
        dep: Deployment,
        seals: Seals,
        versions: list[str],
        every: float,
    ) -> None:
        super().__init__(name="publisher", daemon=True)
        self.children, self.work, self.dep, self.every = children, work, dep, every
        self.seals = {versions[0]: seals.first, versions[1]: seals.second}
        self.cycle = [versions[0], versions[0], versions[1], versions[1]]
        self.stop_event = threading.Event()
        self.done: list[Publish] = []
        self.crashed: BaseException | None = None
        with (work / "publisher.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", PUBLISHER, dep.lake],
                cwd=REPO,
                env=dep.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,
            )
        children.adopt(self.proc)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != b"ready":
            raise BenchError(f"the publisher process did not start (see {work / 'publisher.log'})")

    def run(self) -> None:
        try:
            start = time.monotonic()
            n = 0
            while not self.stop_event.wait(max(0.0, start + (n + 1) * self.every - time.monotonic())):
                self.publish(self.cycle[n % len(self.cycle)], n)
                n += 1
        except BaseException as exc:
            self.crashed = exc
        finally:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.children.stop(self.proc)

    def publish(self, version: str, n: int) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{self.seals[version]}\n".encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise BenchError(f"the publisher process died (see {self.work / 'publisher.log'})")
        done = json.loads(line)
        status, build_id = "failed", ""
        for text in done["output"].splitlines():
            parts = text.split()
            if len(parts) >= 4 and parts[1] == REPUBLISHED and parts[2] == "build":
                status, build_id = parts[0], parts[3]
        with (self.work / "publisher.log").open("a") as log:
            log.write(f"publish {n} of version {version}: exit {done['code']}\n{done['output']}")
        self.done.append(Publish(done["started"], done["ended"], version, status, build_id, done["code"]))


class Chaos(threading.Thread):
    """Redis killed with SIGKILL at `at` seconds, restarted (empty) `down` seconds later."""

    def __init__(self, redis: PrivateRedis, at: float, down: float) -> None:
        super().__init__(name="chaos", daemon=True)
        self.redis, self.at, self.down = redis, at, down
        self.stop_event = threading.Event()
        self.killed: float | None = None
        self.restarted: float | None = None
        self.crashed: BaseException | None = None

    def run(self) -> None:
        try:
            if self.stop_event.wait(self.at):
                return
            self.killed = time.time()
            self.redis.kill()
            self.stop_event.wait(self.down)
            self.redis.start()
            self.restarted = time.time()
        except BaseException as exc:
            self.crashed = exc


@dataclass
class Sample:
    t: float
    pid: int
    rss: float  # MiB (VmRSS)
    anon: float  # MiB (RssAnon)


class Monitor(threading.Thread):
    """Once a second: each worker's RSS from /proc, and `/v1/health` on a new connection."""

    def __init__(self, dep: Deployment) -> None:
        super().__init__(name="monitor", daemon=True)
        self.dep = dep
        self.stop_event = threading.Event()
        self.samples: list[Sample] = []
        self.health: list[tuple[float, str, tuple[str, ...], str]] = []
        self.pids: set[int] = set(dep.workers())
        self.crashed: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop_event.wait(1.0):
                self.sample()
        except BaseException as exc:
            self.crashed = exc

    def sample(self) -> None:
        now = time.time()
        for pid in self.dep.workers():
            self.pids.add(pid)
            values = {}
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    name, _, rest = line.partition(":")
                    if name in ("VmRSS", "RssAnon"):
                        values[name] = int(rest.split()[0]) / 1024
            except OSError:
                continue
            self.samples.append(Sample(now, pid, values.get("VmRSS", 0.0), values.get("RssAnon", 0.0)))
        try:
            body = httpx.get(f"{self.dep.server.base_url}/v1/health", timeout=5).json()
            degraded = json.dumps(body.get("lake", {}).get("degraded_alphas", {}), sort_keys=True)
            self.health.append((now, str(body.get("status")), tuple(body.get("down", ())), degraded))
        except (httpx.HTTPError, ValueError) as exc:
            self.health.append((now, f"unanswered: {exc!r}", (), "{}"))


# -- setup -----------------------------------------------------------------------------------------


@dataclass
class Setup:
    dep: Deployment
    keys: Keys
    plan: Plan
    expectations: Expectations
    seals: Seals
    versions: list[str]
    initial: dict[str, str]  # "alpha:<id>" / "benchmark:<symbol>" -> content id
    alphas: list[str]
    aws: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)


def published(output: str) -> dict[str, str]:
    """`alpha-results build` output lines -> {"alpha:<id>" or "benchmark:<symbol>": build id}."""
    builds = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0] in ("published", "unchanged") and parts[2] == "build":
            name = parts[1] if ":" in parts[1] else f"alpha:{parts[1]}"
            builds[name] = parts[3]
    return builds


def content_id_of(seal: Path) -> str:
    return content_id_for(open_seal(str(seal), Storage(str(seal))))


def serves_everywhere(dep: Deployment, keys: Keys, build_id: str, timeout: float = 60.0) -> None:
    """Ten answers in a row, each on a new connection (so from both workers), name `build_id`."""
    deadline = time.monotonic() + timeout
    path = f"/v1/alphas/{REPUBLISHED}/books"
    while True:
        streak = 0
        for _ in range(10):
            response = httpx.get(
                dep.server.base_url + path, headers={"Authorization": keys["admin"].authorization}, timeout=30
            )
            if response.status_code == 200 and response.json()["meta"]["source"].endswith("@" + build_id):
                streak += 1
            else:
                break
        if streak == 10:
            return
        if time.monotonic() > deadline:
            raise BenchError(f"the workers did not all serve build {build_id} within {timeout:.0f} s")
        time.sleep(0.3)


def setup(args: argparse.Namespace, children: Children, work: Path, keystore_url: str, seed: int) -> Setup:
    timings: dict[str, float] = {}
    mark = time.monotonic()

    def lap(name: str) -> None:
        nonlocal mark
        timings[name] = time.monotonic() - mark
        mark = time.monotonic()
        say(f"  {name}: {timings[name]:.1f} s")

    aws = start_moto(children, work)
    bucket = f"soak-{os.urandom(4).hex()}"
    make_bucket(aws, bucket)
    lake = f"s3://{bucket}/lake"
    redis = PrivateRedis(children, work)
    redis.start()
    lap(f"moto S3 at {aws['AWS_ENDPOINT_URL']}, redis-server on port {redis.port}")
    env = {**os.environ, "PYTHONPATH": str(REPO), **aws}
    seals = write_seals(work, env)
    versions = [content_id_of(seals.first), content_id_of(seals.second)]
    lap("demo seals written (small corpus, seed 7; the republished alpha's version B, seed 8)")
    first_builds = published(build(seals.corpus, lake, env))
    initial = {name: content_of(b) for name, b in first_builds.items()}
    lap(f"corpus built into {lake}")
    build(seals.corpus, str(work / "facts-lake"), env)
    lap("corpus built into a local lake (the request generator reads its Parquet)")
    # Reached at about 75% of the run (after the Redis restart) at the admitted rate, min(rate, minute / 60).
    admitted_rate = min(float(args.tight_rate), args.tight_minute / 60)
    per_day = args.per_day or max(20, int(admitted_rate * args.seconds * 0.75))
    tight = RateLimit(
        per_second=args.tight_rate, per_minute=args.tight_minute, per_day=per_day, monthly_requests=100_000
    )
    keys = create_keys(keystore_url, env, tight)
    lap(f"keys created in {keystore_url.rsplit('/', 1)[-1]}")
    dep = serve(children, work, lake=lake, keystore_url=keystore_url, redis=redis, aws=aws)
    lap(f"server up at {dep.server.base_url}, workers {dep.workers()}")
    alphas = sorted(name.split(":", 1)[1] for name in initial if name.startswith("alpha:"))
    plan = make_plan(work / "facts-lake", seed, keys, alphas)
    expectations = Expectations(versions=versions)
    serves_everywhere(dep, keys, first_builds[f"alpha:{REPUBLISHED}"])
    expectations.record(dep.server.port, plan, keys, versions[0], work / "expected-A.jsonl")
    lap(f"{len(expectations.by_index)} answers recorded on version A ({versions[0]})")
    second = published(build([seals.second], lake, env))[f"alpha:{REPUBLISHED}"]
    serves_everywhere(dep, keys, second)
    expectations.record(dep.server.port, plan, keys, versions[1], work / "expected-B.jsonl")
    lap(f"version B ({versions[1]}) published and its answers recorded")
    static = {k: v for k, v in initial.items() if k != f"alpha:{REPUBLISHED}"}
    return Setup(dep, keys, plan, expectations, seals, versions, static, alphas, aws, timings)


# -- the soak --------------------------------------------------------------------------------------


@dataclass
class Outcome:
    tally: Tally
    publishes: list[Publish]
    chaos: Chaos
    monitor: Monitor
    started: float
    ended: float
    crashes: list[str]
    final: dict[str, Any]


def client_specs(plan: Plan, args: argparse.Namespace) -> list[ClientSpec]:
    specs = []
    for n in range(args.admin_clients):
        specs.append(ClientSpec("admin", plan.of("admin"), None, pause=args.pause, reconnect_every=40 + n))
    specs.append(ClientSpec("member", plan.of("member"), None, pause=args.pause))
    for _ in range(2):
        specs.append(ClientSpec(TIGHT, plan.of(TIGHT), args.tight_offered / 2))
    specs.append(ClientSpec(SELF_SERVICE, plan.of(SELF_SERVICE), 0.8))
    specs.append(ClientSpec("hostile", plan.of("hostile"), 20.0))
    return specs


def soak(args: argparse.Namespace, children: SoakChildren, work: Path, s: Setup, seed: int) -> Outcome:
    stop = threading.Event()
    checker = Checker(s.expectations, s.keys, s.aws["AWS_ENDPOINT_URL"], s.initial, work, download=fetch)
    rng = random.Random(seed)
    clients = [
        Client(spec, s.dep.server.port, s.keys, checker, stop, rng.randrange(2**31))
        for spec in client_specs(s.plan, args)
    ]
    monitor = Monitor(s.dep)
    publisher = Publisher(children, work, s.dep, s.seals, s.versions, args.publish_every)
    chaos = Chaos(s.dep.redis, args.seconds * args.redis_kill_at, args.redis_down)
    started = time.time()
    say(
        f"\n== soak: {args.seconds:g} s, {len(clients)} client threads, a publish every {args.publish_every:g} s"
    )
    for thread in [monitor, publisher, chaos, *clients]:
        thread.start()
    deadline = time.monotonic() + args.seconds
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(30.0, left))
        done = sum(sum(c.tally.requests.values()) for c in clients)
        say(f"  +{time.time() - started:5.0f} s  {done:,} requests, {len(publisher.done)} publishes")
    stop.set()
    for thread in (publisher, chaos, monitor):
        thread.stop_event.set()
    for client in clients:
        client.join(60)
    publisher.join(300)
    chaos.join(60)
    monitor.join(30)
    ended = time.time()
    if s.dep.redis.proc is None:  # the restart did not happen (a short run): restore it for the checks
        s.dep.redis.start()
    tally = Tally()
    crashes = []
    for name, crashed in [(c.name, c.crashed) for c in clients] + [
        (publisher.name, publisher.crashed),
        (chaos.name, chaos.crashed),
        (monitor.name, monitor.crashed),
    ]:
        if crashed is not None:
            crashes.append(f"{name}: {crashed!r}")
    for client in clients:
        tally.merge(client.tally)
    final = final_usage(s)
    children.stop(s.dep.server.proc)  # before its key store's database is dropped
    return Outcome(tally, publisher.done, chaos, monitor, started, ended, crashes, final)


def fetch(url: str) -> tuple[int, bytes]:
    response = httpx.get(url, timeout=30)
    return response.status_code, response.content


def final_usage(s: Setup) -> dict[str, Any]:
    """After the load: the tight key's usage as the admin route and `/v1/me` report it."""
    time.sleep(1.2)  # a new second window
    conn = Connection(s.dep.server.port)
    admin = [("Authorization", s.keys["admin"].authorization)]
    tight_key = s.keys[TIGHT]
    usage = conn.send("GET", f"/v1/admin/keys/{tight_key.key_id}/usage", admin)
    me = conn.send("GET", "/v1/me", [("Authorization", tight_key.authorization)])
    conn.close()
    result: dict[str, Any] = {"usage_status": usage.status, "me_status": me.status}
    if usage.status == 200:
        result["usage"] = json.loads(usage.body)["data"]["usage"]
    body = json.loads(me.body)
    if me.status == 200:
        result["me_usage"] = body["data"]["usage"]
    else:
        result["me_code"] = body.get("error", {}).get("code")
    result["me_headers"] = {k: v for k, v in me.headers.items() if k.startswith("x-ratelimit")}
    result["me_t"] = me.t0
    return result


# -- checks ----------------------------------------------------------------------------------------


@dataclass
class Requirement:
    name: str
    ok: bool
    figures: str


def outage_window(o: Outcome) -> tuple[float, float] | None:
    """From the kill to `LIMITER_GRACE` s after health first showed the limiter up again."""
    if o.chaos.killed is None:
        return None
    up = None
    if o.chaos.restarted is not None:
        up = next(
            (t for t, _, down, _ in o.monitor.health if t >= o.chaos.restarted and "limiter" not in down),
            None,
        )
    end = (up if up is not None else o.ended) + LIMITER_GRACE
    return o.chaos.killed, end


LOCAL_ENFORCEMENT = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \w+ serve\.limits\.\S+ \[(\d+)\] rate limiter store "
    r"(unavailable|reachable again)"
)
"""The limiter's own lines when a worker starts and stops enforcing limits locally (its Redis
calls failing: the planned outage, or a call over the client's timeout on a busy machine)."""


def local_windows(log: Path, ended: float) -> list[tuple[float, float, int]]:
    """(start, end, pid) of each stretch a worker enforced limits locally, from the service log
    (times in the server's local time zone, as logging writes them)."""
    windows = []
    since: dict[int, float] = {}
    for line in log.read_text(errors="replace").splitlines():
        match = LOCAL_ENFORCEMENT.match(line)
        if match is None:
            continue
        when = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
        pid = int(match.group(2))
        if match.group(3) == "unavailable":
            since.setdefault(pid, when)
        elif pid in since:
            windows.append((since.pop(pid), when, pid))
    windows += [(start, ended, pid) for pid, start in since.items()]
    return sorted(windows)


def check_5xx(o: Outcome, window: tuple[float, float] | None) -> Requirement:
    t = o.tally
    by_code: Counter[str] = Counter(code for _, code, _, _ in t.s503)
    where: Counter[str] = Counter()
    for when, code, family, _ in t.s503:
        inside = window is not None and window[0] <= when <= window[1]
        where[f"{code} on {family} ({'Redis down' if inside else 'Redis up'})"] += 1
    others = Counter(f"{status} {code} {path}" for _, status, code, path, _ in t.bad_5xx)
    text = f"{len(t.bad_5xx)} other 5xx"
    if others:
        text += " (" + "; ".join(f"{k}: {n}" for k, n in others.most_common(5)) + ")"
    text += f"; 503s: {sum(by_code.values())}"
    if where:
        text += " = " + ", ".join(f"{n} {k}" for k, n in sorted(where.items()))
    return Requirement("0 5xx other than the documented 503s", not t.bad_5xx, text)


def check_answers(o: Outcome) -> Requirement:
    t = o.tally
    missing = sorted(set(ALL_IDS) - set(t.families))
    families = f"{len(t.families)} route families" + (
        f", none of {', '.join(missing)}" if missing else ", all"
    )
    text = (
        f"{t.compared_valid:,} valid answers ({families}) and {t.compared_invalid:,} refusals "
        f"equal to their recorded answers; {len(t.wrong)} wrong; {len(t.transport)} transport errors; "
        f"answers naming version A/B: {'/'.join(str(v) for v in t.versions.values())}"
    )
    if t.downloads:
        text += f"; signed URLs fetched: {t.downloads['ok']} ok, {t.downloads['failed']} failed"
    return Requirement("0 wrong answers", not t.wrong and not t.transport, text)


def check_rss(o: Outcome, warmup: float) -> tuple[Requirement, dict[str, Any]]:
    after = [s for s in o.monitor.samples if s.t >= o.started + warmup]
    figures: dict[str, Any] = {}
    ok = len(o.monitor.pids) == 2
    parts = []
    for n, pid in enumerate(sorted({s.pid for s in after}), 1):
        mine = [s for s in after if s.pid == pid]
        rss = [s.rss for s in mine]
        minutes = [(s.t - o.started) / 60 for s in mine]
        per_min = slope(minutes, rss)
        fitted = per_min * (minutes[-1] - minutes[0])
        growth = statistics.median(rss[-10:]) - statistics.median(rss[:10])
        figures[str(pid)] = {
            "samples": len(rss),
            "first": rss[0],
            "last": rss[-1],
            "max": max(rss),
            "min": min(rss),
            "slope_mib_per_min": per_min,
            "fitted_growth_mib": fitted,
            "median_growth_mib": growth,
            "anon_first": mine[0].anon,
            "anon_last": mine[-1].anon,
        }
        flat = (per_min <= RSS_SLOPE_LIMIT or fitted <= RSS_NOISE) and growth <= RSS_GROWTH_LIMIT
        ok = ok and flat and len(rss) >= 10
        parts.append(
            f"worker {n}: {rss[0]:.1f} -> {rss[-1]:.1f} MiB (max {max(rss):.1f}), slope {per_min:+.2f} MiB/min"
            f" ({fitted:+.1f} MiB over the window; anon {mine[0].anon:.1f} -> {mine[-1].anon:.1f})"
        )
    if len(o.monitor.pids) != 2:
        parts.append(f"worker pids changed during the run: {sorted(o.monitor.pids)}")
    text = f"after {warmup:.0f} s of warm-up: " + "; ".join(parts)
    text += (
        f" (limits: slope <= {RSS_SLOPE_LIMIT:g} MiB/min unless it fits <= {RSS_NOISE:g} MiB over the window;"
        f" last 10 samples' median <= first 10's + {RSS_GROWTH_LIMIT:g} MiB)"
    )
    return Requirement("worker RSS flat after warm-up", ok and bool(parts), text), figures


NOT_COUNTED = frozenset(
    {"endpoint_not_allowed", "account_inactive", "ip_not_allowed", "not_found", "method_not_allowed"}
)


def counted(status: int, code: str | None) -> bool:
    """Whether the limiter counted a request of an identified key (docs/limits.md "Which requests
    count"): not when refused (429), nor when refused before the limiter: authentication (401, a
    key in the query string included), the endpoint allow-list, the router."""
    return status not in (401, 429) and code not in NOT_COUNTED


def check_quota(
    o: Outcome, limits: RateLimit, window: tuple[float, float] | None, local: list[tuple[float, float, int]]
) -> tuple[Requirement, dict[str, Any]]:
    """The tight key, from the client side. A request is admitted when it was not refused (429).
    It was counted by the server at some moment between sending and receiving; only requests
    whose whole round trip lies inside one window are attributed to it, so every count below is
    a lower bound of the server's and any excess is real."""
    sent = o.tally.tight
    admitted = [(t0, t1) for t0, t1, status, code in sent if counted(status, code)]
    refused = Counter(code for _, _, status, code in sent if status == 429)

    # While a worker enforces limits alone, the key may get its rate from each worker: twice the rate.
    outages = ([window] if window is not None else []) + [(a, b + LIMITER_GRACE) for a, b, _ in local]

    def in_outage(t0: float, t1: float) -> bool:
        return any(t1 >= start and t0 <= end for start, end in outages)

    def buckets(size: int) -> Counter[int]:
        counts: Counter[int] = Counter()
        for t0, t1 in admitted:
            if math.floor(t0 / size) == math.floor(t1 / size):
                counts[math.floor(t0 / size)] += 1
        return counts

    problems = []
    seconds = buckets(1)
    outage_seconds = {s for s in seconds if in_outage(s, s + 1)}
    worst_normal = max((n for s, n in seconds.items() if s not in outage_seconds), default=0)
    worst_outage = max((n for s, n in seconds.items() if s in outage_seconds), default=0)
    over = sorted(
        (s, n)
        for s, n in seconds.items()
        if n > limits.per_second * (WORKERS + 1 if s in outage_seconds else 1)
    )
    if over:
        listed = ", ".join(
            f"{fmt_time(sec)} {n}{' (Redis down)' if sec in outage_seconds else ''}" for sec, n in over[:6]
        )
        problems.append(f"{len(over)} seconds above the limit: {listed}")
    minutes = buckets(60)
    outage_minutes = {m for m in minutes if in_outage(m * 60, m * 60 + 60)}
    worst_minute = max((n for m, n in minutes.items() if m not in outage_minutes), default=0)
    worst_minute_outage = max((n for m, n in minutes.items() if m in outage_minutes), default=0)
    minute_over = [(m, n) for m, n in minutes.items() if m not in outage_minutes and n > limits.per_minute]
    if minute_over:
        problems.append(f"{len(minute_over)} minutes above {limits.per_minute}")
    days = buckets(86400)
    worst_day = max(days.values(), default=0)
    # docs/limits.md "Bound": a Redis failure may lose one sync interval plus one second of admissions.
    day_bound = limits.per_day + limits.per_second * (SYNC_SECONDS + 1)
    if worst_day > day_bound:
        problems.append(
            f"{worst_day} admitted in a day, {worst_day - limits.per_day} over the quota of {limits.per_day} "
            f"(docs/limits.md bounds a Redis failure's excess by per_second x (sync + 1 s) = "
            f"{day_bound - limits.per_day})"
        )
    day_reached = refused["rate_limit_day"] > 0
    if not day_reached:
        problems.append("the day quota was never reached")
    # What the server reports at the end.
    today = math.floor(o.final["me_t"] / 86400)
    counted_today = sum(1 for t0, t1 in admitted if math.floor(t1 / 86400) == today)
    month = datetime.fromtimestamp(o.final["me_t"], UTC).strftime("%Y-%m")
    counted_month = sum(1 for _, t1 in admitted if datetime.fromtimestamp(t1, UTC).strftime("%Y-%m") == month)
    usage = o.final.get("usage") or {}
    # The server's count may lack the admissions a Redis failure loses, within the same bound.
    lost = day_bound - limits.per_day

    def agrees(server: Any, client: int) -> bool:
        return isinstance(server, int) and client - lost <= server <= client

    consistent = agrees(usage.get("day"), counted_today) and agrees(usage.get("month"), counted_month)
    me = o.final.get("me_usage")
    if me is not None:
        consistent = consistent and agrees(me.get("day"), counted_today + 1)
    elif o.final.get("me_headers", {}).get("x-ratelimit-window") == "day":
        used = o.final["me_headers"].get("x-ratelimit-used")
        consistent = consistent and agrees(int(used) if used and used.isdigit() else None, counted_today)
    if not consistent:
        problems.append(
            f"usage at the end: server day {usage.get('day')}, month {usage.get('month')} (admin route), "
            f"/v1/me {me.get('day') if me else o.final.get('me_code')}; client counted {counted_today} "
            f"admitted today, {counted_month} this month"
        )
    figures = {
        "sent": len(sent),
        "admitted": len(admitted),
        "refused": dict(refused),
        "worst_second": worst_normal,
        "worst_second_outage": worst_outage,
        "worst_minute": worst_minute,
        "worst_minute_outage": worst_minute_outage,
        "worst_day": worst_day,
        "usage_end": usage,
        "me_end": me if me is not None else o.final.get("me_code"),
        "counted_today": counted_today,
        "over_seconds": [[fmt_time(s), n] for s, n in over[:20]],
    }
    text = (
        f"{limits.per_second}/s, {limits.per_minute}/min, {limits.per_day}/day: {len(sent):,} sent, "
        f"{len(admitted):,} admitted, refused {dict(sorted(refused.items()))}; most in a second "
        f"{worst_normal} (limiter up), {worst_outage} (limiter down: {len(outage_seconds)} s, limit "
        f"{(WORKERS + 1) * limits.per_second}); most in a minute {worst_minute} (not checked in the {len(outage_minutes)} "
        f"minutes an outage touched: {worst_minute_outage}); in the day {worst_day}; usage at the end: day {usage.get('day')} "
        f"(client {counted_today})"
    )
    if problems:
        text += ". FAILED: " + "; ".join(problems)
    return Requirement("no quota exceeded (tight key)", not problems, text), figures


def fmt_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S")


def check_publishes(o: Outcome, expected: int) -> Requirement:
    statuses = Counter(p.status for p in o.publishes)
    durations = [p.ended - p.started for p in o.publishes]
    ok = bool(o.publishes) and all(
        p.exit_code == 0 and p.status in ("published", "unchanged") for p in o.publishes
    )
    ok = ok and len(o.publishes) >= expected - 1
    text = f"{len(o.publishes)} publishes ({dict(statuses)})"
    if durations:
        text += f", {statistics.fmean(durations):.1f} s mean, {max(durations):.1f} s max"
    return Requirement("a publish every 10 s", ok, text)


def check_outage(
    o: Outcome, window: tuple[float, float] | None, local: list[tuple[float, float, int]]
) -> Requirement:
    c = o.chaos
    if c.killed is None or c.restarted is None or window is None:
        return Requirement("Redis killed and restarted mid-run", False, "the restart did not happen")
    down = [t for t, _, parts, _ in o.monitor.health if "limiter" in parts and window[0] <= t <= window[1]]
    seen = (
        f"health showed the limiter down +{down[0] - o.started:.0f}..+{down[-1] - o.started:.0f} s, ok after"
        if down
        else "health never showed the limiter down"
    )
    planned = [w for w in local if w[1] >= window[0] and w[0] <= window[1]]
    blips = [w for w in local if w not in planned]
    text = (
        f"SIGKILL at +{c.killed - o.started:.0f} s, up again at +{c.restarted - o.started:.0f} s; {seen}; "
        f"{len(planned)} worker switches to local limits during it; {len(blips)} more outside it (a Redis call "
        f"that timed out on the busy machine), {sum(b - a for a, b, _ in blips):.1f} s in all"
    )
    return Requirement("Redis killed and restarted mid-run", bool(down), text)


def check_health(
    o: Outcome, window: tuple[float, float] | None, local: list[tuple[float, float, int]]
) -> Requirement:
    """Every `/v1/health` sample ok, but for the limiter while it was down (planned or not)."""
    spans = ([window] if window is not None else []) + [(a, b + LIMITER_GRACE) for a, b, _ in local]
    states: Counter[str] = Counter()
    for t, status, parts, degraded in o.monitor.health:
        limiter_only = parts == ("limiter",) and degraded == "{}"
        if status == "ok" or (limiter_only and any(a - 1 <= t <= b + 1 for a, b in spans)):
            continue
        states[f"{status} (down: {', '.join(parts) or '-'}; degraded alphas: {degraded})"] += 1
    text = f"{len(o.monitor.health)} samples (one a second)"
    if states:
        text += "; " + ", ".join(f"{k} x{n}" for k, n in states.items())
    else:
        text += ": ok, but for the limiter while it was down"
    return Requirement("health ok but for the limiter's outages", not states, text)


# -- the report ------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(
    args: argparse.Namespace,
    s: Setup,
    o: Outcome,
    requirements: list[Requirement],
    seed: int,
    started_at: str,
) -> list[str]:
    t = o.tally
    elapsed = o.ended - o.started
    total = sum(t.requests.values())
    lines = [
        "## Soak (`just soak`)",
        "",
        f"`python -m tests.soak.soak --seconds {args.seconds:g}` on {started_at}, commit {git_revision()}, "
        f"{os.cpu_count()} CPUs (shared machine), seed {seed}. `alpha-results serve --workers 2` over a "
        "PostgreSQL key store (a database of its own on the shared server), a private `redis-server` "
        "(no persistence) and an S3 lake on moto, all on loopback; the small demo corpus built with "
        f"`alpha-results build`; `{REPUBLISHED}` republished every {args.publish_every:g} s (versions A "
        "and B in turn, each a switch then an `unchanged`); Redis killed (SIGKILL) at "
        f"{args.redis_kill_at:.0%} of the run and restarted empty {args.redis_down:g} s later. "
        f"{len(s.plan.requests):,} planned requests, each answer recorded for both versions before the load "
        f"(setup {sum(s.timings.values()):.0f} s).",
        "",
        "| requirement | result | figures |",
        "|---|---|---|",
    ]
    for r in requirements:
        lines.append(f"| {r.name} | {'PASS' if r.ok else 'FAIL'} | {r.figures} |")
    lines += [
        "",
        f"{total:,} requests in {elapsed:.0f} s ({total / elapsed:,.0f} req/s):",
        "",
        "| client group | requests | statuses | p50 ms | p99 ms |",
        "|---|---|---|---|---|",
    ]
    for group in sorted({g for g, _ in t.requests}):
        statuses = {st: n for (g, st), n in sorted(t.requests.items()) if g == group}
        lat = t.latency.get(group, [])
        lines.append(
            f"| {group} | {sum(statuses.values()):,} | "
            + ", ".join(f"{st}: {n:,}" for st, n in statuses.items())
            + f" | {percentile(lat, 0.5) * 1000:.1f} | {percentile(lat, 0.99) * 1000:.1f} |"
        )
    per_pid: Counter[int] = Counter()
    for text in s.dep.server.log.read_text(errors="replace").splitlines():
        if text.startswith("{"):
            try:
                per_pid[int(json.loads(text)["pid"])] += 1
            except (ValueError, KeyError, TypeError):
                continue
    lines += [
        "",
        "Access-log lines per worker: " + ", ".join(f"{n:,}" for _, n in sorted(per_pid.items())) + ".",
    ]
    lines.append("")
    return lines


# -- main ------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="length of the load (default 300)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the requests (default: random)")
    parser.add_argument("--publish-every", type=float, default=10.0, help="seconds between publishes")
    parser.add_argument(
        "--redis-kill-at", type=float, default=0.55, help="fraction of the run (default 0.55)"
    )
    parser.add_argument("--redis-down", type=float, default=8.0, help="seconds Redis stays down (default 8)")
    parser.add_argument(
        "--warmup", type=float, default=None, help="seconds before RSS counts (default 20%%, <= 60)"
    )
    parser.add_argument("--admin-clients", type=int, default=2, help="admin client threads (default 2)")
    parser.add_argument("--pause", type=float, default=0.002, help="pause after each admin/member request")
    parser.add_argument("--tight-rate", type=int, default=5, help="the tight key's per-second limit")
    parser.add_argument("--tight-minute", type=int, default=240, help="the tight key's per-minute limit")
    parser.add_argument(
        "--per-day", type=int, default=None, help="the tight key's day quota (default: reached at ~40%%)"
    )
    parser.add_argument(
        "--tight-offered", type=float, default=24.0, help="requests/s sent with the tight key"
    )
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--out", type=Path, default=REPO / "var" / "soak" / "soak.md")
    parser.add_argument("--setup-limit", type=float, default=900.0, help="seconds allowed besides the load")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs, recorded answers)")
    args = parser.parse_args(argv)
    if args.warmup is None:
        args.warmup = min(60.0, 0.2 * args.seconds)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    started_at = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    work = REPO / "var" / "soak" / f"run-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}"
    work.mkdir(parents=True)
    say(f"soak: work folder {work}, seed {seed}")
    failed = True
    try:
        with bounded_run(args.seconds + args.setup_limit), SoakChildren() as children:
            with private_postgres(args.postgres_url) as keystore_url:
                say("\n== setup")
                s = setup(args, children, work, keystore_url, seed)
                outcome = soak(args, children, work, s, seed)
            window = outage_window(outcome)
            local = local_windows(s.dep.server.log, outcome.ended)
            quota, quota_figures = check_quota(outcome, s.keys.tight_limits, window, local)
            rss, rss_figures = check_rss(outcome, args.warmup)
            requirements = [
                check_5xx(outcome, window),
                check_answers(outcome),
                rss,
                quota,
                check_publishes(outcome, int(args.seconds // args.publish_every)),
                check_outage(outcome, window, local),
                check_health(outcome, window, local),
            ]
            if outcome.crashes:
                requirements.append(
                    Requirement("no thread of the soak crashed", False, "; ".join(outcome.crashes))
                )
    except (BenchError, SetupError, RunTimeLimit) as exc:
        print(f"\nsoak could not run: {exc}", file=sys.stderr)
        print(f"work folder kept: {work}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nsoak interrupted; every process it started was ended; work folder {work}", file=sys.stderr)
        return 130
    lines = report(args, s, outcome, requirements, seed, started_at)
    failed = not all(r.ok for r in requirements)
    text = "\n".join(lines)
    say("\n" + text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    figures = {
        "requirements": [r.__dict__ for r in requirements],
        "rss": rss_figures,
        "quota": quota_figures,
        "final": outcome.final,
        "wrong": outcome.tally.wrong[:200],
        "transport": outcome.tally.transport[:200],
        "publishes": [p.__dict__ for p in outcome.publishes],
        "samples": [s.__dict__ for s in outcome.monitor.samples],
    }
    args.out.with_suffix(".json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
    say(f"written to {args.out} and {args.out.with_suffix('.json')}")
    for r in requirements:
        if not r.ok:
            print(f"FAILED: {r.name}: {r.figures}", file=sys.stderr)
    if failed or args.keep:
        say(f"work folder kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
