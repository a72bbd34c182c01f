"""Seals are untrusted: nothing outside a seal is read, published or described (issue 22, item 1).

A symlink in a seal published any file of the build host: `source.zip` pointing at the signing
key was refused with a report printing the key's real size and SHA-256, and published once the
manifest carried them. Every entry that is not a regular file or folder of the seal itself is now
refused before a byte is read, naming the entry and nothing about its target.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from datasets.storage import Storage
from pipeline.publish import publish_seal
from pipeline.rules import SealRejected
from pipeline.seal import owned_files
from tests.pipeline.factory import write_factory_seal

SECRET = b"the signing key of the build host\n" * 10


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "host" / "signing.key"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    return path


def refused(seal: Path, lake: Path) -> SealRejected:
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(seal), str(lake))
    assert caught.value.rule == "seal.regular_files", caught.value.report()
    assert not (lake / "alphas").exists() or not any((lake / "alphas").iterdir())
    return caught.value


def assert_nothing_told_of(error: SealRejected, secret: Path) -> None:
    report = json.dumps(error.as_dict()) + error.report()
    for fact in (str(len(SECRET)), hashlib.sha256(SECRET).hexdigest(), "signing key", str(secret)):
        assert fact not in report, fact


def test_a_source_zip_linked_to_the_signing_key_is_refused_and_nothing_told_of_it(
    tmp_path: Path, secret: Path
) -> None:
    seal = write_factory_seal(tmp_path / "seal")
    manifest = json.loads((seal / "manifest.json").read_text())
    # The manifest even carries the target's true size and hash, as the attack did.
    manifest["source_archive"] = {
        "status": "ready",
        "size_bytes": len(SECRET),
        "sha256": hashlib.sha256(SECRET).hexdigest(),
    }
    (seal / "manifest.json").write_text(json.dumps(manifest))
    (seal / "source.zip").unlink(missing_ok=True)
    (seal / "source.zip").symlink_to(secret)
    error = refused(seal, tmp_path / "lake")
    assert "source.zip is a symbolic link" in error.message
    assert_nothing_told_of(error, secret)


def test_a_parquet_linked_to_another_seals_file_is_refused(tmp_path: Path) -> None:
    other = write_factory_seal(tmp_path / "other", alpha_id="Test_other", seed=9)
    seal = write_factory_seal(tmp_path / "seal")
    (seal / "rebalances.parquet").unlink()
    (seal / "rebalances.parquet").symlink_to(other / "rebalances.parquet")
    assert "rebalances.parquet is a symbolic link" in refused(seal, tmp_path / "lake").message


def test_a_linked_book_folder_is_refused(tmp_path: Path) -> None:
    other = write_factory_seal(tmp_path / "other", alpha_id="Test_other", seed=9)
    seal = write_factory_seal(tmp_path / "seal")
    books = [p for p in seal.iterdir() if p.is_dir()]
    assert books, "the factory seal has book folders"
    folder = books[0]
    for file in folder.iterdir():
        file.unlink()
    folder.rmdir()
    folder.symlink_to(other / folder.name, target_is_directory=True)
    assert f"{folder.name} is a symbolic link" in refused(seal, tmp_path / "lake").message


def test_a_hard_link_to_a_file_elsewhere_is_refused(tmp_path: Path, secret: Path) -> None:
    seal = write_factory_seal(tmp_path / "seal")
    (seal / "source.zip").unlink(missing_ok=True)
    os.link(secret, seal / "source.zip")
    error = refused(seal, tmp_path / "lake")
    assert "source.zip is a hard link" in error.message
    assert_nothing_told_of(error, secret)


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    seal = write_factory_seal(tmp_path / "seal")
    os.mkfifo(seal / "notes.bin")  # opening it to read would block the build forever
    assert "notes.bin is a device, fifo or socket" in refused(seal, tmp_path / "lake").message


def test_a_linked_seal_folder_or_manifest_is_refused(tmp_path: Path) -> None:
    seal = write_factory_seal(tmp_path / "seal")
    (tmp_path / "alias").symlink_to(seal, target_is_directory=True)
    assert "is a symbolic link" in refused(tmp_path / "alias", tmp_path / "lake").message
    other = write_factory_seal(tmp_path / "other", alpha_id="Test_other", seed=9)
    (seal / "manifest.json").unlink()
    (seal / "manifest.json").symlink_to(other / "manifest.json")
    assert "manifest.json is a symbolic link" in refused(seal, tmp_path / "lake").message


class Listed:
    """An object store's listing (no links there; a key is any string)."""

    is_local = False

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def list_files(self, path: str) -> list[str]:
        return self.names


@pytest.mark.parametrize("name", ["../other/source.zip", "a//b.parquet", "./manifest.json", "pnl\\x.parquet"])
def test_an_object_key_leaving_the_seal_is_refused(name: str) -> None:
    storage: Any = Listed(["manifest.json", name])
    with pytest.raises(SealRejected) as caught:
        owned_files(storage, "s3://bucket/seals/one")
    assert caught.value.rule == "seal.regular_files"


def test_a_regular_seal_lists_its_own_files(tmp_path: Path) -> None:
    seal = write_factory_seal(tmp_path / "seal")
    (seal / ".hidden").write_text("left out")
    files = owned_files(Storage(str(seal)), str(seal))
    assert "manifest.json" in files and ".hidden" not in files
    assert files == sorted(files)
    assert publish_seal(str(seal), str(tmp_path / "lake")).status == "published"
