"""The keyed path as one layer (issue 49, item 1): every HTTP request passes one ASGI callable that
does, in one pass and before any Litestar object is made, what the request path needs before a
handler: the request's exchange (its id, its query read once), the canonical path check, the
health fast path, routing (Litestar's own routing trie, once), the method, the key in the URL,
authentication, the endpoint allow-list, the limiter, then the route itself; on the way out one
send wrapper sets the standard headers (the request id, `nosniff`, the limiter's headers, the
entity tag or its 304) and the access line is queued (serve/access_log.py `AccessQueue`), written
in batches off the request's path.

What it replaces: five ASGI wrappers around the app (the access log, the slow-client budget, the
import watch, the health fast path, the canonical path check), Litestar's router called a second
time, the guard Litestar ran per request (`authorize_connection`, which copies the route handler
for each guard call), the headers read through Litestar's `Headers` (a scan and a decode per name)
and the two `before_send` hooks. The checks are the same functions in the same order
(docs/limits.md "Which requests count", docs/security.md), so every refusal, header and log field
is what it was: a refusal raised here is answered by the route's own middleware (compression, the
exception handler, `serve.failures.handle_exception`), exactly as when the guard raised it.

`/v1/me` without a query string is answered here (`serve.routes.meta.me_answer`, the handler's own
body): no `Request`, dependency or `Response` object is made for it; the route's handler answers
every other `/v1/me` (a query string is its 400).

Every route whose answer is one body of bytes (the collections, the single objects: serve/direct.py
says which, from the declarations) is called here too, below the framework: its `ctx` made from
the scope, its function called, its `Response` sent on as the status line and body Litestar would
have sent, through the same send path (`Cycle.send`, the compression middleware, the exception
handler for a refusal) and the answer cache (`answer_once`). Litestar's route stack answers the
rest (the event stream, the signed downloads, the protocol and developer surfaces).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from litestar import Litestar
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

from access.authenticate import reject_key_in_query
from core import errors
from datasets.faults import LakeUnavailable
from schemas.registry import BY_ID
from serve.access_log import CLIENT_CLOSED_REQUEST, AccessQueue
from serve.answer_cache import AnswerCache, Entry, Key, entry_of
from serve.auth import (
    OTHER_METHODS,
    Services,
    address_of,
    count_request,
    endpoint_of,
    identify_presented,
)
from serve.compression import COMPRESSION, negotiated_coding
from serve.conditional import conditional_response, normalised_query
from serve.dependencies import KeyBackends
from serve.direct import Direct, direct_of
from serve.envelope import REQUEST_ID_HEADER, error_response, json_bytes, now_iso
from serve.exchange import Exchange, exchange_of
from serve.failures import answering_failures
from serve.http_protocol import announces_body
from serve.limits import egress
from serve.pages import MCP_PATH
from serve.routes import meta, sharing
from serve.sharing import protocol as sharing_protocol
from serve.slow_clients import BODIES, HOLDS_OPEN, BodyLimits, body_timeout
from serve.slow_clients import log as body_log
from serve.warm import ImportWatch

log = logging.getLogger("serve.egress")

_REQUEST_ID = REQUEST_ID_HEADER.lower().encode()
_NOSNIFF_NAME = b"x-content-type-options"
_NOSNIFF = (_NOSNIFF_NAME, b"nosniff")
_JSON_HEAD = (b"content-type", b"application/json")
_REFUSAL = "front_refusal"
_ANSWER = "front_answer"
_ME = "meta.me"
NONCANONICAL_ESCAPE = re.compile(rb"%(2[dDeEfF]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA]|5[fF]|7[eE])")
"""A percent-encoded `/` (%2F) or unreserved character (ALPHA, DIGIT, `-`, `.`, `_`, `~`)."""


def finish_headers(message: Any, exchange: Exchange) -> None:
    """The request id (replacing any), `nosniff` and the limiter's headers (each unless the
    response set it) on a response's start: its raw header list read once."""
    headers = [(name, value) for name, value in message.get("headers", ()) if name.lower() != _REQUEST_ID]
    present = {name.lower() for name, _ in headers}
    headers.append((_REQUEST_ID, exchange.request_id.encode("latin-1")))
    if _NOSNIFF_NAME not in present:
        headers.append(_NOSNIFF)
    for name, value in (exchange.rate_limit_headers or {}).items():
        key = name.lower().encode("latin-1")
        if key not in present:
            headers.append((key, value.encode("latin-1")))
    message["headers"] = headers


