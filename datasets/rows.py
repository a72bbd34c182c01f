"""Rows out of Arrow columns, ready for msgspec, without a Python dict per row.

A `RowShape` is one served field set: a msgspec Struct type whose instances are built positionally
from whole columns converted at once (numbers through numpy, dates through a lookup table of their
ISO text), then encoded by msgspec in one pass. Values the API serves only "when sealed" become
`msgspec.UNSET` when null, which msgspec omits from the object.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa

EPOCH = date(1970, 1, 1)  # date32 values count days from it


def day_number(day: date) -> int:
    return (day - EPOCH).days


def date_at(days: np.ndarray, index: int) -> date | None:
    """The date of `days[index]` (days since EPOCH); None when `index` is outside the array."""
    return EPOCH + timedelta(days=int(days[index])) if 0 <= index < days.size else None


def floats(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A numeric column as float64, nulls as NaN (zero-copy when it has no nulls)."""
    values: np.ndarray = column.to_numpy(zero_copy_only=False)
    return values.astype(np.float64, copy=False)


class _DateText:
    """ISO text of date32 values (days since 1970-01-01), from a table grown on demand."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._first = 0
        self._texts = np.empty(0, dtype=object)

    def __call__(self, days: np.ndarray) -> list[str]:
        if days.size == 0:
            return []
        low, high = int(days.min()), int(days.max())
        texts, first = self._texts, self._first
        if low < first or high >= first + texts.size:
            texts, first = self._grow(low, high)
        result: list[str] = texts[days - first].tolist()
        return result

    def _grow(self, low: int, high: int) -> tuple[np.ndarray, int]:
        with self._lock:
            first = min(low, self._first) if self._texts.size else low
            last = max(high, self._first + self._texts.size - 1) if self._texts.size else high
            texts = np.array(
                [(EPOCH + timedelta(days=d)).isoformat() for d in range(first, last + 1)], dtype=object
            )
            self._texts, self._first = texts, first
            return texts, first


date_text = _DateText()


def column_values(column: pa.Array | pa.ChunkedArray) -> list[Any]:
    """One column as Python values: floats with null as NaN (msgspec writes null), dates as their
    ISO text."""
    if isinstance(column, pa.ChunkedArray):
        column = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    kind = column.type
    if pa.types.is_floating(kind) or (pa.types.is_date32(kind) and not column.null_count):
        values: np.ndarray = column.to_numpy(zero_copy_only=False)
        if pa.types.is_date32(kind):
            return date_text(values.astype("datetime64[D]").view(np.int64))  # days since 1970
        result: list[Any] = values.tolist()
        return result
    if pa.types.is_date32(kind):
        days = column.cast(pa.int32()).to_pylist()
        return [None if v is None else str(EPOCH + timedelta(days=v)) for v in days]
    return column.to_pylist()


class RowShape:
    """One served field set: `rows(table)` gives encodable rows in the table's order."""

    def __init__(self, fields: Iterable[str], omit_when_null: Iterable[str] = ()) -> None:
        self.fields = tuple(fields)
        self.omit_when_null = frozenset(omit_when_null) & set(self.fields)
        # Positional names, renamed on the wire: any field name works, keywords included.
        self.struct: type[msgspec.Struct] = msgspec.defstruct(
            "Row",
            [(f"f{i}", Any) for i in range(len(self.fields))],
            rename={f"f{i}": name for i, name in enumerate(self.fields)},
            array_like=False,
            # Rows hold only scalars, never cycles: untracked by the cycle collector, so a page of
            # thousands of rows triggers no collections.
            gc=False,
        )

    def rows(self, table: pa.Table, rows: np.ndarray | None = None) -> list[msgspec.Struct]:
        """Rows of `table` in its order, or the rows at positions `rows` in that order."""
        if rows is not None:
            # One take over the served columns rather than one per column (a week page of 100
            # rows of 900, 25 columns: 0.32 against 0.35 ms, interleaved in-process).
            table = table.select(list(self.fields)).take(pa.array(rows, pa.int64()))
        return self.from_columns([column_values(table.column(name)) for name in self.fields])

    def from_columns(self, columns: list[list[Any]]) -> list[msgspec.Struct]:
        """Rows from Python value lists, one per field in order."""
        for index, name in enumerate(self.fields):
            if name in self.omit_when_null:
                columns[index] = [msgspec.UNSET if v is None else v for v in columns[index]]
        make = self.struct
        return [make(*values) for values in zip(*columns, strict=True)]

    def dicts(self, table: pa.Table) -> list[dict[str, Any]]:
        """The same rows as dicts, for the few callers that read values (small tables only)."""
        columns = [column_values(table.column(name)) for name in self.fields]
        return [dict(zip(self.fields, values, strict=True)) for values in zip(*columns, strict=True)]


@functools.lru_cache(maxsize=64)
def shape_of(fields: tuple[str, ...], omit_when_null: frozenset[str] = frozenset()) -> RowShape:
    """The one `RowShape` of a field set (field sets are declared in `schemas.wire`)."""
    return RowShape(fields, omit_when_null)
