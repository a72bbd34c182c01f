"""Response bodies: the collection and single-object envelopes, the error envelope, and encoding.

Bodies are encoded once with msgspec (dates as YYYY-MM-DD, NaN as null) and handed to Litestar as
bytes, so no framework serialiser walks the rows again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

import msgspec
from litestar import Response
from msgspec import UNSET

from access.tokens import redact_tokens
from core import errors
from datasets.queries import PremadeRows
from schemas.bodies.base import Body
from schemas.bodies.envelope import Collection, EnvelopeMeta, Single
from schemas.bodies.service import Error, ErrorBody, Pagination, Warning
from serve.exchange import exchange_of

JSON = "application/json"
REQUEST_ID_HEADER = "X-Request-ID"
CONTENT_TYPE_OPTIONS = ("X-Content-Type-Options", "nosniff")
"""On every response (`serve.front.finish_headers`, the protocol's refusals):
no body of this service is to be read as another type than it says (a JSON 404 echoing the path
must never be sniffed into HTML)."""

_encoder = msgspec.json.Encoder()


def request_id_of(scope: Any) -> str:
    """The request's id, created on first use so router failures carry one too."""
    return exchange_of(scope).request_id


_now_text: tuple[int, str] = (0, "")


def now_iso() -> str:
    """The time now, to the second, as ISO 8601 UTC (`2026-11-26T19:58:17Z`): made once per second
    (every answer's `meta.generated_at`)."""
    global _now_text
    second = int(time.time())
    if _now_text[0] != second:
        _now_text = (
            second,
            datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        )
    return _now_text[1]


def pagination(limit: int, offset: int, returned: int, total: int) -> Pagination:
    return Pagination(
        limit=limit, offset=offset, returned=returned, total=total, has_more=offset + returned < total
    )


Encoded = Response[Any]
"""A handler's answer: a `Response` whose content is the bytes of the representation the client
negotiated, which Litestar sends as they are. Its declared type is the handler's return type
(`Response[Collection[DecisionRow]]`, serve.routes.declare); `Any` lets the bytes stand for it."""


def collection(
    rows: list[Any] | PremadeRows, total: int, limit: int, offset: int, meta: EnvelopeMeta[Any]
) -> Encoded:
    """A page in the JSON envelope. Its rows are row Structs where a figure made them, and the
    lake's rows as read where the page is a served table's (their Struct declares them; making
    5,000 Structs of a page only to encode them would cost more than the encoding), or the JSON
    the pipeline wrote of them (`datasets.queries.PremadeRows`, put in as it is)."""
    data: Any = rows.json if isinstance(rows, PremadeRows) else rows
    body: Collection[Any] = Collection(
        data=data, pagination=pagination(limit, offset, len(rows), total), meta=meta
    )
    return json_response(body)


def page_links(scope: Any, limit: int, offset: int, returned: int, total: int) -> str:
    """RFC 8288 `Link` to the next and previous pages: the request's own path and query with the
    applied `limit` and a new `offset` (path-absolute, so they resolve against whatever host and
    scheme the client used)."""
    links = []
    if offset + returned < total:
        links.append((offset + returned, "next"))
    if offset > 0:
        links.append((max(0, offset - limit), "prev"))
    if not links:
        return ""
    pairs = [(name, value) for name, value in exchange_of(scope).query if name not in ("limit", "offset")]
    # The other parameters encoded once for both links (`limit` and `offset` are integers, which
    # `urlencode` writes as they are): the same text as `urlencode` of every pair.
    kept = urlencode(pairs) + "&" if pairs else ""
    path = quote(scope["path"])
    return ", ".join(f'<{path}?{kept}limit={limit}&offset={at}>; rel="{rel}"' for at, rel in links)


def single(data: Body, meta: EnvelopeMeta[Any]) -> Encoded:
    return json_response(Single(data=data, meta=meta))


def json_bytes(body: Any) -> bytes:
    return _encoder.encode(body)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Encoded:
    return Response(content=json_bytes(body), status_code=status, media_type=JSON, headers=headers)


def _redacted(value: Any) -> Any:
    """Error details with every token-shaped text removed (they may quote request input)."""
    if isinstance(value, str):
        return redact_tokens(value)
    if isinstance(value, dict):
        return {_redacted(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def error_response(exc: errors.ApiError, request_id: str) -> Response[bytes]:
    body = Error(
        error=ErrorBody(
            code=exc.code,
            message=redact_tokens(exc.message),
            details=_redacted(exc.details),
            request_id=request_id,
        )
    )
    return json_response(body, status=exc.status, headers=dict(exc.headers))


def with_warnings(meta: EnvelopeMeta[Any], warnings: Sequence[Warning]) -> EnvelopeMeta[Any]:
    """`meta.warnings` is present only when a block degraded: `warnings` after those `meta` holds
    already (a run answer's `restated`: `serve.routes.base.Context.run_meta`)."""
    if not warnings:
        return meta
    held = [] if meta.warnings is UNSET else list(meta.warnings)
    return msgspec.structs.replace(meta, warnings=[*held, *warnings])
