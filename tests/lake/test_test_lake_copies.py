"""The tests' lake copies (tests/conftest.py): a linked copy shares the original's immutable files,
so writing over one in place reaches the original (what `demo_lake_unchanged` catches), and
`own_file` first keeps the damage in the copy."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import fingerprint, linked_copy, own_file


def small_lake(root: Path) -> Path:
    (root / "alphas" / "a").mkdir(parents=True)
    (root / "alphas" / "a" / "data.parquet").write_bytes(b"PAR1 original PAR1")
    (root / "alphas" / "a" / "_current.json").write_text('{"build_id": "b"}')
    return root


def test_a_write_through_a_link_changes_the_original_and_the_fingerprint_says_so(tmp_path: Path) -> None:
    original = small_lake(tmp_path / "original")
    before = fingerprint(original)
    copy = linked_copy(original, tmp_path / "copy")
    (copy / "alphas" / "a" / "data.parquet").write_bytes(b"not parquet")
    assert (original / "alphas" / "a" / "data.parquet").read_bytes() == b"not parquet"
    assert fingerprint(original) != before


def test_own_file_keeps_the_damage_in_the_copy(tmp_path: Path) -> None:
    original = small_lake(tmp_path / "original")
    before = fingerprint(original)
    copy = linked_copy(original, tmp_path / "copy")
    own_file(copy / "alphas" / "a" / "data.parquet").write_bytes(b"not parquet")
    (copy / "alphas" / "a" / "_current.json").write_text("{not json")  # a pointer: the copy's own
    assert (original / "alphas" / "a" / "data.parquet").read_bytes() == b"PAR1 original PAR1"
    assert (original / "alphas" / "a" / "_current.json").read_text() == '{"build_id": "b"}'
    assert fingerprint(original) == before
    assert list(fingerprint(original)) == ["alphas/a/data.parquet"]  # only the immutable files
