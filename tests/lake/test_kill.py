"""Kill (issue 9): SIGKILL a publish (`alpha-results build`) and a collection (`alpha-results lake gc
--apply`, and the prune at the end of a publish) at random points of their work.

After every kill, the build the pointer names is whole (every file its manifest lists, with the
recorded size and SHA-256), so are the builds it retains, and the app over the lake answers every
request with exactly the answer of that build (no 503). At the end, once the killed publishes'
leases have expired (written into the past: the test does not wait PUBLISH_LEASE_SECONDS), `lake gc
--apply` leaves the builds the pointer names (`build_id` and `previous_builds`) and the complete
builds no pointer names that are younger than BUILD_RETENTION_SECONDS (a publish killed between
writing its manifest and switching); once those are older (their manifests' times set into the
past), it leaves only the named builds.

Kill points are drawn from a seeded generator, stratified over the window in which the process
does its work (measured by runs that are not killed), so every part of that window is hit:
writing, the pointer switch, dropping the lease, the prune, and the lake-wide collection. A
publish is killed half the time counted from its lease (writing) and half from the switch seen in
the catalogue index (the prune, the exit), so a killed run faster or slower than the calibration
still lands on both sides. The suite kills four times per test, at least once on each side of the
switch; `just soak-lake` ten.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.settings import Settings
from datasets import layout
from datasets.build_view import local_sizes, manifest_problem
from pipeline.index_rows import current_rows
from pipeline.publish import publish_seal
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.health_wait import wait_until
from tests.lake.conftest import (
    ALPHA,
    FULL_REQUESTS,
    REPO,
    build_of,
    content_id_of,
    content_of_build,
    pointer,
    restated_answer_problem,
    soak_rounds,
    without_restated,
)

pytestmark = pytest.mark.slow

ROUNDS = soak_rounds(suite=4, soak=10)
"""Kills per test: in the suite two on each side of a publish's pointer switch, and four across a
collection; `just soak-lake` draws ten, stratified over the whole window (every part of it hit)."""
EXTRA_ROUNDS = 10  # at most, only when the planned rounds missed one side of the switch
GARBAGE_FOLDERS = 6  # left by earlier crashes, for every prune to work through


class Lake:
    """The lake under test and the app serving it (catalogue re-read on demand)."""

    def __init__(self, root: Path, client: TestClient[Any], reader: Any) -> None:
        self.root = root
        self.client = client
        self.reader = reader
        self.alpha_dir = root / "alphas" / ALPHA
        self.builds = self.alpha_dir / "builds"
        self.leases = self.alpha_dir / "leases"

    def named(self) -> set[str]:
        """The builds kept: the pointer's history and the build the catalogue index serves."""
        current = pointer(self.root)
        return {current["build_id"], *current.get("previous_builds", []), indexed(self.root)}

    def lease_names(self) -> set[str]:
        """Leases, and the temporary files of lease writes killed before their rename."""
        return {p.name for p in self.leases.iterdir()} if self.leases.is_dir() else set()

    def add_garbage(self, tag: str) -> list[Path]:
        """Copies of the current build no pointer names, left long ago (by a lost race or a crash):
        older than the retention period, so any collection deletes them."""
        source = self.builds / pointer(self.root)["build_id"]
        made = []
        for n in range(GARBAGE_FOLDERS):
            target = self.builds / f"garbage-{tag}-{n}"
            shutil.copytree(source, target)
            age_manifest(target)
            made.append(target)
        return made


def age_manifest(build: Path, age: float = layout.BUILD_RETENTION_SECONDS + 60) -> None:
    """Sets the manifest's modification time `age` seconds into the past."""
    written = time.time() - age
    os.utime(build / layout.ALPHA_JSON, (written, written))


def whole(build: Path) -> str | None:
    """Why `build` is not whole, or None: every file of its manifest there, size and SHA-256."""
    entry_path = build / "alpha.json"
    if not entry_path.exists():
        return "no alpha.json"
    files = json.loads(entry_path.read_text())["files"]
    problem = manifest_problem(files, local_sizes(str(build), files))
    if problem is not None:
        return str(problem)
    for relative, recorded in files.items():
        if hashlib.sha256((build / relative).read_bytes()).hexdigest() != recorded["sha256"]:
            return f"{relative} does not match its SHA-256"
    return None


