"""How long a suspension takes to reach every worker of a served deployment (`just bench-load`'s
shared section; access/cache.py).

One keep-alive connection is held to each worker (which worker answered a connection is read from
its access line, by `X-Request-ID`). Each trial caches an active key in both workers, sends the
UPDATE that suspends it (autocommit: it commits when it returns), then polls both connections
back to back until each answers `key_suspended`: the trial's figure is the time from sending the
UPDATE to the last worker's first refusal (so it includes the commit's round trip, and a poll's
own time at most). The key is then reactivated and cached again for the next trial.
"""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

from tests.bench.harness import BenchError, Server

REFUSAL_LIMIT_SECONDS = 5.0
"""A worker that still admits the key this long after the UPDATE fails the trial (and the run)."""


@dataclass(frozen=True)
class Latencies:
    dropped: list[float]
    """Milliseconds per trial, UPDATE sent to the slower worker's notification line."""
    refused: list[float]
    """Milliseconds per trial, UPDATE sent to the slower worker's first refusal at the client."""
    round_trip: list[float]
    """Milliseconds of the `/v1/me` round trips that check the key is served before each trial:
    what a poll itself takes meanwhile (under load, mostly queueing behind other requests)."""

    @staticmethod
    def _summary(values: list[float]) -> str:
        ms = sorted(values)
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
        return f"median {statistics.median(ms):.1f}, p90 {p90:.1f}, max {ms[-1]:.1f} ms"

    def summary(self) -> str:
        return (
            f"dropped {self._summary(self.dropped)}; refused at the client {self._summary(self.refused)}, "
            f"where a `/v1/me` round trip took a median {statistics.median(self.round_trip):.1f} ms "
            f"({len(self.dropped)} trials)"
        )


class InvalidationProbe:
    """A key of its own in the deployment's PostgreSQL store, and a connection to each worker."""

    def __init__(self, server: Server, keystore_url: str, workers: int) -> None:
        import psycopg

        from access import RateLimit, open_store

        store = open_store(keystore_url)
        try:
            account = store.create_account(f"invalidation-{uuid.uuid4().hex[:10]}@example.com")
            unthrottled = RateLimit(10**9, 10**9, 10**9, None)
            key, self._token = store.create_key(account.user_id, "invalidation", rate_limit=unthrottled)
        finally:
            store.close()
        self.key_id = key.key_id
        self._server = server
        self._writer = psycopg.connect(keystore_url, autocommit=True)
        self._connections = self._one_per_worker(workers)

    def close(self) -> None:
        self._writer.close()
        for connection in self._connections:
            connection.close()

    def _ask(self, connection: http.client.HTTPConnection) -> tuple[int, str, str]:
        """(status, error code or "", request id) of one `/v1/me`."""
        connection.request("GET", "/v1/me", headers={"Authorization": f"Bearer {self._token}"})
        response = connection.getresponse()
        body = response.read()
        code = "" if response.status == 200 else json.loads(body)["error"]["code"]
        return response.status, code, response.getheader("x-request-id") or ""

    def _pid_of(self, request_id: str) -> int:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for text in self._server.log.read_text(errors="replace").splitlines():
                if request_id in text and text.startswith("{"):
                    return int(json.loads(text)["pid"])
            time.sleep(0.05)
        raise BenchError(f"no access line for request {request_id}")

    def _one_per_worker(self, workers: int) -> list[http.client.HTTPConnection]:
        kept: dict[int, http.client.HTTPConnection] = {}
        for _ in range(20 * workers):
            connection = http.client.HTTPConnection("127.0.0.1", self._server.port, timeout=30)
            status, code, request_id = self._ask(connection)
            if status != 200:
                raise BenchError(f"the invalidation key was refused: {status} {code}")
            pid = self._pid_of(request_id)
            if pid in kept:
                connection.close()
            else:
                kept[pid] = connection
            if len(kept) == workers:
                return list(kept.values())
        raise BenchError(f"80 connections reached {len(kept)} of {workers} workers")

    def _set_status(self, status: str) -> None:
        self._writer.execute("UPDATE api_keys SET status = %s WHERE key_id = %s", (status, self.key_id))

    def _until(
        self, connection: http.client.HTTPConnection, wanted: str, since: float, out: list[float]
    ) -> None:
        while time.perf_counter() - since < REFUSAL_LIMIT_SECONDS:
            _, code, _ = self._ask(connection)
            if code == wanted:
                out.append(time.perf_counter() - since)
                return

    def _dropped(self, since_wall: float) -> float:
        """Seconds from `since_wall` to the later of the workers' lines of this key's change."""
        marker = f"identity cache: key:{self.key_id} changed"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            first: dict[str, float] = {}
            for text in self._server.log.read_text(errors="replace").splitlines():
                if marker in text:
                    # "2026-11-26 01:41:39,007 INFO access [20894] identity cache: ..."
                    stamp = datetime.strptime(text[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()
                    pid = text.split("[", 1)[1].split("]", 1)[0]
                    if stamp >= since_wall - 0.002 and pid not in first:  # ms stamps: round down
                        first[pid] = stamp
            if len(first) == len(self._connections):
                return max(0.0, max(first.values()) - since_wall)
            time.sleep(0.05)
        raise BenchError("a worker logged no line of the key's change")

    def trial(self) -> tuple[float, float, list[float]]:
        """Seconds from the suspending UPDATE to the slower worker's drop, and to its first refusal;
        the seconds of the round trips before it."""
        trips = []
        for connection in self._connections:  # cached (active) in every worker
            asked = time.perf_counter()
            if self._ask(connection)[0] != 200:
                raise BenchError("the invalidation key is not served before a trial")
            trips.append(time.perf_counter() - asked)
        seen: list[float] = []
        started_wall = time.time()
        started = time.perf_counter()
        self._set_status("suspended")
        pollers = [
            threading.Thread(target=self._until, args=(connection, "key_suspended", started, seen))
            for connection in self._connections
        ]
        for poller in pollers:
            poller.start()
        for poller in pollers:
            poller.join()
        if len(seen) != len(self._connections):
            raise BenchError(f"a worker still admitted a suspended key {REFUSAL_LIMIT_SECONDS:g} s later")
        dropped = self._dropped(started_wall)
        self._set_status("active")
        back: list[float] = []
        for connection in self._connections:
            self._until(connection, "", time.perf_counter(), back)
        if len(back) != len(self._connections):
            raise BenchError("a worker still refused a reactivated key")
        return dropped, max(seen), trips

    def run(self, trials: int) -> Latencies:
        results = [self.trial() for _ in range(trials)]
        return Latencies(
            [d * 1000 for d, _, _ in results],
            [r * 1000 for _, r, _ in results],
            [t * 1000 for _, _, trips in results for t in trips],
        )
