"""Reading a seal's JSON and Parquet files within `alpha_results_seal.seal_limits`, never decoding first.

JSON: the file's size is checked before it is read (`alpha_results_seal.seal_files`), then it must be UTF-8 and nest at most
`MAX_JSON_DEPTH` levels. Parquet: every file's footer (rows, uncompressed bytes, columns and
types) is read before any page of it is decoded, and the kind's totals over all its files are
checked before the first is decoded. Only the seal schema's flat columns are then decoded (the
footer's columns are checked first), so a table's fixed-width columns are bounded by its rows.
String columns are decoded as dictionaries first: a short file may repeat one long string a
million times, and its full size is counted before it is expanded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from alpha_results_seal.rules import SealRejected
from alpha_results_seal.seal_limits import MAX_JSON_DEPTH, SealLimits, bytes_variable, rows_variable

SIZE_RULE = "seal.size_limits"
# What pyarrow raises for bytes it cannot read as Parquet (damaged pages, footers, encodings).
UNREADABLE = (pa.ArrowException, OSError, ValueError)


# --- JSON ---------------------------------------------------------------------------------------


def parse_json_object(data: bytes, name: str, kind: str, rule: str) -> dict[str, Any]:
    """The JSON object in `data` (read within the JSON size limit, `alpha_results_seal.seal_files`); `rule`
    refuses what is not one, `seal.size_limits` one nested deeper than `MAX_JSON_DEPTH`."""
    too_deep = f"{name} nests arrays and objects deeper than {MAX_JSON_DEPTH} levels"
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError as exc:
        raise SealRejected(SIZE_RULE, kind, too_deep) from exc
    except ValueError as exc:  # not UTF-8, not JSON, NaN, an integer of more than 4,300 digits
        raise SealRejected(rule, kind, f"{name} is not valid JSON: {exc}") from exc
    if json_depth(document) > MAX_JSON_DEPTH:
        raise SealRejected(SIZE_RULE, kind, too_deep)
    if not isinstance(document, dict):
        raise SealRejected(rule, kind, f"{name} is not a JSON object (it holds {type(document).__name__})")
    return document


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_depth(document: Any) -> int:
    """Levels of arrays and objects (0 for a scalar), counted without recursion and only as far
    as one level past the limit."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(document, 1)]
    while pending and deepest <= MAX_JSON_DEPTH:
        value, depth = pending.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in value)
    return deepest


# --- Parquet ------------------------------------------------------------------------------------


@dataclass
class Footer:
    """What one Parquet file of a seal declares, read before any of its pages is decoded."""

    name: str  # relative to the seal
    kind: str
    data: bytes
    rows: int
    uncompressed_bytes: int
    strings: list[str]  # its string columns, decoded as dictionaries first


def read_footer(data: bytes, name: str, kind: str, expected: pa.Schema) -> Footer:
    """The footer of the file `data` (its bytes, read once with its hash); refuses a file that is
    not Parquet or whose columns differ from `expected` (so nothing but the seal schema's flat
    columns is ever decoded)."""
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        metadata, schema = parquet.metadata, parquet.schema_arrow
        groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
        # The reader decodes each row group's stated rows at most. A writer states each row
        # group's size and each of its column chunks' sizes: the larger counts, and a negative
        # figure never offsets another.
        rows = max(metadata.num_rows, sum(max(0, group.num_rows) for group in groups))
        uncompressed = sum(
            max(
                0,
                group.total_byte_size,
                sum(group.column(i).total_uncompressed_size for i in range(group.num_columns)),
            )
            for group in groups
        )
    except UNREADABLE as exc:
        raise SealRejected("schema.columns", kind, f"{name} is not readable Parquet: {exc}") from exc
    check_columns(schema, expected, kind, name)
    strings = [f.name for f in schema if _is_string(f.type)]
    return Footer(name, kind, data, rows, uncompressed, strings)


def over_declared_limits(footers: Sequence[Footer], limits: SealLimits) -> list[SealRejected]:
    """The kinds whose declared rows or uncompressed bytes (summed over the kind's files) are over
    their limits, one refusal each: checked before anything of the seal is decoded."""
    over = []
    for kind, group in by_kind(footers).items():
        limit = limits.of(kind)
        declared = sum(f.uncompressed_bytes for f in group)
        rows = sum(f.rows for f in group)
        refusal = _over(kind, group, rows, "rows", limit.rows, rows_variable(kind)) or _over(
            kind, group, declared, "bytes uncompressed", limit.bytes, bytes_variable(kind)
        )
        if refusal is not None:
            over.append(refusal)
    return over


