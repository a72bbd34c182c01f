"""Row bytes of a page some of whose values restart at the request's window (issue 61, item 1).

The equity curve's `cumulative_return`, `peak_equity`, `drawdown` and `drawdown_pct` are computed
from the window's first session, so no row's whole JSON can be written once for every window. What
does not depend on the window is written once by the pipeline (`WindowedShape.written`, a
`large_binary` column each, one value per row):

- `head`: the row's JSON up to the first windowed value (`{"date":...,"period_return":X,"cumulative_return":`);
- `tail`: after the last windowed value, with `ROW_END` (`"gross_exposure":...},`);
- `whole`: the whole row as a window from the book's first session writes it, with `ROW_END`;
- `rest`: the whole row after its first windowed value and that value's comma.

A page of a window that starts at the book's first session is a slice of `whole`; any other page
writes the window's values of its rows (`json_values`: one msgspec encode of them all, so each
number is the text msgspec's float writer gives the row Struct it replaces) and joins them between
the heads and tails with Arrow (`pc.binary_join_element_wise`): no Struct, dict or list per row.
Rows whose windowed values but the first are the whole curve's (the caller says from which row:
the equity curve's, once the window's running peak has reached the book's) are their head, their
first value and their `rest`.
(A float object per value lives for that encode: msgspec's writer, which is also the fastest here,
takes Python floats. Arrow's float to text cast writes other exponents and integral forms, `1e+16`
for `1e16`, `1` for `1.0`, `0.000001` for `1e-6`, and cost more before any repair:
docs/benchmarks.md "Issue 61: /equity-curve without a row per object".)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from datasets.queries import NOTHING, ROW_END, PremadeRows, TablePage, large, premade_rows
from datasets.rows import column_values, shape_of

WRITTEN_COLUMNS = ("whole", "head", "tail", "rest")
"""The columns of a windowed shape's row bytes (`WindowedShape.written`)."""

_COMMA = ord(",")
_encode = msgspec.json.Encoder().encode


