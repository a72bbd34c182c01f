"""Two publishes of one alpha at once (a scheduler retry next to the original job) never leave the
pointer on a build that is incomplete or deleted, and pruning leaves another publish's build alone."""

from __future__ import annotations

import json
import multiprocessing
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from alpha_results_seal.seal import open_seal
from alpha_results_seal.storage import Storage
from pipeline.publish import content_id_for, publish_seal
from tests.pipeline.test_publish import new_version

ALPHA = "Test_factory"


def build_is_complete(lake: Path, build_id: str) -> bool:
    """alpha.json is there and every file it counts per table is on disk."""
    build_dir = lake / "alphas" / ALPHA / "builds" / build_id
    entry_path = build_dir / "alpha.json"
    if not entry_path.exists():
        return False
    entry = json.loads(entry_path.read_text())
    for table, totals in entry["tables"].items():
        files = [build_dir / f"{table}.parquet"] if (build_dir / f"{table}.parquet").exists() else []
        files += list((build_dir / table).rglob("*.parquet")) if (build_dir / table).is_dir() else []
        if len(files) != totals["files"]:
            return False
    return True


def content_id_of(seal: Path) -> str:
    return content_id_for(open_seal(str(seal), Storage(str(seal))))


def publish_slowly(seal: str, lake: str, other_done: Event) -> None:
    """Writes one file, then waits until the other publish has finished (and pruned)."""
    from datasets.writer import BuildWriter

    real_write = BuildWriter.write_parquet

    def write_then_wait(self: BuildWriter, *args: Any, **kwargs: Any) -> Any:
        written = real_write(self, *args, **kwargs)
        if len(self.written) == 1:
            other_done.wait(60)
        return written

    BuildWriter.write_parquet = write_then_wait  # type: ignore[method-assign]
    publish_seal(seal, lake)


def publish_and_signal(seal: str, lake: str, done: Event) -> None:
    try:
        publish_seal(seal, lake)
    finally:
        done.set()


def test_two_processes_publishing_one_alpha_leave_a_complete_build_served(
    tmp_path: Path, factory_seal: Path
) -> None:
    lake = tmp_path / "lake"
    base = publish_seal(str(factory_seal), str(lake))
    slow_seal = new_version(factory_seal, tmp_path / "slow", 1)
    fast_seal = new_version(factory_seal, tmp_path / "fast", 2)
    spawn = multiprocessing.get_context("spawn")
    fast_done = spawn.Event()
    slow = spawn.Process(target=publish_slowly, args=(str(slow_seal), str(lake), fast_done))
    fast = spawn.Process(target=publish_and_signal, args=(str(fast_seal), str(lake), fast_done))
    pointer = lake / "alphas" / ALPHA / "_current.json"
    slow.start()
    fast.start()
    seen: set[str] = set()
    deadline = time.monotonic() + 120
    while (slow.is_alive() or fast.is_alive()) and time.monotonic() < deadline:
        build_id = json.loads(pointer.read_text())["build_id"]
        assert build_is_complete(lake, build_id), f"the pointer names the incomplete build {build_id}"
        seen.add(build_id)
        time.sleep(0.02)
    slow.join(5)
    fast.join(5)
    assert (slow.exitcode, fast.exitcode) == (0, 0)

    final = json.loads(pointer.read_text())
    assert base.build_id in seen
    # The slow publish switched last; its history was read right before its switch, so it keeps
    # the fast publish's build as the previous one.
    fast_build, base_build = final["previous_builds"]
    assert final["content_id"] == content_id_of(slow_seal) and base_build == base.build_id
    assert final["build_id"].startswith(content_id_of(slow_seal) + "-")
    assert fast_build.startswith(content_id_of(fast_seal) + "-")
    for build_id in (final["build_id"], fast_build, base_build):
        assert build_is_complete(lake, build_id)


def publish_same_seal_late(seal: str, lake: str, status_file: str, events: dict[str, Event]) -> None:
    """Reads the pointer and derives, waits until the other publish of the same seal has switched,
    then writes one file and pauses so the parent can look at the served build."""
    import pipeline.publish as publish
    from datasets.writer import BuildWriter

    real_derive, real_write = publish.derive, BuildWriter.write_parquet

    def derive_then_wait(*args: Any, **kwargs: Any) -> Any:
        derived = real_derive(*args, **kwargs)
        events["other_done"].wait(60)
        return derived

    def write_then_pause(self: BuildWriter, *args: Any, **kwargs: Any) -> Any:
        written = real_write(self, *args, **kwargs)
        if len(self.written) == 1:
            events["mid_write"].set()
            events["checked"].wait(60)
        return written

    publish.derive = derive_then_wait
    BuildWriter.write_parquet = write_then_pause  # type: ignore[method-assign]
    try:
        Path(status_file).write_text(publish_seal(seal, lake).status)
    finally:
        events["mid_write"].set()  # never leave the parent waiting


