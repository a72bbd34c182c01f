"""The guard steps of the request path: method, authentication with the endpoint allow-list, limits.

The one-pass layer (serve/front.py `Front.admit`) runs them on a matched route, in order, before
the route's handler:
1. the method: any other than GET (or a route's `OTHER_METHODS`) is 404 `method_not_allowed` before
   a key is read;
2. a key in the query string is refused (401 `missing_api_key`), then the bearer key becomes a
   `Caller` (`identify_presented`: access), then the endpoint allow-list by registry id
   (403 `endpoint_not_allowed`);
3. the key's rate envelope and monthly quota (`count_request`, serve.limits); `/v1/health` is
   never metered.
`authenticate_caller` and `apply_limits` are steps 2 and 3 over a Litestar connection (the
in-process benchmark of them, tests/bench/auth_bench.py).

All run on the event loop: the key and its account come from the identity cache without I/O
(a miss reads the store, in a worker thread when it is PostgreSQL), and the Redis limiter sends
its one script with an asyncio client, so a request needs no thread hop.
"""

from __future__ import annotations

import contextlib
import inspect
import ipaddress
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache, partial
from typing import Any, TypeVar

from anyio import to_thread
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from access.authenticate import CHALLENGE, bearer_token, reject_key_in_query
from access.oauth import account_pool_id
from access.tokens import parse_token
from analytics.policy import Policy, default_policy
from core import errors
from core.context import Caller
from core.settings import Settings
from datasets.reader import LakeReader
from schemas.registry import BY_ID
from serve.exchange import Exchange, exchange_of
from serve.limits.model import NO_LIMITS, SELF_SERVICE_LIMITS, Envelope, Limits

log = logging.getLogger("serve.auth")

T = TypeVar("T")

Authenticator = Callable[[str | None, str, datetime], Caller | Awaitable[Caller]]
"""(Authorization header, client address, now) -> Caller, or raises a core.errors error. The app's
own (over the key store, `serve.app.default_authenticator`) is a coroutine function; tests pass
plain functions, which run on the event loop."""


@dataclass
class Services:
    """What the request path needs, built once at app creation and kept on `app.state`."""

    settings: Settings
    reader: LakeReader
    authenticate: Authenticator
    registry_version: str  # of the endpoints the app mounts (serve.endpoints), for /v1/health and /v1/me
    analytics_doc: Mapping[str, Any]  # the `/analytics/_doc` block, derived from the declarations
    metrics_doc: Mapping[str, Any]  # the `/metrics/_doc` block, derived from the metrics Struct
    limiter: Any | None = None  # serve.limits.Limiter
    store: Any | None = None  # access key store
    checks_policy: Policy = field(default_factory=default_policy)  # /analytics/checks' thresholds
    records: Any | None = None  # serve.records.RecordsSource: promotions and events; None: none kept
    metrics: Any | None = None  # serve.prometheus.ServerMetrics when ALPHA_RESULTS_PROMETHEUS is on
    as_of_budget: Any | None = None  # serve.limits.as_of.AsOfBudget; None: no budget
    sessions: Any | None = None  # serve.oauth.dashboard.SessionSignIn: people signed in to the dashboard


def backends_in_process(store: Any | None, limiter: Any | None) -> bool:
    """Whether the key store and the limiter (those present) answer without network I/O (SQLite,
    in-process counters): then the guards can run on the event loop, without a thread hop. Decided
    from the backend objects themselves (`in_process`), so a store passed to `create_app` counts,
    whatever the settings' URLs say."""
    return all(getattr(backend, "in_process", False) for backend in (store, limiter) if backend is not None)