def by_kind(footers: Sequence[Footer]) -> dict[str, list[Footer]]:
    return {footer.kind: [f for f in footers if f.kind == footer.kind] for footer in footers}


def decode_compact(group: Sequence[Footer]) -> list[tuple[pa.Table, int]]:
    """One kind's tables with their string columns still dictionaries (the cheap part: indices),
    each with its size once expanded."""
    return [_decode_compact(f) for f in group]


def over_decoded_limit(
    group: Sequence[Footer], compact: Sequence[tuple[pa.Table, int]], limits: SealLimits
) -> SealRejected | None:
    """A refusal when the kind's decoded size (strings counted in full) is over its limit: checked
    before any string column is expanded."""
    kind = group[0].kind
    decoded = sum(size for _, size in compact)
    return _over(kind, group, decoded, "bytes decoded", limits.of(kind).bytes, bytes_variable(kind))


def expand(compact: Sequence[tuple[pa.Table, int]]) -> list[pa.Table]:
    """The tables with their string columns expanded."""
    return [_expanded(table) for table, _ in compact]


def _over(
    kind: str, group: Sequence[Footer], figure: int, unit: str, limit: int, variable: str
) -> SealRejected | None:
    if figure <= limit:
        return None
    what = group[0].name if len(group) == 1 else f"the {len(group)} files of kind {kind}"
    return SealRejected(
        SIZE_RULE, kind, f"{what}: {figure:,} {unit}; the limit of kind {kind} is {limit:,} ({variable})"
    )


def _decode_compact(footer: Footer) -> tuple[pa.Table, int]:
    """The table with its string columns still dictionary-encoded (the cheap part: indices),
    and its size once they are expanded."""
    try:
        # One thread, over an Arrow buffer: Arrow's pool threads reading a Python file object, or
        # releasing a buffer over Python bytes, need the GIL, which at interpreter exit they
        # cannot take (the build aborted with "terminate called without an active exception").
        table = pq.ParquetFile(pa.BufferReader(footer.data), read_dictionary=footer.strings).read(
            use_threads=False
        )
        return table, decoded_bytes(table)
    except UNREADABLE as exc:
        raise SealRejected(
            "schema.columns", footer.kind, f"{footer.name} is not readable Parquet: {exc}"
        ) from exc


def decoded_bytes(table: pa.Table) -> int:
    """The table's size once its dictionary-encoded strings are expanded (values and offsets)."""
    size = 0
    for column in table.columns:
        for chunk in column.chunks:
            if isinstance(chunk, pa.DictionaryArray):
                lengths = pc.take(pc.binary_length(chunk.dictionary), chunk.indices)
                size += int(pc.sum(lengths).as_py() or 0) + 4 * len(chunk)  # values and offsets
            else:
                size += chunk.nbytes
    return size


def _expanded(table: pa.Table) -> pa.Table:
    schema = pa.schema(
        [f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in table.schema]
    )
    return table.cast(schema)


def _is_string(data_type: pa.DataType) -> bool:
    return bool(
        pa.types.is_string(data_type)
        or pa.types.is_large_string(data_type)
        or pa.types.is_string_view(data_type)
    )


def comparable(data_type: pa.DataType) -> pa.DataType:
    # Writers such as polars emit 64-bit-offset strings; the values are the same strings.
    return pa.string() if _is_string(data_type) else data_type


def check_columns(schema: pa.Schema, expected: pa.Schema, kind: str, where: str) -> None:
    """Rule `schema.columns`: exactly the columns and types of `expected`."""
    got = {f.name: comparable(f.type) for f in schema}
    want = {f.name: f.type for f in expected}
    problems = [f"missing column {n}" for n in want if n not in got]
    problems += [
        f"column {n} appears more than once" for n in sorted(set(schema.names)) if schema.names.count(n) > 1
    ]
    problems += [f"unexpected column {n}" for n in got if n not in want]
    problems += [f"{n} is {got[n]}, expected {want[n]}" for n in want if n in got and got[n] != want[n]]
    if problems:
        raise SealRejected("schema.columns", kind, f"{where}: " + "; ".join(problems))