def publish_same_seal_now(seal: str, lake: str, status_file: str, done: Event) -> None:
    try:
        Path(status_file).write_text(publish_seal(seal, lake).status)
    finally:
        done.set()


def test_two_processes_publishing_the_same_seal_never_break_the_served_build(
    tmp_path: Path, factory_seal: Path
) -> None:
    """A scheduler retry of the same seal next to the original: both compute the same content, and
    neither may remove files of the build the other writes or the pointer names."""
    lake = tmp_path / "lake"
    spawn = multiprocessing.get_context("spawn")
    events = {name: spawn.Event() for name in ("other_done", "mid_write", "checked")}
    late = spawn.Process(
        target=publish_same_seal_late, args=(str(factory_seal), str(lake), str(tmp_path / "late"), events)
    )
    now = spawn.Process(
        target=publish_same_seal_now,
        args=(str(factory_seal), str(lake), str(tmp_path / "now"), events["other_done"]),
    )
    pointer = lake / "alphas" / ALPHA / "_current.json"
    late.start()
    now.start()
    try:
        deadline = time.monotonic() + 120
        while (late.is_alive() or now.is_alive()) and time.monotonic() < deadline:
            if pointer.exists():
                build_id = json.loads(pointer.read_text())["build_id"]
                assert build_is_complete(lake, build_id), f"the pointer names the incomplete build {build_id}"
            if events["mid_write"].is_set() and not events["checked"].is_set():
                # The late publish has written a file after the other one switched the pointer.
                build_id = json.loads(pointer.read_text())["build_id"]
                assert build_is_complete(lake, build_id), f"the pointer names the incomplete build {build_id}"
                events["checked"].set()
            time.sleep(0.02)
    finally:
        events["checked"].set()
        late.join(30)
        now.join(30)
    assert (late.exitcode, now.exitcode) == (0, 0)
    assert (tmp_path / "now").read_text() == "published"
    # The late publish found the pointer already on this seal's content when it came to switch.
    assert (tmp_path / "late").read_text() == "unchanged"

    final = json.loads(pointer.read_text())
    assert final["content_id"] == content_id_of(factory_seal) and final["previous_builds"] == []
    assert build_is_complete(lake, final["build_id"])
    # The late publish removed the folder it had created, and only that one.
    assert [p.name for p in (lake / "alphas" / ALPHA / "builds").iterdir()] == [final["build_id"]]
    before = sorted(p.relative_to(lake) for p in lake.rglob("*"))
    assert publish_seal(str(factory_seal), str(lake)).status == "unchanged"
    assert sorted(p.relative_to(lake) for p in lake.rglob("*")) == before


def test_unnamed_build_folders_are_collected_unless_a_live_lease_covers_them(
    tmp_path: Path, factory_seal: Path
) -> None:
    lake = tmp_path / "lake"
    publish_seal(str(factory_seal), str(lake))
    builds = lake / "alphas" / ALPHA / "builds"
    leases = lake / "alphas" / ALPHA / "leases"
    for name in ("killed_publish", "being_written", "lease_expired"):
        (builds / name / "decisions").mkdir(parents=True)
        (builds / name / "decisions" / "part-0.parquet").write_bytes(b"partial")
    leases.mkdir(exist_ok=True)
    now = time.time()
    (leases / "being_written.json").write_text(
        json.dumps({"build_id": "being_written", "expires_at": now + 30})
    )
    (leases / "lease_expired.json").write_text(
        json.dumps({"build_id": "lease_expired", "expires_at": now - 1})
    )

    publish_seal(str(new_version(factory_seal, tmp_path / "v1", 1)), str(lake))
    names = {p.name for p in builds.iterdir()}
    assert "killed_publish" not in names and "lease_expired" not in names
    assert "being_written" in names
    assert sorted(p.name for p in leases.iterdir()) == ["being_written.json"]