class Cycle:
    """One request's `send` and `receive` as the app sees them: the status the access line logs
    (499 when the client left before any answer), the standard headers, the conditional answer,
    and the request body under its deadline and in its place among its key's bodies
    (serve/slow_clients.py) until it is whole or the answer begins."""

    __slots__ = (
        "scope",
        "exchange",
        "inner_send",
        "inner_receive",
        "limits",
        "started",
        "received",
        "done",
        "give_back",
        "status",
        "responded",
    )

    def __init__(
        self, scope: Scope, exchange: Exchange, receive: Receive, send: Send, limits: BodyLimits
    ) -> None:
        self.scope, self.exchange = scope, exchange
        self.inner_receive, self.inner_send = receive, send
        self.limits = limits
        self.started = asyncio.get_running_loop().time()
        self.received = 0
        self.done = False  # the body is whole (or the client left), or the answer began
        self.give_back: Callable[[], None] | None = None  # the body's place, once taken
        self.status = 500  # what the client sees if the app dies before starting a response
        self.responded = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.responded, self.done = True, True
            finish_headers(message, self.exchange)
            if self.exchange.entity_tag is not None:
                await conditional_response(message, self.scope)
            # After the entity tag was compared: the access line and the metrics say 304 when the
            # client's copy was current, the status the client saw.
            self.status = int(message["status"])
        elif self.exchange.not_modified and message["type"] == "http.response.body":
            message["body"] = b""
        elif message["type"] == "http.response.body":
            self.exchange.egress_bytes += len(message.get("body", b""))
        await self.inner_send(message)

    async def receive(self) -> Any:
        if self.done:
            message: Any = await self.inner_receive()
        else:
            message = await self._body_part()
        if message["type"] == "http.disconnect" and not self.responded:
            # The client left before any answer (mid-body, say): nginx's 499, not a server error
            # (a 5xx would count towards the error-rate alert).
            self.status = CLIENT_CLOSED_REQUEST
        return message

    async def _body_part(self) -> Any:
        exchange = self.exchange
        if self.give_back is None and exchange.caller is not None:
            # At the body's first read: both surfaces that read one know the key by then.
            self.give_back = BODIES.take(exchange.caller, self.limits.caps)
            exchange.held.append(self.give_back)
        limits = self.limits
        deadline = self.started + limits.timeout_seconds + self.received / limits.min_bytes_per_second
        try:
            # Each chunk that arrives returns from here, and the next read's deadline has its credit.
            async with asyncio.timeout_at(deadline):
                message: Any = await self.inner_receive()
        except TimeoutError:
            body_log.info("refused a request body after %d bytes (request_body_timeout)", self.received)
            self.done = True
            raise body_timeout(limits, self.received) from None
        self.received += len(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.done = True
            if self.give_back is not None:
                self.give_back()  # whole (or the client left): the place is free before the answer
        return message


async def drained(cycle: Cycle) -> None:
    """Read the request's body, if one is announced, and drop it: through `Cycle.receive`, under the
    body deadline and in the body's place among its key's (`serve.slow_clients`)."""
    if not announces_body(cycle.scope["headers"]):
        return
    while True:
        message = await cycle.receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return


@dataclass(frozen=True, slots=True)
class RouteFacts:
    """What the layer reads of one route handler, read once (`Front.learn`)."""

    exception_handlers: Any
    methods: frozenset[str]  # GET and the `OTHER_METHODS` it declares
    keyed: str | None  # its registry id when a key is needed
    me: bool  # `/v1/me`, answered by the layer when it has no query string
    direct: ASGIApp | None  # the route as the layer answers it itself (serve/direct.py), if it may
    holds_open: bool  # its answer never ends: a body is read whole first (serve/slow_clients.py)


class Front:
    """The one layer (the module's docstring). `rest` answers what the layer does not route itself
    (`/mcp`, paths the router refuses): the app's ASGI handler as Litestar built it, behind the
    MCP mount."""

    def __init__(
        self,
        litestar: Litestar,
        rest: ASGIApp,
        services: Services,
        imports: ImportWatch,
        access: AccessQueue,
        observe: Callable[[Scope, int, float], None] | None,
        health: Callable[[], bytes],
    ) -> None:
        self.litestar = litestar
        self.router = litestar.asgi_router
        self.rest = rest
        self.services = services
        self.settings = services.settings
        self.hops = services.settings.trusted_proxy_hops
        self.limits = BodyLimits.of(services.settings)
        self.imports = imports
        self.access = access
        self.observe = observe
        self.health = health
        self.keys = KeyBackends(services.store, services.limiter)
        self.budget = egress.Budget.of(services.settings)
        self.facts: dict[int, RouteFacts] = {}
        # The key as this request's authentication read it, from the identity cache (none for a
        # store without one, or an authenticator of tests).
        self.just_authenticated: Callable[[str], Any] | None = getattr(
            services.store, "just_authenticated", None
        )
        # A refusal of the layer is raised inside the middleware a route's own refusal passed
        # through (compression, then the app's exception handler, `serve.failures.handle_exception`).
        self.refuse = COMPRESSION.middleware_class(app=answering_failures(_raise_refusal), config=COMPRESSION)
        self.compressed = COMPRESSION.middleware_class(
            app=answering_failures(_send_answer), config=COMPRESSION
        )
        limit = services.settings.answer_cache_bytes
        self.answers = AnswerCache(limit) if limit > 0 else None
        self.made_once: set[int] = set()  # handlers whose answers said they may be kept (learned)
        self.direct = True
        """Whether the routes `serve.direct.direct_of` admits are answered here (off: by Litestar,
        as every other route; the parity tests ask both ways)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.rest(scope, receive, send)
            return
        started = time.perf_counter()
        exchange = exchange_of(scope)  # the one way a request's exchange is made
        cycle = Cycle(scope, exchange, receive, send, self.limits)
        try:
            await self.dispatch(scope, exchange, cycle)
        finally:
            for give_back in exchange.held:
                give_back()
            if (exchange.egress_bytes or exchange.egress_rows) and egress.applies(
                self.budget, exchange.caller
            ):
                await self.spend(scope, exchange)
            if self.imports.changed():
                self.imports.check_scope(scope)
            seconds = time.perf_counter() - started
            if self.observe is not None:
                self.observe(scope, cycle.status, seconds)
            self.access.put(scope, cycle.status, seconds)

    async def spend(self, scope: Any, exchange: Exchange) -> None:
        """Add the answer's rows and bytes to its key's day and its account's pooled day
        (serve/limits/egress.py). Of `/mcp`'s
        own answer, the bytes besides the route answers its tool results hold, each counted as that
        request (`Exchange.egress_counted`): every byte sent is counted once (issue 81, item 8)."""
        limiter, caller = self.services.limiter, exchange.caller
        if limiter is None or caller is None:
            return
        sent = exchange.egress_bytes
        if scope["path"] == MCP_PATH:
            sent = max(0, sent - exchange.egress_counted)
        if not (sent or exchange.egress_rows):
            return
        now = datetime.now(UTC)
        try:
            await limiter.egress_add(
                egress.spenders(caller), egress.day_start(now), exchange.egress_rows, sent
            )
        except Exception:  # the answer is sent; a count that cannot be kept is logged, not raised
            log.exception("the egress of key %s could not be counted", caller.key_id)

    async def dispatch(self, scope: Any, exchange: Exchange, cycle: Cycle) -> None:
        receive, send = cycle.receive, cycle.send
        path: str = scope["path"]
        method = scope["method"]
        # `litestar.utils.normalize_path(path) == path`, without building the normalised text.
        canonical = path == "/" or (path[:1] == "/" and path[-1:] != "/" and "//" not in path)
        if not canonical or NONCANONICAL_ESCAPE.search(scope.get("raw_path") or b""):
            await _noncanonical(path, exchange, send)
            return
        if path == "/v1/health" and method == "GET" and not scope["query_string"]:
            scope["route_handler"] = meta.health  # for the access line
            await _send_json(send, 200, self.health(), exchange.request_id)
            return
        if path == MCP_PATH:
            await self.rest(scope, receive, send)
            return
        # The head read once: what authentication, the address and the coding need.
        authorization: list[str] = []
        forwarded: list[str] = []
        accept_encoding: list[bytes] = []
        cookies: list[str] = []
        csrf: str | None = None
        host: bytes | None = None
        for name, value in scope["headers"]:
            lowered = name.lower()
            if lowered == b"authorization":
                authorization.append(value.decode("latin-1"))
            elif lowered == b"cookie":  # a dashboard session (serve/oauth/dashboard.py)
                cookies.append(value.decode("latin-1"))
            elif lowered == b"x-csrf-token":
                csrf = value.decode("latin-1")
            elif lowered == b"x-forwarded-for":
                forwarded.append(value.decode("latin-1"))
            elif lowered == b"accept-encoding":
                accept_encoding.append(value)
            elif lowered == b"host" and host is None:
                host = value
        if host is not None and not _valid_host(host):
            await self.rest(scope, receive, send)  # Litestar's router answers it, as before
            return
        try:
            app, handler, scope["path"], scope["path_params"], template = self.router.handle_routing(
                path, method
            )
        except Exception:  # an unknown path or another method: the router refuses it (404) as before
            await self.rest(scope, receive, send)
            return
        facts = self.facts.get(id(handler)) or self.learn(handler)
        ScopeState.from_scope(scope).exception_handlers = facts.exception_handlers
        scope["route_handler"] = handler
        scope["path_template"] = template
        try:
            caller = await self.admit(scope, exchange, facts, authorization, forwarded, cookies, csrf)
            if facts.holds_open and caller is not None:
                await drained(cycle)  # 408 request_body_timeout when it does not arrive in time
            if facts.me and caller is not None and not scope["query_string"]:
                body = json_bytes(
                    await meta.me_answer(
                        self.keys,
                        caller,
                        exchange.counted,
                        self.services.registry_version,
                        exchange.request_id,
                        self.just_authenticated(caller.key_id) if self.just_authenticated else None,
                        exchange.account_counted,
                    )
                )
                answer: Message = {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [_JSON_HEAD, (b"content-length", str(len(body)).encode())],
                }
                if accept_encoding and negotiated_coding(b",".join(accept_encoding).decode("latin-1")):
                    scope["state"][_ANSWER] = (answer, body)
                    await self.compressed(scope, receive, send)
                    return
                # Sent as `Cycle.send` sends a start, its headers set in the same way.
                cycle.status, cycle.responded, cycle.done = 200, True, True
                finish_headers(answer, exchange)
                await cycle.inner_send(answer)
                await cycle.inner_send({"type": "http.response.body", "body": body, "more_body": False})
                return
        except errors.ApiError as refusal:
            scope["state"][_REFUSAL] = refusal
            await self.refuse(scope, receive, send)
            return
        if facts.direct is not None and self.direct:
            app = facts.direct  # below the framework (serve/direct.py)
        if self.answers is not None and caller is not None and id(handler) in self.made_once:
            key = self.answer_key(scope, exchange, caller, handler)
            if key is not None and method == "GET":
                await self.answer_once(app, scope, receive, cycle, key, accept_encoding)
                return
        await app(scope, receive, send)
        if exchange.made_once:
            self.made_once.add(id(handler))

    def answer_key(self, scope: Any, exchange: Exchange, caller: Any, handler: Any) -> Key | None:
        """What an answer kept for this request must have been made from (serve/answer_cache.py);
        None when the lake cannot say (the route answers, its 503 included): the lake unreadable,
        the alpha's build damaged since (a kept answer is never served from a build that now fails
        loud) or not open in this worker (the route opens it)."""
        reader = self.services.reader
        try:
            version = reader.catalogue().version
            alpha = scope["path_params"].get("alpha")
            build = reader.alpha(alpha) if isinstance(alpha, str) else None
            if build is not None and reader.ready_view(build) is None:
                return None
        except LakeUnavailable:
            return None
        accept = tuple(value for name, value in scope["headers"] if name.lower() == b"accept")
        return (
            id(handler),
            scope["path"],
            normalised_query(exchange.query),
            accept,
            caller.field_policy,
            version,
            None if build is None else build.build_id,
        )

    async def answer_once(
        self, app: ASGIApp, scope: Any, receive: Receive, cycle: Cycle, key: Key, accept_encoding: list[bytes]
    ) -> None:
        """The kept answer of `key`, made for this request; else the route's, kept when it may be.
        The route answers uncompressed (its `Accept-Encoding` lines withheld from it) and the
        answer is compressed here as the route would have (the same middleware, `self.compressed`)."""
        assert self.answers is not None
        exchange = cycle.exchange
        entry = self.answers.get(key)
        if entry is None and not self.answers.wanted(key):
            await app(scope, receive, cycle.send)  # asked once so far: answered as if not kept
            return
        if entry is None:
            head = scope["headers"]
            scope["headers"] = [(name, value) for name, value in head if name.lower() != b"accept-encoding"]
            sent: list[Any] = []  # the route's messages: a start, then its body

            async def kept(message: Message) -> None:
                sent.append(message)

            try:
                await app(scope, receive, kept)
            finally:
                scope["headers"] = head
            if not sent:
                return
            start = sent[0]
            body = (
                sent[1].get("body", b"") if len(sent) == 2 else b"".join(m.get("body", b"") for m in sent[1:])
            )
            if start["status"] == 200 and exchange.made_once:
                made = entry_of(
                    list(start.get("headers", ())),
                    body,
                    exchange.request_id,
                    now_iso(),
                    exchange.entity_tag,
                    exchange.egress_rows,
                )
                if made is not None:
                    self.answers.put(key, made)
        else:
            start, body = _start_of(entry, exchange)
            exchange.egress_rows = entry.rows
        if accept_encoding and negotiated_coding(b",".join(accept_encoding).decode("latin-1")):
            scope["state"][_ANSWER] = (start, body)
            await self.compressed(scope, receive, cycle.send)
            return
        await cycle.send(start)
        await cycle.send({"type": "http.response.body", "body": body, "more_body": False})

    def learn(self, handler: Any) -> RouteFacts:
        """What the layer reads of a route handler, once per handler."""
        endpoint = endpoint_of(handler)
        direct = direct_of(handler)
        facts = RouteFacts(
            exception_handlers=handler.resolve_exception_handlers(),
            methods=frozenset(("GET", *handler.opt.get(OTHER_METHODS, ()))),
            keyed=None if endpoint is None or BY_ID[endpoint].public else endpoint,
            me=endpoint == _ME,
            direct=None if direct is None else partial(self.answer_direct, direct),
            holds_open=bool(handler.opt.get(HOLDS_OPEN)),
        )
        self.facts[id(handler)] = facts
        return facts

    async def answer_direct(self, direct: Direct, scope: Any, receive: Receive, send: Send) -> None:
        """The route's answer made here (serve/direct.py), sent as Litestar's route stack sends it:
        compressed by the same middleware when the client accepts a coding, and a refusal or a
        failure answered by the same exception handler (`self.refuse`)."""
        try:
            start, body = await direct.answer(scope)
        except Exception as failure:  # every failure, as Litestar's exception handler takes it
            scope["state"][_REFUSAL] = failure
            await self.refuse(scope, receive, send)
            return
        accept = [value for name, value in scope["headers"] if name.lower() == b"accept-encoding"]
        if accept and negotiated_coding(b",".join(accept).decode("latin-1")):
            scope["state"][_ANSWER] = (start, body)
            await self.compressed(scope, receive, send)
            return
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def admit(
        self,
        scope: Any,
        exchange: Exchange,
        facts: RouteFacts,
        authorization: list[str],
        forwarded: list[str],
        cookies: list[str] | None = None,
        csrf: str | None = None,
    ) -> Any:
        """The guard steps in their order (docs/limits.md "Which requests count"): the method
        (another than GET is 404 `method_not_allowed` before a key is read), then on a keyed route
        the key in the URL, the key, the limits and the endpoint allow-list. The caller, or None
        on a public route."""
        method = scope["method"]
        if method not in facts.methods:
            raise errors.MethodNotAllowed(details={"method": method, "allowed": ["GET"]})
        endpoint = facts.keyed
        if endpoint is None:
            return None
        # Before the header is read: a key sent in a URL is refused even next to a valid header.
        reject_key_in_query(exchange.query)
        client = scope.get("client")
        peer = client[0] if client else "0.0.0.0"
        ip = address_of(peer, forwarded, self.hops) if self.hops > 0 else peer
        caller = await identify_presented(self.services, exchange, authorization, ip, cookies, csrf)
        # Counted before the allow-list is read (issue 60, finding 4): a call outside the key's
        # grant costs its key a request as any other, on every surface (a route, an MCP tool's
        # call, Delta Sharing), so a key cannot probe or flood with calls it may not make for free.
        await count_request(self.services, caller, exchange)
        if not caller.may_call(endpoint):
            raise errors.EndpointNotAllowed(
                f"This key may not call {endpoint}.", details={"endpoint": endpoint}
            )
        if (
            self.budget is not None
            and self.services.limiter is not None
            and egress.applies(self.budget, caller)
        ):
            egress.check(self.services.limiter, self.budget, caller, datetime.now(UTC))
        return caller


def _start_of(entry: Entry, exchange: Exchange) -> tuple[Message, bytes]:
    """A kept answer's status line and body for this request, its entity tag the request's."""
    headers, body = entry.made_for(exchange.request_id, now_iso())
    exchange.entity_tag = entry.entity_tag
    return {"type": "http.response.start", "status": 200, "headers": headers}, body


async def _raise_refusal(scope: Scope, receive: Receive, send: Send) -> None:
    raise scope["state"].pop(_REFUSAL)


async def _send_answer(scope: Scope, receive: Receive, send: Send) -> None:
    start, body = scope["state"].pop(_ANSWER)
    await send(start)
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _send_json(send: Send, status: int, body: bytes, request_id: str) -> None:
    """A whole JSON response sent straight to the ASGI server (for answers given before routing)."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [_JSON_HEAD, (_REQUEST_ID, request_id.encode()), _NOSNIFF],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _noncanonical(path: str, exchange: Exchange, send: Send) -> None:
    """404 `not_found` for a path the router would only match after normalising it: the spec
    knows `/v1/me`, not `/v1/me/` or `/v1//me`; serving those as `/v1/me` would give every route
    several addresses (and caches, allow-lists by path, logs several spellings). The same holds for
    the raw path's percent-encodings: an encoded `/` would join two segments into one
    (`Test_x%2Fbooks` as an alpha id), and an encoded unreserved character (`%54est_x`) is a second
    spelling of a plain one (RFC 3986 2.3); both are 404 before any key is read."""
    if sharing.is_sharing_path(path):  # a protocol client reads the protocol's error body
        body = sharing_protocol.error_body(sharing_protocol.RESOURCE_DOES_NOT_EXIST, sharing.NO_SUCH_PATH)
        await _send_json(send, 404, body, exchange.request_id)
        return
    error = errors.NotFound(f"No such path: {path}", details={"path": path})
    await _send_json(
        send, error.status, error_response(error, exchange.request_id).content, exchange.request_id
    )


_HOST = re.compile(r"[0-9A-Za-z!\x24&'()*+,;=\-._~:\[\]@%]*")  # \x24 is `$`
"""The characters a Host header may hold (RFC 3986's reg-name, IP literal and port: unreserved,
sub-delims, `:`, `[`, `]`, `@` and percent-encodings), as Litestar's router checks it before routing."""


def _valid_host(host: bytes) -> bool:
    return _HOST.fullmatch(host.decode("latin-1")) is not None
