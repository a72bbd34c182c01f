"""The client's decoded answers as the JSON they encode to, and their `meta` without what two
requests never share."""

from __future__ import annotations

import json
from typing import Any

import msgspec

VOLATILE_META = ("request_id", "generated_at")


def as_json(value: Any) -> Any:
    """A decoded Struct (or list of them) as the JSON it encodes to."""
    return json.loads(msgspec.json.encode(value))


def stable(meta: Any) -> dict[str, Any]:
    out = as_json(meta) if not isinstance(meta, dict) else dict(meta)
    return {k: v for k, v in out.items() if k not in VOLATILE_META}
