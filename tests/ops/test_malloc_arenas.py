"""Each serving worker caps glibc's malloc arenas (`ALPHA_RESULTS_MALLOC_ARENAS`, default 2).

With glibc's default (8 per core) the threads of a loaded worker spread its memory over arenas
that do not share freed space, and `just soak` saw each worker's anonymous memory grow 25-40 MiB
over ten minutes; with 2 it stayed flat (docs/benchmarks.md "Soak")."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from serve.resources import limit_malloc_arenas
from tests.shared_servers import SharedServer

GLIBC = platform.libc_ver()[0] == "glibc"

# 16 threads allocate and free at once, then glibc describes its heaps (one `<heap nr=` per arena).
COUNT_ARENAS = r"""
import ctypes, os, sys, tempfile, threading
from serve.resources import limit_malloc_arenas
if sys.argv[1] != "default":
    assert limit_malloc_arenas(int(sys.argv[1]))
barrier = threading.Barrier(16)
def churn():
    barrier.wait()
    for _ in range(2000):
        blocks = [bytearray(4096) for _ in range(16)]
        del blocks
threads = [threading.Thread(target=churn) for _ in range(16)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(None)
libc.fdopen.restype = ctypes.c_void_p
with tempfile.TemporaryFile() as out:
    stream = libc.fdopen(os.dup(out.fileno()), b"w")
    libc.malloc_info(0, ctypes.c_void_p(stream))
    libc.fclose(ctypes.c_void_p(stream))
    out.seek(0)
    print(out.read().decode().count("<heap nr="))
"""


def arenas(setting: str) -> int:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", COUNT_ARENAS, setting], capture_output=True, text=True, cwd=root, check=True
    )
    return int(done.stdout.strip())


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_the_cap_bounds_the_arenas_threads_create() -> None:
    assert arenas("default") > 2  # what the cap is for: threads get arenas of their own
    assert arenas("2") <= 2


def test_zero_leaves_the_default() -> None:
    assert limit_malloc_arenas(0) is False


@pytest.mark.e2e
@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_every_worker_caps_its_arenas_at_start(two_workers: SharedServer) -> None:
    """`--workers 2` with ALPHA_RESULTS_MALLOC_ARENAS=3: each worker says so as it starts."""
    output = list(two_workers.output)
    assert sum("malloc: at most 3 arenas" in line for line in output) == 2, "\n".join(output[-40:])
