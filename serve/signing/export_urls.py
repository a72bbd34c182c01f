"""Parquet exports on the wire: which files a key may export, and a signed URL to one of them.

The pipeline records every export of a build (`datasets.export_files`: stored in an object store's
lake, made by this server on first download from a folder's); here a key's view of them is chosen
and signed, with the signers of the source archives (`serve.signing.archives`): an HMAC-signed URL
on this server's `/downloads/...` route for a local lake, a presigned S3 GET URL for an `s3://`
one. What a key may export:

- the file's audience matches its field policy (`schemas.exports.visible_to`): a key without
  raw-book access gets the variant without `raw_*` columns and no `raw_` book, a key with it the
  variant with them, so the file equals the JSON pages the same key reads;
- the key may call the JSON route that serves the same rows (`ExportDataset.endpoint`): an export
  is a bulk form of that route and never opens more than it.

Object paths are those of the build's files relative to the lake root
(`alphas/<alpha>/builds/<build>/exports/<file>`, `benchmarks/<symbol>/builds/<build>/exports/<file>`);
the download route serves nothing else (`EXPORT_OBJECT_PATH`).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass

from alpha_results_seal.storage import Storage
from analytics.series import COMPUTED_EXPORTS
from core import errors
from core.context import Caller
from datasets import layout
from datasets.export_files import INDEX_PATH, index_entries
from datasets.faults import BuildDamaged
from datasets.reader import BuildView, LakeReader
from schemas import exports, wire
from schemas.bodies.downloads import ExportDownload, ExportRow
from serve.signing.archives import URL_LIFETIME_SECONDS, ArchiveSigner, S3Signer

log = logging.getLogger("serve.signing.export_urls")

PARQUET = "application/vnd.apache.parquet"
EXPORT_ENDPOINT = "exports.download"
"""The route that signs an export URL; every fetch of the URL needs it still (serve.routes.downloads)."""
EXPORT_OBJECT_PATH = re.compile(
    rf"(?:alphas/(?P<alpha>{layout.ALPHA_ID_PATTERN.pattern})|benchmarks/(?P<symbol>{layout.BENCHMARK_SYMBOL_PATTERN.pattern}))"
    r"/builds/(?P<build>[0-9a-f]{20}(?:-[0-9a-f]{8})?)/exports/(?P<file>[a-z][a-z-]*(?:\.[A-Za-z0-9_]+)*\.parquet)"
)
"""The only object paths an export URL names: a Parquet file in the `exports/` folder of a build."""


def export_filename(object_path: str) -> str | None:
    """`<alpha_id or symbol>.<file>` of an export's object path (e.g.
    `momentum_12_1.decisions.raw.parquet`), else None. Derived from the path alone, so the API's
    `filename` and the download's `Content-Disposition` always agree."""
    match = EXPORT_OBJECT_PATH.fullmatch(object_path)
    if match is None:
        return None
    return f"{match['alpha'] or match['symbol']}.{match['file']}"


def export_needs(object_path: str) -> tuple[tuple[str, ...], bool] | None:
    """What a key needs to fetch the export at `object_path`, read from the path alone: the
    endpoints (the signing route, then the JSON route of the same rows) and whether the file is
    for raw-book keys only (audience `raw`). None when the path names no export of a known dataset."""
    match = EXPORT_OBJECT_PATH.fullmatch(object_path)
    if match is None:
        return None
    name, book, raw_variant = layout.export_file_parts(match["file"])
    dataset = exports.BY_NAME.get(name)
    if dataset is None:
        return None
    raw_only = exports.audience_of(dataset.fields, book, raw_variant) == "raw"
    return (EXPORT_ENDPOINT, dataset.endpoint), raw_only


@dataclass(frozen=True)
class ExportFile:
    """One export file of one build, as `exports/index.json` and the manifest describe it."""

    dataset: str
    book: str | None
    audience: str  # schemas.exports.AUDIENCES
    object_path: str  # relative to the lake root
    filename: str
    rows: int
    size_bytes: int
    sha256: str
    columns: tuple[str, ...]
    build: str
    stored: bool  # in the lake; else made by the server on its first download (export_files)

    def visible_to(self, caller: Caller) -> bool:
        """Whether `caller` may export this file (see the module docstring)."""
        dataset = exports.BY_NAME.get(self.dataset)
        return (
            dataset is not None
            and exports.visible_to(self.audience, caller.expose_raw_book)
            and caller.may_call(dataset.endpoint)
        )

    def sort_key(self) -> tuple[int, tuple[int, int, int, str]]:
        """`/exports` order: datasets as declared, then books in the API's book order."""
        return exports.DATASET_NAMES.index(self.dataset), wire.book_order_key(self.book or "")

    def listing(self) -> ExportRow:
        """A row of `/exports`."""
        return ExportRow(
            dataset=self.dataset,
            book=self.book,
            filename=self.filename,
            rows=self.rows,
            size_bytes=self.size_bytes,
            sha256=self.sha256,
            columns=list(self.columns),
            build=self.build,
        )

    def download(self, url: str) -> ExportDownload:
        """`data` of `/exports/{dataset}`."""
        return ExportDownload(
            url=url,
            expires_in=URL_LIFETIME_SECONDS,
            filename=self.filename,
            size_bytes=self.size_bytes,
            sha256=self.sha256,
            rows=self.rows,
            columns=list(self.columns),
            build=self.build,
        )


