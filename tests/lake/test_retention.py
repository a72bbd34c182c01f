"""Which builds the lake keeps (datasets/retention.py): the pointer's history, publish leases,
garbage collection, and `alpha-results lake gc`.

Tests marked `xfail(strict=True)` with a reason starting "BUG" reproduce defects of the code
under test; they pass (as expected failures) until the defect is fixed, then fail so the marker
is removed. The defects found so far are fixed: the tests named after them assert the fix.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from alpha_results_seal.storage import Storage
from cli.main import main
from datasets import catalog, layout, retention
from datasets.build_view import local_sizes, manifest_problem
from datasets.writer import BuildWriter
from pipeline import publish
from pipeline.publish import publish_seal
from tests.conftest import linked_copy
from tests.lake.conftest import ALPHA, pointer

RETENTION = layout.BUILD_RETENTION_SECONDS
KEEP = retention.KEEP_PREVIOUS_BUILDS
T0 = 1_700_000_000.0  # whole seconds: `superseded_at` is recorded to the second


def iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")


def publish_chain(moments: list[tuple[str, float]], start: dict[str, Any] | None = None) -> dict[str, Any]:
    """The pointer after switching to each (build_id, at) in turn, as `switch_pointer` writes it."""
    current = start
    for build_id, moment in moments:
        current = {"build_id": build_id, **retention.next_history(current, build_id, moment)}
    assert current is not None
    return current


# -- next_history -----------------------------------------------------------------------------------


def test_first_publish_has_no_history() -> None:
    assert retention.next_history(None, "b1", T0) == {"previous_builds": [], "superseded_at": {}}


def test_a_storm_within_the_retention_window_keeps_every_superseded_build() -> None:
    storm = [(f"b{n}", T0 + n * 0.2) for n in range(1, 8)]  # seven publishes in 1.4 s
    final = publish_chain(storm)
    assert final["build_id"] == "b7"
    assert final["previous_builds"] == ["b6", "b5", "b4", "b3", "b2", "b1"]  # > KEEP, newest first
    assert set(final["superseded_at"]) == set(final["previous_builds"])


def test_builds_beyond_keep_are_dropped_only_after_the_retention_window() -> None:
    chain = [(f"b{n}", T0 + n) for n in range(1, 6)]  # b1 superseded at T0+2, ..., b4 at T0+5
    before = publish_chain(chain)
    assert before["superseded_at"] == {f"b{n}": iso(T0 + n + 1) for n in range(1, 5)}

    # b1 was superseded RETENTION - 1 s ago: still within the window, so nothing is dropped.
    within = publish_chain([("b6", T0 + 2 + RETENTION - 1)], before)
    assert within["previous_builds"] == ["b5", "b4", "b3", "b2", "b1"]

    # b4 was superseded exactly RETENTION ago: b1..b4 are all old; the KEEP newest stay.
    beyond = publish_chain([("b6", T0 + 5 + RETENTION)], before)
    assert KEEP == 2
    assert beyond["previous_builds"] == ["b5", "b4"]
    assert beyond["superseded_at"] == {"b5": iso(T0 + 5 + RETENTION), "b4": iso(T0 + 5)}

    # Half-way: b1 and b2 are old, b3 and b4 are not; old builds go only beyond KEEP.
    middle = publish_chain([("b6", T0 + 3 + RETENTION)], before)
    assert middle["previous_builds"] == ["b5", "b4", "b3"]


def test_a_legacy_pointer_without_superseded_at_keeps_its_builds_for_a_full_window() -> None:
    legacy = {"alpha_id": ALPHA, "build_id": "a", "previous_builds": ["b", "c", "d"]}
    now = T0 + 10 * RETENTION  # however old the legacy builds really are
    upgraded = publish_chain([("e", now)], legacy)
    assert upgraded["previous_builds"] == ["a", "b", "c", "d"]
    assert upgraded["superseded_at"] == dict.fromkeys("abcd", iso(now))

    assert publish_chain([("f", now + RETENTION - 1)], upgraded)["previous_builds"] == [
        "e",
        "a",
        "b",
        "c",
        "d",
    ]
    assert publish_chain([("f", now + RETENTION)], upgraded)["previous_builds"] == ["e", "a"]


def test_unreadable_superseded_at_counts_as_now_and_duplicates_are_named_once() -> None:
    current = {
        "build_id": "a",
        "previous_builds": ["b", "b", "c", "new"],
        "superseded_at": {"b": "not a time", "c": iso(T0 - 10 * RETENTION)},
    }
    history = retention.next_history(current, "new", T0)
    # a is superseded now, b counts as now (its time is unreadable); c is old and beyond KEEP.
    assert history["previous_builds"] == ["a", "b"]
    assert "new" not in history["previous_builds"]


def test_a_publish_storm_keeps_every_superseded_build_folder(tmp_path: Path, versions: list[Path]) -> None:
    lake = tmp_path / "lake"
    published = [publish_seal(str(seal), str(lake)).build_id for seal in [*versions, versions[0]]]
    final = pointer(lake)
    assert final["build_id"] == published[-1]
    assert final["previous_builds"] == published[-2::-1]
    folders = {p.name for p in (lake / "alphas" / ALPHA / "builds").iterdir()}
    assert folders == set(published)
    assert retention.lake_garbage(str(lake)) == []


# -- find_garbage, collect ----------------------------------------------------------------------------

OLD = RETENTION + 60
"""An age beyond the retention period, for builds left from long ago."""


def make_build(builds: Path, name: str, manifest: str | None = "alpha.json", age: float = 0) -> Path:
    """A build folder; complete (its manifest written `age` seconds ago) unless `manifest` is None."""
    folder = builds / name
    (folder / "serving").mkdir(parents=True)
    (folder / "serving" / "decisions.arrow").write_bytes(b"x" * 100)
    if manifest is not None:
        (folder / manifest).write_text("{}")
        written = time.time() - age
        os.utime(folder / manifest, (written, written))
    return folder


def write_lease(builds: Path, build_id: str, expires_at: float) -> Path:
    path = Path(layout.lease_path(str(builds), build_id))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"build_id": build_id, "expires_at": expires_at}))
    return path


def write_pointer(builds: Path, current: dict[str, Any]) -> Path:
    path = builds.parent / layout.POINTER_FILE
    path.write_text(json.dumps(current))
    return path


@pytest.fixture
def builds(tmp_path: Path) -> Path:
    folder = tmp_path / "lake" / "alphas" / ALPHA / "builds"
    folder.mkdir(parents=True)
    return folder


def garbage_names(builds: Path, current: dict[str, Any], now: float | None = None) -> list[str]:
    pointer_path = write_pointer(builds, current)
    found = retention.find_garbage(Storage(str(builds)), str(builds), str(pointer_path), now)
    return sorted(g.build_id for g in found)


def test_a_folder_no_pointer_names_is_garbage(builds: Path) -> None:
    make_build(builds, "current", age=OLD)
    make_build(builds, "previous", age=OLD)
    make_build(builds, "stray", age=OLD)  # complete, unnamed, older than the retention period
    make_build(builds, "half_deleted", manifest=None)  # a killed prune: manifest gone first
    make_build(builds, "killed_publish", manifest=None)  # a killed publish, its lease gone
    current = {"build_id": "current", "previous_builds": ["previous"]}
    assert garbage_names(builds, current) == ["half_deleted", "killed_publish", "stray"]


@pytest.mark.parametrize("manifest", [layout.ALPHA_JSON, layout.BENCHMARK_JSON])
def test_a_complete_unnamed_build_is_kept_for_the_retention_period(builds: Path, manifest: str) -> None:
    """Two publishes switching at once may drop one's build from the history (no compare-and-swap);
    a worker may have seen that build, so it stays until it is BUILD_RETENTION_SECONDS old."""
    make_build(builds, "current", manifest=manifest, age=OLD)
    lost = make_build(builds, "lost", manifest=manifest)
    make_build(builds, "incomplete", manifest=None)  # no live lease: garbage at once
    written = (lost / manifest).stat().st_mtime
    current = {"build_id": "current", "previous_builds": []}
    assert garbage_names(builds, current) == ["incomplete"]
    assert garbage_names(builds, current, written + RETENTION - 1) == ["incomplete"]
    assert garbage_names(builds, current, written + RETENTION + 1) == ["incomplete", "lost"]


def test_a_leased_folder_is_kept_until_its_lease_expires(builds: Path) -> None:
    make_build(builds, "current")
    make_build(builds, "being_written", manifest=None)
    make_build(builds, "killed_publish", manifest=None)
    now = time.time()
    write_lease(builds, "being_written", now + 30)
    write_lease(builds, "killed_publish", now - 1)
    current = {"build_id": "current", "previous_builds": []}
    assert garbage_names(builds, current, now) == ["killed_publish"]
    assert garbage_names(builds, current, now + 31) == ["being_written", "killed_publish"]


def test_an_unreadable_lease_protects_nothing(builds: Path) -> None:
    make_build(builds, "current")
    make_build(builds, "stray", manifest=None)
    lease = write_lease(builds, "stray", time.time() + 30)
    lease.write_text("{not json")
    assert garbage_names(builds, {"build_id": "current"}) == ["stray"]


def test_collect_deletes_garbage_and_expired_leases_only(builds: Path) -> None:
    make_build(builds, "current")
    make_build(builds, "previous", age=OLD)
    make_build(builds, "stray", age=OLD)
    make_build(builds, "lost")  # complete, unnamed, young: kept
    make_build(builds, "writing", manifest=None)
    make_build(builds, "killed", manifest=None)
    now = time.time()
    live = write_lease(builds, "writing", now + 30)
    expired = write_lease(builds, "killed", now - 1)
    pointer_path = write_pointer(builds, {"build_id": "current", "previous_builds": ["previous"]})
    storage = Storage(str(builds))
    removed = retention.collect(storage, str(builds), str(pointer_path), now)
    assert sorted(g.build_id for g in removed) == ["killed", "stray"]
    assert sorted(p.name for p in builds.iterdir()) == ["current", "lost", "previous", "writing"]
    assert live.exists() and not expired.exists()


def test_collect_deletes_the_temporary_files_of_killed_atomic_writes_once_old(builds: Path) -> None:
    """A lease or pointer write killed between its write and its rename leaves `.<name>.<hex>.tmp`;
    one older than a lease period belongs to no live writer and is deleted, a young one is left."""
    make_build(builds, "current")
    pointer_path = write_pointer(builds, {"build_id": "current"})
    leases = builds.parent / "leases"
    leases.mkdir()
    now = time.time()
    stale = [leases / ".killed.json.0a1b.tmp", builds.parent / f".{layout.POINTER_FILE}.0a1b.tmp"]
    young = leases / ".writing.json.2c3d.tmp"
    for path in (*stale, young):
        path.write_text("{")
    for path in stale:
        os.utime(path, (now - layout.PUBLISH_LEASE_SECONDS - 5,) * 2)
    retention.collect(Storage(str(builds)), str(builds), str(pointer_path), now)
    assert not any(path.exists() for path in stale)
    assert young.exists() and (builds / "current").exists() and pointer_path.exists()


def two_alpha_lake(root: Path) -> dict[str, Path]:
    """Two alphas with a current build and a stray folder each, both complete and long written
    (so only the pointer keeps the current one)."""
    folders = {}
    for alpha in (ALPHA, "Test_second"):
        builds = root / "alphas" / alpha / "builds"
        make_build(builds, "current", age=OLD)
        make_build(builds, "stray", age=OLD)
        (root / "alphas" / alpha / "_current.json").write_text(json.dumps({"build_id": "current"}))
        folders[alpha] = builds
    return folders


@pytest.mark.parametrize(
    "corrupt",
    [
        '{"build_id": "cur',
        "[]",
        '{"alpha_id": "Test_factory"}',
        '{"build_id": ""}',
        '{"build_id": 7}',
        '{"build_id": "current", "previous_builds": "stray"}',
    ],
    ids=["truncated", "not an object", "no build", "empty build", "int build", "history not a list"],
)
def test_a_pointer_that_names_no_build_collects_nothing_under_its_alpha(
    tmp_path: Path, corrupt: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A pointer the reader calls corrupt (503) cannot say what must be kept: `lake gc` skips its
    alpha (and says so in the log), and still collects the others."""
    root = tmp_path / "lake"
    folders = two_alpha_lake(root)
    (root / "alphas" / ALPHA / "_current.json").write_text(corrupt)
    found = retention.lake_garbage(str(root))
    assert [(Path(g.builds_dir).parent.name, g.build_id) for g in found] == [("Test_second", "stray")]
    removed = retention.collect_lake(str(root))
    assert [(Path(g.builds_dir).parent.name, g.build_id) for g in removed] == [("Test_second", "stray")]
    assert sorted(p.name for p in folders[ALPHA].iterdir()) == ["current", "stray"]
    assert sorted(p.name for p in folders["Test_second"].iterdir()) == ["current"]
    skipped = [
        r for r in caplog.records if r.levelno == logging.ERROR and str(folders[ALPHA]) in r.getMessage()
    ]
    assert len(skipped) == 2, caplog.text  # one for lake_garbage, one for collect_lake


