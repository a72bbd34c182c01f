"""`Range: bytes=...` of a download (serve.signing.byte_ranges), as RFC 9110 14.1.2 reads it."""

from __future__ import annotations

import pytest

from serve.signing.byte_ranges import ByteRange, Unsatisfiable, requested_range

SIZE = 1000


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("bytes=0-99", ByteRange(0, 100)),
        ("bytes=900-", ByteRange(900, 1000)),
        ("bytes=-100", ByteRange(900, 1000)),
        ("bytes=990-5000", ByteRange(990, 1000)),  # past the end: to the end
        (" bytes=10-19 ", ByteRange(10, 20)),
        # The whole file, however asked: a plain 200.
        ("bytes=0-", None),
        ("bytes=0-999", None),
        ("bytes=-5000", None),
        # Ignored (RFC 9110: a server may ignore Range): several ranges, another unit, nonsense.
        ("bytes=0-1,5-6", None),
        ("items=0-1", None),
        ("bytes=-", None),
        ("bytes=20-10", None),
        ("bytes=0-1 junk", None),
        (None, None),
    ],
)
def test_one_range_or_the_whole_file(header: str | None, expected: ByteRange | None) -> None:
    assert requested_range(header, SIZE) == expected


@pytest.mark.parametrize("header", ["bytes=1000-", "bytes=5000-6000", "bytes=-0"])
def test_a_range_past_the_end_is_unsatisfiable(header: str) -> None:
    with pytest.raises(Unsatisfiable):
        requested_range(header, SIZE)


def test_content_range_names_the_last_byte_inclusive() -> None:
    assert ByteRange(10, 20).content_range(SIZE) == "bytes 10-19/1000"
