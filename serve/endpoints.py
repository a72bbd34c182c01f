"""Every `/v1` endpoint as its handler declares it (`serve.declaration`), completed with its
registry entry, collected once from the handlers the app mounts (`serve.routes.ROUTE_HANDLERS`),
in registry order: what the OpenAPI document, docs/reference.md, `/analytics/_doc` and the
`registry_version` read. No route module imports this one (a route that needs what it computes is
given it by the app: `serve.auth.Services`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import cache

from litestar.handlers import BaseRouteHandler

from schemas.registry import BY_ID as ENTRIES
from serve.declaration import Endpoint, Handled
from serve.routes import ROUTE_HANDLERS


@cache
def endpoints() -> dict[str, Endpoint]:
    """Every registry endpoint by id, in registry order, as the app's handlers declare it."""
    return collected(ROUTE_HANDLERS)


def collected(handlers: Iterable[BaseRouteHandler]) -> dict[str, Endpoint]:
    """The declarations of `handlers`, completed with their registry entries. A registry id no
    handler declares, or one two handlers declare, is a bug: refused here (a handler naming an id
    the registry lacks fails when it is decorated)."""
    handled: dict[str, Handled] = {}
    for handler in handlers:
        declared = handler.opt.get("declared")
        if not isinstance(declared, Handled):
            continue
        endpoint_id = handler.opt["endpoint"]
        if endpoint_id in handled:
            raise RuntimeError(f"{endpoint_id} is declared by two handlers")
        handled[endpoint_id] = declared
    if set(handled) != set(ENTRIES):
        raise RuntimeError(f"handlers and registry differ: {sorted(set(handled) ^ set(ENTRIES))}")
    return {endpoint_id: Endpoint.of(entry, handled[endpoint_id]) for endpoint_id, entry in ENTRIES.items()}


def endpoint(endpoint_id: str) -> Endpoint:
    return endpoints()[endpoint_id]


@cache
def registry_version() -> str:
    """Changes whenever an endpoint, its group, its path or its admin flag changes (and only then):
    the `registry_version` of /v1/health, /v1/me and the OpenAPI document."""
    canonical = json.dumps(
        [[e.id, e.group, e.path, e.admin] for e in endpoints().values()], separators=(",", ":")
    )
    return "r-" + hashlib.sha256(canonical.encode()).hexdigest()[:12]
