"""Bulk reads through the Parquet exports, and verified downloads of signed URLs.

An export is one dataset of the served build as one Parquet file, equal row for row and column
for column to its JSON route paged from start to end under the key's field policy
(docs/api.md "Parquet exports"). So a whole-dataset read fetches one file instead of paging,
when the key may: its endpoint allow-list opens the `exports` group and the build has the file.
Whenever it may not (403 `endpoint_not_allowed`, `export_not_found`, `exports_not_built`, no
signing configured), the read falls back to JSON pages; that is a choice of route, not a
failure, so it is logged at debug level only.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass

from alpha_results_client._envelope import (
    Endpoint,
    EndpointNotAllowedError,
    ExportDownload,
    ExportDownloadNotConfiguredError,
    ExportDownloadResponse,
    ExportNotFoundError,
    ExportRow,
    ExportRowPage,
    ExportsNotBuiltError,
    SourceDownload,
)
from alpha_results_client.config import MAX_PAGE_SIZE
from alpha_results_client.exceptions import IntegrityError
from alpha_results_client.progress import progress_for
from alpha_results_client.transport import Transport

log = logging.getLogger("alpha_results_client")

LISTING_TTL_SECONDS = 60.0
"""How long an alpha's export listing is reused: a republished build changes it."""
NOT_EXPORTABLE = (
    EndpointNotAllowedError,
    ExportNotFoundError,
    ExportsNotBuiltError,
    ExportDownloadNotConfiguredError,
)
"""Answers that mean "read JSON pages instead"."""


@dataclass(frozen=True)
class ExportTarget:
    alpha: str
    dataset: str
    book: str | None = None


@dataclass(frozen=True)
class ExportFile:
    data: bytes
    download: ExportDownload


def verify(data: bytes, download: ExportDownload | SourceDownload) -> bytes:
    """`data` if it has the announced size and SHA-256, else `IntegrityError`."""
    if download.size_bytes is not None and len(data) != download.size_bytes:
        raise IntegrityError(
            f"{download.filename}: {len(data)} bytes received, {download.size_bytes} announced"
        )
    if download.sha256 is not None and hashlib.sha256(data).hexdigest() != download.sha256:
        raise IntegrityError(f"{download.filename}: SHA-256 differs from the one announced")
    return data


class ExportReader:
    """The export files of one client. `listing` and `download` are the `exports.list` and
    `exports.download` endpoints, which the client hands in: `_generated.ENDPOINTS` holds them, and
    `_generated.py` imports the pages (paging.py) that import this module."""

    def __init__(self, transport: Transport, listing: Endpoint, download: Endpoint) -> None:
        self._transport = transport
        self._listing = listing
        self._download = download
        self._lock = threading.Lock()
        self._listings: dict[str, tuple[float, tuple[ExportRow, ...]]] = {}
        self._group_denied = False

    def listing(self, alpha: str) -> tuple[ExportRow, ...]:
        """The files this key may export from the alpha's served build (empty when it may not)."""
        with self._lock:
            if self._group_denied:
                return ()
            cached = self._listings.get(alpha)
            if cached is not None and time.monotonic() - cached[0] < LISTING_TTL_SECONDS:
                return cached[1]
        rows: list[ExportRow] = []
        path = self._listing.url_path(alpha=alpha)
        try:
            while True:
                params = {"limit": str(MAX_PAGE_SIZE), "offset": str(len(rows))}
                page = self._transport.get_json(path, params, ExportRowPage)
                rows += page.data
                if not page.pagination.has_more or not page.data:
                    break
        except EndpointNotAllowedError:
            log.debug("exports: the key may not list exports; bulk reads use JSON pages")
            with self._lock:
                self._group_denied = True
            return ()
        except NOT_EXPORTABLE as exc:
            log.debug("exports of %s unavailable (%s); bulk reads use JSON pages", alpha, exc.code)
            rows = []
        with self._lock:
            self._listings[alpha] = (time.monotonic(), tuple(rows))
        return tuple(rows)

    def signed(self, target: ExportTarget) -> ExportDownload:
        path = self._download.url_path(alpha=target.alpha, dataset=target.dataset)
        params = {"book": target.book} if target.book is not None else {}
        return self._transport.get_json(path, params, ExportDownloadResponse).data

    def read(self, target: ExportTarget, progress_label: str | None = None) -> ExportFile | None:
        """The export file of `target`, verified; None when the key cannot read it as a file.
        With `progress_label`, the download draws a progress line in bytes."""
        listed = any(
            row.dataset == target.dataset and row.book == target.book for row in self.listing(target.alpha)
        )
        if not listed:
            return None
        try:
            download = self.signed(target)
        except NOT_EXPORTABLE as exc:
            log.debug("export %s unavailable (%s); using JSON pages", target, exc.code)
            return None
        return ExportFile(self.fetch(download, progress_label), download)

    def fetch(self, download: ExportDownload | SourceDownload, progress_label: str | None = None) -> bytes:
        """The file of a signed URL, verified; with `progress_label`, drawn as a progress line in bytes."""
        progress = progress_for(progress_label is not None, progress_label or "", unit="bytes")
        progress.set_total(download.size_bytes)
        try:
            data = self._transport.fetch_signed(download.url, on_chunk=progress.advance)
        finally:
            progress.close()
        return verify(data, download)
