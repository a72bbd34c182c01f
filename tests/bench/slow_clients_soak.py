"""`just soak-slow-clients`: the slow-client attacks of issue 48 against `alpha-results serve` at its
default settings, beside normal traffic (docs/benchmarks.md "Slow clients").

    python -m tests.bench.slow_clients_soak [--bodies 1000] [--streams 1000] [--seconds 20]
                                            [--lake DIR] [--heads-from 4,64] [--heads-seconds 30]
                                            [--only-heads]

First, issue 60's attack without a key: 128 unfinished request heads (`GET /v1/health HTTP/1.1`
and one header, never ended) from each of 4, then 64, loopback addresses, each in a /24 of its own
(127.0.1.2, 127.0.2.2, ...), each head reopened as soon as the server closes it (its head timeout,
or closed to make room for another client), for `--heads-seconds`, beside the two bystanders below:
every bystander request must be answered 200.

One worker over `--lake` (var/lake, else the small demo corpus built once into var/bench-mcp, as
`bench-mcp` does) and a key store of its own. One member key attacks, from eight loopback
addresses in turn, for `--seconds`:

- **Stalled bodies.** `--bodies` connections, each a `POST /mcp` head announcing 100 bytes of body
  and one byte of it, then nothing: the issue's attack. Each is held until the server answers it
  (429 at once beyond the key's cap, 408 at the body's deadline) or closes it.
- **Stream attempts.** `--streams` `GET /v1/events/stream` of the same key; the streams the server
  opens are kept (read) to the end, a refused attempt's connection is closed once answered.

Both start their attempts at an even pace over `--seconds`, at most 512 of each unanswered at
once (a worker's places), and wait at most 60 s more for the answers due. Meanwhile a bystander (another address, no key) asks
`/v1/health` and a normal key (another account) asks a 100-row week page, each on a new
connection every 0.1 s, from before the attacks start until every attempt was answered: each must
be answered 200. The server's connections on its port are sampled from the kernel's table
(/proc/net/tcp). Exit 1 when a bystander request was not answered 200.

Bounded: the counts above, every wait, and the whole run (`--seconds` + 300 s); every address is
in 127.0.0.0/8 and the server listens on 127.0.0.1 only. The settings are the server's defaults,
or what `ALPHA_RESULTS_*` variables of the soak's own environment say (to measure without a cap).
"""

from __future__ import annotations

import argparse
import ipaddress
import selectors
import socket
import statistics
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from access import RateLimit, open_store
from records.store import open_records
from tests.bench.harness import REPO, BenchError, Children, bounded_run, git_revision, server_env, start_api
from tests.bench.mcp_bench import lake_of
from tests.ops.keys import IssuedKey, issue_key

ATTACKERS = [f"127.0.0.{n}" for n in range(2, 10)]
BYSTANDER, NORMAL = "127.0.0.20", "127.0.0.21"
IN_FLIGHT = 512
"""Attempts of one attack unanswered at once: a worker's places, the issue's four addresses x 128."""
ANSWER_WAIT = 60.0
"""How long after its last attempt started an attack waits for the answers still due (a body's
deadline is 10 s): what is left then is counted as never answered."""
UNTHROTTLED = RateLimit(per_second=100_000, per_minute=1_000_000, per_day=10_000_000, monthly_requests=None)
"""The attacker's limits: the rate limits are not what this soak measures."""
TCP_ESTABLISHED = "01"


def loopback_only(*addresses: str) -> None:
    """The soak targets this machine alone: every address it uses is in 127.0.0.0/8."""
    loopback = ipaddress.ip_network("127.0.0.0/8")
    for address in addresses:
        if ipaddress.ip_address(address) not in loopback:
            raise BenchError(f"{address} is not a loopback address")


def head_status(data: bytes) -> int | None:
    """The status of the answer whose head `data` begins with, once the status line is whole."""
    line, found, _ = data.partition(b"\r\n")
    return int(line.split(b" ")[1]) if found else None


@dataclass
class Attempt:
    sock: socket.socket
    data: bytes = b""


