"""The newest catalogue generation of a lake, and an answer without what differs between two equal
generations (when it was made, and the index rows' tags)."""

from __future__ import annotations

from typing import Any

from alpha_results_seal.storage import Storage
from datasets import catalogue_index

META_VOLATILE = ("generated_at", "request_id", "catalogue", "version", "etag", "elapsed_ms")
CATALOGUE_TAG = "lake:catalogue_index@"
"""An answer over the index is tagged by the rows it read, each `build@indexed_at`: a rebuild indexes
every row again (a new `indexed_at`), so its tags differ while every figure is the same."""


def newest(root: str) -> catalogue_index.Generation:
    found = catalogue_index.newest(Storage(root), root)
    assert found is not None
    return found


def stripped(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: "lake:catalogue_index@<tag>"
            if k == "source" and str(v).startswith(CATALOGUE_TAG)
            else stripped(v)
            for k, v in value.items()
            if k not in META_VOLATILE
        }
    if isinstance(value, list):
        return [stripped(v) for v in value]
    return value
