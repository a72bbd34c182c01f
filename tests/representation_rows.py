"""Rows of a columnar answer (Arrow, Parquet, CSV, NDJSON) read back as the JSON rows write them,
for the tests that hold every representation to its JSON page."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import date, datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


def _json_value(value: Any) -> Any:
    """A column value as the JSON rows write it."""
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    return value


def _csv_value(cell: str, expected: Any) -> Any:
    """A CSV cell read as the type of the JSON value it must equal."""
    if expected is None or cell == "":
        return None if cell == "" else cell
    if isinstance(expected, bool):
        return {"true": True, "false": False}.get(cell, cell)
    if isinstance(expected, int):
        return int(cell)
    if isinstance(expected, float):
        return float(cell)
    if isinstance(expected, list | dict):
        return json.loads(cell)
    return cell


def rows_of(name: str, body: bytes, expected: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if name == "ndjson":
        return [json.loads(line) for line in body.decode().splitlines()]
    if name == "csv":
        reader = csv.DictReader(io.StringIO(body.decode()))
        return [
            {k: _csv_value(v, want.get(k)) for k, v in row.items()}
            for row, want in zip(reader, expected + [{}] * 10**6, strict=False)
        ]
    table = pa.ipc.open_stream(body).read_all() if name == "arrow" else pq.read_table(io.BytesIO(body))
    return [{k: _json_value(v) for k, v in row.items()} for row in table.to_pylist()]


def metadata_of(name: str, body: bytes) -> dict[bytes, bytes]:
    schema = pa.ipc.open_stream(body).schema if name == "arrow" else pq.read_schema(io.BytesIO(body))
    return dict(schema.metadata or {})


def filled(rows: list[dict[str, Any]], columns: list[str]) -> list[dict[str, Any]]:
    """JSON rows with the fields they omit (null "when sealed") as null, in the given columns."""
    return [{c: row.get(c) for c in columns} for row in rows]
