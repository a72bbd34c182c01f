"""`AllowList.mask` is `permits` vectorised (issue 22, review item 15: the prefix mode once built a
Python list per catalogue alpha on every request; now one Arrow kernel pass per prefix): the same
answer for every mode, an empty prefix list admitting nothing, and a null id admitted by none."""

from __future__ import annotations

import pyarrow as pa
import pytest

from core.context import AllowList

IDS = ["Test_a", "Test_b", "prod_x", "Testing", "", "prod_Test_y", "é_alpha"]


@pytest.mark.parametrize(
    "allowed",
    [
        AllowList.all(),
        AllowList.of_ids(["Test_a", "prod_x", "missing"]),
        AllowList.of_ids([]),
        AllowList.of_prefixes(["Test_"]),
        AllowList.of_prefixes(["Test_", "prod_", "é"]),
        AllowList.of_prefixes([]),
        AllowList.of_prefixes([""]),
    ],
    ids=lambda allowed: repr(allowed.to_wire()),
)
def test_the_mask_is_permits_of_every_id(allowed: AllowList) -> None:
    found = allowed.mask(pa.array([*IDS, None], pa.string()))
    expected = [allowed.permits(alpha) for alpha in IDS]
    if found is None:
        assert all(expected)
        return
    answered = found.to_pylist()
    assert answered[:-1] == expected
    assert not answered[-1]  # null or False: a null id is admitted by no list
