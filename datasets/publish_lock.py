"""One publish of an alpha at a time, and a publish's intent until the catalogue has it (issue 64).

    {root}/publishing/{alpha_id}.json    {"alpha_id", "build_id", "token", "state", "started_at", "expires_at"}

A publish creates its alpha's file exclusively (a link on a local folder, a conditional PUT on
S3) before it reads the build it replaces, renews it while it writes, marks it `switched` once
the alpha's pointer names its build, and deletes it once the catalogue index has committed that
build. So:

- **a second publish of the alpha at the same time** finds the file and stops at once, before
  writing anything (`PublishBusy`: the command says it lost the race and exits 3), instead of both
  printing "published" while the catalogue indexes one of them;
- **a publish killed between its pointer switch and the catalogue commit** leaves a file that
  expires: the next publish of any alpha, `alpha-results lake gc` and `lake index` find it
  (`interrupted`, one listing of this folder: what is in flight, never the catalogue) and finish it,
  committing the build its pointer names (`switched`), or drop it when the pointer was never
  switched (the folder it wrote is garbage for `lake gc`). The catalogue (what the API and
  the current-builds view serve) and the pointer then name the same build again.

An expired file is broken by the next publish of that alpha: the holder stopped renewing it
(killed), so nothing it does can race the new one except a pointer switch it was about to make,
which the new publish reads after taking the lock.
"""

from __future__ import annotations

import json
import math
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from alpha_results_seal.storage import Storage
from datasets import clock, layout

PUBLISHING_DIR = "publishing"
LOCK_SECONDS = layout.PUBLISH_LEASE_SECONDS
"""How long an intent holds after its last renewal (renewed every third of it)."""


def publishing_dir(root: str) -> str:
    return layout.join(root, PUBLISHING_DIR)


def intent_path(root: str, alpha_id: str) -> str:
    return layout.join(publishing_dir(root), f"{layout.check_alpha_id(alpha_id)}.json")


BENCHMARKS_DIR = "benchmarks"
"""A benchmark's lock lives a folder below the alphas' (`publishing/benchmarks/{symbol}.json`), which
`interrupted` never lists: a benchmark's publish switches its pointer and commits its generation
under the lock, with no catalogue step after it for anyone to finish."""


def benchmark_intent_path(root: str, symbol: str) -> str:
    layout.benchmark_dir(root, symbol)  # refuses a symbol outside the rule its folder's name keeps
    return layout.join(publishing_dir(root), BENCHMARKS_DIR, f"{symbol}.json")


@dataclass(frozen=True)
class Intent:
    alpha_id: str
    build_id: str
    token: str
    state: str  # writing | switched
    started_at: str
    expires_at: float
    host: str = ""  # the holder's host name and process id: its liveness, checked on this host
    pid: int = 0

    def document(self) -> dict[str, Any]:
        return {
            "alpha_id": self.alpha_id,
            "build_id": self.build_id,
            "token": self.token,
            "state": self.state,
            "started_at": self.started_at,
            "expires_at": self.expires_at,
            "host": self.host,
            "pid": self.pid,
        }

    @staticmethod
    def parse(payload: bytes) -> Intent | None:
        try:
            found = json.loads(payload)
            return Intent(
                str(found["alpha_id"]),
                str(found["build_id"]),
                str(found["token"]),
                str(found["state"]),
                str(found["started_at"]),
                float(found["expires_at"]),
                str(found.get("host", "")),  # an intent written before issue 81 names no holder
                int(found.get("pid", 0)),
            )
        except (ValueError, KeyError, TypeError):
            return None


