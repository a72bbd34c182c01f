"""Meta routes: `/v1/health` (public, never metered), `/v1/me` and `/v1/me/keys`.

`/v1/health` answers from the health monitor's last state (serve/health.py), on the event loop.
`/v1/me` answers on the event loop: its key from the identity cache (access/cache.py; a
miss reads the store, in a worker thread on PostgreSQL), its usage from the limiter's answer to
this request's own hit (`Exchange.counted`), so the numbers are those of the `X-RateLimit-*`
headers of the same response. `/v1/me/keys` reads the store and the limiter on the event loop
when both are in-process (SQLite, in-process counters), else in a worker thread
(`serve.auth.call_backends`), with each key's usage as the limiter counts it now.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from litestar import Request, Response
from litestar.params import SkipValidation
from msgspec import UNSET

from access import KeyRecord, key_inventory_row, me_payload
from core import errors
from core.context import Caller
from core.settings import Settings
from datasets.queries import Page
from schemas.bodies.envelope import Collection, EnvelopeMeta, Single
from schemas.bodies.identity import KeyInventoryRow, Me
from schemas.bodies.service import Health, HealthLake
from schemas.query import NoQuery, PageQuery
from serve.auth import (
    caller_limits,
    caller_pool,
    limits_from_wire,
)
from serve.dependencies import KeyBackends
from serve.envelope import Encoded, json_response, now_iso
from serve.exchange import exchange_of
from serve.health import HealthState, monitor_of
from serve.limits.model import Counts, Limits, build_usage
from serve.limits.windows import WindowName
from serve.params import QueryParams
from serve.routes.base import Context, Ctx
from serve.routes.declare import route


@cache
def build_version() -> str:
    """The installed distribution's version (read once: it is file I/O)."""
    try:
        return version("alpha-results")
    except PackageNotFoundError:
        return "0+unknown"


def health_body(settings: Settings, registry_version: str, state: HealthState) -> Health:
    """The health body of the monitor's last state (serve/health.py): no backend is touched."""
    return Health(
        status="degraded" if state.status == "degraded" else "ok",
        service=settings.service_name,
        environment=settings.environment,
        version=build_version(),
        registry_version=registry_version,
        time=now_iso(),
        down=list(state.down) if state.status == "degraded" else UNSET,
        lake=HealthLake(degraded_alphas=dict(state.degraded_alphas)) if state.degraded_alphas else UNSET,
        # this worker's own problem, no build's (datasets.reader)
        worker=state.worker if state.worker else UNSET,
    )


@route("meta.health", "/v1/health", "Health probe", sync_to_thread=False)
def health(
    request: Request[Any, Any, Any],
    settings: SkipValidation[Settings],
    registry_version: SkipValidation[str],
) -> Response[Health]:
    """A request with a query string (400 for any parameter) or not answered before routing (serve/front.py)."""
    QueryParams(exchange_of(request.scope).query, ()).parse(NoQuery)
    return json_response(health_body(settings, registry_version, monitor_of(request.app).current()))


def _envelope(limits: Limits) -> dict[str, int | None]:
    return {
        "per_second": limits.per_second,
        "per_minute": limits.per_minute,
        "per_day": limits.per_day,
        "monthly_requests": limits.monthly_requests,
    }


@route("meta.me", "/v1/me", "Identity, limits and usage of the calling key", meta=("key_id",))
async def me(ctx: Ctx[NoQuery]) -> Response[Single[Me]]:
    ctx.args()
    exchange = exchange_of(ctx.scope)
    return json_response(
        await me_answer(
            ctx.keys,
            ctx.caller,
            exchange.counted,
            ctx.registry_version,
            ctx.request_id,
            account_counted=exchange.account_counted,
        )
    )


async def me_answer(
    keys: KeyBackends,
    caller: Caller,
    counted: dict[WindowName, int] | None,
    registry_version: str,
    request_id: str,
    key_record: KeyRecord | None = None,
    account_counted: dict[WindowName, int] | None = None,
) -> Single[Me]:
    """`/v1/me`'s answer: the handler's, and the one-pass layer's for a request without a query
    string (serve/front.py), the same body. `key_record`: the key as this request's authentication
    read it (the layer's), else it is read. `counted` and `account_counted`: the limiter's counts of
    the credential and of the account's pool just after this request was counted (None: nothing is
    metered)."""
    if key_record is None and caller.credential == "key":
        key_record = await keys.key_record(caller.key_id)
        if key_record is None:  # deleted between authentication and now; answer as for any unknown key
            raise errors.InvalidApiKey()
    limits = caller_limits(caller)
    if counted is not None:  # the limiter's answer to this request's own hit
        usage = build_usage(limits, _counts(counted))
    else:  # nothing is metered
        usage = keys.usage(caller.key_id, limits, datetime.now(UTC))
    pool_id, pooled = caller_pool(caller)
    if account_counted is not None:
        account_usage = build_usage(pooled, _counts(account_counted))
    else:
        account_usage = keys.usage(pool_id, pooled, datetime.now(UTC))
    data = me_payload(caller, key_record, usage, _envelope(limits), registry_version, account_usage)
    return Single(
        data=data, meta=EnvelopeMeta(key_id=caller.key_id, request_id=request_id, generated_at=now_iso())
    )


def _counts(counted: dict[WindowName, int]) -> Counts:
    return (counted["second"], counted["minute"], counted["day"], counted["month"])


@route("meta.keys", "/v1/me/keys", "Inventory of the caller's keys", meta=("key_id",))
async def my_keys(ctx: Ctx[PageQuery]) -> Response[Collection[KeyInventoryRow]]:
    return await ctx.keys.call(_my_keys, ctx)


def _my_keys(ctx: Context[PageQuery]) -> Encoded:
    backends = ctx.keys
    args = ctx.args()
    limit, offset = args.limit, args.offset
    store = backends.required_store()
    account = store.get_account(ctx.caller.user_id)
    if account is None:
        raise errors.AccountInactive()
    # The store returns newest `created_at` first (key_id breaks ties) and omits revoked keys.
    keys = store.list_keys_of_user(account.user_id)
    now = datetime.now(UTC)
    rows = []
    for key in keys[offset : offset + limit]:  # usage is read only for the keys on this page
        usage = backends.usage(key.key_id, limits_from_wire(key.rate_limit.to_wire()), now)
        rows.append(key_inventory_row(key, account, usage))
    return ctx.collection(Page(rows, len(keys)), limit, offset, ctx.meta(key_id=ctx.caller.key_id))


ROUTES = [health, me, my_keys]