@pytest.mark.parametrize(
    "corrupt",
    [{"alpha_id": ALPHA}, {"build_id": ""}, {"build_id": 7}, {"build_id": "b", "previous_builds": "a"}],
    ids=["no build", "empty build", "int build", "history not a list"],
)
def test_history_refuses_a_pointer_that_names_no_build(corrupt: dict[str, Any]) -> None:
    with pytest.raises(catalog.CorruptLakeFile):
        retention.history(corrupt)


def test_history_of_no_pointer_is_empty_and_of_a_pointer_its_builds() -> None:
    assert retention.history(None) == set()
    assert retention.history({"build_id": "b", "previous_builds": ["a", 7]}) == {"a", "b"}


# -- collection next to a running publish (races, made deterministic) --------------------------------
#
# Another process may act between any two of the collector's storage calls. These tests run the
# collector once per position: the other process's step happens right after the collector's
# n-th call of any Storage method, for n = 1, 2, ... until the collector makes fewer calls.
# They hold whatever order the collector reads in, and fail if that order is unsafe.

STORAGE_CALLS = (
    "exists",
    "is_dir",
    "list_names",
    "list_files",
    "read_bytes",
    "file_modified_at",
    "size",
    "delete_file",
    "delete_tree",
    "write_bytes",
    "replace_atomically",
)


