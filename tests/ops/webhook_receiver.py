"""A webhook receiver for the delivery tests: a real HTTP server on 127.0.0.1 in a thread, which
records every request (path, headers, body) and answers as the test plans, and the signature checks
a receiver would run, written here independently of `delivery.webhooks` (the `v1` signatures of
Standard Webhooks are checked by its reference library, `standardwebhooks`, in the tests)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

Answer = int | str | tuple[int, dict[str, str]]
"""An HTTP status to answer with (alone, or with headers to send: `(503, {"Retry-After": "7"})`), `hang` (answer 200 only once released: longer than the worker's
timeout), `hold` (the same, and say that a request is held: the test kills the worker then) or
`stall-head` (send the status line `200 OK`, then drip a header a byte at a time, never ending the
head, until released or the worker closes the connection)."""


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes

    @property
    def event_id(self) -> str:
        return self.headers["alpha-results-event-id"]

    @property
    def event(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed


def signature_valid(secret: str, header: str, body: bytes, now: float | None = None) -> bool:
    """The deprecated `Alpha-Results-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." +
    body, keyed by the secret>` (one `v1=` per secret that signs, any may match), the timestamp
    within five minutes of now: what docs/events.md tells a receiver to check."""
    fields = [part.split("=", 1) for part in header.split(",")]
    (timestamp,) = [value for name, value in fields if name == "t"]
    expected = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    fresh = abs((now or time.time()) - int(timestamp)) <= 300
    matched = [hmac.compare_digest(expected.hexdigest(), value) for name, value in fields if name == "v1"]
    return fresh and any(matched)


def ed25519_valid(public: str, headers: dict[str, str], body: bytes) -> bool:
    """A `v1a` signature by `public` over `"{id}.{timestamp}." + body`, per the specification."""
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public.removeprefix("whpk_")))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    for entry in headers["webhook-signature"].split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1a":
            try:
                key.verify(base64.b64decode(signature), signed)
                return True
            except InvalidSignature:
                pass
    return False


class Receiver:
    def __init__(self) -> None:
        self.received: list[Received] = []
        self.plan: deque[Answer] = deque()
        self.default: Answer = 200
        self.paths: dict[str, Answer] = {}
        """How a path is always answered (before the plan and the default)."""
        self._changed = threading.Condition()
        self._released = threading.Event()
        self.holding = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with receiver._changed:
                    receiver.received.append(
                        Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    if self.path in receiver.paths:
                        answer = receiver.paths[self.path]
                    else:
                        answer = receiver.plan.popleft() if receiver.plan else receiver.default
                    if answer == "hold":
                        receiver.holding += 1
                    receiver._changed.notify_all()
                if answer == "stall-head":
                    self.stall_head(receiver._released)
                    return
                if answer in ("hang", "hold"):
                    receiver._released.wait(60)
                    answer = 200
                status, extra = answer if isinstance(answer, tuple) else (answer, {})
                assert isinstance(status, int)
                try:
                    self.send_response(status)
                    for name, value in extra.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the worker was killed or gave up waiting

            def stall_head(self, released: threading.Event) -> None:
                # Each byte answers one read of the worker's, so its socket timeout never fires:
                # only its deadline on the whole head ends the wait.
                try:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Drip: ")
                    while not released.wait(0.05):
                        self.wfile.write(b"a")
                except OSError:
                    pass  # the worker gave up and closed the connection
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self._server.server_port}{path}"

    def release(self) -> None:
        """Answer the held and hanging requests (200), and hold the next ones planned again."""
        self._released.set()
        self._released = threading.Event()

    def wait_for(self, condition: Callable[[Receiver], bool], what: str, timeout: float = 60.0) -> None:
        """Wait until `condition(self)` holds (checked at every request), else fail saying `what`."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}; received {self.summary()}")
                self._changed.wait(min(left, 0.5))

    def on(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]

    def summary(self) -> list[tuple[str, str, str]]:
        return [
            (r.path, r.headers.get("alpha-results-event-type", ""), r.event_id[:8]) for r in self.received
        ]

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def receiving() -> Iterator[Receiver]:
    receiver = Receiver()
    try:
        yield receiver
    finally:
        receiver.close()
