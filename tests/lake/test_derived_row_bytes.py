"""Row bytes derived by the worker, not stored in the lake (issue 78, item 4; `datasets.derived`):
derived once per machine from the build's serving table, shared by its workers, keyed by the
serving file's content, bounded, and never a failed page when they cannot be derived."""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from datasets import derived, queries
from datasets.reader import BuildView, LakeReader
from datasets.serving_layout import row_json_serving
from pipeline.publish import publish_seal
from tests.pipeline.factory import write_factory_seal

ALPHA = "Test_factory"
DECISIONS = queries.row_json_table("decisions")


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("derived")
    lake = root / "lake"
    assert (
        publish_seal(str(write_factory_seal(root / "seal", alpha_id=ALPHA)), str(lake)).status == "published"
    )
    return lake


@pytest.fixture
def open_reader(tmp_path: Path) -> Iterator[list[LakeReader]]:
    opened: list[LakeReader] = []
    yield opened
    for reader in opened:
        reader.close()


def reader_of(lake: Path, cache: Path, opened: list[LakeReader], cache_bytes: int = 8 << 30) -> LakeReader:
    reader = LakeReader(str(lake), 60.0, cache_dir=str(cache), cache_bytes=cache_bytes)
    opened.append(reader)
    return reader


def view_of(reader: LakeReader, alpha: str = ALPHA) -> BuildView:
    found = reader.alpha(alpha)
    assert found is not None
    return reader.view(found)


def derived_now(reader: LakeReader, view: BuildView, name: str = DECISIONS) -> pa.Table:
    """`name` of `view` once its worker derived it (the first access starts the derivation)."""
    if view.table(name) is None:
        reader.derived.wait()
    table = view.table(name)
    assert table is not None, f"{name} was not derived"
    return table


def test_row_bytes_are_derived_from_the_serving_table_once_and_shared_by_the_machine_s_workers(
    lake: Path, tmp_path: Path, open_reader: list[LakeReader]
) -> None:
    first, second = reader_of(lake, tmp_path, open_reader), reader_of(lake, tmp_path, open_reader)
    view = view_of(first)
    assert view.table(DECISIONS) is None  # the build holds none: a page is made from the rows
    derived = derived_now(first, view)
    # What the pipeline wrote before 2.11.0: the same function of the same serving table.
    assert derived.equals(row_json_serving("decisions", view.table("decisions")))
    assert set(derived.column_names) == set(queries.ROW_JSON["decisions"]) | set(
        queries.ROW_PARTS["decisions"]
    )
    files = sorted(tmp_path.rglob("*_json.arrow"))
    assert len(files) == 1 and ".derived" in files[0].parts
    # Another worker of the machine maps the same file at its first access: nothing derived again
    # (a derivation would publish a new file under the name: another inode).
    inode = os.stat(files[0]).st_ino
    other = view_of(second)
    found = other.table(DECISIONS)
    assert found is not None and found.equals(derived)
    second.derived.wait()
    assert sorted(tmp_path.rglob("*_json.arrow")) == files and os.stat(files[0]).st_ino == inode


def test_a_copy_of_the_build_shares_them_and_a_changed_serving_file_never_uses_them(
    lake: Path, tmp_path: Path, open_reader: list[LakeReader]
) -> None:
    """Keyed by the serving file's recorded SHA-256: the same content in another lake (a copied lake,
    the same build id) maps the same file; a build whose serving table differs gets its own."""
    cache = tmp_path / "cache"
    derived_now(reader := reader_of(lake, cache, open_reader), view_of(reader))
    copy = Path(shutil.copytree(lake, tmp_path / "copy"))
    assert view_of(reader_of(copy, cache, open_reader)).table(DECISIONS) is not None
    assert len(list(cache.rglob("*_json.arrow"))) == 1
    # A second run of the alpha (one week more): its own derived file beside the first.
    assert publish_seal(
        str(write_factory_seal(tmp_path / "v2", alpha_id=ALPHA, weeks=9)), str(copy)
    ).status == ("published")
    later = reader_of(copy, cache, open_reader)
    assert derived_now(later, view_of(later)).num_rows > derived_now(reader, view_of(reader)).num_rows
    assert len(list(cache.rglob("*_json.arrow"))) == 2


