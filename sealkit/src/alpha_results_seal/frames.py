"""A research team's frames as Arrow tables: pandas, polars or pyarrow, whichever they hold.

pandas is an optional extra of the kit: a pandas frame is converted through pyarrow's own
`Table.from_pandas` (which imports pandas only when handed one), a polars frame through its
`to_arrow`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc


class BuildError(ValueError):
    """A frame a builder cannot make a table of: names the frame, the column and what is wrong."""


def instant_text(value: object, name: str) -> str:
    """An instant the manifest states (`started_at`, `sealed_at`), as ISO text: a naive datetime is
    UTC, a date its midnight UTC (a team that knows only the day it started); anything else is
    refused by name."""
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=dt.UTC)).isoformat()
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time(), tzinfo=dt.UTC).isoformat()
    raise BuildError(f"{name} must be a datetime or a date, got {type(value).__name__}")


def day_text(value: object, name: str) -> str:
    """A day the manifest states (`research_cutoff`), as ISO text: a date, never a datetime (a
    moment names a day only in some time zone) nor text; anything else is refused by name."""
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    raise BuildError(f"{name} must be a date, got {type(value).__name__}")


CONVERSION_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)


def to_arrow(frame: Any, name: str) -> pa.Table:
    """A pyarrow Table from a pyarrow, pandas or polars frame; a `BuildError` naming the frame
    (and the column) for anything else, a column name given twice, or a column that does not
    convert (a pandas object column mixing numbers and text)."""
    if isinstance(frame, pa.Table):
        table = frame
    elif hasattr(frame, "to_arrow"):  # polars
        converted = frame.to_arrow()
        table = converted if isinstance(converted, pa.Table) else pa.table(converted)
    elif hasattr(frame, "iloc") and hasattr(frame, "columns"):  # pandas
        _check_unique([str(c) for c in frame.columns], name)
        try:
            table = pa.Table.from_pandas(frame, preserve_index=False)
        except CONVERSION_ERRORS as error:
            raise BuildError(f"{_failing_pandas_column(frame, name)} does not convert: {error}") from None
    else:
        raise BuildError(
            f"{name} must be a pyarrow Table or a pandas or polars DataFrame, got {type(frame).__name__}"
        )
    _check_unique(table.column_names, name)
    return table


def _check_unique(columns: list[str], name: str) -> None:
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if twice:
        raise BuildError(f"{name} has the column {', '.join(map(repr, twice))} more than once")


def _failing_pandas_column(frame: Any, name: str) -> str:
    """`frame.column` of the first pandas column pyarrow cannot convert on its own (its error
    names the column only in passing)."""
    for column in frame.columns:
        try:
            pa.array(frame[column], from_pandas=True)
        except CONVERSION_ERRORS:
            return f"{name}.{column}"
    return name


def cast_column(table: pa.Table, frame: str, column: str, type_: pa.DataType) -> pa.ChunkedArray:
    """`table[column]` as `type_`; a `BuildError` naming the frame and column when it is absent or
    will not convert. A timestamp becomes a date by its calendar day (as written, no shift), a
    naive timestamp an instant in UTC."""
    if column not in table.column_names:
        raise BuildError(f"{frame} has no column {column!r} (it has {', '.join(table.column_names)})")
    values = table.column(column)
    if values.type == type_:
        return values
    try:
        if pa.types.is_date32(type_) and pa.types.is_timestamp(values.type):
            if values.type.tz is not None:  # the wall date where it was written
                values = pc.local_timestamp(values)
            return pc.cast(values, pa.date32(), safe=False)
        if pa.types.is_timestamp(type_) and pa.types.is_timestamp(values.type):
            if values.type.tz is None:
                values = pc.assume_timezone(values, "UTC")
            return pc.cast(values, type_)
        if pa.types.is_dictionary(values.type):
            values = pc.cast(values, values.type.value_type)
        return pc.cast(values, type_)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as error:
        raise BuildError(f"{frame}.{column} must be {type_}: {error}") from None
