"""Which handler answers an exception the one-pass layer meets (`serve.failures.handler_of`): the
routed handler's, chosen as Litestar's exception middleware chooses, the app's `handle_exception`
when the route has none; and the Delta Sharing routes' own, so a protocol client reads the
protocol's error body whichever path refused it."""

from __future__ import annotations

from typing import Any

from litestar.exceptions import HTTPException, NotFoundException
from litestar.utils.scope.state import ScopeState

from serve.failures import handle_exception, handler_of
from serve.routes.sharing import sharing_error


def _scope(handlers: dict[Any, Any] | None) -> dict[str, Any]:
    scope: dict[str, Any] = {"type": "http", "state": {}}
    if handlers is not None:
        ScopeState.from_scope(scope).exception_handlers = handlers  # type: ignore[arg-type]
    return scope


def by_status(*_: Any) -> Any: ...
def by_class(*_: Any) -> Any: ...
def on_500(*_: Any) -> Any: ...


def test_no_route_handlers_is_the_apps_handler() -> None:
    assert handler_of(_scope(None), ValueError()) is handle_exception
    assert handler_of(_scope({}), ValueError()) is handle_exception


def test_the_routes_handlers_as_litestar_chooses_them() -> None:
    handlers = {404: by_status, LookupError: by_class, 500: on_500}
    assert handler_of(_scope(handlers), NotFoundException()) is by_status  # a status first
    assert handler_of(_scope(handlers), KeyError("k")) is by_class  # then the classes, in order
    assert handler_of(_scope(handlers), ValueError()) is on_500  # then a 500 handler
    assert handler_of(_scope(handlers), HTTPException(status_code=400)) is handle_exception
    assert handler_of(_scope({Exception: handle_exception}), ValueError()) is handle_exception


def test_the_sharing_routes_keep_their_handler() -> None:
    from serve.routes import sharing

    registered = [h for h in sharing.routes() if getattr(h, "exception_handlers", None)]
    assert registered and all(h.exception_handlers == {Exception: sharing_error} for h in registered)
    assert handler_of(_scope({Exception: sharing_error}), ValueError()) is sharing_error
