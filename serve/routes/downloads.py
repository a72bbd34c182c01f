"""`GET /downloads/archives/{alpha_id}/{sha256}.zip?expires=&signature=`: the archive behind a
signed URL of a local lake, outside `/v1` and without an API key.

The URL itself is the credential: `serve.archives.HmacSigner` checks the HMAC over the object
path and the expiry in constant time (403 `download_url_invalid`, 403 `download_url_expired`).
The file is streamed in chunks with `Content-Disposition: attachment; filename="<alpha_id>.zip"`.
With an S3 lake the URLs point at S3, so this route answers 404 `not_found`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

from litestar import Request, Response, get
from litestar.params import FromPath
from litestar.response import Stream

from serve import errors
from serve.archives import DOWNLOAD_ROUTE_PREFIX, HmacSigner
from serve.routes.source import signer_of

CHUNK_BYTES = 1 << 20
# Only content-addressed archives are ever signed; anything else is not a download.
_OBJECT_PATH = re.compile(r"archives/(?P<alpha>[A-Za-z0-9][A-Za-z0-9_.-]{0,127})/[0-9a-f]{64}\.zip")


def _chunks(storage: Any, path: str) -> Iterator[bytes]:
    with storage.fs.open(path, "rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            yield chunk


@get(f"{DOWNLOAD_ROUTE_PREFIX}/{{object_path:path}}", sync_to_thread=True, include_in_schema=False)
def download_archive(request: Request[Any, Any, Any], object_path: FromPath[str]) -> Response[Any]:
    object_path = object_path.lstrip("/")
    match = _OBJECT_PATH.fullmatch(object_path)
    signer = signer_of(request)
    if match is None or not isinstance(signer, HmacSigner):
        raise errors.NotFound(f"No such path: {request.url.path}", details={"path": request.url.path})
    query = request.query_params
    path = signer.verify(object_path, query.get("expires"), query.get("signature"), time.time())
    storage = signer.storage
    if not storage.exists(path):
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
