"""Two publishes of one alpha at once (a scheduler retry next to the original job) never leave the
pointer on a build that is incomplete or deleted (the second loses its race, writing nothing), and
pruning leaves another publish's build alone."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import pytest

from alpha_results_seal.seal import open_seal
from alpha_results_seal.storage import Storage
from pipeline.publish import content_id_for, publish_seal
from tests.health_wait import HANG_LIMIT
from tests.support.build_tables import generation_versions, open_table_sizes
from tests.support.seal_versions import new_version

ALPHA = "Test_factory"
REPO = Path(__file__).resolve().parents[2]


def build_is_complete(lake: Path, build_id: str) -> bool:
    """alpha.json is there, every file of the build folder it lists (serving files, exports, JSON)
    is on disk whole, and, once a generation names the build (its publish commits it just after
    the pointer switch), the open tables hold at that generation's versions the rows, files and
    bytes of it that alpha.json counts per table (the rows are theirs since pipeline 2.12.0)."""
    build_dir = lake / "alphas" / ALPHA / "builds" / build_id
    entry_path = build_dir / "alpha.json"
    if not entry_path.exists():
        return False
    entry = json.loads(entry_path.read_text())
    if not any(name.startswith("serving/") for name in entry["files"]):
        return False
    for name, info in entry["files"].items():
        path = build_dir / name
        if not path.is_file() or path.stat().st_size != info["bytes"]:
            return False
    try:
        generation_versions(build_dir)
    except FileNotFoundError:  # switched, its generation not committed yet
        return True
    held = open_table_sizes(build_dir)
    return bool(held) and held == entry["tables"]


def content_id_of(seal: Path) -> str:
    return content_id_for(open_seal(str(seal), Storage(str(seal))))


def publish_slowly(seal: str, lake: str, writing: Event, release: Event) -> None:
    """Writes one file of the build folder (its first serving file; its alpha's publish lock
    held), says so, and waits for `release`; exits 0 once published."""
    from datasets.writer import BuildWriter

    real_write = BuildWriter.write_arrow

    def write_then_wait(self: BuildWriter, *args: Any, **kwargs: Any) -> Any:
        written = real_write(self, *args, **kwargs)
        if len(self.written) == 1:
            writing.set()
            release.wait(HANG_LIMIT)
        return written

    BuildWriter.write_arrow = write_then_wait  # type: ignore[method-assign]
    try:
        outcome = publish_seal(seal, lake)
    finally:
        writing.set()  # never leave the parent waiting
    sys.exit(0 if outcome.status == "published" else 1)


def test_two_processes_publishing_one_alpha_leave_a_complete_build_served(
    tmp_path: Path, factory_seal: Path
) -> None:
    """A second `alpha-results build` of the alpha while the first writes loses the race at once
    (`datasets.publish_lock`): it says so, writes nothing and exits 3, so a scheduler retries it;
    the first publishes, and the pointer never names an incomplete build."""
    lake = tmp_path / "lake"
    base = publish_seal(str(factory_seal), str(lake))
    slow_seal = new_version(factory_seal, tmp_path / "slow", 1)
    fast_seal = new_version(factory_seal, tmp_path / "fast", 2)
    spawn = multiprocessing.get_context("spawn")
    writing, release = spawn.Event(), spawn.Event()
    slow = spawn.Process(target=publish_slowly, args=(str(slow_seal), str(lake), writing, release))
    pointer = lake / "alphas" / ALPHA / "_current.json"
    builds = lake / "alphas" / ALPHA / "builds"
    slow.start()
    try:
        assert writing.wait(HANG_LIMIT) and slow.is_alive(), "the first publish did not start writing"
        before = {p.name for p in builds.iterdir()}
        fast = subprocess.run(
            [sys.executable, "-m", "cli.main", "build", str(fast_seal), "--lake", str(lake)],
            cwd=REPO,
            env={**os.environ, "ALPHA_RESULTS_KEYSTORE_URL": f"sqlite:///{tmp_path}/records.sqlite3"},
            capture_output=True,
            text=True,
            timeout=HANG_LIMIT,
        )
        shown = fast.stdout + fast.stderr
        assert fast.returncode == 3, shown
        assert f"lost race  {ALPHA}" in shown and "run it again" in shown, shown
        assert {p.name for p in builds.iterdir()} == before, "the losing publish wrote a build folder"
        assert json.loads(pointer.read_text())["build_id"] == base.build_id
        release.set()
        seen: set[str] = set()
        deadline = time.monotonic() + HANG_LIMIT
        while slow.is_alive():
            assert time.monotonic() < deadline, "the first publish did not finish"
            build_id = json.loads(pointer.read_text())["build_id"]
            assert build_is_complete(lake, build_id), f"the pointer names the incomplete build {build_id}"
            seen.add(build_id)
            time.sleep(0.02)
    finally:
        release.set()
        slow.join(HANG_LIMIT)
        if slow.is_alive():
            slow.kill()
            slow.join()
    assert slow.exitcode == 0

    final = json.loads(pointer.read_text())
    assert final["content_id"] == content_id_of(slow_seal)
    assert final["build_id"].startswith(content_id_of(slow_seal) + "-")
    assert final["previous_builds"] == [base.build_id]  # the loser never reached the history
    assert not any(p.name.startswith(content_id_of(fast_seal)) for p in builds.iterdir())
    for build_id in (final["build_id"], base.build_id):
        assert build_is_complete(lake, build_id)


def publish_same_seal_late(seal: str, lake: str, status_file: str, events: dict[str, Event]) -> None:
    """Reads the pointer and derives, waits until the other publish of the same seal has switched,
    then writes one file and pauses so the parent can look at the served build."""
    import pipeline.publish as publish
    from datasets.writer import BuildWriter

    real_derive, real_write = publish.derive, BuildWriter.write_arrow

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
    BuildWriter.write_arrow = write_then_pause  # type: ignore[method-assign]
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
        (builds / name / "serving").mkdir(parents=True)
        (builds / name / "serving" / "decisions.arrow").write_bytes(b"partial")
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


def test_a_retry_after_a_killed_publish_on_this_host_is_not_told_it_is_running(tmp_path: Path) -> None:
    """Issue 81, item 9: within its lease (30 s), a killed publish's lock named a dead build as
    "running". The holder's liveness is checked (its pid, on this host): a dead holder's lock is
    broken at once; a live one is "running" with its pid; one on another host "possibly dead"."""
    import socket

    from datasets import publish_lock

    root = str(tmp_path / "lake")
    storage = Storage(root)
    ended = subprocess.Popen(["true"])  # a process that ran and ended: its pid no longer runs
    ended.wait()

    def left(host: str, pid: int) -> None:
        intent = {
            "alpha_id": "a1",
            "build_id": "killed-build",
            "token": "t",
            "state": "writing",
            "started_at": "2026-01-01T00:00:00+00:00",
            "expires_at": time.time() + 30,
            "host": host,
            "pid": pid,
        }
        (tmp_path / "lake" / "publishing").mkdir(parents=True, exist_ok=True)
        (tmp_path / "lake" / "publishing" / "a1.json").write_text(json.dumps(intent))

    left(socket.gethostname(), ended.pid)
    assert [i.build_id for i in publish_lock.interrupted(storage, root)] == ["killed-build"]
    with publish_lock.hold(storage, root, "a1", "retry-build") as held:
        assert held.intent.build_id == "retry-build" and held.intent.pid == os.getpid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        left(socket.gethostname(), sleeper.pid)
        with pytest.raises(publish_lock.PublishBusy, match=f"is running .*pid {sleeper.pid} on this host"):
            with publish_lock.hold(storage, root, "a1", "retry-build"):
                pass
    finally:
        sleeper.kill()
        sleeper.wait()
    left("another-host.example", 12345)
    with pytest.raises(publish_lock.PublishBusy, match="possibly dead.*expires within"):
        with publish_lock.hold(storage, root, "a1", "retry-build"):
            pass
