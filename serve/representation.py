"""Every collection in every representation: the JSON envelope, Arrow IPC stream, CSV, NDJSON and
Parquet, chosen by `format=` or `Accept` (docs/api.md "Representations").

One page, one set of rows: the columnar bodies are written from the same rows the JSON envelope
holds, in the same order, with the same field policy (a page cut from a serving table hands over
its Arrow columns as they are, see `datasets.queries.TablePage`). What the envelope carries around
the rows travels in headers for every representation but JSON (`X-Total-Count`, `X-Pagination`,
`X-Meta`, `X-Warnings`, and the `Link` every page has), and for Arrow and Parquet also in the
schema's metadata (`pagination` and `meta`, JSON text). Column types are the served fields' wire
types (`schemas.wire.wire_type`); fields no wire type declares (the key inventory's, the exports
listing's) are typed from their values, and null on an empty page.
"""

from __future__ import annotations

import io
import json
import math
import re
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from litestar import Response

from core import errors
from datasets.queries import Paged, TablePage
from schemas import wire
from schemas.bodies.base import field_names
from schemas.bodies.envelope import EnvelopeMeta
from schemas.bodies.service import Pagination
from schemas.choices import REPRESENTATIONS
from serve.envelope import Encoded
from serve.params import chosen_value
from serve.weights import weighted_members

JSON = "json"
DEFAULT = JSON
MEDIA_TYPES = {media: name for name, media in REPRESENTATIONS.items()}
CSV_MEDIA_TYPE = "text/csv"  # Litestar adds `; charset=utf-8` to every text/* type
NDJSON_MEDIA_TYPE = "application/x-ndjson"
PARQUET_COMPRESSION = "zstd"
META_HEADER_BYTES = 8192
"""X-Meta and X-Warnings together stay within this many bytes, whatever text a lake holds: a longer
value is replaced by `{"omitted": "too_large", "bytes": N, "limit": 8192}` (X-Meta first), and
the page's meta is read from its JSON representation or, for Arrow and Parquet, from the schema
metadata, which no header limit binds (docs/api.md "Representations")."""
"""Parquet pages are compressed inside the file (zstd pages) and never again over HTTP; Arrow
streams are written without IPC compression and compressed over HTTP when the client accepts it
(never both)."""


def _offered(range_: str) -> list[str]:
    """The representations a media range of `Accept` covers."""
    if range_ in ("*/*", "*"):
        return list(REPRESENTATIONS)
    kind, _, subtype = range_.partition("/")
    if subtype == "*":
        return [name for name, media in REPRESENTATIONS.items() if media.split("/")[0] == kind]
    name = MEDIA_TYPES.get(range_)
    return [name] if name is not None else []


def _specificity(range_: str) -> int:
    return 0 if range_ in ("*/*", "*") else 1 if range_.endswith("/*") else 2


def negotiate(accept: str | None) -> str | None:
    """The representation to answer an `Accept` header with (RFC 9110 12.5.1), None when it
    accepts none of them. The most specific range naming a representation gives its weight;
    `q=0` refuses; equal weights go to the server's order (JSON first); no header is JSON."""
    if accept is None or not accept.strip():
        return DEFAULT
    weights: dict[str, tuple[int, float]] = {}
    for range_, weight in weighted_members(accept):
        for name in _offered(range_):
            specificity = _specificity(range_)
            if name not in weights or specificity > weights[name][0]:
                weights[name] = (specificity, weight)
    best = max(REPRESENTATIONS, key=lambda name: weights.get(name, (0, 0.0))[1])
    return best if weights.get(best, (0, 0.0))[1] > 0 else None


def chosen(accept: str | None, format_: str | None, collection: bool) -> str | None:
    """The representation of a request's answer: JSON unless the route serves a collection; then
    `format=` when given and valid (an invalid one is the parameters' 400), else `accept`, the
    request's first `Accept` header.

    `format_` is the value the query parser read (`serve.params.QueryParams.values`): one reading
    of the query string, so `?%66ormat=csv`, which decodes to `format=csv`, is CSV here as it is
    for the parser and the `Link` header."""
    if not collection:
        return DEFAULT
    if format_ is not None:
        # The parameter's own rule; an invalid value is the parameters' 400, answered as JSON.
        return chosen_value(format_, REPRESENTATIONS) or DEFAULT
    return DEFAULT if accept in _PLAIN_ACCEPTS else negotiate(accept)


_PLAIN_ACCEPTS = frozenset({None, "", "*/*", "application/json"})
"""What most clients send: JSON without parsing a media range."""


