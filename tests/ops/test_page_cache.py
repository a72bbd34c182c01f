"""The benchmarks' page-cache eviction (tests/bench/page_cache.py, issue 63 item 4): a file read
into the cache, then mapped and touched by another process, leaves the cache only by the two steps
together, and `mincore` counts what stayed as fincore (util-linux) would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench import page_cache

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="mincore, fadvise and process_madvise are Linux's"
)

MAPPER = """
import mmap, sys
with open(sys.argv[1], "rb") as handle:
    mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    touched = sum(mapped[i] for i in range(0, len(mapped), mmap.PAGESIZE))
    print("mapped", flush=True)
    sys.stdin.read()
"""


def test_a_mapped_lake_file_leaves_the_cache_only_with_its_mapping_paged_out(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "sub").mkdir(parents=True)
    data = lake / "sub" / "matrix.npy"
    data.write_bytes(os.urandom(64 * page_cache.PAGE))
    (lake / "empty").write_bytes(b"")
    assert page_cache.lake_files(lake) == [lake / "empty", data]
    data.read_bytes()
    page_cache.evict([data])
    assert page_cache.resident([data]) == (0, 64 * page_cache.PAGE)
    data.read_bytes()
    assert page_cache.resident([data])[0] > 0
    mapper = subprocess.Popen(
        [sys.executable, "-c", MAPPER, str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert mapper.stdout is not None and mapper.stdout.readline().strip() == "mapped"
        assert page_cache.mapped_ranges(mapper.pid, lake) != []
        page_cache.evict([data])
        # The kernel keeps what a process maps: fadvise alone leaves the touched pages.
        assert page_cache.resident([data])[0] == 64 * page_cache.PAGE
        try:
            found = page_cache.make_cold(lake, [mapper.pid])
        except OSError as error:  # no CAP_SYS_NICE or no process_madvise: nothing to test here
            pytest.skip(f"process_madvise refused: {error}")
        assert found == {
            "paged_out_bytes": 64 * page_cache.PAGE,
            "lake_bytes": 64 * page_cache.PAGE,
            "resident_bytes": 0,
        }
    finally:
        mapper.communicate("")


def test_a_mapped_file_leaves_the_cache_by_its_cgroup_alone(tmp_path: Path) -> None:
    """What `MADV_PAGEOUT` may leave (2 MiB folios a worker maps), the memory controller reclaims:
    a process started in a cgroup of its own on a cold file is charged for the pages it reads, and
    `force_empty` takes them while it still maps them."""
    group = page_cache.memory_group(f"test-{os.getpid()}")
    if group is None:
        pytest.skip("no writable cgroup v1 memory controller here")
    data = tmp_path / "matrix.npy"
    data.write_bytes(os.urandom(64 * page_cache.PAGE))
    page_cache.evict([data])
    mapper = subprocess.Popen(
        page_cache.within(group, [sys.executable, "-c", MAPPER, str(data)]),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert mapper.stdout is not None and mapper.stdout.readline().strip() == "mapped"
        assert str(mapper.pid) in (group / "cgroup.procs").read_text().split()
        assert page_cache.resident([data])[0] == 64 * page_cache.PAGE
        page_cache.reclaim(group)
        page_cache.evict([data])
        assert page_cache.resident([data]) == (0, 64 * page_cache.PAGE)
        assert page_cache.mapped_ranges(mapper.pid, tmp_path) != []  # the mapping stays
    finally:
        mapper.communicate("")
        page_cache.remove_group(group)
