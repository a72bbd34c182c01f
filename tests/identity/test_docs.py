"""docs/access.md and docs/api.md list every registry id with its group, path and summary, as the
route declarations state them (written by `just reference`), and nothing else."""

from __future__ import annotations

import re

import pytest

from serve import endpoint_tables
from serve.endpoints import endpoints


def test_the_endpoint_tables_are_current() -> None:
    assert endpoint_tables.stale() == [], "run `just reference` and commit the docs it rewrites"


def test_the_access_table_lists_every_endpoint_once_with_its_group_path_and_summary() -> None:
    text = (endpoint_tables.DOCS / "access.md").read_text()
    rows = re.findall(r"^\| `([a-z_.]+)` \| ([a-z]+) \| `(/v1[^`]*)` \| ([^|]+) \|", text, flags=re.M)
    expected = [(e.id, e.group, e.openapi_path, e.summary) for e in endpoints().values()]
    assert [(i, g, p, w.strip()) for i, g, p, w in rows] == expected


def test_a_table_whose_markers_are_missing_is_refused() -> None:
    with pytest.raises(ValueError, match="markers"):
        endpoint_tables.refreshed("| id |\n", endpoint_tables.access_table())


def test_a_stale_table_is_rewritten_between_its_markers_only() -> None:
    text = f"before\n{endpoint_tables.BEGIN}\n| old |\n{endpoint_tables.END}\nafter\n"
    out = endpoint_tables.refreshed(text, ["| new |"])
    assert out == f"before\n{endpoint_tables.BEGIN}\n| new |\n{endpoint_tables.END}\nafter\n"
