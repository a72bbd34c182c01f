"""`serving`: the real `alpha-results serve` process on a free port, for one test or one
fixture."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.health_wait import health_answers, wait_for_start, workers_ready
from tests.support.ports import free_port


@contextmanager
def serving(
    lake: Path, keystore_url: str, workers: int, env: dict[str, str] | None = None, port: int | None = None
) -> Iterator[tuple[int, list[str]]]:
    """`alpha-results serve --workers N` on a free port; yields (port, its output lines).

    The output is read as it is written: the server writes an access line per request, and a pipe
    nobody reads fills at 64 KiB (about 300 requests), after which the server blocks on its next
    line and answers nothing. `env` adds settings (`ALPHA_RESULTS_*`) to the server's environment;
    `port`, one chosen beforehand (`free_port`: for settings that name the server's own URL).
    """
    port = port or free_port()
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
        # Ready once every worker logged its ready line and health answers: a request before the
        # second worker is up would be answered by the first alone (uvicorn shares the socket).
        try:
            wait_for_start(
                process,
                lambda: workers_ready(output, workers) and health_answers(port),
                lambda: "\n".join(output),
                f"alpha-results serve --workers {workers}",
            )
        except AssertionError as failed:
            process.kill()
            reader.join(15)
            pytest.fail(str(failed))
        yield port, output
    finally:
        process.terminate()
        process.wait(timeout=15)
        reader.join(15)
