"""One hypothesis's adjusted p-values from one sort (analytics/multiple_testing.py `adjusted_at`,
issue 51): exactly the values `holm` and `benjamini_hochberg` give at its place, for families of
every size, with ties of every length, at every place."""

from __future__ import annotations

import numpy as np
import pytest

from analytics import multiple_testing


@pytest.mark.parametrize("size", [1, 2, 3, 7, 40, 300])
def test_adjusted_at_is_the_whole_familys_value(size: int) -> None:
    rng = np.random.default_rng(size)
    for decimals in (1, 2, 6):
        family = np.round(rng.random(size), decimals)  # ties, fewer with more decimals
        holm = multiple_testing.holm(family)
        bh = multiple_testing.benjamini_hochberg(family)
        for index in range(size):
            assert multiple_testing.adjusted_at(family, index) == (holm[index], bh[index])


def test_extremes() -> None:
    family = np.array([0.0, 0.0, 1.0, 1.0, 0.5, 1e-300])
    holm = multiple_testing.holm(family)
    bh = multiple_testing.benjamini_hochberg(family)
    for index in range(family.size):
        assert multiple_testing.adjusted_at(family, index) == (holm[index], bh[index])
