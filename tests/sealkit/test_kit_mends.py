"""The seal kit's review mends: a book name cannot leave the seal, one home for the trade variants'
phases and a fill's session, hostile frames refused by name (`BuildError`), non-finite figures
refused, and the check's command line naming an unreadable seal with exit 2."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pytest

from alpha_results_seal.builders import Book, BuildError, Facts, SealTables, write_seal, write_tables

FACTS = Facts("Test_x", "1.0", dt.datetime(2024, 1, 2, tzinfo=dt.UTC))


@pytest.mark.parametrize("book", ["../../../escaped", "a/b", "..", "", "Long", "x" * 65, "/abs"])
def test_a_book_name_outside_the_manifests_rule_is_refused_before_anything_is_written(
    tmp_path: Path, book: str
) -> None:
    dest = tmp_path / "trav" / "sub" / "seal"
    with pytest.raises(BuildError, match="book name") as refused:
        write_seal(str(dest), FACTS, None, {book: Book(None, None)})
    assert repr(book) in str(refused.value)
    assert list(tmp_path.rglob("*")) == []


def test_a_hand_assembled_seal_with_a_path_outside_it_is_refused(tmp_path: Path) -> None:
    built = SealTables({"portfolio/../../escaped.parquet": pa.table({"a": [1]})}, {"books": []})
    with pytest.raises(BuildError, match="escaped"):
        write_tables(built, str(tmp_path / "seal"))
    assert list(tmp_path.rglob("*")) == []
