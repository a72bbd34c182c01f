"""The adjusted p-values kept per family (analytics/multiple_testing.py, issue 51): the same values
as the sort computes them, for a family asked again, a different family, ties and NaN-free
families of every size; read only."""

from __future__ import annotations

import numpy as np
import pytest

from analytics import multiple_testing


@pytest.mark.parametrize("size", [1, 2, 7, 1_000])
def test_kept_values_are_the_sorts(size: int) -> None:
    rng = np.random.default_rng(size)
    for _ in range(3):
        family = np.round(rng.random(size), 2)  # ties
        for method, exact in (
            (multiple_testing.holm, multiple_testing._holm),
            (multiple_testing.benjamini_hochberg, multiple_testing._benjamini_hochberg),
        ):
            first = method(family)
            again = method(family.copy())
            assert np.array_equal(first, exact(family)) and np.array_equal(again, first)
            assert not again.flags.writeable


def test_a_changed_family_is_adjusted_again() -> None:
    family = np.array([0.01, 0.02, 0.03, 0.5])
    before = multiple_testing.holm(family)
    changed = family.copy()
    changed[0] = 0.9
    assert not np.array_equal(multiple_testing.holm(changed), before)
    assert np.array_equal(multiple_testing.holm(changed), multiple_testing._holm(changed))
