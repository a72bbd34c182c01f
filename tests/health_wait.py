"""Waiting for a condition, never for a time (issue 33, item 15).

Every wait of the suite for something to happen (a server or worker to start, a port to answer, a
line to be logged, `/v1/health` to show a change, a call to return) polls the condition itself
and gives up only after `HANG_LIMIT`: a limit that holds on a machine busy with other work (the
suite passes beside two busy loops on two cores), so it only ever catches a hang. A test asserts
what happened, never how long it took.

`/v1/health` in particular: the monitor (serve/health.py) probes in the background every
`REFRESH_SECONDS` (1 s), so a backend that fails or recovers shows there within about one interval
plus one probe deadline (1.5 s) on a quiet machine, never on the very next call: `health_when`.
"""

from __future__ import annotations

import http.client
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

HANG_LIMIT = 180.0
"""Seconds after which a wait fails: a process that has not started, a line not logged, a call not
returned by then is hung, not slow. A worker took 20 s to start beside a single busy loop."""

READY_LINE = re.compile(r"\[(\d+)\] Application startup complete")
"""What each uvicorn worker logs (under `serve.server`, with its pid) once it accepts requests."""


def wait_until(
    condition: Callable[[], Any], what: str, limit: float = HANG_LIMIT, interval: float = 0.05
) -> Any:
    """The first truthy `condition()`; fails naming `what` when `limit` seconds pass first."""
    deadline = time.monotonic() + limit
    while True:
        outcome = condition()
        if outcome:
            return outcome
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {limit:g} s (a hang): {what}")
        time.sleep(interval)


def returns(call: Callable[[], T], what: str = "the call", limit: float = HANG_LIMIT) -> T:
    """`call()`'s result (or its exception), run in a thread so that a call that never returns
    fails the test after `limit` seconds instead of hanging the suite."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        raise AssertionError(f"{what} did not return within {limit:g} s (a hang)")
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


def health_answers(port: int) -> bool:
    """Whether `GET /v1/health` on 127.0.0.1:`port` answers 200 (ok or degraded)."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request("GET", "/v1/health")
            response = connection.getresponse()
            response.read()
            return response.status == 200
        finally:
            connection.close()
    except OSError:
        return False


def workers_ready(lines: Iterable[str], workers: int) -> bool:
    """Whether `workers` distinct worker processes logged their ready line in `lines`."""
    return len({match.group(1) for line in list(lines) if (match := READY_LINE.search(line))}) >= workers


def wait_for_start(
    process: subprocess.Popen[Any],
    ready: Callable[[], bool],
    output: Callable[[], str],
    what: str = "the server",
    limit: float = HANG_LIMIT,
) -> None:
    """Waits until `ready()`; fails at once, with the process's `output()`, when the process ends
    first, and after `limit` seconds when it neither ends nor gets ready (a hang)."""
    deadline = time.monotonic() + limit
    while not ready():
        if process.poll() is not None:
            raise AssertionError(f"{what} ended before it was ready:\n{output()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} was not ready within {limit:g} s (a hang):\n{output()}")
        time.sleep(0.1)


def health_when(
    get: Callable[[], Any], until: Callable[[dict[str, Any]], bool], timeout: float = HANG_LIMIT
) -> dict[str, Any]:
    """The first `/v1/health` body (from `get()`, a response) for which `until(body)` holds.

    Every answer on the way must be 200; fails with the last body when `timeout` passes.
    """
    deadline = time.monotonic() + timeout
    while True:
        response = get()
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if until(body):
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"health did not reach the expected state within {timeout:.1f} s: {body}")
        time.sleep(0.05)


def is_ok(body: dict[str, Any]) -> bool:
    return body["status"] == "ok"


def down_is(*parts: str) -> Callable[[dict[str, Any]], bool]:
    """`until` for: degraded with exactly `parts` down."""
    return lambda body: body["status"] == "degraded" and body.get("down") == list(parts)
