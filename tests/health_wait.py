"""Waiting for `/v1/health` to show a change: the monitor (serve/health.py) probes in the
background every `REFRESH_SECONDS`, so a backend that fails or recovers shows there within about
one interval plus one probe deadline, never on the very next call."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from serve.health import PROBE_DEADLINE_SECONDS, REFRESH_SECONDS

SETTLE_SECONDS = 2 * (REFRESH_SECONDS + PROBE_DEADLINE_SECONDS) + 1
"""Long enough for two refreshes whose probes all run into the deadline."""


def health_when(
    get: Callable[[], Any], until: Callable[[dict[str, Any]], bool], timeout: float = SETTLE_SECONDS
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
