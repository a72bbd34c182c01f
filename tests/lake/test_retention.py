"""Which builds the lake keeps (datasets/retention.py): the pointer's history, publish leases,
garbage collection, and `alpha-results lake gc`.

Tests marked `xfail(strict=True)` with a reason starting "BUG" reproduce defects of the code
under test; they pass (as expected failures) until the defect is fixed, then fail so the marker
is removed.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from datasets import layout, retention
from datasets.build_view import local_sizes, manifest_problem
from datasets.storage import Storage
from datasets.writer import BuildWriter
from pipeline.publish import publish_seal
from serve.cli import main
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

    assert publish_chain([("f", now + RETENTION - 1)], upgraded)["previous_builds"] == ["e", "a", "b", "c", "d"]
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


def make_build(builds: Path, name: str, manifest: bool = True) -> Path:
    folder = builds / name
    (folder / "serving").mkdir(parents=True)
    (folder / "serving" / "decisions.arrow").write_bytes(b"x" * 100)
    if manifest:
        (folder / "alpha.json").write_text("{}")
    return folder


def write_lease(builds: Path, build_id: str, expires_at: float) -> Path:
    path = Path(layout.lease_path(str(builds), build_id))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"build_id": build_id, "expires_at": expires_at}))
    return path


@pytest.fixture
def builds(tmp_path: Path) -> Path:
    folder = tmp_path / "lake" / "alphas" / ALPHA / "builds"
    folder.mkdir(parents=True)
    return folder


def garbage_names(builds: Path, current: dict[str, Any] | None, now: float | None = None) -> list[str]:
    found = retention.find_garbage(Storage(str(builds)), str(builds), current, now)
    return sorted(g.build_id for g in found)


def test_a_folder_no_pointer_names_is_garbage(builds: Path) -> None:
    for name in ("current", "previous", "stray", "half_deleted"):
        make_build(builds, name, manifest=name != "half_deleted")
    current = {"build_id": "current", "previous_builds": ["previous"]}
    assert garbage_names(builds, current) == ["half_deleted", "stray"]


def test_a_leased_folder_is_kept_until_its_lease_expires(builds: Path) -> None:
    make_build(builds, "current")
    make_build(builds, "being_written", manifest=False)
    make_build(builds, "killed_publish", manifest=False)
    now = time.time()
    write_lease(builds, "being_written", now + 30)
    write_lease(builds, "killed_publish", now - 1)
    current = {"build_id": "current", "previous_builds": []}
    assert garbage_names(builds, current, now) == ["killed_publish"]
    assert garbage_names(builds, current, now + 31) == ["being_written", "killed_publish"]


def test_an_unreadable_lease_protects_nothing(builds: Path) -> None:
    make_build(builds, "current")
    make_build(builds, "stray")
    lease = write_lease(builds, "stray", time.time() + 30)
    lease.write_text("{not json")
    assert garbage_names(builds, {"build_id": "current"}) == ["stray"]


def test_collect_deletes_garbage_and_expired_leases_only(builds: Path) -> None:
    for name in ("current", "previous", "stray", "writing", "killed"):
        make_build(builds, name)
    now = time.time()
    live = write_lease(builds, "writing", now + 30)
    expired = write_lease(builds, "killed", now - 1)
    pointer_path = builds.parent / layout.POINTER_FILE
    pointer_path.write_text(json.dumps({"build_id": "current", "previous_builds": ["previous"]}))
    storage = Storage(str(builds))
    removed = retention.collect(storage, str(builds), str(pointer_path), now)
    assert sorted(g.build_id for g in removed) == ["killed", "stray"]
    assert sorted(p.name for p in builds.iterdir()) == ["current", "previous", "writing"]
    assert live.exists() and not expired.exists()


def two_alpha_lake(root: Path) -> dict[str, Path]:
    """Two alphas with a current build and a stray folder each."""
    folders = {}
    for alpha in (ALPHA, "Test_second"):
        builds = root / "alphas" / alpha / "builds"
        make_build(builds, "current")
        make_build(builds, "stray")
        (root / "alphas" / alpha / "_current.json").write_text(json.dumps({"build_id": "current"}))
        folders[alpha] = builds
    return folders


@pytest.mark.parametrize("corrupt", ['{"build_id": "cur', "[]"], ids=["truncated", "not an object"])
def test_an_unparsable_pointer_collects_nothing_under_its_alpha(tmp_path: Path, corrupt: str) -> None:
    root = tmp_path / "lake"
    folders = two_alpha_lake(root)
    (root / "alphas" / ALPHA / "_current.json").write_text(corrupt)
    found = retention.lake_garbage(str(root))
    assert [(Path(g.builds_dir).parent.name, g.build_id) for g in found] == [("Test_second", "stray")]
    retention.collect_lake(str(root))
    assert sorted(p.name for p in folders[ALPHA].iterdir()) == ["current", "stray"]
    assert sorted(p.name for p in folders["Test_second"].iterdir()) == ["current"]


@pytest.mark.xfail(
    strict=True,
    reason="BUG: a pointer that parses but names no build (which the reader calls corrupt: 503) "
    "names nothing to retention, so `lake gc --apply` deletes every build of the alpha",
)
@pytest.mark.parametrize(
    "corrupt", ['{"alpha_id": "Test_factory"}', '{"build_id": ""}', '{"build_id": 7}'], ids=["none", "empty", "int"]
)
def test_a_pointer_without_a_build_collects_nothing_under_its_alpha(tmp_path: Path, corrupt: str) -> None:
    root = tmp_path / "lake"
    folders = two_alpha_lake(root)
    (root / "alphas" / ALPHA / "_current.json").write_text(corrupt)
    retention.collect_lake(str(root))
    assert sorted(p.name for p in folders[ALPHA].iterdir()) == ["current", "stray"]


# -- collection next to a running publish (races, made deterministic) --------------------------------


def build_is_whole(lake: Path, build_id: str) -> bool:
    folder = lake / "alphas" / ALPHA / "builds" / build_id
    entry_path = folder / "alpha.json"
    if not entry_path.exists():
        return False
    files = json.loads(entry_path.read_text())["files"]
    return manifest_problem(files, local_sizes(str(folder))) is None


@pytest.mark.xfail(
    strict=True,
    reason="BUG: collect() reads the pointer before the leases; a publish that switches and drops "
    "its lease in between loses its build (the alpha's current build) to the collector",
)
def test_collect_never_deletes_the_build_a_publish_switches_to_meanwhile(
    tmp_path: Path, versions: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = tmp_path / "lake"
    root = str(lake)
    publish_seal(str(versions[0]), root)
    real_live_leases = retention.live_leases
    published: list[str] = []

    def publish_between_pointer_and_leases(storage: Storage, builds_dir: str, now: float) -> set[str]:
        if not published:  # the collector has read the pointer; a whole publish happens now
            published.append("started")
            published.append(publish_seal(str(versions[1]), root).build_id or "")
        return real_live_leases(storage, builds_dir, now)

    monkeypatch.setattr(retention, "live_leases", publish_between_pointer_and_leases)
    builds_dir = layout.alpha_builds_dir(root, ALPHA)
    retention.collect(Storage(root), builds_dir, layout.alpha_pointer(root, ALPHA))
    assert pointer(lake)["build_id"] == published[1]
    assert build_is_whole(lake, published[1]), "the served build was deleted"


@pytest.mark.xfail(
    strict=True,
    reason="BUG: find_garbage() reads the leases before it lists the folders; a publish that "
    "takes its lease and starts writing in between has its folder deleted under it, and then "
    "switches the pointer to a build with missing files",
)
def test_collect_never_deletes_a_folder_a_publish_is_writing(
    tmp_path: Path, versions: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = tmp_path / "lake"
    root = str(lake)
    publish_seal(str(versions[0]), root)
    first_file_written, collector_done = threading.Event(), threading.Event()
    real_write = BuildWriter.write_parquet

    def write_then_pause(self: BuildWriter, *args: Any, **kwargs: Any) -> Any:
        written = real_write(self, *args, **kwargs)
        if len(self.written) == 1:
            first_file_written.set()
            collector_done.wait(30)
        return written

    monkeypatch.setattr(BuildWriter, "write_parquet", write_then_pause)
    outcome: list[str] = []
    publisher = threading.Thread(target=lambda: outcome.append(publish_seal(str(versions[1]), root).build_id or ""))
    real_live_leases = retention.live_leases
    calls: list[int] = []

    def leases_then_a_publish_starts(storage: Storage, builds_dir: str, now: float) -> set[str]:
        leased = real_live_leases(storage, builds_dir, now)
        if not calls:  # the collector has read the leases; a publish takes its lease now
            calls.append(1)
            publisher.start()
            assert first_file_written.wait(60)
        return leased

    monkeypatch.setattr(retention, "live_leases", leases_then_a_publish_starts)
    try:
        builds_dir = layout.alpha_builds_dir(root, ALPHA)
        retention.collect(Storage(root), builds_dir, layout.alpha_pointer(root, ALPHA))
    finally:
        collector_done.set()
        publisher.join(60)
    assert outcome and pointer(lake)["build_id"] == outcome[0]
    assert build_is_whole(lake, outcome[0]), "the pointer names a build with missing files"


@pytest.mark.xfail(
    strict=True,
    reason="BUG: _drop_expired_leases() reads the live leases, then lists and deletes every other "
    "lease file: a lease written in between (a publish that just started) is deleted",
)
def test_collect_never_drops_the_lease_of_a_publish_that_starts_meanwhile(
    builds: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_build(builds, "current")
    pointer_path = builds.parent / layout.POINTER_FILE
    pointer_path.write_text(json.dumps({"build_id": "current"}))
    real_live_leases = retention.live_leases
    leases: list[Path] = []

    def lease_written_after_reading(storage: Storage, builds_dir: str, now: float) -> set[str]:
        live = real_live_leases(storage, builds_dir, now)
        leases.append(write_lease(builds, f"starting{len(leases)}", time.time() + 30))
        return live

    monkeypatch.setattr(retention, "live_leases", lease_written_after_reading)
    retention.collect(Storage(str(builds)), str(builds), str(pointer_path))
    assert all(lease.exists() for lease in leases), [lease.name for lease in leases if not lease.exists()]


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
    make_build(builds, "killed_publish", manifest=False)
    make_build(builds, "half_deleted", manifest=False)
    make_build(builds, "being_written", manifest=False)
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
