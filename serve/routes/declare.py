"""Routes mounted from the endpoint registry: a handler names its registry id, nothing else.

`@route("signals.scores")` is Litestar's `@get` with the registry entry's path, the registry id as
its OpenAPI operation id and in `opt["endpoint"]` (which the guards and the access log read), and
`serve.openapi.DeclaredOperation` completing the operation Litestar generates from the entry, so a
route's path, ids, parameters and documentation are declared once, in `schemas/registry.py`.
"""

from __future__ import annotations

from typing import Any

from litestar import get

from schemas.registry import BY_ID
from serve.openapi import DeclaredOperation


def route(endpoint_id: str, *, opt: dict[str, Any] | None = None, **options: Any) -> Any:
    entry = BY_ID[endpoint_id]
    return get(
        entry.path,
        opt={"endpoint": endpoint_id, **(opt or {})},
        operation_id=endpoint_id,
        summary=entry.summary,
        tags=[entry.group],
        operation_class=DeclaredOperation,
        **options,
    )
