"""A worker's start (docs/benchmarks.md, "A worker's start (eighth session)"): the collector's start
thresholds are set and put back."""

from __future__ import annotations

import gc
import subprocess
import sys

from serve import start_gc


def test_the_start_thresholds_are_put_back_as_they_were() -> None:
    before = gc.get_threshold()
    # A start refused in this process by an earlier test (`alpha-results serve` run in process and
    # refused before its app started) leaves its saved thresholds behind: this test starts afresh.
    saved = list(start_gc._before)
    start_gc._before.clear()
    try:
        gc.set_threshold(500, 7, 9)
        start_gc.while_starting()
        assert gc.get_threshold() == start_gc.START_THRESHOLDS
        start_gc.while_starting()  # a second call (the one-worker process, then its factory)
        start_gc.started()
        assert gc.get_threshold() == (500, 7, 9)
        start_gc.started()  # an app made without `while_starting` (a test's) changes nothing
        assert gc.get_threshold() == (500, 7, 9)
    finally:
        gc.set_threshold(*before)
        start_gc._before[:] = saved


def test_the_worker_module_imports_the_app_only_when_uvicorn_calls_it() -> None:
    # The thresholds must be set before `serve.app`'s imports: importing the factory's module
    # alone imports none of them.
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, serve.worker; print('serve.app' in sys.modules, 'numpy' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.split() == ["False", "False"]
