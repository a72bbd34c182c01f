"""Atomic publish, idempotent rebuild, retention of previous builds, catalogue reads."""

from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from datasets import catalog
from datasets.layout import BUILD_RETENTION_SECONDS, history_seconds
from datasets.writer import BuildWriter
from pipeline import index_rows
from pipeline.publish import publish_seal
from tests.support.seal_edits import snapshot
from tests.support.seal_versions import new_version


def test_rebuild_of_the_same_seal_is_unchanged_and_writes_nothing(tmp_path: Path, factory_seal: Path) -> None:
    lake = tmp_path / "lake"
    first = publish_seal(str(factory_seal), str(lake))
    before = snapshot(lake)
    again = publish_seal(str(factory_seal), str(lake))
    assert (first.status, again.status) == ("published", "unchanged")
    assert again.build_id == first.build_id and again.rows == first.rows
    assert snapshot(lake) == before


def test_every_publish_writes_a_folder_of_its_own_and_the_pointer_records_the_content(
    tmp_path: Path, factory_seal: Path
) -> None:
    lake = tmp_path / "lake"
    first = publish_seal(str(factory_seal), str(lake))
    pointer_path = lake / "alphas" / "Test_factory" / "_current.json"
    pointer = json.loads(pointer_path.read_text())
    content_id, _, suffix = pointer["build_id"].partition("-")
    assert pointer["build_id"] == first.build_id and pointer["content_id"] == content_id and len(suffix) == 8
    # A pointer written before content ids were recorded names the build by its content id alone;
    # the same seal is still recognised as unchanged.
    builds = lake / "alphas" / "Test_factory" / "builds"
    assert first.build_id is not None
    (builds / first.build_id).rename(builds / content_id)
    pointer_path.write_text(json.dumps({"alpha_id": "Test_factory", "build_id": content_id}))
    index_rows.rebuild(str(lake))  # the hand-made pointer, indexed as `lake index` would
    before = snapshot(lake)
    again = publish_seal(str(factory_seal), str(lake))
    assert (again.status, again.build_id, again.rows) == ("unchanged", content_id, first.rows)
    assert snapshot(lake) == before


def test_crash_mid_publish_leaves_the_old_build_served(
    tmp_path: Path, factory_seal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = tmp_path / "lake"
    old = publish_seal(str(factory_seal), str(lake))
    pointer = lake / "alphas" / "Test_factory" / "_current.json"
    old_pointer = pointer.read_bytes()
    old_files = {k: v for k, v in snapshot(lake).items() if old.build_id in k}
    changed = new_version(factory_seal, tmp_path / "v2", 0.5)

    real_write = BuildWriter.write_arrow
    calls = {"n": 0}

    def failing_write(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > 2:  # the third serving file: the rows are committed, the folder half written
            raise OSError("disk went away")
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(BuildWriter, "write_arrow", failing_write)
    with pytest.raises(OSError, match="disk went away"):
        publish_seal(str(changed), str(lake))
    assert calls["n"] == 3
    assert pointer.read_bytes() == old_pointer
    assert {k: v for k, v in snapshot(lake).items() if old.build_id in k} == old_files
    build = catalog.current_build(str(lake), "Test_factory")
    assert build is not None and build.build_id == old.build_id
    assert catalog.read_alpha(str(lake), build)["tables"]["metrics_stored"]["rows"] == 2

    monkeypatch.setattr(BuildWriter, "write_arrow", real_write)
    retry = publish_seal(str(changed), str(lake))
    assert retry.status == "published" and retry.build_id != old.build_id


def test_a_storm_keeps_every_build_a_worker_may_serve(tmp_path: Path, factory_seal: Path) -> None:
    """Four publishes in a row: every superseded build was superseded moments ago, so a worker may
    still serve it; none is deleted, however many previous builds that makes."""
    lake = tmp_path / "lake"
    ids = [
        publish_seal(str(new_version(factory_seal, tmp_path / f"v{i}", i)), str(lake)).build_id
        for i in range(4)
    ]
    builds = sorted(p.name for p in (lake / "alphas" / "Test_factory" / "builds").iterdir())
    assert builds == sorted(ids)
    pointer = json.loads((lake / "alphas" / "Test_factory" / "_current.json").read_text())
    assert pointer["build_id"] == ids[3] and pointer["previous_builds"] == [ids[2], ids[1], ids[0]]
    assert set(pointer["superseded_at"]) == set(ids[:3])


def test_builds_superseded_long_ago_beyond_the_two_newest_are_deleted(
    tmp_path: Path, factory_seal: Path
) -> None:
    lake = tmp_path / "lake"
    ids = [
        publish_seal(str(new_version(factory_seal, tmp_path / f"v{i}", i)), str(lake)).build_id
        for i in range(4)
    ]
    pointer_path = lake / "alphas" / "Test_factory" / "_current.json"
    pointer = json.loads(pointer_path.read_text())
    # As if the three predecessors had been superseded before the history retention (7 days by
    # default: ALPHA_RESULTS_BUILD_HISTORY_DAYS) and an hour.
    long_ago = (datetime.now(UTC) - timedelta(seconds=history_seconds() + 3000)).isoformat()
    pointer["superseded_at"] = {b: long_ago for b in pointer["previous_builds"]}
    pointer_path.write_text(json.dumps(pointer))
    old = time.time() - BUILD_RETENTION_SECONDS - 3000
    for build_id in ids[:3]:  # written long ago too (a complete build is kept while young)
        os.utime(lake / "alphas" / "Test_factory" / "builds" / build_id / "alpha.json", (old, old))
    newest = publish_seal(str(new_version(factory_seal, tmp_path / "v4", 4)), str(lake)).build_id
    pointer = json.loads(pointer_path.read_text())
    # ids[3] was superseded just now; ids[2] is the next newest; ids[1] and ids[0] are gone.
    assert pointer["build_id"] == newest and pointer["previous_builds"] == [ids[3], ids[2]]
    builds = sorted(p.name for p in (lake / "alphas" / "Test_factory" / "builds").iterdir())
    assert builds == sorted([newest, ids[3], ids[2]])


def test_catalogue_entry_description_and_source(factory_lake: Path) -> None:
    root = str(factory_lake)
    [entry] = catalog.list_alphas(root)
    assert entry["alpha_id"] == "Test_factory" and entry["complete"] and entry["missing_kinds"] == []
    assert entry["books"]["trades"] == sorted(
        [
            "long_short",
            "long_only",
            *[b + s for b in ("long_short", "long_only") for s in ("_adjustments", "_settlements")],
        ]
    )
    assert (entry["first_rebalance"], entry["last_rebalance"]) == ("2023-01-06", "2023-02-24")
    assert entry["tables"]["decisions"]["rows"] == 8 * 30
    build = catalog.current_build(root, "Test_factory")
    assert build is not None
    description = catalog.read_description(root, build)
    assert description is not None
    assert description["algo_id"] == description["alpha_id"] == "Test_factory"
    assert description["thesis"]["hypothesis"] == "Scores predict returns."
    assert description["thesis"]["mechanism"] is None and description["signal"]["pseudocode"] is None
    source = catalog.read_source(root, build)
    assert source is not None and source["delivered"] is True
    archive = factory_lake / source["object_path"]
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == source["sha256"]
    [benchmark] = catalog.list_benchmarks(root)
    assert benchmark["symbol"] == "SPY" and benchmark["rows"] == 30
