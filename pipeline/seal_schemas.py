"""docs/schemas/: the JSON Schemas (draft 2020-12) of a seal's manifest.json and description.json,
generated from their declarations (`alpha_results_seal.manifest`, `alpha_results_seal.description`). `alpha-results
reference` writes them; tests/pipeline/test_seal_check.py fails when a committed one is stale."""

from __future__ import annotations

import json
from pathlib import Path

from alpha_results_seal.description import description_schema
from alpha_results_seal.manifest import manifest_schema

SCHEMAS_DIR = Path(__file__).resolve().parent.parent / "docs" / "schemas"


def documents() -> dict[Path, str]:
    """Each schema file and its text."""
    schemas = {"manifest.schema.json": manifest_schema(), "description.schema.json": description_schema()}
    return {SCHEMAS_DIR / name: json.dumps(schema, indent=2) + "\n" for name, schema in schemas.items()}


def stale() -> list[Path]:
    """The schema files that are absent or differ from their declarations."""
    return [
        path
        for path, text in documents().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def write() -> list[Path]:
    """Writes every schema file; returns them."""
    SCHEMAS_DIR.mkdir(exist_ok=True)
    written = documents()
    for path, text in written.items():
        path.write_text(text, encoding="utf-8")
    return list(written)