class Interleaved:
    """A Storage for the collector that runs `step` once, right after its `at`-th call. With
    `aged`, every file reads as written longer than the retention period ago, so only the pointer
    and the leases keep a build (the read order alone is under test, not the grace for young
    complete builds)."""

    def __init__(self, root: str, at: int, step: Callable[[], None], aged: bool = False) -> None:
        self.storage = Storage(root)
        self.at = at
        self.step = step
        self.calls: list[str] = []
        for name in STORAGE_CALLS:
            setattr(self.storage, name, self._wrap(name, getattr(self.storage, name)))
        if aged:
            real_modified = self.storage.file_modified_at

            def aged_modified(path: str) -> float | None:
                written = real_modified(path)
                return None if written is None else written - OLD

            self.storage.file_modified_at = aged_modified  # type: ignore[method-assign]

    @property
    def stepped(self) -> bool:
        return len(self.calls) >= self.at

    def _wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            self.calls.append(name)
            if len(self.calls) == self.at:
                self.step()
            return result

        return wrapped


def every_position(run: Callable[[int], Interleaved]) -> list[str]:
    """`run(at)` for at = 1, 2, ... until the other process's step no longer happens; returns the
    collector's calls (at least a few, so the test is not vacuous)."""
    at = 1
    while True:
        interleaved = run(at)
        if not interleaved.stepped:
            assert at > 4, interleaved.calls
            return interleaved.calls
        at += 1


