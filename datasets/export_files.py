"""Parquet exports of one build: measured at publish time, made on first ask from its serving tables.

Every dataset of `schemas.exports` becomes one Parquet file per book (`exports/{dataset}[.{book}]
[.raw].parquet`, `datasets.layout`), holding exactly the rows and columns its JSON route returns
when paged from start to end: the same serving tables in the same order, the same field sets, the
equity curve and the benchmark series computed over the whole window by the functions that
compute the JSON pages (`analytics.series`, handed in by the pipeline: the lake computes no figure). A dataset with raw-only columns (decisions) is written
twice: without them (audience `plain`) and with them (`raw`); a `raw_` book's files are `raw`.

Column types: dates are Parquet dates; timestamps are UTC timestamps in microseconds, the lake's one
time unit (`schemas.lake.UTC_TS`; milliseconds before issue 65, item 7), holding whole seconds, as
the JSON serves them; floats are float64, null wherever
the JSON serves `null` (NaN and infinities included); the rest as in `schemas.lake`. A field the
JSON omits when null (`entry_at`, `maturity_at`) is a null in the file.

`exports/index.json` lists every file with its dataset, book, audience, rows and columns, and
(pipeline 2.13.0) its `bytes`, `sha256` and whether the publish `stored` it. **A publish stores no
alpha export** (issue 78, item 4: "each row is stored up to five times"): it serialises each one to
record its size and SHA-256, and the server makes it again from the build's serving tables on its
first ask (`made_export`, `datasets.derived.DerivedFiles.made_export`), byte for byte, checked
against that SHA-256; on an S3 lake it then puts it where the presigned URL points
(`serve.signing.export_urls`). A benchmark's one export is stored. A stored file is also in the
build's manifest (`alpha.json` / `benchmark.json` `files`), like every other file of the build; a
build before 2.13.0 stored every export and records their size and SHA-256 there only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from datasets import layout
from datasets.writer import COMPRESSION, BuildWriter
from schemas import exports, lake, wire

if TYPE_CHECKING:
    from datasets.build_view import BuildView

WIRE_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # as datasets.serving_layout writes timestamps
EXPORT_TIMESTAMP = lake.UTC_TS  # the lake's unit, so a join needs no cast; values are whole seconds
TIMESTAMP_FIELDS = frozenset(
    f.name for schema in lake.TABLE_SCHEMAS.values() for f in schema if pa.types.is_timestamp(f.type)
)
"""Lake timestamp columns; the serving files hold them as ISO text, the exports as timestamps."""


def export_column(name: str, column: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """One served column as the export stores it (see the module docstring)."""
    kind = column.type
    if name in TIMESTAMP_FIELDS and pa.types.is_string(kind):
        return pc.strptime(column, format=WIRE_TIME_FORMAT, unit="s").cast(EXPORT_TIMESTAMP)
    if pa.types.is_timestamp(kind):
        return column.cast(EXPORT_TIMESTAMP, safe=False)
    if pa.types.is_floating(kind):
        values = column.cast(pa.float64())
        return pc.if_else(pc.is_finite(values), values, pa.scalar(None, pa.float64()))
    return column


def export_table(table: pa.Table, fields: Iterable[str]) -> pa.Table:
    """The `fields` of a serving (or computed) table, in order, as export columns."""
    names = tuple(fields)
    return pa.table({name: export_column(name, table.column(name)) for name in names})


def parquet_bytes(table: pa.Table) -> bytes:
    """One Parquet file: zstd, a single row group up to a million rows (a client reads it whole)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=COMPRESSION, row_group_size=1 << 20)
    return bytes(sink.getvalue().to_pybytes())


def variant_fields(dataset: exports.ExportDataset, raw_variant: bool) -> tuple[str, ...]:
    """The columns of a dataset's plain variant (no raw-only fields) or of its raw one."""
    return dataset.fields if raw_variant else wire.visible_fields(dataset.fields, expose_raw_book=False)


def _write(
    writer: BuildWriter,
    build_dir: str,
    dataset: exports.ExportDataset,
    rows: pa.Table,
    book: str | None,
    stored: bool,
) -> list[dict[str, Any]]:
    """The file(s) of one dataset (and book): the plain variant, and the raw one when the dataset
    has raw-only columns; written into the build when `stored`, else only measured. Returns their
    index entries."""
    entries = []
    raw_variants = [False] if variant_fields(dataset, False) == dataset.fields else [False, True]
    for raw_variant in raw_variants:
        fields = variant_fields(dataset, raw_variant)
        name = layout.export_file_name(dataset.name, book, raw_variant)
        payload = parquet_bytes(export_table(rows, fields))
        if stored:
            writer.write_bytes(layout.export_path(build_dir, name), payload)
        entries.append(
            {
                "dataset": dataset.name,
                "book": book,
                "audience": exports.audience_of(dataset.fields, book, raw_variant),
                "path": layout.export_path("", name),
                "rows": rows.num_rows,
                "columns": list(fields),
                "bytes": len(payload),
                "sha256": hashlib.sha256(payload).hexdigest(),
                "stored": stored,
            }
        )
    return entries


