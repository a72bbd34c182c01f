"""Reading the JSON Schemas msgspec writes: `T | None` is `anyOf: [T, {"type": "null"}]`, where a
hand-written schema says `type: [T, "null"]`. Used where the document is annotated
(`serve.openapi.annotations`, `serve.openapi.declared`) and where it is read back
(`serve.docgen.reference`)."""

from __future__ import annotations

from typing import Any


def without_null(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The one non-null arm of a schema written `anyOf: [T, null]` (the arm itself, so what is
    written into it stays in the document; the property's own keys, such as its `description`,
    stay on the property) and whether null was one of its arms; any other schema as it is."""
    arms = schema.get("anyOf")
    if not isinstance(arms, list):
        return schema, False
    kept = [arm for arm in arms if arm.get("type") != "null"]
    if len(kept) != 1:
        return schema, False
    return kept[0], len(kept) < len(arms)
