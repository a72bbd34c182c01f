"""Publish storm (issue 9): two workers of the real server answer every valid request with one
complete build's answer while one alpha is published three times in quick succession, three times
in the suite (once on S3), ten times (five on S3) under `just soak-lake`.

The publishes come from a separate, already warm process that does what `alpha-results build v1
v2 v3` does (the three seals one after the other, then the lake's garbage), so the three pointer
switches of a round land within about a second on a local lake. Clients keep their connections
alive and spread over the two workers; every answer must be 200 and, minus `request_id`,
`generated_at`, `meta.source` and its `restated` warning, equal to the answer of a lake that holds
only the build the answer names (`meta.source`); the warning is on every answer of a build published
over another version, and on no answer of the lake's first build. Run on a local lake and on S3 (moto).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from alpha_results_seal.storage import Storage
from datasets import catalog, catalogue_index, layout, retention
from datasets.reader import LakeReader
from pipeline.publish import publish_seal
from tests.health_wait import wait_until
from tests.lake.conftest import (
    ALPHA,
    REPO,
    REQUESTS,
    Served,
    build_of,
    content_of_build,
    restated_answer_problem,
    serving,
    soak_rounds,
    without_restated,
)

pytestmark = pytest.mark.e2e

ROUNDS = soak_rounds(suite=3, soak=10)
S3_ROUNDS = soak_rounds(suite=1, soak=5)
"""Fewer on S3: moto is one Python process sharing the machine's two cores with the server and the
publisher, so a round takes 8-11 s there (1 s locally). The suite runs three rounds locally (nine
pointer switches) and one on S3 (three: what is particular to S3, the pointer and the catalogue
generation read from the bucket while a publish writes them, is met three times; the races
themselves are the local storm's too); `just soak-lake` ten and five. A second S3 round cost the
suite 15-30 s on two busy cores (docs/history.md, "Suite time under the CI limit")."""
CLIENTS = 3
REFRESH = 0.5
PAUSE = 0.01
"""Between two requests of one client: load, without starving the publisher (and moto) of CPU."""

PUBLISHER = r"""
import json, sys, time
from datasets import retention
from pipeline.publish import publish_seal

lake = sys.argv[1]
print("ready", flush=True)
for line in sys.stdin:
    done = []
    for seal in json.loads(line):
        outcome = publish_seal(seal, lake)
        done.append({"status": outcome.status, "build_id": outcome.build_id, "at": time.time()})
    retention.collect_lake(lake)  # as `alpha-results build` does after its seals
    print(json.dumps(done), flush=True)
"""


class Publisher:
    """A warm process publishing into `lake` on request (imports paid once, not per round)."""

    def __init__(self, lake: str, log: Path) -> None:
        self.log = log
        with log.open("wb") as sink:
            self.process = subprocess.Popen(
                [sys.executable, "-c", PUBLISHER, lake],
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=sink,
                text=True,
            )
        assert self.readline() == "ready"

    def readline(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f"the publisher died:\n{self.log.read_text()}")
        return line.strip()

    def publish(self, seals: list[Path]) -> list[dict[str, Any]]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps([str(s) for s in seals]) + "\n")
        self.process.stdin.flush()
        done: list[dict[str, Any]] = json.loads(self.readline())
        assert [d["status"] for d in done] == ["published"] * len(seals), done
        return done

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


class Load:
    """Client threads, each on its own keep-alive connection, checking every answer."""

    def __init__(self, served: Served, complete: dict[str, dict[str, dict[str, Any]]], first: str) -> None:
        self.served = served
        self.first = first  # the build the lake published first
        self.complete = complete
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.failures: list[str] = []
        self.answers = 0
        self.versions: Counter[str] = Counter()
        self.threads = [threading.Thread(target=self.run, args=(n,), daemon=True) for n in range(CLIENTS)]

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)

    def fail(self, message: str) -> None:
        with self.lock:
            self.failures.append(message)

    def run(self, seed: int) -> None:
        rng = random.Random(seed)
        client = self.served.client()
        while not self.stop.is_set():
            path = rng.choice(REQUESTS)
            try:
                status, raw = client.get(path)
            except OSError as exc:  # includes a connection the server dropped
                self.fail(f"{path}: {type(exc).__name__}: {exc}")
                continue
            self.check(path, status, raw)
            time.sleep(PAUSE)
        client.close()

    def check(self, path: str, status: int, raw: bytes) -> None:
        if status != 200:
            self.fail(f"{path}: {status} {raw[:300]!r}")
            return
        body = json.loads(raw)
        build = build_of(body)
        complete = self.complete.get(content_of_build(build))
        if complete is None:
            self.fail(f"{path}: answered from build {build}, not a build of any version")
            return
        answer, restated = without_restated(body)
        if answer != complete[path]:
            same_as = [c for c, a in self.complete.items() if a[path] == answer]
            self.fail(
                f"{path}: build {build} answered differently from its complete answer (equal to {same_as})"
            )
            return
        # Only the lake's first build restates nothing: every later one was published over another
        # version, which it restates everywhere.
        problem = restated_answer_problem(restated, restated=build != self.first)
        if problem is not None:
            self.fail(f"{path}: build {build}: {problem}")
            return
        with self.lock:
            self.answers += 1
            self.versions[content_of_build(build)] += 1


def serves(served: Served, build_id: str) -> bool:
    """Ten answers in a row on new connections (so from both workers) name `build_id`."""
    for _ in range(10):
        status, body = served.get(REQUESTS[-1])
        if status != 200 or build_of(body) != build_id:
            return False
    return True


def check_storm(
    root: str,
    versions: list[Path],
    complete: dict[str, dict[str, dict[str, Any]]],
    key: tuple[str, dict[str, str]],
    folder: Path,
    rounds: int = ROUNDS,
) -> None:
    publisher = Publisher(root, folder / "publisher.log")
    try:
        first = publisher.publish([versions[-1]])[0]["build_id"]  # each round then starts with v1
        with serving(root, key, folder, workers=2, refresh_seconds=REFRESH) as served:
            wait_until(lambda: serves(served, first), "both workers serve the first build")
            spans, durations = [], []
            started = time.monotonic()
            with Load(served, complete, first) as load:
                for _ in range(rounds):
                    begun = time.monotonic()
                    done = publisher.publish(versions)
                    durations.append(time.monotonic() - begun)
                    spans.append(done[-1]["at"] - done[0]["at"])
                    time.sleep(REFRESH)  # the storm's pace: a refresh between two rounds
                # The clients go on until they have read enough to show something (20 answers a
                # round), however slowly a busy machine lets them.
                wait_until(lambda: load.answers >= 20 * rounds, f"{20 * rounds} answers to the clients")
            elapsed = time.monotonic() - started
            assert served.process.poll() is None, served.output()
        print(
            f"\n{root}: {load.answers} good answers, {len(load.failures)} bad, in {elapsed:.1f} s; "
            f"by version {dict(load.versions)}; round durations (s) {[round(r, 2) for r in durations]}; "
            f"first-to-last publish per round (s) {[round(s, 2) for s in spans]}"
        )
        assert not load.failures, f"{len(load.failures)} bad answers, first ones:\n" + "\n".join(
            load.failures[:20]
        )
        assert len(load.versions) >= 2, load.versions  # the clients saw the storm
    finally:
        publisher.close()

    # Every build superseded within the retention window is still in the lake, and nothing else.
    current = catalog.read_json(Storage(root), layout.alpha_pointer(root, ALPHA))
    assert current is not None
    assert len(current["previous_builds"]) == 3 * rounds
    assert retention.lake_garbage(root) == []


def test_publish_storm_on_a_local_lake(
    versions: list[Path],
    complete_answers: dict[str, dict[str, dict[str, Any]]],
    api_key: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    check_storm(str(tmp_path / "lake"), versions, complete_answers, api_key, tmp_path)


@pytest.mark.s3
def test_publish_storm_on_s3(
    s3_bucket: str,
    versions: list[Path],
    complete_answers: dict[str, dict[str, dict[str, Any]]],
    api_key: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    check_storm(f"s3://{s3_bucket}/lake", versions, complete_answers, api_key, tmp_path, S3_ROUNDS)


@pytest.mark.s3
def test_generations_committed_while_a_worker_reads_them_are_not_an_outage(
    s3_bucket: str, versions: list[Path], other_seal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Publishes commit new catalogue generations while a worker's refresh reads the chain. The
    refresh reads one version or the other; it never fails, so the lake is not reported down and
    no alpha answers 503."""
    root = f"s3://{s3_bucket}/lake"
    first = publish_seal(str(versions[0]), root).build_id
    storage = Storage(root)
    generations = [catalogue_index.newest(storage, root)]
    second = publish_seal(str(versions[1]), root).build_id
    publish_seal(str(other_seal), root)
    generations.append(catalogue_index.newest(storage, root))
    reader = LakeReader(root, refresh_seconds=REFRESH, cache_dir=str(tmp_path / "cache"))
    reader.refresh()
    build = reader.alpha(ALPHA)
    assert build is not None and build.build_id == second

    # Another writer commits generations (one version's index, then the other's) as fast as it
    # can while the worker refreshes: every refresh reads a whole generation, old or new.
    stop = threading.Event()
    committed: list[int] = []

    def writer() -> None:
        number = max(g.number for g in generations if g is not None)
        while not stop.is_set() and len(committed) < 40:
            number += 1
            named = generations[len(committed) % 2]
            assert named is not None
            document = {**named.document(), "generation": number}
            storage.create_exclusive(
                catalogue_index.generation_path(root, number), json.dumps(document).encode()
            )
            committed.append(number)

    thread = threading.Thread(target=writer)
    thread.start()
    seen = set()
    try:
        for _ in range(40):
            reader.refresh()
            health = reader.health()
            assert not health.down and health.alphas == {}, health
            build = reader.alpha(ALPHA)
            assert build is not None and build.build_id in {first, second}
            seen.add(build.build_id)
    finally:
        stop.set()
        thread.join()
    assert len(committed) >= 10, committed
    build = reader.alpha(ALPHA)
    assert build is not None and build.build_id in {first, second}