def not_acceptable(accept: str) -> errors.ApiError:
    return errors.NotAcceptable(
        "None of the media types in Accept is offered; send one of details.offered, or format=.",
        details={
            "accept": accept[:200],
            "offered": list(REPRESENTATIONS.values()),
            "format": list(REPRESENTATIONS),
        },
    )


def _ascii_json(value: Any) -> str:
    """Header-safe JSON: ASCII only, so no byte of a value can end the header line."""
    return json.dumps(msgspec.to_builtins(value), ensure_ascii=True, separators=(",", ":"))


def _names(rows: list[Any], table: pa.Table | None, fields: tuple[str, ...] | None) -> list[str]:
    """The page's columns: the table's, else its rows' (a Struct's wire names, every key of the
    dicts in order of appearance), else the declared fields (an empty page still has its header)."""
    if table is not None:
        return list(table.column_names)
    if rows and not isinstance(rows[0], dict):
        row_type: type[msgspec.Struct] = type(rows[0])
        return list(field_names(row_type))
    if rows:
        return list(dict.fromkeys(name for row in rows for name in row))
    return list(fields or ())


def _table_of_rows(rows: list[Any], names: list[str]) -> pa.Table:
    """Rows as the JSON envelope holds them (Structs or dicts) as Arrow columns: each field of its
    wire type; a field no declaration types (the key inventory's objects, the exports listing's
    own fields) typed from its values."""
    builtins: list[dict[str, Any]] = msgspec.to_builtins(rows)
    arrays = []
    for name in names:
        values = [row.get(name) for row in builtins]
        try:
            kind = wire.wire_type(name)
        except KeyError:
            arrays.append(pa.array(values))
            continue
        arrays.append(_array(values, kind))
    return pa.Table.from_arrays(arrays, names=names)


def _array(values: list[Any], kind: pa.DataType) -> pa.Array:
    if pa.types.is_date(kind) or pa.types.is_timestamp(kind):
        return pa.array(values, pa.string()).cast(kind)  # as the JSON rows write them (ISO 8601)
    return pa.array(values, kind)


def _as_served(table: pa.Table) -> pa.Table:
    """The columns as the JSON rows serve them: each of its declared wire type (a serving table
    stores instants as ISO text and names as large strings), and a NaN or an infinity, which the
    JSON writes as null, null."""
    for index, field in enumerate(table.schema):
        column, changed = table.column(index), False
        try:
            kind = wire.wire_type(field.name)
        except KeyError:
            kind = field.type
        if kind != field.type:
            column, changed = column.cast(kind), True
        if pa.types.is_floating(kind) and not pc.all(pc.is_finite(column)).as_py():
            column, changed = pc.if_else(pc.is_finite(column), column, pa.scalar(None, kind)), True
        if changed:
            table = table.set_column(index, pa.field(field.name, kind), column)
    return table


class Body:
    """One collection page in one representation."""

    def __init__(
        self,
        page: Paged,
        table: pa.Table | None,
        fields: tuple[str, ...] | None,
        pagination: Pagination,
        meta: EnvelopeMeta[Any],
    ) -> None:
        """`table`: the page's rows as Arrow columns when it has them (a `TablePage`), so Arrow
        and Parquet never make its rows; `fields`: the endpoint's declared row fields."""
        self.page, self._table = page, table
        self.names = _names(page.rows if table is None else [], table, fields)
        self.pagination, self.meta = pagination, meta

    @property
    def rows(self) -> list[Any]:
        return self.page.rows

    def headers(self) -> dict[str, str]:
        headers = {
            "X-Total-Count": str(self.pagination.total),
            "X-Pagination": _ascii_json(self.pagination),
        }
        meta = _ascii_json(self.meta)
        warnings = _ascii_json(self.meta.warnings) if self.meta.warnings else None
        # Seal text reaches meta (`source_alpha_id`, a benchmark's name): whatever a lake holds,
        # X-Meta and X-Warnings together stay within the bound, the larger given up first.
        if len(meta) + len(warnings or "") > META_HEADER_BYTES:
            meta = _omitted(meta)
        if warnings is not None and len(meta) + len(warnings) > META_HEADER_BYTES:
            warnings = _omitted(warnings)
        headers["X-Meta"] = meta
        if warnings is not None:
            headers["X-Warnings"] = warnings
        return headers

    def table(self) -> pa.Table:
        table = self._table if self._table is not None else _table_of_rows(self.rows, self.names)
        metadata = {"pagination": _ascii_json(self.pagination), "meta": _ascii_json(self.meta)}
        return _as_served(table).replace_schema_metadata(metadata)

    def encode(self, name: str) -> tuple[bytes, str]:
        """The body and its media type."""
        if name == "ndjson":
            made = self.page.made_once if isinstance(self.page, TablePage) else None
            lines = made.lines() if made is not None else msgspec.json.Encoder().encode_lines(self.rows)
            return _escape_line_separators(lines), NDJSON_MEDIA_TYPE
        if name == "csv":
            return self.csv(), CSV_MEDIA_TYPE
        table = self.table()
        sink = io.BytesIO()
        if name == "arrow":
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
        else:
            pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
        return sink.getvalue(), REPRESENTATIONS[name]

    def csv(self) -> bytes:
        """A header line of the field names, then one line per row; dates and times as the JSON
        rows write them, nested values (lists, objects) as JSON text, null as an empty cell, and
        a text cell that a spreadsheet would run as a formula neutralised (`_neutralised`).

        A page cut from a serving table is written from its Arrow columns by Arrow's CSV writer,
        without a Python object per cell (docs/benchmarks.md "CSV pages"); other pages (a few
        hundred rows at most: the catalogue, the key inventory) from their rows."""
        if self._table is not None:
            table = _csv_table(self._table)
        else:
            builtins: list[dict[str, Any]] = msgspec.to_builtins(self.rows)
            table = pa.table({name: _csv_array([row.get(name) for row in builtins]) for name in self.names})
        sink = io.BytesIO()
        pa_csv.write_csv(table, sink)
        return sink.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet may run when a cell begins with it (OWASP, "CSV Injection"): such a text
