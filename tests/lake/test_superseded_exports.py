"""An export of a superseded build is hashed once per change, not on every fetch (issue 22,
review item 8).

After a republish, the download route still serves the previous build's exports a while (their
URLs name that build). The reader checks such a file against the build's manifest before serving
it; it once hashed the whole file on every fetch. Now it remembers the file's stat signature (inode,
size, times) as checked: a fetch of an unchanged file hashes nothing, a file written since is
hashed again, and a damaged one is refused every time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from analytics.series import COMPUTED_EXPORTS
from datasets import integrity
from datasets.faults import BuildDamaged
from datasets.reader import LakeReader
from pipeline.publish import publish_seal
from tests.pipeline.factory import write_factory_seal
from tests.support.file_hashing import hashing

ALPHA = "Test_superseded"


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The paths of this test's lake hashed, in order."""
    return hashing(monkeypatch, tmp_path)


def test_an_unchanged_superseded_export_is_hashed_once(tmp_path: Path, hashed: list[str]) -> None:
    lake = tmp_path / "lake"
    for n, seed in enumerate((3, 4)):
        publish_seal(str(write_factory_seal(tmp_path / f"v{n}", alpha_id=ALPHA, seed=seed)), str(lake))
    pointer = json.loads((lake / "alphas" / ALPHA / "_current.json").read_text())
    old = pointer["previous_builds"][0]
    assert old != pointer["build_id"]
    manifest = json.loads((lake / "alphas" / ALPHA / "builds" / old / "alpha.json").read_text())
    relative = sorted(name for name in manifest["files"] if name.startswith("exports/"))[0]
    reader = LakeReader(str(lake), refresh_seconds=60, cache_dir=str(tmp_path / "cache"))
    reader.refresh()

    path = reader.verified_export(ALPHA, old, relative, computed=COMPUTED_EXPORTS)
    assert path is not None and hashed == [path]
    for _ in range(3):
        assert reader.verified_export(ALPHA, old, relative, computed=COMPUTED_EXPORTS) == path
    assert hashed == [path]  # fetched again, unchanged: not hashed again

    os.utime(path, ns=(1, 1))  # a write the bytes survived: hashed again, and served
    assert reader.verified_export(ALPHA, old, relative, computed=COMPUTED_EXPORTS) == path
    assert hashed == [path, path]

    with open(path, "r+b") as handle:  # damaged: refused, on every fetch
        handle.seek(100)
        byte = handle.read(1)
        handle.seek(100)
        handle.write(bytes([byte[0] ^ 0xFF]))
    for _ in range(2):
        with pytest.raises(BuildDamaged) as damaged:
            reader.verified_export(ALPHA, old, relative, computed=COMPUTED_EXPORTS)
        assert damaged.value.reason == "corrupt_file"
    assert len(hashed) == 4


def test_the_memo_is_bounded(tmp_path: Path) -> None:
    files = integrity.VerifiedFiles(capacity=2)
    for n in range(3):
        path = tmp_path / f"f{n}"
        path.write_bytes(b"x" * n)
        files.check(str(path), f"f{n}", {"bytes": n, "sha256": integrity.sha256_of(str(path))})
    assert len(files._verified) == 2 and str(tmp_path / "f0") not in files._verified
