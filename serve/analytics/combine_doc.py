"""The `/analytics/_doc` fields of `/analytics/combine` (merged by serve.analytics.doc)."""

from __future__ import annotations

from typing import Any


def fields() -> dict[str, dict[str, Any]]:
    """Dotted path (under "combine") -> entry built with serve.analytics.doc's _f / _stat helpers."""
    return {}
