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

from alpha_results_seal import seal as seal_module
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.seal import owned_files
from alpha_results_seal.storage import Storage
from pipeline import publish
from pipeline.build import build_many
from pipeline.publish import Outcome, publish_seal
from tests.pipeline.conftest import cli_build
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


# -- the manifest, read before the build to name its target (review of issue 22, finding 1) -----

FOREIGN = {"alpha_id": "Test_secret_of_the_host", "type": "alpha"}


def test_a_fifo_manifest_is_refused_and_the_batch_goes_on(tmp_path: Path) -> None:
    """The target of each seal is read first; a fifo there blocked the whole batch forever."""
    fifo = write_factory_seal(tmp_path / "Test_fifo", alpha_id="Test_fifo")
    (fifo / "manifest.json").unlink()
    os.mkfifo(fifo / "manifest.json")
    good = write_factory_seal(tmp_path / "Test_good", alpha_id="Test_good", seed=5)
    lake = tmp_path / "lake"
    done = cli_build([fifo, good], lake, timeout=120)
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stdout.splitlines()
    assert lines[0] == f"refused    Test_fifo  ({fifo})"
    assert lines[1] == (
        "  refused by rule seal.regular_files (kind seal): "
        "manifest.json is a device, fifo or socket, not a file of the seal"
    )
    assert lines[2].startswith("published  Test_good  build ")
    assert lines[3] == f"2 seals: 1 built, 1 refused  (lake {lake})"


def foreign_manifest(tmp_path: Path) -> Path:
    path = tmp_path / "host" / "other.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(FOREIGN))
    return path


def assert_refused_under_its_folder_name(seal: Path, lake: Path, message: str) -> None:
    [result] = build_many([str(seal)], str(lake), jobs=1)
    assert isinstance(result, Outcome) and result.rejection is not None, result
    assert result.target == seal.name
    assert result.rejection["rule"] == "seal.regular_files" and message in result.rejection["message"]
    assert FOREIGN["alpha_id"] not in result.line() + json.dumps(result.rejection)


def test_a_hard_linked_manifest_is_refused_and_its_content_never_printed(tmp_path: Path) -> None:
    seal = write_factory_seal(tmp_path / "seal")
    (seal / "manifest.json").unlink()
    os.link(foreign_manifest(tmp_path), seal / "manifest.json")
    assert_refused_under_its_folder_name(seal, tmp_path / "lake", "manifest.json is a hard link")


def test_a_linked_seal_folder_is_refused_and_its_targets_manifest_never_printed(tmp_path: Path) -> None:
    other = write_factory_seal(tmp_path / "other")
    (other / "manifest.json").write_text(json.dumps(FOREIGN))
    (tmp_path / "alias").symlink_to(other, target_is_directory=True)
    assert_refused_under_its_folder_name(tmp_path / "alias", tmp_path / "lake", "is a symbolic link")


# -- each file read once, from a descriptor that cannot leave the seal (finding 7) ---------------


def swap_after(monkeypatch: pytest.MonkeyPatch, step: str, change: Any) -> None:
    """Runs `change` right after `alpha_results_seal.seal.<step>`: the seal changing while it is read."""
    real = getattr(seal_module, step)

    def then_changed(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        change()
        return result

    monkeypatch.setattr(seal_module, step, then_changed)


def test_a_file_swapped_for_a_link_after_the_listing_is_refused_and_nothing_told_of_it(
    tmp_path: Path, secret: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing saw a regular file; the read must not follow the link put in its place."""
    seal = write_factory_seal(tmp_path / "seal")
    manifest = json.loads((seal / "manifest.json").read_text())
    manifest["source_archive"].update(size_bytes=len(SECRET), sha256=hashlib.sha256(SECRET).hexdigest())
    (seal / "manifest.json").write_text(json.dumps(manifest))

    def linked() -> None:
        (seal / "source.zip").unlink()
        (seal / "source.zip").symlink_to(secret)

    swap_after(monkeypatch, "owned_files", linked)
    error = refused(seal, tmp_path / "lake")
    assert "source.zip is a symbolic link" in error.message
    assert_nothing_told_of(error, secret)


def test_a_file_swapped_for_a_hard_link_after_the_listing_is_refused_and_nothing_told_of_it(
    tmp_path: Path, secret: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seal = write_factory_seal(tmp_path / "seal")

    def linked() -> None:
        (seal / "source.zip").unlink()
        os.link(secret, seal / "source.zip")

    swap_after(monkeypatch, "owned_files", linked)
    error = refused(seal, tmp_path / "lake")
    assert "source.zip is a hard link" in error.message
    assert_nothing_told_of(error, secret)


def test_the_bytes_published_are_the_bytes_hashed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A description rewritten after the seal was hashed: the build publishes what its content id
    names (the hashed text), never the other bytes under that id."""
    seal = write_factory_seal(tmp_path / "seal")
    hashed = json.loads((seal / "description.json").read_text())

    def rewritten() -> None:
        (seal / "description.json").write_text(json.dumps({**hashed, "name": "Swapped in later"}))

    swap_after(monkeypatch, "open_seal", rewritten)
    monkeypatch.setattr(publish, "open_seal", seal_module.open_seal)
    outcome = publish_seal(str(seal), str(tmp_path / "lake"))
    assert outcome.status == "published"
    [served] = (tmp_path / "lake").glob(f"alphas/Test_factory/builds/{outcome.build_id}/description.json")
    assert json.loads(served.read_text())["name"] == hashed["name"]


@pytest.mark.s3
def test_on_s3_a_key_leaving_the_seal_is_refused_and_an_owned_seal_publishes(
    s3_bucket: str, factory_seal: Path, tmp_path: Path
) -> None:
    """Through s3fs (moto) and `Storage`, as an S3 seal prefix is read: a key whose path leaves
    the seal is refused before a byte is read; the same seal without it builds from S3."""
    import boto3

    prefix = f"s3://{s3_bucket}/seals/Test_factory"
    fs = Storage(prefix).fs
    fs.put(f"{factory_seal}/", prefix + "/", recursive=True)
    client = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    escape = "seals/Test_factory/../Test_other/source.zip"
    client.put_object(Bucket=s3_bucket, Key=escape, Body=SECRET)
    error = refused_at(prefix, tmp_path / "lake")
    assert error.message == "'../Test_other/source.zip' is not a path inside the seal"
    assert_nothing_told_of(error, Path("/nowhere"))
    client.delete_object(Bucket=s3_bucket, Key=escape)
    assert publish_seal(prefix, str(tmp_path / "lake")).status == "published"


def refused_at(seal: str, lake: Path) -> SealRejected:
    with pytest.raises(SealRejected) as caught:
        publish_seal(seal, str(lake))
    assert caught.value.rule == "seal.regular_files", caught.value.report()
    assert not lake.exists()
    return caught.value
