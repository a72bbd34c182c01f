"""Comparison helpers shared by the analytics tests."""

from __future__ import annotations

import math
from typing import Any

REL_TOL = 1e-9
ABS_FLOOR = 1e-12


def close(served: float | None, expected: float | None, rel_tol: float = REL_TOL) -> bool:
    """Both null, or both finite with |a - b| <= rel_tol * max(|a|, |b|), or <= 1e-12 (an absolute
    floor for values at zero, so small quantities are still checked relatively)."""
    if served is None or expected is None:
        return served is None and expected is None
    return math.isclose(served, expected, rel_tol=rel_tol, abs_tol=ABS_FLOOR)


def check_stat(entry: dict[str, Any], expected: float | None, where: Any) -> None:
    """A stat entry holds `expected` (available) or is not_measurable (value null) with a reason."""
    assert close(entry["value"], expected), (where, entry, expected)
    if expected is None:
        assert entry["value"] is None, (where, entry)
        assert entry["status"] == "not_measurable" and entry["withheld_reason"], (where, entry)
    else:
        assert entry["status"] == "available" and "withheld_reason" not in entry, (where, entry)


def check_withheld(entry: dict[str, Any], where: Any) -> None:
    """A figure the key may not read: not_measurable, value null, withheld_reason access_limited."""
    assert entry["value"] is None and entry["status"] == "not_measurable", (where, entry)
    assert entry["withheld_reason"].startswith("access_limited"), (where, entry)


def check_row(served: dict[str, Any], expected: dict[str, Any], where: Any) -> None:
    """Every key of `expected` equals the served row's (floats to REL_TOL, anything else exactly)."""
    for key, value in expected.items():
        got = served[key]
        if isinstance(value, float) or isinstance(got, float):
            assert close(got, value), (where, key, got, value)
        else:
            assert got == value, (where, key, got, value)


def check_too_short(api: Any, path: str, dates: Any, sessions: int, **params: Any) -> None:
    """A decision route refuses a window holding fewer sessions than its figures need, when the
    whole history holds enough: 400 naming each bound given, with the count."""
    token = "raw" if str(params.get("book", "")).startswith("raw_") else "plain"
    bounds = {name: value for name, value in zip(("from", "to"), dates, strict=True) if value is not None}
    response = api.get(path, token, **params, **bounds)
    assert response.status_code == 400, response.text
    named = response.json()["error"]["details"]["parameters"]
    assert [p["name"] for p in named] == sorted(bounds), named
    assert all(f"holds {sessions} " in p["rule"] for p in named), named
