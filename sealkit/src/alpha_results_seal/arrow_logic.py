"""The comparisons, memberships, duplicates and joins the seal rules make, on Arrow arrays, with
NaN and null each handled on purpose (the rules were polars expressions until the kit dropped
polars as a dependency; these keep their answers, tests/sealkit/test_rules_port.py proves it).

- **NaN is above every number** in an order comparison (`x > 0` holds for a NaN `x`, `x <= 0`
  does not) and equal to itself in a key (a duplicate, a membership, a join): IEEE's "NaN
  compares false" would let a NaN weight or equity through a rule written as `x > 0` or
  `|a - b| > tol`. -0.0 and 0.0 are one key.
- **null** propagates through arithmetic and comparisons (Kleene logic: `null | True` is True,
  `null & False` False) and a row whose flag stays null is not flagged; `is_in` of a null is
  null; null keys are equal to each other in a duplicate or a semi-join, and match nothing in
  the full join of the P&L rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

Values: TypeAlias = pa.Array | pa.ChunkedArray
NULL_FLAG = pa.scalar(None, pa.bool_())


def greater(a: Values, bound: float) -> Values:
    """`a > bound` (a number) with NaN above every number: a NaN `a` is greater (IEEE says no)."""
    return pc.or_kleene(pc.greater(a, bound), pc.is_nan(a))


def is_in(values: Values, allowed: Any) -> Values:
    """Whether each value is one of `allowed`; null for a null value (dates and text only)."""
    value_set = allowed if isinstance(allowed, pa.Array | pa.ChunkedArray) else pa.array(allowed, values.type)
    if isinstance(value_set, pa.ChunkedArray):
        value_set = value_set.combine_chunks()
    found = pc.is_in(values, value_set=pc.drop_null(value_set), skip_nulls=True)
    return pc.if_else(pc.is_null(values), NULL_FLAG, found)


def any_of(flags: Sequence[Values]) -> Values:
    """The flags or'ed, Kleene: True when one holds, null when none does and one is null."""
    out = flags[0]
    for flag in flags[1:]:
        out = pc.or_kleene(out, flag)
    return out


def _dense(values: pa.Array) -> np.ndarray:
    """Dense int64 codes (0 .. distinct - 1) of `values`, a null one code (Arrow's hashing: no sort)."""
    encoded = pc.dictionary_encode(values, null_encoding="encode")
    return np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)


def _key_codes(values: Values) -> np.ndarray:
    """Dense codes, equal exactly when the values are equal as keys: nulls equal to each other,
    NaN to NaN, -0.0 to 0.0 (a float is keyed by the bits of its canonical form)."""
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if pa.types.is_floating(array.type):
        nulls = np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        filled = pc.fill_null(pc.cast(array, pa.float64()), 0.0)
        x = np.asarray(filled.to_numpy(zero_copy_only=False), dtype=np.float64)
        x = np.where(np.isnan(x), np.nan, x) + 0.0  # one NaN; -0.0 + 0.0 is 0.0
        return _dense(pa.array(x.view(np.int64), pa.int64(), mask=nulls))
    return _dense(array)


def row_codes(columns: Sequence[Values]) -> np.ndarray:
    """One int64 per row, equal for rows whose `columns` are all equal as keys: each column's
    codes folded into the row's, kept dense (below the row count, so the product never overflows)."""
    codes = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
    for column in columns:
        mine = _key_codes(column)
        if not mine.size:
            continue
        codes = _dense(pa.array(codes * (int(mine.max()) + 1) + mine, pa.int64()))
    return codes


def is_duplicated(table: pa.Table, names: Sequence[str]) -> pa.Array:
    """Whether the row's `names` values occur in another row too (nulls equal)."""
    codes = row_codes([table.column(n) for n in names])
    counts = np.bincount(codes) if codes.size else np.zeros(0, dtype=np.int64)
    return pa.array(counts[codes] > 1 if codes.size else np.zeros(0, dtype=bool), pa.bool_())