@pytest.fixture(scope="module")
def v1_lake(tmp_path_factory: pytest.TempPathFactory, versions: list[Path]) -> Path:
    lake = tmp_path_factory.mktemp("v1_lake") / "lake"
    publish_seal(str(versions[0]), str(lake))
    return lake


def build_is_whole(lake: Path, build_id: str) -> bool:
    folder = lake / "alphas" / ALPHA / "builds" / build_id
    entry_path = folder / "alpha.json"
    if not entry_path.exists():
        return False
    files = json.loads(entry_path.read_text())["files"]
    return manifest_problem(files, local_sizes(str(folder), files)) is None


def test_collect_never_deletes_the_build_a_publish_switches_to_meanwhile(
    tmp_path: Path, v1_lake: Path, versions: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A publish has written its build under its lease; it switches the pointer and drops its lease
    between two reads of the collector. Its build (now current) must survive."""
    real_switch = publish.switch_pointer
    at_switch, go = threading.Event(), threading.Event()

    def switch_when_told(*args: Any, **kwargs: Any) -> Any:
        at_switch.set()
        assert go.wait(60)
        return real_switch(*args, **kwargs)

    monkeypatch.setattr(publish, "switch_pointer", switch_when_told)

    def run(at: int) -> Interleaved:
        lake = linked_copy(v1_lake, tmp_path / f"lake{at}")
        root = str(lake)
        at_switch.clear()
        go.clear()
        outcome: list[str] = []
        publisher = threading.Thread(
            target=lambda: outcome.append(publish_seal(str(versions[1]), root).build_id or "")
        )
        publisher.start()
        assert at_switch.wait(60)

        def the_publish_switches() -> None:
            go.set()
            publisher.join(60)

        interleaved = Interleaved(root, at, the_publish_switches, aged=True)
        builds_dir = layout.alpha_builds_dir(root, ALPHA)
        retention.collect(interleaved.storage, builds_dir, layout.alpha_pointer(root, ALPHA))
        go.set()
        publisher.join(60)
        assert outcome and pointer(lake)["build_id"] == outcome[0], interleaved.calls
        assert build_is_whole(lake, outcome[0]), f"the served build was deleted: {interleaved.calls}"
        return interleaved

    every_position(run)


def test_collect_never_deletes_a_folder_a_publish_is_writing(
    tmp_path: Path, v1_lake: Path, versions: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A publish takes its lease and starts writing between two reads of the collector; its folder
    must survive, so that it switches the pointer to a whole build."""
    first_file_written, collector_done = threading.Event(), threading.Event()
    real_write = BuildWriter.write_arrow

    def write_then_pause(self: BuildWriter, *args: Any, **kwargs: Any) -> Any:
        written = real_write(self, *args, **kwargs)
        if len(self.written) == 1:
            first_file_written.set()
            assert collector_done.wait(60)
        return written

    monkeypatch.setattr(BuildWriter, "write_arrow", write_then_pause)

    def run(at: int) -> Interleaved:
        lake = linked_copy(v1_lake, tmp_path / f"lake{at}")
        root = str(lake)
        first_file_written.clear()
        collector_done.clear()
        outcome: list[str] = []
        publisher = threading.Thread(
            target=lambda: outcome.append(publish_seal(str(versions[1]), root).build_id or "")
        )

        def a_publish_starts() -> None:
            publisher.start()
            assert first_file_written.wait(60)

        interleaved = Interleaved(root, at, a_publish_starts)
        try:
            builds_dir = layout.alpha_builds_dir(root, ALPHA)
            retention.collect(interleaved.storage, builds_dir, layout.alpha_pointer(root, ALPHA))
        finally:
            collector_done.set()
            if publisher.is_alive():
                publisher.join(60)
        if interleaved.stepped:
            assert outcome and pointer(lake)["build_id"] == outcome[0], interleaved.calls
            assert build_is_whole(lake, outcome[0]), f"the pointer names a broken build: {interleaved.calls}"
        return interleaved

    every_position(run)


def test_collect_never_drops_the_lease_of_a_publish_that_starts_meanwhile(tmp_path: Path) -> None:
    """A publish writes its lease between two calls of the collector: the lease survives, and the
    expired lease the collector read is dropped."""

    def run(at: int) -> Interleaved:
        builds = tmp_path / f"lake{at}" / "builds"
        make_build(builds, "current")
        make_build(builds, "killed", manifest=None)
        pointer_path = write_pointer(builds, {"build_id": "current"})
        expired = write_lease(builds, "killed", time.time() - 1)
        started: list[Path] = []

        def a_publish_takes_its_lease() -> None:
            started.append(write_lease(builds, "starting", time.time() + 30))

        interleaved = Interleaved(str(builds), at, a_publish_takes_its_lease)
        retention.collect(interleaved.storage, str(builds), str(pointer_path))
        assert all(lease.exists() for lease in started), f"a new lease was dropped: {interleaved.calls}"
        assert not expired.exists()
        return interleaved

    every_position(run)


def test_a_publish_of_the_alpha_while_another_switches_loses_the_race_and_writes_nothing(
    tmp_path: Path, versions: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """switch_pointer() reads the pointer, then replaces it (no compare-and-swap): a publish of the
    same alpha that switched in between used to drop out of the history, its build left complete and
    unnamed. The alpha's publish lock (`datasets.publish_lock`) now stops that second publish before
    it writes anything (`lost_race`): the history holds every build served, and nothing is left for
    the collector."""
    lake = tmp_path / "lake"
    root = str(lake)
    base = publish_seal(str(versions[0]), root).build_id
    real_next_history = retention.next_history
    other: list[publish.Outcome] = []

    def another_publish_switches_meanwhile(previous: Any, new_build_id: str, now: float) -> dict[str, Any]:
        if not other:  # this publish has read the pointer; the other one tries to switch now
            other.append(publish_seal(str(versions[2]), root))
        return real_next_history(previous, new_build_id, now)

    monkeypatch.setattr(retention, "next_history", another_publish_switches_meanwhile)
    last = publish_seal(str(versions[1]), root)
    monkeypatch.undo()
    assert len(other) == 1 and other[0].status == "lost_race", other
    assert not other[0].build_id and "lost race" in other[0].line(), other[0].line()
    assert last.status == "published" and last.build_id
    final = pointer(lake)
    assert final["build_id"] == last.build_id and final["previous_builds"] == [base], final
    builds = lake / "alphas" / ALPHA / "builds"
    assert {p.name for p in builds.iterdir()} == {base, last.build_id}  # the loser wrote no build
    assert not list((lake / "publishing").glob("*.json"))  # no intent left once the winner committed

    storage, builds_dir, pointer_path = (
        Storage(root),
        layout.alpha_builds_dir(root, ALPHA),
        layout.alpha_pointer(root, ALPHA),
    )
    later = time.time() + RETENTION + 1
    assert retention.collect(storage, builds_dir, pointer_path, now=later) == []
    assert all(build_is_whole(lake, b) for b in retention.history(pointer(lake)))


# -- the CLI ---------------------------------------------------------------------------------------


def test_lake_gc_is_a_dry_run_unless_applied(
    tmp_path: Path, versions: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    lake = tmp_path / "lake"
    root = str(lake)
    for seal in versions:
        publish_seal(str(seal), root)
    named = {pointer(lake)["build_id"], *pointer(lake)["previous_builds"]}
    builds = lake / "alphas" / ALPHA / "builds"
    make_build(builds, "killed_publish", manifest=None)
    make_build(builds, "half_deleted", manifest=None)
    make_build(builds, "being_written", manifest=None)
    write_lease(builds, "being_written", time.time() + 60)
    write_lease(builds, "killed_publish", time.time() - 1)
    garbage = sorted(layout.join(str(builds), name) for name in ("half_deleted", "killed_publish"))
    before = sorted(p.relative_to(lake) for p in lake.rglob("*"))

    assert main(["lake", "gc", "--lake", root]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines[:-1]) == [f"garbage  {path}" for path in garbage]
    assert lines[-1] == "2 build folders to delete  (dry run; pass --apply to delete them)"
    assert sorted(p.relative_to(lake) for p in lake.rglob("*")) == before  # nothing deleted

    assert main(["lake", "gc", "--lake", root, "--apply"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines[:-1]) == [f"deleted  {path}" for path in garbage]
    assert lines[-1] == f"2 build folders deleted  (lake {root})"
    assert {p.name for p in builds.iterdir()} == named | {"being_written"}
    assert [p.name for p in (builds.parent / "leases").iterdir()] == ["being_written.json"]

    assert main(["lake", "gc", "--lake", root]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "0 build folders to delete  (dry run; pass --apply to delete them)"
    ]
