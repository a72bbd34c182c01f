"""Adjusted p-values of one hypothesis within a family: Holm (1979) step-down and
Benjamini-Hochberg (1995) step-up. Ties give tied hypotheses the same adjusted value.

A significance answer adjusts one alpha's p-value within the catalogue's family (every readable
alpha's nwt.ic p-value: a million at 10^6 alphas). `adjusted_at` gives that one value without the
family's permutation (issue 51): the adjusted values depend on the sorted values alone, so one sort
of the values (no stable argsort: 15 ms at 10^6 against about 200 ms per method) and a pass over a
prefix or a suffix give exactly what `holm` and `benjamini_hochberg` give at that place, with the
same floating-point operations (tests/analytics/test_multiple_testing_kept.py)."""

from __future__ import annotations

import numpy as np


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm adjusted p-values, in the order given: max over j <= k of min(1, (m - j + 1) p_(j))."""
    order = np.argsort(p_values, kind="stable")
    m = p_values.size
    stepped = np.minimum(1.0, (m - np.arange(m)) * p_values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    """BH adjusted p-values, in the order given: min over j >= k of min(1, m / j p_(j))."""
    order = np.argsort(p_values, kind="stable")
    m = p_values.size
    stepped = np.minimum(1.0, m / np.arange(1, m + 1) * p_values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum.accumulate(stepped[::-1])[::-1]
    return adjusted


def adjusted_at(p_values: np.ndarray, index: int) -> tuple[float, float]:
    """(`holm(p_values)[index]`, `benjamini_hochberg(p_values)[index]`) from one sort of the
    values. A tie's stepped values fall along its block (Holm's (m - j + 1) p and BH's m / j p
    both decrease with j at one p), so every tied hypothesis takes Holm's maximum over the prefix
    up to the block's first place and BH's minimum over the suffix from its last place."""
    values = np.asarray(p_values, dtype=np.float64)
    ordered = np.sort(values)
    m = ordered.size
    first = int(np.searchsorted(ordered, values[index], "left"))
    last = int(np.searchsorted(ordered, values[index], "right")) - 1
    holm_stepped = np.minimum(1.0, (m - np.arange(first + 1)) * ordered[: first + 1])
    bh_stepped = np.minimum(1.0, m / np.arange(1, m + 1)[last:] * ordered[last:])
    return float(np.max(holm_stepped)), float(np.min(bh_stepped))
