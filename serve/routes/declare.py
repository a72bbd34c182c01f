"""Routes mounted from the endpoint registry: a handler names its registry id, nothing else.

`@route("signals.scores")` is Litestar's `@get` with the registry entry's path, operation id and
handler name, and the id in `opt["endpoint"]` (which the guards, the access log and the OpenAPI
document read), so a route's path and ids are declared once, in `schemas/registry.py`.
"""

from __future__ import annotations

from typing import Any

from litestar import get

from schemas.registry import BY_ID


def route(endpoint_id: str, *, opt: dict[str, Any] | None = None, **options: Any) -> Any:
    entry = BY_ID[endpoint_id]
    return get(
        entry.path,
        opt={"endpoint": endpoint_id, **(opt or {})},
        operation_id=entry.operation,
        **options,
    )
