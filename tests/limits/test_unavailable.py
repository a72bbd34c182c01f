"""A Redis that is down or silent fails fast with LimiterUnavailable, never hangs."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from serve.limits import Limiter, LimiterUnavailable, Limits, open_limiter

ENVELOPE = Limits(per_second=5, per_minute=60, per_day=5000, monthly_requests=100000)
NOW = datetime(2030, 1, 1, tzinfo=UTC)


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP port that accepts connections (kernel backlog) but never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    listener.close()


def operations(limiter: Limiter) -> dict[str, object]:
    return {
        "hit": lambda: limiter.hit("k", ENVELOPE, NOW),
        "usage": lambda: limiter.usage("k", ENVELOPE, NOW),
        "ping": limiter.ping,
    }


@pytest.mark.parametrize("operation", ["hit", "usage", "ping"])
def test_closed_port_raises_limiter_unavailable_quickly(operation: str) -> None:
    limiter = open_limiter("redis://:secret-password@127.0.0.1:1/0")
    started = time.monotonic()
    with pytest.raises(LimiterUnavailable) as caught:
        operations(limiter)[operation]()  # type: ignore[operator]
    assert time.monotonic() - started < 1.0
    assert "127.0.0.1:1" in str(caught.value)
    assert "secret-password" not in str(caught.value)


@pytest.mark.parametrize("operation", ["hit", "usage", "ping"])
def test_silent_server_times_out_within_a_second(silent_server: str, operation: str) -> None:
    limiter = open_limiter(silent_server)
    started = time.monotonic()
    with pytest.raises(LimiterUnavailable):
        operations(limiter)[operation]()  # type: ignore[operator]
    elapsed = time.monotonic() - started
    assert 0.2 <= elapsed < 1.0  # waited for the 0.25 s read timeout, and no longer
