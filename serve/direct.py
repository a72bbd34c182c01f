"""Routes answered below the framework (issue 61, item 3): a route whose answer is one body of
bytes is called by the one-pass layer (serve/front.py) itself, without Litestar's per-request
objects (its `Request`, the dependency batch, the signature model, the `ASGIResponse`).

Which routes, read from each handler's declaration when the layer first routes to it
(`direct_of`), never listed by hand: a `@route` handler (serve/routes/declare.py) whose answer is
an envelope (`Single`, `Collection`, `Series`: one body, where the event stream and the health
probe are not), whose function (a coroutine, or a plain function Litestar would call on the event
loop or in a thread) takes `ctx` and nothing but `str` path parameters without constraints, and on
which nothing Litestar runs around a handler is set (guards, hooks, a response cache, a DTO,
handler-level headers or cookies, a background task, middleware). Every other route, and every
route while `Front.direct` is off, is answered by Litestar as before.

The handler is called as Litestar calls it: `ctx` made by the one way a context is made
(`serve.routes.base.context_of`, from the scope), its path parameters by name from the router's
`path_params`. Its `Response` becomes the status line and body Litestar would send
(`Direct.encoded`: the response's headers in order, then `content-type` and `content-length`
unless it set them, as `Response.to_asgi_response` and `ASGIResponse` make them), sent on through
the layer's send path: the standard headers, the entity tag and its 304, the egress count and the
compression are the layer's as for every route; a refusal or a failure is answered by the same
exception handler Litestar would call (`serve.failures.handle_exception`). So the status, headers and
bytes are the ones Litestar sends (tests/api/test_direct_routes.py asks each route both ways), and
OpenAPI, the client, MCP and the docs, which read the same declarations, do not change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from litestar import Response
from litestar.enums import MediaType
from litestar.response.base import ASGIResponse
from litestar.types import Message
from litestar.utils.helpers import get_enum_string_value

from serve.declaration import Handled
from serve.routes.base import context_of

_NO_BODY = frozenset({204, 304})


@dataclass(frozen=True, slots=True)
class Direct:
    """A route the layer answers itself: its function and what Litestar would add to its answer."""

    fn: Callable[..., Any]
    sync: bool  # a plain function, called on the event loop as Litestar calls it (`sync_to_thread=False`)
    path_names: tuple[str, ...]  # the path parameters the function takes, by name
    media_type: str  # the handler's, when its `Response` names none
    status_code: int  # likewise
    type_encoders: Any  # for a `Response` whose content is not bytes yet

    async def answer(self, scope: Any) -> tuple[Message, bytes]:
        """The route's status line and body for this routed, admitted request."""
        ctx = await context_of(scope)
        params = scope["path_params"]
        response = self.fn(ctx, **{name: params[name] for name in self.path_names})
        return self.encoded(response if self.sync else await response)

    def encoded(self, response: Any) -> tuple[Message, bytes]:
        """`response` as Litestar sends it (`Response.to_asgi_response`, then `ASGIResponse`'s
        start and body): made here for a plain response of bytes, which every enveloped route
        returns; through Litestar's own conversion for any other."""
        content = response.content
        status = response.status_code or self.status_code
        if (
            type(response) is not Response
            or type(content) is not bytes
            or response.cookies
            or response.background is not None
            or status in _NO_BODY
            or status < 200
        ):
            return self._converted(response)
        headers = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in response.headers.items()
        ]
        named = {name for name, _ in headers}
        if b"content-type" not in named:
            media_type = get_enum_string_value(response.media_type or self.media_type or MediaType.JSON)
            if media_type.startswith("text/"):
                media_type = f"{media_type}; charset={response.encoding}"
            headers.append((b"content-type", media_type.encode("latin-1")))
        if b"content-length" not in named:
            headers.append((b"content-length", str(len(content)).encode("latin-1")))
        return {"type": "http.response.start", "status": status, "headers": headers}, content

    def _converted(self, response: Response[Any]) -> tuple[Message, bytes]:
        made = response.to_asgi_response(
            app=None,
            request=None,  # type: ignore[arg-type]  # read by neither conversion
            media_type=self.media_type,
            status_code=self.status_code,
            type_encoders=self.type_encoders,
        )
        if type(made) is not ASGIResponse or made.background is not None:
            raise TypeError(
                f"{self.fn.__name__}: an enveloped route answers one body, not {type(made).__name__}"
            )
        start: Message = {
            "type": "http.response.start",
            "status": made.status_code,
            "headers": made.encode_headers(),
        }
        return start, made.body


def direct_of(handler: Any) -> Direct | None:
    """The handler as a route the layer answers itself, or None when Litestar answers it (the
    module's docstring). Read once per handler, after the app registered it."""
    declared = handler.opt.get("declared")
    if not isinstance(declared, Handled) or not declared.enveloped:
        return None
    if (
        handler.http_methods != {"GET"}
        or handler.resolve_guards()
        or handler.resolve_before_request() is not None
        or any(layer.after_request for layer in handler.ownership_layers)
        or handler.resolve_after_response() is not None
        or handler.cache
        or handler.resolve_return_dto() is not None
        or handler.resolve_response_headers()
        or handler.resolve_response_cookies()
        or handler.resolve_middleware()
        or handler.background is not None
        or handler.resolve_response_class() is not Response
    ):
        return None
    path_types = declared.path_parameters
    # The function's own parameters (Litestar's parsed signature adds the path's other parameters).
    taken = list(handler.parsed_fn_signature.original_signature.parameters)
    if taken[:1] != ["ctx"]:
        return None
    names = []
    for name in taken[1:]:
        field = handler.parsed_fn_signature.parameters[name]
        kwarg = field.kwarg_definition
        plain = kwarg is None or kwarg == type(kwarg)()
        if path_types.get(name) != "str" or field.annotation is not str or not plain or field.has_default:
            return None
        names.append(name)
    return Direct(
        fn=handler.fn,
        sync=handler.has_sync_callable,
        path_names=tuple(names),
        media_type=get_enum_string_value(handler.media_type),
        status_code=handler.status_code,
        type_encoders=handler.resolve_type_encoders(),
    )
