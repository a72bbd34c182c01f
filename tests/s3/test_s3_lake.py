"""The lake on S3: the pipeline publishes atomically and the catalogue reads it back, against a
real S3-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import fsspec
import pytest

from datasets import catalog
from datasets.writer import BuildWriter
from pipeline.publish import publish_seal
from tests.pipeline.conftest import copy_seal
from tests.support.lake_refresh import check_new_build_and_new_alpha_are_served

pytestmark = pytest.mark.s3


def test_s3_lake_holds_the_same_alphas_and_builds_as_a_local_lake(s3_demo_lake: str, demo_lake: Path) -> None:
    # Each publish writes a folder of its own (`<content_id>-<suffix>`): equal content, equal prefix.
    local = {a["alpha_id"]: a["build_id"].rsplit("-", 1)[0] for a in catalog.list_alphas(str(demo_lake))}
    remote = {a["alpha_id"]: a["build_id"].rsplit("-", 1)[0] for a in catalog.list_alphas(s3_demo_lake)}
    assert remote == local
    assert len(remote) == 7
    benchmark = catalog.current_benchmark(s3_demo_lake, "SPY")
    assert benchmark is not None


def test_rebuild_on_s3_is_unchanged(s3_bucket: str, demo_seals: Path) -> None:
    root = f"s3://{s3_bucket}/lake"
    first = publish_seal(str(demo_seals / "Test_planted_factor"), root)
    second = publish_seal(str(demo_seals / "Test_planted_factor"), root)
    assert (first.status, second.status) == ("published", "unchanged")
    assert first.build_id == second.build_id


def test_crash_mid_publish_on_s3_keeps_the_old_build_served(
    s3_bucket: str, demo_seals: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = f"s3://{s3_bucket}/lake"
    old = publish_seal(str(demo_seals / "Test_planted_factor"), root)
    fs, _ = fsspec.core.url_to_fs(root)
    pointer = f"{s3_bucket}/lake/alphas/Test_planted_factor/_current.json"
    old_pointer = fs.cat_file(pointer)

    changed = copy_seal(demo_seals / "Test_planted_factor", tmp_path / "Test_planted_factor")
    manifest = json.loads((changed / "manifest.json").read_text())
    manifest["tldr"] = "A second sealing of the same run."
    (changed / "manifest.json").write_text(json.dumps(manifest))
    description = json.loads((changed / "description.json").read_text())
    description["tldr"] = manifest["tldr"]  # one text in both files, or the seal is refused
    (changed / "description.json").write_text(json.dumps(description))

    real_write = BuildWriter.write_arrow
    calls = {"n": 0}

    def failing_write(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > 2:  # the third serving file: the rows are committed, the folder half written
            raise OSError("object store went away")
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(BuildWriter, "write_arrow", failing_write)
    with pytest.raises(OSError, match="object store went away"):
        publish_seal(str(changed), root)
    fs.invalidate_cache()
    assert fs.cat_file(pointer) == old_pointer
    build = catalog.current_build(root, "Test_planted_factor")
    assert build is not None and build.build_id == old.build_id
    assert catalog.read_alpha(root, build)["tldr"] != "A second sealing of the same run."

    monkeypatch.setattr(BuildWriter, "write_arrow", real_write)
    retry = publish_seal(str(changed), root)
    assert retry.status == "published" and retry.build_id != old.build_id
    fs.invalidate_cache()
    build = catalog.current_build(root, "Test_planted_factor")
    assert (
        build is not None and catalog.read_alpha(root, build)["tldr"] == "A second sealing of the same run."
    )


def test_running_server_serves_new_builds_and_new_alphas_from_s3(
    s3_bucket: str, demo_seals: Path, tmp_path: Path
) -> None:
    # s3fs caches folder listings for the life of a filesystem; the reader must not rely on them.
    check_new_build_and_new_alpha_are_served(f"s3://{s3_bucket}/lake", demo_seals, tmp_path)
