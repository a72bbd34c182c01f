"""`/v1/alphas` (the catalogue) and `/v1/alphas/{alpha}` (the written description)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.params import FromPath

from datasets import layout
from datasets.catalog import catalogue_order
from datasets.queries import page_of
from schemas.query import CatalogueQuery, NoQuery
from serve import errors
from serve.envelope import single
from serve.routes.base import context
from serve.routes.declare import route


@route("catalog.alphas.list", sync_to_thread=False)
def list_alphas(request: Request[Any, Any, Any]) -> Response[bytes]:
    ctx = context(request)
    args = ctx.args(CatalogueQuery)
    complete_only, limit, offset = args.complete_only, args.limit, args.offset

    needle = args.search.casefold() if args.search else None
    builds = ctx.reader.alphas()
    ctx.validate_with("catalog:" + ",".join(f"{a}@{b.build_id}" for a, b in sorted(builds.items())))
    rows = []
    # Only alphas the key may read are listed: the catalogue reveals nothing the key cannot open.
    for alpha_id, build in builds.items():
        if not ctx.caller.may_read_alpha(alpha_id):
            continue
        entry = build.entry
        if complete_only and not entry.get("complete", False):
            continue
        row = {"alpha_id": alpha_id, "name": entry.get("name") or alpha_id, "tldr": entry.get("tldr")}
        if needle is not None and not any(needle in (v or "").casefold() for v in row.values()):
            continue
        rows.append((entry, row))
    rows.sort(key=lambda pair: catalogue_order({**pair[0], "alpha_id": pair[1]["alpha_id"]}))
    page = page_of([row for _, row in rows], limit, offset)
    meta = ctx.meta(source="lake:catalog")
    return ctx.collection(page.rows, page.total, limit, offset, meta)


@route("catalog.alphas.get")
async def get_alpha(request: Request[Any, Any, Any], alpha: FromPath[str]) -> Response[bytes]:
    ctx = context(request)
    build = await ctx.open_alpha(alpha)
    ctx.args(NoQuery)
    description = build.json(layout.DESCRIPTION_JSON)
    if description is None:
        raise errors.AlphaDescriptionNotFound(
            f"The run {alpha!r} sealed no written description; its data endpoints still answer.",
            details={"alpha": alpha},
        )
    data = dict(description)
    data["algo_id"] = build.alpha_id
    data["alpha_id"] = build.alpha_id
    meta = ctx.run_meta(build, "description")
    return single(data, meta)


ROUTES = [list_alphas, get_alpha]
