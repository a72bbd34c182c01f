"""A Redis server of the test's own, on its own port, that the test may kill, restart or freeze.

Tests of outages never touch the machine's shared Redis (127.0.0.1:6379): they start this one,
without persistence (like the shared one), so a restart loses every counter.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.health_wait import wait_until
from tests.s3_server import free_port


class PrivateRedis:
    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self._folder = folder
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self._folder), "--logfile", ""]
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_connect_timeout=1, socket_timeout=1)
        process = self._process

        def answers() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"private redis-server on port {self.port} ended at start")
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        wait_until(answers, f"private redis-server on port {self.port} answering")
        client.close()

    def kill(self) -> None:
        """SIGKILL: every counter is lost, as in a crash of a Redis without persistence."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None

    def freeze(self) -> None:
        """SIGSTOP: connections are accepted by the kernel and never answered."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self._process is not None
        self._process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self._process is not None:
            self.thaw()
        self.kill()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        from tests.conftest import backend_unavailable  # here: conftest imports this module

        backend_unavailable("redis-server is not installed; the outage tests start their own")
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()