def indexed(root: Path) -> str:
    """The build of ALPHA the catalogue index's newest generation names: what readers serve. A
    publish killed after its pointer switch and before its index commit has not published yet
    (the next publish or `lake index` completes it)."""
    rows = current_rows(str(root))
    assert rows is not None
    by_alpha = dict(zip(*(rows.column(n).to_pylist() for n in ("alpha_id", "build_id")), strict=True))
    return str(by_alpha[ALPHA])


def check_served(lake: Lake, complete: dict[str, dict[str, dict[str, Any]]], context: str) -> str:
    """The build the index serves and the pointer's builds are whole, and the served one is served
    exactly; returns its id."""
    build_id = indexed(lake.root)
    for named in sorted(lake.named()):
        problem = whole(lake.builds / named)
        assert problem is None, f"{context}: named build {named} is not whole: {problem}"
    lake.reader.refresh()
    expected = complete[content_of_build(build_id)]
    for path in FULL_REQUESTS:
        response = lake.client.get(path, headers={"Authorization": "Bearer plain"})
        assert response.status_code == 200, f"{context}: {path}: {response.text}"
        body = response.json()
        assert build_of(body) == build_id, f"{context}: {path} answered from {build_of(body)}"
        # Every build served here was published over another version: it restates every session.
        answer, restated = without_restated(body)
        problem = restated_answer_problem(restated, restated=True)
        assert problem is None, f"{context}: {path}: {problem}"
        assert answer == expected[path], f"{context}: {path} differs from its build's answer"
    return str(build_id)


