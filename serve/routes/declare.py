"""The decorator that makes a handler an endpoint's declaration.

```python
@route("signals.rebalances.get", "/v1/alphas/{alpha:str}/rebalances/{date:str}",
       "Cross-section of one rebalance week", meta=("date", "week_status", "n_symbols"))
async def get_rebalance(
    ctx: Ctx[WeekQuery], alpha: FromPath[str], date: FromPath[str]
) -> Response[Collection[DecisionRow]]:
```

is Litestar's `@get` with the path, the summary, the registry id as the OpenAPI operation id and in
`opt["endpoint"]` (which the guards and the access log read), and `serve.openapi.DeclaredOperation`
completing the operation Litestar generates from it (`serve.endpoints`). The signature declares the
rest: the query parameters (`Ctx[WeekQuery]`: the request context, whose `args()` parses that
Struct), the path parameters, and the answer as the return type (`Single[Body]`,
`Collection[Row]`, `Series[Row, Summary]` of `schemas.bodies.envelope`, or a body outside the
envelope). The registry entry (`schemas.registry`) holds only the id, the group and the flags.

A handler returns a `Response` whose content is the bytes of the representation the client
negotiated (JSON of that type by default; `serve.representation`), which Litestar sends as they are.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from litestar import Response, get
from litestar.di import Provide

from schemas.query import NoQuery, Query
from schemas.registry import BY_ID
from serve.declaration import Handled
from serve.dependencies import DEPENDENCIES
from serve.routes.base import Context, injected_context


def route(
    endpoint_id: str,
    path: str,
    summary: str,
    *,
    meta: tuple[str, ...] = (),
    documented: str | None = None,
    **options: Any,
) -> Callable[[Callable[..., Any]], Any]:
    entry = BY_ID[endpoint_id]  # an id the registry lacks fails at import, not at request time

    def mount(handler: Callable[..., Any]) -> Any:
        handled = Handled(path, summary, answer_of(handler), query_of(handler), meta, documented)
        return get(
            path,
            opt={"endpoint": endpoint_id, "declared": handled},
            operation_id=endpoint_id,
            summary=summary,
            tags=[entry.group],
            dependencies={"ctx": Provide(injected_context), **DEPENDENCIES},
            **options,
        )(handler)

    return mount


def answer_of(handler: Callable[..., Any]) -> Any:
    """The answer the handler's return type declares: `X` of its `Response[X]`."""
    returned = typing.get_type_hints(handler).get("return")
    if typing.get_origin(returned) is not Response:
        raise TypeError(f"{handler.__name__}: the return type must be Response[<the answer's type>]")
    return typing.get_args(returned)[0]


def query_of(handler: Callable[..., Any]) -> type[Query]:
    """The query Struct the handler's `ctx: Ctx[...]` names (NoQuery for a handler without `ctx`)."""
    hint = typing.get_type_hints(handler, include_extras=True).get("ctx")
    if hint is None:
        return NoQuery
    # Annotated[Context[Q], SkipValidationMarker] -> Context[Q]
    context_type = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
    if typing.get_origin(context_type) is not Context:
        raise TypeError(f"{handler.__name__}: `ctx` must be annotated Ctx[<a schemas.query Struct>]")
    query: type[Query] = typing.get_args(context_type)[0]
    return query
