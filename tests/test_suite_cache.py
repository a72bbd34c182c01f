"""The suite's cache of what it builds once (tests/conftest.py `built_once`): a run checks a kept
folder once and then trusts it, and no process deletes a folder another one is building.

Found on a fresh machine (the fourteenth session): one worker's `forget_unused` took the families
lake another worker was building (its digest folder had no `used` mark yet) for an unused one and
deleted most of it; the half that was left was then kept as whole, and 26 tests failed in that run
and would have in every later run of the same code."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests import conftest


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ALPHA_RESULTS_TEST_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_folder_being_built_is_not_taken_for_unused(cache: Path) -> None:
    building = cache / "other-digest"
    (building / "shared-lake").mkdir(parents=True)  # another process is writing it: no `used` mark
    stale = cache / "stale-digest"
    stale.mkdir()
    (stale / "used").touch()
    old = time.time() - (conftest.CACHE_DAYS + 1) * 86400
    os.utime(stale / "used", (old, old))
    conftest.forget_unused(cache, cache / "this-digest")
    assert building.exists() and not stale.exists()


def test_a_run_builds_a_kept_folder_once_and_a_later_run_rebuilds_a_changed_one(
    cache: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[Path] = []

    def build(folder: Path) -> None:
        builds.append(folder)
        (folder / "file.txt").write_text("built")

    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-1")
    folder = conftest.built_once(tmp_path_factory, "thing", build)
    assert (folder.parent / "used").exists()
    (folder / "file.txt").write_text("changed by a test of this run")
    # Asked again in the same run (another worker): read as it is, never deleted under a reader.
    assert conftest.built_once(tmp_path_factory, "thing", build) == folder and len(builds) == 1
    assert (folder / "file.txt").read_text() == "changed by a test of this run"
    # The next run finds it changed since it was built: built again.
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-2")
    conftest.built_once(tmp_path_factory, "thing", build)
    assert len(builds) == 2 and (folder / "file.txt").read_text() == "built"
    # And a run after that, finding it as built, reads it without building.
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-3")
    conftest.built_once(tmp_path_factory, "thing", build)
    assert len(builds) == 2
