"""What the public pages share: the vendored static folder, the paths of `/`, `/docs` and the
dashboard, their caching and Content-Security-Policy headers, and the Swagger UI plugin that the
OpenAPI router and serve/routes/developer.py both mount. Not a route module, so the route modules
and serve/openapi read these without importing one another."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from litestar import Request
from litestar.datastructures import CacheControlHeader
from litestar.openapi.plugins import SwaggerRenderPlugin

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_PREFIX = "/static"
SWAGGER_UI_VERSION = "5.35.0"
"""The vendored `swagger-ui-dist` release: its folder under serve/static/swagger-ui/ and its URL."""
SWAGGER_UI_URL = f"{STATIC_PREFIX}/swagger-ui/{SWAGGER_UI_VERSION}"

DOCS_PATH = "/docs"
DOCS_INIT_PATH = f"{DOCS_PATH}/swagger-init.js"
DOCS_INIT_SCRIPT = (STATIC_DIR / "docs" / "swagger-init.js").read_bytes()
OPENAPI_PATH = "/openapi.json"
LANDING_PATH = "/"

DASHBOARD_PATH = "/ui"
"""The research dashboard's path (serve/routes/dashboard.py mounts it), linked from the landing page."""
MCP_PATH = "/mcp"  # the MCP server (Streamable HTTP; serve/model_context/)
LLMS_PATH = "/llms.txt"  # the reference for language models (serve/doc_blocks/llms.py)

ASSET_CACHE = CacheControlHeader(public=True, max_age=365 * 24 * 3600, immutable=True)
"""Assets live under a versioned path: a new release is a new URL, so a year-long cache is safe."""
PAGE_HEADERS = {"Cache-Control": "no-cache"}
"""The pages change with each deployment (the document, the version): revalidated on every visit."""

DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
"""Swagger UI's bundle, styles and start-up script from this origin, nothing inline (the styles
Swagger UI sets as it renders go through the CSSOM, which the policy does not govern); its "Try it
out" calls this origin only. A page that tried to load or run anything else would be refused by
the browser (tests/e2e/test_docs_ui.py fails on any refusal it reports)."""
LANDING_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
)


class EmbeddedSwaggerUI(SwaggerRenderPlugin):
    """Litestar's Swagger UI page, with the document embedded as a JSON data block and no inline
    script (`DOCS_CSP`)."""

    @staticmethod
    def render_json(request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        # A `</script>` (or `<!--`) in any description would end or derail the data block the
        # document is embedded in; `<` can only occur inside JSON strings, where `\u003c` is the same.
        return SwaggerRenderPlugin.render_json(request, openapi_schema).replace(b"<", b"\\u003c")

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        title = html.escape(str(openapi_schema["info"]["title"]))
        head = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
{self.favicon}
<link href="{self.css_url}" rel="stylesheet">
<script src="{self.js_url}"></script>
<script src="{self.standalone_preset_js_url}"></script>
</head>
<body>
<div id="swagger-container"></div>
<script id="openapi-document" type="application/json">"""
        tail = f"""</script>
<script src="{DOCS_INIT_PATH}"></script>
</body>
</html>
"""
        return head.encode() + self.render_json(request, openapi_schema) + tail.encode()


def swagger_plugin(paths: tuple[str, ...] = (DOCS_PATH,)) -> SwaggerRenderPlugin:
    """Litestar's Swagger UI page with every asset on this origin (its defaults name a CDN)."""
    return EmbeddedSwaggerUI(
        version=SWAGGER_UI_VERSION,
        js_url=f"{SWAGGER_UI_URL}/swagger-ui-bundle.js",
        css_url=f"{SWAGGER_UI_URL}/swagger-ui.css",
        standalone_preset_js_url=f"{SWAGGER_UI_URL}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{SWAGGER_UI_URL}/favicon-32x32.png'>",
        path=list(paths),
    )
