"""The real `alpha-results serve` process: two workers answer keep-alive requests without a
Nagle stall, and health answers from its monitor while the key store file is missing."""

from __future__ import annotations

import http.client
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.test_server import free_port

pytestmark = pytest.mark.e2e


@contextmanager
def serving(
    lake: Path, keystore_url: str, workers: int, env: dict[str, str] | None = None
) -> Iterator[tuple[int, list[str]]]:
    """`alpha-results serve --workers N` on a free port; yields (port, its output lines).

    The output is read as it is written: the server writes an access line per request, and a pipe
    nobody reads fills at 64 KiB (about 300 requests), after which the server blocks on its next
    line and answers nothing. `env` adds settings (`ALPHA_RESULTS_*`) to the server's environment.
    """
    port = free_port()
    settings = {"ALPHA_RESULTS_KEYSTORE_URL": keystore_url, "ALPHA_RESULTS_ENVIRONMENT": "e2e", **(env or {})}
    command = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--lake", str(lake)]
    command += ["--workers", str(workers)]
    process = subprocess.Popen(
        command, env={**os.environ, **settings}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    reader = threading.Thread(
        target=lambda: output.extend(line.rstrip("\n") for line in process.stdout or ())
    )
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                connection.request("GET", "/v1/health")
                if connection.getresponse().status == 200:
                    connection.close()
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                reader.join(15)
                pytest.fail("server did not start:\n" + "\n".join(output))
            time.sleep(0.2)
        yield port, output
    finally:
        process.terminate()
        process.wait(timeout=15)
        reader.join(15)


def test_two_workers_answer_keep_alive_requests_without_a_nagle_stall(
    demo_lake: Path, tmp_path: Path
) -> None:
    """Not a speed benchmark: a functional check of the Nagle fault. Without TCP_NODELAY on the
    accepted socket each keep-alive response waited for the client's delayed ACK (~40 ms); with it
    a health round trip takes about a millisecond. 20 ms leaves room for a loaded test machine."""
    with serving(demo_lake, f"sqlite:///{tmp_path}/keys.sqlite3", workers=2) as (port, _):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        times = []
        for _ in range(50):
            started = time.perf_counter()
            connection.request("GET", "/v1/health")
            response = connection.getresponse()
            response.read()
            times.append(time.perf_counter() - started)
            assert response.status == 200
        connection.close()
    assert statistics.median(times) < 0.020, sorted(times)


def test_health_stays_up_while_the_sqlite_key_store_file_is_missing(demo_lake: Path, tmp_path: Path) -> None:
    missing = tmp_path / "keys.sqlite3"
    with serving(demo_lake, f"sqlite:///{missing}", workers=1) as (port, output):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        for _ in range(50):
            connection.request("GET", "/v1/health")
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200
            assert b'"status":"degraded"' in body and b'"down":["keystore"]' in body
        connection.close()
    assert not missing.exists()
    # Logged once when the monitor first saw it, not once per call, and without a traceback.
    assert sum("health: keystore is down" in line for line in output) == 1, output
    assert not any("Traceback" in line for line in output), output


def test_the_server_lines_are_logged_under_serve_at_their_own_level(demo_lake: Path, tmp_path: Path) -> None:
    with serving(demo_lake, f"sqlite:///{tmp_path}/keys.sqlite3", workers=1) as (_, output):
        pass
    lines = [line for line in output if " serve.server " in line]
    assert any(" INFO serve.server [" in line and "Started server process" in line for line in lines), output
    assert any(" INFO serve.server [" in line and "Application startup complete" in line for line in lines)
    assert not [line for line in output if "uvicorn" in line.split("]")[0]], output
