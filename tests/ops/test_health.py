"""`/v1/health` answers from the health monitor's state (serve/health.py): no backend is touched
per call, a change is logged once, degraded lake alphas are named, and recovery is reported."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.settings import Settings
from datasets.reader import LakeHealth, LakeReader
from serve.app import create_app
from serve.health import REFRESH_SECONDS, HealthMonitor
from tests.health_wait import down_is, health_when, is_ok, returns, wait_until
from tests.ops.conftest import fake_authenticate


class Backend:
    """A key store or limiter whose `ping` is counted and fails while `down` is set."""

    in_process = False  # a network backend: the app runs its guards in a worker thread

    def __init__(self) -> None:
        self.pings = 0
        self.down = False
        self._lock = threading.Lock()

    def ping(self) -> None:
        with self._lock:
            self.pings += 1
        if self.down:
            raise ConnectionError("backend at 10.0.0.1:6379 is down")

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"health must only ping; it used {name}")


class Lake:
    """Stands in for `LakeReader.health()`: the lake's state as the reader knows it (no I/O)."""

    def __init__(self) -> None:
        self.calls = 0
        self.state = LakeHealth(down=False, alphas={})

    def __call__(self) -> LakeHealth:
        self.calls += 1
        return self.state


@pytest.fixture
def world(demo_lake: Path) -> Iterator[dict[str, Any]]:
    store, limiter, lake = Backend(), Backend(), Lake()
    reader = LakeReader(str(demo_lake), 1.0)
    reader.health = lake  # type: ignore[method-assign]
    app = create_app(
        Settings(lake=str(demo_lake), environment="test"),
        authenticate=fake_authenticate,
        store=store,
        limiter=limiter,
        reader=reader,
    )
    with TestClient(app=app) as client:
        yield {"client": client, "store": store, "limiter": limiter, "lake": lake}


def get_health(client: TestClient[Any]) -> Any:
    return client.get("/v1/health")


def test_health_calls_touch_no_backend(world: dict[str, Any]) -> None:
    client, store, limiter, lake = world["client"], world["store"], world["limiter"], world["lake"]
    assert store.pings >= 1 and limiter.pings >= 1 and lake.calls >= 1  # probed once at startup
    before = (store.pings, limiter.pings, lake.calls)
    started = time.monotonic()
    for _ in range(50):
        response = get_health(client)
        assert response.status_code == 200 and response.json()["status"] == "ok"
    elapsed = time.monotonic() - started
    # Only the monitor's own refreshes, at most one per interval, whatever the number of calls.
    refreshes = int(elapsed / REFRESH_SECONDS) + 1
    assert store.pings - before[0] <= refreshes, (store.pings, before, elapsed)
    assert limiter.pings - before[1] <= refreshes
    assert lake.calls - before[2] <= refreshes


def test_a_change_is_logged_once_and_recovery_is_reported(
    world: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    client, limiter = world["client"], world["limiter"]
    with caplog.at_level(logging.INFO, logger="serve.health"):
        limiter.down = True
        health_when(lambda: get_health(client), down_is("limiter"))
        for _ in range(30):  # many calls, and more than one refresh, while it stays down
            assert get_health(client).json()["down"] == ["limiter"]
        probed = limiter.pings
        wait_until(lambda: limiter.pings >= probed + 2, "two more probes of the limiter")
        assert get_health(client).json()["down"] == ["limiter"]
        limiter.down = False
        body = health_when(lambda: get_health(client), is_ok)
    assert "down" not in body and "lake" not in body
    records = [r for r in caplog.records if r.name == "serve.health"]
    assert [(r.levelname, r.getMessage()) for r in records] == [
        ("WARNING", "health: limiter is down (ConnectionError)"),
        ("INFO", "health: limiter is up again"),
    ]
    assert all(r.exc_info is None for r in records)
    assert "10.0.0.1" not in caplog.text  # the failure's message (which may carry an address) is not logged


def test_degraded_lake_alphas_are_named_until_repaired(
    world: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    client, lake = world["client"], world["lake"]
    with caplog.at_level(logging.INFO, logger="serve.health"):
        lake.state = LakeHealth(down=False, alphas={"momentum_12_1": "missing_file"})
        body = health_when(lambda: get_health(client), lambda body: "lake" in body)
        assert body["status"] == "degraded" and body["down"] == []
        assert body["lake"] == {"degraded_alphas": {"momentum_12_1": "missing_file"}}
        for _ in range(20):
            assert get_health(client).json()["lake"] == body["lake"]

        lake.state = LakeHealth(down=False, alphas={"momentum_12_1": "missing_file", "Test_x": "bad_hash"})
        body = health_when(
            lambda: get_health(client), lambda body: len(body.get("lake", {}).get("degraded_alphas", {})) == 2
        )
        assert body["lake"]["degraded_alphas"] == {"Test_x": "bad_hash", "momentum_12_1": "missing_file"}

        lake.state = LakeHealth(down=True, alphas={})
        body = health_when(lambda: get_health(client), down_is("lake"))
        assert "lake" not in body

        lake.state = LakeHealth(down=False, alphas={})
        body = health_when(lambda: get_health(client), is_ok)
    assert set(body) == {"status", "service", "environment", "version", "registry_version", "time"}
    messages = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "serve.health"]
    assert messages == [
        ("WARNING", "health: lake alphas degraded: momentum_12_1 (missing_file)"),
        ("WARNING", "health: lake alphas degraded: Test_x (bad_hash), momentum_12_1 (missing_file)"),
        ("WARNING", "health: lake is down (the lake cannot be read)"),
        ("INFO", "health: no lake alpha is degraded any more"),  # the same refresh
        ("INFO", "health: lake is up again"),
    ]


def test_a_hung_probe_is_down_within_the_deadline_and_not_started_again() -> None:
    """A probe that never returns (until the test lets it) makes its part down once the deadline
    passes: the refresh returns while the probe still hangs, and does not start a second one."""
    release = threading.Event()
    started = []

    class Hangs:
        def ping(self) -> None:
            started.append(1)
            release.wait()

    class Reader:
        def health(self) -> LakeHealth:
            return LakeHealth(down=False, alphas={})

    monitor = HealthMonitor(reader=Reader(), store=Hangs(), limiter=None, interval=0.05, deadline=0.2)
    try:
        assert returns(monitor.refresh, "a refresh with a hung probe").down == ("keystore",)
        assert not release.is_set()  # returned while the probe still hangs: the deadline, not the probe
        assert returns(monitor.refresh, "a second refresh").down == ("keystore",)
        assert len(started) == 1  # the first probe still runs: no second thread waits on the store
        release.set()
        # The probe returns now; a later refresh sees the store up.
        wait_until(lambda: monitor.refresh().down == (), "a refresh after the probe returned")
    finally:
        release.set()
        monitor.stop()
