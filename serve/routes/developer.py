"""The developer surface outside `/v1`: a landing page at `/`, the API reference UI at `/docs`, and
the UI's assets under `/static`.

`/docs` is Swagger UI, rendered by Litestar's own `SwaggerRenderPlugin` over the app's OpenAPI
document (the object `/openapi.json` serves, embedded in the page). The app keeps building that
document itself (`serve.openapi`, `openapi_config=None`), so the plugin is not registered with an
`OpenAPIConfig`: the handler here calls its `render` directly. Its assets are vendored from the
npm package `swagger-ui-dist` (serve/static/swagger-ui/README.md: version, licence, upgrade) and
served by the app under a versioned path with a year-long `immutable` cache, so the page needs no
CDN and works offline; its `Content-Security-Policy` lets it load nothing from another origin. The
page runs no inline script: the document is embedded as a JSON data block, and Swagger UI is
started by a script of this origin (`/docs/swagger-init.js`, serve/static/docs/), so the policy
allows scripts from `'self'` only.

All three are public (no key is read), unmetered and outside the endpoint registry, like
`/openapi.json`: their handlers carry no registry id (`serve.auth.is_public`). They follow the
app's path rules (`/docs/` and `/index.html` are 404 `not_found`; HEAD or POST is 404
`method_not_allowed`) and, like `/openapi.json`, ignore any query string.
"""

from __future__ import annotations

import html
from typing import Any

from litestar import Litestar, Request, Response, get
from litestar.enums import MediaType
from litestar.router import Router
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler

from schemas.registry import X_REGISTRY_VERSION
from serve.envelope import JSON, json_bytes
from serve.pages import (
    ASSET_CACHE,
    DASHBOARD_PATH,
    DOCS_CSP,
    DOCS_INIT_PATH,
    DOCS_INIT_SCRIPT,
    DOCS_PATH,
    LANDING_CSP,
    LANDING_PATH,
    LLMS_PATH,
    OPENAPI_PATH,
    PAGE_HEADERS,
    STATIC_DIR,
    SWAGGER_UI_URL,
    SWAGGER_UI_VERSION,
    swagger_plugin,
)

PATHS: tuple[str, ...] = (
    LANDING_PATH,
    DOCS_PATH,
    DOCS_INIT_PATH,
    OPENAPI_PATH,
    LLMS_PATH,
    f"{SWAGGER_UI_URL}/{{file_path:path}}",
)
"""The route paths this module mounts (none of them is in the OpenAPI document)."""


def landing_page(document: dict[str, Any]) -> bytes:
    """The short HTML page at `/`: what the service is and where to go next."""
    info = document.get("info", {})
    title = html.escape(str(info.get("title", "API")))
    version = html.escape(str(info.get("version", "")))
    registry = html.escape(str(info.get(X_REGISTRY_VERSION, "")))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
<style>
body {{ font-family: system-ui, sans-serif; max-width: 42rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1f24; }}
code {{ background: #f1f3f5; padding: 0 .25rem; border-radius: 3px; }}
footer {{ color: #5c6670; font-size: .9rem; }}
</style>
</head>
<body>
<main>
<h1>{title}</h1>
<p>The stored research results of trading signals (alphas), published as a read-only JSON API.
Every data route lives under <code>/v1</code> and takes an API key:
<code>Authorization: Bearer &lt;token&gt;</code>.</p>
<ul>
<li><a href="{DOCS_PATH}">API reference</a> (interactive, <code>{DOCS_PATH}</code>)</li>
<li><a href="/openapi.json">OpenAPI document</a> (<code>/openapi.json</code>)</li>
<li><a href="/v1/health">Health</a> (<code>/v1/health</code>, no key needed)</li>
<li><a href="{DASHBOARD_PATH}">Dashboard</a></li>
</ul>
</main>
<footer>Version {version} &middot; endpoint registry {registry}</footer>
</body>
</html>
""".encode()


_DOCUMENT = "openapi_document"
_DOCUMENT_JSON = "openapi_json"
_LANDING = "landing_page"
_LLMS = "llms_txt"


def publish(app: Litestar, document: dict[str, Any], llms: str) -> None:
    """Give the pages `app`'s OpenAPI document (built once the app's routes are known), with its
    JSON encoded once here rather than on every request to `/openapi.json`, and `/llms.txt` (made
    from the same document by `serve.doc_blocks.llms`)."""
    app.state[_DOCUMENT] = document
    app.state[_DOCUMENT_JSON] = json_bytes(document)
    app.state[_LANDING] = landing_page(document)
    app.state[_LLMS] = llms.encode()


def routes() -> list[ControllerRouterHandler]:
    """The landing page, `/docs` and `/openapi.json` over the app's document, and the assets."""
    plugin = swagger_plugin()
    rendered: list[bytes] = []  # the docs page, rendered on first request (the document is fixed)

    @get(LANDING_PATH, sync_to_thread=False, include_in_schema=False)
    def landing_html(request: Request[Any, Any, Any]) -> Response[bytes]:
        return Response(
            request.app.state[_LANDING],
            media_type=MediaType.HTML,
            headers={**PAGE_HEADERS, "Content-Security-Policy": LANDING_CSP},
        )

    @get(DOCS_PATH, sync_to_thread=False, include_in_schema=False)
    def docs_html(request: Request[Any, Any, Any]) -> Response[bytes]:
        if not rendered:
            rendered.append(plugin.render(request, request.app.state[_DOCUMENT]))
        return Response(
            rendered[0],
            media_type=MediaType.HTML,
            headers={**PAGE_HEADERS, "Content-Security-Policy": DOCS_CSP},
        )

    @get(DOCS_INIT_PATH, sync_to_thread=False, include_in_schema=False)
    def docs_init_js() -> Response[bytes]:
        return Response(DOCS_INIT_SCRIPT, media_type="text/javascript", headers=PAGE_HEADERS)

    @get(OPENAPI_PATH, sync_to_thread=False, include_in_schema=False)
    def openapi_json(request: Request[Any, Any, Any]) -> Response[bytes]:
        return Response(request.app.state[_DOCUMENT_JSON], media_type=JSON)

    @get(LLMS_PATH, sync_to_thread=False, include_in_schema=False)
    def llms_txt(request: Request[Any, Any, Any]) -> Response[bytes]:
        # Litestar adds `; charset=utf-8` to every text/* type: naming it here sent it twice.
        return Response(request.app.state[_LLMS], media_type="text/markdown", headers=PAGE_HEADERS)

    # Only the versioned release folder: its immutable cache is safe there, and nothing else under
    # serve/static (the dashboard's sources, READMEs) gets an address of its own.
    assets: Router = create_static_files_router(
        path=SWAGGER_UI_URL,
        directories=[STATIC_DIR / "swagger-ui" / SWAGGER_UI_VERSION],
        cache_control=ASSET_CACHE,
        name="static_asset",
    )
    return [landing_html, docs_html, docs_init_js, openapi_json, llms_txt, assets]