def build_exports(view: BuildView, build_dir: str) -> list[ExportFile]:
    """Every export of a build (`build_dir` relative to the lake root), or 503 `exports_not_built`
    when it was published before exports."""
    entries = index_entries(view.json(INDEX_PATH))
    if entries is None:
        version = view.entry.get("pipeline_version")
        raise errors.ExportsNotBuilt(
            f"The served build {view.build_id} of {view.name} was published by pipeline {version}, "
            "before Parquet exports; an operator rebuilds it with `alpha-results build` "
            "(pipeline 2.1 or later).",
            details={"build": view.build_id, "pipeline_version": version},
        )
    files = []
    for entry in entries:
        object_path = layout.join(build_dir, entry["path"])
        # Pipeline 2.13.0 records an export's size and hash in the index, stored or not; an earlier
        # build in its manifest only, every export stored.
        recorded = entry if "sha256" in entry else view.files[entry["path"]]
        files.append(
            ExportFile(
                dataset=entry["dataset"],
                book=entry["book"],
                audience=entry["audience"],
                object_path=object_path,
                filename=export_filename(object_path) or entry["path"],
                rows=int(entry["rows"]),
                size_bytes=int(recorded["bytes"]),
                sha256=str(recorded["sha256"]),
                columns=tuple(entry["columns"]),
                build=view.build_id,
                stored=bool(entry.get("stored", True)),
            )
        )
    return files


def alpha_exports(view: BuildView) -> list[ExportFile]:
    """The exports of an alpha build (503 `exports_not_built` before pipeline 2.1)."""
    return view.memo(
        "exports", lambda: build_exports(view, layout.alpha_build_dir("", view.name, view.build_id))
    )


def benchmark_exports(view: BuildView) -> list[ExportFile]:
    """The exports of a benchmark build (503 `exports_not_built` before pipeline 2.1)."""
    return view.memo(
        "exports", lambda: build_exports(view, layout.benchmark_build_dir("", view.name, view.build_id))
    )


def made_file(reader: LakeReader, export: ExportFile) -> str:
    """The local path of an export of the served build the publish did not store, made on this
    machine on the first ask (`LakeReader.verified_export`, checked against its record)."""
    found = EXPORT_OBJECT_PATH.fullmatch(export.object_path)
    if found is None or found["alpha"] is None:  # only an alpha's exports are made
        raise FileNotFoundError(export.object_path)
    relative = layout.join(layout.EXPORTS_DIR, found["file"])
    path = reader.verified_export(found["alpha"], export.build, relative, computed=COMPUTED_EXPORTS)
    if path is None:
        raise FileNotFoundError(export.object_path)
    return path


def _placed(reader: LakeReader, storage: Storage, export: ExportFile) -> None:
    """An export the publish did not store, put where its presigned URL points (an S3 lake): made
    here, checked against its record, then written once; the only object this server writes."""
    path = layout.join(storage.root, export.object_path)
    if storage.exists(path) and storage.size(path) == export.size_bytes:
        return
    with open(made_file(reader, export), "rb") as made:
        storage.write_bytes(path, made.read())


def sign(signer: ArchiveSigner | None, export: ExportFile, key_id: str, reader: LakeReader) -> str:
    """A freshly signed URL of the export for the API key `key_id` (valid `URL_LIFETIME_SECONDS`,
    its own: `serve.signing.archives`), or the named 503. On an S3 lake an export the publish did
    not store is put in the lake first (`_placed`): a presigned URL names a stored object."""
    if signer is None:
        raise errors.ExportDownloadNotConfigured()
    try:
        if isinstance(signer, S3Signer) and not export.stored:
            _placed(reader, signer.storage, export)
        return signer.sign(export.object_path, export.filename, time.time(), key_id)
    except BuildDamaged as exc:  # made otherwise than recorded, or its build's files damaged
        raise errors.ExportDownloadUnavailable(
            "The file does not match what the lake recorded for it; retry later.",
            details={"reason": exc.reason},
        ) from exc
    except Exception as exc:  # the store failed while signing: transient, retry with backoff
        log.warning("object store failed while signing %s: %s", export.object_path, exc)
        raise errors.ExportDownloadUnavailable() from exc
