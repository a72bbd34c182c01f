"""An alpha's /analytics/_doc path, and every dotted path of a payload's keys (as /metrics/_doc
names them)."""

from __future__ import annotations

from typing import Any


def doc_path(alpha: str) -> str:
    return f"/v1/alphas/{alpha}/analytics/_doc"


def paths(value: Any, prefix: str) -> set[str]:
    """Every dotted path of the keys under `prefix` (as /metrics/_doc: a list's items are
    `name[]`, their keys `name[].key`; the item itself is not a field)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, child in value.items():
            path = f"{prefix}.{key}"
            found |= {path} | paths(child, path)
    elif isinstance(value, list):
        for child in value:
            found |= paths(child, f"{prefix}[]")
    return found
