"""A research team's frames as Arrow tables: pandas, polars or pyarrow, whichever they hold.

pandas is an optional extra of the kit: a pandas frame is converted through pyarrow's own
`Table.from_pandas` (which imports pandas only when handed one), a polars frame through its
`to_arrow`.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc


def to_arrow(frame: Any, name: str) -> pa.Table:
    """A pyarrow Table from a pyarrow, pandas or polars frame."""
    if isinstance(frame, pa.Table):
        return frame
    if hasattr(frame, "to_arrow"):  # polars
        table = frame.to_arrow()
        return table if isinstance(table, pa.Table) else pa.table(table)
    if hasattr(frame, "to_pandas") or hasattr(frame, "iloc"):  # pandas
        return pa.Table.from_pandas(frame, preserve_index=False)
    raise TypeError(f"{name} must be a pyarrow Table or a pandas or polars DataFrame, got {type(frame)!r}")


def cast_column(table: pa.Table, frame: str, column: str, type_: pa.DataType) -> pa.ChunkedArray:
    """`table[column]` as `type_`; a ValueError naming the frame and column when it is absent or
    will not convert. A timestamp becomes a date by its calendar day (as written, no shift), a
    naive timestamp an instant in UTC."""
    if column not in table.column_names:
        raise ValueError(f"{frame} has no column {column!r} (it has {', '.join(table.column_names)})")
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
        raise ValueError(f"{frame}.{column} must be {type_}: {error}") from None