def answered(attempt: Attempt) -> int | None:
    """Read what the server sent on the attempt's connection: the answer's status once its status
    line is whole, 0 when the server closed it first, None while neither."""
    try:
        chunk = attempt.sock.recv(65536)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        chunk = b""
    attempt.data += chunk
    return head_status(attempt.data) if chunk else 0


@dataclass
class Attack:
    """`total` attempts of `request` on new connections from the attackers' addresses, at an even
    pace over `seconds`, at most `IN_FLIGHT` unanswered at once. An attempt is done when the server
    answers it (its status line) or closes it (0); an answered `keep` status stays open, read until
    the attack is stopped."""

    name: str
    port: int
    request: bytes
    total: int
    seconds: float
    keep: int | None = None
    outcomes: Counter[int] = field(default_factory=Counter)
    kept: list[socket.socket] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.thread = threading.Thread(target=self.run, name=self.name, daemon=True)
        self.started = self.finished = 0.0

    def open(self, number: int) -> None:
        try:
            sock = socket.create_connection(
                ("127.0.0.1", self.port), timeout=10, source_address=(ATTACKERS[number % len(ATTACKERS)], 0)
            )
            sock.sendall(self.request)
        except OSError:
            self.outcomes[0] += 1  # refused at once (a reset): no place for it
            return
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, Attempt(sock))

    def read(self, attempt: Attempt) -> None:
        status = answered(attempt)
        if status is None:
            return
        self.outcomes[status] += 1
        self.selector.unregister(attempt.sock)
        if status == self.keep:
            self.kept.append(attempt.sock)
        else:
            attempt.sock.close()

    def run(self) -> None:
        self.started = time.monotonic()
        opened = 0
        give_up = self.started + self.seconds + ANSWER_WAIT
        while sum(self.outcomes.values()) < self.total and time.monotonic() < give_up:
            due = min(self.total, int((time.monotonic() - self.started) / self.seconds * self.total) + 1)
            while opened < due and len(self.selector.get_map()) < IN_FLIGHT:
                self.open(opened)
                opened += 1
            for key, _ in self.selector.select(0.05):
                self.read(key.data)
        self.finished = time.monotonic()
        for key in list(self.selector.get_map().values()):
            self.outcomes[-1] += 1  # never answered: the server still holds it
            self.kept.append(key.fileobj)  # type: ignore[arg-type]
            self.selector.unregister(key.fileobj)
        while not self.stop.wait(0.5):
            for sock in list(self.kept):  # drain the kept streams' heartbeats
                try:
                    sock.setblocking(False)
                    while sock.recv(65536):
                        pass
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    self.kept.remove(sock)
        for sock in self.kept:
            sock.close()
        self.selector.close()


UNFINISHED_HEAD = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
"""A request head begun and never finished (issue 60, finding 1)."""


def head_addresses(count: int) -> list[str]:
    """`count` loopback addresses, each in a /24 of its own (127.0.1.2, 127.0.2.2, ...; all of
    127.0.0.0/8 is local on Linux)."""
    return [f"127.{1 + i // 250}.{1 + i % 250}.2" for i in range(count)]


@dataclass
class Heads:
    """Up to `per_address` unfinished heads from each of `addresses`, each reopened as soon as the
    server closes it (its head timeout, or closed to make room), until stopped: the attack of issue
    60's finding 1 (128 from each of four addresses filled a worker's 512 places)."""

    port: int
    addresses: list[str]
    per_address: int = 128
    opened: int = 0
    closed: Counter[int] = field(default_factory=Counter)  # by the status answered before the close
    held_peak: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.held: Counter[str] = Counter()
        self.thread = threading.Thread(target=self.run, name="heads", daemon=True)

    def open(self, source: str) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5, source_address=(source, 0))
            sock.sendall(UNFINISHED_HEAD)
        except OSError:
            self.closed[0] += 1
            return
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, (source, Attempt(sock)))
        self.held[source] += 1
        self.opened += 1

    def run(self) -> None:
        while not self.stop.is_set():
            for source in self.addresses:
                while self.held[source] < self.per_address and not self.stop.is_set():
                    self.open(source)
            self.held_peak = max(self.held_peak, sum(self.held.values()))
            for key, _ in self.selector.select(0.02):
                source, attempt = key.data
                status = answered(attempt)
                if status is None:
                    continue
                self.selector.unregister(attempt.sock)
                attempt.sock.close()
                self.held[source] -= 1
                self.closed[status] += 1
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


