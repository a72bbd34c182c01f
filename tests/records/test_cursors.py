"""Cursors: an event id enciphered and tagged, the same for every process of a deployment."""

from __future__ import annotations

import pytest

from records.cursors import CursorInvalid, Cursors
from records.store import open_records


def test_every_id_reads_back_and_nothing_else_does() -> None:
    cursors = Cursors(b"s" * 32)
    written = [cursors.write(i) for i in range(1, 2001)]
    assert [cursors.read(c) for c in written] == list(range(1, 2001))
    assert len(set(written)) == 2000
    # Neither order nor spacing shows: consecutive ids are not consecutive texts.
    assert sorted(written) != written
    for forged in (
        written[0][:-1] + ("0" if written[0][-1] != "0" else "1"),
        "0" * 32,
        "xyz",
        written[0].upper(),
    ):
        with pytest.raises(CursorInvalid):
            cursors.read(forged)
    with pytest.raises(CursorInvalid):
        Cursors(b"t" * 32).read(written[0])  # another deployment's


def test_two_processes_share_the_secret(store_url: str) -> None:
    first, second = open_records(store_url), open_records(store_url)
    try:
        assert second.cursors.read(first.cursors.write(42)) == 42
    finally:
        first.close()
        second.close()