def test_the_folder_is_bounded_and_a_mapped_file_outlives_its_removal(
    lake: Path, tmp_path: Path, open_reader: list[LakeReader]
) -> None:
    reader = reader_of(lake, tmp_path, open_reader, cache_bytes=1)
    view = view_of(reader)
    decisions = derived_now(reader, view)
    (kept,) = tmp_path.rglob("*_json.arrow")
    long_ago = time.time() - 3600
    os.utime(kept.parent, (long_ago, long_ago))  # unused for an hour
    positions = derived_now(reader, view, queries.row_json_table("positions"))
    # Over the bound (one byte): the folder unused longest is removed, the one just written kept.
    left = list(tmp_path.rglob("*_json.arrow"))
    assert [p.name for p in left] == ["positions_json.arrow"] and not kept.exists()
    # The worker that mapped the removed file still reads it whole.
    assert view.table(DECISIONS) is not None and decisions.column("plain")[0].as_py().endswith(b",")
    assert positions.num_rows > 0


def test_a_worker_makes_rows_while_another_derives_and_maps_the_file_once_it_is_there(
    lake: Path, tmp_path: Path, open_reader: list[LakeReader]
) -> None:
    reader = reader_of(lake, tmp_path, open_reader)
    view = view_of(reader)
    assert view.table(DECISIONS) is None
    reader.derived.wait()
    (target,) = tmp_path.rglob("*_json.arrow")
    target.unlink()  # as if never derived: another worker holds the lock while it derives
    with open(f"{target}.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert view.table(DECISIONS) is None
        reader.derived.wait()  # its derivation found the lock held: it left the file to the holder
        assert not target.exists() and view.table(DECISIONS) is None
    assert derived_now(reader, view).num_rows > 0


def test_row_bytes_that_cannot_be_derived_leave_every_page_made_from_the_rows(
    lake: Path, tmp_path: Path, open_reader: list[LakeReader], caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not_a_folder"
    blocked.write_text("a file where the cache folder should be")
    reader = reader_of(lake, blocked, open_reader)
    view = view_of(reader)
    with caplog.at_level(logging.ERROR, logger="datasets.derived"):
        assert view.table(DECISIONS) is None
        reader.derived.wait()
        assert view.table(DECISIONS) is None
    assert "could not be derived" in caplog.text
    assert queries.row_bytes_column(view, DECISIONS, "plain") is None  # the page is made from rows


def test_a_derived_file_that_cannot_be_read_is_derived_again_and_its_build_served(
    lake: Path, tmp_path: Path, open_reader: list[LakeReader]
) -> None:
    reader = reader_of(lake, tmp_path, open_reader)
    derived_now(reader, view_of(reader))
    (target,) = tmp_path.rglob("*_json.arrow")
    target.write_bytes(b"not an Arrow file")  # changed under the workers (a disk fault, a hand)
    fresh = reader_of(lake, tmp_path, open_reader)
    view = view_of(fresh)
    assert view.table(DECISIONS) is None and view.damage is None  # rows meanwhile; the build is whole
    assert derived_now(fresh, view).num_rows > 0


def exits(_: str) -> None:
    """Run in the derivation's child: dies as an out-of-memory kill would leave it."""
    os._exit(9)


def test_a_derivation_whose_process_dies_fails_alone_and_the_next_one_runs(
    lake: Path, tmp_path: Path, open_reader: list[LakeReader]
) -> None:
    failed: list[Exception] = []

    def dies() -> None:
        try:
            derived._BACKGROUND.run(exits, "")
        except ChildProcessError as exc:
            failed.append(exc)

    derived._BACKGROUND.submit(dies)
    reader = reader_of(lake, tmp_path, open_reader)
    reader.derived.wait()
    assert len(failed) == 1
    assert derived_now(reader, view_of(reader)).num_rows > 0  # a new child derives