@dataclass
class Bystander:
    """Requests for `path` on a new connection each from `source` every 0.1 s until stopped: their
    statuses and wall times."""

    port: int
    path: str
    source: str
    headers: dict[str, str]
    statuses: Counter[int] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        transport = httpx.HTTPTransport(local_address=self.source, retries=0)
        with httpx.Client(transport=transport, timeout=30, headers=self.headers) as client:
            while not self.stop.wait(0.1):
                started = time.monotonic()
                try:
                    status = client.get(
                        f"http://127.0.0.1:{self.port}{self.path}", headers={"Connection": "close"}
                    ).status_code
                except httpx.HTTPError:
                    status = 0
                self.seconds.append(time.monotonic() - started)
                self.statuses[status] += 1

    def row(self, what: str) -> str:
        ms = sorted(s * 1000 for s in self.seconds)
        p99 = ms[max(0, int(len(ms) * 0.99) - 1)]
        others = ", ".join(f"{s or 'no answer'}: {n}" for s, n in sorted(self.statuses.items()) if s != 200)
        return (
            f"| {what} | {sum(self.statuses.values())} | {self.statuses[200]} | {others or '-'} "
            f"| {statistics.median(ms):.1f} / {p99:.1f} / {ms[-1]:.1f} |"
        )


def run_heads(
    port: int, alpha_id: str, week: str, normal: IssuedKey, counts: list[int], seconds: float
) -> list[tuple[str, int]]:
    """The unfinished-heads attack from each of `counts` addresses for `seconds`, beside the two
    bystanders: a table row per bystander and run, with the requests not answered 200."""
    rows = []
    for count in counts:
        heads = Heads(port, head_addresses(count))
        bystanders = [
            Bystander(port, "/v1/health", BYSTANDER, {}),
            Bystander(port, f"/v1/alphas/{alpha_id}/rebalances/{week}?limit=100", NORMAL, normal.headers),
        ]
        heads.thread.start()
        time.sleep(min(5.0, seconds / 3))  # the heads in place before the bystanders ask
        for bystander in bystanders:
            bystander.thread.start()
        time.sleep(seconds)
        stopping: list[Bystander | Heads] = [*bystanders, heads]
        for each in stopping:
            each.stop.set()
            each.thread.join(60)
        closed = ", ".join(f"{s or 'no answer'}: {n}" for s, n in sorted(heads.closed.items()))
        for bystander, what in zip(
            bystanders, ("`/v1/health`, no key", "week page, 100 rows, a key"), strict=True
        ):
            bad = sum(n for s, n in bystander.statuses.items() if s != 200)
            cells = bystander.row(what).strip("|").split("|")
            rows.append(
                (
                    f"| {count} addresses, each its own /24 | {heads.opened} | {closed or '-'} | {heads.held_peak} |{'|'.join(cells)}|",
                    bad,
                )
            )
    return rows


