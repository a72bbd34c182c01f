"""The OAuth paths, answered before the router (as `/mcp` is): the protected resource's metadata
(`/.well-known/oauth-protected-resource` and its `/mcp`-suffixed form, RFC 9728 3.1) and, with the
built-in authorization server, its paths (`serve.oauth.builtin.AS_PATHS`)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.types import ASGIApp, Receive, Scope, Send

from serve.access_log import ROUTE_NAME
from serve.oauth.builtin import AS_PATHS, BuiltinProvider, signing_key
from serve.oauth.dashboard import PATHS as SIGN_IN_PATHS
from serve.oauth.dashboard import SessionSignIn
from serve.oauth.resource import BUILTIN, METADATA_PATH, ProtectedResource

RESOURCE_PATHS = frozenset({METADATA_PATH, METADATA_PATH + "/mcp"})


def oauth_of(
    litestar: Litestar, sign_in: SessionSignIn
) -> tuple[ProtectedResource | None, BuiltinProvider | None]:
    """The app's protected resource and built-in server (None, None: `/mcp` takes keys alone); the
    built-in server's consent page knows the person by `sign_in`'s sessions."""
    services = litestar.state["services"]
    settings = services.settings
    provider = None
    if settings.oauth_issuer == BUILTIN:
        provider = BuiltinProvider(settings, signing_key(settings), services.authenticate, sign_in)
    resource = ProtectedResource.of(settings, provider.key_set() if provider is not None else None)
    return resource, provider


def sign_in_of(litestar: Litestar) -> SessionSignIn:
    """The app's dashboard sign-in, kept on its services for the request path (`serve.auth`)."""
    services = litestar.state["services"]
    services.sessions = SessionSignIn(services.settings, services.store)
    sessions: SessionSignIn = services.sessions
    return sessions


def mounted(
    app: ASGIApp, resource: ProtectedResource | None, provider: BuiltinProvider | None, sign_in: SessionSignIn
) -> ASGIApp:
    """`app` with the OAuth paths answered first: the dashboard's sign-in paths always (without a
    provider `/ui/session` says so), the resource's and the built-in server's with `oauth_issuer`."""
    server: Any = provider.app() if provider is not None else None
    metadata = resource.metadata() if resource is not None else b""
    people: Any = sign_in.app()

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path in SIGN_IN_PATHS:
            scope[ROUTE_NAME] = "ui.sign_in"  # type: ignore[literal-required]
            await people(scope, receive, send)
        elif resource is not None and path in RESOURCE_PATHS and scope.get("method") in ("GET", "HEAD"):
            scope[ROUTE_NAME] = "oauth.resource"  # type: ignore[literal-required]
            head = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(metadata)).encode()),
                (b"access-control-allow-origin", b"*"),
                (b"cache-control", b"public, max-age=3600"),
            ]
            await send({"type": "http.response.start", "status": 200, "headers": head})
            await send({"type": "http.response.body", "body": metadata, "more_body": False})
        elif server is not None and path in AS_PATHS:
            scope[ROUTE_NAME] = "oauth.server"  # type: ignore[literal-required]
            await server(scope, receive, send)
        else:
            await app(scope, receive, send)

    return route
