"""Rows as data frames: polars, pandas or an Arrow table, from JSON rows, Arrow pages or a Parquet
export.

Every path gives the same frame for the same rows: the columns of the row type in its declared
order (`raw_*` columns only when the key was served them), with the types the row type declares
(integers as Int64, dates as dates, timestamps as UTC microseconds). The narrower or other types
an export or an Arrow page may have (int8, int32, large strings, timestamps as ISO text) are cast
to these. Nested columns (lists, objects) keep the type they come with: inferred from the values
of JSON rows, the served type of Arrow pages (so an empty read's nested column is null-typed from
JSON, typed from Arrow).

polars, pandas and pyarrow are optional (`pip install 'alpha-results-client[polars]'` ...); a
missing one raises `MissingDependencyError` naming the extra that brings it.
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import msgspec
from msgspec import UNSET

from alpha_results_client.exceptions import AlphaResultsError

_KINDS: dict[type[Any], str] = {
    msgspec.inspect.IntType: "int",
    msgspec.inspect.FloatType: "float",
    msgspec.inspect.StrType: "str",
    msgspec.inspect.BoolType: "bool",
    msgspec.inspect.DateType: "date",
    msgspec.inspect.DateTimeType: "datetime",
}
EXTRAS = {"polars": "polars", "pandas": "pandas", "pyarrow": "parquet"}


class MissingDependencyError(AlphaResultsError, ImportError):
    """An optional library this call needs is not installed."""


def require(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = EXTRAS.get(module, "all")
        raise MissingDependencyError(
            f"this needs {module}: pip install 'alpha-results-client[{extra}]'"
        ) from None


def available(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Column:
    name: str  # on the wire and in the frame
    attr: str  # on the row Struct (the key of a dict row)
    kind: str  # int, float, str, bool, date, datetime, or other (nested; left to inference)


@cache
def columns_of(row_type: type[msgspec.Struct]) -> tuple[Column, ...]:
    info = msgspec.inspect.type_info(row_type)
    assert isinstance(info, msgspec.inspect.StructType)
    columns = []
    for field in info.fields:
        arms = field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else (field.type,)
        kinds = {
            _KINDS.get(type(arm), "other") for arm in arms if not isinstance(arm, msgspec.inspect.NoneType)
        }
        columns.append(Column(field.encode_name, field.name, kinds.pop() if len(kinds) == 1 else "other"))
    return tuple(columns)


@cache
def field_columns(owner: type[msgspec.Struct], name: str) -> tuple[Column, ...]:
    """The columns of the Structs `owner`'s field `name` (its attribute) holds: one Struct or a list
    of them, null or unset allowed (`Comparison.equity`: the rows of a table inside an answer)."""
    info = msgspec.inspect.type_info(owner)
    assert isinstance(info, msgspec.inspect.StructType)
    (field,) = (f for f in info.fields if f.name == name)
    arms = field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else (field.type,)
    for arm in arms:
        item = arm.item_type if isinstance(arm, msgspec.inspect.ListType) else arm
        if isinstance(item, msgspec.inspect.StructType):
            return columns_of(item.cls)
    raise TypeError(f"{owner.__name__}.{name} holds no Struct")


def served_columns(
    row_type: type[msgspec.Struct], rows: Sequence[Any], field_set: frozenset[str] | None = None
) -> list[Column]:
    """The columns of JSON rows: those of `field_set` (a column-set parameter such as
    `fields=core`), without the `raw_*` ones the key was not served."""
    columns = [c for c in columns_of(row_type) if field_set is None or c.name in field_set]
    return [
        c
        for c in columns
        if not c.name.startswith("raw_") or any(getattr(row, c.attr) is not UNSET for row in rows)
    ]


def file_columns(
    row_type: type[msgspec.Struct], names: Sequence[str], field_set: frozenset[str] | None = None
) -> list[Column]:
    """The columns of an export file that a JSON read of the same query would have."""
    present = set(names)
    return [
        c for c in columns_of(row_type) if c.name in present and (field_set is None or c.name in field_set)
    ]


def arrow_columns(
    row_type: type[msgspec.Struct], table: Any, field_set: frozenset[str] | None = None
) -> list[Column]:
    """The columns of Arrow pages that JSON rows of the same read would have: every column of
    `field_set`, and the `raw_*` ones only when served and the read has rows (JSON rows carry a
    field, Arrow pages a column, and an empty read has no row to carry one)."""
    present = set(table.column_names) if table.num_rows else set()
    return [
        c
        for c in columns_of(row_type)
        if (field_set is None or c.name in field_set) and (not c.name.startswith("raw_") or c.name in present)
    ]


def _values(rows: Sequence[Any], column: Column) -> list[Any]:
    """The column's values of row Structs, or of dict rows (a missing key is null)."""
    values = [row.get(column.attr) if isinstance(row, Mapping) else getattr(row, column.attr) for row in rows]
    values = [None if value is UNSET else value for value in values]
    if column.kind == "other":
        return [msgspec.to_builtins(value) if value is not None else None for value in values]
    return values


