"""What `bench-load` and `bench-scale` share: child processes that are always ended, servers on
free ports, a bench admin key made with the operator CLI, wrk runs, worker memory.

Every child is started in its own session (process group) and registered in `Children`; leaving
`Children` (normally, on Ctrl-C, SIGTERM, SIGHUP or the run's time limit) ends each group with
SIGTERM, then SIGKILL after a grace period. Nothing else is ever signalled.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

REPO = Path(__file__).resolve().parents[2]
# A key with this envelope is never throttled by a benchmark (the CLI refuses 0 and "none").
UNTHROTTLED = ("--per-second", "1000000000", "--per-minute", "1000000000", "--per-day", "1000000000")


class BenchError(RuntimeError):
    """A benchmark could not measure what it set out to (not a missed target)."""


class RunTimeLimit(BaseException):
    """The run's own time limit expired (BaseException, so no `except Exception` swallows it)."""


# -- run-time bounds -------------------------------------------------------------------------


@contextlib.contextmanager
def bounded_run(seconds: float) -> Iterator[None]:
    """SIGTERM and SIGHUP leave like Ctrl-C (through every `finally`); SIGALRM ends the run."""

    def leave(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    def expire(signum: int, frame: FrameType | None) -> None:
        raise RunTimeLimit(f"the run exceeded its time limit of {seconds:.0f} s")

    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGALRM)}
    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGHUP, leave)
    signal.signal(signal.SIGALRM, expire)
    signal.alarm(max(1, int(seconds)))
    try:
        yield
    finally:
        signal.alarm(0)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# -- child processes -------------------------------------------------------------------------


