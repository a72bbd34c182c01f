"""`/v1/alphas/{alpha}/source/download` (endpoint 6): a freshly signed URL of the source archive.

The run is authorised and resolved first (403 `run_not_allowed` / 404 `run_not_found`), then the
build's `source.json` record decides the outcome (`serve.signing.archives.source_download`). The signer
is chosen once per app from the settings: presigned S3 URLs for an `s3://` lake, HMAC-signed URLs
on this server's `/downloads/...` route for a local lake, none without a signing key.
"""

from __future__ import annotations

from litestar import Response
from litestar.params import FromPath

from datasets import layout
from schemas.bodies.downloads import SourceDownload
from schemas.bodies.envelope import Single
from schemas.query import NoQuery
from serve.envelope import single
from serve.routes.base import Ctx
from serve.routes.declare import route
from serve.scope.resolve import resolve_run
from serve.signing.archives import SOURCE_ENDPOINT, source_download


# In a worker thread: signing may check the object store.
@route(
    SOURCE_ENDPOINT,
    "/v1/alphas/{alpha:str}/source/download",
    "Signed download URL of the alpha's source archive",
    sync_to_thread=True,
)
def get_source_download(ctx: Ctx[NoQuery], alpha: FromPath[str]) -> Response[Single[SourceDownload]]:
    build = ctx.reader.view(resolve_run(ctx.caller, ctx.reader, alpha))
    ctx.args()
    archive = source_download(build.json(layout.SOURCE_JSON), ctx.signer, ctx.caller.key_id)
    return single(archive.to_wire(), ctx.run_meta(build, "source"))


ROUTES = [get_source_download]