async def call_backends(store: Any | None, limiter: Any | None, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)`, which reads the key store or the limiter: on the event loop when both answer
    in-process (no thread hop: microseconds of work), else in a worker thread, so a slow or silent
    database never stalls the loop (and with it `/v1/health`)."""
    if backends_in_process(store, limiter):
        return fn(*args)
    return await to_thread.run_sync(partial(fn, *args))


def services_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Services:
    services: Services = connection.app.state["services"]
    return services


UNPARSABLE_ADDRESS = "unparsable"
"""Stands in for a forwarded address that is not an IP address: matches no IP allow-list entry,
and the client's text is never echoed (in `error.details.ip` or `/v1/me` `ip`)."""


def client_ip(connection: ASGIConnection[Any, Any, Any, Any], trusted_proxy_hops: int) -> str:
    """The caller's address: the socket peer, or `trusted_proxy_hops` back in X-Forwarded-For."""
    return scope_ip(connection.scope, trusted_proxy_hops)


def scope_ip(scope: Any, trusted_proxy_hops: int) -> str:
    """`client_ip` of a request's ASGI scope."""
    client = scope.get("client")
    peer = client[0] if client else "0.0.0.0"
    if trusted_proxy_hops <= 0:
        return peer
    forwarded = [
        value.decode("latin-1") for name, value in scope["headers"] if name.lower() == b"x-forwarded-for"
    ]
    return address_of(peer, forwarded, trusted_proxy_hops)


def address_of(peer: str, forwarded_lines: list[str], trusted_proxy_hops: int) -> str:
    """The caller's address from the socket peer and every X-Forwarded-For line, in order."""
    if trusted_proxy_hops <= 0:
        return peer
    # Several X-Forwarded-For lines are one list, in order (RFC 9110 5.3): reading only the first
    # line would let a client put its own line before the proxy's and choose its address.
    forwarded = [p.strip() for p in ",".join(forwarded_lines).split(",") if p.strip()]
    # Each trusted proxy appended the address it saw; the client is `hops` entries from the right.
    chain = [*forwarded, peer]
    index = max(0, len(chain) - 1 - trusted_proxy_hops)
    if index == len(chain) - 1:
        return peer
    return forwarded_address(chain[index])


def forwarded_address(entry: str) -> str:
    """An X-Forwarded-For entry as a canonical IP address, or `UNPARSABLE_ADDRESS`.

    Accepts `a.b.c.d`, `a.b.c.d:port`, an IPv6 address, and `[v6]` or `[v6]:port`.
    """
    text = entry.strip()
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        if not closed or (rest and not re.fullmatch(r":[0-9]{1,5}", rest)):
            return UNPARSABLE_ADDRESS
        text = host
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
        if not re.fullmatch(r"[0-9]{1,5}", port):
            return UNPARSABLE_ADDRESS
        text = host
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return UNPARSABLE_ADDRESS
    # An IPv4 client seen through an IPv6 socket (`::ffff:a.b.c.d`) is that IPv4 address.
    mapped = getattr(address, "ipv4_mapped", None)
    return str(mapped or address)


def endpoint_of(handler: BaseRouteHandler) -> str | None:
    endpoint = handler.opt.get("endpoint")
    return endpoint if isinstance(endpoint, str) else None


def is_public(handler: BaseRouteHandler) -> bool:
    endpoint = endpoint_of(handler)
    return endpoint is None or BY_ID[endpoint].public


OTHER_METHODS = "other_methods"
"""A handler's `opt` key naming the methods besides GET it answers (the Delta Sharing protocol's
POST `query` and HEAD table version, serve/routes/sharing.py); every API route answers GET only."""


IDENTIFIED_KEY_REFUSALS = (
    errors.KeyRevoked,
    errors.KeySuspended,
    errors.KeyExpired,
    errors.AccountInactive,
    errors.IpNotAllowed,
)
"""Refusals raised only after the key's secret matched: the key is identified, so its public id
goes to the access log (`Exchange.key_id`)."""


async def authenticated(
    services: Services, authorization: str | None, client_ip: str, now: datetime
) -> Caller:
    """The caller `services.authenticate` makes of these credentials, awaited when it is a coroutine."""
    caller = services.authenticate(authorization, client_ip, now)
    return await caller if inspect.isawaitable(caller) else caller


def current_caller(connection: ASGIConnection[Any, Any, Any, Any]) -> Caller:
    """The caller `authenticate_caller` authenticated for this request (kept on its exchange)."""
    caller = exchange_of(connection.scope).caller
    if caller is None:  # a keyed route always runs the guards first
        raise errors.MissingApiKey(headers=dict(CHALLENGE))
    return caller


async def identify(connection: ASGIConnection[Any, Any, Any, Any]) -> Caller:
    """Authenticate this request's bearer key, and keep the caller on its exchange."""
    services = services_of(connection)
    ip = client_ip(connection, services.settings.trusted_proxy_hops)
    presented = connection.headers.getall("authorization", [])
    cookies = connection.headers.getall("cookie", [])
    csrf = connection.headers.get("x-csrf-token")
    return await identify_presented(services, exchange_of(connection.scope), presented, ip, cookies, csrf)


async def identify_presented(
    services: Services,
    exchange: Exchange,
    presented: list[str],
    ip: str,
    cookies: list[str] | None = None,
    csrf: str | None = None,
) -> Caller:
    """The caller of the `Authorization` header lines `presented` from address `ip`, kept on the
    request's exchange (the one-pass layer, serve/front.py, reads the lines with the rest of the
    head; `identify` reads them from a Litestar connection). Without an `Authorization` header,
    a dashboard session (its cookie with its CSRF token, `X-CSRF-Token`) is the credential."""
    if len(presented) > 1:
        # Which one a proxy, a cache or this server would pick differs: refuse rather than guess.
        raise errors.MalformedApiKey(
            "Send exactly one Authorization header.", details={"authorization_headers": len(presented)}
        )
    authorization = presented[0] if presented else None
    if authorization is None and cookies and services.sessions is not None:
        signed_in = await services.sessions.caller(cookies, csrf, ip)
        if signed_in is not None:
            exchange.caller, exchange.key_id = signed_in, signed_in.key_id
            return signed_in
    if exchange.vouched is not None:  # a tool call of an access token's `/mcp` request
        exchange.caller, exchange.key_id = exchange.vouched, exchange.vouched.key_id
        return exchange.vouched
    try:
        caller = await authenticated(services, authorization, ip, datetime.now(UTC))
    except IDENTIFIED_KEY_REFUSALS:
        with contextlib.suppress(errors.ApiError):  # an authenticator of tests may take other tokens
            exchange.key_id = parse_token(bearer_token(authorization)).key_id
        raise
    exchange.caller = caller
    exchange.key_id = caller.key_id
    return caller


async def authenticate_caller(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    if is_public(handler):
        return
    endpoint = endpoint_of(handler)
    assert endpoint is not None
    # Before the header is read: a key sent in a URL is refused even next to a valid header.
    reject_key_in_query(exchange_of(connection.scope).query)
    caller = await identify(connection)
    if not caller.may_call(endpoint):
        raise errors.EndpointNotAllowed(f"This key may not call {endpoint}.", details={"endpoint": endpoint})


def caller_limits(caller: Caller) -> Limits:
    """The `serve.limits.Limits` enforced on `caller`'s key (also what `/v1/me` reports)."""
    return limits_from_wire(caller.rate_limit or {})


def limits_from_wire(rate: Mapping[str, int | None]) -> Limits:
    """A key's recorded envelope as `Limits`; windows it does not record get the self-service value."""
    return _limits_of(tuple(rate.items()))


@lru_cache(maxsize=1024)
def _limits_of(recorded: tuple[tuple[str, int | None], ...]) -> Limits:
    # Memoised on the envelope read from the store for this request (validation runs once per shape).
    rate = dict(recorded)

    def window(name: str, default: int | None) -> int | None:
        value = rate.get(name)
        return default if value is None else int(value)

    return Limits(
        per_second=window("per_second", SELF_SERVICE_LIMITS.per_second),
        per_minute=window("per_minute", SELF_SERVICE_LIMITS.per_minute),
        per_day=window("per_day", SELF_SERVICE_LIMITS.per_day),
        # A key without a recorded envelope gets the self-service one; an explicit null month is unlimited.
        monthly_requests=rate["monthly_requests"]
        if "monthly_requests" in rate
        else SELF_SERVICE_LIMITS.monthly_requests,
    )


def caller_pool(caller: Caller) -> Envelope:
    """The account's pooled id and envelope every request of `caller` is also counted in (the
    envelope `NO_LIMITS` when the account has none: counted, never refused)."""
    return account_pool(caller.user_id, caller.account_rate_limit)


def account_pool(user_id: str, pooled: Mapping[str, int | None] | None) -> Envelope:
    """The pooled id and envelope of the account `user_id` whose pooled envelope is `pooled` (its
    wire form, `PooledLimit.to_wire`; None: it has none)."""
    return _pool_of(user_id, None if pooled is None else tuple(pooled.items()))


@lru_cache(maxsize=1024)
def _pool_of(user_id: str, pooled: tuple[tuple[str, int | None], ...] | None) -> Envelope:
    # Memoised on the account and its envelope as read for this request, as `_limits_of`.
    return account_pool_id(user_id), NO_LIMITS if pooled is None else Limits(**dict(pooled))


async def apply_limits(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    if is_public(handler):
        return
    await count_request(services_of(connection), current_caller(connection), exchange_of(connection.scope))


async def count_request(services: Services, caller: Caller, exchange: Exchange) -> None:
    """Count one request of `caller`'s key in its rate windows and monthly quota, keeping the counts
    and the `X-RateLimit-*` headers on `exchange`, or raise the 429 of the window it would exceed
    (nothing counted). The one way anything is metered: a route's request (`apply_limits`) and an MCP
    message (serve/model_context/metering.py)."""
    if services.limiter is None:
        return
    limits = caller_limits(caller)
    # While Redis is unreachable the limiter enforces the limits itself (serve/limits/outage.py);
    # only a key store that cannot record usage makes this fail, as a 503. Counted in the
    # credential's envelope and the account's pooled one at once (both or neither).
    decision = await services.limiter.hit(caller.key_id, limits, datetime.now(UTC), caller_pool(caller))
    if not decision.allowed:
        window = decision.exceeded
        assert window is not None
        error_type = {
            "second": errors.RateLimitSecond,
            "minute": errors.RateLimitMinute,
            "day": errors.RateLimitDay,
            "month": errors.QuotaExceeded,
        }[window]
        details: dict[str, Any] = {"window": window, "retry_after": decision.retry_after}
        message = None
        if decision.refused_by == "account":
            details["envelope"] = "account"
            message = POOLED_REFUSALS[window]
        raise error_type(message, details=details, headers=dict(decision.headers))
    exchange.rate_limit_headers = dict(decision.headers)
    exchange.counted = decision.used
    exchange.account_counted = decision.account_used


POOLED_REFUSALS = {
    window: f"The account's pooled {what} is exhausted: every key, access token and dashboard session "
    "of the account counts against it, whatever this credential's own envelope leaves."
    for window, what in (
        ("second", "per-second rate limit"),
        ("minute", "per-minute rate limit"),
        ("day", "per-day rate limit"),
        ("month", "monthly quota"),
    )
}
"""The message of a 429 the account's pooled envelope gave (`details.envelope` `account`)."""
