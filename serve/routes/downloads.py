"""`GET /downloads/archives/{alpha_id}/{sha256}.zip?expires=&signature=`: the archive behind a
signed URL of a local lake, outside `/v1` and without an API key.

The URL itself is the credential: `serve.archives.HmacSigner` checks the HMAC over the object
path and the expiry in constant time (403 `download_url_invalid`, 403 `download_url_expired`).
The file is streamed in chunks with `Content-Disposition: attachment; filename="<alpha_id>.zip"`.
With an S3 lake the URLs point at S3, so this route answers 404 `not_found`; a local lake without
a usable signing key answers 503 `source_download_not_configured`, and a lake folder that is gone
503 `source_download_unavailable` (an archive deleted from a present lake stays 404).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

from litestar import Request, Response, get
from litestar.params import FromPath
from litestar.response import Stream

from serve import errors
from serve.archives import (
    ARCHIVE_OBJECT_PATH,
    DOWNLOAD_ROUTE_PREFIX,
    HmacSigner,
    stored_object,
)
from serve.auth import services_of
from serve.routes.source import signer_of

log = logging.getLogger("serve.downloads")

CHUNK_BYTES = 1 << 20


def _chunks(storage: Any, path: str) -> Iterator[bytes]:
    with storage.fs.open(path, "rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            yield chunk


@get(f"{DOWNLOAD_ROUTE_PREFIX}/{{object_path:path}}", sync_to_thread=True, include_in_schema=False)
def download_archive(request: Request[Any, Any, Any], object_path: FromPath[str]) -> Response[Any]:
    object_path = object_path.lstrip("/")
    match = ARCHIVE_OBJECT_PATH.fullmatch(object_path)
    if match is None or services_of(request).settings.lake.startswith("s3://"):
        raise errors.NotFound(f"No such path: {request.url.path}", details={"path": request.url.path})
    signer = signer_of(request)
    if not isinstance(signer, HmacSigner):
        raise errors.SourceDownloadNotConfigured()
    query = request.query_params
    # The URL is exactly what was signed: any other or repeated parameter makes it another URL.
    names = [name for name, _ in query.multi_items()]
    if sorted(names) != ["expires", "signature"]:
        raise errors.DownloadUrlInvalid()
    signer.verify(object_path, query.get("expires"), query.get("signature"), time.time())
    storage = signer.storage
    try:
        path = stored_object(storage, object_path)
    except OSError as exc:  # ArchiveStoreUnavailable included: the lake folder is gone
        log.warning("archive store failed while serving %s: %s", object_path, exc)
        raise errors.SourceDownloadUnavailable() from exc
    if path is None:
        raise errors.SourceObjectMissing(details={"filename": f"{match['alpha']}.zip"})
    return Stream(
        _chunks(storage, path),
        media_type="application/zip",
        headers={
            "Content-Disposition": f'attachment; filename="{match["alpha"]}.zip"',
            "Content-Length": str(storage.size(path)),
            "Cache-Control": "private, no-store",
        },
    )


ROUTES = [download_archive]
