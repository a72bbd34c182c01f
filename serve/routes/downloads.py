"""`GET /downloads/archives/{alpha_id}/{sha256}.zip?expires=&holder=&signature=`: the archive behind a
signed URL of a local lake, outside `/v1` and without an API key; likewise
`GET /downloads/{alphas|benchmarks}/{name}/builds/{build_id}/exports/{file}.parquet`, the Parquet
export behind a URL of `/v1/alphas/{alpha}/exports/{dataset}` (serve.signing.export_urls), whose failures
carry the `export_*` codes where an archive's carry `source_*` ones.

The URL itself is the credential: `serve.signing.archives.HmacSigner` checks the HMAC over the object
path, the expiry and the holder (the key id it was signed for) in constant time (403
`download_url_invalid`, 403 `download_url_expired`); then the holder's key is read from the key
store, as every API request reads it: a key that could no longer make a request (revoked,
suspended, expired, its account inactive) has no working URL either (403 `download_url_invalid`
with `details.reason`, the code that key gets on the API), nor one that may no longer fetch this
file with its grants of now: call the route that signed the URL, read the alpha and its run, call
the JSON route of an export's rows, and for a raw file read raw books (`grants_refusal`). Each URL answers with the file at most
`download_fetch_limit` times (a key's URL is its own, and so is its count); the next fetch is 403
`download_url_expired` with `details.fetch_limit` (access.download_fetches counts them in
the key store's database, so every worker and machine shares one count). A fetch is counted
once the file is open and the answer is about to be the file: a refused or failing fetch before
that consumes nothing; a transfer broken after the 200 began is counted (see `download_archive`).
The file is streamed in chunks with `Content-Disposition: attachment; filename="<alpha_id>.zip"`.
With an S3 lake the URLs point at S3, so this route answers 404 `not_found`; a local lake without
a usable signing key answers 503 `source_download_not_configured`, and a lake folder that is gone
503 `source_download_unavailable` (an archive deleted from a present lake stays 404). The file is
served only once the reader found it whole (a stored export against its build's manifest, one the
server made against the size and SHA-256 its build's export index records, an archive against its
content address; `LakeReader.verified_export`, `verified_archive`): a damaged one is
503 with `details.reason`, never a 200 with other bytes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any

from litestar import Request, Response, route
from litestar.datastructures import State
from litestar.di import Provide
from litestar.enums import HttpMethod
from litestar.params import FromPath, SkipValidation
from litestar.response import Stream

from access import open_store
from access.access import build_caller
from access.authenticate import standing_refusal
from access.download_fetches import FETCH_UNITS, DownloadFetches, range_units
from access.records import AccountRecord, KeyRecord
from access.store import KeyStoreUnavailable
from analytics.series import COMPUTED_EXPORTS
from core import errors
from core.context import Caller
from core.settings import Settings
from datasets import layout
from datasets.faults import BuildDamaged, LakeUnavailable
from datasets.reader import LakeReader
from serve.auth import OTHER_METHODS
from serve.compression import SKIP_COMPRESSION
from serve.dependencies import DEPENDENCIES, KeyBackends
from serve.limits import egress
from serve.signing.archives import (
    ARCHIVE_OBJECT_PATH,
    DOWNLOAD_ROUTE_PREFIX,
    SOURCE_ENDPOINT,
    ArchiveSigner,
    HmacSigner,
    stored_object,
)
from serve.signing.byte_ranges import ByteRange, Unsatisfiable, requested_range
from serve.signing.export_urls import EXPORT_OBJECT_PATH, PARQUET, export_filename, export_needs

log = logging.getLogger("serve.downloads")

CHUNK_BYTES = 1 << 20

_FETCHES_STATE = "download_fetches"
_fetches_lock = threading.Lock()


def fetches_of(
    request: Request[Any, Any, Any], keys: SkipValidation[KeyBackends], settings: SkipValidation[Settings]
) -> DownloadFetches:
    """The app's fetch counter, built on first use over the app's key store (a dependency of
    `download_archive`).

    An app built without a key store (a test rig with its own authenticator) counts in a private
    in-memory SQLite database, so the cap holds there too (per process)."""
    state: State = request.app.state
    with _fetches_lock:
        if _FETCHES_STATE not in state:
            store = keys.store
            if store is None:
                store = open_store("sqlite:///:memory:")
            state[_FETCHES_STATE] = DownloadFetches(store, settings.download_fetch_limit)
        fetches: DownloadFetches = state[_FETCHES_STATE]
    return fetches


@dataclass(frozen=True)
class _Object:
    """What a signed object path names: the file's name and type, its own error codes, and how
    the reader checks it against what was recorded."""

    filename: str
    media_type: str
    missing: errors.ApiError  # the file is not (or no longer) in the lake
    unavailable: type[errors.ApiError]  # the store or the fetch count is unreachable, the file damaged
    not_configured: type[errors.ApiError]  # no usable signing key
    verified: Callable[[LakeReader], str | None]  # its local path once whole; None when not recorded
    in_store: bool  # must be in the lake's store (an archive); an export may be made on download
    alpha: str | None  # the alpha (and run) a fetch needs; None for the benchmark's exports
    endpoints: tuple[str, ...]  # the routes a fetch needs: the one that signed it, and its data's
    raw_only: bool  # for keys with raw-book access only (a `.raw` export, a `raw_` book's)


def _object_of(object_path: str) -> _Object | None:
    """A source archive or a Parquet export; None for any other path (404 `not_found`)."""
    archive = ARCHIVE_OBJECT_PATH.fullmatch(object_path)
    if archive is not None:
        return _Object(
            f"{archive['alpha']}.zip",
            "application/zip",
            errors.SourceObjectMissing(details={"filename": f"{archive['alpha']}.zip"}),
            errors.SourceDownloadUnavailable,
            errors.SourceDownloadNotConfigured,
            lambda reader: reader.verified_archive(archive["alpha"], object_path, archive["sha256"]),
            True,
            archive["alpha"],
            (SOURCE_ENDPOINT,),
            False,
        )
    export = EXPORT_OBJECT_PATH.fullmatch(object_path)
    export_name = export_filename(object_path)
    needs = export_needs(object_path)
    if export is not None and export_name is not None and needs is not None:
        return _Object(
            export_name,
            PARQUET,
            errors.ExportNotFound(
                "The export is no longer in the lake (its build was retired after a newer one was "
                "published); request a new URL.",
                details={"filename": export_name},
            ),
            errors.ExportDownloadUnavailable,
            errors.ExportDownloadNotConfigured,
            lambda reader: reader.verified_export(
                export["alpha"] or export["symbol"],
                export["build"],
                f"{layout.EXPORTS_DIR}/{export['file']}",
                benchmark=export["alpha"] is None,
                computed=COMPUTED_EXPORTS,
            ),
            False,
            export["alpha"],
            *needs,
        )
    return None


def _opened(target: _Object, reader: LakeReader) -> IO[bytes]:
    """The verified file, open. A made export is asked again once when it went between its check
    and the open (another worker's eviction or its check of a changed copy removed it): it is made
    again, never answered as retired."""
    for last in (False, True):
        path = target.verified(reader)
        if path is None:
            raise target.missing
        try:
            return open(path, "rb")
        except FileNotFoundError:
            if last:
                raise
    raise AssertionError("unreachable")


def _chunks(handle: IO[bytes], length: int | None = None) -> Iterator[bytes]:
    """The file from where `handle` stands, `length` bytes of it (None: to the end)."""
    left = length
    with handle:
        while left is None or left > 0:
            chunk = handle.read(CHUNK_BYTES if left is None else min(CHUNK_BYTES, left))
            if not chunk:
                return
            if left is not None:
                left -= len(chunk)
            yield chunk


def _count_fetch(
    fetches: DownloadFetches,
    signature: str,
    expires: str,
    now: float,
    unavailable: type[errors.ApiError] = errors.SourceDownloadUnavailable,
    units: int = FETCH_UNITS,
) -> None:
    """Count this fetch of a verified URL, or raise 403 `download_url_expired` when the URL has
    had its `download_fetch_limit` fetches (503 `unavailable` when the count cannot be reached:
    never an uncounted file)."""
    try:
        counted = fetches.count_fetch(signature, int(expires), now, units)
    except KeyStoreUnavailable as exc:  # logged by the app's exception handler, as every 503
        raise unavailable(
            "The download cannot be counted right now (the key store is unreachable); retry with backoff."
        ) from exc
    if counted is None:
        raise errors.DownloadUrlExpired(
            f"This download URL has reached its limit of {fetches.limit} fetches; request a new one.",
            details={"fetch_limit": fetches.limit},
        )


def holder_refusal(key: KeyRecord | None, account: AccountRecord | None, now: datetime) -> str | None:
    """The error code the holder's key would get on an API request (`access.authenticate`,
    in its order), None when it may still make requests."""
    if key is None or account is None:
        return errors.InvalidApiKey.code
    refused = standing_refusal(key, account, now)
    return None if refused is None else refused.code


def grants_refusal(caller: Caller, target: _Object) -> tuple[str, dict[str, Any]] | None:
    """Why the holder may no longer fetch `target` with its grants of now, in the API's order
    (the endpoint that signed the URL, the alpha and run, the endpoint of the data, raw books):
    the code it would get (`details.reason`) and the details naming what it lacks; None when it may."""
    signer, *data = target.endpoints
    if not caller.may_call(signer):
        return errors.EndpointNotAllowed.code, {"endpoint": signer}
    if target.alpha is not None and not (
        caller.may_read_alpha(target.alpha) and caller.may_read_run(target.alpha)
    ):
        return errors.RunNotAllowed.code, {"alpha": target.alpha}
    for endpoint in data:
        if not caller.may_call(endpoint):
            return errors.EndpointNotAllowed.code, {"endpoint": endpoint}
    if target.raw_only and not caller.expose_raw_book:
        return RAW_BOOK_NOT_ALLOWED, {}
    return None


RAW_BOOK_NOT_ALLOWED = "raw_book_not_allowed"
"""`details.reason` of a raw file's URL once its key may no longer read raw books (the API has no
such error: there the key simply gets the plain variant)."""


def _check_holder(
    request: Request[Any, Any, Any], store: Any | None, holder: str, now: float, target: _Object
) -> Caller | None:
    """403 `download_url_invalid` unless the key the URL was signed for may still make requests
    and may still fetch this file with its grants of now (`grants_refusal`), read from the key
    store on every fetch (503 `target.unavailable` when it cannot be reached). An app built
    without a key store (a test rig with its own authenticator) has no key to read."""
    if store is None:
        return None
    try:
        key = store.get_key(holder)
        account = None if key is None else store.get_account(key.user_id)
    except KeyStoreUnavailable as exc:
        raise target.unavailable(
            "The download cannot be checked right now (the key store is unreachable); retry with backoff."
        ) from exc
    refusal = holder_refusal(key, account, datetime.fromtimestamp(now, UTC))
    if refusal is not None:
        raise errors.DownloadUrlInvalid(
            f"The API key this URL was signed for can no longer make requests ({refusal}); "
            "request a new URL with an active key.",
            details={"reason": refusal},
        )
    assert key is not None and account is not None  # holder_refusal refuses a missing one
    client = request.client.host if request.client is not None else ""
    caller = build_caller(key, account, client)
    narrowed = grants_refusal(caller, target)
    if narrowed is not None:
        reason, details = narrowed
        raise errors.DownloadUrlInvalid(
            f"The API key this URL was signed for may no longer fetch this file ({reason}); "
            "request a new URL, which gets what the key may read now.",
            details={"reason": reason, **details},
        )
    return caller


@route(
    f"{DOWNLOAD_ROUTE_PREFIX}/{{object_path:path}}",
    http_method=[HttpMethod.GET, HttpMethod.HEAD],
    sync_to_thread=True,
    include_in_schema=False,
    # zip and zstd Parquet: compressed already. HEAD: a file's size before its ranges (fsspec).
    opt={SKIP_COMPRESSION: True, OTHER_METHODS: frozenset({"HEAD"})},
    dependencies={**DEPENDENCIES, "fetches": Provide(fetches_of, sync_to_thread=False)},
)
def download_archive(
    request: Request[Any, Any, Any],
    object_path: FromPath[str],
    settings: SkipValidation[Settings],
    keys: SkipValidation[KeyBackends],
    reader: SkipValidation[LakeReader],
    signer: SkipValidation[ArchiveSigner | None],
    fetches: SkipValidation[DownloadFetches],
) -> Response[Any]:
    object_path = object_path.lstrip("/")
    target = _object_of(object_path)
    if target is None or settings.lake.startswith("s3://"):
        raise errors.NotFound(f"No such path: {request.url.path}", details={"path": request.url.path})
    if not isinstance(signer, HmacSigner):
        raise target.not_configured()
    query = request.query_params
    # The URL is exactly what was signed: any other or repeated parameter makes it another URL.
    names = [name for name, _ in query.multi_items()]
    if sorted(names) != ["expires", "holder", "signature"]:
        raise errors.DownloadUrlInvalid()
    # Each present, once (checked above).
    expires, holder, signature = query["expires"], query["holder"], query["signature"]
    now = time.time()
    signer.verify(object_path, expires, holder, signature, now)
    caller = _check_holder(request, keys.store, holder, now, target)
    storage = signer.storage
    try:
        # A folder lake's export may be in no store: made here on its first download (pipeline
        # 2.13.0, datasets.export_files), so only an archive must be in the store first.
        if target.in_store and stored_object(storage, object_path) is None:
            raise target.missing
        # Never bytes other than those recorded: checked against the build's record (an export)
        # or its content address (an archive); hashed unless checked and unchanged since.
        handle = _opened(target, reader)  # closed by the stream (`_chunks`) or on a refusal below
        size = os.fstat(handle.fileno()).st_size
    except BuildDamaged as exc:  # health names a served build's damage, the access log the path
        raise target.unavailable(
            "The file does not match what the lake recorded for it (damaged); an operator restores "
            "or republishes it. Retry later.",
            details={"reason": exc.reason},
        ) from exc
    except FileNotFoundError as exc:  # removed between the checks
        raise target.missing from exc
    except LakeUnavailable as exc:
        raise target.unavailable() from exc
    except OSError as exc:  # ArchiveStoreUnavailable included: the lake folder is gone
        log.warning("archive store failed while serving %s: %s", object_path, exc)
        raise target.unavailable() from exc
    headers = {
        "Content-Disposition": f'attachment; filename="{target.filename}"',
        "Accept-Ranges": "bytes",
        "Cache-Control": "private, no-store",
    }
    if request.method == HttpMethod.HEAD:  # the size, no bytes: nothing to count
        handle.close()
        return Response(b"", media_type=target.media_type, headers={**headers, "Content-Length": str(size)})
    try:
        wanted = requested_range(request.headers.get("range"), size)
    except Unsatisfiable:
        handle.close()
        return Response(
            b"", status_code=416, media_type=target.media_type, headers={"Content-Range": f"bytes */{size}"}
        )
    # Counted last, once the file is open: every refusal and failure above consumes nothing. Not
    # on completion: a count taken after the transfer would let any number of parallel fetches
    # pass the check before the first one finished. A transfer broken after this point counts (the
    # server cannot tell how much the client kept); the limit leaves room for such retries. A
    # range counts its share of the file (access.download_fetches).
    units = FETCH_UNITS if wanted is None else range_units(wanted.length, size)
    # The bytes are the key's egress (issue 60): a download that would pass its day's budget is
    # refused before a byte is sent, and one sent is counted whole (serve/limits/egress.py).
    budget = egress.Budget.of(settings)
    sending = size if wanted is None else wanted.length
    try:
        if budget is not None and keys.limiter is not None and egress.applies(budget, caller):
            moment = datetime.fromtimestamp(now, UTC)
            assert caller is not None and caller.key_id == holder  # `applies`: the holder's key was read
            egress.check(keys.limiter, budget, caller, moment, adding_bytes=sending)
            keys.limiter.egress_add_sync(egress.spenders(caller), egress.day_start(moment), 0, sending)
        _count_fetch(fetches, signature, expires, now, target.unavailable, units)
        if wanted is not None:
            handle.seek(wanted.start)
    except BaseException:
        handle.close()
        raise
    return _file_answer(handle, target.media_type, headers, size, wanted)


def _file_answer(
    handle: IO[bytes], media_type: str, headers: dict[str, str], size: int, wanted: ByteRange | None
) -> Stream:
    """200 with the whole file, or 206 with the one range asked for."""
    if wanted is None:
        return Stream(
            _chunks(handle), media_type=media_type, headers={**headers, "Content-Length": str(size)}
        )
    return Stream(
        _chunks(handle, wanted.length),
        status_code=206,
        media_type=media_type,
        headers={
            **headers,
            "Content-Length": str(wanted.length),
            "Content-Range": wanted.content_range(size),
        },
    )


ROUTES = [download_archive]
