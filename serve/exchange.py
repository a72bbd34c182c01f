"""What one request carries through the app besides the request itself, as one typed value.

The guards, the handlers, the before-send hooks and the access log all read and write the same
`Exchange`, kept on the ASGI scope's state under one name (`exchange_of`), instead of loose keys.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from core.context import Caller

if TYPE_CHECKING:
    from serve.limits.windows import WindowName

_STATE_KEY = "exchange"


@dataclass(slots=True)
class Exchange:
    request_id: str
    caller: Caller | None = None
    key_id: str | None = None
    """The key's public id once identified: on success, and on refusals after its secret matched."""
    rate_limit_headers: dict[str, str] | None = None
    counted: dict[WindowName, int] | None = None
    """The limiter's counts by window (`second` ... `month`) just after this request was counted:
    what `/v1/me` reports as its usage, the same answer as its `X-RateLimit-*` headers."""
    account_counted: dict[WindowName, int] | None = None
    """The account's pooled counts by window just after this request was counted (`/v1/me`'s
    `account_usage`)."""
    entity_tag: str | None = None
    """The digest the answer is validated by (serve/conditional.py); set by data routes only."""
    not_modified: bool = False
    made_once: bool = False
    """The answer is a function of its inputs alone (`Context.answer`, a run's collection page): its
    200 may be kept and answered again (serve/answer_cache.py)."""
    query: tuple[tuple[str, str], ...] = ()
    """The query string's (name, value) pairs, in order, blanks kept: parsed once, when the exchange
    is made, and read by everything that looks at the query (the key-in-URL refusal, the
    representation's `format`, the parameters' parser, the entity tag, the `Link` header)."""
    egress_rows: int = 0
    """Rows of the collection page this request answered (serve/limits/egress.py)."""
    egress_bytes: int = 0
    """Answer body bytes sent for this request, counted by `serve.front.Cycle.send`."""
    vouched: Caller | None = None
    """The caller an in-process tool call carries from its `/mcp` request when that request
    presented an access token (serve/model_context/calls.py): verified there, so the route's guards take it
    rather than reading the token again (a route over HTTP never has one: only the app sets it)."""
    egress_counted: int = 0
    """Of `egress_bytes`, those already counted as requests of their own: an `/mcp` answer's tool
    results are route answers, each counted as that route's request (`serve.model_context.calls.call_route`);
    the rest of what `/mcp` sends (the result's text copy of them, the JSON-RPC frame) is its own."""
    held: list[Callable[[], None]] = field(default_factory=list)
    """What gives back the places the request holds among its key's (an open stream's, a body's
    still arriving): each called once the request ends, however it ends (serve/slow_clients.py)."""


def query_pairs(query_string: bytes) -> tuple[tuple[str, str], ...]:
    if not query_string:  # most requests have none: no decode, no parse
        return ()
    return tuple(parse_qsl(query_string.decode("latin-1"), keep_blank_values=True))


def request_id() -> str:
    """A new request id, `req_` and 32 hex digits: the text of `uuid.uuid4().hex` (random, with the
    version 4 and RFC 4122 variant bits), made without a `UUID` object (the one-pass layer makes one
    per request)."""
    text = os.urandom(16).hex()
    return f"req_{text[:12]}4{text[13:16]}{_VARIANT[int(text[16], 16)]}{text[17:]}"


_VARIANT = "89ab89ab89ab89ab"
"""The hex digit of the variant bits `10xx` for each random digit."""


def exchange_of(scope: Any) -> Exchange:
    """The request's exchange, created on first use (router failures get a request id too)."""
    state = scope.setdefault("state", {})
    exchange = state.get(_STATE_KEY)
    if exchange is None:
        exchange = state[_STATE_KEY] = Exchange(
            request_id=request_id(), query=query_pairs(scope.get("query_string", b""))
        )
    return exchange
