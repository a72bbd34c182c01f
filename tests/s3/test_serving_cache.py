"""An S3 lake is served from a bounded local copy of each build's serving files (moto server).

What a worker fetches is verified against the build's manifest (a corrupted object is never
served), the copy is shared by readers of one cache folder, and the folder is kept under its size
by removing the least recently used builds.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import fsspec
import pytest

from datasets import catalog, layout, queries
from datasets.faults import BuildDamaged
from datasets.local_cache import RECENT_SECONDS
from datasets.reader import LakeReader
from pipeline.build import build_many

ALPHAS = ("Test_planted_factor", "Test_small_universe", "momentum_12_1")


@pytest.fixture(scope="module")
def s3_lake(s3_endpoint: str, demo_seals: Path) -> str:
    """The three alphas published into a bucket of the module, once (publishing was moto's most
    work here, once per test): the tests only read it, through readers of their own caches (a
    reader never writes to the lake). The test that damages an object takes a copy."""
    bucket = f"serving-{uuid.uuid4().hex[:12]}"
    fs, _ = fsspec.core.url_to_fs(f"s3://{bucket}", skip_instance_cache=True)
    fs.mkdir(bucket)
    root = f"s3://{bucket}/lake"
    outcomes = build_many([str(demo_seals / a) for a in ALPHAS], root, jobs=1)
    assert {o.status for o in outcomes} == {"published"}
    return root


@pytest.fixture
def own_s3_lake(s3_bucket: str, s3_lake: str) -> str:
    """The module's lake copied into the test's own bucket (inside moto; a lake's files name no
    root, so the copy is the same lake), for a test that damages it."""
    root = f"s3://{s3_bucket}/lake"
    fs, _ = fsspec.core.url_to_fs(root, skip_instance_cache=True)
    fs.copy(s3_lake.removeprefix("s3://"), f"{s3_bucket}/lake", recursive=True)
    assert len(fs.find(f"{s3_bucket}/lake")) == len(fs.find(s3_lake.removeprefix("s3://")))
    return root


def week_rows(reader: LakeReader, alpha: str) -> int:
    build = reader.alpha(alpha)
    assert build is not None
    view = reader.view(build)
    page = queries.rebalance_index(view, (None, None), ("date", "n_symbols"), 5000, 0)
    assert page is not None
    return page.total


def cached_builds(cache: Path) -> set[str]:
    return {f"{a.name}/{b.name}" for a in cache.iterdir() if not a.name.startswith(".") for b in a.iterdir()}


def test_serving_files_are_fetched_once_and_match_the_lake(s3_lake: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    reader = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(cache), cache_bytes=1 << 30)
    assert week_rows(reader, "Test_planted_factor") > 0
    build = reader.alpha("Test_planted_factor")
    assert build is not None
    folder = cache / "Test_planted_factor" / build.build_id
    served = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    # The serving files and the JSON documents, never the analysts' Parquet.
    assert "serving/decisions.arrow" in served and "alpha.json" not in served
    assert not any(name.endswith(".parquet") for name in served)
    modified = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
    second = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(cache), cache_bytes=1 << 30)
    assert week_rows(second, "Test_planted_factor") == week_rows(reader, "Test_planted_factor")
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()} == modified  # reused
    reader.close()
    second.close()


def test_an_s3_build_s_row_bytes_are_derived_from_its_local_copy(s3_lake: str, tmp_path: Path) -> None:
    """The lake holds no row bytes (pipeline 2.11): the worker derives them from the serving table
    it copied into its cache (`datasets.derived`), beside the copies, and maps them from there."""
    cache = tmp_path / "cache"
    reader = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(cache), cache_bytes=1 << 30)
    try:
        build = reader.alpha("momentum_12_1")
        assert build is not None
        view = reader.view(build)
        name = queries.row_json_table("positions")
        assert name not in {p.rsplit("/", 1)[-1].removesuffix(".arrow") for p in view.files}
        assert view.table(name) is None  # pages from the rows meanwhile
        reader.derived.wait()
        derived = view.table(name)
        positions = view.table("positions")
        assert derived is not None and positions is not None and derived.num_rows == positions.num_rows
        (written,) = (cache / ".derived" / "momentum_12_1").rglob(f"{name}.arrow")
        assert cached_builds(cache) == {f"momentum_12_1/{build.build_id}"}  # the copy, beside it
        assert written.stat().st_size > 0
    finally:
        reader.close()


def test_a_corrupted_object_is_never_served(own_s3_lake: str, tmp_path: Path) -> None:
    s3_lake = own_s3_lake
    build = catalog.current_build(s3_lake, "Test_small_universe")
    assert build is not None
    fs, _ = fsspec.core.url_to_fs(s3_lake, skip_instance_cache=True)
    path = layout.serving_path(build.build_dir, "decisions")
    payload = bytearray(fs.cat_file(path))
    payload[len(payload) // 2] ^= 0xFF  # same size, different bytes
    fs.pipe_file(path, bytes(payload))
    reader = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(tmp_path / "cache"), cache_bytes=1 << 30)
    with pytest.raises(BuildDamaged) as raised:
        week_rows(reader, "Test_small_universe")
    assert raised.value.reason == "corrupt_file"
    assert reader.health().alphas == {"Test_small_universe": "corrupt_file"}
    # Other alphas are served meanwhile.
    assert week_rows(reader, "Test_planted_factor") > 0
    reader.close()


def test_the_cache_keeps_under_its_size_by_least_recent_use(s3_lake: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    sizes = {}
    for alpha in ALPHAS:
        probe = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(tmp_path / f"probe-{alpha}"))
        week_rows(probe, alpha)
        folder = tmp_path / f"probe-{alpha}"
        sizes[alpha] = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        probe.close()
    # Room for the two largest builds, not for all three.
    budget = sum(sorted(sizes.values())[1:]) + 1
    # One worker per alpha, each serving only its own build; a copy no worker touched for
    # RECENT_SECONDS may go (aged here, oldest first, instead of waiting).
    workers = []
    for index, alpha in enumerate(ALPHAS):
        worker = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(cache), cache_bytes=budget)
        week_rows(worker, alpha)
        workers.append(worker)
        aged = time.time() - RECENT_SECONDS - 10 * (len(ALPHAS) - index)
        for folder in (cache / alpha).iterdir():
            os.utime(folder, (aged, aged))
    assert sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) <= budget
    kept = {name.split("/")[0] for name in cached_builds(cache)}
    assert ALPHAS[-1] in kept and ALPHAS[0] not in kept  # the least recently fetched went first
    # The evicted build keeps answering in the worker that maps it; a new reader fetches it again.
    assert week_rows(workers[0], ALPHAS[0]) > 0
    again = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(cache), cache_bytes=budget)
    assert week_rows(again, ALPHAS[0]) > 0
    assert ALPHAS[0] in {name.split("/")[0] for name in cached_builds(cache)}
    for reader in [*workers, again]:
        reader.close()


def test_a_worker_never_evicts_what_it_serves(s3_lake: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    reader = LakeReader(s3_lake, refresh_seconds=60, cache_dir=str(cache), cache_bytes=1)
    for alpha in ALPHAS:
        week_rows(reader, alpha)
    assert {name.split("/")[0] for name in cached_builds(cache)} == set(ALPHAS)
    for alpha in ALPHAS:  # every build stays served, none damaged
        assert week_rows(reader, alpha) > 0
    assert reader.health().alphas == {}
    reader.close()
