"""The three operator routes, effective only on a platform administrator's key.

- `GET /v1/admin/alphas/{alpha}/readiness` (`admin.alphas.readiness`): what the served build of
  one alpha holds: kinds present, required and missing, completeness, build id, pipeline version,
  built and sealed times, rows per table, the source archive's state.
- `GET /v1/admin/keys/{key_id}/usage` (`admin.keys.usage`): the envelope and the live usage of any
  key, read from the limiter that enforces it (404 `key_not_found`).
- `GET /v1/admin/builds` (`admin.builds.list`): every build kept in the lake, current and retained
  previous ones, of every alpha and benchmark.

The endpoint allow-list never opens these ids to a member's key (`access.access`); the
handlers check `is_admin` again so a mistake there cannot expose them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar import Response
from litestar.params import FromPath

from access.payloads import key_usage as key_usage_of
from access.payloads import zero_usage
from core import errors
from datasets.queries import page_of
from schemas.bodies.admin import BuildRow, KeyUsage, Readiness, SourceArchiveState, TableSize
from schemas.bodies.envelope import Collection, Single
from schemas.query import NoQuery, PageQuery
from serve.auth import account_pool, endpoint_of, limits_from_wire
from serve.envelope import single
from serve.routes.base import Context, Ctx, Q
from serve.routes.declare import route
from serve.scope.resolve import resolve_alpha


def utc_seconds(value: Any) -> str | None:
    """A stored timestamp as docs/api.md writes every timestamp: ISO 8601 UTC, `Z`, seconds.

    Lake files carry them as the engine and pipeline wrote them (`+00:00`, maybe fractions).
    """
    if not value:
        return None
    moment = datetime.fromisoformat(str(value))
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _admin_context(ctx: Context[Q]) -> Context[Q]:
    if not ctx.caller.is_admin:
        endpoint = endpoint_of(ctx.handler)
        raise errors.EndpointNotAllowed(
            "Administrative routes need a platform administrator's key.", details={"endpoint": endpoint}
        )
    return ctx


@route(
    "admin.alphas.readiness",
    "/v1/admin/alphas/{alpha:str}/readiness",
    "Readiness of one alpha",
    sync_to_thread=True,
)
def alpha_readiness(ctx: Ctx[NoQuery], alpha: FromPath[str]) -> Response[Single[Readiness]]:
    ctx = _admin_context(ctx)
    build = resolve_alpha(ctx.caller, ctx.reader, alpha)
    ctx.args()
    entry = build.entry
    source = entry.get("source_archive")
    data = Readiness(
        alpha_id=build.alpha_id,
        complete=bool(entry.get("complete", False)),
        kinds_present=list(entry.get("kinds_present") or []),
        required_kinds=list(entry.get("required_kinds") or []),
        missing_kinds=list(entry.get("missing_kinds") or []),
        build_id=build.build_id,
        pipeline_version=entry.get("pipeline_version"),
        engine_version=entry.get("engine_version"),
        built_at=utc_seconds(entry.get("built_at")),
        sealed_at=utc_seconds(entry.get("sealed_at")),
        started_at=utc_seconds(entry.get("started_at")),
        has_description=bool(entry.get("has_description", False)),
        source_archive=None
        if not source
        else SourceArchiveState(status=source.get("status"), delivered=bool(source.get("delivered"))),
        tables={
            name: TableSize(rows=int(totals.get("rows", 0)), bytes=int(totals.get("bytes", 0)))
            for name, totals in sorted((entry.get("tables") or {}).items())
        },
    )
    return single(data, ctx.meta(alpha_id=build.alpha_id, source=f"lake:alpha.json@{build.build_id}"))


@route(
    "admin.keys.usage",
    "/v1/admin/keys/{key_id:str}/usage",
    "Usage of one key",
    meta=("key_id",),
    sync_to_thread=True,
)
def key_usage(ctx: Ctx[NoQuery], key_id: FromPath[str]) -> Response[Single[KeyUsage]]:
    ctx = _admin_context(ctx)
    keys = ctx.keys
    ctx.args()
    record = keys.store.get_key(key_id) if keys.store is not None else None
    if record is None:
        raise errors.KeyNotFound(f"No key {key_id!r}.", details={"key_id": key_id})
    rate_limit = record.rate_limit.to_wire()
    now = datetime.now(UTC)
    if keys.limiter is None:
        usage: dict[str, int | None] = zero_usage(record.rate_limit)
    else:
        usage = keys.limiter.usage(key_id, limits_from_wire(rate_limit), now)
    account = keys.required_store().get_account(record.user_id)
    pooled = None if account is None or account.pooled_limit is None else account.pooled_limit.to_wire()
    pool_id, pool_limits = account_pool(record.user_id, pooled)
    account_usage = keys.usage(pool_id, pool_limits, now)
    return single(
        key_usage_of(record, usage, account_usage), ctx.meta(key_id=record.key_id, source="limiter")
    )


@route(
    "admin.builds.list",
    "/v1/admin/builds",
    "Catalogue of published builds",
    sync_to_thread=True,
)
def list_builds(ctx: Ctx[PageQuery]) -> Response[Collection[BuildRow]]:
    ctx = _admin_context(ctx)
    args = ctx.args()
    limit, offset = args.limit, args.offset
    builds = [
        msgspec.convert(
            {**row, "built_at": utc_seconds(row["built_at"]), "sealed_at": utc_seconds(row["sealed_at"])},
            BuildRow,
        )
        for row in ctx.reader.builds()
    ]
    page = page_of(builds, limit, offset)
    return ctx.collection(page, limit, offset, ctx.meta(source="lake:builds"))


ROUTES = [alpha_readiness, key_usage, list_builds]
