"""docs/lake.md documents every column the pipeline writes (issue 65: `first_published_at`,
`indexed_at`, `family`, `parameters` ... were undocumented): under "## Columns", one table per Arrow
schema that `schemas/lake.py` declares (a build's tables by their name in `TABLES`, every other
schema by its name in the module), listing each column in file order with the type the file holds.
The schemas are read from the module, so a table or a column added there fails this test until it
is documented; a documented column or table the module no longer declares fails it too."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

import schemas.lake as lake

DOC = Path(__file__).resolve().parents[2] / "docs" / "lake.md"
ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \|")
HEADING = re.compile(r"^### `([^`]+)`")


def declared() -> dict[str, pa.Schema]:
    """Every Arrow schema of `schemas/lake.py`: a build's tables by name, the others by the name the
    module gives them."""
    by_table = {id(table.schema): table.name for table in lake.TABLES}
    return {
        by_table.get(id(value), name): value
        for name, value in vars(lake).items()
        if isinstance(value, pa.Schema)
    }


def documented() -> dict[str, list[tuple[str, str]]]:
    """The "## Columns" section's tables: (column, type) rows under each `### \\`name\\`` heading."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("\n## Columns\n")
    end = text.index("\n## ", start + 1)
    tables: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for line in text[start:end].splitlines():
        heading = HEADING.match(line)
        if heading:
            current = tables.setdefault(heading.group(1), [])
            continue
        row = ROW.match(line)
        if row and current is not None:
            current.append((row.group(1), row.group(2)))
    return tables


def test_every_declared_column_is_documented_with_its_type() -> None:
    schemas, docs = declared(), documented()
    # Every build table, the benchmark's, the catalogue's: the module's schemas, none forgotten.
    assert {"decisions", "known_sessions", "CATALOGUE_INDEX", "BENCHMARK_DAILY"} <= set(schemas)
    assert len(schemas) == len(lake.TABLES) + 5
    missing = {name for name in schemas if name not in docs}
    assert not missing, f"docs/lake.md documents no columns of {sorted(missing)}"
    for name, schema in schemas.items():
        expected = [(field.name, str(field.type)) for field in schema]
        assert docs[name] == expected, (
            f"docs/lake.md `{name}`: documented {docs[name]}, declared {expected} (schemas/lake.py)"
        )
    stale = set(docs) - set(schemas)
    assert not stale, f"docs/lake.md documents tables schemas/lake.py does not declare: {sorted(stale)}"


def test_the_timestamp_units_documented_are_the_declared_ones() -> None:
    """The units the "Time columns" table states are those of the schemas (µs in a build's tables,
    ms and s for two index columns), so the page cannot drift from a format change."""
    index = {field.name: field.type for field in lake.CATALOGUE_INDEX}
    assert index["indexed_at"] == pa.timestamp("ms", tz="UTC")
    assert index["replaced_at"] == pa.timestamp("s", tz="UTC")
    assert index["started_at"] == index["built_at"] == pa.string()
    assert lake.UTC_TS == pa.timestamp("us", tz="UTC")
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Time columns and their units") : text.index("### `rebalances`")]
    for row in (
        "| the catalogue index | `indexed_at` | `timestamp[ms, tz=UTC]`: milliseconds |",
        "| the catalogue index | `replaced_at` | `timestamp[s, tz=UTC]`: seconds |",
    ):
        assert row in section, row
    # Every timestamp column of a build's tables is named in the section's first row.
    first = next(line for line in section.splitlines() if line.startswith("| a build's Parquet tables"))
    for table in lake.TABLES:
        for field in table.schema:
            if pa.types.is_timestamp(field.type):
                assert field.type == lake.UTC_TS, (table.name, field.name)
                assert f"`{field.name}`" in first, (table.name, field.name)
