"""Delta Sharing (issue 38): the open protocol's read side over the Parquet exports, at
`/delta-sharing` (outside `/v1`: the protocol's `query` is a POST, and its answers are the
protocol's, not the API's envelope). docs/integrations.md ("Delta Sharing") is the user's guide.

- `GET /delta-sharing/shares`, `/shares/{share}`, `/shares/{share}/schemas`,
  `/shares/{share}/schemas/{schema}/tables`, `/shares/{share}/all-tables`: the key's one share,
  its alphas as schemas, their exports as tables (serve/sharing/share.py);
- `GET .../tables/{table}/version` (and the deprecated `HEAD .../tables/{table}`): the table
  version in `Delta-Table-Version`; `GET .../metadata`: protocol and `metaData` lines;
- `POST .../query`: protocol, `metaData` and one `file` line whose `url` is the export's signed
  URL for this key (`serve.signing.export_urls.sign`: bound to the key, expiring, fetch-limited);
  with `version` or `timestamp` (here or on `metadata`), the build the lake served then, as a read
  route's `as_of` resolves it and counted against the key's `as_of` budget (`_as_of`);
- `GET .../changes`: 400, change data feed is not enabled on any table (builds replace a table
  whole; the protocol's reference server answers a table without it the same way).

Bearer keys, allow-lists and limits are the API's: each handler carries the registry id it is
metered and authorised as (`exports.list` for every call but `query`, `exports.download` for
`query`), so the app's guards authenticate, check the endpoint allow-list and count the call as
they do for `/v1`. Every refusal, the guards' included, is answered in the protocol's shape
`{"errorCode", "message"}` with the API's status (`sharing_error`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pyarrow as pa
from anyio import to_thread
from litestar import Request, Response, get, head, post
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException
from litestar.params import FromPath, SkipValidation
from litestar.types import ControllerRouterHandler

from access.tokens import redact_tokens
from core import errors
from core.context import Caller
from datasets import clock
from datasets.faults import HistoryGone, LakeUnavailable
from datasets.reader import BuildView, LakeReader
from serve.auth import OTHER_METHODS, current_caller
from serve.dependencies import DEPENDENCIES
from serve.envelope import request_id_of
from serve.routes.base import AS_OF_SLACK
from serve.scope.resolve import open_view
from serve.sharing import protocol
from serve.sharing.protocol import SharingError
from serve.sharing.share import (
    EXPORT_SCHEMAS,
    SHARE_NAME,
    SharedTable,
    matching,
    readable_alphas,
    share_id,
    shared_tables,
    table_id,
    table_version,
    version_moment,
)
from serve.signing.archives import URL_LIFETIME_SECONDS, ArchiveSigner
from serve.signing.export_urls import EXPORT_ENDPOINT, sign

log = logging.getLogger("serve.sharing")

PREFIX = "/delta-sharing"
LIST_ENDPOINT = "exports.list"
"""What every call but `query` is authorised and metered as: it lists what the key may export."""
QUERY_ENDPOINT = EXPORT_ENDPOINT
"""`query` hands out signed export URLs, as `exports.download` does (and each fetch needs it)."""
TABLE = f"{PREFIX}/shares/{{share:str}}/schemas/{{schema:str}}/tables/{{table:str}}"
MAX_QUERY_BODY_BYTES = 64 << 10
"""The largest `query` body read (a larger one is 413, `MALFORMED_REQUEST`): the protocol's body is
a few fields of JSON (this server reads the point in time and ignores the hints), and a bound here
bounds how long a body arriving at the byte-rate floor may hold its connection (serve/slow_clients.py;
Litestar's default is 10 MB, hours at the floor)."""


NO_SUCH_PATH = "no such path of the sharing server"
"""The message of a 404 for a path under `/delta-sharing` that no route answers (or that is not
written canonically: serve/front.py)."""


def is_sharing_path(path: str) -> bool:
    return path == PREFIX or path.startswith(f"{PREFIX}/")


def _answered_methods(request: Request[Any, Any, Any], exc: Exception) -> str:
    """The methods the refused path answers: the router's own list (which names OPTIONS, refused
    by the method step of `serve.front.Front.admit` as on every route), or, when that step refused a
    method the route holds a handler for (OPTIONS), the route's."""
    if isinstance(exc, MethodNotAllowedException):
        methods = (exc.headers or {}).get("allow", "").split(", ")
    else:
        template = request.scope.get("path_template")
        methods = next((sorted(r.methods) for r in request.app.routes if r.path_format == template), [])
    return ", ".join(m for m in methods if m and m != "OPTIONS")


def sharing_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """Any failure of a sharing route, its guards' included, as the protocol's error body."""
    headers: dict[str, str] = {}
    if isinstance(exc, SharingError):
        status, code, message = exc.status, exc.error_code, exc.message
    elif isinstance(exc, NotFoundException):
        status, code, message = 404, protocol.RESOURCE_DOES_NOT_EXIST, NO_SUCH_PATH
    elif isinstance(exc, MethodNotAllowedException | errors.MethodNotAllowed):
        # The protocol is plain HTTP (its `query` is a POST): 405 with the path's own methods,
        # where `/v1` answers 404 `method_not_allowed` (the API's contract).
        allow = _answered_methods(request, exc)
        status, code, headers = 405, protocol.MALFORMED_REQUEST, {"Allow": allow}
        message = f"{request.method} is not answered at this path; it answers {allow}"
    elif isinstance(exc, HTTPException) and exc.status_code < 500:
        # Litestar's own refusals before the handler (a body too large, ...): the request's fault.
        status, code, message = exc.status_code, protocol.MALFORMED_REQUEST, str(exc.detail)
    else:
        error = exc if isinstance(exc, errors.ApiError) else None
        if error is None and isinstance(exc, LakeUnavailable):
            error = errors.UpstreamUnavailable()
        if error is None:
            log.error(
                "request %s failed: %s %s",
                request_id_of(request.scope),
                request.method,
                redact_tokens(request.url.path),
                exc_info=exc,
            )
            error = errors.InternalError()
        status, code, message, headers = error.status, error.code.upper(), error.message, dict(error.headers)
    return Response(
        protocol.error_body(code, redact_tokens(message)),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def _options(endpoint: str, *methods: str) -> dict[str, Any]:
    return {
        "include_in_schema": False,
        "opt": {"endpoint": endpoint, OTHER_METHODS: frozenset(methods)},
        "exception_handlers": {Exception: sharing_error},
        "dependencies": DEPENDENCIES,
    }


def _json(body: bytes) -> Response[bytes]:
    return Response(body, media_type="application/json; charset=utf-8")


def _share(share: str) -> None:
    if matching(share, [SHARE_NAME]) is None:
        raise protocol.not_found("share", share)


def _schema(caller: Caller, reader: LakeReader, schema: str) -> str:
    found = matching(schema, readable_alphas(caller, reader))
    if found is None:
        raise protocol.not_found("schema", schema)
    return found


async def _view(reader: LakeReader, alpha: str) -> BuildView:
    build = reader.alpha(alpha)
    if build is None:  # retired between the listing and now
        raise protocol.not_found("schema", alpha)
    return await open_view(reader, build)


async def _table(
    request: Request[Any, Any, Any], reader: LakeReader, share: str, schema: str, table: str
) -> tuple[BuildView, SharedTable]:
    _share(share)
    caller = current_caller(request)
    view = await _view(reader, _schema(caller, reader, schema))
    tables = shared_tables(caller, view)
    found = matching(table, [t.name for t in tables])
    if found is None:
        raise protocol.not_found("table", table)
    return view, next(t for t in tables if t.name == found)


def _table_item(table: SharedTable) -> dict[str, Any]:
    return {
        "name": table.name,
        "schema": table.alpha,
        "share": SHARE_NAME,
        "shareId": share_id(),
        "id": table_id(table.alpha, table.name),
    }


@get(f"{PREFIX}/shares", **_options(LIST_ENDPOINT))
async def list_shares(request: Request[Any, Any, Any]) -> Response[bytes]:
    offset, limit = protocol.page_bounds(
        request.query_params.get("maxResults"), request.query_params.get("pageToken")
    )
    shares = [{"name": SHARE_NAME, "id": share_id()}]
    chosen = shares[offset : offset + limit]
    return _json(protocol.page(chosen, protocol.next_token(offset, limit, offset + limit < len(shares))))


@get(f"{PREFIX}/shares/{{share:str}}", **_options(LIST_ENDPOINT))
async def get_share(share: FromPath[str]) -> Response[bytes]:
    _share(share)
    return _json(protocol.share_body(SHARE_NAME, share_id()))


@get(f"{PREFIX}/shares/{{share:str}}/schemas", **_options(LIST_ENDPOINT))
async def list_schemas(
    request: Request[Any, Any, Any], share: FromPath[str], reader: SkipValidation[LakeReader]
) -> Response[bytes]:
    _share(share)
    offset, limit = protocol.page_bounds(
        request.query_params.get("maxResults"), request.query_params.get("pageToken")
    )
    alphas = readable_alphas(current_caller(request), reader)
    items = [{"name": a, "share": SHARE_NAME} for a in alphas[offset : offset + limit]]
    return _json(protocol.page(items, protocol.next_token(offset, limit, offset + limit < len(alphas))))


async def _tables_page(
    request: Request[Any, Any, Any], reader: LakeReader, alphas: list[str]
) -> Response[bytes]:
    """One page of the tables of `alphas`, in order; only the alphas the page reaches are opened."""
    offset, limit = protocol.page_bounds(
        request.query_params.get("maxResults"), request.query_params.get("pageToken")
    )
    caller = current_caller(request)
    collected: list[SharedTable] = []
    for alpha in alphas:
        if len(collected) > offset + limit:
            break
        build = reader.alpha(alpha)
        if build is None:
            continue
        try:
            collected += shared_tables(caller, await open_view(reader, build))
        except errors.ExportsNotBuilt:
            continue  # a build published before exports has no table yet (its own routes say why)
    items = [_table_item(t) for t in collected[offset : offset + limit]]
    return _json(protocol.page(items, protocol.next_token(offset, limit, len(collected) > offset + limit)))


@get(f"{PREFIX}/shares/{{share:str}}/schemas/{{schema:str}}/tables", **_options(LIST_ENDPOINT))
async def list_tables(
    request: Request[Any, Any, Any],
    share: FromPath[str],
    schema: FromPath[str],
    reader: SkipValidation[LakeReader],
) -> Response[bytes]:
    _share(share)
    return await _tables_page(request, reader, [_schema(current_caller(request), reader, schema)])


@get(f"{PREFIX}/shares/{{share:str}}/all-tables", **_options(LIST_ENDPOINT))
async def list_all_tables(
    request: Request[Any, Any, Any], share: FromPath[str], reader: SkipValidation[LakeReader]
) -> Response[bytes]:
    _share(share)
    return await _tables_page(request, reader, readable_alphas(current_caller(request), reader))


def _version_answer(version: int) -> Response[bytes]:
    return Response(b"", headers={protocol.TABLE_VERSION_HEADER: str(version)})


@get(f"{TABLE}/version", **_options(LIST_ENDPOINT))
async def table_version_route(
    request: Request[Any, Any, Any],
    share: FromPath[str],
    schema: FromPath[str],
    table: FromPath[str],
    reader: SkipValidation[LakeReader],
) -> Response[bytes]:
    view, _ = await _table(request, reader, share, schema, table)
    version = table_version(view)
    starting = request.query_params.get("startingTimestamp")
    if starting is not None and protocol.timestamp_seconds("startingTimestamp", starting) > version:
        # The earliest version at or after the timestamp: the served one, or none after it.
        raise protocol.invalid("startingTimestamp", "is after the table's latest version (its build time)")
    return _version_answer(version)


@head(TABLE, **_options(LIST_ENDPOINT, "HEAD"))
async def table_version_head(
    request: Request[Any, Any, Any],
    share: FromPath[str],
    schema: FromPath[str],
    table: FromPath[str],
    reader: SkipValidation[LakeReader],
) -> Response[None]:
    """The deprecated form of `.../version` (PROTOCOL.md: HEAD on the table)."""
    view, _ = await _table(request, reader, share, schema, table)
    return Response(None, headers={protocol.TABLE_VERSION_HEADER: str(table_version(view))})


def _capabilities(request: Request[Any, Any, Any]) -> None:
    """400 when the client can read only the `delta` response format (this server answers in
    `parquet`, the protocol's default, which every client reads; `delta,parquet` is answered in
    parquet). The protocol: a single format asked for must be respected or refused."""
    header = request.headers.get(protocol.CAPABILITIES_HEADER, "")
    for capability in header.split(";"):
        key, _, values = capability.partition("=")
        if key.strip().lower() == "responseformat":
            formats = {v.strip().lower() for v in values.split(",")}
            if "parquet" not in formats:
                raise protocol.invalid(
                    "delta-sharing-capabilities", "responseformat must include parquet, the one format served"
                )


async def _metadata_lines(reader: LakeReader, view: BuildView, table: SharedTable) -> list[bytes]:
    try:
        schema = await to_thread.run_sync(EXPORT_SCHEMAS.schema, reader, table.export)
    except (OSError, pa.ArrowException) as exc:  # the file went or is not Parquet: the lake's fault
        log.warning("schema of %s unreadable: %s", table.export.object_path, exc)
        raise errors.ExportDownloadUnavailable(
            "The table's file cannot be read right now; retry later.", details={"table": table.name}
        ) from exc
    return [
        protocol.PROTOCOL_LINE,
        protocol.metadata_line(table_id(view.name, table.name), table.name, table.export, schema),
    ]


def _ndjson(lines: list[bytes], version: int) -> Response[bytes]:
    return Response(
        protocol.ndjson(lines),
        media_type=protocol.NDJSON,
        headers={
            protocol.TABLE_VERSION_HEADER: str(version),
            protocol.CAPABILITIES_HEADER: protocol.PARQUET_FORMAT,
        },
    )


@get(f"{TABLE}/metadata", **_options(LIST_ENDPOINT))
async def table_metadata(
    request: Request[Any, Any, Any],
    share: FromPath[str],
    schema: FromPath[str],
    table: FromPath[str],
    reader: SkipValidation[LakeReader],
) -> Response[bytes]:
    _capabilities(request)
    view, found = await _table(request, reader, share, schema, table)
    given = {
        name: request.query_params[name] for name in ("version", "timestamp") if name in request.query_params
    }
    _one_point_in_time(given)
    for name, value in given.items():
        view, found = await _as_of(request, reader, view, found, name, value)
    return _ndjson(await _metadata_lines(reader, view, found), table_version(view))


POINTS_IN_TIME = ("version", "timestamp", "startingVersion")


def _one_point_in_time(given: dict[str, Any]) -> None:
    """A read names at most one point in time (as the reference server: two are a 400)."""
    if len(given) > 1:
        raise protocol.invalid(", ".join(given), f"only one of {', '.join(POINTS_IN_TIME)} may be given")


async def _as_of(
    request: Request[Any, Any, Any],
    reader: LakeReader,
    view: BuildView,
    found: SharedTable,
    name: str,
    value: Any,
) -> tuple[BuildView, SharedTable]:
    """The table at a point in time (`version` or `timestamp`): the served build when it names
    the current version (or a moment since it was served), else the build the lake served then,
    kept by its history (serve/sharing/share.py "History"). What it no longer keeps, or a moment
    before the table existed, is a 400 naming the parameter."""
    caller, budget = current_caller(request), request.app.state["services"].as_of_budget
    current = table_version(view)
    if name == "version":
        version = protocol.version_number(name, value)
        if version == current:
            return view, found
        located = await to_thread.run_sync(version_moment, reader, view.name, version)
        if located is None:
            raise protocol.invalid(
                name,
                f"version {version} is not kept: the table's versions are its builds the lake keeps "
                f"(the current one is {current})",
            )
        build_id, moment = located
    else:
        build_id, moment = None, protocol.timestamp_moment(name, str(value))
        if moment > clock.now() + AS_OF_SLACK:  # as a read route's as_of: the answer could change
            raise protocol.invalid(name, "is in the future: the lake knows nothing after now")
        served = reader.catalogue().generation
        if served is not None and served.known is not None and served.known <= moment:
            return view, found  # the current generation's: nothing to resolve, nothing counted
    if budget is not None:  # each distinct past moment counts, as a read route's `as_of` does
        budget.admit(caller, moment)
    past: Any
    try:
        past = await to_thread.run_sync(reader.at, moment)
    except HistoryGone as exc:
        raise protocol.invalid(name, f"the table's history at {value} is not kept: {exc}") from exc
    build = past.alpha(view.name)
    if build is None or (build_id is not None and build.build_id != build_id):
        raise protocol.invalid(name, f"the table has no version at {value} that the lake keeps")
    if build.build_id == view.build_id:
        return view, found
    try:
        then = await to_thread.run_sync(past.view, build)  # maps files (on S3 fetches them): off the loop
        shared = next(t for t in shared_tables(caller, then) if t.name == found.name)
    except (
        HistoryGone,
        StopIteration,
        errors.ExportsNotBuilt,
    ) as exc:  # collected since, or no such table then
        raise protocol.invalid(name, f"the table has no version at {value} that the lake keeps") from exc
    return then, shared


@post(
    f"{TABLE}/query",
    **_options(QUERY_ENDPOINT, "POST"),
    status_code=200,
    request_max_body_size=MAX_QUERY_BODY_BYTES,
)
async def query_table(
    request: Request[Any, Any, Any],
    share: FromPath[str],
    schema: FromPath[str],
    table: FromPath[str],
    reader: SkipValidation[LakeReader],
    signer: SkipValidation[ArchiveSigner | None],
) -> Response[bytes]:
    _capabilities(request)
    body = protocol.query_body(await request.body())
    view, found = await _table(request, reader, share, schema, table)
    points = {"version": body.version, "timestamp": body.timestamp, "startingVersion": body.starting_version}
    _one_point_in_time({name: value for name, value in points.items() if value is not None})
    if body.starting_version is not None:
        raise protocol.invalid(
            "startingVersion", "change data is not shared: change data feed is not enabled on this table"
        )
    for name in ("version", "timestamp"):
        if points[name] is not None:
            view, found = await _as_of(request, reader, view, found, name, points[name])
    version = table_version(view)
    lines = await _metadata_lines(reader, view, found)
    # Signed after `now` is read: the URL's expiry is at or after the one announced.
    expires_at = int(time.time()) + URL_LIFETIME_SECONDS
    url = await to_thread.run_sync(sign, signer, found.export, current_caller(request).key_id, reader)
    return _ndjson([*lines, protocol.file_line(found.export, url, expires_at)], version)


@get(f"{TABLE}/changes", **_options(LIST_ENDPOINT))
async def table_changes(
    request: Request[Any, Any, Any],
    share: FromPath[str],
    schema: FromPath[str],
    table: FromPath[str],
    reader: SkipValidation[LakeReader],
) -> Response[bytes]:
    await _table(request, reader, share, schema, table)  # a table that does not exist is 404 first
    raise protocol.invalid("changes", f"change data feed is not enabled on table {table}")


def routes() -> list[ControllerRouterHandler]:
    return [
        list_shares,
        get_share,
        list_schemas,
        list_tables,
        list_all_tables,
        table_version_route,
        table_version_head,
        table_metadata,
        query_table,
        table_changes,
    ]
