"""docs/access.md lists every registry id with its group, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from schemas.registry import ENDPOINTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "access.md"


def test_registry_table_matches_the_registry() -> None:
    rows = re.findall(r"^\| `([a-z_.]+)` \| ([a-z]+) \| `(/v1[^`]*)` \|", DOC.read_text(), flags=re.M)
    documented = {(i, g, p) for i, g, p in rows}
    expected = {(e.id, e.group, re.sub(r":\w+}", "}", e.path)) for e in ENDPOINTS}
    assert documented == expected