cell is written with a single quote before it, so it is shown as the text it is. Numbers,
dates and booleans are never text cells: a negative number stays a number."""
_FORMULA_START = "^[" + "".join("\\-" if c == "-" else c for c in FORMULA_STARTS) + "]"


def _neutralised(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A text column with every cell that begins with a `FORMULA_STARTS` character prefixed
    with `'` (other columns as they are)."""
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return column
    risky = pc.match_substring_regex(column, _FORMULA_START)
    if not pc.any(risky).as_py():
        return column
    quoted = pc.binary_join_element_wise(pa.scalar("'", column.type), column, pa.scalar("", column.type))
    return pc.if_else(risky, quoted, column)


def _csv_table(table: pa.Table) -> pa.Table:
    """A serving table's page as its CSV cells, each as the JSON rows write it: floats as float64
    with NaN and infinities null, instants as the ISO text the table stores, dates as their ISO
    text; text cells neutralised."""
    columns = []
    for field, column in zip(table.schema, table.columns, strict=True):
        if pa.types.is_floating(field.type):
            column = column.cast(pa.float64())
            if not pc.all(pc.is_finite(column)).as_py():
                column = pc.if_else(pc.is_finite(column), column, pa.scalar(None, pa.float64()))
        elif pa.types.is_date(field.type):
            column = column.cast(pa.string())  # quoted, as the JSON rows' text is
        columns.append(_neutralised(column))
    return pa.table(columns, names=table.column_names)


def _csv_array(values: list[Any]) -> pa.Array:
    """One CSV column from JSON values: NaN (null in JSON) as an empty cell, lists and objects as
    JSON text, a column mixing kinds as text, text cells neutralised."""
    if any(isinstance(v, list | dict) for v in values):
        values = [None if v is None else json.dumps(v, separators=(",", ":")) for v in values]
    values = [None if isinstance(v, float) and not math.isfinite(v) else v for v in values]
    try:
        return _neutralised(pa.array(values))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # Only the cells that were text are neutralised: a number among them stays a number.
        return pa.array(
            [
                None
                if v is None
                else "'" + v
                if isinstance(v, str) and v.startswith(FORMULA_STARTS)
                else str(v)
                for v in values
            ],
            pa.string(),
        )


_LINE_SEPARATORS = re.compile("\u2028|\u2029".encode())


def _escape_line_separators(lines: bytes) -> bytes:
    """U+2028 and U+2029 as JSON escapes: JSON allows them raw inside strings, but a reader that
    splits on every Unicode line break (Python's `str.splitlines`, JavaScript before ES2019) would
    cut an NDJSON record in two. They occur only inside strings, where the escape is the same
    text. A page without their lead byte (any ASCII page) is returned untouched after one memchr."""
    if b"\xe2" not in lines:
        return lines
    return _LINE_SEPARATORS.sub(lambda match: f"\\u{ord(match[0].decode()):04x}".encode(), lines)


def _omitted(header: str) -> str:
    """What stands for an X-Meta or X-Warnings value over `META_HEADER_BYTES`."""
    return _ascii_json({"omitted": "too_large", "bytes": len(header), "limit": META_HEADER_BYTES})


def columnar_response(name: str, body: Body, link: str | None) -> Encoded:
    content, media_type = body.encode(name)
    headers = body.headers()
    if link:
        headers["Link"] = link
    return Response(content=content, status_code=200, media_type=media_type, headers=headers)
