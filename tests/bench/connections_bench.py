"""`just bench-connections`: hostile connections against `alpha-results serve` with its default
settings (issue 33, items 16 and 19; docs/benchmarks.md "Connections").

    python -m tests.bench.connections_bench [--base /path/to/other/checkout] [--tries 100]
                                            [--hold 512] [--watch 75]

Per server (this tree's, and the base checkout's when given, imported through PYTHONPATH with
this environment's packages, as in `bench-ab`), one worker over an empty lake:

- **Idle connections.** A hostile client holds `--hold` connections, each silent (never sending)
  or kept alive after one health request, and reopens each one the server closes. Meanwhile
  another client (127.0.0.2) asks /v1/health `--tries` times, one new connection each, one try
  every 0.2 s: how many are answered 200. The hostile client connects from one address (then the
  per-peer bound meets it) or from eight (64 connections each, under the bound: only making room
  among idle connections admits the other client).
- **Unread answers.** 20 clients with a 4 KiB receive buffer ask for the Swagger UI bundle
  (1.7 MB, no key) and never read; the server's sockets on its port are sampled from the
  kernel's table (/proc/net/tcp) for `--watch` seconds: how many remain, in which state, with how
  many bytes queued to send.

Everything runs on loopback and ends by itself (each phase is bounded in time).
"""

from __future__ import annotations

import argparse
import http.client
import selectors
import socket
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.bench.harness import REPO, BenchError, Children, bounded_run, git_revision, server_env, start_api

HEALTH = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
BUNDLE = b"GET /static/swagger-ui/5.35.0/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n"
TCP_STATES = {1: "ESTABLISHED", 4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT"}


def status_of(sock: socket.socket) -> int:
    """The status of the one answer on `sock`, read whole; 0 when the connection closed or stalled
    before it."""
    response = http.client.HTTPResponse(sock)
    try:
        response.begin()
        response.read()
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        response.close()  # its file only: the socket stays open
    return response.status


class Hostile:
    """A client holding `count` connections to the server on `port` that ask nothing or,
    `kept_alive`, one health request each and nothing more, reopening each one the server closes
    (from each of `sources` in turn), until it stops or `seconds` pass."""

    def __init__(
        self,
        port: int,
        count: int,
        *,
        kept_alive: bool,
        sources: Sequence[str] = ("127.0.0.1",),
        seconds: float = 300,
    ) -> None:
        self.port, self.count, self.kept_alive, self.sources = port, count, kept_alive, sources
        self.deadline = time.monotonic() + seconds
        self.selector = selectors.DefaultSelector()
        self.held = 0
        self.closed = 0  # connections the server closed (or refused)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def __enter__(self) -> Hostile:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(30)

    def holding(self) -> bool:
        return self.held == self.count

    def open(self, source: str) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=10, source_address=(source, 0))
        except OSError:
            return
        if self.kept_alive:
            try:
                sock.sendall(HEALTH)
            except OSError:
                pass
            if status_of(sock) != 200:
                sock.close()
                self.closed += 1
                return
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ)
        self.held += 1

    def run(self) -> None:
        turn = 0
        while not self.stopping.is_set() and time.monotonic() < self.deadline:
            for _ in range(self.count - self.held):
                self.open(self.sources[turn % len(self.sources)])
                turn += 1
            for key, _ in self.selector.select(0.02):
                self.selector.unregister(key.fileobj)
                key.fileobj.close()  # type: ignore[union-attr]
                self.held -= 1
                self.closed += 1
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


def health_tries(port: int, tries: int, source: str = "127.0.0.2") -> Counter[int]:
    """`tries` health requests, each on a new connection from `source`, one every 0.2 s: the
    statuses (0: closed without an answer)."""
    statuses: Counter[int] = Counter()
    for _ in range(tries):
        try:
            with socket.create_connection(
                ("127.0.0.1", port), timeout=10, source_address=(source, 0)
            ) as sock:
                sock.sendall(HEALTH)
                statuses[status_of(sock)] += 1
        except OSError:
            statuses[0] += 1
        time.sleep(0.2)
    return statuses


