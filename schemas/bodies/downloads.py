"""The signed-download bodies: an alpha's source archive (serve/archives.py `Archive.to_wire`), and
the Parquet exports (serve/exports.py): a row of the listing and the signed download of one."""

from __future__ import annotations

from typing import Annotated

from schemas import exports
from schemas.bodies.base import Body
from schemas.bodies.formats import Count, Sha256, Uri, one_of


class SourceDownload(Body, kw_only=True, frozen=True):
    """`GET /v1/alphas/{alpha}/source/download` `data`: a freshly signed URL of the archive."""

    url: Uri
    expires_in: int
    filename: str
    size_bytes: int | None
    sha256: str | None


class ExportRow(Body, kw_only=True, frozen=True):
    """A row of `GET /v1/alphas/{alpha}/exports`: one Parquet file the key may export."""

    dataset: Annotated[str, one_of(exports.DATASET_NAMES)]
    book: str | None
    filename: str
    rows: Count
    size_bytes: Count
    sha256: Sha256
    columns: list[str]
    build: str


class ExportDownload(Body, kw_only=True, frozen=True):
    """`GET /v1/alphas/{alpha}/exports/{dataset}` `data`: a freshly signed URL of one Parquet file."""

    url: Uri
    expires_in: int
    filename: str
    size_bytes: Count
    sha256: Sha256
    rows: Count
    columns: list[str]
    build: str
