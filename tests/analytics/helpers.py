"""Comparison helpers shared by the analytics tests."""

from __future__ import annotations

import math
from typing import Any

TOL = 1e-9


def close(served: float | None, expected: float | None, tol: float = TOL) -> bool:
    """Both null, or both finite and equal to `tol` (absolute, or relative where values are large)."""
    if served is None or expected is None:
        return served is None and expected is None
    return math.isclose(served, expected, rel_tol=tol, abs_tol=tol)


def check_stat(entry: dict[str, Any], expected: float | None, where: str) -> None:
    """A stat entry holds `expected` (available) or is not_measurable with a reason."""
    assert close(entry["value"], expected), (where, entry, expected)
    if expected is None:
        assert entry["status"] == "not_measurable" and entry["withheld_reason"], (where, entry)
    else:
        assert entry["status"] == "available" and "withheld_reason" not in entry, (where, entry)


def check_row(served: dict[str, Any], expected: dict[str, Any], where: str) -> None:
    """Every key of `expected` equals the served row's (floats to TOL, anything else exactly)."""
    for key, value in expected.items():
        got = served[key]
        if isinstance(value, float) or isinstance(got, float):
            assert close(got, value), (where, key, got, value)
        else:
            assert got == value, (where, key, got, value)
