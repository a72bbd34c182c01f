"""Adjusted p-values of one hypothesis within a family: Holm (1979) step-down and
Benjamini-Hochberg (1995) step-up. Ties give tied hypotheses the same adjusted value."""

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
