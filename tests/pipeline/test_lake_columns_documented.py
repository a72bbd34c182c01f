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


def test_every_instant_of_the_lake_is_a_utc_microsecond_timestamp() -> None:
    """One time unit across the lake (issue 65, item 7): every timestamp column of every schema,
    the catalogue index's included, is `timestamp[us, tz=UTC]`; none of the index's times is text
    (`started_at` and `built_at` were, beside timestamp columns); the exports write the same unit;
    and the "Time columns" table says so for the tables and the index, naming each column."""
    from datasets.export_files import EXPORT_TIMESTAMP

    assert lake.UTC_TS == pa.timestamp("us", tz="UTC") == EXPORT_TIMESTAMP
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Time columns and their units") : text.index("### `rebalances`")]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| ")}
    for name, schema in declared().items():
        for field in schema:
            if pa.types.is_timestamp(field.type):
                assert field.type == lake.UTC_TS, (name, field.name)
                where = "the catalogue index" if name == "CATALOGUE_INDEX" else "the open tables"
                if name in lake.TABLE_SCHEMAS or name == "CATALOGUE_INDEX":
                    assert f"`{field.name}`" in rows[where], (name, field.name)
                    assert rows[where].endswith("| `timestamp[us, tz=UTC]`: microseconds, UTC |"), where
    for column in ("started_at", "built_at", "indexed_at", "replaced_at"):
        assert lake.CATALOGUE_INDEX.field(column).type == lake.UTC_TS, column
    assert "`timestamp[us, tz=UTC]`" in rows["`exports/` Parquet files"]


def test_each_figure_column_is_named_as_the_vocabulary_with_its_term_and_unit_documented() -> None:
    """A lake column holding a figure the API serves is named as the vocabulary names that figure
    (the index's `ic` is /metrics `core.ic`, not `mean_ic`), and docs/lake.md writes the term and its
    unit beside it: `vocabulary `name` (unit, basis)`."""
    from schemas.vocabulary import VOCABULARY

    schemas, docs = declared(), documented_meanings()
    for table, named in lake.FIGURE_TERMS.items():
        assert {term.name for term in named} <= set(schemas[table].names), table
        for term in named:
            column = term.name
            assert VOCABULARY[column] is term
            facts = ", ".join(f for f in (term.unit, term.basis) if f)
            assert f"vocabulary `{column}` ({facts})" in docs[table][column], (table, column, facts)
    assert lake.INDEX_RENAMED == {"mean_ic": "ic", "icir_annualised": "icir"}
    assert not set(lake.INDEX_RENAMED) & set(lake.CATALOGUE_INDEX.names)


def documented_meanings() -> dict[str, dict[str, str]]:
    """The "## Columns" section's third cell (meaning, unit) by table and column."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("\n## Columns\n")
    end = text.index("\n## ", start + 1)
    tables: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text[start:end].splitlines():
        heading = HEADING.match(line)
        if heading:
            current = tables.setdefault(heading.group(1), {})
            continue
        row = ROW.match(line)
        if row and current is not None:
            current[row.group(1)] = line.split("|")[3].strip()
    return tables