def established(port: int) -> int:
    """The server's established connections on `port` (/proc/net/tcp)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        _, local, remote, state, *_ = line.split()
        if state == TCP_ESTABLISHED and int(local.rpartition(":")[2], 16) == port and remote:
            count += 1
    return count


def keys(keystore_url: str) -> tuple[IssuedKey, IssuedKey]:
    """The attacker's key and a normal key, members of two accounts."""
    open_records(keystore_url).close()  # the event tables and the cursors' secret, as a build makes them
    store = open_store(keystore_url)
    try:
        return issue_key(store, rate_limit=UNTHROTTLED), issue_key(store)
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=1000)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument(
        "--heads-from",
        default="4,64",
        help="the unfinished-heads attack (issue 60) from this many addresses, one run each (4,64; empty: none)",
    )
    parser.add_argument("--heads-seconds", type=float, default=30, help="each heads run's length (30)")
    parser.add_argument("--only-heads", action="store_true", help="skip the bodies' and streams' attacks")
    args = parser.parse_args(argv)
    head_counts = [int(n) for n in args.heads_from.split(",") if n.strip()]
    loopback_only(*ATTACKERS, BYSTANDER, NORMAL, *head_addresses(max(head_counts, default=0)))
    lake = lake_of(args.lake)
    print(f"soak-slow-clients: {git_revision()}; one worker, default settings, lake {lake}")
    with (
        bounded_run(args.seconds + ANSWER_WAIT + 300),
        Children() as children,
        tempfile.TemporaryDirectory(prefix="slow-clients-soak-") as folder,
    ):
        work = Path(folder)
        keystore = f"sqlite:///{work}/keys.sqlite3"
        attacker, normal = keys(keystore)
        env = server_env(lake, keystore)
        server = start_api(children, "api", env=env, workers=1, log=work / "api.log")
        alpha = httpx.get(f"{server.base_url}/v1/alphas", headers=normal.headers, timeout=60).json()["data"][
            0
        ]
        alpha_id = alpha["alpha_id"]
        weeks = httpx.get(
            f"{server.base_url}/v1/alphas/{alpha_id}/rebalances", headers=normal.headers, timeout=60
        )
        week = weeks.json()["data"][-1]["date"]
        bystanders = [
            Bystander(server.port, "/v1/health", BYSTANDER, {}),
            Bystander(
                server.port, f"/v1/alphas/{alpha_id}/rebalances/{week}?limit=100", NORMAL, normal.headers
            ),
        ]
        auth = f"Authorization: Bearer {attacker.token}\r\n"
        body_head = (
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"
        ).encode()
        stream_head = ("GET /v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "\r\n").encode()
        heads_rows = run_heads(server.port, alpha_id, week, normal, head_counts, args.heads_seconds)
        attacks = (
            []
            if args.only_heads
            else [
                Attack("stalled bodies", server.port, body_head, args.bodies, args.seconds),
                Attack("stream attempts", server.port, stream_head, args.streams, args.seconds, keep=200),
            ]
        )
        for bystander in bystanders:
            bystander.thread.start()
        time.sleep(2)  # the bystanders' figures before the attacks
        for attack in attacks:
            attack.thread.start()
        peak = 0
        while attacks and any(attack.finished == 0 for attack in attacks):
            peak = max(peak, established(server.port))
            time.sleep(0.25)
        ending: list[Bystander | Attack] = [*bystanders, *attacks]
        for each in ending:
            each.stop.set()
            each.thread.join(60)
        print(f"\n| attack (one key, {len(ATTACKERS)} addresses) | attempts | outcomes | done after |")
        print("|---|---|---|---|")
        for attack in attacks:
            named = {-1: "no answer", 0: "closed"}
            outcomes = ", ".join(f"{named.get(s, s)}: {n}" for s, n in sorted(attack.outcomes.items()))
            print(
                f"| {attack.name} | {attack.total} | {outcomes} | {attack.finished - attack.started:.1f} s |"
            )
        print(f"\nserver connections established, peak of samples every 0.25 s: {peak}")
        print("\n| bystander (new connection every 0.1 s) | requests | 200 | other | ms p50 / p99 / max |")
        print("|---|---|---|---|---|")
        print(bystanders[0].row("`/v1/health`, no key"))
        print(bystanders[1].row(f"week page `{alpha_id}` {week}, 100 rows, another account's key"))
        failed = sum(n for b in bystanders for s, n in b.statuses.items() if s != 200)
        print(
            "\n| unfinished heads (128 per address, reopened as closed) | heads opened | closed by the server (answer: count) | held at most | bystander | requests | 200 | other | ms p50 / p99 / max |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for row, bad in heads_rows:
            print(row)
            failed += bad
    if failed:
        print(f"\nFAILED: {failed} bystander requests not answered 200")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