class Children:
    """The processes this run started; `stop_all` (or leaving the `with`) ends every one."""

    def __init__(self) -> None:
        self._running: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Children:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_all()

    def start(
        self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, log: Path | None = None
    ) -> subprocess.Popen[bytes]:
        out: Any = subprocess.DEVNULL
        if log is not None:
            out = log.open("ab")
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=REPO,
                env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            if log is not None:
                out.close()
        self._running.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
        """SIGTERM to the child's process group (it and its workers), SIGKILL after `grace` s."""
        if proc in self._running:
            self._running.remove(proc)
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(grace)
        # Workers may outlive a parent that exited. While any member of the group lives, its id
        # cannot have been reused by another group, so this only ever reaches what we started.
        if _group_members(proc.pid):
            _signal_group(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)

    def stop_all(self) -> None:
        for proc in reversed(list(self._running)):
            self.stop(proc)


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[2]) == pgid:
                members.append(int(entry.name))
    return members


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def run_checked(argv: Sequence[str], *, env: Mapping[str, str], timeout: float) -> str:
    """A short command's stdout; its output is shown when it fails."""
    done = subprocess.run(
        list(argv), cwd=REPO, env=dict(env), capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise BenchError(
            f"{' '.join(argv[:4])} ... exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return done.stdout


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli() -> list[str]:
    """The `alpha-results` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("alpha-results")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli.main"]


def cli_of(checkout: Path) -> list[str]:
    """Another checkout's command line, run from its own modules (PYTHONPATH): its `cli` package,
    or `serve.cli` in the commits before the command line had a package of its own."""
    module = "cli.main" if (checkout / "cli" / "main.py").exists() else "serve.cli"
    return [sys.executable, "-P", "-m", module]  # -P: not this tree from the working directory


# -- servers ---------------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def start_server(
    children: Children,
    name: str,
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    port: int,
    ready_path: str,
    log: Path,
    timeout: float = 90.0,
) -> Server:
    """Start a server and wait until it answers HTTP on `ready_path` (any status)."""
    server = Server(name, children.start(argv, env=env, log=log), port, log)
    deadline = time.monotonic() + timeout
    while True:
        if server.proc.poll() is not None:
            raise BenchError(f"{name} exited with {server.proc.returncode}:\n{server.log_tail()}")
        try:
            httpx.get(server.base_url + ready_path, timeout=2.0)
            return server
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise BenchError(
                    f"{name} did not answer within {timeout:.0f} s:\n{server.log_tail()}"
                ) from None
            time.sleep(0.2)


def bench_env() -> dict[str, str]:
    """This environment, importing the project from the tree this benchmark lives in (ahead of
    whatever the virtualenv's editable install points at)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def server_env(lake: str, keystore_url: str, limiter_url: str = "memory://") -> dict[str, str]:
    env = bench_env()
    env.update(
        ALPHA_RESULTS_LAKE=lake,
        ALPHA_RESULTS_KEYSTORE_URL=keystore_url,
        ALPHA_RESULTS_LIMITER_URL=limiter_url,
    )
    return env


def start_api(
    children: Children,
    name: str,
    *,
    env: Mapping[str, str],
    workers: int,
    log: Path,
    command: list[str] | None = None,
) -> Server:
    """`alpha-results serve` (or `command`, another checkout's) on a free port."""
    port = free_port()
    argv = [
        *(command or cli()),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    return start_server(children, name, argv, env=env, port=port, ready_path="/v1/health", log=log)


def start_floor(
    children: Children, name: str, *, env: Mapping[str, str], workers: int, log: Path, kind: str = "litestar"
) -> Server:
    """The constant-JSON floor (`tests/bench/floor_app.py`): `litestar` (a Litestar route under
    uvicorn with the real server's options), `asgi` (a bare ASGI callable, same uvicorn) or
    `granian` (the bare callable under granian)."""
    from tests.bench.floor_app import FLOOR_PATH

    port = free_port()
    argv = [sys.executable, "-m", "tests.bench.floor_app", "--port", str(port), "--workers", str(workers)]
    argv += ["--kind", kind]
    return start_server(children, name, argv, env=env, port=port, ready_path=FLOOR_PATH, log=log)


# -- the bench key ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchKey:
    token: str
    key_id: str
    email: str


def create_admin_key(keystore_url: str, env: Mapping[str, str]) -> BenchKey:
    """An admin account and a key that reads every alpha, never throttled, via the operator CLI."""
    email = f"bench-{uuid.uuid4().hex[:10]}@example.com"
    store = ["--keystore", keystore_url]
    base = cli()
    run_checked(
        [*base, "accounts", "create", "--email", email, "--role", "admin", *store], env=env, timeout=60
    )
    created = json.loads(
        run_checked(
            [*base, "keys", "create", "--user", email, "--name", "bench", "--json", *store],
            env=env,
            timeout=60,
        )
    )
    key_id = str(created["key_id"])
    grant = ["--endpoints", "all", "--alphas", "all", "--runs", "all"]
    run_checked([*base, "keys", "grant", key_id, *grant, *store], env=env, timeout=60)
    limits = [*UNTHROTTLED, "--monthly", "unlimited"]
    run_checked([*base, "keys", "set-limits", key_id, *limits, *store], env=env, timeout=60)
    return BenchKey(token=str(created["token"]), key_id=key_id, email=email)


# -- wrk -------------------------------------------------------------------------------------

WRK_SCRIPT = """\
-- One random path per request from the file named by the first script argument; the run's
-- figures as one JSON line at the end (read by tests/bench/harness.py).
local paths = {}

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  -- Each thread has its own Lua state: seed it from the clock and that state's address.
  local address = tonumber(string.match(tostring(paths), "0x(%x+)") or "0", 16) or 0
  math.randomseed(os.time() + address % 1000003)
end

function request()
  return wrk.format("GET", paths[math.random(#paths)])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, "read": %d, ' ..
    '"write": %d, "status": %d, "timeout": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
"""


def export_bench_main(
    argv: list[str] | None,
    doc: str,
    module: str,
    measure: Callable[[Server, BenchKey, Path, argparse.Namespace], list[str]],
    urls: str,
) -> int:
    """A bench over `start_export_server` (exports, Delta Sharing), run whole: its options (the
    lake, the alpha, the runs per path, `--out`), the server in a work folder removed afterwards,
    `measure(server, key, work, args)`'s table under a line saying when, where and what (`urls`:
    which signed URLs the files come through), printed and written to `--out`. 2 when it could not
    measure."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"), help="lake root (default var/lake)")
    parser.add_argument("--alpha", default="momentum_12_1", help="alpha to read (default momentum_12_1)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per path (default 5)")
    parser.add_argument("--out", type=Path, help="also write the report (markdown) here")
    args = parser.parse_args(argv)
    args.lake = str(Path(args.lake).resolve())
    name = module.rsplit(".", 1)[-1].removesuffix("_bench").replace("_", "-")
    work = Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))
    try:
        with Children() as children:
            server, key = start_export_server(children, work, args.lake)
            started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
            table = measure(server, key, work, args)
    except BenchError as exc:
        print(f"bench-{name} could not measure: {exc}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = [
        f"`python -m {module} --runs {args.runs}` on {started}, commit {git_revision()}, "
        f"{os.cpu_count()} CPUs (shared machine), alpha `{args.alpha}`, one uvicorn worker, loopback, "
        f"local lake ({urls}).",
        "",
        *table,
    ]
    text = "\n".join(report)
    print("\n" + text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 0


def start_export_server(children: Children, work: Path, lake: str) -> tuple[Server, BenchKey]:
    """One `alpha-results serve` worker over `lake` that signs export URLs (a signing key and a
    public base URL of its own, a fetch limit of 100: a bench's runs within one second share a URL,
    signed per key and second), and an admin key with raw-book access (the decision set with its
    raw fields): what the export and Delta Sharing benches read through."""
    keystore = f"sqlite:///{work / 'keys.sqlite3'}"
    env = server_env(lake, keystore)
    key = create_admin_key(keystore, env)
    raw = [*cli(), "keys", "set-raw-book", key.key_id, "on", "--keystore", keystore]
    run_checked(raw, env=env, timeout=60)
    port = free_port()
    signing_key = work / "signing.key"
    signing_key.write_bytes(os.urandom(32))
    env.update(
        ALPHA_RESULTS_PUBLIC_BASE_URL=f"http://127.0.0.1:{port}",
        ALPHA_RESULTS_SIGNING_KEY_FILE=str(signing_key),
        ALPHA_RESULTS_DOWNLOAD_FETCH_LIMIT="100",
    )
    argv_serve = [*cli(), "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"]
    server = start_server(
        children, "api", argv_serve, env=env, port=port, ready_path="/v1/health", log=work / "api.log"
    )
    return server, key


@dataclass(frozen=True)
class WrkResult:
    requests: int
    seconds: float
    non_2xx: int
    socket_errors: int
    p50_ms: float
    p90_ms: float
    p99_ms: float

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def clean(self) -> bool:
        return self.requests > 0 and self.non_2xx == 0 and self.socket_errors == 0

    def problems(self) -> str:
        return "" if self.clean else f"{self.non_2xx} non-2xx, {self.socket_errors} socket errors"


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if not found:
        raise BenchError("wrk is not installed: apt-get update && apt-get install -y wrk")
    return found


class Wrk:
    """wrk runs against one server with a path list per family."""

    def __init__(self, children: Children, work: Path, *, threads: int, timeout_s: float = 10.0) -> None:
        self._children = children
        self._binary = ensure_wrk()
        self._script = work / "random_path.lua"
        self._script.write_text(WRK_SCRIPT)
        self._threads = threads
        self._timeout_s = timeout_s
        self._work = work

    def start(
        self,
        base_url: str,
        paths_file: Path,
        *,
        token: str | None,
        connections: int,
        seconds: float,
        threads: int | None = None,
    ) -> tuple[subprocess.Popen[bytes], Path]:
        threads = max(1, min(threads or self._threads, connections))
        argv = [self._binary, "-t", str(threads), "-c", str(connections), "-d", f"{seconds:g}s"]
        argv += ["--latency", "--timeout", f"{self._timeout_s:g}s", "-s", str(self._script)]
        if token is not None:
            argv += ["-H", f"Authorization: Bearer {token}"]
        argv += [base_url, "--", str(paths_file)]
        out = self._work / f"wrk-{uuid.uuid4().hex[:8]}.out"
        return self._children.start(argv, log=out), out

    def finish(self, proc: subprocess.Popen[bytes], out: Path, seconds: float) -> WrkResult:
        try:
            proc.wait(seconds + 30)
        except subprocess.TimeoutExpired:
            raise BenchError(f"wrk did not end within {seconds + 30:.0f} s") from None
        finally:
            self._children.stop(proc)
        text = out.read_text(errors="replace")
        for line in text.splitlines():
            if line.startswith("WRK_RESULT "):
                r = json.loads(line.removeprefix("WRK_RESULT "))
                return WrkResult(
                    requests=r["requests"],
                    seconds=r["duration_us"] / 1e6,
                    non_2xx=r["status"],
                    socket_errors=r["connect"] + r["read"] + r["write"] + r["timeout"],
                    p50_ms=r["p50_us"] / 1000,
                    p90_ms=r["p90_us"] / 1000,
                    p99_ms=r["p99_us"] / 1000,
                )
        raise BenchError(f"wrk printed no result (exit {proc.returncode}):\n{text[-2000:]}")

    def run(
        self,
        base_url: str,
        paths_file: Path,
        *,
        token: str | None,
        connections: int,
        seconds: float,
        threads: int | None = None,
    ) -> WrkResult:
        proc, out = self.start(
            base_url, paths_file, token=token, connections=connections, seconds=seconds, threads=threads
        )
        return self.finish(proc, out, seconds)


def check_paths(base_url: str, paths: Sequence[str], token: str | None, sample: int = 4) -> None:
    """The first `sample` paths answer 200 (a wrong path would measure an error page)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
        for path in paths[:sample]:
            response = client.get(path)
            if response.status_code != 200:
                raise BenchError(f"GET {path} answered {response.status_code}: {response.text[:500]}")


# -- worker memory ---------------------------------------------------------------------------


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the command name (which may hold spaces) start after the last ')'.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


def worker_pids(parent: int) -> list[int]:
    """uvicorn's worker processes (its multiprocessing children, not the resource tracker); the
    parent itself when it serves alone."""
    workers = []
    for pid in children_of(parent):
        try:
            cmdline = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"resource_tracker" not in cmdline:
            workers.append(pid)
    return workers or [parent]


def memory_mib(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of one process in MiB, from /proc/<pid>/status and smaps_rollup."""
    rss = pss = 0.0
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    for line in (Path("/proc") / str(pid) / "smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            pss = int(line.split()[1]) / 1024
    return rss, pss


def git_revision() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    if not head:
        return "unknown (not a git checkout)"
    return f"{head}{' (modified)' if dirty else ''}"


# -- private shared backends -------------------------------------------------------------


@contextlib.contextmanager
def private_postgres(admin_url: str) -> Iterator[str]:
    """A database of our own on the shared server (unique name), dropped on the way out."""
    import psycopg
    from psycopg import sql

    name = f"ar_bench_{os.getpid()}_{os.urandom(4).hex()}"
    try:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as exc:
        raise BenchError(f"cannot create a PostgreSQL database at {admin_url}: {exc}") from exc
    try:
        yield urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        print(f"  dropped PostgreSQL database {name}", flush=True)


@contextlib.contextmanager
def private_redis(base_url: str) -> Iterator[tuple[str, list[str]]]:
    """An empty Redis database number (1..14; 0 is the default and the tests use 15). Yields its URL
    and a list to which the caller adds the key ids whose counters are deleted on the way out."""
    import redis

    chosen = None
    for number in range(1, 15):
        client = redis.Redis.from_url(f"{base_url.rstrip('/')}/{number}", socket_timeout=5)
        try:
            if client.dbsize() == 0:
                chosen = number
                break
        except redis.RedisError as exc:
            raise BenchError(f"cannot reach Redis at {base_url}: {exc}") from exc
        finally:
            client.close()
    if chosen is None:
        raise BenchError(f"no empty Redis database among 1..14 at {base_url}")
    url = f"{base_url.rstrip('/')}/{chosen}"
    key_ids: list[str] = []
    try:
        yield url, key_ids
    finally:
        client = redis.Redis.from_url(url, socket_timeout=5)
        removed = 0
        for key_id in key_ids:
            for name in client.scan_iter(match=f"*{key_id}*", count=1000):
                removed += int(client.delete(name))
        client.close()
        print(f"  removed {removed} limiter counters of the bench key from {url}", flush=True)


def p95(values: Sequence[float]) -> float:
    """The 95th percentile of `values` as the route benchmarks report it (the value at 0.95 n)."""
    return sorted(values)[int(0.95 * len(values))]


def route_report(result: dict[str, Any], failed: Sequence[Any], out: Path | None) -> int:
    """A route benchmark's ending: its result printed (and written to `out`) as JSON, a BenchError
    naming the first non-2xx answer, else the exit status of `result["pass"]`."""
    text = json.dumps(result, indent=2)
    print(text)
    if out:
        out.write_text(text + "\n")
    if failed:
        raise BenchError(f"{len(failed)} non-2xx answers, first: {failed[0]}")
    return 0 if result["pass"] else 1