# -- polars ----------------------------------------------------------------------------------------


def _polars_dtype(pl: Any, kind: str) -> Any:
    return {
        "int": pl.Int64,
        "float": pl.Float64,
        "str": pl.String,
        "bool": pl.Boolean,
        "date": pl.Date,
        "datetime": pl.Datetime("us", "UTC"),
    }.get(kind)


def rows_to_polars(rows: Sequence[Any], columns: Sequence[Column]) -> Any:
    pl = require("polars")
    series = [pl.Series(c.name, _values(rows, c), dtype=_polars_dtype(pl, c.kind)) for c in columns]
    return pl.DataFrame(series)


def parquet_to_polars(data: bytes, columns: Sequence[Column]) -> Any:
    pl = require("polars")
    frame = pl.read_parquet(io.BytesIO(data), columns=[c.name for c in columns])
    casts = [pl.col(c.name).cast(dtype) for c in columns if (dtype := _polars_dtype(pl, c.kind)) is not None]
    return frame.with_columns(casts) if casts else frame


def arrow_to_polars(table: Any, columns: Sequence[Column]) -> Any:
    pl = require("polars")
    return pl.from_arrow(arrow_to_arrow(table, columns))


# -- Arrow and pandas ------------------------------------------------------------------------------


def _arrow_type(pa: Any, kind: str) -> Any:
    return {
        "int": pa.int64(),
        "float": pa.float64(),
        "str": pa.string(),
        "bool": pa.bool_(),
        "date": pa.date32(),
        "datetime": pa.timestamp("us", tz="UTC"),
    }.get(kind)


def rows_to_arrow(rows: Sequence[Any], columns: Sequence[Column]) -> Any:
    pa = require("pyarrow")
    arrays = [pa.array(_values(rows, c), type=_arrow_type(pa, c.kind)) for c in columns]
    return pa.table(arrays, names=[c.name for c in columns])


def arrow_to_arrow(table: Any, columns: Sequence[Column]) -> Any:
    """`columns` of `table`, in their order and types, without its schema metadata; a column
    the table lacks is null (as JSON rows omit a null field)."""
    pa = require("pyarrow")
    arrays = []
    for c in columns:
        kind = _arrow_type(pa, c.kind)
        if c.name not in table.column_names:
            arrays.append(pa.nulls(table.num_rows, kind or pa.null()))
            continue
        column = table.column(c.name)
        arrays.append(column if kind is None or column.type == kind else column.cast(kind))
    return pa.table(arrays, names=[c.name for c in columns])


def parquet_to_arrow(data: bytes, columns: Sequence[Column]) -> Any:
    pa = require("pyarrow")
    parquet = require("pyarrow.parquet")
    return arrow_to_arrow(
        parquet.read_table(pa.BufferReader(data), columns=[c.name for c in columns]), columns
    )


def rows_to_pandas(rows: Sequence[Any], columns: Sequence[Column]) -> Any:
    if available("pyarrow"):
        return rows_to_arrow(rows, columns).to_pandas()
    pd = require("pandas")
    return pd.DataFrame({c.name: _values(rows, c) for c in columns}, columns=[c.name for c in columns])


ROWS_TO = {"polars": rows_to_polars, "pandas": rows_to_pandas, "arrow": rows_to_arrow}
"""The frame of rows in each library, by the name a table method takes (`library=`)."""


def rows_to(library: str, rows: Sequence[Any], columns: Sequence[Column]) -> Any:
    """`rows` as a polars DataFrame, a pandas DataFrame or a `pyarrow.Table` (`library` polars,
    pandas or arrow): the table methods of the single-object answers (tables.py)."""
    if library not in ROWS_TO:
        raise ValueError(f"library must be one of {', '.join(ROWS_TO)}, not {library!r}")
    return ROWS_TO[library](rows, columns)


def parquet_to_pandas(data: bytes, columns: Sequence[Column]) -> Any:
    require("pandas")
    return parquet_to_arrow(data, columns).to_pandas()


def arrow_to_pandas(table: Any, columns: Sequence[Column]) -> Any:
    require("pandas")
    return arrow_to_arrow(table, columns).to_pandas()
