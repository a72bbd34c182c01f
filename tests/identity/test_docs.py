"""docs/reference.md holds the one table of endpoints: every registry id with its path, group,
summary and who may call it, as the route declarations state them (written by `just reference`);
docs/access.md and docs/api.md link to it rather than keep copies."""

from __future__ import annotations

import re
from pathlib import Path

from serve.endpoints import endpoints

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_reference_lists_every_endpoint_once_with_its_group_summary_and_access() -> None:
    text = (DOCS / "reference.md").read_text()
    rows = re.findall(
        r"^\| `GET ([^`]*)` \| `([a-z_.]+)` \| `([a-z]+)` \| ([^|]+) \| ([a-z ]+) \|$", text, flags=re.M
    )
    access = {True: "public", False: "key"}
    expected = [
        (e.openapi_path, e.id, e.group, e.summary, "admin account only" if e.admin else access[e.public])
        for e in endpoints().values()
    ]
    found = [(p, i, g, w.strip(), a) for p, i, g, w, a in rows if i in {e.id for e in endpoints().values()}]
    assert sorted(found) == sorted(expected)


def test_access_and_api_link_to_the_one_table() -> None:
    for name in ("access.md", "api.md"):
        text = (DOCS / name).read_text()
        assert "reference.md#endpoints" in text and "<!-- endpoints:" not in text, name
