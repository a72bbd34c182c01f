"""A Parquet export's Arrow schema as the Delta table schema Delta Sharing serves (`schemaString`).

Delta describes a table with a subset of Spark SQL's JSON schema (PROTOCOL.md, "Schema Object"):
a `struct` of fields, each `{"name", "type", "nullable", "metadata"}`. The schema is read from
the export file itself (its Parquet footer), never restated from the declarations, so the
`metaData` of a table and the file a client downloads cannot disagree.

Arrow to Spark, for every type an export holds and those it could (tests/sharing/test_schema.py
reads every export of the demo lake):
- `string` / `large_string` / `string_view` -> `string`; `binary` / `large_binary` -> `binary`;
- `bool` -> `boolean`; `int8` `int16` `int32` `int64` -> `byte` `short` `integer` `long`;
  unsigned integers to the smallest signed type that holds them (`uint64` -> `decimal(20,0)`);
- `float16`/`float32` -> `float`, `float64` -> `double`; `decimal128/256(p, s)` -> `decimal(p,s)`
  (Spark's maximum precision is 38: a wider decimal is refused);
- `date32`/`date64` -> `date`; a timestamp with a time zone -> `timestamp` (Delta's timestamp is
  an instant, read back as UTC by the clients); a timestamp without one -> `timestamp_ntz`;
- `null` (a column every row of which is null) -> `string`, nullable: Delta has no null type and
  every value reads as null whatever the declared type;
- a dictionary as its value type; `list`/`large_list`/fixed-size list -> `array`, `struct` ->
  `struct`, `map` -> `map`, recursively.
Any other Arrow type raises `UnsharableType` (a bug of the export writer, surfaced, never guessed).
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

SPARK_MAX_DECIMAL_PRECISION = 38


class UnsharableType(ValueError):
    """An Arrow type with no Delta counterpart."""


def _integer(kind: pa.DataType) -> str:
    bits = kind.bit_width + (1 if pa.types.is_unsigned_integer(kind) else 0)
    for name, width in (("byte", 8), ("short", 16), ("integer", 32), ("long", 64)):
        if bits <= width:
            return name
    return "decimal(20,0)"  # uint64: 64 bits of magnitude need 20 decimal digits


def spark_type(kind: pa.DataType) -> str | dict[str, Any]:
    """The Delta (Spark JSON) type of an Arrow type (see the module docstring)."""
    if pa.types.is_dictionary(kind):
        return spark_type(kind.value_type)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return "string"
    if pa.types.is_null(kind):
        return "string"
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(kind):
        return "binary"
    if pa.types.is_boolean(kind):
        return "boolean"
    if pa.types.is_integer(kind):
        return _integer(kind)
    if pa.types.is_float16(kind) or pa.types.is_float32(kind):
        return "float"
    if pa.types.is_float64(kind):
        return "double"
    if pa.types.is_decimal(kind):
        if kind.precision > SPARK_MAX_DECIMAL_PRECISION:
            raise UnsharableType(f"{kind}: Delta decimals hold at most {SPARK_MAX_DECIMAL_PRECISION} digits")
        return f"decimal({kind.precision},{kind.scale})"
    if pa.types.is_date(kind):
        return "date"
    if pa.types.is_timestamp(kind):
        return "timestamp" if kind.tz is not None else "timestamp_ntz"
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return {
            "type": "array",
            "elementType": spark_type(kind.value_type),
            "containsNull": kind.value_field.nullable,
        }
    if pa.types.is_struct(kind):
        return struct_of(kind.field(i) for i in range(kind.num_fields))
    if pa.types.is_map(kind):
        return {
            "type": "map",
            "keyType": spark_type(kind.key_type),
            "valueType": spark_type(kind.item_type),
            "valueContainsNull": kind.item_field.nullable,
        }
    raise UnsharableType(f"{kind} has no Delta type")


def struct_of(fields: Any) -> dict[str, Any]:
    """A Spark `struct` of Arrow fields, in order."""
    return {
        "type": "struct",
        "fields": [
            {"name": f.name, "type": spark_type(f.type), "nullable": f.nullable, "metadata": {}}
            for f in fields
        ],
    }


def schema_string(schema: pa.Schema) -> str:
    """`metaData.schemaString` of a table whose file has this Arrow schema."""
    return json.dumps(struct_of(schema), separators=(",", ":"))