def json_values(values: np.ndarray) -> pa.Array:
    """Each float of `values` as a row Struct's JSON writes it (msgspec; NaN and infinities as
    `null`), followed by a comma, as a `large_binary` array: one encode of them all, split at its
    commas (a list of numbers holds no other)."""
    # A last value more, so that every value asked for is followed by its comma.
    data = _encode(np.append(values.astype(np.float64, copy=False), 0.0).tolist())
    commas = np.flatnonzero(np.frombuffer(data, np.uint8) == _COMMA)
    offsets = np.empty(commas.size + 1, np.int64)
    offsets[0] = 1  # after the `[`
    offsets[1:] = commas + 1
    return pa.Array.from_buffers(
        pa.large_binary(), commas.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


@dataclass(frozen=True)
class WindowedShape:
    """A served field set (`fields`, a row Struct's, none omitted when null) of which `windowed`,
    one run of consecutive fields of float values, depends on the request's window."""

    fields: tuple[str, ...]
    windowed: tuple[str, ...]

    def __post_init__(self) -> None:
        at = self.fields.index(self.windowed[0])
        if self.fields[at : at + len(self.windowed)] != self.windowed:
            raise ValueError(f"the windowed fields {self.windowed} are not one run of {self.fields}")

    @property
    def before(self) -> tuple[str, ...]:
        return self.fields[: self.fields.index(self.windowed[0])]

    @property
    def after(self) -> tuple[str, ...]:
        return self.fields[self.fields.index(self.windowed[-1]) + 1 :]

    @functools.cached_property
    def _keys(self) -> list[pa.Scalar]:
        """What precedes each windowed value after the first: its key (the value before it brings
        its comma)."""
        return [large(_encode(name) + b":") for name in self.windowed[1:]]

    def written(self, table: pa.Table) -> dict[str, pa.Array]:
        """The row bytes of `table`'s rows (its columns the fields, the windowed ones computed from
        its first row): `WRITTEN_COLUMNS`, each made by the same row Structs and encoder as a page
        asked of the server (the pipeline writes them)."""
        whole = [_encode(row) + ROW_END for row in shape_of(self.fields).rows(table)]
        first = _encode(self.windowed[0]) + b":"
        if self.before:
            # `{"date":...,"period_return":X}` without its `}`, then the first windowed key.
            head = [_encode(row)[:-1] + b"," + first for row in shape_of(self.before).rows(table)]
        else:
            head = [b"{" + first] * table.num_rows
        if self.after:
            # `{"gross_exposure":...}` without its `{`: the last windowed value brings the comma.
            tail = [_encode(row)[1:] + ROW_END for row in shape_of(self.after).rows(table)]
        else:
            tail = [b"}" + ROW_END] * table.num_rows
        if len(self.windowed) > 1:
            # The whole row after its first windowed value and that value's comma.
            values = [_encode(value) for value in column_values(table.column(self.windowed[0]))]
            rest = [row[len(h) + len(v) + 1 :] for row, h, v in zip(whole, head, values, strict=True)]
            if any(not row.startswith(h + v + b",") for row, h, v in zip(whole, head, values, strict=True)):
                raise ValueError(f"a row of {self.fields} is not its head, its first value and the rest")
        else:
            rest = tail
        return {
            name: pa.array(made, pa.large_binary())
            for name, made in zip(WRITTEN_COLUMNS, (whole, head, tail, rest), strict=True)
        }

    def page(
        self, written: dict[str, pa.Array], first: int, values: list[np.ndarray], settled: int | None = None
    ) -> PremadeRows:
        """The rows `first` .. `first + n` of `written` whose windowed values are `values` (one array
        of n per windowed field, in order): their heads, values and tails joined. From the page's row
        `settled` on, every windowed value but the first is the one `whole` holds (the window's
        running peak has reached the book's): those rows are their heads, their first value and the
        rest of their whole row."""
        count = values[0].size
        if count == 0:
            return premade_rows(written["whole"], slice(0, 0))
        settled = count if settled is None or len(self.windowed) == 1 else max(0, min(settled, count))
        numbers = json_values(np.concatenate([*(v[:settled] for v in values), values[0][settled:]]))
        joined = []
        if settled:
            columns = [numbers.slice(index * settled, settled) for index in range(len(values))]
            if not self.after:
                # Nothing follows the last value in the row but its `}`: it brings no comma.
                columns[-1] = pc.binary_slice(columns[-1], 0, -1)
            pieces: list[pa.Array | pa.Scalar] = [written["head"].slice(first, settled), columns[0]]
            for key, column in zip(self._keys, columns[1:], strict=True):
                pieces += [key, column]
            pieces.append(written["tail"].slice(first, settled))
            joined.append(pc.binary_join_element_wise(*pieces, NOTHING))
        if settled < count:
            rows = slice(first + settled, first + count)
            firsts = numbers.slice(len(values) * settled, count - settled)
            heads, rests = (written[name][rows] for name in ("head", "rest"))
            joined.append(pc.binary_join_element_wise(heads, firsts, rests, NOTHING))
        whole = joined[0] if len(joined) == 1 else pa.concat_arrays(joined)
        return premade_rows(whole, slice(0, count))

    def whole(self, written: dict[str, pa.Array], first: int, count: int) -> PremadeRows:
        """The rows `first` .. `first + count` of `written` as a window from the first row of their
        book writes them."""
        return premade_rows(written["whole"], slice(first, first + count))


Columns = dict[str, pa.Array | pa.ChunkedArray | np.ndarray]
"""A page's columns by field: Arrow columns as the lake stores them, and float64 arrays computed for
the request."""


def columns_table(fields: tuple[str, ...], columns: Columns) -> pa.Table:
    """`columns` as an Arrow table of `fields` (a computed array as float64, NaN kept)."""
    return pa.table(
        {
            name: pa.array(column, pa.float64()) if isinstance(column, np.ndarray) else column
            for name, column in ((name, columns[name]) for name in fields)
        }
    )


class ComputedPage(TablePage):
    """A page whose columns are partly computed for the request (a window's figures): `columns()`
    gives them, made into Arrow columns only for a columnar representation and into rows only when
    its JSON is not `premade()` (None when the build has no row bytes for it)."""

    def __init__(
        self,
        columns: Callable[[], Columns],
        fields: tuple[str, ...],
        count: int,
        total: int,
        premade: Callable[[], PremadeRows | None],
    ) -> None:
        self._columns, self._fields, self._count = columns, fields, count
        self.total = total
        self._premade = premade

    @functools.cached_property
    def table(self) -> pa.Table:
        return columns_table(self._fields, self._columns())

    @functools.cached_property
    def rows(self) -> list[msgspec.Struct]:
        # Straight from the columns (a computed array's floats by `tolist`), not through `table`.
        columns = self._columns()
        values = [
            column.tolist() if isinstance(column, np.ndarray) else column_values(column)
            for column in (columns[name] for name in self._fields)
        ]
        return shape_of(self._fields).from_columns(values)

    @property
    def returned(self) -> int:
        return self._count
