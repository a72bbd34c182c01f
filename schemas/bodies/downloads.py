"""The signed-download bodies: an alpha's source archive (serve/signing/archives.py `Archive.to_wire`), and
the Parquet exports (serve/signing/export_urls.py): a row of the listing and the signed download of one."""

from __future__ import annotations

from typing import Annotated

from schemas import choices, units
from schemas.bodies.base import Body
from schemas.bodies.formats import Count, Sha256, Uri, doc, one_of

EXPIRES_IN = doc("Lifetime of the signed URL (3600); do not cache it beyond.", unit=units.SECONDS)
PARQUET_FILENAME = doc(
    "`<alpha_id>.<dataset>[.<book>][.raw].parquet`; `.raw` marks the variant with raw columns."
)
PARQUET_SIZE = doc("Size of the Parquet file.", unit=units.BYTES)
PARQUET_SHA256 = doc("SHA-256 of the Parquet file (hex); check the bytes with it.")
PARQUET_ROWS = doc("Rows in the file.", unit=units.ROWS)
COLUMNS = doc(
    "The file's column names, in order (`raw_*` columns only in the raw variant, for raw-book keys)."
)
BUILD = doc("The build the file belongs to (the benchmark's own build for `benchmark`).")
"""The meanings of the fields the signed downloads and the export listing share."""


class SourceDownload(Body, kw_only=True, frozen=True):
    """`GET /v1/alphas/{alpha}/source/download` `data`: a freshly signed URL of the archive."""

    url: Annotated[
        Uri, doc("Freshly signed, time-limited HTTPS GET URL of the source archive; fetch it directly.")
    ]
    expires_in: Annotated[int, EXPIRES_IN]
    filename: Annotated[str, doc("Archive file name, `<alpha_id>.zip`.")]
    size_bytes: Annotated[
        int | None, doc("Size of the archive.", unit=units.BYTES, null="Null when the run did not record it.")
    ]
    sha256: Annotated[
        str | None, doc("SHA-256 of the archive (hex).", null="Null when the run did not record it.")
    ]


class ExportRow(Body, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/exports`: one Parquet file the key may export."""

    dataset: Annotated[
        str,
        one_of(choices.EXPORT_DATASETS),
        doc(
            "The `{dataset}` to ask `/exports/{dataset}` for (decisions, rebalances, portfolio, "
            "positions, pnl, trades, equity-curve, benchmark)."
        ),
    ]
    book: Annotated[
        str | None,
        doc(
            "The book of a book dataset, to pass as `book=`.",
            null="Null for `decisions`, `rebalances` and `benchmark`.",
        ),
    ]
    filename: Annotated[str, PARQUET_FILENAME]
    rows: Annotated[Count, PARQUET_ROWS]
    size_bytes: Annotated[Count, PARQUET_SIZE]
    sha256: Annotated[Sha256, PARQUET_SHA256]
    columns: Annotated[list[str], COLUMNS]
    build: Annotated[str, BUILD]


class ExportDownload(Body, kw_only=True, frozen=True):
    """`GET /v1/alphas/{alpha}/exports/{dataset}` `data`: a freshly signed URL of one Parquet file."""

    url: Annotated[Uri, doc("Freshly signed, time-limited GET URL of the Parquet file; fetch it directly.")]
    expires_in: Annotated[int, EXPIRES_IN]
    filename: Annotated[str, PARQUET_FILENAME]
    size_bytes: Annotated[Count, PARQUET_SIZE]
    sha256: Annotated[Sha256, PARQUET_SHA256]
    rows: Annotated[Count, PARQUET_ROWS]
    columns: Annotated[list[str], COLUMNS]
    build: Annotated[str, BUILD]