def made_export(
    view: BuildView, relative: str, computed: Mapping[str, Callable[[pa.Table], pa.Table]]
) -> bytes:
    """The bytes of the alpha export `relative` (`exports/{file}`) of `view`'s build, made from its
    serving tables as `AlphaExports` made them at publish time (`computed` as the pipeline handed
    it): what the server sends for an export the lake did not store. KeyError when the build has no
    such export."""
    name, book, raw_variant = layout.export_file_parts(relative.rsplit("/", 1)[-1])
    dataset = exports.BY_NAME[name]
    if dataset.kind is None:  # the benchmark's: always stored
        raise KeyError(relative)
    if dataset.books:
        if book is None:
            raise KeyError(relative)
        rows = view.book_rows(dataset.kind, book)
        if rows is not None and dataset.name in computed:
            rows = computed[dataset.name](rows)
    else:
        rows = view.table(dataset.kind)
    if rows is None:
        raise KeyError(relative)
    return parquet_bytes(export_table(rows, variant_fields(dataset, raw_variant)))


class AlphaExports:
    """Writes `exports/` of one alpha build from its serving tables a table at a time (issue 78,
    item 5): `add` each serving table (by its kind, with a book table's row ranges) as it is
    written, then `finish` (the index, its files in `schemas.exports.DATASETS` order whatever the
    order of the tables). A dataset named in `computed` is its function of one book's serving rows
    (the equity curve: `analytics.series.equity_curve_table`). Only datasets of kinds the run sealed
    are written: the JSON routes answer an empty page with `kind_missing` for the others."""

    def __init__(
        self,
        writer: BuildWriter,
        build_dir: str,
        kinds_present: Iterable[str],
        computed: Mapping[str, Callable[[pa.Table], pa.Table]],
    ) -> None:
        self.writer, self.build_dir = writer, build_dir
        self.present, self.computed = frozenset(kinds_present), computed
        self.entries: dict[str, list[dict[str, Any]]] = {}

    def add(self, kind: str, table: pa.Table, ranges: dict[str, list[int]] | None = None) -> None:
        for dataset in exports.DATASETS:
            if dataset.kind != kind or kind not in self.present:
                continue
            entries = self.entries.setdefault(dataset.name, [])
            if not dataset.books:
                entries += _write(self.writer, self.build_dir, dataset, table, None, stored=False)
                continue
            ranges = ranges or {}
            for book in wire.books_in_order(list(ranges)):
                start, stop = ranges[book]
                rows = table.slice(start, stop - start)
                if dataset.name in self.computed:
                    rows = self.computed[dataset.name](rows)
                entries += _write(self.writer, self.build_dir, dataset, rows, book, stored=False)

    def finish(self) -> None:
        write_index(
            self.writer,
            self.build_dir,
            [entry for dataset in exports.DATASETS for entry in self.entries.get(dataset.name, [])],
        )


def write_benchmark_exports(writer: BuildWriter, build_dir: str, series: pa.Table) -> None:
    """Writes `exports/` of one benchmark build from its whole series (date order, the rows of
    `analytics.series.benchmark_table`)."""
    dataset = exports.BY_NAME[exports.BENCHMARK_DATASET]
    entries = _write(writer, build_dir, dataset, series, None, stored=True)
    write_index(writer, build_dir, entries)


PARQUET_WRITER = f"parquet-cpp-arrow version {pa.__version__}"
"""What writes the exports' bytes (each file's footer names it, `created_by`): the index records
it, since another writer (a pyarrow upgrade) makes other bytes of the same rows, which a server then
refuses to send under the recorded SHA-256 (`export_not_reproduced`) until the alpha is published
again."""


def write_index(writer: BuildWriter, build_dir: str, entries: list[dict[str, Any]]) -> None:
    document = {"format": exports.EXPORT_FORMAT, "writer": PARQUET_WRITER, "files": entries}
    writer.write_json(layout.export_path(build_dir, layout.EXPORTS_INDEX), document)


INDEX_PATH = layout.export_path("", layout.EXPORTS_INDEX)
"""`exports/index.json`, relative to the build (as the manifest names it)."""


def index_entries(index: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The files an `exports/index.json` lists; None when the build has no index of a format this
    code reads (built before exports, pipeline 2.0)."""
    if index is None or index.get("format") not in exports.EXPORT_FORMATS_READ:
        return None
    files = index.get("files")
    return list(files) if isinstance(files, list) else None