def server_sockets(port: int) -> list[tuple[str, int]]:
    """The server's TCP connections on `port` (/proc/net/tcp): (state, bytes queued to send)."""
    found = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        _, local, remote, state, queues, *_ = line.split()
        if int(local.rpartition(":")[2], 16) == port and int(remote.rpartition(":")[2], 16):
            found.append((TCP_STATES.get(int(state, 16), state), int(queues.partition(":")[0], 16)))
    return found


def idle_attack(port: int, args: argparse.Namespace, *, kept_alive: bool, sources: Sequence[str]) -> str:
    with Hostile(
        port, args.hold, kept_alive=kept_alive, sources=sources, seconds=args.tries * 0.5 + 120
    ) as hostile:
        deadline = time.monotonic() + 60
        while not hostile.holding():
            if time.monotonic() > deadline:
                raise BenchError(
                    f"the hostile client holds {hostile.held} of {args.hold} connections after 60 s"
                )
            time.sleep(0.05)
        statuses = health_tries(port, args.tries)
        closed = hostile.closed
    kind = "kept alive after one request" if kept_alive else "silent"
    addresses = "1 address" if len(sources) == 1 else f"{len(sources)} addresses"
    others = ", ".join(
        f"{status or 'closed'}: {n}" for status, n in sorted(statuses.items()) if status != 200
    )
    return f"| {args.hold} {kind}, from {addresses} | {statuses[200]} of {args.tries} | {others or '-'} | {closed} |"


def unread_answers(port: int, watch: float, clients: int = 20) -> list[str]:
    socks = []
    for _ in range(clients):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", port))
        sock.sendall(BUNDLE)
        socks.append(sock)
    started = time.monotonic()
    rows = []
    try:
        for at in (2, 10, 25, 35, 50, 65, watch):
            if at > watch:
                continue
            time.sleep(max(0.0, started + at - time.monotonic()))
            found = server_sockets(port)
            states = Counter(state for state, _ in found)
            queued = sum(queued for _, queued in found)
            rows.append(
                f"| {at:g} s | {len(found)} | {', '.join(f'{s} {n}' for s, n in sorted(states.items())) or '-'} "
                f"| {queued / 1e6:.1f} MB |"
            )
    finally:
        for sock in socks:
            sock.close()
    return rows


@contextmanager
def api(children: Children, work: Path, name: str, base: Path | None) -> Iterator[int]:
    lake = work / f"{name}-lake"
    lake.mkdir()
    env = server_env(str(lake), f"sqlite:///{work}/{name}-keys.sqlite3")
    if base is not None:
        env["PYTHONPATH"] = str(base.resolve())
    server = start_api(children, name, env=env, workers=1, log=work / f"{name}.log")
    try:
        yield server.port
    finally:
        children.stop(server.proc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout to measure too (e.g. main's)")
    parser.add_argument("--tries", type=int, default=100)
    parser.add_argument("--hold", type=int, default=512)
    parser.add_argument("--watch", type=float, default=75)
    args = parser.parse_args(argv)
    servers: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.base is not None:
        servers.insert(0, (f"base {args.base}", args.base))
    print(f"connections-bench: this tree {git_revision()} ({REPO}); default settings, one worker")
    with (
        bounded_run(len(servers) * (4 * (args.tries * 0.5 + 180) + args.watch + 60)),
        Children() as children,
        tempfile.TemporaryDirectory(prefix="connections-bench-") as folder,
    ):
        for number, (name, base) in enumerate(servers):
            print(f"\n### {name}\n")
            print(
                "| hostile connections | another client's /v1/health answered | other outcomes | closed by the server |"
            )
            print("|---|---|---|---|")
            eight = [f"127.0.1.{n}" for n in range(1, 9)]
            for kept_alive, sources in ((False, ["127.0.0.1"]), (False, eight), (True, eight)):
                with api(children, Path(folder), f"s{number}-{kept_alive}-{len(sources)}", base) as port:
                    print(idle_attack(port, args, kept_alive=kept_alive, sources=sources), flush=True)
            print("\n| after | server sockets | states | queued to send |")
            print("|---|---|---|---|")
            with api(children, Path(folder), f"s{number}-unread", base) as port:
                print("\n".join(unread_answers(port, args.watch)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
