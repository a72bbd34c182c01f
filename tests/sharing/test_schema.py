"""The Delta schema of an export (`serve.sharing.schema`): every Arrow type the demo lake's exports
hold, read from the files themselves (made as the server makes them), maps to its Delta primitive type, which the protocol's
official client reads (delta_sharing.converter), and the types an export could hold map as the
module documents."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from delta_sharing.converter import get_empty_table

from serve.sharing.schema import UnsharableType, schema_string, spark_type
from tests.support.exports import made_exports


def export_schemas(lake: Path) -> dict[str, pa.Schema]:
    """Every export's schema (by its path in the lake) of every alpha's served build, as the server
    makes it (no build stores one: pipeline 2.13.0), and of the benchmark's stored export."""
    schemas = {str(p): pq.read_schema(p) for p in lake.glob("benchmarks/*/builds/*/exports/*.parquet")}
    for current in sorted(lake.glob("alphas/*/_current.json")):
        build = current.parent / "builds" / json.loads(current.read_text())["build_id"]
        for relative, payload in made_exports(build).items():
            schemas[f"{build}/{relative}"] = pq.read_schema(io.BytesIO(payload))
    return schemas


EXPORT_TYPES = {
    pa.string(): "string",
    pa.large_string(): "string",
    pa.float64(): "double",
    pa.date32(): "date",
    pa.timestamp("us", tz="UTC"): "timestamp",  # an instant (Delta's timestamp), read back in UTC
    pa.int8(): "byte",
    pa.int32(): "integer",
    pa.bool_(): "boolean",
}
"""Every Arrow type the exports hold today, and its Delta primitive type (PROTOCOL.md, "Primitive
Types"); a new type in an export fails the test below until it is added here knowingly."""


def test_every_type_the_exports_use(demo_lake: Path) -> None:
    seen: set[pa.DataType] = set()
    for path, schema in export_schemas(demo_lake).items():
        document = json.loads(schema_string(schema))
        assert document["type"] == "struct"
        assert [f["name"] for f in document["fields"]] == schema.names
        for field, declared in zip(schema, document["fields"], strict=True):
            seen.add(field.type)
            assert declared["type"] == EXPORT_TYPES[field.type], (path, field)
            assert declared["nullable"] == field.nullable and declared["metadata"] == {}
        # The official client builds a table's (empty) frame from the schema: it knows every type.
        empty = get_empty_table(document)
        assert list(empty.columns) == schema.names
        for field in schema:
            if pa.types.is_integer(field.type) or pa.types.is_floating(field.type):
                assert empty[field.name].dtype == field.type.to_pandas_dtype(), (path, field)
    assert seen == set(EXPORT_TYPES)


@pytest.mark.parametrize(
    ("arrow", "spark"),
    [
        (pa.int16(), "short"),
        (pa.int64(), "long"),
        (pa.uint8(), "short"),
        (pa.uint16(), "integer"),
        (pa.uint32(), "long"),
        (pa.uint64(), "decimal(20,0)"),
        (pa.float32(), "float"),
        (pa.float16(), "float"),
        (pa.decimal128(12, 4), "decimal(12,4)"),
        (pa.date64(), "date"),
        (pa.timestamp("ns"), "timestamp_ntz"),
        (pa.timestamp("s", tz="Europe/Paris"), "timestamp"),
        (pa.binary(), "binary"),
        (pa.dictionary(pa.int32(), pa.string()), "string"),
        (pa.null(), "string"),
        (
            pa.list_(pa.field("item", pa.int32(), nullable=False)),
            {"type": "array", "elementType": "integer", "containsNull": False},
        ),
        (
            pa.map_(pa.string(), pa.float64()),
            {"type": "map", "keyType": "string", "valueType": "double", "valueContainsNull": True},
        ),
        (
            pa.struct([pa.field("d", pa.int32(), nullable=False)]),
            {
                "type": "struct",
                "fields": [{"name": "d", "type": "integer", "nullable": False, "metadata": {}}],
            },
        ),
    ],
)
def test_the_types_an_export_could_hold(arrow: pa.DataType, spark: object) -> None:
    assert spark_type(arrow) == spark


def test_a_type_without_a_delta_counterpart_is_refused_not_guessed() -> None:
    for unsharable in (pa.decimal256(50, 2), pa.time64("us"), pa.duration("s")):
        with pytest.raises(UnsharableType):
            spark_type(unsharable)