def cli(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


def run_cli(*args: str) -> str:
    process = cli(*args)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output.decode(errors="replace")
    return output.decode()


def kill_at(
    process: subprocess.Popen[bytes],
    started: Callable[[], bool],
    delay: float,
    then: Callable[[], bool] | None = None,
) -> tuple[float, bool]:
    """SIGKILL `process` `delay` seconds after `started()` first holds (and then `then()`, if
    given); returns (the time from the last of them to the kill, whether the process was still
    running when killed)."""
    wait_until(lambda: started() or process.poll() is not None, "the process starts its work", interval=0.002)
    if then is not None:
        wait_until(
            lambda: then() or process.poll() is not None, "the process reaches the point", interval=0.002
        )
    begun = time.monotonic()
    time.sleep(delay)
    running = process.poll() is None
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    return time.monotonic() - begun, running


def work_window(
    process: subprocess.Popen[bytes], started: Callable[[], bool], done: Callable[[], bool]
) -> tuple[float, float]:
    """When nobody kills the process: seconds from `started()` first holding to `done()` holding,
    and to the process's exit."""
    wait_until(lambda: started() or process.poll() is not None, "the process starts its work", interval=0.002)
    begun = time.monotonic()
    wait_until(lambda: done() or process.poll() is not None, "the process does its work", interval=0.002)
    finished = time.monotonic() - begun
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output.decode(errors="replace")
    return finished, time.monotonic() - begun


def stratified(rng: random.Random, window: float, count: int = ROUNDS) -> list[float]:
    """`count` delays covering [0, window): one uniform draw per slice, in random order."""
    delays = [(n + rng.random()) * window / count for n in range(count)]
    rng.shuffle(delays)
    return delays


def expire_leases(lake: Lake) -> None:
    """What waiting PUBLISH_LEASE_SECONDS would do: every lease has expired."""
    for lease in lake.leases.glob("*.json"):
        document = json.loads(lease.read_text())
        document["expires_at"] = time.time() - 1
        lease.write_text(json.dumps(document))


def collect_and_check(lake: Lake, complete: dict[str, dict[str, dict[str, Any]]]) -> None:
    """`lake gc --apply` after the leases expired leaves the named builds and the young complete
    builds no pointer names (each whole); once those are old, only the named builds, served."""
    expire_leases(lake)
    output = run_cli("lake", "gc", "--apply", "--lake", str(lake.root))
    young = {
        p.name: p for p in lake.builds.iterdir() if p.name not in lake.named() and (p / "alpha.json").exists()
    }
    assert {p.name for p in lake.builds.iterdir()} == lake.named() | set(young), output
    for name, folder in sorted(young.items()):
        assert whole(folder) is None, f"an unnamed build kept for the retention period is broken: {name}"
        assert time.time() - (folder / "alpha.json").stat().st_mtime < layout.BUILD_RETENTION_SECONDS
    # A lease write killed before its rename leaves a temporary file; gc deletes it once it is older
    # than a lease period (it belongs to no live writer then), so a young one may stay for now.
    left = lake.lease_names()
    assert all(name.startswith(".") and name.endswith(".tmp") for name in left), left
    for name in left:
        assert time.time() - (lake.leases / name).stat().st_mtime < layout.PUBLISH_LEASE_SECONDS
    check_served(lake, complete, "after lake gc --apply")

    for folder in young.values():
        age_manifest(folder)
    output = run_cli("lake", "gc", "--apply", "--lake", str(lake.root))
    assert {p.name for p in lake.builds.iterdir()} == lake.named(), output
    check_served(lake, complete, "after lake gc --apply, the retention period over")
    assert run_cli("lake", "gc", "--lake", str(lake.root)).splitlines()[-1].startswith("0 build folders")
    print(f"{len(young)} complete unnamed builds kept for the retention period, then collected")


@pytest.fixture
def lake(tmp_path: Path, versions: list[Path]) -> Iterator[Lake]:
    root = tmp_path / "lake"
    publish_seal(str(versions[0]), str(root))
    settings = Settings(lake=str(root), environment="test", lake_refresh_seconds=60)
    app = create_app(settings, authenticate=fake_authenticate, limiter=None)
    with TestClient(app=app) as client:
        yield Lake(root, client, app.state["services"].reader)


def test_a_killed_publish_never_leaves_a_broken_or_hidden_build(
    lake: Lake, versions: list[Path], complete_answers: dict[str, dict[str, dict[str, Any]]]
) -> None:
    rng = random.Random(20261122)
    publish_seal(str(versions[1]), str(lake.root))
    publish_seal(str(versions[0]), str(lake.root))  # v1 served again, v2 retained
    seal_of = {content_id_of(seal): seal for seal in versions[:2]}

    def publish(tag: str) -> tuple[subprocess.Popen[bytes], Callable[[], bool]]:
        lake.add_garbage(tag)  # the publish's prune has work to do, and can be killed in it
        current = content_of_build(indexed(lake.root))
        seal = next(s for c, s in seal_of.items() if c != current)  # the version not served
        before = lake.lease_names()
        process = cli("build", str(seal), "--lake", str(lake.root), "--jobs", "1")
        return process, lambda: bool(lake.lease_names() - before)  # it took its lease: writing now

    def switched_from(served: str) -> Callable[[], bool]:
        return lambda: indexed(lake.root) != served

    # Calibration, twice, not killed: the switch comes `switch` seconds after the lease is taken.
    timings = []
    for run in range(2):
        timings.append(work_window(*publish(f"calibration{run}"), switched_from(indexed(lake.root))))
        check_served(lake, complete_answers, "after a publish that was not killed")
    switch = min(t[0] for t in timings)
    window = max(max(t[1] - t[0] for t in timings), 0.5 * switch)
    # Half the kills timed from the lease while the build is written, half from the switch seen
    # (the prune, the exit): a killed run need not keep the calibration's pace, so the second half
    # waits for the switch itself rather than for the time it took then.
    kills = [("lease", d) for d in stratified(rng, switch, ROUNDS // 2)]
    kills += [("switch", d) for d in stratified(rng, window, ROUNDS // 2)]
    rng.shuffle(kills)
    seen: dict[str, list[float]] = {"before the switch": [], "after the switch": [], "not running": []}

    def kill_round(round_: int, timed_from: str, delay: float) -> None:
        before = indexed(lake.root)
        then = switched_from(before) if timed_from == "switch" else None
        waited, running = kill_at(*publish(f"r{round_}"), delay, then)
        after = check_served(
            lake, complete_answers, f"round {round_}, killed {waited:.3f} s after the {timed_from}"
        )
        outcome = (
            "not running" if not running else "after the switch" if after != before else "before the switch"
        )
        seen[outcome].append(delay)

    for round_, (timed_from, delay) in enumerate(kills):
        kill_round(round_, timed_from, delay)
    # A killed run faster than the calibration can finish before its delay, or switch before it:
    # then kill the moment the missed side begins.
    for round_ in range(ROUNDS, ROUNDS + EXTRA_ROUNDS):
        if seen["before the switch"] and seen["after the switch"]:
            break
        kill_round(round_, "lease" if not seen["before the switch"] else "switch", 0.0)
    outcomes = Counter({outcome: len(at) for outcome, at in seen.items() if at})
    print(f"\npublish: switch at {switch:.2f} s, exit {window:.2f} s after; kills: {dict(outcomes)}")
    assert outcomes["before the switch"] >= 1 and outcomes["after the switch"] >= 1, outcomes

    # A killed publish's folder is kept while its lease lives, and collected once it expired.
    # Leases of early rounds may have expired by now: only those live for a while longer count.
    leased = {
        lease.stem
        for lease in lake.leases.glob("*.json")
        if json.loads(lease.read_text())["expires_at"] > time.time() + 10
    }
    dry_run = run_cli("lake", "gc", "--lake", str(lake.root))
    assert not any(f"/builds/{build_id}" in dry_run for build_id in leased), dry_run
    collect_and_check(lake, complete_answers)


def test_a_killed_collection_never_leaves_a_broken_or_hidden_build(
    lake: Lake, versions: list[Path], complete_answers: dict[str, dict[str, dict[str, Any]]]
) -> None:
    rng = random.Random(11222026)
    publish_seal(str(versions[1]), str(lake.root))  # a retained previous build as well
    assert len(lake.named()) == 2

    garbage: list[Path] = []

    def collect(tag: str) -> tuple[subprocess.Popen[bytes], Callable[[], bool]]:
        garbage[:] = lake.add_garbage(tag)
        process = cli("lake", "gc", "--apply", "--lake", str(lake.root))
        return process, lambda: any(not (folder / "alpha.json").exists() for folder in garbage)

    def collected() -> bool:
        return not any(folder.exists() for folder in garbage)

    # The window: from the first manifest deleted to the last folder gone, and a little after.
    window = 1.2 * work_window(*collect("calibration"), collected)[0]
    seen: dict[str, list[float]] = {"mid-collection": [], "done": [], "not running": []}

    def kill_round(round_: int, delay: float) -> None:
        waited, running = kill_at(*collect(f"r{round_}"), delay)
        check_served(lake, complete_answers, f"round {round_}, killed {waited:.3f} s into the collection")
        gone = sum(not folder.exists() for folder in garbage)
        seen["not running" if not running else "done" if gone == len(garbage) else "mid-collection"].append(
            delay
        )

    for round_, delay in enumerate(stratified(rng, window)):
        kill_round(round_, delay)
    # A calibration slower than the killed runs: aim below the earliest kill that came too late.
    for round_ in range(ROUNDS, ROUNDS + EXTRA_ROUNDS):
        if seen["mid-collection"]:
            break
        kill_round(round_, rng.uniform(0.0, min(seen["done"] + seen["not running"])))
    outcomes = Counter({outcome: len(at) for outcome, at in seen.items() if at})
    leftovers = [p.name for p in lake.builds.iterdir() if p.name not in lake.named()]
    print(f"\ncollection window {window:.3f} s; kills: {dict(outcomes)}; {len(leftovers)} folders left")
    assert outcomes["mid-collection"] >= 1, outcomes
    collect_and_check(lake, complete_answers)
