"""A lake folder that goes away while the reader hashes an open build (an unmounted volume) is an
outage, never that build's damage: a request meanwhile is not refused as damaged (what it sees is
the lake's outage or, for a cached answer, the answer), and the build's check resumes once the
folder is back. (CI once caught a request in the instant between a check marking the build
damaged and the reader finding the whole folder gone.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from datasets import integrity
from datasets.faults import BuildDamaged
from datasets.reader import LakeReader
from tests.lake.conftest import ALPHA
from tests.support.missing_files import lake_copy
from tests.support.missing_files import template_lake as template_lake  # a fixture


def test_a_check_that_finds_the_lake_gone_never_shows_the_build_damaged(
    template_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = lake_copy(template_lake, tmp_path / "lake")
    unmounted = tmp_path / "unmounted"
    reader = LakeReader(str(lake), refresh_seconds=60)
    reader.refresh()
    alpha = reader.alpha(ALPHA)
    assert alpha is not None
    view = reader.view(alpha)
    assert not view.hashes_verified

    real_hash = integrity.sha256_of

    def unmount_then_hash(path: str) -> str:
        # Only this lake's check: a reader another test left behind may be hashing its own lake.
        if str(path).startswith(str(lake)) and lake.exists():
            lake.rename(unmounted)  # the volume goes away in the middle of the check
        return real_hash(path)

    seen: list[BuildDamaged | None] = []  # what a request reads of the build as the check finds it
    real_damaged = view.damaged

    def damaged(exc: BuildDamaged) -> Any:
        found = real_damaged(exc)
        seen.append(view.damage)
        return found

    monkeypatch.setattr(integrity, "sha256_of", unmount_then_hash)
    monkeypatch.setattr(view, "damaged", damaged)
    reader.refresh()  # reads the catalogue, then hashes the open build: the folder goes mid-hash
    assert not lake.exists() and seen, "the check did not run into the missing folder"
    assert seen == [None] * len(seen)
    assert view.damage is None
    assert reader.ready_view(alpha) is view  # still open, not closed as failed

    monkeypatch.setattr(integrity, "sha256_of", real_hash)
    unmounted.rename(lake)
    reader.refresh()
    assert view.hashes_verified and view.damage is None
    assert reader.view(alpha) is view