def holder_alive(intent: Intent) -> bool | None:
    """Whether the process holding `intent` still runs: checked when it runs on this host (its pid,
    signal 0), None when it cannot be told (another host, or an intent that names no holder)."""
    if not intent.pid or intent.host != socket.gethostname():
        return None
    try:
        os.kill(intent.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it runs, as another user
    return True


class PublishBusy(Exception):
    """Another publish of the alpha holds its lock: this one lost the race and wrote nothing."""

    def __init__(self, holder: Intent | None) -> None:
        self.holder = holder
        if holder is None:
            message = "another publish of this alpha is running"
        else:
            left = max(0, math.ceil(holder.expires_at - time.time()))
            who = f"build {holder.build_id}, started {holder.started_at}"
            if holder_alive(holder):
                message = f"another publish of this alpha is running ({who}; pid {holder.pid} on this host)"
            else:
                where = "another host" if holder.pid else "a holder this lock does not name"
                message = (
                    f"another publish of this alpha holds its lock ({who}, on {where}: possibly dead); "
                    f"its lease expires within {left} s unless it is renewed: run again then"
                )
        super().__init__(message)


def read_intent(storage: Storage, path: str) -> Intent | None:
    try:
        return Intent.parse(storage.read_bytes(path))
    except (FileNotFoundError, OSError):
        return None


class Held:
    """The lock of one publish, renewed from a daemon thread while it is held."""

    def __init__(self, storage: Storage, path: str, intent: Intent) -> None:
        self._storage, self._path, self.intent = storage, path, intent
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._renew, name=f"publish-{intent.alpha_id}", daemon=True)
        self._thread.start()

    def _write(self) -> None:
        with self._lock:
            self.intent = Intent(**{**self.intent.document(), "expires_at": time.time() + LOCK_SECONDS})
            self._storage.replace_atomically(self._path, json.dumps(self.intent.document()).encode())

    def _renew(self) -> None:
        while not self._stop.wait(LOCK_SECONDS / 3):
            self._write()

    def switched(self) -> None:
        """The pointer names this publish's build: until the catalogue commits it, a reader that
        finds this intent expired finishes the commit."""
        with self._lock:
            self.intent = Intent(**{**self.intent.document(), "state": "switched"})
        self._write()

    def release(self) -> None:
        self._stop.set()
        self._thread.join()
        current = read_intent(self._storage, self._path)
        if current is not None and current.token == self.intent.token:
            self._storage.delete_file(self._path)

    def abandon(self) -> None:
        """Stop renewing without deleting (a publish that raised after its switch: the next reader
        finishes it once the intent expires)."""
        self._stop.set()
        self._thread.join()


@contextmanager
def hold(
    storage: Storage, root: str, alpha_id: str, build_id: str, path: str | None = None
) -> Iterator[Held]:
    """Holds the alpha's publish lock while the block runs; `PublishBusy` when another publish
    holds it. An exception after `switched()` leaves the intent to expire (and be finished), so a
    crash and an error end alike; otherwise the intent is deleted on the way out. `path`: another
    lock than the alpha's (a benchmark's, `benchmark_intent_path`)."""
    path = intent_path(root, alpha_id) if path is None else path
    intent = Intent(
        alpha_id,
        build_id,
        uuid.uuid4().hex,
        "writing",
        clock.now().isoformat(timespec="seconds"),
        time.time() + LOCK_SECONDS,
        socket.gethostname(),
        os.getpid(),
    )
    payload = json.dumps(intent.document()).encode()
    try:
        storage.create_exclusive(path, payload)
    except FileExistsError:
        holder = read_intent(storage, path)
        if holder is not None and holder.expires_at > time.time() and holder_alive(holder) is not False:
            raise PublishBusy(holder) from None
        # Expired, held by a process of this host that no longer runs (its publisher was killed:
        # it can renew nothing, nor switch a pointer), or unreadable: break it, once.
        again = read_intent(storage, path)
        if again is not None and holder is not None and again.token != holder.token:
            raise PublishBusy(again) from None
        storage.delete_file(path)
        try:
            storage.create_exclusive(path, payload)
        except FileExistsError:
            raise PublishBusy(read_intent(storage, path)) from None
    held = Held(storage, path, intent)
    try:
        yield held
    except BaseException:
        if held.intent.state == "switched":
            held.abandon()
        else:
            held.release()
        raise
    held.release()


def interrupted(storage: Storage, root: str, now: float | None = None) -> list[Intent]:
    """The intents whose publish stopped renewing them or whose process no longer runs on this host
    (killed), oldest first: each to finish."""
    now = time.time() if now is None else now
    found = []
    folder = publishing_dir(root)
    for name in storage.list_names(folder):
        if not name.endswith(".json") or name.startswith("."):
            continue
        intent = read_intent(storage, layout.join(folder, name))
        if intent is not None and (intent.expires_at <= now or holder_alive(intent) is False):
            found.append(intent)
    return sorted(found, key=lambda i: i.started_at)


def clear(storage: Storage, root: str, intent: Intent) -> None:
    """Deletes `intent` once finished, unless a new publish took the alpha's lock meanwhile."""
    path = intent_path(root, intent.alpha_id)
    current = read_intent(storage, path)
    if current is not None and current.token == intent.token:
        storage.delete_file(path)