def _canonical(values: Values) -> pa.Array:
    """A float column as the int64 bits of its canonical form (one NaN, -0.0 as 0.0), nulls kept
    null; any other column as it is: keys a hash join compares as the rules do."""
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if not pa.types.is_floating(array.type):
        return array
    nulls = np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    x = np.asarray(pc.fill_null(pc.cast(array, pa.float64()), 0.0).to_numpy(zero_copy_only=False), np.float64)
    x = np.where(np.isnan(x), np.nan, x) + 0.0  # one NaN; -0.0 + 0.0 is 0.0
    return pa.array(x.view(np.int64), pa.int64(), mask=nulls)


def _join_keys(table: pa.Table, names: Sequence[str], flagged: set[str]) -> dict[str, pa.Array]:
    """`names` as hash-join keys: canonical, and where a column of either side holds a null
    (`flagged`), the null replaced by a filler and told apart by a flag column of its own (Arrow's
    join matches no null key; the rule wants nulls equal)."""
    keys: dict[str, pa.Array] = {}
    for name in names:
        key = _canonical(table.column(name))
        if name in flagged:
            keys[f"{name}\0null"] = key.is_null()
            filler = "" if pa.types.is_string(key.type) or pa.types.is_large_string(key.type) else 0
            keys[name] = pc.fill_null(key, pa.scalar(filler).cast(key.type))
        else:
            keys[name] = key
    return keys


def semi_join_rows(table: pa.Table, other: pa.Table, names: Sequence[str]) -> np.ndarray:
    """Whether each row of `table` equals some row of `other` on every one of `names`, nulls
    equal, NaN equal to NaN, -0.0 to 0.0 (a semi-join with nulls equal): Arrow's hash join
    (`Table.join`, "left semi") over canonical keys."""
    if not table.num_rows or not other.num_rows:
        return np.zeros(table.num_rows, dtype=bool)
    flagged = {n for n in names if table.column(n).null_count or other.column(n).null_count}
    mine = _join_keys(table, names, flagged)
    theirs = _join_keys(other, names, flagged)
    index = "\0row"
    left = pa.table({**mine, index: pa.array(np.arange(table.num_rows), pa.int64())})
    found = left.join(pa.table(theirs), keys=list(mine), join_type="left semi", use_threads=False)
    known = np.zeros(table.num_rows, dtype=bool)
    known[np.asarray(found.column(index).to_numpy(zero_copy_only=False), dtype=np.int64)] = True
    return known


def sort_by_date(table: pa.Table) -> pa.Table:
    """Rows by `date`, nulls first (as polars sorts), ties in their order (a stable sort). The
    nulls are moved up by hand: a null placement per sort key needs pyarrow 25, the kit takes 16."""
    order = pc.sort_indices(table.column("date")).to_numpy()  # nulls last, stable
    nulls = table.column("date").null_count
    if nulls:
        order = np.concatenate([order[-nulls:], order[:-nulls]])
    return table.take(pa.array(order, pa.int64()))


def shift_down(values: Values) -> pa.Array:
    """The previous row's value; null on the first row."""
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if len(array) == 0:
        return array
    return pa.concat_arrays([pa.nulls(1, array.type), array.slice(0, len(array) - 1)])


def group_sums(
    table: pa.Table, key: str | Sequence[str], sums: dict[str, Values], count: str | None = None
) -> pa.Table:
    """Per value of `key`: each of `sums` added up in row order, nulls skipped (0.0 when every
    value is null), and the group's row count as `count`. Null keys are one group. A group of one
    row sums to its value, -0.0 included (as polars summed; an addition from 0.0 would give 0.0)."""
    keys = [key] if isinstance(key, str) else list(key)
    columns = {k: table.column(k) for k in keys} | {f"_{name}": v for name, v in sums.items()}
    skip = pc.ScalarAggregateOptions(skip_nulls=True, min_count=0)
    aggregations: list[Any] = [([], "count_all")]
    for name in sums:
        aggregations += [(f"_{name}", "sum", skip), (f"_{name}", "min")]
    # one thread: a group's values are added in row order
    grouped = pa.table(columns).group_by(keys, use_threads=False).aggregate(aggregations)
    single = pc.equal(grouped.column("count_all"), 1)
    out = {k: grouped.column(k) for k in keys}
    for name in sums:
        alone = pc.fill_null(grouped.column(f"_{name}_min"), 0.0)
        out[name] = pc.if_else(single, alone, grouped.column(f"_{name}_sum"))
    if count is not None:
        out[count] = grouped.column("count_all")
    return pa.table(out)
